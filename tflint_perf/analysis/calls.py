"""The call graph of one module: which functions a call runs, who calls a function.

``CallGraph(ctx)`` (``ctx.shared(CallGraph)``) resolves a call through the
semantic model:

- ``step(...)``: the definitions of ``step`` that reach the call (the last
  one before it, as a notebook that redefines a function runs), also
  through aliases (``fn = step``; ``fn(...)``);
- ``C(...)``: ``C.__init__`` of a class of the module;
- ``self.learn(...)``: ``learn`` of the method's class or its bases, and
  the overrides in its subclasses (any may run);
- ``obj.learn(...)`` where ``obj`` is an instance of a class of the module
  (``agent = Agent()``, ``self.agent = Agent()``): that class's method;
- ``fn(...)`` where ``fn`` is a parameter: the functions the callers pass
  for it (``rollout(env, policy)`` with ``policy=greedy``), any depth.

Calls of imported functions resolve through the project index (another
module of the linted tree), not here.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set, cast

from tflint_perf.analysis.semantic import Binding, BindingKind, SemanticModel
from tflint_perf.engine import cst

_MAX_ALIASES = 5
_UNASKED = object()
# Method names too common in other libraries to match through an unknown
# receiver (``sess.run(x)``, ``optimizer.apply(...)``): see ``possible_callers``.
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


class CallGraph:
    def __init__(self, ctx) -> None:
        from tflint_perf.analysis.values import Values

        self.ctx = ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self.values: Values = ctx.shared(Values)
        self._resolved: Dict[cst.Call, List[cst.FunctionDef]] = {}
        self._callers: Optional[Dict[cst.FunctionDef, List[cst.Call]]] = None
        self._subclasses: Optional[Dict[cst.ClassDef, List[cst.ClassDef]]] = None
        self._resolving: Set[cst.Call] = set()
        self._direct: Optional[Dict[cst.FunctionDef, List[cst.Call]]] = None
        self._calls_in: Optional[Dict[Optional[cst.FunctionDef], List[cst.Call]]] = None
        self._by_name: Optional[Dict[str, List[cst.Call]]] = None
        self._defined: Optional[Dict[str, int]] = None
        self.indexing = False  # the index of direct callers is being built
        self.partial_reads = 0  # answers given from it meanwhile
        self._external: Dict[cst.Call, Optional[dict]] = {}
        self._methods: Dict[cst.ClassDef, Dict[str, cst.FunctionDef]] = {}

    # -- resolving a call ----------------------------------------------------
    def resolve(self, call: cst.Call) -> List[cst.FunctionDef]:
        """The functions of this module ``call`` may run (empty when unknown)."""
        found = self._resolved.get(call)
        if found is None:
            if call in self._resolving:
                return []  # a parameter called with a call of itself: no more
            self._resolving.add(call)
            found = self._resolved[call] = self._targets(call.func, call, 0)
            self._resolving.discard(call)
        return found

    def refers_to(self, expr: cst.BaseExpression) -> List[cst.FunctionDef]:
        """The functions of this module a name or attribute denotes where it is
        read without being called (``tf.function(step)``, ``strategy.run(self.step)``)."""
        return self._targets(expr, None, 0)

    def _targets(
        self, func: cst.BaseExpression, call: Optional[cst.Call], depth: int, direct: bool = False
    ) -> List[cst.FunctionDef]:
        """``direct``: not through parameters (what the index of direct callers uses)."""
        if depth > _MAX_ALIASES:
            return []
        if isinstance(func, cst.Name):
            out: List[cst.FunctionDef] = []
            bindings = self.sem.lookup_name(func)
            if any(self._opaque_wrap(b) for b in bindings):
                return []  # ``f = wrap(f)``: what runs is what ``wrap`` returned
            for binding in bindings:
                out += self._binding_targets(binding, call, depth, direct)
            return _unique(out)
        if isinstance(func, cst.Attribute):
            return self._method_targets(func, call, depth, direct)
        return []

    def _opaque_wrap(self, binding: Binding) -> bool:
        """``resize = tffunc(np.float32)(resize)``: the name rebound to what a call of
        code that is no known API made of the function (known wrappers such as
        ``tf.function`` run the function itself)."""
        value = binding.value
        if not binding.plain or not isinstance(value, cst.Call):
            return False
        passes_itself = any(
            isinstance(a.value, cst.Name) and a.value.value == binding.name for a in value.args
        )
        return passes_itself and self.ctx.call_name(value) is None

    def _binding_targets(self, binding: Binding, call, depth: int, direct: bool):
        statement = binding.statement
        if binding.kind is BindingKind.FUNCTION and isinstance(statement, cst.FunctionDef):
            return [statement]
        if binding.kind is BindingKind.CLASS and isinstance(statement, cst.ClassDef):
            init = self.method(statement, "__init__")
            return [init] if init is not None else []
        if binding.plain and isinstance(binding.value, (cst.Name, cst.Attribute)):
            return self._targets(binding.value, call, depth + 1, direct)  # fn = step
        if binding.kind is BindingKind.PARAMETER and not direct:
            return self._passed(binding, depth)
        return []

    def _method_targets(self, func: cst.Attribute, call, depth: int, direct: bool):
        name = func.attr.value
        bound = self.sem.lookup_name(func)  # self.fn = step; self.fn(...)
        if bound:
            out: List[cst.FunctionDef] = []
            for binding in bound:
                out += self._binding_targets(binding, call, depth, direct)
            if out:
                return _unique(out)
        out = []
        for cls in self.values.instance_classes(func.value):  # any of them may run
            found = self.method(cls, name)
            out += [found] if found is not None else []
            if _is_self(func.value, self.sem, cls):
                out += [
                    m
                    for sub in self.subclasses(cls)
                    for m in [self.method(sub, name, own=True)]
                    if m
                ]
        return _unique(out)

    def _passed(self, binding: Binding, depth: int) -> List[cst.FunctionDef]:
        """For a parameter called as a function: what the callers pass for it."""
        func = binding.scope.function
        if func is None:
            return []
        out: List[cst.FunctionDef] = []
        for site in self.direct_callers(func):
            arg = self.argument(site, func, binding.name)
            if isinstance(arg, (cst.Name, cst.Attribute)):
                out += self._targets(arg, site, depth + 1)
        return out

    def external(self, call: cst.Call) -> Optional[dict]:
        """The exported facts of the function of another module of the tree that
        ``call`` runs: an imported function, a class's ``__init__``, or a method
        of an instance of an imported class. None when unknown."""
        # The facts a pass reads are fixed: asked afresh (``Values.settled``),
        # one answer per call.
        known = self._external.get(call, _UNASKED)
        if known is not _UNASKED:
            return known  # type: ignore[return-value]
        found = self._external_facts(call)
        if self.values.settled():
            self._external[call] = found
        return found

    def _external_facts(self, call: cst.Call) -> Optional[dict]:
        func = call.func
        facts = self.values.project_facts(self.ctx.qualname(func))
        if facts is not None:
            if facts.get("kind") == "function":
                return facts
            if facts.get("kind") == "class":
                return facts.get("methods", {}).get("__init__")
            return None
        if isinstance(func, cst.Attribute):
            cls = self.values.external_class(func.value)
            if cls is not None:
                return cls.get("methods", {}).get(func.attr.value)
        return None

    # -- classes ---------------------------------------------------------------
    def method(self, cls: cst.ClassDef, name: str, own: bool = False) -> Optional[cst.FunctionDef]:
        """``cls.name``: defined in the class, else in its bases of this module."""
        for each in [cls] if own else self.sem.class_and_bases(cls):
            found = self._methods.get(each)
            if found is None:  # the class's own methods by name, the first def of each
                found = self._methods[each] = {}
                for stmt in each.body.body:
                    if isinstance(stmt, cst.FunctionDef):
                        found.setdefault(stmt.name.value, stmt)
            if name in found:
                return found[name]
        return None

    def subclasses(self, cls: cst.ClassDef) -> List[cst.ClassDef]:
        """Classes of this module that derive from ``cls`` (any depth)."""
        if self._subclasses is None:
            self._subclasses = {}
            for each in self.ctx.nodes(cst.ClassDef):
                for base in self.sem.class_and_bases(each)[1:]:
                    self._subclasses.setdefault(base, []).append(each)
        return self._subclasses.get(cls, [])

    # -- callers ---------------------------------------------------------------
    def callers(self, func: cst.FunctionDef) -> List[cst.Call]:
        """The calls of this module that may run ``func``."""
        if self._callers is None:
            self._callers = {}
            for call in self.ctx.nodes(cst.Call):
                for target in self.resolve(call):
                    self._callers.setdefault(target, []).append(call)
        return self._callers.get(func, [])

    def direct_callers(self, func: cst.FunctionDef) -> List[cst.Call]:
        """Callers found without following parameters (what parameters are passed).

        While the index is being built (resolving a call may ask what a
        parameter holds, which asks for callers), the calls indexed so far."""
        if self._direct is None:
            self._direct = {}
            self.indexing = True
            try:
                for call in self.ctx.nodes(cst.Call):
                    for target in self._targets(call.func, call, 0, direct=True):
                        self._direct.setdefault(target, []).append(call)
            finally:
                self.indexing = False
        elif self.indexing:
            self.partial_reads += 1
        return self._direct.get(func, [])

    def possible_callers(self, func: cst.FunctionDef) -> List[cst.Call]:
        """``callers``, and for a method, the calls of its name through a receiver
        whose class is unknown (``agent.act(s)``, ``agent`` a parameter) when no
        other function of the module has that name and it is not one every
        library uses (``sess.run(x)`` is not ``def run``): calls that may run it."""
        found = self.callers(func)
        name = func.name.value
        if self.sem.method_class(func) is None or name in _COMMON_METHODS:
            return found
        if self._defined is None:
            self._defined = {}
            for each in self.ctx.nodes(cst.FunctionDef):
                self._defined[each.name.value] = self._defined.get(each.name.value, 0) + 1
            self._by_name = {}
            for call in self.ctx.nodes(cst.Call):
                if isinstance(call.func, cst.Attribute):
                    self._by_name.setdefault(call.func.attr.value, []).append(call)
        if self._defined.get(name) != 1 or self._by_name is None:
            return found
        loose = [
            call
            for call in self._by_name.get(name, ())
            if call not in found
            and not self.resolve(call)
            and self.values.instance_class(cast(cst.Attribute, call.func).value) is None
        ]
        if not loose:
            return found
        return sorted(found + loose, key=lambda call: self.ctx.span(call)[0])

    def argument(
        self, call: cst.Call, func: cst.FunctionDef, param: str
    ) -> Optional[cst.BaseExpression]:
        """The expression ``call`` passes for ``func``'s parameter ``param``."""
        params = [*func.params.posonly_params, *func.params.params]
        if params and _bound_implicitly(call, func, self.sem):
            params = params[1:]
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == param:
                return arg.value
        positional = [a for a in call.args if a.keyword is None]
        for index, p in enumerate(params):
            if p.name.value != param:
                continue
            if any(a.star for a in positional[: index + 1]):
                return None
            return positional[index].value if index < len(positional) else None
        return None

    def calls_in(self, func: Optional[cst.FunctionDef]) -> List[cst.Call]:
        """The calls ``func``'s own body makes (not those of functions inside it;
        its lambdas and comprehensions included); None: the module's own code."""
        if self._calls_in is None:
            self._calls_in = {}
            for call in self.ctx.nodes(cst.Call):
                self._calls_in.setdefault(self.sem.function_of(call), []).append(call)
        return self._calls_in.get(func, [])


def external_argument(call: cst.Call, facts: dict, param: str) -> Optional[cst.BaseExpression]:
    """The expression ``call`` passes for ``param`` of an exported function."""
    params = list(facts.get("params", ()))
    if params and params[0] in ("self", "cls") and isinstance(call.func, cst.Attribute):
        params = params[1:]
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == param:
            return arg.value
    if param not in params:
        return None
    index = params.index(param)
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in positional[: index + 1]) or index >= len(positional):
        return None
    return positional[index].value


def _unique(found: List[cst.FunctionDef]) -> List[cst.FunctionDef]:
    return list(dict.fromkeys(found))


def _is_self(expr, sem: SemanticModel, cls: cst.ClassDef) -> bool:
    """``self`` (the first parameter of a method of ``cls``)."""
    if not isinstance(expr, cst.Name):
        return False
    func = sem.function_of(expr)
    if func is None or sem.method_class(func) is not cls:
        return False
    params = [*func.params.posonly_params, *func.params.params]
    return bool(params) and params[0].name.value == expr.value


def _bound_implicitly(call: cst.Call, func: cst.FunctionDef, sem: SemanticModel) -> bool:
    """``obj.method(a)`` and ``Class(a)`` pass ``self`` themselves."""
    if sem.method_class(func) is None:
        return False
    if any(
        isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod"
        for d in func.decorators
    ):
        return False
    return isinstance(call.func, cst.Attribute) or func.name.value == "__init__"
