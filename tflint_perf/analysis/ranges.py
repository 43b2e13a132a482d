"""How many times ``range(...)`` runs, for ``Trips``.

Counted when its bounds are numbers the source spells (``Trips.number``).
Otherwise, only to tell a handful, the defaults of the function's parameters
count when no call in the module passes others (``def smooth(taps=5)``: a
handful; callers elsewhere may pass more, and such a loop may then be missed,
never reported wrongly). ``range(x.ndim)`` counts dimensions;
``range(len(x))`` and ``range(x.shape[0])`` walk data, unless ``x`` lists the
parts of a model (its layers or variables).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tflint_perf.analysis.api import Kind
from tflint_perf.analysis.estimates import TINY, UNKNOWN, Estimate, Size, Spelled, counted
from tflint_perf.engine import cst

# Lists of these are the parts of a model (its layers, its variables): as many
# as the model has, not items of the data.
MODEL_PARTS = (Kind.LAYER, Kind.VARIABLE)

if TYPE_CHECKING:
    from tflint_perf.analysis.trips import Trips


def range_estimate(trips: "Trips", call: cst.Call, code: Spelled) -> Estimate:
    """``range(...)``: counted when its bounds are numbers; tiny when the defaults
    of the function's parameters (no call here passing others) make it a handful;
    data-sized for ``range(len(x))`` or ``range(x.shape[0])`` of data."""
    if not 1 <= len(call.args) <= 3 or any(a.keyword for a in call.args):
        return UNKNOWN
    if len(call.args) == 1 and _dimensions(trips, call.args[0].value):
        return Estimate(Size.TINY, None, f"`{code}` counts the dimensions of an array")
    bounds = [trips.number(a.value) for a in call.args]
    if all(b is not None for b in bounds):
        numbers = [b for b in bounds if b is not None]
        if len(numbers) == 3 and numbers[2] == 0:
            return UNKNOWN
        return counted(len(range(*numbers)), f"`{code}`")
    # only to tell a handful: a default no call here overrides
    bounds = [trips.number(a.value, defaults=True) for a in call.args]
    if all(b is not None for b in bounds) and (len(bounds) < 3 or bounds[2]):
        count = len(range(*[b for b in bounds if b is not None]))
        if count <= TINY:
            return counted(count, f"`{code}`: the default of a parameter no call here overrides")
    stop = call.args[0].value if len(call.args) == 1 else call.args[1].value
    if _data_size(trips, stop):
        return Estimate(Size.DATA, None, f"one iteration per item of the data (`{code}`)")
    return UNKNOWN


def _dimensions(trips: "Trips", expr, depth: int = 0) -> bool:
    """``x.ndim``, ``len(x.shape)`` (or a name bound to one): an array's number of
    dimensions, a handful."""
    if isinstance(expr, cst.Name) and depth < 3:
        value = trips.sem.value_of(expr)
        return value is not None and _dimensions(trips, value, depth + 1)
    if isinstance(expr, cst.Attribute):
        return expr.attr.value == "ndim"
    return (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Name)
        and expr.func.value == "len"
        and len(expr.args) == 1
        and isinstance(expr.args[0].value, cst.Attribute)
        and expr.args[0].value.attr.value == "shape"
    )


def _data_size(trips: "Trips", expr: cst.BaseExpression) -> bool:
    """``len(x)`` or ``x.shape[0]`` of an array, dataset or list that is not a literal."""
    if (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Name)
        and expr.func.value == "len"
        and expr.args
    ):
        inner = expr.args[0].value
        if trips.values.element_kind(inner) in MODEL_PARTS:
            return False  # ``range(len(tf.trainable_variables()))``: a model's parts
        return trips.iterable(inner).size is not Size.TINY and not isinstance(
            trips.sem.value_of(inner) if isinstance(inner, cst.Name) else None,
            (cst.List, cst.Tuple),
        )
    if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Attribute):
        return expr.value.attr.value == "shape"
    return False
