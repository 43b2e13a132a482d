"""A parameter whose ``None`` default the function fills in itself.

``def anchors(levels=None): if levels is None: levels = [3, 4, 5, 6, 7]``:
what the parameter holds past the fill is the literal, as a plain default
would be, unless a call of the module passes its own value.
"""

from __future__ import annotations

from typing import List, Optional, cast

from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.semantic import BindingKind
from tflint_perf.engine import cst
from tflint_perf.engine.nodes import is_none_test


def filled_default(ctx, sem, name) -> Optional[List[cst.BaseExpression]]:
    """The values ``name`` can hold after the fill; None when it is not such a
    parameter or a call here passes it."""
    found = sem.lookup_name(name)
    params = [b for b in found if b.kind is BindingKind.PARAMETER]
    fills = [b for b in found if b.kind is not BindingKind.PARAMETER]
    if len(params) != 1 or not fills or not isinstance(params[0].statement, cst.Param):
        return None
    param = params[0].statement
    if not (isinstance(param.default, cst.Name) and param.default.value == "None"):
        return None
    for fill in fills:
        guard = next((a for a in ctx.ancestors_of(fill.node) if isinstance(a, cst.If)), None)
        if not (fill.plain and guard is not None and _is_none(guard.test, param.name.value)):
            return None
    func = params[0].scope.function
    graph = ctx.shared(CallGraph)
    if func is None or any(
        graph.argument(call, func, param.name.value) is not None for call in graph.callers(func)
    ):
        return None  # a call passes its own value
    return [cast(cst.BaseExpression, b.value) for b in fills]


def _is_none(test, name: str) -> bool:
    """``name is None`` (not ``is not``)."""
    return (
        is_none_test(test)
        and isinstance(test.left, cst.Name)
        and test.left.value == name
        and isinstance(test.comparisons[0].operator, cst.Is)
    )
