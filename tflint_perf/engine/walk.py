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
_reversed_fields: Dict[type, tuple] = {}


def _child_fields(node_type: type) -> tuple:
    names = _fields_by_type.get(node_type)
    if names is None:
        names = tuple(
            f.name
            for f in dataclasses.fields(node_type)
            if f.name not in _SKIPPED_FIELDS and not f.name.startswith("whitespace")
        )
        _fields_by_type[node_type] = names
        _reversed_fields[node_type] = names[::-1]
    return names


# What a field's value is, by its type: NODE, SEQUENCE (a list or tuple, of
# nodes or of tokens) or 0. Dict lookups: CSTNode is an ABC, and isinstance()
# against it is three times slower (its first call per type walks every node
# class, milliseconds at startup).
NODE = 1
SEQUENCE = 2
_shape_of_type: Dict[type, int] = {}


def _learn_shape(value_type: type) -> int:
    if cst.CSTNode in value_type.__mro__:
        shape = NODE
    elif issubclass(value_type, (list, tuple)):
        shape = SEQUENCE
    else:
        shape = 0
    _shape_of_type[value_type] = shape
    return shape


def children(node: cst.CSTNode) -> List[cst.CSTNode]:
    """Child nodes in source order, without whitespace and punctuation."""
    # ``walk`` holds an inlined copy of this loop (it runs once per node): change both.
    out = []
    shape_of = _shape_of_type
    for name in _child_fields(type(node)):
        value = getattr(node, name)
        shape = shape_of.get(type(value))
        if shape is None:
            shape = _learn_shape(type(value))
        if shape == NODE:
            out.append(value)
        elif shape:
            for item in value:
                shape = shape_of.get(type(item))
                if shape is None:
                    shape = _learn_shape(type(item))
                if shape == NODE:
                    out.append(item)
    return out


def descendants(node: cst.CSTNode, skip_scopes: bool = False) -> Iterator[cst.CSTNode]:
    """Every node below ``node``, depth first, in source order.

    With ``skip_scopes``, the bodies of nested functions, lambdas and classes
    are not entered (their code does not run where it is defined).
    """
    stack: list = []
    _push_children(node, stack)
    scopes = (cst.FunctionDef, cst.ClassDef, cst.Lambda) if skip_scopes else ()
    while stack:
        current = stack.pop()
        yield current
        if not (scopes and isinstance(current, scopes)):
            _push_children(current, stack)


def _push_children(node: cst.CSTNode, stack: list) -> None:
    """``children(node)`` pushed onto ``stack`` last to first (popped in order)."""
    shape_of = _shape_of_type
    names = _reversed_fields.get(type(node))
    if names is None:
        _child_fields(type(node))
        names = _reversed_fields[type(node)]
    for name in names:
        value = getattr(node, name)
        shape = shape_of.get(type(value))
        if shape is None:
            shape = _learn_shape(type(value))
        if shape == NODE:
            stack.append(value)
        elif shape:
            for item in reversed(value):
                shape = shape_of.get(type(item))
                if shape is None:
                    shape = _learn_shape(type(item))
                if shape == NODE:
                    stack.append(item)


Hook = Callable[["cst.CSTNode"], object]


_hooks_of: Dict[type, list] = {}  # rule class -> (attr, node class, is a visit) of its hooks


def _hooks(rule_class: type) -> list:
    """The hook methods a rule class defines (``dir()`` once per class, not per file)."""
    found = _hooks_of.get(rule_class)
    if found is None:
        found = []
        for attr in dir(rule_class):
            if attr.startswith("visit_") or attr.startswith("leave_"):
                name = attr[6:]
                node_type = getattr(cst, name, None)
                if not isinstance(node_type, type):
                    raise TypeError(f"{rule_class.__name__}.{attr}: no libcst node {name}")
                found.append((attr, node_type, attr.startswith("visit_")))
        _hooks_of[rule_class] = found
    return found


def dispatch_tables(rules) -> tuple:
    """Maps node class -> visit hooks and node class -> leave hooks."""
    visits: Dict[type, List[Hook]] = {}
    leaves: Dict[type, List[Hook]] = {}
    for rule in rules:
        for attr, node_type, visit in _hooks(type(rule)):
            table = visits if visit else leaves
            table.setdefault(node_type, []).append(getattr(rule, attr))
    return visits, leaves


def replay(visits: dict, by_type: dict, spans: dict) -> None:
    """The visit hooks ``walk`` would call, in its order (pre-order), on a
    module walked before: ``by_type`` and ``spans`` are that walk's."""
    hooked = [node for node_type in visits for node in by_type.get(node_type, ())]
    hooked.sort(key=lambda node: spans[node][0])
    for node in hooked:
        for hook in visits[type(node)]:
            hook(node)


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
    stack: list = [root]
    counter = 0
    if spans is None:
        spans = {}
    # ``children`` inlined (children pushed last to first, so that they are
    # visited first to last), and its lookups held in locals: this loop runs
    # once per node of every module parsed, the cost of a tenth of the run.
    reversed_fields = _reversed_fields
    shape_of = _shape_of_type
    push = stack.append
    pop = stack.pop
    enter = ancestors.append
    while stack:
        node = pop()
        if type(node) is list:  # the span of the node whose subtree is done
            node[1] = counter - 1
            done = ancestors.pop()
            for hook in leaves.get(type(done), ()):
                hook(done)
            continue
        span = spans[node] = [counter, counter]
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
        enter(node)
        push(span)  # popped once the node's subtree is done
        names = reversed_fields.get(node_type)
        if names is None:
            _child_fields(node_type)
            names = reversed_fields[node_type]
        for name in names:
            value = getattr(node, name)
            shape = shape_of.get(type(value))
            if shape is None:
                shape = _learn_shape(type(value))
            if shape == NODE:
                parents[value] = node
                push(value)
            elif shape:
                for item in reversed(value):
                    shape = shape_of.get(type(item))
                    if shape is None:
                        shape = _learn_shape(type(item))
                    if shape == NODE:
                        parents[item] = node
                        push(item)
