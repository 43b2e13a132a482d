"""Functions whose every call the module shows.

What a parameter holds can be read from the calls of its function only
when those calls are all there is: the function (or the class, for its
``__init__``, or a method) is never handed on as a callback or a base
class, and nothing but a call refers to it (``trips.parameter_values``).
"""

from __future__ import annotations

from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.semantic import SemanticModel
from tflint_perf.engine import cst


def only_called(ctx, func: cst.FunctionDef) -> bool:
    """A plain function (or a class, for its ``__init__``), or a method, whose
    name is only ever called (never handed on, never imported from: its module
    calls it itself)."""
    sem: SemanticModel = ctx.shared(SemanticModel)
    owner = sem.method_class(func)
    named: cst.CSTNode = func
    if owner is not None and func.name.value == "__init__":
        named = owner  # ``Board(...)`` calls ``Board.__init__``
    elif owner is not None:
        return _method_only_called(ctx, func, owner)
    assert isinstance(named, (cst.FunctionDef, cst.ClassDef))
    found = [
        b
        for b in sem.definitions(named.name.value, sem.scope_of(ctx.parent(named)))
        if b.statement is named
    ]
    if len(found) != 1:
        return False
    for read in sem.references(found[0]):
        call = ctx.parent(read)
        if isinstance(call, cst.Arg) and _is_super(ctx.parent(call)):
            continue  # super(Cls, self): the class named, not handed on
        if not (isinstance(call, cst.Call) and call.func is read):
            return False
    return True


def _method_only_called(ctx, func: cst.FunctionDef, owner: cst.ClassDef) -> bool:
    """A method whose name the module only ever calls (``self.sample(n)``), each
    such call running it: never handed on (``callback=self.sample``), and not a
    hook a base class or a framework may call with values of its own."""
    name = func.name.value
    if name.startswith("__") or not _plain_class(owner):
        return False
    if sum(f.name.value == name for f in ctx.nodes(cst.FunctionDef)) != 1:
        return False  # another class's method of that name: its calls are not told apart
    graph = ctx.shared(CallGraph)
    for node in ctx.nodes(cst.Attribute):
        if node.attr.value != name:
            continue
        call = ctx.parent(node)
        if not (isinstance(call, cst.Call) and call.func is node):
            return False
        if func not in graph.resolve(call):
            return False
    return True


def _plain_class(cls: cst.ClassDef) -> bool:
    """A class with no base but ``object``: no one else's code calls its methods."""
    return all(isinstance(b.value, cst.Name) and b.value.value == "object" for b in cls.bases)


def _is_super(node) -> bool:
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == "super"
    )
