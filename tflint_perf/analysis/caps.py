"""A counter that ends a loop's work early: ``if i > 10: continue`` (or ``break``).

``Trips.repeats`` asks ``capped``: code after such a guard, ``i`` counted up
by one per iteration from a literal, runs at most that many times whatever
the loop walks (a notebook that looks at the first few records).
"""

from __future__ import annotations

from typing import Any, Optional

from tflint_perf.analysis.estimates import Estimate, clip, counted
from tflint_perf.engine import cst


def capped(trips: Any, loop: cst.CSTNode, node: cst.CSTNode, each: Estimate) -> Estimate:
    """``if i > 10: continue`` (or ``break``) before ``node`` in the loop's body,
    ``i`` counted up by one per iteration from a literal: ``node`` runs that often."""
    body = getattr(loop, "body", None)
    for statement in body.body if isinstance(body, cst.IndentedBlock) else ():
        if statement is node or trips.ctx.contains(statement, node):
            break
        cap = _cap(trips, statement, loop)
        if cap is not None and (each.count is None or cap < each.count):
            test = clip(trips.ctx.code(statement.test))  # type: ignore[attr-defined]
            return counted(cap, f"`if {test}` ends the work after {cap} iterations")
    return each


def _cap(trips, statement: cst.CSTNode, loop) -> Optional[int]:
    """The iterations after which ``statement`` (an ``if`` on a counter) ends the work."""
    block: Any = statement.body if isinstance(statement, cst.If) else None
    if isinstance(block, cst.IndentedBlock) and len(block.body) == 1:
        block = block.body[0]  # if ...:\n    continue
    one = isinstance(block, (cst.SimpleStatementLine, cst.SimpleStatementSuite))
    if not one or len(block.body) != 1 or not isinstance(block.body[0], (cst.Continue, cst.Break)):
        return None
    test = statement.test  # type: ignore[attr-defined]
    if statement.orelse or not (  # type: ignore[attr-defined]
        isinstance(test, cst.Comparison) and len(test.comparisons) == 1
    ):
        return None
    operator, counter = test.comparisons[0].operator, test.left
    limit = trips.number(test.comparisons[0].comparator)
    if limit is None or not isinstance(operator, (cst.GreaterThan, cst.GreaterThanEqual)):
        return None
    start = trips.start(counter, loop)
    if start is None or not _counts_up(trips, loop, counter):
        return None
    return max(0, limit - start + (1 if isinstance(operator, cst.GreaterThan) else 0))


def _counts_up(trips, loop, counter) -> bool:
    """``i += 1`` (or ``i = i + 1``) among the statements of the loop's body."""
    name = trips.ctx.code(counter)
    steps = {f"{name}+=1", f"{name}={name}+1"}
    return any(
        "".join(trips.ctx.code(small).split()) in steps
        for line in loop.body.body
        if isinstance(line, cst.SimpleStatementLine)
        for small in line.body
    )
