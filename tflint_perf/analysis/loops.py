"""Loop helpers shared by the rules: where loops are, what they iterate."""

from __future__ import annotations

from typing import Iterator, List, Optional, Union, cast

from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.nodes import node_types
from tflint_perf.engine.walk import descendants

LOOP_TYPES = cast("tuple[type[cst.For], type[cst.While]]", node_types("For", "While"))
COMPREHENSION_TYPES = cast(
    "tuple[type[cst.ListComp], type[cst.SetComp], type[cst.DictComp], type[cst.GeneratorExp]]",
    node_types("ListComp", "SetComp", "DictComp", "GeneratorExp"),
)
SCOPE_TYPES = cast(
    "tuple[type[cst.FunctionDef], type[cst.ClassDef], type[cst.Lambda]]",
    node_types("FunctionDef", "ClassDef", "Lambda"),
)


def enclosing_loops(
    ctx, node: cst.CSTNode, stop_at_scope: bool = True
) -> List[Union[cst.For, cst.While]]:
    """``for``/``while`` statements whose body contains ``node``, nearest first.

    A loop counts only when ``node`` is in its body (or ``else``), not in its
    iterable or condition. With ``stop_at_scope``, a function or class
    boundary ends the search: a ``def`` inside a loop is not run by it.
    """
    out: List[Union[cst.For, cst.While]] = []
    child = node
    for parent in ctx.ancestors_of(node):
        if (
            isinstance(parent, LOOP_TYPES)
            and child is not getattr(parent, "iter", None)
            and child is not getattr(parent, "test", None)
            and child is not getattr(parent, "target", None)
        ):
            out.append(parent)
        if stop_at_scope and isinstance(parent, SCOPE_TYPES):
            break
        child = parent
    return out


def body_nodes(loop: Union[cst.For, cst.While], skip_scopes: bool = True) -> Iterator[cst.CSTNode]:
    """Every node in a loop's body (not its header), nested scopes skipped."""
    body = loop.body
    yield from descendants(body, skip_scopes=skip_scopes)


def range_call(expr: cst.BaseExpression) -> Optional[cst.Call]:
    """The call if ``expr`` is ``range(...)`` (builtin spelling)."""
    if (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Name)
        and expr.func.value == "range"
    ):
        return expr
    return None


def enumerate_call(expr: cst.BaseExpression) -> Optional[cst.Call]:
    if (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Name)
        and expr.func.value == "enumerate"
    ):
        return expr
    return None


def target_names(target: cst.BaseExpression) -> List[str]:
    """Names bound by a ``for`` target (``i``, ``(i, x)``, ``[a, b]``)."""
    return [n.value for n in [target, *descendants(target)] if isinstance(n, cst.Name)]


def calls_in(node: cst.CSTNode, skip_scopes: bool = True) -> Iterator[cst.Call]:
    for sub in descendants(node, skip_scopes=skip_scopes):
        if isinstance(sub, cst.Call):
            yield sub


def method_name(call: cst.Call) -> Optional[str]:
    """``fit`` for ``model.fit(...)``; None for plain calls."""
    if isinstance(call.func, cst.Attribute):
        return call.func.attr.value
    return None


def receiver(call: cst.Call) -> Optional[str]:
    """Dotted receiver of a method call: ``self.model`` for ``self.model.fit()``."""
    if isinstance(call.func, cst.Attribute):
        return dotted(call.func.value)
    return None


def names_used(node: cst.CSTNode) -> set:
    """Variable names read in ``node`` (attribute and keyword names excluded)."""
    skip = set()
    used = set()
    for sub in [node, *descendants(node)]:
        if isinstance(sub, cst.Attribute):
            skip.add(id(sub.attr))
        elif isinstance(sub, cst.Arg) and sub.keyword is not None:
            skip.add(id(sub.keyword))
        elif isinstance(sub, cst.Name) and id(sub) not in skip:
            used.add(sub.value)
    return used


# -- how many times a loop runs ---------------------------------------------
class IntConstants:
    """Names every binding of which, anywhere in the file, is an int literal.

    ``epochs = 5`` (once, or several times with literals: the largest
    counts). A name also bound any other way (a parameter, a ``for`` target,
    ``+=``, unpacking, ``with ... as``) is not a constant.
    """

    def __init__(self, ctx) -> None:
        values: dict = {}
        other: set = set()
        for node in ctx.nodes(cst.Assign):
            for target in node.targets:
                _note_binding(target.target, node.value, values, other)
        for node in ctx.nodes(cst.AnnAssign):
            _note_binding(node.target, node.value, values, other)
        for node_type in (cst.AugAssign, cst.For, cst.CompFor, cst.NamedExpr):
            for node in ctx.nodes(node_type):
                other.update(target_names(node.target))
        for node in ctx.nodes(cst.Param):
            other.add(node.name.value)
        for node in ctx.nodes(cst.AsName):
            other.update(target_names(node.name))
        self.values = {k: v for k, v in values.items() if k not in other}

    def value(self, expr: cst.BaseExpression) -> Optional[int]:
        """The int ``expr`` stands for: a literal or a constant name."""
        if isinstance(expr, cst.Integer):
            return int(expr.evaluated_value)
        if isinstance(expr, cst.Name):
            return self.values.get(expr.value)
        if isinstance(expr, cst.BinaryOperation) and type(expr.operator).__name__ in _ARITHMETIC:
            left, right = self.value(expr.left), self.value(expr.right)
            if (
                left is not None
                and right is not None
                and (right or _ARITHMETIC[type(expr.operator).__name__] != "//")
            ):
                return _apply(_ARITHMETIC[type(expr.operator).__name__], left, right)
        return None


_ARITHMETIC = {
    "Add": "+",
    "Subtract": "-",
    "Multiply": "*",
    "FloorDivide": "//",
}  # by node class name


def _apply(op: str, left: int, right: int) -> int:
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    return left * right if op == "*" else left // right


def _note_binding(target, value, values: dict, other: set) -> None:
    if isinstance(target, cst.Name) and isinstance(value, cst.Integer):
        number = int(value.evaluated_value)
        values[target.value] = max(number, values.get(target.value, number))
    else:
        other.update(target_names(target))


def trip_count(loop: cst.CSTNode, constants: IntConstants) -> Optional[int]:
    """Iterations of ``for _ in range(N)`` (N a literal or a constant name),
    of ``enumerate(range(N))`` or of a loop over a literal list; else None."""
    if isinstance(loop, COMPREHENSION_TYPES):
        loop = loop.for_in
        if loop.inner_for_in is not None:
            return None
    iterable = getattr(loop, "iter", None)
    if isinstance(loop, cst.While) or iterable is None:
        return None
    wrapped = enumerate_call(iterable)
    if wrapped is not None and len(wrapped.args) == 1:
        iterable = wrapped.args[0].value
    if isinstance(iterable, (cst.List, cst.Tuple, cst.Set)):
        return len(iterable.elements)
    call = range_call(iterable)
    return range_trips(call, constants) if call is not None else None


def range_trips(call: cst.Call, constants: "IntConstants") -> Optional[int]:
    """Iterations of ``range(...)`` whose bounds are literals or constant names."""
    if not 1 <= len(call.args) <= 3 or any(a.keyword for a in call.args):
        return None
    values = [constants.value(arg.value) for arg in call.args]
    bounds = [b for b in values if b is not None]
    if len(bounds) != len(values):
        return None
    return len(range(*bounds)) if bounds[-1] != 0 or len(bounds) < 3 else None


def repeating_loops(ctx, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The loops and comprehensions of ``node``'s scope that run it again on each
    iteration (not as their iterable or test), innermost first."""
    child = node
    for parent in ctx.ancestors_of(node):
        if isinstance(parent, SCOPE_TYPES):
            break
        if isinstance(parent, COMPREHENSION_TYPES) or (
            isinstance(parent, LOOP_TYPES)
            and child is not getattr(parent, "iter", None)
            and child is not getattr(parent, "test", None)
        ):
            yield parent
        child = parent


def iterations_here(ctx, node: cst.CSTNode, constants: IntConstants) -> Optional[int]:
    """How often ``node`` runs per run of its scope: the product of the trip
    counts of the loops (and comprehensions) around it; None when unknown."""
    total = 1
    for loop in repeating_loops(ctx, node):
        count = trip_count(loop, constants)
        if count is None:
            return None
        total *= count
    return total


# -- few iterations (TFP101, TFP103) -----------------------------------------
SMALL_TRIP_COUNT = 20  # fewer iterations than this: Python overhead is negligible


def small_count(ctx, expr: cst.BaseExpression, depth: int = 0) -> bool:
    """``expr`` is a number of iterations below ``SMALL_TRIP_COUNT`` that the
    source spells out: an int constant (``3``, ``N_ENVS = 8``, see
    ``IntConstants``), ``len([a, b, c])``, ``len(LAYERS)`` with ``LAYERS`` a
    literal list, or a name bound only to one of these."""
    value = ctx.shared(IntConstants).value(expr)
    if value is not None:
        return value < SMALL_TRIP_COUNT
    if (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Name)
        and expr.func.value == "len"
        and len(expr.args) == 1
    ):
        return _small_literal_value(ctx, expr.args[0].value, depth)
    if isinstance(expr, cst.Name) and depth < 3:
        values = _values_of(ctx, expr.value)
        return bool(values) and all(small_count(ctx, v, depth + 1) for v in values)
    return False


def _small_literal_value(ctx, expr, depth: int) -> bool:
    if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
        return len(expr.elements) < SMALL_TRIP_COUNT
    if isinstance(expr, cst.Name) and depth < 3:
        values = _values_of(ctx, expr.value)
        return bool(values) and all(_small_literal_value(ctx, v, depth + 1) for v in values)
    return False


def _values_of(ctx, name: str) -> list:
    """Every value assigned to ``name`` anywhere in the file (any scope)."""
    return [
        a.value
        for a in ctx.nodes(cst.Assign)
        if any(isinstance(t.target, cst.Name) and t.target.value == name for t in a.targets)
    ]


def small_literal(ctx, iterable: cst.BaseExpression) -> bool:
    """A loop over a literal list/tuple/set, or over a ``range`` of few iterations
    (``range(4)``, ``range(1, 4)``, ``range(N)`` with ``N = 3``, ``range(len(LAYERS))``)."""
    if isinstance(iterable, (cst.List, cst.Tuple, cst.Set)):
        return True
    call = range_call(iterable)
    if call is None:
        return False
    count = range_trips(call, ctx.shared(IntConstants))
    if count is not None:
        return count < SMALL_TRIP_COUNT
    return len(call.args) == 1 and small_count(ctx, call.args[0].value)
