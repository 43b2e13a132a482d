"""Recognising Keras models: constructors, loaders, and names bound to them."""

from __future__ import annotations

import libcst as cst

from tflint_perf.names import dotted


MODEL_CLASSES = frozenset({"keras.Sequential", "keras.models.Sequential", "keras.Model", "keras.models.Model"})
MODEL_FACTORIES = frozenset(
    {"keras.models.load_model", "keras.saving.load_model", "keras.models.clone_model", "keras.models.model_from_json"}
)


def is_model_construction(ctx, call: cst.CSTNode) -> bool:
    """``keras.Sequential(...)``, ``keras.Model(...)``, ``load_model(...)``,
    ``keras.applications.ResNet50(...)`` and the like."""
    if not isinstance(call, cst.Call):
        return False
    qual = ctx.call_name(call)
    if qual is None:
        return False
    if qual in MODEL_CLASSES or qual in MODEL_FACTORIES:
        return True
    return qual.startswith("keras.applications.") and qual.rsplit(".", 1)[-1][:1].isupper()


def _local_model_subclasses(ctx) -> set:
    """Classes in this file that subclass a Keras model."""
    out = set()
    for node in ctx.nodes(cst.ClassDef):
        for base in node.bases:
            if ctx.qualname(base.value) in MODEL_CLASSES:
                out.add(node.name.value)
    return out


class ModelNames:
    """Names (``model``, ``self.model``) assigned a Keras model anywhere in the file."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.subclasses = _local_model_subclasses(ctx)
        self.names: set = set()
        for node in ctx.nodes(cst.Assign):
            if self.is_model_expr(node.value):
                for target in node.targets:
                    name = dotted(target.target)
                    if name:
                        self.names.add(name)

    def is_model_expr(self, expr: cst.BaseExpression) -> bool:
        if not isinstance(expr, cst.Call):
            return False
        if is_model_construction(self.ctx, expr):
            return True
        return isinstance(expr.func, cst.Name) and expr.func.value in self.subclasses

    def is_model_name(self, expr: cst.BaseExpression) -> bool:
        name = dotted(expr)
        return name is not None and name in self.names
