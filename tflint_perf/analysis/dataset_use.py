"""Is a dataset ever iterated, or only built and shown?

Notebooks and tutorials build pipelines to show what a step does: the
value is displayed, printed or measured, then replaced. No element is
ever produced, so the cost of producing one does not matter.
``iterated`` follows the value of a dataset expression (through method
chains and assignments to plain names, in source order) and answers False
only when every use is such a look; any other use (a loop, even over
``take(1)``, ``fit``, a call, a return, an attribute) counts as iterated;
asked for bulk iteration, peeks (``take(2)``, ``next(iter(ds))``) do not.
A loop that plots or shows each element is a look too.
Read syntactically, on demand: it is asked only about calls a rule would
otherwise report.
"""

from __future__ import annotations

from typing import Dict, List, Optional

from tflint_perf.analysis.dataset_api import DATASET_METHODS, TINY, int_arg
from tflint_perf.analysis.display import shown_each_iteration
from tflint_perf.engine import cst
from tflint_perf.engine.nodes import node_types

_LOOK_CALLS = frozenset({"print", "display", "len", "type", "repr", "str", "isinstance"})
_LOOK_METHODS = frozenset({"cardinality", "element_spec", "output_shapes", "output_types"})
_MAX_DEPTH = 8
_SCOPES = node_types("FunctionDef", "Lambda", "ClassDef")


class DatasetUse:
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self._names: Optional[Dict[str, List[cst.Name]]] = None
        self._bulk = False

    def iterated(self, expr: cst.BaseExpression, bulk: bool = False) -> bool:
        """Whether the dataset ``expr`` evaluates to may be iterated. With
        ``bulk``, a peek (``ds.take(2)``, ``next(iter(ds))``) counts as a look too."""
        self._bulk = bulk
        return self._chain(expr, set(), 0)

    # -- the value of one expression ---------------------------------------
    def _chain(self, node: cst.CSTNode, seen: set, depth: int) -> bool:
        """Climb through method calls on the dataset, then judge where it ends up."""
        ctx = self.ctx
        while True:
            parent = ctx.parent(node)
            if not (isinstance(parent, cst.Attribute) and parent.value is node):
                break
            method = parent.attr.value
            call = ctx.parent(parent)
            if not (isinstance(call, cst.Call) and call.func is parent):
                return method not in _LOOK_METHODS
            if method in _LOOK_METHODS or (self._bulk and method == "take" and _few(call)):
                return False
            if method not in DATASET_METHODS:
                return True  # as_numpy_iterator(), reduce(), make_one_shot_iterator() ...
            node = call
        return self._context(node, seen, depth)

    def _context(self, node: cst.CSTNode, seen: set, depth: int) -> bool:
        parent = self.ctx.parent(node)
        if isinstance(parent, cst.Expr):
            return False  # displayed (a notebook cell's last line) or discarded
        if self._shown(node):
            return False
        if isinstance(parent, cst.Arg) and parent.value is node:
            call = self.ctx.parent(parent)
            name = call.func.value if isinstance(call.func, cst.Name) else None
            if self._bulk and name == "iter" and _is_next_arg(self.ctx, call):
                return False  # next(iter(ds)): one element
            if name == "enumerate" and self._shown(call):
                return False
            return name not in _LOOK_CALLS
        if isinstance(parent, (cst.Assign, cst.AnnAssign)) and parent.value is node:
            targets = (
                [t.target for t in parent.targets]
                if isinstance(parent, cst.Assign)
                else [parent.target]
            )
            if len(targets) == 1 and isinstance(targets[0], cst.Name):
                return self._name(targets[0].value, parent, seen, depth)
        return True

    def _shown(self, node: cst.CSTNode) -> bool:
        """``for x in ds:`` (or ``enumerate(ds)``) whose body plots or shows each
        element: a viewer's pace, not the pipeline's."""
        loop = self.ctx.parent(node)
        return (
            isinstance(loop, cst.For)
            and loop.iter is node
            and shown_each_iteration(self.ctx, loop.body)
        )

    # -- the value bound to a name ---------------------------------------------
    def _name(self, name: str, assign: cst.CSTNode, seen: set, depth: int) -> bool:
        key = (name, id(assign))
        if key in seen:
            return False
        if depth > _MAX_DEPTH:
            return True
        seen.add(key)
        scope = _scope(self.ctx, assign)
        start = self.ctx.position(assign).start
        cut = self._next_binding(name, assign, scope)
        for ref in self._reads(name):
            if _scope(self.ctx, ref) is not scope:
                if not _rebinds(_scope(self.ctx, ref), name):
                    return True  # read in another function: cannot order it
                continue
            pos = self.ctx.position(ref).start
            if (pos.line, pos.column) < (start.line, start.column):
                continue
            if cut is not None and (pos.line, pos.column) >= cut:
                continue
            if self._chain(ref, seen, depth + 1):
                return True
        return False

    def _next_binding(self, name: str, assign: cst.CSTNode, scope):
        """Where the next statement of the same block rebinding ``name`` ends
        (reads after it see the new value), or None."""
        statement = self.ctx.parent(assign)
        block = self.ctx.parent(statement)
        body = getattr(block, "body", None)
        if not isinstance(body, (list, tuple)) or statement not in body:
            return None
        for later in body[body.index(statement) + 1 :]:
            if not isinstance(later, cst.SimpleStatementLine):
                continue
            for small in later.body:
                if isinstance(small, cst.Assign) and any(
                    isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets
                ):
                    end = self.ctx.position(later).end
                    return (end.line, end.column)
        return None

    def _reads(self, name: str) -> List[cst.Name]:
        if self._names is None:
            self._names = {}
            for node in self.ctx.nodes(cst.Name):
                if _is_read(self.ctx, node):
                    self._names.setdefault(node.value, []).append(node)
        return self._names.get(name, [])


def _few(call: cst.Call) -> bool:
    count = int_arg(call)
    return count is not None and count <= TINY


def _is_next_arg(ctx, call: cst.Call) -> bool:
    arg = ctx.parent(call)
    outer = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    return (
        isinstance(outer, cst.Call)
        and isinstance(outer.func, cst.Name)
        and outer.func.value == "next"
    )


def _scope(ctx, node: cst.CSTNode):
    for parent in ctx.ancestors_of(node):
        if isinstance(parent, _SCOPES):
            return parent
    return ctx.module


def _rebinds(scope, name: str) -> bool:
    """``name`` is a parameter of the function ``scope`` (a different variable)."""
    params = getattr(scope, "params", None)
    if params is None:
        return False
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    return any(p.name.value == name for p in every)


def _is_read(ctx, node: cst.Name) -> bool:
    parent = ctx.parent(node)
    if isinstance(parent, cst.Attribute):
        return parent.value is node
    if isinstance(parent, cst.Arg):
        return parent.keyword is not node
    if isinstance(parent, (cst.AssignTarget, cst.Param, cst.AsName, cst.ImportAlias)):
        return False
    if isinstance(parent, (cst.FunctionDef, cst.ClassDef)):
        return parent.name is not node
    if isinstance(parent, (cst.For, cst.CompFor)):
        return parent.target is not node
    return True
