"""What the semantic model is made of: scopes, bindings, their kinds, and the
node groups that open scopes or repeat code (see ``semantic.py``)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Set, cast

from tflint_perf.engine import cst
from tflint_perf.engine.nodes import node_types
from tflint_perf.engine.walk import children


class ScopeKind(enum.Enum):
    MODULE = "module"
    CLASS = "class"
    FUNCTION = "function"
    LAMBDA = "lambda"
    COMPREHENSION = "comprehension"


class BindingKind(enum.Enum):
    IMPORT = "import"
    ASSIGNMENT = "assignment"  # x = v, x: T = v, (x := v); and unpacking
    AUGMENTED = "augmented"  # x += v
    PARAMETER = "parameter"
    LOOP_TARGET = "loop target"  # for x in ..., comprehension targets
    WITH_TARGET = "with target"
    FUNCTION = "function"
    CLASS = "class"
    EXCEPT_TARGET = "except target"
    DELETION = "deletion"
    MUTATION = "mutation"  # xs.append(v), x[i] = v, x.a += v: the object changes


# Methods that change the object they are called on (Python containers).
MUTATORS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "add",
        "update",
        "appendleft",
        "extendleft",
        "put",
        "pop",
        "popleft",
        "remove",
        "discard",
        "clear",
        "setdefault",
    }
)
# Node groups as lazy tuples: naming them does not load LibCST (engine/nodes.py).
SCOPE_NODES = cast(
    "tuple[type[cst.FunctionDef], type[cst.ClassDef], type[cst.Lambda], type[cst.ListComp],"
    " type[cst.SetComp], type[cst.DictComp], type[cst.GeneratorExp]]",
    node_types(
        "FunctionDef", "ClassDef", "Lambda", "ListComp", "SetComp", "DictComp", "GeneratorExp"
    ),
)
COMPREHENSIONS = cast(
    "tuple[type[cst.ListComp], type[cst.SetComp], type[cst.DictComp], type[cst.GeneratorExp]]",
    node_types("ListComp", "SetComp", "DictComp", "GeneratorExp"),
)
LOOPS = cast("tuple[type[cst.For], type[cst.While]]", node_types("For", "While"))
# Statements whose blocks may not run (or run one of several branches).
CONDITIONAL = node_types("If", "Else", "For", "While", "Try", "ExceptHandler", "MatchCase")


@dataclass(eq=False)
class Binding:
    name: str  # ``x``, or a dotted name for an attribute binding (``self.model``)
    kind: BindingKind
    scope: "Scope"
    node: cst.CSTNode  # what is bound: the Name (or Attribute) node, the def, the import alias
    statement: (
        cst.CSTNode
    )  # the binding statement (Assign, For, With, Import, FunctionDef, Param ...)
    position: int  # reads with a greater walk index see the new value
    value: Optional[cst.CSTNode] = None  # the value, where the source shows it
    # For unpacking (``a, b = f()``) and loop targets: the whole value or the
    # iterable, and the path of indexes to this name (``(1,)`` for ``b``).
    source: Optional[cst.BaseExpression] = None
    path: tuple = ()
    qualname: Optional[str] = None  # for imports: the canonical qualified name

    @property
    def plain(self) -> bool:
        """An assignment whose value the source shows: ``name = value``, or
        ``a, b = x, y`` (``b``'s value is ``y``)."""
        return self.kind is BindingKind.ASSIGNMENT and self.value is not None


@dataclass(eq=False)
class Scope:
    kind: ScopeKind
    node: cst.CSTNode  # the Module, ClassDef, FunctionDef, Lambda or comprehension
    parent: Optional["Scope"]
    bindings: Dict[str, List[Binding]] = field(default_factory=dict)
    globals: Set[str] = field(default_factory=set)
    nonlocals: Set[str] = field(default_factory=set)
    children: List["Scope"] = field(default_factory=list)

    def add(self, binding: Binding) -> None:
        self.bindings.setdefault(binding.name, []).append(binding)

    @property
    def function(self) -> Optional[cst.FunctionDef]:
        return self.node if isinstance(self.node, cst.FunctionDef) else None


def all_params(params: cst.Parameters) -> List[cst.Param]:
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    every += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return every


def first_param(func: Optional[cst.FunctionDef]) -> Optional[str]:
    if func is None:
        return None
    params = [*func.params.posonly_params, *func.params.params]
    return params[0].name.value if params else None


def leaves(target) -> Iterable[cst.CSTNode]:
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from leaves(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from leaves(target.value)
    else:
        yield target


def free_names(node: cst.CSTNode, bound: frozenset, out: List[str]) -> None:
    """The reading walk: Names read, skipping attribute names, keywords,
    and names bound inside comprehensions and lambdas."""
    if isinstance(node, cst.Name):
        if node.value not in bound:
            out.append(node.value)
        return
    if isinstance(node, cst.Attribute):
        free_names(node.value, bound, out)
        return
    if isinstance(node, cst.Arg):
        free_names(node.value, bound, out)
        return
    if isinstance(node, cst.Lambda):
        for param in all_params(node.params):  # defaults run where the lambda is made
            if param.default is not None:
                free_names(param.default, bound, out)
        inner = bound | {p.name.value for p in all_params(node.params)}
        free_names(node.body, frozenset(inner), out)
        return
    if isinstance(node, COMPREHENSIONS):
        comp: Optional[cst.CompFor] = node.for_in
        names = set(bound)
        first = True
        while comp is not None:
            free_names(comp.iter, bound if first else frozenset(names), out)
            first = False
            names.update(target_names(comp.target))
            for cond in comp.ifs:
                free_names(cond.test, frozenset(names), out)
            comp = comp.inner_for_in
        parts = [node.key, node.value] if isinstance(node, cst.DictComp) else [node.elt]
        for part in parts:
            free_names(part, frozenset(names), out)
        return
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return
    for child in children(node):
        free_names(child, bound, out)


def is_read(ctx, node: cst.Name) -> bool:
    """A Name that is not a binding's own node reads its name, unless it is an
    attribute's name, a keyword, or part of an import."""
    parent = ctx.parent(node)
    if isinstance(parent, cst.Attribute):
        return parent.value is node
    if isinstance(parent, cst.Arg):
        return parent.keyword is not node
    if isinstance(parent, (cst.ImportAlias, cst.AsName, cst.Param, cst.Global, cst.Nonlocal)):
        return False
    if isinstance(parent, (cst.FunctionDef, cst.ClassDef)):
        return parent.name is not node
    return not isinstance(parent, (cst.NameItem, cst.ImportFrom, cst.Import))


def target_names(target: cst.CSTNode) -> List[str]:
    return [n.value for n in leaves(target) if isinstance(n, cst.Name)]


def declared_type(binding: Binding) -> Optional[cst.BaseExpression]:
    """What a parameter's annotation names (``agent: dqn.DQN``; ``x: np.ndarray`` of
    ``np.ndarray[...]``), as written; None for no annotation or another kind of one."""
    param = binding.statement
    if binding.kind is not BindingKind.PARAMETER or not isinstance(param, cst.Param):
        return None
    annotation = param.annotation.annotation if param.annotation is not None else None
    if isinstance(annotation, cst.Subscript):
        annotation = annotation.value
    return annotation if isinstance(annotation, (cst.Name, cst.Attribute)) else None


def binding_input(binding: Binding) -> Optional[cst.CSTNode]:
    """What a binding's new value is computed from."""
    if binding.source is not None:
        return binding.source
    if binding.value is not None:
        return binding.value
    if binding.kind is BindingKind.MUTATION:
        return binding.statement
    return None
