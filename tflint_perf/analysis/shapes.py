"""Array shapes as the source spells them: ``x.shape``, ``x.shape[k]``, literal sizes."""

from __future__ import annotations

from typing import Optional

from tflint_perf.analysis.api import arraymath
from tflint_perf.engine import cst


def shape_axis(expr: cst.Subscript):
    """(``x``, ``k``) of ``x.shape[k]`` with a literal (possibly negative) ``k``."""
    if not isinstance(expr.value, cst.Attribute) or expr.value.attr.value != "shape":
        return None
    if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
        return None
    index = expr.slice[0].slice.value
    sign = 1
    if isinstance(index, cst.UnaryOperation) and isinstance(index.operator, cst.Minus):
        index, sign = index.expression, -1
    if not isinstance(index, cst.Integer):
        return None
    return expr.value.value, sign * int(index.value)


def is_shape(ctx, expr) -> bool:
    """``x.shape``, ``np.shape(x)``, ``tf.shape(x)``."""
    if isinstance(expr, cst.Attribute):
        return expr.attr.value == "shape"
    return ctx.call_name(expr) in arraymath.SHAPE_FUNCTIONS


def literal_number(expr) -> Optional[float]:
    sign = 1.0
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        expr, sign = expr.expression, -1.0
    if isinstance(expr, (cst.Integer, cst.Float)):
        return sign * float(expr.evaluated_value)
    return None


def over_columns(ctx, sem, loop: cst.CSTNode) -> bool:
    """``for c in range(x.shape[1])`` (or a later axis), or over ``cols`` of
    ``rows, cols = x.shape``: the loop counts the columns or channels of an
    array, a few features rather than the rows of the data."""
    if not isinstance(loop, cst.For):
        return False
    rng = loop.iter
    if not (
        isinstance(rng, cst.Call)
        and isinstance(rng.func, cst.Name)
        and rng.func.value == "range"
        and len(rng.args) == 1
    ):
        return False
    bound = rng.args[0].value
    if isinstance(bound, cst.Subscript):
        axis = shape_axis(bound)
        return axis is not None and axis[1] != 0
    if not isinstance(bound, cst.Name):
        return False
    found = sem.lookup_name(bound)
    return (
        len(found) == 1
        and found[0].source is not None
        and bool(found[0].path)
        and found[0].path[0] > 0
        and is_shape(ctx, found[0].source)
    )
