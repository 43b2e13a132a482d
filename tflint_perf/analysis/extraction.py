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

from tflint_perf.analysis.dataflow import bound_by_target, free_names, statement_flow
from tflint_perf.analysis.loops import enumerate_call, range_call, target_names
from tflint_perf.engine import cst
from tflint_perf.engine.rule import Edit
from tflint_perf.engine.walk import descendants

_BUILTINS = frozenset(dir(builtins))
# Calls whose result is a Python number, not a tensor: an argument made of
# one would trace again for every new value.
_PYTHON_VALUES = frozenset({"len", "int", "float", "round", "min", "max", "sum", "abs", "bool"})


@dataclass
class Extraction:
    statements: Sequence[cst.BaseStatement]
    params: List[str] = field(default_factory=list)
    results: List[str] = field(default_factory=list)
    blockers: List[str] = field(default_factory=list)
    local: Set[str] = field(default_factory=set)  # names the statements bind


def plan_extraction(ctx, statements, loops, scope) -> Extraction:
    """What moving ``statements`` (consecutive, in the body of ``loops[0]``)
    into a module-level function needs; ``scope`` is the function around the
    loops, None at module level."""
    reads, bound = statement_flow(statements)
    plan = Extraction(statements, local=bound)
    inside = {id(n) for s in statements for n in [s, *descendants(s)]}
    counters, changed = _loop_names(ctx, loops, inside)
    batch = set(_batch_targets(loops[0])) - counters
    earlier = _bound_before(ctx, loops[0], statements[0], batch)
    local = _scope_locals(scope) if scope is not None else set()
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
    order = _batch_targets(loops[0])
    plan.params.sort(key=lambda n: order.index(n) if n in order else len(order))
    if counted:
        plan.blockers.append(
            f"it uses the loop counter {_names(counted)} (each value traces again)"
        )
    if rebound:
        plan.blockers.append(f"it reads {_names(rebound)}, assigned in the loop")
    if owned:
        plan.blockers.append(
            f"it reads {_names(owned)} of `{scope.name.value}()` (define the function in there)"
        )
    plan.results = _results(ctx, statements, scope, bound)
    return plan


def _names(names: List[str]) -> str:
    shown = [f"`{n}`" for n in names[:3]] + (["..."] if len(names) > 3 else [])
    return ", ".join(shown[:-1]) + " and " + shown[-1] if len(shown) > 1 else shown[0]


def _loop_names(ctx, loops, inside: Set[int]):
    """(counters, names rebound in the loops outside the statements)."""
    counters: Set[str] = set()
    changed: Set[str] = set()
    for index, loop in enumerate(loops):
        if isinstance(loop, cst.For):
            names = target_names(loop.target)
            if index > 0 or range_call(loop.iter) is not None:
                counters.update(names)
            elif enumerate_call(loop.iter) is not None and isinstance(loop.target, cst.Tuple):
                counters.update(target_names(loop.target.elements[0].value))
        for node in descendants(loop.body, skip_scopes=True):
            if id(node) in inside:
                continue
            if isinstance(node, cst.AugAssign):
                counters.update(bound_by_target(node.target))
            elif isinstance(node, cst.Assign):
                for target in node.targets:
                    changed.update(bound_by_target(target.target))
    return counters, changed


def _batch_targets(loop) -> List[str]:
    return target_names(loop.target) if isinstance(loop, cst.For) else []


def _bound_before(ctx, loop, first: cst.CSTNode, batch: Set[str]) -> Set[str]:
    """Names the loop body binds before ``first`` from a call that is not a
    Python-number builtin (``x = tf.reshape(x, ...)``, ``batch = next(it)``)."""
    out: Set[str] = set()
    for stmt in loop.body.body:
        if stmt is first or any(first is n for n in descendants(stmt)):
            break
        for node in descendants(stmt, skip_scopes=True):
            if isinstance(node, cst.Assign) and _tensor_like(node.value):
                for target in node.targets:
                    out.update(bound_by_target(target.target))
    return out


def _tensor_like(value: cst.BaseExpression) -> bool:
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    if isinstance(func, cst.Name) and func.value in _PYTHON_VALUES:
        return False
    return not (isinstance(func, cst.Attribute) and func.attr.value in ("numpy", "item"))


def _scope_locals(scope: cst.FunctionDef) -> Set[str]:
    names = {p.name.value for p in (*scope.params.params, *scope.params.kwonly_params)}
    for extra in (scope.params.star_arg, scope.params.star_kwarg):
        if isinstance(extra, cst.Param):
            names.add(extra.name.value)
    _, bound = statement_flow(scope.body.body)
    return names | bound


def _results(ctx, statements, scope, bound: Set[str]) -> List[str]:
    """Names the statements bind that code after them reads before binding
    again: later in the same bodies, up to the scope, and at the top of the
    enclosing loops' bodies (the next iteration)."""
    reads: List[str] = []
    node, first = statements[-1], statements[0]
    while node is not None and node is not scope and not isinstance(node, cst.Module):
        parent = ctx.parent(node)
        if isinstance(parent, (cst.IndentedBlock, cst.Module)):
            body = list(parent.body)
            start = _index(body, first if node is statements[-1] else node)
            reads += statement_flow(body[_index(body, node) + 1 :])[0]
            owner = ctx.parent(parent)
            if isinstance(owner, (cst.For, cst.While)) and owner.body is parent:
                reads += statement_flow(body[:start])[0]
                if isinstance(owner, cst.While):
                    reads += free_names(owner.test)
        node = parent
    return sorted(set(reads) & bound)


def _index(body: list, node: cst.CSTNode) -> int:
    return next(i for i, stmt in enumerate(body) if stmt is node)


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
