"""A fast walk over LibCST trees.

LibCST's own ``visit`` rebuilds every node on the way back up; on real code
that costs most of a parse. Rules here only read the tree, so this walks the
dataclass fields directly, skipping whitespace and punctuation tokens, and
drives every rule's ``visit_<Node>``/``leave_<Node>`` hooks in one pass.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Dict, Iterator, List, Optional

from tflint_perf.engine import cst

# Fields that only ever hold whitespace, comments or punctuation.
_SKIPPED_FIELDS = frozenset(
    {
        "lpar",
        "rpar",
        "comma",
        "semicolon",
        "colon",
        "newline",
        "dot",
        "equal",
        "leading_lines",
        "lines_after_decorators",
        "header",
        "footer",
        "lbracket",
        "rbracket",
        "lbrace",
        "rbrace",
        "trailing_whitespace",
        "whitespace",
        "first_line",
        "empty_lines",
        "indent",
        "arrow",
    }
)
_fields_by_type: Dict[type, tuple] = {}


def _child_fields(node_type: type) -> tuple:
    names = _fields_by_type.get(node_type)
    if names is None:
        names = tuple(
            f.name
            for f in dataclasses.fields(node_type)
            if f.name not in _SKIPPED_FIELDS and not f.name.startswith("whitespace")
        )
        _fields_by_type[node_type] = names
    return names


# type -> whether it is a CSTNode subclass. CSTNode is an ABC: isinstance()
# against it is three times slower than a dict lookup, and its first call per
# type walks every node class (milliseconds at startup).
_is_node_type: Dict[type, bool] = {}


def _learn_type(value_type: type) -> bool:
    flag = _is_node_type[value_type] = cst.CSTNode in value_type.__mro__
    return flag


def children(node: cst.CSTNode) -> List[cst.CSTNode]:
    """Child nodes in source order, without whitespace and punctuation."""
    # ``walk`` holds an inlined copy of this loop (it runs once per node): change both.
    out = []
    is_node = _is_node_type
    for name in _child_fields(type(node)):
        value = getattr(node, name)
        flag = is_node.get(type(value))
        if flag is None:
            flag = _learn_type(type(value))
        if flag:
            out.append(value)
        elif isinstance(value, (list, tuple)):
            for item in value:
                flag = is_node.get(type(item))
                if flag is None:
                    flag = _learn_type(type(item))
                if flag:
                    out.append(item)
    return out


def descendants(node: cst.CSTNode, skip_scopes: bool = False) -> Iterator[cst.CSTNode]:
    """Every node below ``node``, depth first, in source order.

    With ``skip_scopes``, the bodies of nested functions, lambdas and classes
    are not entered (their code does not run where it is defined).
    """
    stack = list(reversed(children(node)))
    while stack:
        current = stack.pop()
        yield current
        if skip_scopes and isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        stack.extend(reversed(children(current)))


Hook = Callable[["cst.CSTNode"], object]


def dispatch_tables(rules) -> tuple:
    """Maps node class -> visit hooks and node class -> leave hooks."""
    visits: Dict[type, List[Hook]] = {}
    leaves: Dict[type, List[Hook]] = {}
    for rule in rules:
        for attr in dir(type(rule)):
            if attr.startswith("visit_"):
                table, name = visits, attr[6:]
            elif attr.startswith("leave_"):
                table, name = leaves, attr[6:]
            else:
                continue
            node_type = getattr(cst, name, None)
            if not isinstance(node_type, type):
                raise TypeError(f"{type(rule).__name__}.{attr}: no libcst node {name}")
            table.setdefault(node_type, []).append(getattr(rule, attr))
    return visits, leaves


def walk(
    root: cst.CSTNode,
    visits: dict,
    leaves: dict,
    parents: dict,
    ancestors: list,
    by_type: dict,
    spans: Optional[dict] = None,
) -> None:
    """One depth-first pass calling the hooks; records each node's parent,
    in ``by_type`` every node under its class in source order, and in
    ``spans`` each node's ``[first, last]`` pre-order index (its own index
    and the last of its subtree): node A contains node B exactly when
    ``first(A) <= first(B) <= last(A)``, and source order is index order.

    Iterative, so deeply nested expressions cannot exhaust the recursion
    limit. ``ancestors`` holds the chain above the node being visited.
    """
    leave_marker = object()
    stack: list = [root]
    counter = 0
    if spans is None:
        spans = {}
    # ``children`` inlined, and its lookups held in locals: this loop runs once
    # per node of every module parsed, the cost of a tenth of the run.
    fields_of = _fields_by_type
    is_node = _is_node_type
    while stack:
        node = stack.pop()
        if node is leave_marker:
            done = ancestors.pop()
            spans[done][1] = counter - 1
            for hook in leaves.get(type(done), ()):
                hook(done)
            continue
        spans[node] = [counter, counter]
        counter += 1
        node_type = type(node)
        same = by_type.get(node_type)
        if same is None:
            by_type[node_type] = [node]
        else:
            same.append(node)
        hooks = visits.get(node_type)
        if hooks is not None:
            for hook in hooks:
                hook(node)
        ancestors.append(node)
        stack.append(leave_marker)
        names = fields_of.get(node_type)
        if names is None:
            names = _child_fields(node_type)
        kids = []
        for name in names:
            value = getattr(node, name)
            flag = is_node.get(type(value))
            if flag is None:
                flag = _learn_type(type(value))
            if flag:
                kids.append(value)
            elif isinstance(value, (list, tuple)):
                for item in value:
                    flag = is_node.get(type(item))
                    if flag is None:
                        flag = _learn_type(type(item))
                    if flag:
                        kids.append(item)
        for kid in kids:
            parents[kid] = node
        kids.reverse()
        stack.extend(kids)
