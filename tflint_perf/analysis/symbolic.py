"""Keras symbolic tensors: a functional model being wired, not data being run."""

from __future__ import annotations

from typing import Optional, Set

from tflint_perf.analysis.api.keras import INPUT_LAYERS
from tflint_perf.analysis.semantic import SemanticModel
from tflint_perf.engine import cst

_STEPS = 50  # values followed to tell a Keras symbolic tensor


def symbolic(ctx, expr: Optional[cst.CSTNode], seen: Optional[Set[int]] = None) -> bool:
    """Whether ``expr`` may hold a Keras symbolic tensor: a ``keras.Input``, or
    what a call (a layer, a model, an op, a helper) returns given one, stored
    in a container or not (a functional model being wired, not run). Any
    binding that reaches it counts: wiring code does not mix data into the
    same variable."""
    sem: SemanticModel = ctx.shared(SemanticModel)
    seen = set() if seen is None else seen
    if expr is None or id(expr) in seen or len(seen) > _STEPS:
        return False
    seen.add(id(expr))
    if isinstance(expr, cst.Name):
        return any(b.plain and symbolic(ctx, b.value, seen) for b in sem.origins(expr))
    if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Name):
        stored = [b.statement for b in sem.lookup_name(expr.value)]
        stored = [s.value for s in stored if isinstance(s, cst.Assign)]  # ``ends[k] = x``
        return any(symbolic(ctx, v, seen) for v in stored)
    if isinstance(expr, (cst.List, cst.Tuple)):
        return any(symbolic(ctx, e.value, seen) for e in expr.elements)
    if isinstance(expr, cst.BinaryOperation):
        return symbolic(ctx, expr.left, seen) or symbolic(ctx, expr.right, seen)
    if not isinstance(expr, cst.Call):
        return False
    if ctx.call_name(expr) in INPUT_LAYERS:
        return True
    # Layers, models, ops and helpers given a symbolic tensor return one.
    return any(a.keyword is None and symbolic(ctx, a.value, seen) for a in expr.args)
