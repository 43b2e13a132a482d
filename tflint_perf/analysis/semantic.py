"""The semantic model of one module: scopes, bindings, references.

Every rule asks the same questions of a module: what does this name hold
here, which names does this statement read or bind, which names change
from one iteration of this loop to the next, which function is this. They
are answered here, once per file (``ctx.shared(SemanticModel)``), from one
pass over the statements that bind names; references are resolved on
demand.

- A *scope* is the module, a class body, a function (or lambda) body, or a
  comprehension. Decorators, default values, annotations, class bases and
  a comprehension's first iterable belong to the enclosing scope, as in
  Python.
- A *binding* is one place a name gets a value, with its kind (import,
  assignment, parameter, loop target, ...), the statement, the value when
  the source shows it, and the walk index from which it is visible.
  ``self.x = v`` in a method also binds the attribute ``x`` of its class;
  ``obj.a = v`` binds the dotted name ``obj.a`` in its scope. Calls that
  change an object in place (``xs.append(v)``), ``x[i] = v`` and ``x += v``
  are bindings of ``x`` too (the object changes), of kind MUTATION.
- A *reference* is a name read. Its reaching bindings are the last binding
  of the name before it in its scope (no control flow: a binding in either
  branch of an ``if`` counts), or, for a free name, the bindings of the
  enclosing function or module scope.

Positions are the engine walk's pre-order indexes (``ctx.span``): source
order, and containment, in O(1).

Scopes and bindings themselves are defined in ``scopes.py``, the pass that
collects the bindings is ``binder.py``; both are imported from here.
"""

from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Set, Tuple, Union, cast

from tflint_perf.analysis.binder import Binder
from tflint_perf.analysis.cell_order import in_cells
from tflint_perf.analysis.scopes import (
    COMPREHENSIONS,
    CONDITIONAL,
    LOOPS,
    MUTATORS,
    SCOPE_NODES,
    Binding,
    BindingKind,
    Scope,
    ScopeKind,
    all_params,
    first_param,
    free_names,
    is_read,
)
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted

__all__ = [
    "COMPREHENSIONS",
    "LOOPS",
    "MUTATORS",
    "SCOPE_NODES",
    "Binding",
    "BindingKind",
    "Scope",
    "ScopeKind",
    "SemanticModel",
]
_opens_scope: Dict[type, bool] = {}  # isinstance(_, SCOPE_NODES) by class, without a call


class SemanticModel:
    """Scopes and bindings of one module (see the module docstring)."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.module_scope = Scope(ScopeKind.MODULE, ctx.module, None)
        self._scopes: Dict[cst.CSTNode, Scope] = {ctx.module: self.module_scope}
        self._scope_of: Dict[cst.CSTNode, Scope] = {}
        self._loops: Dict[cst.CSTNode, Tuple[Union[cst.For, cst.While], ...]] = {}
        self._looked_up: Optional[Dict[cst.CSTNode, List[Binding]]] = None  # lookup_name's
        self._reads_by_name: Optional[Dict[str, List[cst.Name]]] = None  # see references()
        self._in_cells = in_cells(ctx)
        binder = Binder(self)
        binder.bind()
        # class node -> attribute name -> bindings made through ``self.<name> = ...``
        self.class_attributes: Dict[cst.ClassDef, Dict[str, List[Binding]]] = (
            binder.class_attributes
        )
        # attribute name -> bindings made on an object from outside (``agent.model = ...``)
        self.object_attributes: Dict[str, List[Binding]] = binder.object_attributes
        self._by_statement: Dict[cst.CSTNode, List[Binding]] = binder.by_statement
        self._changed: Optional[Dict[str, List[Binding]]] = None  # see changed_in_place()
        for scope in self._scopes.values():
            for found in scope.bindings.values():
                found.sort(key=lambda b: b.position)
        self._looked_up = {}  # the bindings are complete: what a read finds is fixed

    def release(self) -> None:
        """Break the cycles of scopes and bindings (``FileContext.release``)."""
        for scope in self._scopes.values():
            scope.bindings.clear()
            scope.children.clear()
            scope.parent = None

    # -- scopes ---------------------------------------------------------------
    def scope(self, node: cst.CSTNode) -> Scope:
        """The scope a scope node (def, class, lambda, comprehension, module) opens."""
        got = self._scopes.get(node)
        if got is None:
            parent = self.scope_of(node)
            kind = {
                cst.FunctionDef: ScopeKind.FUNCTION,
                cst.ClassDef: ScopeKind.CLASS,
                cst.Lambda: ScopeKind.LAMBDA,
            }.get(type(node), ScopeKind.COMPREHENSION)
            got = self._scopes[node] = Scope(kind, node, parent)
            parent.children.append(got)
        return got

    # -- where things are ----------------------------------------------------
    def scope_of(self, node: cst.CSTNode) -> Scope:
        """The scope whose code evaluates ``node``."""
        got = self._scope_of.get(node)
        if got is not None:
            return got
        # Most nodes are evaluated where their parent is (``_same_scope``): one walk
        # answers for the chain up to a node whose scope is known, or is decided.
        chain = self._chain(node, self._scope_of)
        found = self._scope_of.get(chain[-1]) or self._scope_walk(chain[-1])
        for each in chain:
            self._scope_of[each] = found
        return found

    def _chain(self, node: cst.CSTNode, known: dict) -> List[cst.CSTNode]:
        """``node`` and the ancestors evaluated where it is, up to the first one
        whose answer is in ``known`` or must be found by walking up (the last)."""
        chain, parents = [node], self.ctx.parents
        while True:
            parent = parents.get(node)
            if parent is None or not _same_scope(parent, node):
                return chain
            chain.append(parent)
            if parent in known:
                return chain
            node = parent

    def _scope_walk(self, node: cst.CSTNode) -> Scope:
        below, child = node, node
        found = self.module_scope
        for parent in self.ctx.ancestors_of(node):
            if isinstance(parent, SCOPE_NODES) and _evaluated_inside(parent, child, below, node):
                found = self.scope(parent)
                break
            below, child = child, parent
        return found

    def function_of(self, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
        """The function whose body runs ``node`` (through lambdas and comprehensions)."""
        scope: Optional[Scope] = self.scope_of(node)
        while scope is not None and scope.kind in (ScopeKind.LAMBDA, ScopeKind.COMPREHENSION):
            scope = scope.parent
        return scope.function if scope is not None else None

    def method_class(self, func: Optional[cst.FunctionDef]) -> Optional[cst.ClassDef]:
        """The class whose body defines ``func`` directly."""
        if func is None:
            return None
        scope = self.scope_of(func)
        return scope.node if isinstance(scope.node, cst.ClassDef) else None

    def statement_of(self, node: cst.CSTNode) -> cst.CSTNode:
        """The innermost statement holding ``node`` (a small statement or a compound one)."""
        for parent in [node, *self.ctx.ancestors_of(node)]:
            if isinstance(parent, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
                return parent
        return node

    def loops_around(self, node: cst.CSTNode) -> List[Union[cst.For, cst.While]]:
        """``for``/``while`` loops whose body runs ``node`` in its scope, nearest first."""
        known = self._loops.get(node)
        if known is not None:
            return list(known)
        # As for scope_of: a node in its parent's scope has the parent's loops,
        # and the parent itself when the node is its body.
        chain = self._chain(node, self._loops)
        found = self._loops.get(chain[-1])
        if found is None:
            found = self._loops[chain[-1]] = tuple(self._loops_walk(chain[-1]))
        for child, parent in zip(chain[-2::-1], chain[:0:-1]):
            if isinstance(parent, LOOPS) and (
                child is parent.body or child is getattr(parent, "orelse", None)
            ):
                found = (parent, *found)
            self._loops[child] = found
        return list(found)

    def _loops_walk(self, node: cst.CSTNode) -> List[Union[cst.For, cst.While]]:
        out: List[Union[cst.For, cst.While]] = []
        below, child = node, node
        for parent in self.ctx.ancestors_of(node):
            if isinstance(parent, LOOPS) and (
                child is parent.body or child is getattr(parent, "orelse", None)
            ):
                out.append(parent)
            if isinstance(parent, SCOPE_NODES) and _evaluated_inside(parent, child, below, node):
                break
            below, child = child, parent
        return out

    # -- bindings ------------------------------------------------------------
    def bindings_of(self, statement: cst.CSTNode) -> List[Binding]:
        """The bindings ``statement`` makes (an Assign, For, With item, def, call ...)."""
        return self._by_statement.get(statement, [])

    def names_bound_by(self, node: cst.CSTNode) -> Set[str]:
        """Plain names bound anywhere in ``node`` (nested scopes' own names excluded)."""
        first, last = self.ctx.span(node)
        out: Set[str] = set()
        for scope in self._scopes_in(node):
            for name, found in self._owned(scope):
                if "." in name:
                    continue
                if any(first <= self.ctx.span(b.statement)[0] <= last for b in found):
                    out.add(name)
        return out

    def changed_in_place(self) -> Dict[str, List[Binding]]:
        """Names and attributes the module changes in place anywhere (``xs.append(x)``,
        ``xs += [x]``, ``xs[i] = v``), in any scope, each with those changes."""
        if self._changed is None:
            changes = (BindingKind.MUTATION, BindingKind.AUGMENTED)
            self._changed = {}
            for found in self._by_statement.values():
                for b in found:
                    if b.kind in changes:
                        self._changed.setdefault(b.name, []).append(b)
        return self._changed

    def changed_unseen(self, made: Binding) -> List[Binding]:
        """In-place changes of what ``made`` binds that no read in its own scope sees:
        those a nested function makes to it (``def add(): xs.append(x)``), where
        the nested scope does not bind the name itself."""
        out = []
        for change in self.changed_in_place().get(made.name, ()):
            scope = change.scope
            if scope is made.scope:
                continue
            own = scope.bindings.get(made.name, ())
            if any(b.kind not in (BindingKind.MUTATION, BindingKind.AUGMENTED) for b in own):
                continue
            outer: Optional[Scope] = scope
            while outer is not None and outer is not made.scope:
                outer = outer.parent
            if outer is made.scope:
                out.append(change)
        return out

    def bindings_in(self, region: cst.CSTNode) -> List[Binding]:
        """Bindings made by statements inside ``region`` (a loop, a block), in order,
        in the scope that runs ``region`` (and its comprehensions)."""
        first, last = self.ctx.span(region)
        out: List[Binding] = []
        for scope in self._scopes_in(region):
            for _, found in self._owned(scope):
                out.extend(b for b in found if first <= self.ctx.span(b.statement)[0] <= last)
        out.sort(key=lambda b: b.position)
        return out

    def _owned(self, scope: Scope) -> Iterator[Tuple[str, List[Binding]]]:
        """The bindings a scope's statements make: its own, and those of the names it
        declares ``global`` (kept in the module's scope, where reads find them)."""
        yield from scope.bindings.items()
        if scope is not self.module_scope:
            for name in sorted(scope.globals):
                yield name, self.module_scope.bindings.get(name, [])

    def _scopes_in(self, region: cst.CSTNode) -> Iterator[Scope]:
        """The scope running ``region``, and comprehension scopes inside it."""
        home = self.scope_of(region) if region is not self.ctx.module else self.module_scope
        if isinstance(region, SCOPE_NODES):
            home = self.scope(region)
        yield home
        stack = list(home.children)
        while stack:
            scope = stack.pop()
            if scope.kind is ScopeKind.COMPREHENSION and self.ctx.contains(region, scope.node):
                yield scope
                stack.extend(scope.children)

    def lookup(self, name: str, at: cst.CSTNode) -> List[Binding]:
        """The bindings that may give ``name`` its value where ``at`` reads it.

        In the reading scope: the last binding before ``at`` (and, inside a
        loop, bindings later in the same loop, which reach the next
        iteration). A free name: the bindings of the nearest enclosing
        function, else the module's (all of them: a function runs later).
        A dotted name ``self.x`` in a method also finds ``self.x = ...`` of
        every method of the class and its bases in the module.
        """
        scope = self.scope_of(at)
        position = self.ctx.span(at)[0]
        if name in scope.globals:
            return list(self.module_scope.bindings.get(name, ()))
        found = scope.bindings.get(name)
        if found:
            return self._reaching(found, at, position)
        if "." in name:
            attrs = self._self_attribute(name, scope)
            if attrs:
                return attrs
        outer = scope.parent
        while outer is not None:
            if outer.kind is ScopeKind.CLASS:  # class bodies do not enclose methods
                outer = outer.parent
                continue
            found = outer.bindings.get(name)
            if found and outer is self.module_scope and scope.kind is ScopeKind.COMPREHENSION:
                return self._reaching(found, at, position)
            if found and outer is scope.parent is self.module_scope and self._in_cells:
                return self._at_module_calls(found, scope.node) or list(found)
            if found:
                return list(found)
            outer = outer.parent
        return []

    def _at_module_calls(self, found: List[Binding], func) -> List[Binding]:
        """A notebook function's global: what reaches its calls (``cell_order.py``)."""
        from tflint_perf.analysis.cell_order import module_calls

        calls = module_calls(self, func) if isinstance(func, cst.FunctionDef) else None
        out = [b for c in calls or () for b in self._reaching(found, c, self.ctx.span(c)[0])]
        return list({id(b): b for b in out}.values())

    def _reaching(self, found: List[Binding], at: cst.CSTNode, position: int) -> List[Binding]:
        before = [b for b in found if b.position < position]
        reaching = [before[-1]] if before else []
        # A binding in a block that may not run (an ``if`` branch, a loop body,
        # a ``try``) that does not also hold the read leaves the one before it.
        k = len(before) - 1
        while k > 0 and self._maybe_skipped(before[k].statement, at):
            k -= 1
            reaching.append(before[k])
        sure = before[k] if before and not self._maybe_skipped(before[k].statement, at) else None
        for loop in self.loops_around(at):
            first, last = self.ctx.span(loop)
            if sure is not None and sure.position >= first:
                break  # surely bound earlier in this iteration: the later ones do not reach
            reaching += [b for b in found if position <= b.position <= last]
        return reaching

    def _maybe_skipped(self, statement: cst.CSTNode, at: cst.CSTNode) -> bool:
        """Whether ``statement`` sits in a block that may not run before ``at``."""
        child = statement
        for parent in self.ctx.ancestors_of(statement):
            if isinstance(parent, CONDITIONAL) and child is not getattr(parent, "test", None):
                if not self.ctx.contains(parent, at):
                    return True
            if isinstance(parent, SCOPE_NODES) or self.ctx.contains(parent, at):
                return False
            child = parent
        return False

    def _self_attribute(self, name: str, scope: Scope) -> List[Binding]:
        head, _, attr = name.partition(".")
        func = scope.function
        owner = self.method_class(func) if func is not None else None
        if owner is None or head != first_param(func) or "." in attr:
            return []
        out: List[Binding] = []
        for cls in self.class_and_bases(owner):
            out += self.class_attributes.get(cls, {}).get(attr, [])
        # Another method sees what a method left: not a value it replaced further
        # down the same block (``self.r = [...]``; ``self.r = np.array(self.r)``).
        return [b for b in out if b.scope.function is func or not self._replaced(b, out)]

    def _replaced(self, binding: Binding, others: List[Binding]) -> bool:
        block = self.ctx.parent(self.ctx.parent(binding.statement))
        return any(
            o.kind is BindingKind.ASSIGNMENT
            and o.position > binding.position
            and o.scope is binding.scope
            and self.ctx.parent(self.ctx.parent(o.statement)) is block
            for o in others
        )

    def class_and_bases(self, cls: cst.ClassDef, depth: int = 0) -> List[cst.ClassDef]:
        """``cls`` and its base classes defined in this module, nearest first."""
        out = [cls]
        if depth > 5:
            return out
        for base in cls.bases:
            for binding in self.lookup_name(base.value) if isinstance(base.value, cst.Name) else []:
                if isinstance(binding.statement, cst.ClassDef) and binding.statement is not cls:
                    out += self.class_and_bases(binding.statement, depth + 1)
        return out

    def lookup_name(self, name: cst.BaseExpression) -> List[Binding]:
        """The bindings a Name (or a dotted Attribute chain) read here may come from."""
        known = self._looked_up.get(name) if self._looked_up is not None else None
        if known is None:
            spelled = dotted(name)
            known = self.lookup(spelled, name) if spelled is not None else []
            if self._looked_up is not None:
                self._looked_up[name] = known
        return list(known)

    def origins(self, name: cst.BaseExpression) -> List[Binding]:
        """The bindings that give the object ``name`` reads its identity: as
        ``lookup_name``, but an in-place change (``model.add(layer)``,
        ``xs.append(x)``, ``x[i] = v``) leads back to the bindings reaching it,
        and an alias (``m = model``) to those of the name it copies."""
        out: List[Binding] = []
        todo = list(self.lookup_name(name))
        seen: Set[int] = set()
        while todo and len(seen) < 50:
            binding = todo.pop()
            if id(binding) in seen:
                continue
            seen.add(id(binding))
            if binding.kind is BindingKind.MUTATION and isinstance(
                binding.node, (cst.Name, cst.Attribute)
            ):
                todo.extend(self.lookup(binding.name, binding.node))
                continue
            value = binding.value if binding.plain else None  # ``m = model``: an alias
            copied = self.lookup_name(value) if isinstance(value, cst.Name) else []
            if copied:
                todo.extend(copied)
            else:
                out.append(binding)
        return out

    def value_of(self, name: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """The value ``name`` holds where it is read, when exactly one plain
        binding reaches it (``x = f()`` ... ``x``)."""
        found = self.lookup_name(name)
        if len(found) == 1 and found[0].plain:
            return cast(cst.BaseExpression, found[0].value)  # an assignment's value
        return None

    def origin_value(self, name: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """The value that made the object ``name`` reads, through in-place changes
        (``x = np.zeros((1,)); x[0] = i``): what its shape comes from."""
        found = self.origins(name)
        if len(found) == 1 and found[0].plain:
            return cast(cst.BaseExpression, found[0].value)
        return None

    def definitions(self, name: str, scope: Optional[Scope] = None) -> List[Binding]:
        """Every binding of ``name`` in ``scope`` (the module by default)."""
        return list((scope or self.module_scope).bindings.get(name, ()))

    # -- what code reads -----------------------------------------------------
    def reads(self, node: cst.CSTNode) -> List[str]:
        """Names ``node`` reads, in order (dotted names reduced to their root),
        minus those bound inside it by comprehensions and lambdas."""
        out: List[str] = []
        free_names(node, frozenset(), out)
        return out

    def varying(self, loop: cst.CSTNode, stable=None) -> Set[str]:
        """Names whose value may differ between iterations of ``loop``: every
        name bound in it (targets, assignments, mutations), and names computed
        from those. With ``stable(value)``, a plain assignment of a value it
        accepts from names that do not vary keeps its value."""
        varying: Set[str] = set()
        candidates: Dict[str, List[Binding]] = {}
        for binding in self.bindings_in(loop):
            root = binding.name.split(".", 1)[0]
            if stable is not None and binding.plain and stable(binding.value):
                candidates.setdefault(root, []).append(binding)
            else:
                varying.add(root)
        if isinstance(loop, COMPREHENSIONS):
            for_in: Optional[cst.CompFor] = loop.for_in
            while for_in is not None:
                varying.update(n for n in self.reads(for_in.target))
                for_in = for_in.inner_for_in
        changed = True
        while changed:
            changed = False
            for name, found in list(candidates.items()):
                deps = set().union(*(set(self.reads(b.value)) for b in found if b.value))
                if name in varying or deps & varying:
                    varying.add(name)
                    del candidates[name]
                    changed = True
        return varying

    def derived(self, region: cst.CSTNode, source: cst.CSTNode) -> Set[str]:
        """Names bound in ``region`` whose value is computed from ``source``
        (``dataflow.derived``)."""
        from tflint_perf.analysis.dataflow import derived

        return derived(self, region, source)

    def computed_from(self, region: cst.CSTNode, expr: cst.CSTNode) -> Set[str]:
        """Names ``expr`` is computed from, through the bindings ``region`` makes
        (``x = f(a)`` in the region: ``x`` read by ``expr`` adds ``a``)."""
        names = set(self.reads(expr))
        made: Dict[str, List[Binding]] = {}
        for binding in self.bindings_in(region):
            made.setdefault(binding.name.split(".", 1)[0], []).append(binding)
        todo = list(names)
        while todo:
            for binding in made.get(todo.pop(), ()):
                source = binding.source if binding.source is not None else binding.value
                if source is None:
                    continue
                for name in self.reads(source):
                    if name not in names:
                        names.add(name)
                        todo.append(name)
        return names

    def read_in(self, name: str, region: cst.CSTNode) -> bool:
        """Whether ``region`` reads ``name``."""
        return name in self.reads(region)

    def references(self, binding: Binding) -> List[cst.Name]:
        """The reads of a plain name that ``binding`` may give its value (the
        inverse of ``lookup``): where the value bound there goes next."""
        if self._reads_by_name is None:
            bound = {
                id(b.node) for s in self._scopes.values() for f in s.bindings.values() for b in f
            }
            self._reads_by_name = {}
            for node in self.ctx.nodes(cst.Name):
                if id(node) not in bound and is_read(self.ctx, node):
                    self._reads_by_name.setdefault(node.value, []).append(node)
        return [
            node
            for node in self._reads_by_name.get(binding.name, ())
            if any(found is binding for found in self.lookup(binding.name, node))
        ]


def _same_scope(parent: cst.CSTNode, node: cst.CSTNode) -> bool:
    """Whether ``node`` is evaluated in the scope, and the loops, that evaluate
    ``parent``: not when ``parent`` opens a scope, nor for a parameter's name
    (inside its function) and a comprehension's iterable (maybe outside it),
    where ``_evaluated_inside`` reads the node itself."""
    opens = _opens_scope.get(type(parent))
    if opens is None:
        opens = _opens_scope[type(parent)] = isinstance(parent, SCOPE_NODES)
    if opens:
        return False
    if isinstance(parent, cst.Param):
        return parent.name is not node
    if isinstance(parent, cst.CompFor):
        return parent.iter is not node
    return True


def _evaluated_inside(scope_node, child, below, node) -> bool:
    """Whether ``node``, reached through ``child`` (the scope node's child on
    the path) and ``below`` (that child's child), is code the scope itself
    runs, not code its enclosing scope evaluates."""
    if isinstance(scope_node, cst.FunctionDef):
        if child is scope_node.body:
            return True
        if child is scope_node.params:  # parameter names: inside; defaults, annotations: not
            return isinstance(node, cst.Name) and any(
                p.name is node for p in all_params(scope_node.params)
            )
        return False
    if isinstance(scope_node, cst.Lambda):
        if child is scope_node.body:
            return True
        return child is scope_node.params and any(
            p.name is node for p in all_params(scope_node.params)
        )
    if isinstance(scope_node, cst.ClassDef):
        return child is scope_node.body
    # a comprehension: all but its first iterable
    return not (child is scope_node.for_in and below is scope_node.for_in.iter)
