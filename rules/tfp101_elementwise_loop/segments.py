"""The detector for per-class loops: a mask and a reduction once per class value.

``for c in np.unique(y)`` (or ``tf.unique(y)[0]``) whose body masks ``y == c``,
reduces with a TF/NumPy reduction and accumulates the results: one segment
reduction does every class at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from tflint_perf.analysis.api import arraymath as am
from tflint_perf.analysis.semantic import SemanticModel
from tflint_perf.engine import cst
from tflint_perf.engine.nodes import node_types
from tflint_perf.engine.walk import descendants

_UNIQUES = frozenset({"numpy.unique", "tensorflow.unique", "tensorflow.unique_with_counts"})
_BLOCKERS = node_types(
    "Return",
    "Break",
    "Raise",
    "Yield",
    "With",
    "Try",
    "FunctionDef",
    "ClassDef",
)
_CONVERSIONS = ("len", "float", "int")


@dataclass(frozen=True)
class Segments:
    var: str  # the loop variable (a class value)
    values: str  # code of the array whose distinct values the loop walks


def segment_loop(ctx, node) -> Optional[Segments]:
    if not isinstance(node, cst.For) or not isinstance(node.target, cst.Name):
        return None
    var = node.target.value
    masked = reduced = collected = False
    for n in descendants(node.body, skip_scopes=True):
        if isinstance(n, _BLOCKERS):
            return None
        if isinstance(n, cst.Call):
            qual = ctx.call_name(n)
            op = am.op(qual, len(n.args)) if qual else None
            func = n.func
            if op is not None:
                reduced = reduced or op is am.ArrayOp.REDUCTION
            elif isinstance(func, cst.Attribute) and func.attr.value == "append":
                collected = True
            elif not (isinstance(func, cst.Name) and func.value in _CONVERSIONS):
                if not (isinstance(func, cst.Attribute) and am.method_op(func.attr.value)):
                    return None
        elif isinstance(n, cst.AugAssign):
            collected = True
        elif isinstance(n, cst.Comparison) and len(n.comparisons) == 1:
            sides = (n.left, n.comparisons[0].comparator)
            if isinstance(n.comparisons[0].operator, cst.Equal) and any(
                isinstance(x, cst.Name) and x.value == var for x in sides
            ):
                masked = True
    if not (masked and reduced and collected):
        return None
    values = _unique_source(ctx, node.iter)
    return Segments(var, values) if values is not None else None


def _unique_source(ctx, iterable) -> Optional[str]:
    """``y`` when the loop walks the distinct values of ``y``."""
    if isinstance(iterable, cst.Name):
        value = ctx.shared(SemanticModel).value_of(iterable)
        if value is None:
            return None
        iterable = value
    if isinstance(iterable, cst.Subscript):
        iterable = iterable.value  # tf.unique(y)[0]
    if (
        isinstance(iterable, cst.Call)
        and ctx.call_name(iterable) in _UNIQUES
        and iterable.args
        and all(a.keyword is None for a in iterable.args)
    ):
        return ctx.code(iterable.args[0].value)
    return None
