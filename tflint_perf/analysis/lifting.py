"""Lifting one element's expression to all elements at once (the vectoriser's core).

A *lifted* value is code and the loop axes it leads with (``dims``): ``x[i]``
over ``for i in range(n)`` lifts to ``x`` with dims ``("*",)``; ``w`` (the
same for every element) lifts to ``w`` with no dims. Operands combine when
their dims agree or one has none (broadcasting); anything else, and
anything whose meaning on whole arrays differs (a shifted index, a window,
a call not known to be element-wise), does not lift (None).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, List, Optional, Set, Tuple

from tflint_perf.analysis.api import Kind
from tflint_perf.analysis.api import arraymath as am
from tflint_perf.analysis.code_text import (
    UNARY,
    atom,
    names_read,
    numpy_alias,
    operand,
    split_top,
    strength,
    tensorflow_alias,
)
from tflint_perf.analysis.element_reads import index_name, vector_draw
from tflint_perf.analysis.values import Values
from tflint_perf.analysis.walks import builtin_call, range_bounds, unwrap
from tflint_perf.engine import cst

if TYPE_CHECKING:
    from tflint_perf.analysis.elementwise import LoopFacts

WALK = "*"  # the dim of the loop's own walk (its index and its elements)
_MAX_DEPTH = 6
_NUMPY_FOR_MATH = {"fabs": "abs", "pow": "power", "atan": "arctan", "asin": "arcsin"}
_NUMPY_FOR_MATH.update({"acos": "arccos", "atan2": "arctan2"})
_TF_NAMES = {
    "where": "where",
    "sum": "reduce_sum",
    "count_nonzero": "math.count_nonzero",
    "arange": "range",
    "logical_not": "logical_not",
}


@dataclass(frozen=True)
class Lifted:
    code: str
    dims: Tuple[str, ...] = ()  # the loop axes the value leads with; () for the same everywhere
    sure: bool = True  # an array (a list would repeat or fail under arithmetic)
    scalar: bool = False  # one number per element (an index, a counter's value), not a row

    @property
    def batched(self) -> bool:
        return bool(self.dims)


@dataclass(frozen=True)
class Target:
    """A subscript written per element, over whole arrays."""

    base: str
    parts: Tuple[str, ...]
    fancy: bool  # indexed with arrays (``target[np.arange(n), action]``)
    whole_rows: bool  # exactly ``out[i]``: every element of the walk, one row each

    @property
    def code(self) -> str:
        return f"{self.base}[{', '.join(self.parts)}]"

    def index_code(self) -> str:
        return self.parts[0] if len(self.parts) == 1 else f"({', '.join(self.parts)})"

    def masked(self, cond: str) -> str:
        return f"{self.base}[{cond}]"


class Lifter:
    def __init__(self, facts: "LoopFacts") -> None:
        self.facts = facts
        self.ctx = facts.ctx
        self.values: Values = self.ctx.shared(Values)
        self.np = numpy_alias(self.ctx)
        self.tf = tensorflow_alias(self.ctx)
        self.assumptions: List[str] = []
        self._names_by_value: Dict[str, List[cst.Name]] = {}
        self.ranges = self._ranges()
        self.tensors = self._tensor_code()
        self.loop_only = loop_only_names(facts)

    # -- what the loop counts ---------------------------------------------------
    def _ranges(self) -> Dict[str, Tuple[Optional[str], str]]:
        """Index name -> (start code or None, stop code) of the ranges it counts."""
        facts, ctx = self.facts, self.ctx
        walk = facts.walk
        out: Dict[str, Tuple[Optional[str], str]] = {}
        node = walk.node
        iterable = (
            node.for_in.iter
            if isinstance(node, (cst.ListComp, cst.GeneratorExp))
            else (getattr(node, "iter", None))
        )
        if walk.size is not None and walk.step is None and iterable is not None:
            rng = builtin_call(unwrap(ctx, iterable), "range")
            if rng is not None and _forward(rng):
                for name in walk.index - walk.gather:
                    out[name] = (ctx.code(walk.start) if walk.start else None, ctx.code(walk.size))
        elif walk.step is not None and walk.size is not None:
            start = self._while_start(walk.var)
            if start is not None:
                out[walk.var] = (None if start == "0" else start, ctx.code(walk.size))
        elif walk.tensor is not None and walk.whole:
            rows = f"len({walk.tensor})"
            for name in walk.index - walk.gather:
                out[name] = (None, rows)  # enumerate(x)
        for node in facts.nodes:
            if isinstance(node, cst.For) and isinstance(node.target, cst.Name):
                rng = builtin_call(unwrap(ctx, node.iter), "range")
                bounds = range_bounds(rng) if rng is not None else None
                if rng is not None and bounds is not None and _forward(rng):
                    start, stop = bounds
                    out[node.target.value] = (ctx.code(start) if start else None, ctx.code(stop))
        return out

    def _while_start(self, var: str) -> Optional[str]:
        found = [b for b in self.facts.sem.lookup(var, self.facts.walk.node) if b.plain]
        if len(found) == 1 and isinstance(found[0].value, cst.Integer):
            return self.ctx.code(found[0].value)
        return None

    def _tensor_code(self) -> bool:
        """The loop reads TensorFlow tensors: whole-array code uses TF ops, and no
        fancy indexing, boolean masks or item assignment (tensors have none)."""
        facts = self.facts
        for node in facts.nodes:
            if isinstance(node, cst.Subscript) and self.values.kind(node.value) in (
                Kind.TENSOR,
                Kind.VARIABLE,
            ):
                return True
        tensor = facts.walk.tensor
        iterable = getattr(facts.walk.node, "iter", None)
        return bool(tensor) and self.values.kind(iterable) in (Kind.TENSOR, Kind.VARIABLE)

    def lib(self, name: str) -> str:
        """A NumPy function by name, or its TensorFlow form in TF code."""
        if self.tensors and self.tf is not None and name in _TF_NAMES:
            return f"{self.tf}.{_TF_NAMES[name]}"
        return f"{self.np}.{name}"

    def count(self) -> Optional[str]:
        """The number of elements the walk visits, as code."""
        walk = self.facts.walk
        found = self.ranges.get(walk.var)
        if found is not None:
            start, stop = found
            return stop if start is None else f"{atom(stop)} - {atom(start)}"
        if walk.tensor is not None and walk.whole:
            return f"len({walk.tensor})"
        return None

    def dim_of(self, name: str) -> str:
        walk = self.facts.walk
        if name in walk.index or name in walk.elements or name in walk.gather:
            return WALK
        return name

    def arange(self, name: str) -> Optional[str]:
        found = self.ranges.get(name)
        if found is None:
            return None
        start, stop = found
        return (
            f"{self.lib('arange')}({stop})"
            if start is None
            else (f"{self.lib('arange')}({start}, {stop})")
        )

    def clean(self, code: str) -> bool:
        """``code`` parses and reads no name bound only by the loop."""
        if not code:
            return False
        try:
            module = cst.parse_module(code + "\n")
        except Exception:  # noqa: BLE001 - LibCST's ParserSyntaxError
            return False
        return not (names_read(module) & self.loop_only)

    # -- expressions --------------------------------------------------------------
    def lift(self, expr, depth: int = 0) -> Optional[Lifted]:
        if expr is None or depth > _MAX_DEPTH:
            return None
        facts = self.facts
        if not (set(facts.sem.reads(expr)) & self.loop_only) and not self._draws(expr):
            return Lifted(self.ctx.code(expr).strip(), sure=facts.arrays.is_array(expr))
        if isinstance(expr, cst.Name):
            return self._name(expr, depth)
        if isinstance(expr, cst.Subscript):
            return self._subscript(expr, depth)
        if isinstance(expr, cst.BinaryOperation):
            return self._binary(expr, depth)
        if isinstance(expr, cst.UnaryOperation):
            inner = self.lift(expr.expression, depth + 1)
            if inner is None:
                return None
            if isinstance(expr.operator, cst.Not):
                if not inner.batched:
                    return Lifted(f"not {atom(inner.code)}")
                return Lifted(f"{self.lib('logical_not')}({inner.code})", inner.dims)
            symbol = self.ctx.code(expr.operator).strip()
            wrapped = inner.code if strength(inner.code) >= UNARY else f"({inner.code})"
            return Lifted(f"{symbol}{wrapped}", inner.dims, scalar=inner.scalar)
        if isinstance(expr, cst.BooleanOperation):
            left, right = self.lift(expr.left, depth + 1), self.lift(expr.right, depth + 1)
            dims = common_dims(left, right)
            if left is None or right is None or dims is None:
                return None
            if not dims:
                word = "and" if isinstance(expr.operator, cst.And) else "or"
                return Lifted(f"{atom(left.code)} {word} {atom(right.code)}")
            symbol = "&" if isinstance(expr.operator, cst.And) else "|"
            return Lifted(f"{atom(left.code)} {symbol} {atom(right.code)}", dims)
        if isinstance(expr, cst.Comparison):
            return self._comparison(expr, depth)
        if isinstance(expr, cst.IfExp):
            parts = [self.lift(p, depth + 1) for p in (expr.test, expr.body, expr.orelse)]
            if any(p is None for p in parts):
                return None
            dims = common_dims(*parts)
            if dims is None:
                return None
            codes = [p.code for p in parts if p is not None]
            if any(p.batched and not p.scalar for p in parts[1:] if p is not None):
                # np.where broadcasts the test against the last axis, not per row
                self.assumptions.append(
                    f"the items chosen are numbers (rows need `{atom(codes[0])}[:, None]`)"
                )
            return Lifted(f"{self.lib('where')}({', '.join(codes)})", dims)
        if isinstance(expr, cst.Call):
            from tflint_perf.analysis.lifting_calls import lift_call

            return lift_call(self, expr, depth)
        return None

    def _draws(self, expr) -> bool:
        return any(
            isinstance(n, cst.Call)
            and am.is_random_draw(self.ctx.call_name(n))
            and not vector_draw(n)
            for n in _nodes(expr)
        )

    def _name(self, name: cst.Name, depth: int) -> Optional[Lifted]:
        facts, walk = self.facts, self.facts.walk
        value = name.value
        if value in walk.gather:
            return Lifted(f"{self.np}.asarray({walk.whole[value]})", (WALK,), scalar=True)
        if value in walk.whole and value not in facts.index:
            return Lifted(walk.whole[value], (WALK,), walk.sized, value == walk.counter)
        if value in facts.derived:
            return self.lift(facts.derived[value], depth + 1)
        if value in facts.index:
            code = self.arange(value)
            return Lifted(code, (self.dim_of(value),), scalar=True) if code is not None else None
        return None

    def _binary(self, expr: cst.BinaryOperation, depth: int) -> Optional[Lifted]:
        left, right = self.lift(expr.left, depth + 1), self.lift(expr.right, depth + 1)
        if left is None or right is None:
            return None
        dims = common_dims(left, right)
        if dims is None or _against_an_array(left, right) or self._against_itself(left, right):
            return None
        symbol = self.ctx.code(expr.operator).strip()
        if symbol == "@" and right.batched and not left.batched:
            return Lifted(f"{operand(right.code, '@')} @ {atom(left.code)}.T", dims)  # w @ x[i]
        if symbol == "@" and left.batched and right.batched:
            return None
        scalar = all(p.scalar for p in (left, right) if p.batched)
        left, right = self._arrays(left, right)
        return Lifted(
            f"{operand(left.code, symbol)} {symbol} {operand(right.code, symbol, True)}",
            dims,
            scalar=scalar,
        )

    def _comparison(self, expr: cst.Comparison, depth: int) -> Optional[Lifted]:
        if len(expr.comparisons) != 1:
            return None
        target = expr.comparisons[0]
        if isinstance(target.operator, (cst.In, cst.NotIn, cst.Is, cst.IsNot)):
            return None
        left = self.lift(expr.left, depth + 1)
        right = self.lift(target.comparator, depth + 1)
        if left is None or right is None:
            return None
        dims = common_dims(left, right)
        if dims is None or _against_an_array(left, right) or self._against_itself(left, right):
            return None
        left, right = self._arrays(left, right)
        symbol = " ".join(self.ctx.code(target.operator).split())
        return Lifted(f"{operand(left.code, '|')} {symbol} {operand(right.code, '|')}", dims)

    def _against_itself(self, left: Lifted, right: Lifted) -> bool:
        """An element against the whole array the loop walks (``labels == value`` for
        ``value`` in ``labels``): every pair of elements, not one result per element."""
        walked = set(self.facts.walk.whole.values())
        return any(
            one.batched and not other.batched and (other.code in walked or other.code == one.code)
            for one, other in ((left, right), (right, left))
        )

    def _arrays(self, left: Lifted, right: Lifted) -> Tuple[Lifted, Lifted]:
        """Operands of arithmetic: a whole that may be a Python list becomes an array
        unless the other operand is one (``2 * xs`` repeats a list)."""
        if left.sure or right.sure:
            return left, right
        return self._as_array(left), self._as_array(right)

    def _as_array(self, value: Lifted) -> Lifted:
        if not value.batched or value.sure:
            return value
        return Lifted(f"{self.np}.asarray({value.code})", value.dims)

    # -- subscripts ---------------------------------------------------------------
    def _subscript(self, sub: cst.Subscript, depth: int) -> Optional[Lifted]:
        base, elements, width = self._flatten(sub, depth)
        return self._index(base, elements, depth, width)

    def _flatten(self, sub, depth: int):
        """(base, elements, width) with chained indexes of an array joined (``x[i][j]`` ->
        ``x``, [i, j]) and row aliases expanded (``t[a]`` with ``t = p[i]`` -> ``p``,
        [i, a]); ``width``: the elements of the subscript read directly on ``base``.
        Indexes of a Python list are not joined (``xs[i][0]`` is not ``xs[i, 0]``)."""
        elements: List[cst.SubscriptElement] = list(sub.slice)
        base = sub.value
        width = len(sub.slice)
        for _ in range(_MAX_DEPTH):
            if isinstance(base, cst.Name) and base.value in self.facts.derived:
                value = self.facts.derived[base.value]
                if isinstance(value, cst.Subscript) and self._array(value.value, len(value.slice)):
                    base = value  # t = p[i]; t[a]: the row alias
                    continue
            if (
                isinstance(base, cst.Subscript)
                and all(isinstance(e.slice, cst.Index) for e in base.slice)
                and self._array(base.value, len(base.slice))
            ):
                elements = [*base.slice, *elements]
                width = len(base.slice)
                base = base.value
                continue
            break
        return base, elements, width

    def _index(self, base, elements, depth: int, width: int = 1) -> Optional[Lifted]:
        facts = self.facts
        lifted_base = self.lift(base, depth + 1)
        if lifted_base is None:
            return None
        parts: List[str] = []
        kinds: List[str] = []
        lifted_parts: List[Optional[Lifted]] = []
        for element in elements:
            sl = element.slice
            if isinstance(sl, cst.Slice):
                if set(facts.sem.reads(sl)) & self.loop_only:
                    return None  # a window: not one element
                parts.append(self.ctx.code(sl).strip())
                kinds.append("slice")
                lifted_parts.append(None)
                continue
            value = sl.value
            named = index_name(element)  # i, or int(i)
            if named is not None and named.value in facts.walk.gather:
                value = named
            if isinstance(value, cst.Name) and value.value in facts.walk.gather:
                parts.append(facts.walk.whole[value.value])  # x[idx] for idx in idxs: x[idxs]
                kinds.append("fancy")
                lifted_parts.append(Lifted(parts[-1], (WALK,)))
                continue
            if isinstance(value, cst.Name) and value.value in facts.index:
                parts.append(value.value)
                kinds.append("index")
                lifted_parts.append(None)
                continue
            inner = self.lift(value, depth + 1)
            if inner is None:
                return None
            parts.append(inner.code)
            kinds.append("fancy" if inner.batched else "fixed")
            lifted_parts.append(inner)
        if lifted_base.batched:
            if any(k in ("index", "fancy") for k in kinds) or not lifted_base.sure:
                return None
            return Lifted(f"{atom(lifted_base.code)}[:, {', '.join(parts)}]", lifted_base.dims)
        base_code = atom(lifted_base.code)
        if facts.arrays.is_dict(base):
            return None  # a dict: indexing it with a whole array means something else
        sure = self._array(base, width)
        if "fancy" in kinds:
            if not sure:
                return None  # only arrays take an array of indices
            return self._fancy(base_code, parts, kinds, lifted_parts)
        indexes = [k for k, kind in enumerate(kinds) if kind == "index"]
        if not indexes:
            return None
        names = [parts[k] for k in indexes]
        dims = tuple(self.dim_of(n) for n in names)
        if len(set(dims)) != len(dims) or list(indexes) != list(
            range(indexes[0], indexes[0] + len(indexes))
        ):
            return None
        if any(kinds[k] != "fixed" for k in range(indexes[0])):
            return None  # x[:, i]: the walked axis would not come first
        if not self._in_nesting_order(names):
            return None
        new = list(parts)
        for k, name in zip(indexes, names):
            start, _stop = self.ranges.get(name, (None, ""))
            if start is not None:
                new[k] = f"{start}:{self.ranges[name][1]}"
            else:
                new[k] = ":"
        while new and new[-1] == ":" and kinds[len(new) - 1] == "index":
            new.pop()
        if not new:
            return Lifted(lifted_base.code, dims, sure)
        if not sure:
            return None  # x[0, :] of a list
        return Lifted(f"{base_code}[{', '.join(new)}]", dims)

    def _fancy(self, base_code, parts, kinds, lifted_parts) -> Optional[Lifted]:
        """``p[i, y[i]]`` -> ``p[np.arange(n), y]``: every index an array or a number."""
        if self.tensors or "slice" in kinds:
            return None
        new = list(parts)
        dims: Tuple[str, ...] = ()
        for k, kind in enumerate(kinds):
            if kind == "index":
                code = self.arange(parts[k])
                if code is None:
                    return None
                new[k] = code
                dims = dims or (self.dim_of(parts[k]),)
            elif kind == "fancy":
                lifted = lifted_parts[k]
                assert lifted is not None
                if dims and lifted.dims != dims:
                    return None
                dims = lifted.dims
        if len(dims) != 1:
            return None
        return Lifted(f"{base_code}[{', '.join(new)}]", dims)

    def _array(self, base, width: int) -> bool:
        """``base`` is an array: shown to be one, the array the loop walks, or indexed
        with a tuple (only arrays take one)."""
        if width >= 2 or self.ctx.code(base).strip() == self.facts.walk.tensor:
            return True
        return self.facts.arrays.is_array(base)

    def _in_nesting_order(self, names: List[str]) -> bool:
        order = [self.facts.walk.var] + [
            n.target.value
            for n in self.facts.nodes
            if isinstance(n, cst.For) and isinstance(n.target, cst.Name)
        ]
        positions = [order.index(n) if n in order else 0 for n in names]
        return positions == sorted(positions)

    def lift_target(self, target) -> Optional[Target]:
        """The whole-array form of a subscript written per element."""
        if not isinstance(target, cst.Subscript):
            return None
        base, elements, width = self._flatten(target, 0)
        if set(self.facts.sem.reads(base)) & self.loop_only:
            return None
        lifted = self._index(base, elements, 0, width)
        if lifted is None or not lifted.batched:
            return None
        code = lifted.code
        base_code = atom(self.ctx.code(base).strip())
        if code == self.ctx.code(base).strip():
            code = f"{base_code}[:]"
        parts = code[len(base_code) + 1 : -1]
        fancy = self.arange(self.facts.walk.var) is not None and self.lib("arange") in parts
        whole = len(elements) == 1 and _is_index(elements[0], self.facts.index)
        return Target(base_code, split_top(parts), fancy or "[" in parts, whole)


def _nodes(expr):
    from tflint_perf.engine.walk import descendants

    yield expr
    yield from descendants(expr, skip_scopes=True)


def _forward(rng: cst.Call) -> bool:
    return len(rng.args) < 3 or (
        isinstance(rng.args[2].value, cst.Integer) and rng.args[2].value.value == "1"
    )


def _against_an_array(left: Lifted, right: Lifted) -> bool:
    """A number per element against a whole array (``start + (end - start) * a`` over
    ``a in np.linspace(0, 1, n)``): the whole-array form needs the array's axes
    added to the numbers (``a[:, None]`` for a vector), which the source does not show."""
    return any(
        one.batched and one.scalar and not other.batched and other.sure
        for one, other in ((left, right), (right, left))
    )


def common_dims(*parts: Optional[Lifted]) -> Optional[Tuple[str, ...]]:
    found: Tuple[str, ...] = ()
    for part in parts:
        if part is None:
            return None
        if part.dims:
            if found and part.dims != found:
                return None
            found = part.dims
    return found


def _is_index(element: cst.SubscriptElement, index: Set[str]) -> bool:
    sl = element.slice
    return isinstance(sl, cst.Index) and isinstance(sl.value, cst.Name) and sl.value.value in index


def loop_only_names(facts: "LoopFacts") -> Set[str]:
    """Names bound only inside the loop (its targets, names its body computes)."""
    ctx, sem = facts.ctx, facts.sem
    loop = facts.walk.node
    first, last = ctx.span(loop)
    out: Set[str] = set()
    for binding in sem.bindings_in(loop):
        if "." in binding.name:
            continue
        every = binding.scope.bindings.get(binding.name, [])
        if all(first <= ctx.span(b.statement)[0] <= last for b in every):
            out.add(binding.name)
    return out | set(facts.index) | set(facts.elements) | set(facts.derived)
