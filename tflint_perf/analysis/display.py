"""Calls that show something to a person: plots, images, notebook output.

A loop whose iterations each draw a figure or show an image runs at the
pace of whoever looks at it (a handful of examples in a tutorial), so the
cost of producing each element does not matter. What shows is read from the
API table (``Effect.DISPLAY``: matplotlib, PIL, IPython, OpenCV windows,
seaborn, plotly, ``time.sleep``) and the figure methods of
``api/tfdata.py``; ``print`` is not a look (training loops log with it).
Helpers of the module that draw count too (``generate_images(model, x)``).
"""

from __future__ import annotations

from tflint_perf.analysis import api
from tflint_perf.analysis.api import Effect, tfdata
from tflint_perf.engine import cst
from tflint_perf.engine.walk import descendants

_DEPTH = 2


def displays(ctx, call: cst.Call) -> bool:
    """A plotting or image-showing call (matplotlib, PIL, OpenCV, IPython)."""
    qual = ctx.call_name(call)
    if qual is not None and qual not in tfdata.LOG_CALLS:
        if api.effects(qual) & Effect.DISPLAY or qual in tfdata.VIEWER_CALLS:
            return True
    func = call.func
    return isinstance(func, cst.Attribute) and func.attr.value in tfdata.DISPLAY_METHODS


def shown_each_iteration(ctx, body, depth: int = 0) -> bool:
    """The loop body draws, shows or paces for a viewer: such a call anywhere in
    it (outside nested functions), or in a function of the module it calls."""
    from tflint_perf.analysis.calls import CallGraph

    graph = ctx.shared(CallGraph) if depth < _DEPTH else None
    for node in descendants(body, skip_scopes=True):
        if not isinstance(node, cst.Call):
            continue
        if displays(ctx, node):
            return True
        for target in graph.resolve(node) if graph is not None else ():
            if shown_each_iteration(ctx, target.body, depth + 1):
                return True
    return False
