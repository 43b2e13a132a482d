"""Loop helpers shared by the rules: where loops are, what they iterate."""

from __future__ import annotations

from typing import Iterator, List, Optional

import libcst as cst

from tflint_perf.names import dotted
from tflint_perf.walk import descendants

LOOP_TYPES = (cst.For, cst.While)
COMPREHENSION_TYPES = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
SCOPE_TYPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def enclosing_loops(ctx, node: cst.CSTNode, stop_at_scope: bool = True) -> List[cst.CSTNode]:
    """``for``/``while`` statements whose body contains ``node``, nearest first.

    A loop counts only when ``node`` is in its body (or ``else``), not in its
    iterable or condition. With ``stop_at_scope``, a function or class
    boundary ends the search: a ``def`` inside a loop is not run by it.
    """
    out = []
    child = node
    for parent in ctx.ancestors_of(node):
        if isinstance(parent, LOOP_TYPES) and child is not getattr(parent, "iter", None) and child is not getattr(parent, "test", None) and child is not getattr(parent, "target", None):
            out.append(parent)
        if stop_at_scope and isinstance(parent, SCOPE_TYPES):
            break
        child = parent
    return out


def innermost_loop(ctx, node: cst.CSTNode) -> Optional[cst.CSTNode]:
    loops = enclosing_loops(ctx, node)
    return loops[0] if loops else None


def body_nodes(loop: cst.CSTNode, skip_scopes: bool = True) -> Iterator[cst.CSTNode]:
    """Every node in a loop's body (not its header), nested scopes skipped."""
    body = loop.body
    yield from descendants(body, skip_scopes=skip_scopes)


def range_call(expr: cst.BaseExpression) -> Optional[cst.Call]:
    """The call if ``expr`` is ``range(...)`` (builtin spelling)."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "range":
        return expr
    return None


def enumerate_call(expr: cst.BaseExpression) -> Optional[cst.Call]:
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "enumerate":
        return expr
    return None


def target_names(target: cst.BaseExpression) -> List[str]:
    """Names bound by a ``for`` target (``i``, ``(i, x)``, ``[a, b]``)."""
    return [n.value for n in [target, *descendants(target)] if isinstance(n, cst.Name)]


def calls_in(node: cst.CSTNode, skip_scopes: bool = True) -> Iterator[cst.Call]:
    for sub in descendants(node, skip_scopes=skip_scopes):
        if isinstance(sub, cst.Call):
            yield sub


def method_name(call: cst.Call) -> Optional[str]:
    """``fit`` for ``model.fit(...)``; None for plain calls."""
    if isinstance(call.func, cst.Attribute):
        return call.func.attr.value
    return None


def receiver(call: cst.Call) -> Optional[str]:
    """Dotted receiver of a method call: ``self.model`` for ``self.model.fit()``."""
    if isinstance(call.func, cst.Attribute):
        return dotted(call.func.value)
    return None


def names_used(node: cst.CSTNode) -> set:
    """Variable names read in ``node`` (attribute and keyword names excluded)."""
    skip = set()
    used = set()
    for sub in [node, *descendants(node)]:
        if isinstance(sub, cst.Attribute):
            skip.add(id(sub.attr))
        elif isinstance(sub, cst.Arg) and sub.keyword is not None:
            skip.add(id(sub.keyword))
        elif isinstance(sub, cst.Name) and id(sub) not in skip:
            used.add(sub.value)
    return used
