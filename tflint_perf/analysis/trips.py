"""How often a loop runs: one trip-count estimate, used by every loop rule.

``Trips(ctx).of(loop)`` says whether a loop is *tiny* (a handful of
iterations the source spells out: ``range(4)``, a literal list of five
items, ``len(LAYERS)`` of a literal, a name bound to a small int,
``ds.take(3)``), *data-sized* (it walks data: a dataset, the rows of an
array, ``range(len(x))`` or ``range(x.shape[0])``, an episode ``while not
done``, or a literal count above the limit), or *unknown*.
``Trips.repeats(node)`` combines the loops around a node in its scope
(work repeats as often as all of them together), and a counter that ends
the work early (``if i > 10: continue``). Loops of at most ``TINY``
iterations are silent in every loop rule: the Python overhead of a handful
is negligible, and such loops are demos (ten classes, five images).
"""

from __future__ import annotations

import math
from typing import Dict, List, Optional, Set

from tflint_perf.analysis.api import Kind, arraymath
from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.caps import capped
from tflint_perf.analysis.estimates import (
    TINY,
    UNKNOWN,
    Estimate,
    Size,
    Spelled,
    article,
    clip,
    counted,
    times,
)
from tflint_perf.analysis.index_bounds import indexes_a_literal, literal_length, read_as_record
from tflint_perf.analysis.ladders import filled, while_estimate
from tflint_perf.analysis.none_defaults import filled_default
from tflint_perf.analysis.only_called import only_called
from tflint_perf.analysis.options import option_default
from tflint_perf.analysis.pacing import waits_on_a_person
from tflint_perf.analysis.ranges import range_estimate
from tflint_perf.analysis.semantic import (
    COMPREHENSIONS,
    LOOPS,
    SCOPE_NODES,
    BindingKind,
    SemanticModel,
)
from tflint_perf.analysis.shapes import is_shape, literal_number, over_columns, shape_axis
from tflint_perf.analysis.values import Values
from tflint_perf.engine import cst

_DEPTH = 6  # names, parameters and calls followed to a size
PACED = Estimate(
    Size.TINY, None, "each iteration waits for a person (`input()`, a key press)", paced=True
)
_DATA_KINDS = (Kind.DATASET, Kind.ITERATOR, Kind.ARRAY, Kind.TENSOR)


class Trips:
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self.values: Values = ctx.shared(Values)
        self._cache: Dict[cst.CSTNode, Estimate] = {}
        self._generators: Optional[Set[Optional[cst.FunctionDef]]] = None
        self._calling: Set[cst.Call] = set()  # calls whose loops are being estimated
        self.filling: Set[cst.Name] = set()  # lists whose filling loops are being estimated

    def of(self, loop: cst.CSTNode) -> Estimate:
        """The estimate for one ``for``/``while`` loop or comprehension."""
        known = self._cache.get(loop)
        if known is None:
            known = self._cache[loop] = self._estimate(loop)
        return known

    def repeats(self, node: cst.CSTNode) -> Estimate:
        """How often ``node`` runs per run of its scope: all loops around it together."""
        total: Optional[int] = 1
        reasons = []
        paced: Optional[Estimate] = None  # a loop a person paces: tiny however long it runs
        data: Optional[Estimate] = None  # the innermost data-sized loop
        for loop in self.loops_around(node):
            each = capped(self, loop, node, self.of(loop))
            if each.size is Size.DATA:
                data = data or each
            elif each.paced:
                paced = each
            if each.paced and each.size is not Size.DATA:
                pass  # a person's pace bounds it, not its count
            elif each.size is Size.UNKNOWN or each.count is None or total is None:
                total = None
            else:
                total *= each.count
            reasons.append(each.why)
        if data is not None:  # its count, unless a loop of unknown count is around it too
            return data if total is not None else Estimate(Size.DATA, None, data.why, data.paced)
        if not reasons:
            return Estimate(Size.TINY, 1, "not in a loop")
        if paced is not None:
            return paced
        if total is None:
            return UNKNOWN
        size = Size.TINY if total <= TINY else Size.DATA
        return Estimate(size, total, " x ".join(reasons))

    def loops_around(self, node: cst.CSTNode) -> List[cst.CSTNode]:
        """Loops and comprehensions of ``node``'s scope that run it again, innermost first."""
        out: List[cst.CSTNode] = []
        below, child = node, node
        for parent in self.ctx.ancestors_of(node):
            if isinstance(parent, LOOPS) and child is parent.body:
                out.append(parent)
            elif isinstance(parent, COMPREHENSIONS) and not (
                child is parent.for_in and below is parent.for_in.iter
            ):
                out.append(parent)
            if isinstance(parent, SCOPE_NODES) and not isinstance(parent, COMPREHENSIONS):
                break
            below, child = child, parent
        return out

    def over_columns(self, loop: cst.CSTNode) -> bool:
        return over_columns(self.ctx, self.sem, loop)

    # -- one loop -----------------------------------------------------------------
    def _estimate(self, loop: cst.CSTNode) -> Estimate:
        if isinstance(loop, cst.While):
            if waits_on_a_person(self.ctx, self.sem, loop):
                return PACED
            return while_estimate(self, loop)
        if isinstance(loop, COMPREHENSIONS):
            names = self._unpacked_into(loop)
            if names is not None:
                return counted(names, f"unpacked into {names} names")
            fields = read_as_record(self.ctx, self.sem, loop)
            if fields is not None:
                return counted(fields, f"read back only at indices 0-{fields - 1}: a record")
            estimate = self.iterable(loop.for_in.iter)
            inner = loop.for_in.inner_for_in
            while inner is not None and estimate.size is not Size.DATA:
                more = self.iterable(inner.iter)
                estimate = times(estimate, more)
                inner = inner.inner_for_in
            return estimate
        if isinstance(loop, cst.For) and waits_on_a_person(self.ctx, self.sem, loop):
            return PACED
        if isinstance(loop, cst.For):
            estimate = self.iterable(loop.iter)
            if estimate.size is not Size.TINY:
                return indexes_a_literal(self.ctx, self.sem, loop) or estimate
            return estimate
        return UNKNOWN

    def _changed_unseen(self, name) -> bool:
        made = self.sem.lookup_name(name)
        return len(made) == 1 and bool(self.sem.changed_unseen(made[0]))

    def _unpacked_into(self, loop: cst.CSTNode) -> Optional[int]:
        """``a, b = (f(e) for e in parts)``: the names say how many items there are."""
        parent = self.ctx.parent(loop)
        if not (isinstance(parent, cst.Assign) and len(parent.targets) == 1):
            return None
        target = parent.targets[0].target
        if not isinstance(target, (cst.Tuple, cst.List)):
            return None
        starred = any(isinstance(e, cst.StarredElement) for e in target.elements)
        return None if starred else len(target.elements)

    def iterable(self, expr: cst.BaseExpression, depth: int = 0) -> Estimate:
        """How many items iterating ``expr`` gives."""
        if depth > _DEPTH:
            return UNKNOWN
        code = Spelled(self.ctx, expr)
        if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
            if any(isinstance(e, cst.StarredElement) for e in expr.elements):
                return UNKNOWN
            return counted(len(expr.elements), f"{len(expr.elements)} literal items")
        if is_shape(self.ctx, expr):
            return Estimate(Size.TINY, None, f"`{code}` lists the dimensions of an array")
        if isinstance(expr, cst.Call):
            return self._call(expr, code, depth)
        if isinstance(expr, cst.BinaryOperation):  # np.array([[1, 1], [1, -1]]) * 3
            for own, other in ((expr.left, expr.right), (expr.right, expr.left)):
                if isinstance(own, (cst.List, cst.Tuple)) and isinstance(other, cst.Integer):
                    # ``[0] * 100``: a Python sequence repeated, not array math
                    items = literal_length(self.sem, expr)
                    return UNKNOWN if items is None else counted(items, f"`{code}`")
                if isinstance(other, (cst.Integer, cst.Float)):
                    inner = self.iterable(own, depth + 1)
                    if inner.tiny:
                        return inner
        sliced = self._slice_length(expr)
        if sliced is not None:
            return counted(sliced, f"`{code}`")
        if isinstance(expr, (cst.Name, cst.Attribute)):
            value = self.sem.value_of(expr)
            if isinstance(value, (cst.List, cst.Dict, cst.Set)) and (
                not value.elements or self._changed_unseen(expr)
            ):
                # ``results = []``: a container to fill, its size to come (or a
                # literal a nested function adds to)
                return UNKNOWN
            if value is not None:  # an alias (``a = groups``) included
                inner = self.iterable(value, depth + 1)
                if inner.size is not Size.UNKNOWN:
                    return inner
            grown = filled(self, expr) if value is None and isinstance(expr, cst.Name) else None
            if grown is not None:
                return grown
            shape = self._one_shape(expr, depth) if value is None else None
            if shape and shape[0] is not None:
                return counted(shape[0], f"`{code}` has {shape[0]} rows")
            # Only to tell a handful: a default no call here exercises is no proof of size.
            passed = self.parameter_values(expr, uncalled=True) if value is None else None
            if value is None and not passed:
                passed = filled_default(self.ctx, self.sem, expr)
            if passed:
                each = [self.iterable(v, depth + 1) for v in passed]
                if all(e.tiny for e in each):
                    most = max((e.count for e in each if e.count is not None), default=None)
                    return Estimate(
                        Size.TINY,
                        most,
                        f"`{code}`: {each[0].why} (its default and what every call here passes)",
                    )
        kind = self.values.kind(expr)
        if kind in _DATA_KINDS:
            return Estimate(
                Size.DATA, None, f"one iteration per item of `{code}`, {article(kind.value)}"
            )
        return UNKNOWN

    def _call(self, call: cst.Call, code: Spelled, depth: int) -> Estimate:
        func = call.func
        name = func.value if isinstance(func, cst.Name) else None
        if name == "range":
            return range_estimate(self, call, code)
        if name in ("enumerate", "reversed", "sorted", "list", "tqdm", "iter") and call.args:
            return self.iterable(call.args[0].value, depth + 1)
        if name == "zip" and call.args:
            estimates = [self.iterable(a.value, depth + 1) for a in call.args]
            known = [e for e in estimates if e.count is not None]
            if known:
                return min(known, key=lambda e: e.count or 0)
            if any(e.size is Size.DATA for e in estimates):
                return next(e for e in estimates if e.size is Size.DATA)
            return UNKNOWN
        literal = self._literal_rows(call, depth)
        if literal is not None:
            return literal
        returned = self._returned(call, code, depth)
        if returned is not None:
            return returned
        numbered = self._counter(call, code)
        if numbered is not None:
            return numbered
        if isinstance(func, cst.Attribute) and func.attr.value == "take" and call.args:
            count = self.number(call.args[0].value)
            if count is not None and self.values.kind(func.value) is Kind.DATASET:
                return counted(count, f"`{code}`")
        kind = self.values.kind(call)
        if kind in _DATA_KINDS:
            return Estimate(
                Size.DATA, None, f"one iteration per item of `{code}`, {article(kind.value)}"
            )
        return UNKNOWN

    def _returned(self, call: cst.Call, code: Spelled, depth: int) -> Optional[Estimate]:
        """A call of a module function whose every ``return`` gives a handful of items
        (``return y_axes, x_axes, [n - 1]``): as many as the most of them. Not a
        generator, whose items are what it yields."""
        targets = self.ctx.shared(CallGraph).resolve(call)
        if not targets or any(self._generator(t) for t in targets):
            return None
        each = [
            self.iterable(r.value, depth + 1)
            for t in targets
            for r in self.values.returns(t)
            if r.value is not None
        ]
        if not each or not all(e.tiny for e in each):
            return None
        counts = [e.count for e in each]
        most = max(c for c in counts if c is not None) if None not in counts else None
        return Estimate(Size.TINY, most, f"`{code}` returns {each[0].why}")

    def _inputs_listed(self, expr, depth: int) -> Optional[List[cst.BaseExpression]]:
        """The arrays of a list or tuple of them (not of literal rows), or of a name
        or parameter given one: the inputs of a multi-input model."""
        if depth > _DEPTH:
            return None
        if isinstance(expr, (cst.List, cst.Tuple)):
            items = [e.value for e in expr.elements]
            return items if not all(is_literal_row(i) for i in items) else None
        if isinstance(expr, cst.Name):
            value = self.sem.value_of(expr)
            values = [value] if value is not None else self.parameter_values(expr) or []
            for v in values:
                found = self._inputs_listed(v, depth + 1)
                if found is not None:
                    return found
        return None

    def _generator(self, func: cst.FunctionDef) -> bool:
        if self._generators is None:
            self._generators = {self.sem.function_of(y) for y in self.ctx.nodes(cst.Yield)}
        return func in self._generators

    def _literal_rows(self, call: cst.Call, depth: int) -> Optional[Estimate]:
        """An array made from a handful of rows the source spells out
        (``np.array([[1, 2], [3, 4]])``), or a model's predictions for one: tiny."""
        args = [a.value for a in call.args if a.keyword is None and not a.star]
        if not args:
            return None
        qualname = self.ctx.call_name(call) or ""
        func = call.func
        if qualname.startswith(arraymath.ROOTS) and qualname.rsplit(".", 1)[-1] in (
            arraymath.FROM_DATA
        ):
            rows = self.iterable(args[0], depth + 1)
        elif isinstance(func, cst.Attribute) and func.attr.value in arraymath.ARRAY_RESULT_METHODS:
            inputs = self._inputs_listed(args[0], depth)
            if inputs is not None:  # model.predict([states, actions]): a model's inputs,
                # one batch size for all: the rows of the one that shows them
                known = (self.iterable(i, depth + 1) for i in inputs)
                return next((rows for rows in known if rows.tiny), None)
            rows = self.iterable(args[0], depth + 1)  # model.predict(queries): one row each
        else:
            shape = self.shape(call, depth)
            if shape and shape[0] is not None:
                return counted(shape[0], f"`{clip(self.ctx.code(call))}` has {shape[0]} rows")
            return None
        return rows if rows.tiny else None

    def shape(self, expr, depth: int = 0) -> Optional[List[Optional[int]]]:
        """The shape of an array the source makes with literal sizes (``np.zeros((3,
        4))``, ``np.random.rand(5, 2)``, ``tf.ones([8])``), or of a name bound to one;
        None when not known (a size that is not a number is None in the list)."""
        if depth > _DEPTH:
            return None
        if isinstance(expr, (cst.Name, cst.Attribute)):
            value = self.sem.value_of(expr)
            if value is not None:
                return self.shape(value, depth + 1)
            return self._one_shape(expr, depth)
        if not isinstance(expr, cst.Call):
            return None
        qualname = self.ctx.call_name(expr) or ""
        last = qualname.rsplit(".", 1)[-1]
        func = expr.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in arraymath.SHAPE_KEEPING_METHODS
            and not qualname
        ):
            return self.shape(func.value, depth + 1)  # x.astype("float32"): x's shape
        positional = [a.value for a in expr.args if a.keyword is None and not a.star]
        if not positional:
            return None
        if isinstance(func, cst.Attribute) and func.attr.value == "reshape" and not qualname:
            # x.reshape(4, 2) / x.reshape((4, 2)) of an array: -1 and names unknown
            if self.values.kind(func.value) is not Kind.ARRAY:
                return None
            sizes = (
                positional[0]
                if len(positional) == 1
                else cst.Tuple([cst.Element(p) for p in positional])
            )
            return self._sizes(sizes, depth)
        if not qualname.startswith(arraymath.ROOTS):
            return None
        if last == "reshape" and len(positional) > 1:
            sizes = positional[1]  # np.reshape(x, (4, 2))
        elif last in arraymath.CONSTRUCTORS and last not in ("arange", "range", "linspace"):
            sizes = positional[0]
        elif last in arraymath.SHAPED_DRAWS and "random" in qualname:
            sizes = cst.Tuple([cst.Element(p) for p in positional])  # np.random.rand(5, 2)
        else:
            return None
        return self._sizes(sizes, depth)

    def _sizes(self, sizes, depth: int) -> List[Optional[int]]:
        """``(3, 4)`` / ``[n, 2]`` / ``5`` as a shape (-1 and unknown sizes: None)."""
        elements = (
            [e.value for e in sizes.elements]
            if isinstance(sizes, (cst.Tuple, cst.List))
            else [sizes]
        )
        numbers = [self.number(e, depth + 1) for e in elements]
        return [n if n is None or n >= 0 else None for n in numbers]

    def parameter_values(
        self, name, uncalled: bool = False, bare: bool = True
    ) -> Optional[List[cst.BaseExpression]]:
        """What a parameter holds, when this module shows every call of its function:
        its default, and what each call passes instead (``main()`` for ``def
        main(nb_images=5)``). None when a call is unseen or passes it unseen
        (``*args``), or when nothing in the module calls the function (a library's;
        ``uncalled``: then its default, the one value the source shows); for a
        parameter without a default only when ``bare``."""
        found = self.sem.lookup_name(name)
        if len(found) != 1 or found[0].kind is not BindingKind.PARAMETER:
            return None
        param = found[0].statement
        func = found[0].scope.function
        if not isinstance(param, cst.Param) or func is None or not (bare or param.default):
            return None
        graph = self.ctx.shared(CallGraph)
        calls = graph.callers(func)
        if not only_called(self.ctx, func):
            return None
        if not calls:
            return [param.default] if uncalled and param.default is not None else None
        if any(self._called_again(call) for call in calls):
            return None  # what one call gets does not bound the work of many calls
        values: List[cst.BaseExpression] = [param.default] if param.default is not None else []
        for call in calls:
            if any(a.star for a in call.args):
                return None
            passed = graph.argument(call, func, param.name.value)
            if passed is not None:
                values.append(passed)
            elif param.default is None:
                return None  # a call the model cannot pair with the parameter
        return values

    def _called_again(self, call: cst.Call) -> bool:
        """The loops around ``call`` run it more than a handful of times (or unknown)."""
        if call in self._calling:
            return False  # a recursive call: its loops are being estimated
        self._calling.add(call)
        try:
            return not self.repeats(call).tiny
        finally:
            self._calling.discard(call)

    def _one_shape(self, name, depth: int) -> Optional[List[Optional[int]]]:
        """The shape every binding of ``name`` gives it, when they agree: a notebook
        that starts ``Q = np.zeros(10)`` afresh in several cells, written element by
        element in between (an in-place change keeps the shape); a parameter: what
        every call passes it."""
        origins = self.sem.origins(name)
        values: List[Optional[cst.CSTNode]] = []
        if origins and all(b.plain for b in origins):
            values = [b.value for b in origins]
        elif origins and all(b.path and self._rows_drawn(b.source, depth) for b in origins):
            # images, labels = mnist.train.next_batch(50)
            return _first_same([[self._rows_drawn(b.source, depth)] for b in origins])
        else:  # a parameter: what every call passes
            values = list(self.parameter_values(name) or [])
        return _first_same([self.shape(v, depth + 1) for v in values])

    def _rows_drawn(self, call, depth: int) -> Optional[int]:
        """The rows of each array a call the API table knows returns (its ``rows_arg``)."""
        facts = self.values.call_facts(call) if isinstance(call, cst.Call) else None
        position = facts.rows_arg if facts is not None else None
        if position is None or position >= len(call.args) or call.args[position].keyword:
            return None
        return self.number(call.args[position].value, depth + 1)

    def _counter(self, call: cst.Call, code: Spelled) -> Optional[Estimate]:
        """``np.arange(5)``, ``np.linspace(0, 1, 10)``, ``tf.range(3)``: as many
        values as the literal bounds give."""
        qualname = self.ctx.call_name(call)
        if arraymath.op(qualname) is not arraymath.ArrayOp.COUNTER:
            return None
        if (qualname or "").endswith("linspace"):  # num items (its third argument, or num=)
            num = [a.value for a in call.args if a.keyword is not None and a.keyword.value == "num"]
            num += [a.value for a in call.args[2:3] if a.keyword is None]
            count = self.number(num[0]) if len(num) == 1 and not call.args[0].star else None
            return counted(int(count), f"`{code}`") if count is not None else None
        if any(a.keyword is not None or a.star for a in call.args):
            return None
        bounds = [  # literals, or names bound to an int
            b if (b := literal_number(a.value)) is not None else self.number(a.value)
            for a in call.args
        ]
        if not bounds or any(b is None for b in bounds):
            # as ``range`` with the same bounds: a handful by the defaults of parameters
            ranged = range_estimate(self, call, code)
            return ranged if ranged.tiny else None
        numbers = [b for b in bounds if b is not None]
        if len(numbers) == 1:
            numbers = [0.0, numbers[0]]
        step = numbers[2] if len(numbers) > 2 else 1.0
        if step == 0:
            return None
        return counted(max(0, math.ceil((numbers[1] - numbers[0]) / step)), f"`{code}`")

    def _slice_length(self, expr: cst.BaseExpression) -> Optional[int]:
        """``x[:5]``, ``x[2:6]``: the length a literal slice gives (at most)."""
        if not isinstance(expr, cst.Subscript) or len(expr.slice) != 1:
            return None
        index = expr.slice[0].slice
        if not isinstance(index, cst.Slice) or index.upper is None or index.step is not None:
            return None
        upper = self.number(index.upper)
        lower = self.number(index.lower) if index.lower is not None else 0
        if upper is None or lower is None or upper < 0 or lower < 0:
            return None
        return max(0, upper - lower)

    def number(
        self, expr: cst.BaseExpression, depth: int = 0, defaults: bool = False
    ) -> Optional[int]:
        """The int ``expr`` stands for: a literal, ``len`` of a literal, a name
        bound only to one of these, or arithmetic on them. ``defaults``: a parameter
        no call in the module passes stands for its default."""
        if depth > _DEPTH:
            return None
        if isinstance(expr, cst.Integer):
            return int(expr.evaluated_value)
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
            inner = self.number(expr.expression, depth + 1, defaults)
            return -inner if inner is not None else None
        if isinstance(expr, (cst.Name, cst.Attribute)):
            value = self.sem.value_of(expr) or option_default(self.ctx, expr, self.parameter_values)
            if value is not None:
                return self.number(value, depth + 1, defaults)
            # a count passed in: what every call here passes (``MLP(2, 3, 1)``); a
            # default alone only with ``defaults`` (ranges.py: to tell a handful)
            passed = self.parameter_values(expr, uncalled=defaults)
            numbers = [self.number(v, depth + 1, defaults) for v in passed or ()]
            known = [n for n in numbers if n is not None]
            return max(known) if known and len(known) == len(numbers) else None
        if isinstance(expr, cst.Subscript) and shape_axis(expr) is not None:
            array, axis = shape_axis(expr)
            shape = self.shape(array, depth + 1)
            if shape is not None and -len(shape) <= axis < len(shape):
                return shape[axis]
            return None
        if (
            isinstance(expr, cst.Call)
            and isinstance(expr.func, cst.Name)
            and expr.func.value == "len"
            and len(expr.args) == 1
        ):
            items = self.iterable(expr.args[0].value, depth + 1)
            return items.count if items.size is Size.TINY else None
        if isinstance(expr, cst.BinaryOperation):
            left = self.number(expr.left, depth + 1, defaults)
            right = self.number(expr.right, depth + 1, defaults)
            if left is None or right is None:
                return None
            op = expr.operator
            if isinstance(op, cst.Add):
                return left + right
            if isinstance(op, cst.Subtract):
                return left - right
            if isinstance(op, cst.Multiply):
                return left * right
            if isinstance(op, cst.FloorDivide) and right:
                return left // right
        return None

    def start(self, counter, loop: cst.While) -> Optional[int]:
        if not isinstance(counter, cst.Name):
            return None
        before = [b for b in self.sem.lookup(counter.value, loop) if b.plain]
        return self.number(before[-1].value) if before else None  # type: ignore[arg-type]


def is_literal_row(expr) -> bool:
    """A number or a list of them, as written (``[1, 2]``, ``-0.5``)."""
    if isinstance(expr, cst.UnaryOperation):
        expr = expr.expression
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    if isinstance(expr, (cst.List, cst.Tuple)):
        return all(is_literal_row(e.value) for e in expr.elements)
    return False


def _first_same(shapes: List[Optional[List[Optional[int]]]]) -> Optional[List[Optional[int]]]:
    """The one shape all of ``shapes`` agree on."""
    if not shapes:
        return None
    first = shapes[0]
    return first if first is not None and all(s == first for s in shapes) else None
