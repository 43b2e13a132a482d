"""Trip counts that other loops decide: geometric ladders and lists filled in loops.

Two shapes whose size the source does not spell, yet bounds:

- A ``while`` loop whose bound is scaled by a factor on every pass
  (``while minl >= 12: ...; minl = minl * factor``, ``while n > 1: n //= 2``)
  runs a logarithmic number of times: an image pyramid's scales, a halving
  search. A handful, unless the factor is a literal close to 1.
- A list made empty and filled only by ``append``/``+= [...]`` statements
  holds as many items as those statements run: ``for scale in scales`` over
  the scales a ladder appended is itself a handful.

``Trips`` asks both (``while_estimate``, ``filled``); they return None when the shape
is not there, and the estimate otherwise.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, List, Optional, Tuple

from tflint_perf.analysis.estimates import TINY, UNKNOWN, Estimate, Size, clip, counted
from tflint_perf.analysis.index_bounds import literal_length
from tflint_perf.analysis.semantic import BindingKind
from tflint_perf.engine import cst
from tflint_perf.engine.nodes import node_types

if TYPE_CHECKING:
    from tflint_perf.analysis.trips import Trips

# (names, not classes: LibCST loads only when a file is parsed)
_SCALING = node_types("MultiplyAssign", "DivideAssign", "FloorDivideAssign", "RightShiftAssign")
_NEAR_ONE = 1.1  # a literal factor within 10% of 1 may take hundreds of passes
_FILLERS = ("append", "extend", "insert")


def while_estimate(trips: "Trips", loop: cst.While) -> Estimate:
    """``while not done`` / ``while True``: an episode or a stream (data-sized);
    ``while i < n``: ``n`` iterations when ``n`` is known; a ladder: a handful."""
    test = loop.test
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        bound = trips.number(test.comparisons[0].comparator)
        if bound is not None and isinstance(test.comparisons[0].operator, cst.LessThan):
            start = trips.start(test.left, loop)
            if start is not None:
                return counted(max(0, bound - start), f"`while {clip(trips.ctx.code(test))}`")
        return ladder(trips, loop, test) or UNKNOWN
    return Estimate(Size.DATA, None, f"`while {clip(trips.ctx.code(test))}` runs until done")


def ladder(trips: "Trips", loop: cst.While, test: cst.Comparison) -> Optional[Estimate]:
    """``while x >= bound`` (any order comparison) whose body scales ``x`` by a
    factor every pass, and rebinds it no other way."""
    comparison = test.comparisons[0]
    if not isinstance(
        comparison.operator,
        (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual),
    ):
        return None
    for counter, bound in ((test.left, comparison.comparator), (comparison.comparator, test.left)):
        if not isinstance(counter, cst.Name):
            continue
        factors = _factors(trips, loop, counter.value)
        if not factors:
            continue
        numbers = [_factor(trips, expr, divides, shift) for expr, divides, shift in factors]
        if any(n is not None and 1 / _NEAR_ONE < abs(n) < _NEAR_ONE for n in numbers):
            return None
        why = (
            f"`while {clip(trips.ctx.code(test))}` scales `{counter.value}` by a factor "
            "on every pass: a logarithmic ladder"
        )
        return _counted_ladder(trips, loop, counter, bound, numbers, why) or Estimate(
            Size.TINY, None, why
        )
    return None


def _factors(
    trips: "Trips", loop: cst.While, name: str
) -> List[Tuple[cst.BaseExpression, bool, bool]]:
    """What the body scales ``name`` by, each as (factor, divides, shifts), or []
    when the body rebinds ``name`` some other way."""
    found: List[Tuple[cst.BaseExpression, bool, bool]] = []
    for binding in trips.sem.bindings_in(loop.body):
        if binding.name != name:
            continue
        statement = binding.statement
        if isinstance(statement, cst.AugAssign) and isinstance(statement.operator, _SCALING):
            op = statement.operator
            divides = not isinstance(op, cst.MultiplyAssign)
            found.append((statement.value, divides, isinstance(op, cst.RightShiftAssign)))
            continue
        value = binding.value if binding.plain else None
        if not (
            isinstance(value, cst.BinaryOperation)
            and isinstance(value.operator, (cst.Multiply, cst.Divide, cst.FloorDivide))
        ):
            return []
        divides = not isinstance(value.operator, cst.Multiply)
        if isinstance(value.left, cst.Name) and value.left.value == name:
            found.append((value.right, divides, False))
        elif isinstance(value.right, cst.Name) and value.right.value == name and not divides:
            found.append((value.left, False, False))
        else:
            return []
    return found


def _factor(trips: "Trips", expr, divides: bool, shift: bool) -> Optional[float]:
    """The number one pass multiplies the counter by, when the source spells it."""
    number = expr.evaluated_value if isinstance(expr, cst.Float) else trips.number(expr)
    if number is None or number == 0:
        return None
    if shift:
        number = 2**number
    return 1 / number if divides else float(number)


def _counted_ladder(trips, loop, counter, bound, numbers, why) -> Optional[Estimate]:
    """The exact count when the start, the bound and one factor are numbers."""
    start, end = trips.start(counter, loop), trips.number(bound)
    if start is None or end is None or len(numbers) != 1 or numbers[0] is None:
        return None
    factor = abs(numbers[0])
    if start > 0 and end > 0:
        steps = math.log(end / start) / math.log(factor)
        if 0 <= steps < 10_000:
            return counted(math.ceil(steps), why)
    return None


def filled(trips: "Trips", name: cst.Name) -> Optional[Estimate]:
    """How many items ``name`` holds when it was made an empty (or literal) list
    and only ``append``/``extend``/``+= [...]`` add to it: the sum, over those
    statements, of how often each runs after the list was made, times what it
    adds. None when anything else reaches it (another assignment, a call it
    is passed to, which may fill it unseen)."""
    if name in trips.filling:  # a loop over the list fills it (or fills one it reads)
        return None
    trips.filling.add(name)
    try:
        return _filled(trips, name)
    finally:
        trips.filling.discard(name)


def _filled(trips: "Trips", name: cst.Name) -> Optional[Estimate]:
    sem = trips.sem
    found = sem.lookup_name(name)
    if not found:
        return None
    # Every binding of the name in its scope: the one list it is made, and the
    # statements adding to it (a read after a plain append sees only the append).
    bindings = found[0].scope.bindings.get(name.value, [])
    made = [b for b in bindings if b.kind not in (BindingKind.MUTATION, BindingKind.AUGMENTED)]
    if len(made) != 1 or not made[0].plain or not isinstance(made[0].value, cst.List):
        return None
    total = literal_length(sem, made[0].value)
    fills = [b for b in bindings if b is not made[0]]
    if total is None or not fills:
        return None
    if any(_escapes(trips, read) for b in bindings for read in sem.references(b)):
        return None
    if sem.changed_unseen(made[0]):  # a nested function adds to it too
        return None
    outer = set(map(id, trips.loops_around(made[0].statement)))
    reasons = []
    for fill in fills:
        items = _added(sem, fill, name.value)
        if items is None:
            return None
        loops = [loop for loop in trips.loops_around(fill.statement) if id(loop) not in outer]
        runs: Optional[int] = 1
        for loop in loops:
            each = trips.of(loop)
            if not each.tiny:
                return None
            runs = None if runs is None or each.count is None else runs * each.count
            reasons.append(each.why)
        if runs is None and (len(fills) > 1 or len(loops) > 1):
            return None
        total = None if runs is None or total is None else total + runs * items
    why = f"`{name.value}` is filled " + (
        f"in loops of a handful ({'; '.join(reasons)})" if reasons else "by a few statements"
    )
    if total is None:
        return Estimate(Size.TINY, None, why)
    return counted(total, why) if total <= TINY else None


def _added(sem, fill, name: str) -> Optional[int]:
    """How many items one filling statement adds: 1 for ``append``/``insert``, the
    literal's length for ``extend([...])``/``+= [...]``; None for anything else."""
    if fill.kind is BindingKind.AUGMENTED:
        statement = fill.statement
        if isinstance(statement, cst.AugAssign) and isinstance(statement.operator, cst.AddAssign):
            return literal_length(sem, statement.value)
        return None
    call = fill.value
    if not (
        fill.kind is BindingKind.MUTATION
        and isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and isinstance(call.func.value, cst.Name)
        and call.func.value.value == name
        and call.func.attr.value in _FILLERS
    ):
        return None
    if call.func.attr.value == "extend":
        return literal_length(sem, call.args[0].value) if len(call.args) == 1 else None
    return 1


def _escapes(trips: "Trips", read: cst.Name) -> bool:
    """``fill(xs)``, ``alias = xs``: a call given the list, or another name for it,
    may add to it where the list's own bindings do not show."""
    parent = trips.ctx.parent(read)
    return isinstance(parent, cst.Arg) or (isinstance(parent, cst.Assign) and parent.value is read)
