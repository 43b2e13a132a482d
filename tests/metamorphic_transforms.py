"""Rewrites of a module that keep its meaning, for tests/test_metamorphic.py.

Each transformation is a LibCST transformer over the parsed module.
``sites(source)`` lists where it applies, as plain values read from the
source alone (which loop, which function), so that a test case (fixture,
transformation, site) always checks the same rewrite; ``apply(source,
site, style)`` returns the rewritten source. ``Style`` carries the choices
that must not matter (the new names, which names to leave alone), drawn by
hypothesis. No sites: the transformation does not apply to the module.

Why each keeps the meaning (where it would not, it does not apply):

- ``rename``: one spelling is replaced everywhere it names something by a
  spelling used nowhere in the module, so scoping is unchanged. Never a
  name the module imports, a builtin, a dunder, ``self``/``cls``, a name
  used as an attribute or a keyword argument anywhere, or spelled in a
  string (``getattr(obj, "x")``, ``f(**{"x": 1})``), nor what a class body
  binds or a method's parameters (other code calls methods and passes
  their arguments by name: Keras calls ``call(inputs, training=...)``).
- ``helper``: a loop's body becomes a function defined just before the
  loop and called in it. The names the body binds are declared ``global``
  (module level) or ``nonlocal`` (in a function, where an annotation-only
  ``name: object`` at its start keeps each one a local without running
  anything), so every read and write reaches the same variable. Not for
  bodies with ``return``, ``yield``, ``await``, ``super()``, ``locals()``,
  or a ``break``/``continue`` of that loop, nor in a function with
  ``global``/``nonlocal`` statements or compiled by ``tf.function``
  (AutoGraph converts the function's own loops, a nested helper's
  differently).
- ``method``: the loop moves into ``run(self)`` of a class defined just
  before it, its body into ``step(self)`` called as ``self.step()`` (the
  parameter is another name when the loop reads a ``self`` of its own),
  and the loop becomes ``runner = Cls(); runner.run()``; names shared the
  same way. Not when the loop's ``else`` or header leaves it.
- ``alias``: after the one statement binding a name (``x = ...``, a
  ``def``, a ``class``), ``x_alias = x``; every other read of ``x`` reads
  the alias. Only names with exactly one binding in the module (no
  parameter, import, loop target or ``global`` of that spelling).
- ``range``: ``range(n)`` is ``range(0, n)`` (the builtin, not rebound).
- ``to_function``: the module's code after its leading imports goes into
  a function called once, declaring ``global`` every name it binds.
- ``to_module``: a function without parameters called once as a
  statement (``main()`` under ``if __name__ == "__main__":``) is replaced
  by its body there; only when none of its names is spelled anywhere else
  (none shadows or clobbers another) and it has no ``return``, ``yield``,
  ``global`` or ``nonlocal``.
- ``split``: the module's functions and classes move to a second module
  (``helpers_mod.py``) with the module's imports; the first imports them
  by name. Only when they read nothing the first module binds.
"""

from __future__ import annotations

import builtins
import collections
import functools
import keyword
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst

BUILTINS = frozenset(dir(builtins))
Loop = Union[cst.For, cst.While]
_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
# Calls that see the scope they run in: moving their code changes what they see.
_SCOPE_READERS = frozenset({"super", "locals", "vars"})


@dataclass(frozen=True)
class Style:
    """Choices that must not change the verdict."""

    opaque: bool = True  # new names say nothing (``v0_3``) or keep the old (``model_3``)
    keep: frozenset = frozenset()  # indexes of names (or calls) left as they are
    tag: int = 0  # a number in the new names


CANONICAL = Style()  # every name renamed, to names that say nothing
SPELLED = Style(opaque=False)  # new names that keep the old spelling (``model_0``, ``step``)


# -- one walk: what the transformations need to know --------------------------------


@dataclass(eq=False)
class LoopFacts:
    node: Loop
    owner: Optional[cst.CSTNode]  # the def, class or lambda around it (None: module level)
    part: str = ""  # while walking: "body", "else" or "header"
    breaks: bool = False  # a break/continue of this loop in its body
    leaves_body: bool = False  # return/yield/await/super()/locals()/global in its body
    leaves_else: bool = False  # ... in its header or else, or a break of an outer loop there


@dataclass(eq=False)
class Scope:
    node: Optional[cst.CSTNode]  # None: the module
    loops: List[LoopFacts] = field(default_factory=list)  # open loops of this scope
    bound: Set[str] = field(default_factory=set)
    returns: bool = False  # return/yield/await in its own code
    declares: bool = False  # global/nonlocal in its own code or in a scope inside it


class Facts(cst.CSTVisitor):
    """Spellings, bindings, loops and scopes, from one walk of the module."""

    def __init__(self) -> None:
        self.scopes: List[Scope] = [Scope(None)]
        self.scope_of: Dict[int, Scope] = {}  # def/class/lambda -> its scope
        self.references: collections.Counter = collections.Counter()  # Names that name things
        self.top_references: Dict[int, collections.Counter] = {}  # per module statement
        self.top: int = -1  # the module statement being walked
        self.strings: Set[str] = set()  # identifiers spelled in strings
        self.imported: Set[str] = set()
        self.attributes: Set[str] = set()
        self.keywords: Set[str] = set()
        self.class_level: Set[str] = set()  # bound in a class body, or a method's parameter
        self.parameters: Set[str] = set()
        self.declared: Set[str] = set()  # in global / nonlocal statements
        self.bindings: Dict[str, List[cst.CSTNode]] = {}  # spelling -> binding nodes
        self.fixed: Set[int] = set()  # Name nodes that name no variable (attributes, keywords)
        self.loops: List[LoopFacts] = []
        self.star_imports: Set[int] = set()  # module statements with ``import *``
        self.inner_bound: Dict[int, Set[str]] = {}  # per module statement: bound in its scopes
        self.module_declares = False  # a global statement at module level

    # -- scopes and loops ---------------------------------------------------
    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, _SCOPES):  # (before its visit_ hook: params bind inside)
            scope = Scope(node)
            self.scope_of[id(node)] = scope
            self.scopes.append(scope)
        go = super().on_visit(node)
        if isinstance(node, (cst.For, cst.While)):
            if not (isinstance(node, cst.For) and node.asynchronous is not None):
                loop = LoopFacts(node, self.scopes[-1].node)
                self.loops.append(loop)
                self.scopes[-1].loops.append(loop)
        return go

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        if isinstance(original_node, _SCOPES):
            self.scopes.pop()
        elif isinstance(original_node, (cst.For, cst.While)):
            loops = self.scopes[-1].loops
            if loops and loops[-1].node is original_node:
                loops.pop()

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        super().on_visit_attribute(node, attribute)
        loops = self.scopes[-1].loops
        if loops and loops[-1].node is node:
            parts = {"body": "body", "orelse": "else"}
            loops[-1].part = parts.get(attribute, "header")

    def _leaves(self) -> None:
        """A return/yield/await or the like: it leaves every open loop of its scope."""
        for loop in self.scopes[-1].loops:
            if loop.part == "body":
                loop.leaves_body = True
            else:
                loop.leaves_else = True

    def _returns(self) -> None:
        self._leaves()
        self.scopes[-1].returns = True

    def visit_Return(self, node: cst.Return) -> None:
        self._returns()

    def visit_Yield(self, node: cst.Yield) -> None:
        self._returns()

    def visit_Await(self, node: cst.Await) -> None:
        self._returns()

    def _break(self) -> None:
        for loop in reversed(self.scopes[-1].loops):
            if loop.part == "body":
                loop.breaks = True
                return
            loop.leaves_else = True  # a break in an else belongs to the loop around

    def visit_Break(self, node: cst.Break) -> None:
        self._break()

    def visit_Continue(self, node: cst.Continue) -> None:
        self._break()

    def _declaration(self, names) -> None:
        self.declared.update(n.name.value for n in names)
        self._leaves()
        if len(self.scopes) == 1:
            self.module_declares = True
        for scope in self.scopes[1:]:  # the function holding it, and those around
            scope.declares = True

    def visit_Global(self, node: cst.Global) -> None:
        self._declaration(node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self._declaration(node.names)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value in _SCOPE_READERS:
            self._leaves()

    # -- names ------------------------------------------------------------------
    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self.fixed:
            self.references[node.value] += 1
            self.top_references.setdefault(self.top, collections.Counter())[node.value] += 1

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        value = node.evaluated_value
        if isinstance(value, str):
            self.strings.update(w for w in value.replace(".", " ").split() if w.isidentifier())

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.attributes.add(node.attr.value)
        self.fixed.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.keywords.add(node.keyword.value)
            self.fixed.add(id(node.keyword))

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        for sub in _names_in(node.name):
            self.fixed.add(id(sub))
        if node.asname is not None and isinstance(node.asname.name, cst.Name):
            self.imported.add(node.asname.name.value)
            self.fixed.add(id(node.asname.name))
        else:
            head = _names_in(node.name)[-1:]
            self.imported.update(n.value for n in head)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            self.star_imports.add(self.top)
        if node.module is not None:
            self.fixed.update(id(sub) for sub in _names_in(node.module))

    # -- bindings ---------------------------------------------------------------
    def visit_For(self, node: cst.For) -> None:
        self._bind_target(node.target, node)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._bind_target(node.target, node, inner=True)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._bind_target(node.target, node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind_target(node.target, node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind_target(node.target, node)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind_target(node.target, node)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._bind_target(node.asname.name, node)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._bind_target(node.name.name, node)

    def visit_Del(self, node: cst.Del) -> None:
        self._bind_target(node.target, node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        # (on_visit has pushed its scope: the name belongs to the scope around)
        outer = self.scopes[-2]
        self._bind(node.name.value, node, outer)
        in_class = isinstance(outer.node, cst.ClassDef)
        if in_class:
            self.class_level.add(node.name.value)
        for param in _params(node.params):
            self.parameters.add(param.name.value)
            self._bind(param.name.value, param)
            if in_class:
                self.class_level.add(param.name.value)

    def visit_Lambda(self, node: cst.Lambda) -> None:
        for param in _params(node.params):
            self.parameters.add(param.name.value)
            self._bind(param.name.value, param)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        outer = self.scopes[-2]
        self._bind(node.name.value, node, outer)
        if isinstance(outer.node, cst.ClassDef):
            self.class_level.add(node.name.value)
        for stmt in node.body.body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    targets = []
                    if isinstance(small, cst.Assign):
                        targets = [t.target for t in small.targets]
                    elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                        targets = [small.target]
                    for target in targets:
                        self.class_level.update(_target_names(target))

    def _bind_target(self, target: cst.CSTNode, node: cst.CSTNode, inner: bool = False) -> None:
        for name in _target_names(target):
            self._bind(name, node, inner=inner)

    def _bind(self, name: str, node: cst.CSTNode, scope: Optional[Scope] = None, inner=False):
        self.bindings.setdefault(name, []).append(node)
        scope = scope or self.scopes[-1]
        scope.bound.add(name)
        if inner or scope.node is not None:
            self.inner_bound.setdefault(self.top, set()).add(name)


@functools.lru_cache(maxsize=None)
def parsed(source: str) -> Tuple[cst.Module, Facts]:
    """The module and its facts, once per source (LibCST nodes are immutable:
    every transformation starts from the same tree)."""
    module = cst.parse_module(source)
    facts = Facts()
    for index, stmt in enumerate(module.body):
        facts.top = index
        stmt.visit(facts)
    return module, facts


def _names_in(expr: cst.CSTNode) -> List[cst.Name]:
    """The names of a dotted name, last part first (``a.b.c``: c, b, a)."""
    out: List[cst.Name] = []
    while isinstance(expr, cst.Attribute):
        out.append(expr.attr)
        expr = expr.value
    if isinstance(expr, cst.Name):
        out.append(expr)
    return out


def _params(params: cst.Parameters) -> List[cst.Param]:
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    every += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return every


def _target_names(target: cst.CSTNode) -> List[str]:
    """Plain names a target binds (``x``, ``a, (b, *c)``; not ``x[i]`` or ``x.a``)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _target_names(e.value)]
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return []


def fresh(facts: Facts, base: str, taken: Set[str]) -> str:
    """``base`` or ``base_1``, ``base_2`` ...: spelled nowhere in the module."""
    k = 0
    while True:
        name = base if k == 0 else f"{base}_{k}"
        if (
            name not in facts.references
            and name not in facts.attributes
            and name not in facts.keywords
            and name not in facts.imported
            and name not in facts.strings
            and name not in taken
            and name not in BUILTINS
            and not keyword.iskeyword(name)
        ):
            taken.add(name)
            return name
        k += 1


class _Bound(cst.CSTVisitor):
    """Names some statements bind in their own scope, in order (nested
    scopes' own names and comprehension targets aside; walrus included)."""

    def __init__(self) -> None:
        self.names: List[str] = []

    def _add(self, names) -> None:
        self.names.extend(n for n in names if n not in self.names)

    def visit_FunctionDef(self, node) -> bool:
        self._add([node.name.value])
        return False

    def visit_ClassDef(self, node) -> bool:
        self._add([node.name.value])
        return False

    def visit_Lambda(self, node) -> bool:
        return False

    def visit_AssignTarget(self, node) -> None:
        self._add(_target_names(node.target))

    def visit_AnnAssign(self, node) -> None:
        if node.value is not None:
            self._add(_target_names(node.target))

    def visit_AugAssign(self, node) -> None:
        self._add(_target_names(node.target))

    def visit_NamedExpr(self, node) -> None:
        self._add(_target_names(node.target))

    def visit_For(self, node) -> None:
        self._add(_target_names(node.target))

    def visit_WithItem(self, node) -> None:
        if node.asname is not None:
            self._add(_target_names(node.asname.name))

    def visit_ExceptHandler(self, node) -> None:
        if node.name is not None:
            self._add(_target_names(node.name.name))

    def visit_Del(self, node) -> None:
        self._add(_target_names(node.target))

    def visit_ImportAlias(self, node) -> None:
        if node.asname is not None:
            self._add(_target_names(node.asname.name))
        else:
            self._add([n.value for n in _names_in(node.name)[-1:]])


class _Spelled(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: Set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def _spelled(node: cst.CSTNode) -> Set[str]:
    visitor = _Spelled()
    node.visit(visitor)
    return visitor.names


def bound_by(nodes: Sequence[cst.CSTNode]) -> List[str]:
    visitor = _Bound()
    for node in nodes:
        node.visit(visitor)
    return visitor.names


def _statements(body: cst.BaseSuite) -> List[cst.BaseStatement]:
    if isinstance(body, cst.IndentedBlock):
        return list(body.body)
    return [cst.SimpleStatementLine(body=list(body.body))]


def _is_docstring(stmt: cst.CSTNode) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _call_statement(func: cst.BaseExpression) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Expr(cst.Call(func))])


def _declare(names: Sequence[str], module_level: bool) -> List[cst.BaseStatement]:
    if not names:
        return []
    items = [cst.NameItem(cst.Name(n)) for n in names]
    small = cst.Global(items) if module_level else cst.Nonlocal(items)
    return [cst.SimpleStatementLine([small])]


# -- rename -------------------------------------------------------------------------


def rename_candidates(facts: Facts) -> List[str]:
    """The module's own names that can be renamed (see the module docstring)."""
    return [
        name
        for name in sorted(facts.bindings)
        if name not in facts.imported
        and name not in BUILTINS
        and name not in facts.attributes
        and name not in facts.keywords
        and name not in facts.class_level
        and name not in facts.strings
        and name not in ("self", "cls")
        and not (name.startswith("__") and name.endswith("__"))
    ]


class _Renamer(cst.CSTTransformer):
    def __init__(self, mapping: Dict[str, str], fixed: Set[int]) -> None:
        self.mapping = mapping
        self.fixed = fixed

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        new = self.mapping.get(original.value)
        if new is None or id(original) in self.fixed:
            return updated
        return updated.with_changes(value=new)


def rename(source: str, site: object, style: Style) -> str:
    module, facts = parsed(source)
    taken: Set[str] = set()
    mapping = {}
    for index, name in enumerate(rename_candidates(facts)):
        if index not in style.keep:
            base = f"v{style.tag}_{index}" if style.opaque else f"{name}_{style.tag}"
            mapping[name] = fresh(facts, base, taken)
    return module.visit(_Renamer(mapping, facts.fixed)).code


def rename_sites(source: str) -> List[object]:
    return ["all"] if rename_candidates(parsed(source)[1]) else []


# -- range(n) -> range(0, n) ------------------------------------------------------------


class _Ranges(cst.CSTVisitor):
    def __init__(self) -> None:
        self.calls: List[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        if (
            isinstance(node.func, cst.Name)
            and node.func.value == "range"
            and len(node.args) == 1
            and node.args[0].keyword is None
            and not node.args[0].star
        ):
            self.calls.append(node)


@functools.lru_cache(maxsize=None)
def _range_calls(source: str) -> List[cst.Call]:
    module, facts = parsed(source)
    if "range" in facts.bindings or "range" in facts.imported:
        return []  # not the builtin
    finder = _Ranges()
    module.visit(finder)
    return finder.calls


class _RangeStart(cst.CSTTransformer):
    def __init__(self, calls: Set[int]) -> None:
        self.calls = calls

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if id(original) not in self.calls:
            return updated
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        return updated.with_changes(args=[cst.Arg(cst.Integer("0"), comma=comma), *updated.args])


def range_start(source: str, site: object, style: Style) -> str:
    module, _ = parsed(source)
    calls = _range_calls(source)
    chosen = {id(c) for i, c in enumerate(calls) if i not in style.keep}
    return module.visit(_RangeStart(chosen)).code


def range_sites(source: str) -> List[object]:
    return ["all"] if _range_calls(source) else []


# -- loops: a body into a helper, a loop into a method ------------------------------------


def _compiled(func: cst.FunctionDef) -> bool:
    for decorator in func.decorators:
        target = decorator.decorator
        if isinstance(target, cst.Call):
            target = target.func
        names = _names_in(target)
        if names and names[0].value == "function":  # tf.function, tensorflow.function
            return True
    return False


def _movable(facts: Facts) -> List[LoopFacts]:
    """Loops whose body can move into a function of the same scope."""
    out = []
    for loop in facts.loops:
        owner = loop.owner
        if owner is not None and not isinstance(owner, cst.FunctionDef):
            continue  # in a class body or a lambda
        if isinstance(owner, cst.FunctionDef):
            if _compiled(owner) or facts.scope_of[id(owner)].declares:
                continue
        if not (loop.breaks or loop.leaves_body):
            out.append(loop)
    return out


def loop_sites(source: str) -> List[object]:
    _, facts = parsed(source)
    return [facts.loops.index(loop) for loop in _movable(facts)]


def method_sites(source: str) -> List[object]:
    _, facts = parsed(source)
    return [facts.loops.index(loop) for loop in _movable(facts) if not loop.leaves_else]


class _LoopRewrite(cst.CSTTransformer):
    """Replace one loop statement by new statements and declare, at the start
    of its function, the names the moved code binds as locals."""

    def __init__(self, loop: Loop, owner, make: Callable, declare: Sequence[str]) -> None:
        self.loop = loop
        self.owner = owner
        self.make = make
        self.declare = declare

    def leave_For(self, original, updated):
        return self._replace(original, updated)

    def leave_While(self, original, updated):
        return self._replace(original, updated)

    def _replace(self, original, updated):
        if original is not self.loop:
            return updated
        return cst.FlattenSentinel(self.make(updated))

    def leave_FunctionDef(self, original, updated):
        if original is not self.owner or not self.declare:
            return updated
        object_ = cst.Annotation(cst.Name("object"))
        decls = [
            cst.SimpleStatementLine([cst.AnnAssign(cst.Name(n), object_, value=None)])
            for n in self.declare
        ]
        body = list(updated.body.body)
        start = 1 if body and _is_docstring(body[0]) else 0
        return updated.with_changes(
            body=updated.body.with_changes(body=[*body[:start], *decls, *body[start:]])
        )


def _locals_to_declare(owner, names: Sequence[str]) -> List[str]:
    """In a function: the moved names to keep local to it (not its parameters)."""
    if owner is None:
        return []
    params = {p.name.value for p in _params(owner.params)}
    return [n for n in names if n not in params]


def _loop_at(facts: Facts, site: object) -> LoopFacts:
    return facts.loops[site]  # type: ignore[index]


def helper(source: str, site: object, style: Style) -> str:
    module, facts = parsed(source)
    place = _loop_at(facts, site)
    bound = bound_by(_statements(place.node.body))
    name = fresh(facts, f"h{style.tag}_" if style.opaque else "loop_body", set())

    def make(loop):
        func = cst.FunctionDef(
            name=cst.Name(name),
            params=cst.Parameters(),
            body=cst.IndentedBlock(
                [*_declare(bound, place.owner is None), *_statements(loop.body)]
            ),
        )
        call = cst.IndentedBlock([_call_statement(cst.Name(name))])
        return [func, loop.with_changes(body=call)]

    declare = _locals_to_declare(place.owner, bound)
    return module.visit(_LoopRewrite(place.node, place.owner, make, declare)).code


def method(source: str, site: object, style: Style) -> str:
    module, facts = parsed(source)
    place = _loop_at(facts, site)
    loop = place.node
    in_body = bound_by(_statements(loop.body))
    header: List[str] = []
    if isinstance(loop, cst.For):
        header += _target_names(loop.target)
    header += bound_by([loop.iter if isinstance(loop, cst.For) else loop.test])
    if loop.orelse is not None:
        header += bound_by(_statements(loop.orelse.body))
    header = list(dict.fromkeys(header))
    taken: Set[str] = set()
    cls = fresh(facts, f"C{style.tag}_" if style.opaque else "LoopRunner", taken)
    runner = fresh(facts, f"r{style.tag}_" if style.opaque else "runner", taken)
    step_name = fresh(facts, f"f{style.tag}_" if style.opaque else "step", taken)
    run_name = fresh(facts, f"g{style.tag}_" if style.opaque else "run", taken)
    # ``self``, unless the loop reads a ``self`` of its own that it would hide
    me = "self" if "self" not in _spelled(loop) else fresh(facts, "obj", taken)
    module_level = place.owner is None

    def make(updated):
        param = cst.Parameters([cst.Param(cst.Name(me))])
        step = cst.FunctionDef(
            name=cst.Name(step_name),
            params=param,
            body=cst.IndentedBlock([*_declare(in_body, module_level), *_statements(updated.body)]),
        )
        call_step = _call_statement(cst.Attribute(cst.Name(me), cst.Name(step_name)))
        inner = updated.with_changes(body=cst.IndentedBlock([call_step]))
        run = cst.FunctionDef(
            name=cst.Name(run_name),
            params=param,
            body=cst.IndentedBlock([*_declare(header, module_level), inner]),
        )
        klass = cst.ClassDef(name=cst.Name(cls), body=cst.IndentedBlock([step, run]))
        make_runner = cst.SimpleStatementLine(
            [cst.Assign([cst.AssignTarget(cst.Name(runner))], cst.Call(cst.Name(cls)))]
        )
        return [
            klass,
            make_runner,
            _call_statement(cst.Attribute(cst.Name(runner), cst.Name(run_name))),
        ]

    declare = _locals_to_declare(place.owner, list(dict.fromkeys([*in_body, *header])))
    return module.visit(_LoopRewrite(loop, place.owner, make, declare)).code


# -- read through an alias -----------------------------------------------------------------


def alias_candidates(facts: Facts) -> List[str]:
    out = []
    for name, nodes in sorted(facts.bindings.items()):
        if (
            len(nodes) != 1
            or name in facts.imported
            or name in facts.declared
            or name in facts.class_level
            or name in facts.parameters
            or name in BUILTINS
        ):
            continue
        node = nodes[0]
        if isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Name):
            out.append(name)
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            out.append(name)
    return out


class _Alias(cst.CSTTransformer):
    def __init__(self, names: Dict[str, str], facts: Facts) -> None:
        self.names = names
        self.fixed = facts.fixed
        self.binders: Dict[int, str] = {}  # the binding node -> the name it binds
        self.definers: Set[int] = set()  # the Name nodes that bind (left as they are)
        for name in names:
            node = facts.bindings[name][0]
            self.binders[id(node)] = name
            self.definers.add(id(node.target if isinstance(node, cst.AssignTarget) else node.name))

    def leave_Name(self, original, updated):
        alias = self.names.get(original.value)
        if alias is None or id(original) in self.fixed or id(original) in self.definers:
            return updated
        return updated.with_changes(value=alias)

    def _then_alias(self, updated, bound: List[str]):
        if not bound:
            return updated
        lines = [
            cst.SimpleStatementLine(
                [cst.Assign([cst.AssignTarget(cst.Name(self.names[n]))], cst.Name(n))]
            )
            for n in bound
        ]
        return cst.FlattenSentinel([updated, *lines])

    def leave_SimpleStatementLine(self, original, updated):
        bound = []
        for small in original.body:
            if isinstance(small, cst.Assign):
                bound += [self.binders[id(t)] for t in small.targets if id(t) in self.binders]
        return self._then_alias(updated, bound)

    def leave_FunctionDef(self, original, updated):
        return self._then_alias(
            updated, [self.binders[id(original)]] if id(original) in self.binders else []
        )

    def leave_ClassDef(self, original, updated):
        return self._then_alias(
            updated, [self.binders[id(original)]] if id(original) in self.binders else []
        )


def alias(source: str, site: object, style: Style) -> str:
    module, facts = parsed(source)
    taken: Set[str] = set()
    names = {}
    for index, name in enumerate(alias_candidates(facts)):
        if index not in style.keep:
            base = f"a{style.tag}_{index}" if style.opaque else f"{name}_alias"
            names[name] = fresh(facts, base, taken)
    return module.visit(_Alias(names, facts)).code


def alias_sites(source: str) -> List[object]:
    return ["all"] if alias_candidates(parsed(source)[1]) else []


# -- module-level code into a function, and a function back into the module ---------------


def _leading(body: Sequence[cst.BaseStatement]) -> int:
    """How many statements open the module: its docstring and imports."""
    k = 0
    while k < len(body):
        stmt = body[k]
        if k == 0 and _is_docstring(stmt):
            k += 1
        elif isinstance(stmt, cst.SimpleStatementLine) and all(
            isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body
        ):
            k += 1
        else:
            break
    return k


def _has_code(stmts: Sequence[cst.BaseStatement]) -> bool:
    return any(not isinstance(s, (cst.FunctionDef, cst.ClassDef)) for s in stmts)


def to_function_sites(source: str) -> List[object]:
    module, facts = parsed(source)
    k = _leading(module.body)
    if not _has_code(module.body[k:]):
        return []
    if any(index >= k for index in facts.star_imports):
        return []  # ``import *`` is not allowed in a function
    if facts.module_declares:
        return []  # a module-level global statement
    return ["module"]


def to_function(source: str, site: object, style: Style) -> str:
    module, facts = parsed(source)
    k = _leading(module.body)
    rest = list(module.body[k:])
    name = fresh(facts, f"m{style.tag}_" if style.opaque else "module_code", set())
    two = [cst.EmptyLine(), cst.EmptyLine()]
    func = cst.FunctionDef(
        name=cst.Name(name),
        params=cst.Parameters(),
        body=cst.IndentedBlock([*_declare(bound_by(rest), True), *rest]),
        leading_lines=two,
    )
    call = _call_statement(cst.Name(name)).with_changes(leading_lines=two)
    return module.with_changes(body=[*module.body[:k], func, call]).code


def _statement_call(stmt: cst.CSTNode, name: str) -> bool:
    """``name()`` as a whole statement."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
        return False
    expr = stmt.body[0]
    return (
        isinstance(expr, cst.Expr)
        and isinstance(expr.value, cst.Call)
        and isinstance(expr.value.func, cst.Name)
        and expr.value.func.value == name
        and not expr.value.args
    )


def _inline_plan(source: str) -> List[Tuple[cst.FunctionDef, cst.SimpleStatementLine]]:
    """A function without parameters called once as a statement after it (at
    module level or in a module-level ``if``) whose names are its own."""
    module, facts = parsed(source)
    out = []
    for index, func in enumerate(module.body):
        if not isinstance(func, cst.FunctionDef):
            continue
        name = func.name.value
        scope = facts.scope_of[id(func)]
        if (
            _params(func.params)
            or func.decorators
            or func.asynchronous is not None
            or scope.returns
            or scope.declares
            or len(facts.bindings.get(name, ())) != 1
            or facts.references[name] != 2  # its def and its one call
        ):
            continue
        calls = []
        for top in module.body[index + 1 :]:
            lines = _statements(top.body) if isinstance(top, cst.If) else [top]
            calls += [line for line in lines if _statement_call(line, name)]
        if len(calls) != 1:
            continue
        own = scope.bound
        mine = facts.top_references.get(index, collections.Counter())
        elsewhere = {n for n in own if facts.references[n] > mine[n]}
        if elsewhere or own & (facts.imported | BUILTINS | facts.attributes | facts.keywords):
            continue
        out.append((func, calls[0]))
    return out


def to_module_sites(source: str) -> List[object]:
    return [func.name.value for func, _ in _inline_plan(source)]


class _Inline(cst.CSTTransformer):
    def __init__(self, func: cst.FunctionDef, call: cst.SimpleStatementLine) -> None:
        self.func = func
        self.call = call

    def leave_FunctionDef(self, original, updated):
        if original is self.func:
            return cst.RemovalSentinel.REMOVE
        return updated

    def leave_SimpleStatementLine(self, original, updated):
        if original is self.call:
            return cst.FlattenSentinel(_statements(self.func.body))
        return updated


def to_module(source: str, site: object, style: Style) -> str:
    module, _ = parsed(source)
    for func, call in _inline_plan(source):
        if func.name.value == site:
            return module.visit(_Inline(func, call)).code
    raise LookupError(site)


# -- split a module in two -------------------------------------------------------------------

HELPERS = "helpers_mod"


def _split_plan(source: str):
    module, facts = parsed(source)
    moved = [i for i, s in enumerate(module.body) if isinstance(s, (cst.FunctionDef, cst.ClassDef))]
    kept = [s for i, s in enumerate(module.body) if i not in moved]
    if not moved or not _has_code(kept):
        return None
    names = {module.body[i].name.value for i in moved}  # type: ignore[attr-defined]
    first_module = facts.scopes[0].bound - facts.imported - names
    for index in moved:
        read = set(facts.top_references.get(index, ()))
        free = read - facts.inner_bound.get(index, set())
        if free & first_module:
            return None  # a moved function reads a global of the first module
    return [module.body[i] for i in moved], kept, sorted(names)


def split_sites(source: str) -> List[object]:
    return ["split"] if _split_plan(source) is not None else []


def split(source: str) -> Dict[str, str]:
    """``{"main.py": ..., "helpers_mod.py": ...}``."""
    module, _ = parsed(source)
    plan = _split_plan(source)
    assert plan is not None
    moved, kept, names = plan
    imports = [
        s
        for s in module.body
        if isinstance(s, cst.SimpleStatementLine)
        and all(isinstance(x, (cst.Import, cst.ImportFrom)) for x in s.body)
    ]
    helpers = module.with_changes(body=[*imports, *moved])
    k = _leading(kept)
    line = cst.parse_statement(f"from {HELPERS} import {', '.join(names)}\n")
    main = module.with_changes(body=[*kept[:k], line, *kept[k:]])
    return {"main.py": main.code, f"{HELPERS}.py": helpers.code}


# -- the table --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Transformation:
    name: str
    sites: Callable[[str], List[object]]
    apply: Callable[[str, object, Style], str]
    # how many names or calls ``Style.keep`` can leave as they are
    keepable: Callable[[str], int] = lambda source: 0


TRANSFORMATIONS = (
    Transformation("rename", rename_sites, rename, lambda s: len(rename_candidates(parsed(s)[1]))),
    Transformation("helper", loop_sites, helper),
    Transformation("method", method_sites, method),
    Transformation("alias", alias_sites, alias, lambda s: len(alias_candidates(parsed(s)[1]))),
    Transformation("to_function", to_function_sites, to_function),
    Transformation("to_module", to_module_sites, to_module),
    Transformation("range", range_sites, range_start, lambda s: len(_range_calls(s))),
)
