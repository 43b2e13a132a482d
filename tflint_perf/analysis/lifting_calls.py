"""Lifting calls: element-wise ops stay, reductions gain an axis, products re-orient.

``np.exp(x[i])`` -> ``np.exp(x)``; ``np.amax(q[i])`` -> ``np.amax(q, axis=1)``
(and ``axis=k`` -> ``axis=k + 1``); ``np.dot(x[i], w)`` -> ``np.dot(x, w)``,
``np.dot(w, x[i])`` -> ``np.dot(x, w.T)``; ``np.outer(a[i], b[i])`` ->
``a[:, :, None] * b[:, None, :]``; ``np.reshape(x[i], (28, 28))`` ->
``np.reshape(x, (-1, 28, 28))``; ``math.exp(v)`` -> ``np.exp(v)``; ``abs``,
``max``/``min`` of two, ``round``, ``pow`` -> their NumPy forms; ``float(v)``
-> ``v``; a function of the module built from element-wise ops is called on
the whole arrays; a draw per element gains ``size=n``. Anything else: None.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, List, Optional

from tflint_perf.analysis.api import arraymath as am
from tflint_perf.analysis.array_functions import ArrayFunctions, FunctionKind
from tflint_perf.analysis.element_reads import vector_draw
from tflint_perf.analysis.lifting import WALK, Lifted, atom, common_dims
from tflint_perf.engine import cst

if TYPE_CHECKING:
    from tflint_perf.analysis.lifting import Lifter

_BUILTINS = {"abs": "abs", "round": "round", "pow": "power"}
_BUILTIN_PAIRS = {"max": "maximum", "min": "minimum"}
_BUILTIN_REDUCTIONS = {"max": "max", "min": "min", "sum": "sum"}
_MATH_NAMES = {"fabs": "abs", "pow": "power", "atan": "arctan", "asin": "arcsin"}
_MATH_NAMES.update({"acos": "arccos", "atan2": "arctan2", "isclose": "isclose"})
_COPIES = frozenset({"array", "asarray", "asanyarray", "copy", "convert_to_tensor", "constant"})
_JOINS = frozenset({"concatenate", "concat", "stack"})


def lift_call(lifter: "Lifter", call: cst.Call, depth: int) -> Optional[Lifted]:
    ctx = lifter.ctx
    qual = ctx.call_name(call)
    func = call.func
    if qual is not None and am.is_random_draw(qual) and not vector_draw(call):
        return _draw(lifter, call, depth)
    if qual is not None and qual.startswith(am.MATH_MODULE):
        last = qual.rsplit(".", 1)[-1]
        return _apply(lifter, f"{lifter.np}.{_MATH_NAMES.get(last, last)}", call.args, depth)
    op = am.op(qual, len(call.args)) if qual is not None else None
    if op is am.ArrayOp.ELEMENTWISE:
        return _apply(lifter, ctx.code(func), call.args, depth)
    if op is am.ArrayOp.REDUCTION:
        return _reduction(lifter, ctx.code(func), call, depth)
    if op is am.ArrayOp.PRODUCT:
        return _product(lifter, qual or "", ctx.code(func), call, depth)
    if op is am.ArrayOp.SHAPE:
        return _shape(lifter, qual or "", ctx.code(func), call, depth)
    if op is am.ArrayOp.JOIN and (qual or "").rsplit(".", 1)[-1] in _JOINS:
        return _join(lifter, ctx.code(func), call, depth)
    if qual is not None:
        return None
    if isinstance(func, cst.Name):
        return _builtin(lifter, func.value, call, depth)
    if isinstance(func, cst.Attribute):
        return _method(lifter, func, call, depth)
    return None


def _args(lifter: "Lifter", args, depth: int) -> Optional[List[Lifted]]:
    out = []
    for arg in args:
        if arg.star:
            return None
        lifted = lifter.lift(arg.value, depth + 1)
        if lifted is None:
            return None
        out.append(lifted)
    return out


def _spell(args, lifted: List[Lifted]) -> str:
    parts = []
    for arg, value in zip(args, lifted):
        prefix = f"{arg.keyword.value}=" if arg.keyword is not None else ""
        parts.append(prefix + value.code)
    return ", ".join(parts)


def _apply(lifter: "Lifter", func: str, args, depth: int) -> Optional[Lifted]:
    """An element-wise function: the same call on the lifted arguments."""
    lifted = _args(lifter, args, depth)
    if lifted is None:
        return None
    dims = common_dims(*lifted)
    if dims is None:
        return None
    return Lifted(f"{func}({_spell(args, lifted)})", dims)


def _row_axis(lifter: "Lifter", operand: Lifted, spelled: str, node=None) -> str:
    """The axes a reduction of one element covers once the rows lead: every axis but
    the first. When the source shows the array's shape (``np.zeros((n, 4))``) they are
    spelled exactly; otherwise ``1`` (a row of a 2-D array, the usual case: said in
    the advice)."""
    rank = _rank(lifter, node) if node is not None else None
    if rank is not None and rank >= 2:
        return "1" if rank == 2 else f"({', '.join(str(k) for k in range(1, rank))})"
    lifter.assumptions.append(
        f"`axis=1`: `{spelled}` holds one row per element (for more dimensions, "
        "reduce over every axis but the first)"
    )
    return "1"


def _rank(lifter: "Lifter", node) -> Optional[int]:
    """The number of dimensions of the array whose row ``node`` is (``x[i]`` or a row
    ``r`` of ``x``), when the source makes it with literal sizes."""
    from tflint_perf.analysis.trips import Trips

    walk = lifter.facts.walk
    array: Optional[cst.CSTNode]
    if isinstance(node, cst.Name) and node.value in walk.whole:
        loop = walk.node
        if isinstance(loop, (cst.ListComp, cst.GeneratorExp)):
            array = loop.for_in.iter
        else:
            array = getattr(loop, "iter", None)
    elif isinstance(node, cst.Subscript) and len(node.slice) == 1:
        array = node.value
    else:
        return None
    if not isinstance(array, (cst.Name, cst.Attribute)):
        return None
    shape = lifter.ctx.shared(Trips).shape(array)
    return len(shape) if shape else None


def _reduction(lifter: "Lifter", func: str, call: cst.Call, depth: int) -> Optional[Lifted]:
    """``np.sum(x[i])`` -> ``np.sum(x, axis=1)``; ``axis=k`` -> ``axis=k + 1``."""
    positional = [a for a in call.args if a.keyword is None]
    if not positional or positional[0].star:
        return None
    operand = lifter.lift(positional[0].value, depth + 1)
    if operand is None or operand.dims != (WALK,):
        return None
    rest = []
    axis = None
    for arg in call.args[1:]:
        if arg.keyword is not None and arg.keyword.value in ("keepdims", "keep_dims"):
            return None
        if arg.keyword is not None and arg.keyword.value == "axis":
            axis = _shifted_axis(arg.value)
            if axis is None:
                return None
            continue
        lifted = lifter.lift(arg.value, depth + 1)
        if lifted is None or lifted.batched or arg.keyword is None:
            return None  # np.percentile(x[i], q) would need its axis by position
        rest.append(f"{arg.keyword.value}={lifted.code}")
    if axis is None:
        axis = _row_axis(lifter, operand, operand.code, positional[0].value)
    spelled = ", ".join([operand.code, *rest, f"axis={axis}"])
    return Lifted(f"{func}({spelled})", operand.dims)


def _shifted_axis(value) -> Optional[str]:
    """``axis=0`` of one element is ``axis=1`` once the rows lead; negative axes stay."""
    if isinstance(value, cst.Integer):
        return str(int(value.value) + 1)
    if (
        isinstance(value, cst.UnaryOperation)
        and isinstance(value.operator, cst.Minus)
        and isinstance(value.expression, cst.Integer)
    ):
        return f"-{value.expression.value}"
    return None


def _product(lifter: "Lifter", qual: str, func: str, call: cst.Call, depth: int):
    """``dot``/``matmul``/``inner``/``outer`` of a row and something fixed, or two rows."""
    if len(call.args) != 2 or any(a.keyword is not None or a.star for a in call.args):
        return None
    lifted = _args(lifter, call.args, depth)
    if lifted is None:
        return None
    a, b = lifted
    last = qual.rsplit(".", 1)[-1]
    if last == "outer":
        if a.batched and b.batched and a.dims == b.dims == (WALK,):
            return Lifted(f"{atom(a.code)}[:, :, None] * {atom(b.code)}[:, None, :]", a.dims)
        if a.batched and not b.batched and a.dims == (WALK,):
            return Lifted(f"{atom(a.code)}[:, :, None] * {atom(b.code)}", a.dims)
        if b.batched and not a.batched and b.dims == (WALK,):
            return Lifted(f"{atom(a.code)}[:, None] * {atom(b.code)}[:, None, :]", b.dims)
        return None
    if last not in ("dot", "matmul", "inner"):
        return None
    if a.batched and not b.batched and a.dims == (WALK,):
        return Lifted(f"{func}({a.code}, {b.code})", a.dims)  # np.dot(x[i], w)
    if b.batched and not a.batched and b.dims == (WALK,):
        if last == "inner":
            return Lifted(f"{func}({b.code}, {a.code})", b.dims)
        return Lifted(f"{func}({b.code}, {atom(a.code)}.T)", b.dims)  # np.dot(w, x[i])
    if a.batched and b.batched and a.dims == b.dims == (WALK,):
        lifter.assumptions.append("the rows multiplied pairwise are vectors (1-D per element)")
        return Lifted(f"{lifter.lib('sum')}({atom(a.code)} * {atom(b.code)}, axis=1)", a.dims)
    return None


def _shape(lifter: "Lifter", qual: str, func: str, call: cst.Call, depth: int):
    """Copies keep the rows; a reshape of one element reshapes every row."""
    last = qual.rsplit(".", 1)[-1]
    positional = [a for a in call.args if a.keyword is None]
    if not positional:
        return None
    operand = lifter.lift(positional[0].value, depth + 1)
    if operand is None or operand.dims != (WALK,):
        return None
    if last in _COPIES and len(call.args) == 1:
        return operand
    if last == "reshape" and len(call.args) == 2 and len(positional) == 2:
        shape = _row_shape(lifter, positional[1].value)
        if shape is None:
            return None
        return Lifted(f"{func}({operand.code}, {shape})", operand.dims)
    if last == "expand_dims" and len(call.args) == 2:
        axis = _shifted_axis(call.args[1].value)
        if axis is None or axis.startswith("-"):
            return None
        keyword = "axis=" if call.args[1].keyword is not None else ""
        return Lifted(f"{func}({operand.code}, {keyword}{axis})", operand.dims)
    return None


def _row_shape(lifter: "Lifter", shape) -> Optional[str]:
    """``(28, 28)`` of one element -> ``(-1, 28, 28)`` for every row."""
    if isinstance(shape, (cst.Tuple, cst.List)) and all(
        not isinstance(e, cst.StarredElement) for e in shape.elements
    ):
        sizes = [lifter.ctx.code(e.value).strip() for e in shape.elements]
        if any(s.startswith("-") for s in sizes) or not sizes:
            return None
        if set(lifter.facts.sem.reads(shape)) & lifter.loop_only:
            return None
        return f"(-1, {', '.join(sizes)})"
    if isinstance(shape, cst.Integer):
        return f"(-1, {shape.value})"
    return None


def _join(lifter: "Lifter", func: str, call: cst.Call, depth: int) -> Optional[Lifted]:
    """``np.concatenate([a[i], b[i]])`` -> ``np.concatenate([a, b], axis=1)``."""
    first = call.args[0] if call.args else None
    if (
        first is None
        or first.keyword is not None
        or not isinstance(first.value, (cst.List, cst.Tuple))
    ):
        return None
    axis = "1"
    for arg in call.args[1:]:
        if arg.keyword is None or arg.keyword.value != "axis":
            return None
        shifted = _shifted_axis(arg.value)
        if shifted is None or shifted.startswith("-"):
            return None
        axis = shifted
    items = []
    for element in first.value.elements:
        if isinstance(element, cst.StarredElement):
            return None
        lifted = lifter.lift(element.value, depth + 1)
        if lifted is None or lifted.dims != (WALK,):
            return None  # a fixed part would need repeating for every row
        items.append(lifted.code)
    return Lifted(f"{func}([{', '.join(items)}], axis={axis})", (WALK,))


def _builtin(lifter: "Lifter", name: str, call: cst.Call, depth: int) -> Optional[Lifted]:
    if name in ("float", "int") and len(call.args) == 1 and not call.args[0].keyword:
        if lifter.ctx.shared(ArrayFunctions).targets(call):
            return None  # a function of the module named float
        inner = lifter.lift(call.args[0].value, depth + 1)
        if name == "int" and inner is not None and inner.batched:
            # int() truncates each number: dropping it would keep the fractions
            return replace(inner, code=f"{atom(inner.code)}.astype(int)")
        return inner
    if name in _BUILTIN_PAIRS and len(call.args) == 2:
        return _apply(lifter, f"{lifter.np}.{_BUILTIN_PAIRS[name]}", call.args, depth)
    if name in _BUILTIN_REDUCTIONS and len(call.args) == 1:
        return _reduction(lifter, f"{lifter.np}.{_BUILTIN_REDUCTIONS[name]}", call, depth)
    if name in _BUILTINS:
        return _apply(lifter, f"{lifter.np}.{_BUILTINS[name]}", call.args, depth)
    functions = lifter.ctx.shared(ArrayFunctions)
    if functions.kind_of_call(call) is FunctionKind.ELEMENTWISE:
        return _apply(lifter, name, call.args, depth)
    return None


def _method(lifter: "Lifter", func: cst.Attribute, call: cst.Call, depth: int):
    name = func.attr.value
    receiver = lifter.lift(func.value, depth + 1)
    if receiver is None:
        return None
    if not receiver.batched:
        functions = lifter.ctx.shared(ArrayFunctions)
        if functions.kind_of_call(call) is FunctionKind.ELEMENTWISE:  # self.f(x[i])
            return _apply(lifter, f"{receiver.code}.{name}", call.args, depth)
        if name == "dot" and len(call.args) == 1:  # w.dot(x[i])
            other = lifter.lift(call.args[0].value, depth + 1)
            if other is not None and other.dims == (WALK,):
                return Lifted(f"{atom(other.code)}.dot({atom(receiver.code)}.T)", other.dims)
        return None
    op = am.method_op(name)
    if op is am.ArrayOp.REDUCTION:
        if any(a.keyword is not None and a.keyword.value in ("keepdims",) for a in call.args):
            return None
        axis = None
        for arg in call.args:
            if arg.keyword is None or arg.keyword.value != "axis":
                return None
            axis = _shifted_axis(arg.value)
            if axis is None:
                return None
        if axis is None:
            axis = _row_axis(lifter, receiver, receiver.code, func.value)
        return Lifted(f"{atom(receiver.code)}.{name}(axis={axis})", receiver.dims)
    if name == "dot" and len(call.args) == 1:
        other = lifter.lift(call.args[0].value, depth + 1)
        if other is None or other.batched:
            return None
        return Lifted(f"{atom(receiver.code)}.dot({other.code})", receiver.dims)
    if name in ("astype", "clip", "round", "copy", "numpy"):
        lifted = _args(lifter, call.args, depth)
        if lifted is None or any(v.batched for v in lifted):
            return None
        return Lifted(f"{atom(receiver.code)}.{name}({_spell(call.args, lifted)})", receiver.dims)
    if name == "item" and not call.args:
        return receiver
    if name == "reshape" and call.args and all(a.keyword is None for a in call.args):
        shape = (
            call.args[0].value
            if len(call.args) == 1
            else cst.Tuple([cst.Element(a.value) for a in call.args])
        )
        if receiver.dims != (WALK,):
            return None
        if _flat(shape):  # row.reshape(-1): every row flattened
            rows = atom(receiver.code)
            return Lifted(f"{rows}.reshape({rows}.shape[0], -1)", receiver.dims)
        spelled = _row_shape(lifter, shape)
        if spelled is None:
            return None
        return Lifted(f"{atom(receiver.code)}.reshape{spelled}", receiver.dims)
    if name in ("flatten", "ravel") and not call.args and receiver.dims == (WALK,):
        rows = atom(receiver.code)
        return Lifted(f"{rows}.reshape({rows}.shape[0], -1)", receiver.dims)
    return None


def _flat(shape) -> bool:
    """``-1`` or ``(-1,)``: one axis holding everything."""
    if isinstance(shape, (cst.Tuple, cst.List)) and len(shape.elements) == 1:
        shape = shape.elements[0].value
    return (
        isinstance(shape, cst.UnaryOperation)
        and isinstance(shape.operator, cst.Minus)
        and isinstance(shape.expression, cst.Integer)
        and shape.expression.value == "1"
    )


def _draw(lifter: "Lifter", call: cst.Call, depth: int) -> Optional[Lifted]:
    """A draw per element -> one draw of ``size=n``."""
    count = lifter.count()
    lifted = _args(lifter, call.args, depth)
    if count is None or lifted is None or any(v.batched for v in lifted):
        return None
    spelled = _spell(call.args, lifted)
    spelled = f"{spelled}, size={count}" if spelled else f"size={count}"
    return Lifted(f"{lifter.ctx.code(call.func)}({spelled})", (WALK,))
