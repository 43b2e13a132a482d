"""Moving statements of a loop body into a function of their own.

For fixes that turn an inline training step into a compiled step function:
the statements become the body of a new module-level function, placed
before the module-level statement that holds the loop, and the loop calls
it. That keeps behaviour only when every name the statements read is

- a target of the innermost loop that is not a counter (the batch), or a
  name bound earlier in the same iteration by a call (a tensor computed from
  the batch): these become parameters;
- a module-level object (the model, the optimizer) that the loops around the
  statements never rebind: the function reads it as a global.

Counters (``range``/``enumerate`` targets, names ``+=``-ed in the loop,
targets of outer loops), names rebound in the loop, and locals of an
enclosing function block the move. The names the statements bind that code
outside them reads become the function's results.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Set

from tflint_perf.analysis.api import Kind
from tflint_perf.analysis.api.steps import TO_PYTHON_METHODS
from tflint_perf.analysis.semantic import BindingKind, SemanticModel
from tflint_perf.analysis.values import Values
from tflint_perf.engine import cst
from tflint_perf.engine.rule import Edit

_BUILTINS = frozenset(dir(builtins))
# What a name bound earlier in the iteration must not hold to be passed in:
# a Python number or string would trace again for every new value.
_PYTHON_VALUES = (Kind.SCALAR, Kind.STRING)


@dataclass
class Extraction:
    statements: Sequence[cst.BaseStatement]
    params: List[str] = field(default_factory=list)
    results: List[str] = field(default_factory=list)
    blockers: List[str] = field(default_factory=list)
    local: Set[str] = field(default_factory=set)  # names the statements bind


class Extractions:
    """Plans for moving statements into a function (one per file: ``ctx.shared``)."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self.values: Values = ctx.shared(Values)

    def plan(self, statements, loops, scope) -> Extraction:
        """What moving ``statements`` (consecutive, in the body of ``loops[0]``)
        into a module-level function needs; ``scope`` is the function around the
        loops, None at module level."""
        reads, bound = self.flow(statements)
        plan = Extraction(statements, local=bound)
        counters, changed = self._loop_names(loops, statements)
        batch = set(_targets(self.sem, loops[0])) - counters
        earlier = self._bound_before(loops[0], statements[0])
        local = self._scope_locals(scope) if scope is not None else set()
        counted, rebound, owned = [], [], []
        for name in reads:
            if name in batch or name in earlier:
                plan.params.append(name)
            elif name in counters:
                counted.append(name)
            elif name in changed:
                rebound.append(name)
            elif name in local and name not in _BUILTINS:
                owned.append(name)
        order = _targets(self.sem, loops[0])
        plan.params.sort(key=lambda n: order.index(n) if n in order else len(order))
        if counted:
            plan.blockers.append(
                f"it uses the loop counter {_names(counted)} (each value traces again)"
            )
        if rebound:
            plan.blockers.append(f"it reads {_names(rebound)}, assigned in the loop")
        if owned:
            assert scope is not None  # locals come from a function
            plan.blockers.append(
                f"it reads {_names(owned)} of `{scope.name.value}()` (define the function in there)"
            )
        plan.results = self._results(statements, scope, bound)
        return plan

    # -- what the statements read and bind ------------------------------------------
    def flow(self, statements):
        """(names read before the statements bind them, in first-read order; names bound)."""
        reads: List[str] = []
        bound: Set[str] = set()
        for stmt in statements:
            self._flow(stmt, reads, bound)
        return list(dict.fromkeys(reads)), bound

    def _flow(self, node: cst.CSTNode, reads: List[str], bound: Set[str]) -> None:
        sem = self.sem

        def read(expr) -> None:
            if expr is not None:
                reads.extend(n for n in sem.reads(expr) if n not in bound)

        def bind(statement) -> None:
            for binding in sem.bindings_of(statement):
                if binding.kind is not BindingKind.MUTATION and "." not in binding.name:
                    bound.add(binding.name)

        if isinstance(node, (cst.SimpleStatementLine, cst.IndentedBlock, cst.SimpleStatementSuite)):
            for stmt in node.body:
                self._flow(stmt, reads, bound)
        elif isinstance(node, (cst.Assign, cst.AnnAssign)):
            read(node.value)
            targets = node.targets if isinstance(node, cst.Assign) else [node]
            for target in targets:
                for leaf in _leaves(target.target):
                    if not isinstance(leaf, cst.Name):  # ``x.a = v`` / ``x[i] = v`` read ``x``
                        read(leaf)
            bind(node)
        elif isinstance(node, cst.AugAssign):
            read(node.target)
            read(node.value)
            bind(node)
        elif isinstance(node, cst.With):
            for item in node.items:
                read(item.item)
                bind(item)
            self._flow(node.body, reads, bound)
        elif isinstance(node, cst.For):
            read(node.iter)
            bind(node)
            self._flow(node.body, reads, bound)
            if node.orelse is not None:
                self._flow(node.orelse.body, reads, bound)
        elif isinstance(node, (cst.If, cst.While)):
            read(node.test)
            self._flow(node.body, reads, bound)
            if node.orelse is not None:
                self._flow(node.orelse, reads, bound)
        elif isinstance(node, cst.Else):
            self._flow(node.body, reads, bound)
        elif isinstance(node, cst.Try):
            self._flow(node.body, reads, bound)
            for handler in node.handlers:
                read(handler.type)
                bind(handler)
                self._flow(handler.body, reads, bound)
            for part in (node.orelse, node.finalbody):
                if part is not None:
                    self._flow(part.body, reads, bound)
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            bound.add(node.name.value)
        else:
            read(node)

    # -- the loops around them -------------------------------------------------------
    def _loop_names(self, loops, statements):
        """(counters, names rebound in the loops outside the statements)."""
        counters: Set[str] = set()
        changed: Set[str] = set()
        first, last = self.ctx.span(statements[0])[0], self.ctx.span(statements[-1])[1]
        for index, loop in enumerate(loops):
            if isinstance(loop, cst.For):
                if index > 0 or _builtin(loop.iter, "range"):
                    counters.update(_targets(self.sem, loop))
                elif _builtin(loop.iter, "enumerate") and isinstance(loop.target, cst.Tuple):
                    head = loop.target.elements[0].value
                    counters.update(n.value for n in _leaves(head) if isinstance(n, cst.Name))
            for binding in self.sem.bindings_in(loop.body):
                if "." in binding.name or binding.kind is BindingKind.MUTATION:
                    continue
                where = self.ctx.span(binding.statement)[0]
                if first <= where <= last:
                    continue
                if binding.kind is BindingKind.AUGMENTED:
                    counters.add(binding.name)
                elif binding.kind is BindingKind.ASSIGNMENT:
                    changed.add(binding.name)
        return counters, changed

    def _bound_before(self, loop, first: cst.CSTNode) -> Set[str]:
        """Names the loop body binds before ``first`` from a call that gives no
        Python number (``x = tf.reshape(x, ...)``, ``batch = next(it)``)."""
        out: Set[str] = set()
        start = self.ctx.span(first)[0]
        for binding in self.sem.bindings_in(loop.body):
            if self.ctx.span(binding.statement)[0] >= start or not binding.plain:
                continue
            value = binding.value
            if not isinstance(value, cst.Call) or "." in binding.name:
                continue
            func = value.func
            if isinstance(func, cst.Attribute) and func.attr.value in TO_PYTHON_METHODS:
                continue
            if self.values.kind(value) in _PYTHON_VALUES:
                continue
            out.add(binding.name)
        return out

    def _scope_locals(self, scope: cst.FunctionDef) -> Set[str]:
        """Parameters and names the function binds (its own objects)."""
        found = self.sem.scope(scope).bindings.items()
        return {
            name
            for name, bindings in found
            if "." not in name and any(b.kind is not BindingKind.MUTATION for b in bindings)
        }

    def _results(self, statements, scope, bound: Set[str]) -> List[str]:
        """Names the statements bind that code outside them reads (later in the
        scope, or at the top of the loops' next iteration)."""
        ctx = self.ctx
        region = scope.body if scope is not None else ctx.module
        first, last = ctx.span(statements[0])[0], ctx.span(statements[-1])[1]
        ours = {id(b) for stmt in statements for b in self.sem.bindings_in(stmt)}
        targets = {id(b.node) for b in self.sem.bindings_in(region)}
        out: Set[str] = set()
        for name in ctx.nodes(cst.Name):
            if name.value not in bound or name.value in out or id(name) in targets:
                continue
            where = ctx.span(name)[0]
            if first <= where <= last or not ctx.contains(region, name):
                continue
            parent = ctx.parent(name)
            if isinstance(parent, cst.Attribute) and parent.attr is name:
                continue
            if isinstance(parent, cst.Arg) and parent.keyword is name:
                continue
            if any(id(b) in ours for b in self.sem.lookup_name(name)):
                out.add(name.value)
        return sorted(out)


def _names(names: List[str]) -> str:
    shown = [f"`{n}`" for n in names[:3]] + (["..."] if len(names) > 3 else [])
    return ", ".join(shown[:-1]) + " and " + shown[-1] if len(shown) > 1 else shown[0]


def _targets(sem: SemanticModel, loop) -> List[str]:
    """The names a ``for`` loop binds, in order (none for ``while``)."""
    if not isinstance(loop, cst.For):
        return []
    return [b.name for b in sem.bindings_of(loop)]


def _builtin(expr: cst.BaseExpression, name: str) -> bool:
    return (
        isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == name
    )


def _leaves(target: cst.CSTNode):
    """The parts of an assignment target: names, attributes, subscripts."""
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _leaves(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _leaves(target.value)
    else:
        yield target


# -- edits -------------------------------------------------------------------
def extraction_edits(
    ctx, plan: Extraction, name: str, decorator: str, returns: List[str]
) -> Optional[List[Edit]]:
    """Edits defining ``@decorator def name(params)`` before the module-level
    statement that holds the statements, and calling it in their place."""
    top = _top_statement(ctx, plan.statements[0])
    if top is None:
        return None
    body = [plan.statements[0].with_changes(leading_lines=()), *plan.statements[1:]]
    if returns:
        body.append(cst.parse_statement(f"return {', '.join(returns)}"))
    func = cst.FunctionDef(
        name=cst.Name(name),
        params=cst.Parameters(params=[cst.Param(cst.Name(p)) for p in plan.params]),
        body=cst.IndentedBlock(body=body, indent=_indent_unit(ctx, plan.statements[0])),
        decorators=[cst.Decorator(decorator=cst.parse_expression(decorator))],
    )
    definition = ctx.module.code_for_node(func) + "\n\n"
    call = f"{name}({', '.join(plan.params)})"
    if returns:
        call = f"{', '.join(returns)} = {call}"
    start, end = ctx.statement_lines(plan.statements[0], plan.statements[-1])
    indent = ctx.indentation(plan.statements[0])
    where = _first_comment_line(ctx, top)
    if where > 1 and ctx.line_text(where - 1).strip():
        definition = "\n\n" + definition  # two blank lines around a top-level def
    return [
        ctx.insert_lines(where, definition),
        Edit(start, 0, end + 1, 0, f"{indent}{call}\n"),
    ]


def _indent_unit(ctx, stmt: cst.CSTNode) -> Optional[str]:
    """The indentation step of the block holding ``stmt`` (the new body keeps it)."""
    block = ctx.parent(stmt)
    if isinstance(block, cst.IndentedBlock) and block.indent is not None:
        return block.indent
    return None


def _top_statement(ctx, node: cst.CSTNode) -> Optional[cst.CSTNode]:
    top = None
    for parent in [node, *ctx.ancestors_of(node)]:
        if isinstance(parent, cst.Module):
            return top
        top = parent
    return None


def _first_comment_line(ctx, stmt: cst.CSTNode) -> int:
    """The line of the comment block right above ``stmt`` (or its own line)."""
    line = ctx.position(stmt).start.line
    lines = list(getattr(stmt, "leading_lines", ()))
    if isinstance(stmt, cst.FunctionDef) and stmt.decorators:
        line = ctx.position(stmt.decorators[0]).start.line
        lines = list(stmt.decorators[0].leading_lines)
    count = 0
    for empty in reversed(lines):
        comment = empty.comment.value if empty.comment is not None else ""
        if not comment or comment.startswith("# %%"):
            break
        count += 1
    return line - count
