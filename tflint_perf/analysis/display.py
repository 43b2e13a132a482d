"""Calls that show something to a person: plots, images, notebook output.

A loop whose iterations each draw a figure or show an image runs at the
pace of whoever looks at it (a handful of examples in a tutorial), so the
cost of producing each element does not matter.
"""

from __future__ import annotations

from tflint_perf.engine import cst
from tflint_perf.engine.walk import descendants

# Methods of figures, axes and plotting modules (``plt.imshow``, ``ax.set_title``).
_DISPLAY_METHODS = frozenset(
    {
        "imshow",
        "plot",
        "savefig",
        "subplot",
        "add_subplot",
        "set_title",
        "set_axis_off",
        "hist",
        "legend",
    }
)
_DISPLAY_ROOTS = ("matplotlib.", "PIL.", "cv2.imshow", "IPython.")
# Calls that show an element or pace the loop for a viewer.
_VIEWER_CALLS = frozenset({"time.sleep", "tensorflow.summary.image"})


def displays(ctx, call: cst.Call) -> bool:
    """A plotting or image-showing call (matplotlib, PIL, OpenCV, IPython)."""
    qual = ctx.call_name(call) or ""
    if qual.startswith(_DISPLAY_ROOTS):
        return True
    func = call.func
    return isinstance(func, cst.Attribute) and func.attr.value in _DISPLAY_METHODS


def shown_each_iteration(ctx, body) -> bool:
    """The loop body draws, shows or paces for a viewer (such a call anywhere
    in it, outside nested functions)."""
    for node in descendants(body, skip_scopes=True):
        if isinstance(node, cst.Call) and (
            displays(ctx, node) or (ctx.call_name(node) or "") in _VIEWER_CALLS
        ):
            return True
    return False
