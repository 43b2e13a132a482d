"""Which function of this module a call runs, and where each function is called.

Same module only and without type inference, so only calls whose target the
source names plainly resolve:

- ``step(...)``: a function defined in the module (the last definition
  before the calling statement, as a notebook that redefines it runs);
- ``fn = step; fn(...)``: a name bound to such a function;
- ``self.learn(...)`` in a method: a method of that class or of a base
  class defined in the module;
- ``agent.learn(...)`` / ``self.agent.learn(...)`` where ``agent = Agent(...)``
  builds a class of the module;
- ``fn(...)`` where ``fn`` is a parameter: the functions callers pass as
  that argument (``train(step_fn=train_step)``).
"""

from __future__ import annotations

from typing import Dict, List, Optional

from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted

_MAX_BASES = 5  # depth of base-class chains followed


class CallGraph:
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.functions: Dict[str, List[cst.FunctionDef]] = {}  # plain functions by name
        self.classes: Dict[str, cst.ClassDef] = {}
        self.instances: Dict[str, str] = {}  # receiver (``agent``, ``self.agent``) -> class
        self.aliases: Dict[str, str] = {}  # name -> function name
        self._order = {id(s): i for i, s in enumerate(ctx.module.body)}
        self._callers: Optional[Dict[int, List[cst.Call]]] = None
        for cls in ctx.nodes(cst.ClassDef):
            self.classes.setdefault(cls.name.value, cls)
        for func in ctx.nodes(cst.FunctionDef):
            if self.class_of(func) is None:
                self.functions.setdefault(func.name.value, []).append(func)
        for node in ctx.nodes(cst.Assign):
            self._note_assignment(node)

    def _note_assignment(self, node: cst.Assign) -> None:
        value = node.value
        for target in node.targets:
            name = dotted(target.target)
            if name is None:
                continue
            if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
                if value.func.value in self.classes:
                    self.instances[name] = value.func.value
            elif isinstance(value, cst.Name) and value.value in self.functions:
                self.aliases[name] = value.value

    # -- where things are ------------------------------------------------
    def class_of(self, func: cst.FunctionDef) -> Optional[cst.ClassDef]:
        """The class whose body defines ``func`` directly."""
        block = self.ctx.parent(func)
        owner = self.ctx.parent(block) if block is not None else None
        return owner if isinstance(owner, cst.ClassDef) else None

    def scope_of(self, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
        """The function whose body runs ``node`` (None: module or class level)."""
        for parent in self.ctx.ancestors_of(node):
            if isinstance(parent, cst.FunctionDef):
                return parent
            if isinstance(parent, (cst.ClassDef, cst.Lambda)):
                return None
        return None

    def _top_index(self, node: cst.CSTNode) -> int:
        for parent in [node, *self.ctx.ancestors_of(node)]:
            if id(parent) in self._order:
                return self._order[id(parent)]
        return len(self._order)

    def method(self, class_name: str, name: str, depth: int = 0) -> Optional[cst.FunctionDef]:
        """``class_name.name``, looked up in the class, then its module bases."""
        cls = self.classes.get(class_name)
        if cls is None or depth > _MAX_BASES:
            return None
        for stmt in cls.body.body:
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
                return stmt
        for base in cls.bases:
            if isinstance(base.value, cst.Name):
                found = self.method(base.value.value, name, depth + 1)
                if found is not None:
                    return found
        return None

    # -- resolving calls -------------------------------------------------
    def resolve(self, call: cst.Call) -> Optional[cst.FunctionDef]:
        """The module's function or method ``call`` runs, when the source says."""
        func = call.func
        if isinstance(func, cst.Name):
            name = self.aliases.get(func.value, func.value)
            return self._function(name, call)
        if not isinstance(func, cst.Attribute):
            return None
        receiver = dotted(func.value)
        if receiver == "self":
            cls = self._enclosing_class(call)
            return self.method(cls.name.value, func.attr.value) if cls is not None else None
        if receiver in self.instances:
            return self.method(self.instances[receiver], func.attr.value)
        return None

    def _function(self, name: str, call: cst.Call) -> Optional[cst.FunctionDef]:
        defs = self.functions.get(name)
        if not defs:
            return None
        if len(defs) == 1:
            return defs[0]
        where = self._top_index(call)
        before = [d for d in defs if self._top_index(d) <= where]
        return before[-1] if before else defs[-1]

    def _enclosing_class(self, node: cst.CSTNode) -> Optional[cst.ClassDef]:
        for parent in self.ctx.ancestors_of(node):
            if isinstance(parent, cst.ClassDef):
                return parent
        return None

    # -- callers -----------------------------------------------------------
    def callers(self, func: cst.FunctionDef) -> List[cst.Call]:
        """Calls in this module that run ``func``, directly or through a parameter."""
        if self._callers is None:
            self._callers = self._index_callers()
        return self._callers.get(id(func), [])

    def _index_callers(self) -> Dict[int, List[cst.Call]]:
        index: Dict[int, List[cst.Call]] = {}
        through_params = []
        params = {p.name.value for p in self.ctx.nodes(cst.Param)}
        for call in self.ctx.nodes(cst.Call):
            target = self.resolve(call)
            if target is not None:
                index.setdefault(id(target), []).append(call)
            elif isinstance(call.func, cst.Name) and call.func.value in params:
                through_params.append(call)
        for call in through_params:
            for target in self._passed_functions(call, index):
                index.setdefault(id(target), []).append(call)
        return index

    def _passed_functions(self, call: cst.Call, index) -> List[cst.FunctionDef]:
        """For ``fn(...)`` with ``fn`` a parameter: the functions passed as ``fn``."""
        scope = self.scope_of(call)
        if scope is None:
            return []
        params = [p.name.value for p in scope.params.params]
        assert isinstance(call.func, cst.Name)  # a call through a parameter, by name
        name = call.func.value
        if name not in params and name not in [p.name.value for p in scope.params.kwonly_params]:
            return []
        position = params.index(name) if name in params else None
        out = []
        for site in index.get(id(scope), []):
            arg = _argument(site, name, position, self.class_of(scope) is not None)
            if arg is None:
                continue
            if isinstance(arg, cst.Name) and arg.value in self.functions:
                function = self._function(arg.value, site)
                assert function is not None  # a name in self.functions has a def
                out.append(function)
            elif isinstance(arg, cst.Attribute) and dotted(arg.value) == "self":
                cls = self._enclosing_class(site)
                found = self.method(cls.name.value, arg.attr.value) if cls else None
                if found is not None:
                    out.append(found)
        return out


def _argument(
    call: cst.Call, name: str, position: Optional[int], method: bool
) -> Optional[cst.BaseExpression]:
    """The expression ``call`` passes for parameter ``name`` (at ``position``)."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    if position is None:
        return None
    if method and isinstance(call.func, cst.Attribute):
        position -= 1  # ``obj.m(a)`` passes ``self`` implicitly
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if 0 <= position < len(positional):
        return positional[position].value
    return None
