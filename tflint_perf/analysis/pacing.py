"""Loops a person paces: every iteration waits for someone (``input()``, a key).

However many iterations such a loop has, whoever answers each one sets its
pace, so the per-iteration overhead of anything in it goes unseen (the trip
estimate calls it tiny, ``Estimate.paced``). What waits is read from the API
table (``api/others.WAITS_FOR_A_PERSON``).
"""

from __future__ import annotations

from tflint_perf.analysis.api import others
from tflint_perf.analysis.shapes import literal_number
from tflint_perf.engine import cst
from tflint_perf.engine.walk import descendants


def waits_on_a_person(ctx, sem, loop: cst.CSTNode) -> bool:
    """Every iteration calls something that waits for a person, in a simple
    statement of the loop's own body (not under a branch)."""
    body = getattr(loop, "body", None)
    for stmt in getattr(body, "body", ()):
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for node in descendants(stmt, skip_scopes=True):
            if isinstance(node, cst.Call) and waits(ctx, sem, node):
                return True
    return False


def waits(ctx, sem, call: cst.Call) -> bool:
    """A call that blocks until a person acts (``waitKey(0)``, not ``waitKey(1)``)."""
    if isinstance(call.func, cst.Name) and sem.lookup_name(call.func):
        return False  # a function of the module named like a builtin
    qual = ctx.call_name(call)
    if qual is None and isinstance(call.func, cst.Name):
        qual = call.func.value
    if qual not in others.WAITS_FOR_A_PERSON:
        return False
    delay = others.WAITS_FOR_A_PERSON[qual]
    if delay is None:
        return True
    given = [a.value for a in call.args if a.keyword is None]
    return len(given) <= delay or literal_number(given[delay]) == 0
