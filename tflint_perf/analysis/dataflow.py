"""Which names a run of statements reads from outside and which it binds.

For moving statements into a function of their own: its parameters are the
names read before the statements bind them, its results the names they bind
that code elsewhere reads. Comprehension and lambda variables stay inside
their expression; nested ``def``/``class`` bodies are not entered.
"""

from __future__ import annotations

from typing import Iterable, List, Set, Tuple, cast

from tflint_perf.engine import cst
from tflint_perf.engine.nodes import node_types
from tflint_perf.engine.walk import children

_SCOPES = cast(
    "tuple[type[cst.FunctionDef], type[cst.ClassDef]]", node_types("FunctionDef", "ClassDef")
)
_COMPREHENSIONS = node_types("ListComp", "SetComp", "GeneratorExp", "DictComp")
_BLOCKS = node_types(
    "BaseSuite",
    "BaseCompoundStatement",
    "SimpleStatementLine",
    "Else",
    "ExceptHandler",
    "Finally",
)


def free_names(node: cst.CSTNode, bound: frozenset = frozenset()) -> List[str]:
    """Variable names ``node`` reads, in order, minus comprehension/lambda
    variables bound inside it (``bound``: names already bound there)."""
    out: List[str] = []
    _free(node, bound, out)
    return out


def _free(node: cst.CSTNode, bound: frozenset, out: List[str]) -> None:
    if isinstance(node, cst.Name):
        if node.value not in bound:
            out.append(node.value)
        return
    if isinstance(node, cst.Attribute):
        _free(node.value, bound, out)
        return
    if isinstance(node, cst.Arg):
        _free(node.value, bound, out)
        return
    if isinstance(node, cst.Lambda):
        inner = bound | {p.name.value for p in node.params.params}
        _free(node.body, frozenset(inner), out)
        return
    if isinstance(node, _COMPREHENSIONS):
        _free_comprehension(node, bound, out)
        return
    if isinstance(node, _SCOPES):
        return
    for child in children(node):
        _free(child, bound, out)


def _free_comprehension(node, bound: frozenset, out: List[str]) -> None:
    comp = node.for_in
    inner = set(bound)
    first = True
    while comp is not None:
        _free(comp.iter, bound if first else frozenset(inner), out)
        first = False
        inner.update(bound_by_target(comp.target))
        for cond in comp.ifs:
            _free(cond.test, frozenset(inner), out)
        comp = comp.inner_for_in
    parts = [node.key, node.value] if isinstance(node, cst.DictComp) else [node.elt]
    for part in parts:
        _free(part, frozenset(inner), out)


def bound_by_target(target: cst.CSTNode) -> List[str]:
    """Names an assignment target binds (``a``, ``(a, b)``, ``*rest``; not ``x.a``)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in bound_by_target(e.value)]
    if isinstance(target, cst.StarredElement):
        return bound_by_target(target.value)
    return []


def statement_flow(stmts: Iterable[cst.CSTNode]) -> Tuple[List[str], Set[str]]:
    """(names read before being bound, in first-read order; names bound)."""
    reads: List[str] = []
    bound: Set[str] = set()
    for stmt in stmts:
        _flow(stmt, reads, bound)
    return list(dict.fromkeys(reads)), bound


def _flow(node: cst.CSTNode, reads: List[str], bound: Set[str]) -> None:
    def read(expr):
        reads.extend(n for n in free_names(expr) if n not in bound)

    if isinstance(node, (cst.SimpleStatementLine, cst.IndentedBlock, cst.SimpleStatementSuite)):
        for stmt in node.body:
            _flow(stmt, reads, bound)
    elif isinstance(node, cst.Assign):
        read(node.value)
        for target in node.targets:
            _bind(target.target, reads, bound)
    elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
        if node.value is not None:
            read(node.value)
        if isinstance(node, cst.AugAssign):
            read(node.target)
        _bind(node.target, reads, bound)
    elif isinstance(node, cst.With):
        for item in node.items:
            read(item.item)
            if item.asname is not None:
                _bind(item.asname.name, reads, bound)
        _flow(node.body, reads, bound)
    elif isinstance(node, cst.For):
        read(node.iter)
        _bind(node.target, reads, bound)
        _flow(node.body, reads, bound)
    elif isinstance(node, _SCOPES):
        bound.add(node.name.value)
    else:
        for child in children(node):
            if isinstance(child, _BLOCKS):
                _flow(child, reads, bound)
            elif not isinstance(child, _SCOPES):
                read(child)


def _bind(target: cst.CSTNode, reads: List[str], bound: Set[str]) -> None:
    for leaf in target_leaves(target):
        if not isinstance(leaf, cst.Name):  # ``x.a = ...`` / ``x[i] = ...`` read ``x``
            reads.extend(n for n in free_names(leaf) if n not in bound)
    bound.update(bound_by_target(target))


def target_leaves(target: cst.CSTNode):
    """The parts of an assignment target: names, attributes, subscripts."""
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from target_leaves(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from target_leaves(target.value)
    else:
        yield target
