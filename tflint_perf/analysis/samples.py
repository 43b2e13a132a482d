"""Is this expression one sample made into a batch of one?

``x[i:i+1]``, ``x[None]``, ``np.expand_dims(x, 0)``, ``x.reshape(1, -1)``,
``np.array([x])``, ``[x]``, ``pad_sequences([seq])``, ``np.zeros((1, n))``,
a list or dict of a multi-input model's inputs that are each one sample,
and the same passed through element-wise calls (``preprocess(x[None])``,
``x[None] / 255``). The shape is read from the source, never inferred: a
name is followed to its value by the caller (``resolve``), so the question
"one sample *per loop iteration*" stays with the rule that asks it.
"""

from __future__ import annotations

from typing import Callable, Optional

from tflint_perf.analysis.api.batches import (
    ARRAY_LIBRARIES,
    EXPAND,
    FILLED,
    NEWAXIS,
    RESHAPE,
    SHAPED,
    WRAP_CALLS,
)
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted

SMALL = 8  # x[i:i+k] with k up to this is a "small slice"
MAX_DEPTH = 6

Resolve = Callable[["cst.Name"], Optional["cst.BaseExpression"]]


def batch_of_one(ctx, expr, resolve: Optional[Resolve] = None, depth: int = 0, inputs: bool = True):
    """The sub-expression that makes ``expr`` a batch of one sample, else None.

    ``resolve(name)`` gives the value a name holds at that point (or None);
    without it names are opaque. ``inputs``: ``expr`` is what the model is given
    (not an argument of a call that makes it, such as ``np.concatenate``'s).
    """
    if depth > MAX_DEPTH or expr is None:
        return None
    if isinstance(expr, cst.Name):
        if resolve is None:
            return None
        return batch_of_one(ctx, resolve(expr), resolve, depth + 1, inputs)
    if isinstance(expr, cst.Subscript):
        if small_slice(expr) or adds_axis(ctx, expr) or _one_index_list(expr):
            return expr
        if _keeps_first_axis(expr):
            return batch_of_one(ctx, expr.value, resolve, depth + 1)
        return None
    if isinstance(expr, cst.List) and _single(expr.elements):
        # Keras reads a list as the model's inputs: [x] is one sample only when x is
        # one (or a literal sample such as [[1.0, 2.0]]).
        inner = expr.elements[0].value
        if isinstance(inner, (cst.List, cst.Tuple)) or batch_of_one(ctx, inner, resolve, depth + 1):
            return expr
        return None
    if isinstance(expr, (cst.List, cst.Tuple)) and len(expr.elements) > 1:
        # [state, np.expand_dims(goal, 0)]: a multi-input model's inputs share one
        # batch size, so one input made a batch of one makes them all one sample.
        if any(isinstance(e, cst.StarredElement) for e in expr.elements):
            return None
        found = [batch_of_one(ctx, e.value, resolve, depth + 1) for e in expr.elements]
        if any(found) if inputs else all(found):
            return expr
        return None
    if isinstance(expr, cst.Dict) and expr.elements:
        # {"user_id": np.array([uid]), ...}: a model's named inputs, one batch size.
        if not all(isinstance(e, cst.DictElement) for e in expr.elements):
            return None
        found = [batch_of_one(ctx, e.value, resolve, depth + 1) for e in expr.elements]
        if any(found) if inputs else all(found):
            return expr
        return None
    if isinstance(expr, cst.IfExp):
        return batch_of_one(ctx, expr.body, resolve, depth + 1) or batch_of_one(
            ctx, expr.orelse, resolve, depth + 1
        )
    if isinstance(expr, cst.BinaryOperation):
        return batch_of_one(ctx, expr.left, resolve, depth + 1) or batch_of_one(
            ctx, expr.right, resolve, depth + 1
        )
    if isinstance(expr, cst.Call):
        return _call(ctx, expr, resolve, depth)
    return None


def _call(ctx, call: cst.Call, resolve, depth: int):
    qual = ctx.call_name(call)
    args = [a for a in call.args if a.keyword is None and not a.star]
    first = args[0].value if args else None
    if qual in EXPAND and _axis_zero(call, args):
        return call
    if qual in WRAP_CALLS and isinstance(first, (cst.List, cst.Tuple)) and _single(first.elements):
        return call
    if qual in RESHAPE and len(args) >= 2 and leading_one(args[1].value):
        return call
    if qual in FILLED and first is not None and leading_one(first):
        return call
    func = call.func
    if qual is None and isinstance(func, cst.Attribute) and func.attr.value == "reshape" and args:
        if leading_one(first) if len(args) == 1 else is_int(first, 1):
            return call
    # An unknown function given one item in a list: pad_sequences([seq]).
    if (
        isinstance(first, cst.List)
        and _single(first.elements)
        and (qual is None or not qual.startswith(ARRAY_LIBRARIES))
    ):
        return call
    if qual is None and _returns_one(ctx, call, resolve, depth):
        return call  # ``state = self.reset()``, every return of which is ``x[None]``
    # Element-wise work on a batch of one keeps it one: x[None].astype(...),
    # preprocess_input(np.expand_dims(x, 0)).
    if isinstance(func, cst.Attribute) and qual is None:
        inner = batch_of_one(ctx, func.value, resolve, depth + 1, inputs=False)
        if inner is not None:
            return inner
    if first is not None:  # what the call works on, not the model's inputs
        return batch_of_one(ctx, first, resolve, depth + 1, inputs=False)
    return None


def _returns_one(ctx, call: cst.Call, resolve, depth: int) -> bool:
    """``call`` runs functions of the module every ``return`` of which is one sample
    made a batch of one."""
    from tflint_perf.analysis.calls import CallGraph
    from tflint_perf.analysis.values import Values

    values: Values = ctx.shared(Values)
    returns = [values.returns(func) for func in ctx.shared(CallGraph).resolve(call)]
    return bool(returns) and all(
        found and all(batch_of_one(ctx, r.value, resolve, depth + 1) is not None for r in found)
        for found in returns
    )


def built_with_rows(ctx, expr, resolve: Optional[Resolve] = None) -> bool:
    """``np.random.normal(size=(batch_size, dim))``, ``np.zeros((n, 4))``: an array the
    source builds with a leading dimension that is not a literal 1 (several rows),
    also through names that copy it (``x_alias = x``)."""
    for _ in range(4):
        if not (isinstance(expr, cst.Name) and resolve is not None):
            break
        expr = resolve(expr)
    if not isinstance(expr, cst.Call):
        return False
    qual = ctx.call_name(expr) or ""
    if not qual.startswith(SHAPED):
        return False
    shape = next(
        (
            a.value
            for a in expr.args
            if a.keyword is not None and a.keyword.value in ("size", "shape")
        ),
        None,
    )
    if shape is None and qual in FILLED and expr.args and expr.args[0].keyword is None:
        shape = expr.args[0].value
    return (
        isinstance(shape, (cst.Tuple, cst.List))
        and len(shape.elements) > 1
        and not is_int(shape.elements[0].value, 1)
    )


def _axis_zero(call: cst.Call, args) -> bool:
    if len(args) >= 2 and is_int(args[1].value, 0):
        return True
    return any(a.keyword and a.keyword.value == "axis" and is_int(a.value, 0) for a in call.args)


def _single(elements) -> bool:
    return len(elements) == 1 and not isinstance(elements[0], cst.StarredElement)


def _one_index_list(sub: cst.Subscript) -> bool:
    """``x[[i]]``: fancy indexing with one index keeps the batch axis."""
    if len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index):
        return False
    value = sub.slice[0].slice.value
    return isinstance(value, cst.List) and _single(value.elements)


def _keeps_first_axis(sub: cst.Subscript) -> bool:
    """``x[:, :, :3]``, ``x[..., 0]``: indexing that leaves the batch axis alone."""
    if len(sub.slice) < 2 and not isinstance(sub.slice[0].slice, cst.Index):
        return False
    first = sub.slice[0].slice
    if isinstance(first, cst.Slice):
        return first.lower is None and first.upper is None and first.step is None
    return isinstance(first, cst.Index) and isinstance(first.value, cst.Ellipsis)


def is_int(expr, value: int) -> bool:
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return isinstance(expr.expression, cst.Integer) and -int(expr.expression.value) == value
    return isinstance(expr, cst.Integer) and int(expr.value) == value


def leading_one(shape) -> bool:
    """``(1, ...)`` / ``[1, ...]``."""
    return (
        isinstance(shape, (cst.Tuple, cst.List))
        and bool(shape.elements)
        and is_int(shape.elements[0].value, 1)
    )


def small_slice(sub: cst.Subscript) -> bool:
    """``x[i:i+1]``, ``x[i:i + 4]`` (first index), with a small constant width."""
    first = sub.slice[0].slice if sub.slice else None
    if (
        not isinstance(first, cst.Slice)
        or first.lower is None
        or first.upper is None
        or first.step is not None
    ):
        return False
    upper = first.upper
    if isinstance(upper, cst.BinaryOperation) and isinstance(upper.operator, cst.Add):
        for base, width in ((upper.left, upper.right), (upper.right, upper.left)):
            if (
                isinstance(width, cst.Integer)
                and 1 <= int(width.value) <= SMALL
                and _same(base, first.lower)
            ):
                return True
    return False


def adds_axis(ctx, sub: cst.Subscript) -> bool:
    """``x[i][None]``, ``x[None, i]``, ``img[np.newaxis, ...]``."""
    if sub.slice:
        index = sub.slice[0].slice
        if isinstance(index, cst.Index):
            value = index.value
            if isinstance(value, cst.Name) and value.value == "None":
                return True
            return ctx.qualname(value) in NEWAXIS
    return False


def _same(a, b) -> bool:
    return dotted(a) is not None and dotted(a) == dotted(b)
