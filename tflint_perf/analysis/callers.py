"""Where a function of this module is called: ``f(...)``, ``self.f(...)``, ``obj.f(...)``.

Names are file-wide (no scope analysis). A method is matched through any
receiver only when its name is defined once in the file and is not one of
the names every library uses (``run``, ``step``, ``fit``): ``agent.act(s)``
finds ``def act``, ``sess.run(x)`` finds nothing.
"""

from __future__ import annotations

from typing import Dict, List, Optional

from tflint_perf.analysis.loops import SCOPE_TYPES
from tflint_perf.engine import cst

# Method names too common in other libraries to match through an unknown receiver.
_COMMON_METHODS = frozenset(
    {
        "run",
        "step",
        "call",
        "get",
        "update",
        "append",
        "add",
        "apply",
        "close",
        "write",
        "read",
        "reset",
        "format",
        "join",
        "split",
        "copy",
        "numpy",
        "fit",
        "evaluate",
        "compile",
        "save",
        "load",
        "build",
        "train",
        "__call__",
        "__init__",
    }
)


def enclosing_function(ctx, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
    for parent in ctx.ancestors_of(node):
        if isinstance(parent, cst.FunctionDef):
            return parent
        if isinstance(parent, (cst.ClassDef, cst.Lambda)):
            return None
    return None


def enclosing_class(ctx, func: cst.FunctionDef) -> Optional[cst.ClassDef]:
    """The class ``func`` is a method of (directly in its body)."""
    for parent in ctx.ancestors_of(func):
        if isinstance(parent, cst.ClassDef):
            return parent
        if isinstance(parent, SCOPE_TYPES):
            return None
    return None


class Callers:
    """Call sites of the module's functions and methods (one per file: ``ctx.shared``)."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.defs: Dict[str, List[cst.FunctionDef]] = {}
        for func in ctx.nodes(cst.FunctionDef):
            self.defs.setdefault(func.name.value, []).append(func)
        self._by_name: Optional[Dict[str, List[cst.Call]]] = None

    def _calls_named(self, name: str) -> List[cst.Call]:
        if self._by_name is None:
            self._by_name = {}
            for call in self.ctx.nodes(cst.Call):
                func = call.func
                key = (
                    func.value
                    if isinstance(func, cst.Name)
                    else func.attr.value
                    if isinstance(func, cst.Attribute)
                    else None
                )
                if key in self.defs:
                    self._by_name.setdefault(key, []).append(call)
        return self._by_name.get(name, [])

    def calls_of(self, func: cst.FunctionDef) -> List[cst.Call]:
        """Calls that run ``func`` (outside ``func`` itself)."""
        name = func.name.value
        unique = len(self.defs.get(name, ())) == 1
        cls = enclosing_class(self.ctx, func)
        out = []
        for call in self._calls_named(name):
            if self._inside(call, func):
                continue
            target = call.func
            if isinstance(target, cst.Name):
                if cls is None and unique:
                    out.append(call)
            elif cls is not None and isinstance(target, cst.Attribute):
                owner = target.value
                if isinstance(owner, cst.Name) and owner.value == "self":
                    if self._in_class(call, cls):
                        out.append(call)
                elif unique and name not in _COMMON_METHODS:
                    out.append(call)
        return out

    def param_for(self, func: cst.FunctionDef, call: cst.Call, param: str):
        """The argument ``call`` passes for ``func``'s parameter ``param``, else None."""
        params = [*func.params.posonly_params, *func.params.params]
        if (
            params
            and params[0].name.value in ("self", "cls")
            and isinstance(call.func, cst.Attribute)
        ):
            params = params[1:]
        position = next((i for i, p in enumerate(params) if p.name.value == param), None)
        for index, arg in enumerate(call.args):
            if arg.star:
                return None
            if arg.keyword is not None:
                if arg.keyword.value == param:
                    return arg.value
            elif index == position:
                return arg.value
        return None

    def _inside(self, node, func) -> bool:
        return any(parent is func for parent in self.ctx.ancestors_of(node))

    def _in_class(self, node, cls) -> bool:
        return any(parent is cls for parent in self.ctx.ancestors_of(node))
