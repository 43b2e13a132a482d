"""Helpers for the training-step and loop-rebuild rules (TFP201, TFP202).

- which names change from one loop iteration to the next (``varying_names``);
- how the module spells TensorFlow and Keras, to write fixes with
  (``tensorflow_alias``);
- where a missing ``import tensorflow as tf`` goes (``import_insertion_line``);
- whether the module is TF1 graph code (``graph_mode``) and how it spells
  ``tf.function`` (``tf_function_spelling``: ``tfe.defun`` in TF 1.x eager code).
"""

from __future__ import annotations

import re
from typing import Callable, Dict, List, Optional, Union

from tflint_perf.analysis.loops import SCOPE_TYPES, names_used, target_names
from tflint_perf.engine import cst
from tflint_perf.engine.names import canonical, dotted
from tflint_perf.engine.walk import descendants

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


def _assigned_targets(node: cst.CSTNode):
    """(target expressions, value) pairs bound by one statement-level node."""
    if isinstance(node, cst.Assign):
        return [t.target for t in node.targets], node.value
    if isinstance(node, cst.AnnAssign):
        return [node.target], node.value
    if isinstance(node, cst.AugAssign):
        return [node.target], None  # depends on its previous value
    if isinstance(node, cst.NamedExpr):
        return [node.target], node.value
    if isinstance(node, (cst.For, cst.CompFor)):
        return [node.target], None
    if isinstance(node, cst.WithItem) and node.asname is not None:
        return [node.asname.name], node.item
    if isinstance(node, cst.ExceptHandler) and node.name is not None:
        return [node.name.name], None
    return [], None


def varying_names(
    loop: Union[cst.For, cst.While], is_stable_value: Callable[[cst.BaseExpression], bool]
) -> set:
    """Names whose value may differ between iterations of ``loop``.

    The loop's own targets, and every name (or attribute base, like ``self``
    for ``self.x = ...``) bound in its body, except names bound only to a
    value ``is_stable_value`` accepts (a constructor call the caller tracks,
    a literal) that itself uses no varying name. Conservative: a name
    assigned from any other call (``next(it)``) varies.
    """
    varying = set()
    if isinstance(loop, cst.For):
        varying.update(target_names(loop.target))
    candidates: Dict[str, List[cst.BaseExpression]] = {}  # name -> values
    for node in descendants(loop.body, skip_scopes=True):
        targets, value = _assigned_targets(node)
        if isinstance(node, SCOPE_TYPES) and hasattr(node, "name"):
            varying.add(node.name.value)
        for target in targets:
            if isinstance(target, cst.Name) and value is not None and is_stable_value(value):
                candidates.setdefault(target.value, []).append(value)
            else:
                for name in _bound_bases(target):
                    varying.add(name)
    for name in list(candidates):
        if name in varying:
            del candidates[name]
    changed = True
    while changed:
        changed = False
        for name, values in list(candidates.items()):
            if any(names_used(v) & varying for v in values):
                varying.add(name)
                del candidates[name]
                changed = True
    return varying


def _bound_bases(target: cst.BaseExpression):
    """Names whose value an assignment to ``target`` changes."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        out = []
        for element in target.elements:
            out.extend(_bound_bases(element.value))
        return out
    if isinstance(target, cst.StarredElement):
        return _bound_bases(target.value)
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


def decorator_names(ctx, func: cst.FunctionDef) -> list:
    out = []
    for dec in func.decorators:
        expr = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
        out.append(dotted(expr) or "?")
    return out


TF1_SESSIONS = frozenset(
    {
        "tensorflow.Session",
        "tensorflow.InteractiveSession",
        "tensorflow.train.MonitoredTrainingSession",
        "tensorflow.train.MonitoredSession",
    }
)


def graph_mode(ctx) -> bool:
    """TF1 graph code: eager execution switched off, or sessions run without
    switching it on (``sess.run(train_op)`` already runs a graph)."""
    names = {ctx.call_name(c) for c in ctx.nodes(cst.Call)}
    if names & TF1_GRAPH_MODE:
        return True
    eager = any(n and n.endswith("enable_eager_execution") for n in names)
    return bool(names & TF1_SESSIONS) and not eager


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
