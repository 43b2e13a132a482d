"""What a loop's iterations pass to each other, read from one scope's bindings.

``ScopeFlow`` records every name a scope (a function body, or the module)
binds, in source order: plain assignments with their value, and the other
ways a name gets a new value (tuple unpacking, ``x[i] = v``, ``x += v``,
``xs.append(v)``, ``for`` targets, ``with ... as``). From that it answers:

- which value a name holds at a point (the last binding before it);
- which names change from one iteration of a loop to the next;
- whether a loop feeds a result back into a later iteration's input
  (autoregressive generation, environment steps): then the iterations
  cannot run as one batch.

No control flow: a binding in either branch of an ``if`` counts. Built on
demand, one walk of the scope (nested functions and classes not entered).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple, Union

from tflint_perf.analysis.loops import COMPREHENSION_TYPES, SCOPE_TYPES, names_used, target_names
from tflint_perf.analysis.steps import _bound_bases
from tflint_perf.engine import cst
from tflint_perf.engine.walk import children

# Methods that change the object they are called on.
MUTATORS = frozenset(
    {"append", "extend", "insert", "add", "update", "appendleft", "extendleft", "put"}
)


@dataclass(frozen=True)
class Binding:
    name: str
    at: int  # walk index where the new value is visible
    value: Optional[cst.BaseExpression]  # the value, for a plain ``name = value``
    deps: frozenset  # names the new value is computed from
    node: cst.CSTNode  # the statement (or loop) that binds


class ScopeFlow:
    """The bindings of one scope, in source order (see the module docstring)."""

    def __init__(self, scope: Union[cst.FunctionDef, cst.Module]) -> None:
        self.spans: Dict[int, Tuple[int, int]] = {}
        self.bindings: Dict[str, List[Binding]] = {}
        self.branches: List[Tuple[int, int, set]] = []  # if statements: span, names tested
        body = scope.body if isinstance(scope, cst.FunctionDef) else scope
        self._walk(children(body) if isinstance(scope, cst.FunctionDef) else scope.body)

    # -- the walk --------------------------------------------------------
    def _walk(self, roots) -> None:
        count = 0
        stack = [(node, False) for node in reversed(list(roots))]
        while stack:
            node, closing = stack.pop()
            if closing:
                start = self.spans[id(node)][0]
                self.spans[id(node)] = (start, count - 1)
                self._bind(node, start, count - 1)
                if isinstance(node, cst.If):
                    self.branches.append((start, count - 1, names_used(node.test)))
                continue
            self.spans[id(node)] = (count, count)
            count += 1
            if isinstance(node, SCOPE_TYPES):
                self._bind(node, count - 1, count - 1)
                continue
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(children(node)))

    def _add(self, name: str, at: int, value, deps, node) -> None:
        self.bindings.setdefault(name, []).append(Binding(name, at, value, frozenset(deps), node))

    def _bind(self, node: cst.CSTNode, start: int, end: int) -> None:
        if isinstance(node, (cst.Assign, cst.AnnAssign)):
            targets = (
                [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            )
            if node.value is None:
                return
            for target in targets:
                self._bind_target(target, node.value, end, node)
        elif isinstance(node, cst.AugAssign):
            for name in _bound_bases(node.target):
                self._add(name, end, None, names_used(node.value) | {name}, node)
        elif isinstance(node, cst.NamedExpr):
            self._bind_target(node.target, node.value, end, node)
        elif isinstance(node, cst.For):
            for name in target_names(node.target):
                self._add(name, start, None, names_used(node.iter), node)
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            for name in _bound_bases(node.asname.name):
                self._add(name, end, None, names_used(node.item), node)
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            self._add(node.name.value, start, None, (), node)
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value in MUTATORS:
                deps = set()
                for arg in node.args:
                    deps |= names_used(arg.value)
                for name in _bound_bases(node.func.value):
                    self._add(name, end, None, deps | {name}, node)

    def _bind_target(self, target, value, at: int, node) -> None:
        if isinstance(target, cst.Name):
            self._add(target.value, at, value, names_used(value), node)
            return
        deps = names_used(value)
        if not isinstance(target, (cst.Tuple, cst.List, cst.StarredElement)):
            deps = deps | names_used(target)  # x[i] = v: the new x depends on i and x
        for name in _bound_bases(target):
            self._add(name, at, None, deps, node)

    # -- questions -------------------------------------------------------
    def span(self, node: cst.CSTNode) -> Optional[Tuple[int, int]]:
        return self.spans.get(id(node))

    def value_at(self, name: cst.Name) -> Optional[cst.BaseExpression]:
        """The value of ``name`` where it is read: its last plain binding before that point."""
        span = self.span(name)
        if span is None:
            return None
        last = None
        for binding in self.bindings.get(name.value, ()):
            if binding.at < span[0]:
                last = binding
        return last.value if last is not None else None

    def in_loop(self, loop: cst.CSTNode) -> List[Binding]:
        """Bindings made by ``loop`` and its body, in source order."""
        span = self.span(loop)
        if span is None:
            return []
        out: List[Binding] = []
        for found in self.bindings.values():
            out.extend(b for b in found if span[0] <= b.at <= span[1])
        out.sort(key=lambda b: b.at)
        return out

    def inputs(self, node: cst.CSTNode, names: set) -> set:
        """``names`` and every name their values are computed from in ``node``
        (a loop of this scope, or the scope itself)."""
        span = self.span(node)
        deps: Dict[str, set] = {}
        for found in self.bindings.values():
            for b in found:
                if span is None or span[0] <= b.at <= span[1]:
                    deps.setdefault(b.name, set()).update(b.deps)
        out = set(names)
        todo = list(names)
        while todo:
            for dep in deps.get(todo.pop(), ()):
                if dep not in out:
                    out.add(dep)
                    todo.append(dep)
        return out

    def varying(self, loop: cst.CSTNode, stable) -> set:
        """Names whose value may differ between iterations of ``loop``.

        A name bound in the loop only to values ``stable(value)`` accepts, from
        names that do not vary, keeps its value: every other binding varies.
        """
        bound = self.in_loop(loop)
        varying = set()
        if isinstance(loop, COMPREHENSION_TYPES):
            for_in: Optional[cst.CompFor] = loop.for_in
            while for_in is not None:
                varying.update(target_names(for_in.target))
                for_in = for_in.inner_for_in
        candidates: Dict[str, list] = {}
        for b in bound:
            if b.value is not None and stable(b.value):
                candidates.setdefault(b.name, []).append(b)
            else:
                varying.add(b.name)
        changed = True
        while changed:
            changed = False
            for name, found in list(candidates.items()):
                if name in varying or any(b.deps & varying for b in found):
                    varying.add(name)
                    del candidates[name]
                    changed = True
        return varying

    def derived(self, loop: cst.CSTNode, result: cst.CSTNode) -> set:
        """Names whose value in ``loop`` is computed from ``result`` (a call in it)."""
        span = self.span(result)
        if span is None:
            return set()
        deps: Dict[str, set] = {}
        derived = set()
        for b in self.in_loop(loop):
            deps.setdefault(b.name, set()).update(b.deps)
            node_span = self.span(b.node)
            if node_span and node_span[0] <= span[0] <= node_span[1] and b.node is not loop:
                derived.add(b.name)
        loop_span = self.span(loop)
        assert loop_span is not None  # the loop holds `result`, which has a span
        branches = [b for b in self.branches if loop_span[0] <= b[0] <= loop_span[1]]
        changed = True
        while changed:
            changed = False
            for name, used in deps.items():
                if name not in derived and used & derived:
                    derived.add(name)
                    changed = True
            # What an `if` on a derived value chooses is derived too.
            for start, end, tested in branches:
                if tested & derived:
                    for b in self.in_loop(loop):
                        if start <= b.at <= end and b.name not in derived:
                            derived.add(b.name)
                            changed = True
        return derived

    def nearest(self, loop: cst.CSTNode, names: set, wanted: set) -> Optional[str]:
        """The name of ``wanted`` nearest to ``names`` along the values they are computed from."""
        deps: Dict[str, set] = {}
        for b in self.in_loop(loop):
            deps.setdefault(b.name, set()).update(b.deps)
        order = sorted(names)
        seen = set(order)
        for name in order:
            if name in wanted:
                return name
            for dep in sorted(deps.get(name, ())):
                if dep not in seen:
                    seen.add(dep)
                    order.append(dep)
        return None
