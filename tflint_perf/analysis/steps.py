"""Helpers for writing fixes (TFP102, TFP201-TFP203) and two shared leftovers.

- how the module spells TensorFlow and ``tf.function``, to write fixes with
  (``tensorflow_alias``; ``tf_function_spelling``: ``tfe.defun`` in TF 1.x
  eager code);
- where a missing ``import tensorflow as tf`` goes (``import_insertion_line``)
  and whether a name is free to bind (``name_is_free``);
- ``is_clear_session``, ``bound_bases`` and ``TF1_GRAPH_MODE``, still read by
  ``keras_models`` (other rules' module) until it moves onto the semantic model.
"""

from __future__ import annotations

import re
from typing import Optional

from tflint_perf.engine import cst
from tflint_perf.engine.names import canonical, dotted

TF1_GRAPH_MODE = frozenset(
    {
        "tensorflow.disable_eager_execution",
        "tensorflow.disable_v2_behavior",
        "tensorflow.disable_v2_tensorshape",
    }
)


def is_clear_session(ctx, call: cst.CSTNode) -> bool:
    """``keras.backend.clear_session()``, ``keras.utils.clear_session()``, ``K.clear_session()``."""
    if not isinstance(call, cst.Call):
        return False
    qual = ctx.call_name(call)
    if qual is not None:
        return qual.startswith("keras.") and qual.endswith(".clear_session")
    return isinstance(call.func, cst.Attribute) and call.func.attr.value == "clear_session"


def bound_bases(target: cst.BaseExpression):
    """Names whose value an assignment to ``target`` changes."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        out = []
        for element in target.elements:
            out.extend(bound_bases(element.value))
        return out
    if isinstance(target, cst.StarredElement):
        return bound_bases(target.value)
    base = target
    while isinstance(base, (cst.Attribute, cst.Subscript)):
        base = base.value
    return [base.value] if isinstance(base, cst.Name) else []


def _aliases_to(ctx, target: str):
    """Module-level names bound to ``target``: inserted code can use them anywhere."""
    for local, full in ctx.imports.module_aliases.items():
        if canonical(full) == target and "." not in local:
            yield local, full


def tensorflow_alias(ctx) -> Optional[str]:
    """The local name the module imports TensorFlow as (``tf``), else None."""
    best = None
    for local, full in _aliases_to(ctx, "tensorflow"):
        if full in ("tensorflow", "tensorflow.compat.v2"):
            return local
        best = best or local
    return best


def import_insertion_line(ctx) -> Optional[int]:
    """The line before which a new top-level import goes: after the last
    import of the module's leading run of docstring and imports."""
    last = None
    for index, stmt in enumerate(ctx.module.body):
        if isinstance(stmt, cst.SimpleStatementLine):
            if all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body):
                last = stmt
                continue
            if (
                index == 0
                and len(stmt.body) == 1
                and isinstance(stmt.body[0], cst.Expr)
                and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
            ):
                continue  # module docstring
        break
    if last is None:
        return None
    return ctx.statement_lines(last)[1] + 1


def name_is_free(ctx, name: str) -> bool:
    """Whether ``name`` appears nowhere in the source (so a new import may bind it)."""
    return re.search(rf"\b{re.escape(name)}\b", ctx.source) is None


def tf_function_spelling(ctx) -> Optional[str]:
    """How this module compiles a function: ``tf.function``; ``tfe.defun`` or
    ``tf.contrib.eager.defun`` in TensorFlow 1.x eager code (it calls
    ``tf.enable_eager_execution()``, which TensorFlow 2 does not have);
    None when the module has no module-level TensorFlow alias."""
    for local, _ in _aliases_to(ctx, "tensorflow.contrib.eager"):
        return f"{local}.defun"
    alias = tensorflow_alias(ctx)
    if alias is None:
        return None
    full = ctx.imports.module_aliases.get(alias, "")
    for call in ctx.nodes(cst.Call):
        spelled = dotted(call.func) or ""
        if spelled == f"{alias}.enable_eager_execution" and full == "tensorflow":
            return f"{alias}.contrib.eager.defun"
    return f"{alias}.function"
