"""The binder: one pass over the statements of a module that bind names,
recording each binding in its scope of the semantic model (``semantic.py``
says what a binding is). Run once, by ``SemanticModel`` as it is built."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Union

from tflint_perf.analysis.scopes import (
    MUTATORS,
    Binding,
    BindingKind,
    Scope,
    ScopeKind,
    first_param,
    leaves,
)
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted

if TYPE_CHECKING:
    from tflint_perf.analysis.semantic import SemanticModel


class Binder:
    """Fills the scopes of ``model``; keeps the bindings by statement and the
    attributes classes get through ``self.<name> = ...``."""

    def __init__(self, model: "SemanticModel") -> None:
        self.model = model
        self.ctx = model.ctx
        self.by_statement: Dict[cst.CSTNode, List[Binding]] = {}
        # class node -> attribute name -> bindings made through ``self.<name> = ...``
        self.class_attributes: Dict[cst.ClassDef, Dict[str, List[Binding]]] = {}
        # attribute name -> bindings made on an object from outside (``agent.model = ...``)
        self.object_attributes: Dict[str, List[Binding]] = {}

    def bind(self) -> None:
        """Every binding of the module, each in its scope."""
        ctx = self.ctx
        scope_types = (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.ListComp, cst.SetComp)
        for node_type in scope_types + (cst.DictComp, cst.GeneratorExp):
            for node in ctx.nodes(node_type):
                self.model.scope(node)
        for node in ctx.nodes(cst.Global):
            self.model.scope_of(node).globals.update(n.name.value for n in node.names)
        for node in ctx.nodes(cst.Nonlocal):
            self.model.scope_of(node).nonlocals.update(n.name.value for n in node.names)
        for node in ctx.nodes(cst.Import):
            self._imports(node)
        for node in ctx.nodes(cst.ImportFrom):
            self._imports(node)
        for node in ctx.nodes(cst.FunctionDef):
            self._bind_name(node.name, node, BindingKind.FUNCTION, node, self.ctx.span(node)[0])
            self._parameters(node, node.params)
        for node in ctx.nodes(cst.Lambda):
            self._parameters(node, node.params)
        for node in ctx.nodes(cst.ClassDef):
            self._bind_name(node.name, node, BindingKind.CLASS, node, self.ctx.span(node)[0])
        for node in ctx.nodes(cst.Assign):
            for target in node.targets:
                self._target(target.target, node, node.value, BindingKind.ASSIGNMENT)
        for node in ctx.nodes(cst.AnnAssign):
            if node.value is not None:
                self._target(node.target, node, node.value, BindingKind.ASSIGNMENT)
        for node in ctx.nodes(cst.AugAssign):
            kind = BindingKind.AUGMENTED if isinstance(node.target, cst.Name) else None
            self._target(node.target, node, node, kind or BindingKind.MUTATION)
        for node in ctx.nodes(cst.NamedExpr):
            self._target(node.target, node, node.value, BindingKind.ASSIGNMENT)
        for node in ctx.nodes(cst.For):
            self._target(node.target, node, None, BindingKind.LOOP_TARGET, source=node.iter)
        for node in ctx.nodes(cst.CompFor):
            self._target(node.target, node, None, BindingKind.LOOP_TARGET, source=node.iter)
        for node in ctx.nodes(cst.WithItem):
            if node.asname is not None:
                self._target(node.asname.name, node, node.item, BindingKind.WITH_TARGET)
        for node in ctx.nodes(cst.ExceptHandler):
            if node.name is not None and isinstance(node.name.name, cst.Name):
                self._bind_name(node.name.name, node, BindingKind.EXCEPT_TARGET, None)
        for node in ctx.nodes(cst.Del):
            for leaf in leaves(node.target):
                if isinstance(leaf, cst.Name):
                    self._bind_name(leaf, node, BindingKind.DELETION, None)
        for node in ctx.nodes(cst.Call):
            self._mutating_call(node)
        for node in ctx.nodes(cst.ClassDef):
            self._class_constants(node)

    def _class_constants(self, cls: cst.ClassDef) -> None:
        """``COPY = 1000`` in a class body is what ``self.COPY`` reads in its
        methods when no method sets ``self.COPY`` (kept to those: where one
        does, the instance's own value is what the code means to follow)."""
        own = self.class_attributes.setdefault(cls, {})
        for name, bindings in self.model.scope(cls).bindings.items():
            if name not in own and all(b.plain for b in bindings):
                own[name] = list(bindings)

    def _add(self, binding: Binding) -> None:
        binding.scope.add(binding)
        self.by_statement.setdefault(binding.statement, []).append(binding)

    def _bind_name(self, name: cst.Name, statement, kind, value, position=None, **extra) -> None:
        scope = self._binding_scope(name, statement)
        if position is None:
            position = self._visible_from(statement)
        self._add(Binding(name.value, kind, scope, name, statement, position, value, **extra))

    def _binding_scope(self, name: cst.Name, statement) -> Scope:
        """Where a name is bound: the scope of its statement; a def/class name in
        the scope around it; a walrus in a comprehension in the scope around that."""
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) and name is statement.name:
            scope = self.model.scope_of(statement)
        else:
            scope = self.model.scope_of(name)
        if isinstance(statement, cst.NamedExpr):
            while scope.kind is ScopeKind.COMPREHENSION and scope.parent is not None:
                scope = scope.parent
        if name.value in scope.globals:
            return self.model.module_scope
        return scope

    def _visible_from(self, statement: cst.CSTNode) -> int:
        """A name bound by ``statement`` is visible to reads after the
        statement's value is computed: after a ``for``'s iterable, after an
        assignment (reads with a greater walk index)."""
        if isinstance(statement, (cst.For, cst.CompFor)):
            return self.ctx.span(statement.iter)[1]
        return self.ctx.span(statement)[1]

    def _imports(self, node: Union[cst.Import, cst.ImportFrom]) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            asname = alias.asname.name if alias.asname is not None else None
            local = asname if isinstance(asname, cst.Name) else None
            if local is None:
                head: cst.BaseExpression = alias.name
                while isinstance(head, cst.Attribute):
                    head = head.value
                local = head if isinstance(head, cst.Name) else None
            if local is None:
                continue
            qualname = self.ctx.imports.qualname(cst.Name(local.value))
            self._bind_name(local, node, BindingKind.IMPORT, None, qualname=qualname)

    def _parameters(self, owner, params: cst.Parameters) -> None:
        scope = self.model.scope(owner)
        position = self.ctx.span(owner)[0]
        every = [*params.posonly_params, *params.params, *params.kwonly_params]
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                every.append(star)
        for param in every:
            self._add(
                Binding(param.name.value, BindingKind.PARAMETER, scope, param.name, param, position)
            )

    def _target(self, target, statement, value, kind, source=None, path=()) -> None:
        """Bindings of an assignment target: names, unpacking, attributes, subscripts."""
        if isinstance(target, cst.Name):
            self._bind_name(target, statement, kind, value, source=source, path=path)
        elif isinstance(target, (cst.Tuple, cst.List)):
            whole = source if source is not None else value
            for index, element in enumerate(target.elements):
                inner = element.value
                part = _element(value, index) if kind is not BindingKind.LOOP_TARGET else None
                if isinstance(element, cst.StarredElement):
                    part = None
                self._target(inner, statement, part, kind, source=whole, path=path + (index,))
        elif isinstance(target, cst.StarredElement):
            self._target(target.value, statement, None, kind, source, path)
        elif isinstance(target, cst.Attribute):
            self._attribute(target, statement, value, kind, source, path)
        elif isinstance(target, cst.Subscript):
            base = target.value
            while isinstance(base, (cst.Subscript, cst.Attribute)):
                base = base.value
            if isinstance(base, cst.Name):
                self._bind_name(base, statement, BindingKind.MUTATION, statement)

    def _attribute(self, target: cst.Attribute, statement, value, kind, source, path) -> None:
        name = dotted(target)
        if name is None:
            return
        scope = self.model.scope_of(target)
        position = self._visible_from(statement)
        if kind is BindingKind.ASSIGNMENT and (value is not None or source is not None):
            # ``self.a, self.b = make()``: an item of what the call returns, as for names
            binding = Binding(name, kind, scope, target, statement, position, value, source, path)
        else:
            binding = Binding(name, BindingKind.MUTATION, scope, target, statement, position)
        self._add(binding)
        owner = self.model.method_class(scope.function) if scope.function is not None else None
        head = name.split(".")
        if owner is not None and len(head) == 2 and head[0] == first_param(scope.function):
            self.class_attributes.setdefault(owner, {}).setdefault(head[1], []).append(binding)
        elif len(head) == 2 and binding.kind is BindingKind.ASSIGNMENT:
            self.object_attributes.setdefault(head[1], []).append(binding)

    def _mutating_call(self, call: cst.Call) -> None:
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in MUTATORS):
            return
        if self.ctx.qualname(func) is not None:
            return  # ``tf.add(x, y)``, ``np.append(a, v)``: a module's function
        receiver = func.value
        while isinstance(receiver, cst.Subscript):
            receiver = receiver.value
        name = dotted(receiver)
        if name is None:
            return
        statement = self.model.statement_of(call)
        scope = self.model.scope_of(call)
        position = self.ctx.span(call)[1]
        node = receiver if isinstance(receiver, (cst.Name, cst.Attribute)) else func
        self._add(Binding(name, BindingKind.MUTATION, scope, node, statement, position, call))


def _element(value, index: int):
    """Element ``index`` of a literal tuple or list value, for unpacking."""
    if isinstance(value, (cst.Tuple, cst.List)) and index < len(value.elements):
        element = value.elements[index]
        if not any(isinstance(e, cst.StarredElement) for e in value.elements):
            return element.value
    return None
