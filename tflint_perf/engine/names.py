"""Light import-alias resolution: qualified names without scope analysis.

Full LibCST scope/qualified-name metadata costs about ten times the parse.
Rules only need to know what ``tf.config.set_visible_devices`` or
``layers.Dense`` refer to, which the module's import statements tell. Every
import in the file (module level, in functions, under ``try``) binds its
alias for the whole file; shadowing by local assignment is ignored. A name
only a star import can have bound (``from keras.layers import *``) is
resolved by the checks the API table registers (``register_star_exports``),
unless the module's own top-level statements bind it.
"""

from __future__ import annotations

import builtins
from typing import Optional

from tflint_perf.engine import cst

# Spellings of the same API, mapped to one canonical prefix so rules compare
# a single name. Longest prefixes first.
_CANONICAL_PREFIXES = (
    ("tensorflow.compat.v1.keras.", "keras."),
    ("tensorflow.compat.v2.keras.", "keras."),
    ("tensorflow.python.keras.", "keras."),
    ("tensorflow.keras.", "keras."),
    ("tensorflow.compat.v1.", "tensorflow."),
    ("tensorflow.contrib.data.", "tensorflow.data."),  # tf.data before TF 1.4
    ("tensorflow.compat.v2.", "tensorflow."),
    ("tf_keras.src.", "keras."),
    ("tf_keras.", "keras."),
    ("keras.src.", "keras."),
    ("keras.api.", "keras."),
)
_CANONICAL_EXACT = {
    "tensorflow.keras": "keras",
    "tensorflow.python.keras": "keras",
    "tensorflow.compat.v1": "tensorflow",
    "tensorflow.compat.v2": "tensorflow",
    "tf_keras": "keras",
}


_canonical_names: dict = {}  # canonical's answers: the same names come again and again


def canonical(name: str) -> str:
    """``tensorflow.compat.v1.Session`` -> ``tensorflow.Session`` and so on."""
    found = _canonical_names.get(name)
    if found is None:
        found = _canonical_names[name] = _canonical(name)
    return found


def _canonical(name: str) -> str:
    exact = _CANONICAL_EXACT.get(name)
    if exact is not None:
        return exact
    for prefix, replacement in _CANONICAL_PREFIXES:
        if name.startswith(prefix):
            return replacement + name[len(prefix) :]
    return name


def dotted(expr: cst.BaseExpression) -> Optional[str]:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(expr, cst.Attribute):
        parts.append(expr.attr.value)
        expr = expr.value
    if not isinstance(expr, cst.Name):
        return None
    parts.append(expr.value)
    return ".".join(reversed(parts))


def callee(func: cst.BaseExpression) -> str:
    """What a message calls the function a call runs: its dotted name, else the
    method's name (``.assign`` of ``to_w[i].assign(...)``), else ``call``."""
    name = dotted(func)
    if name is not None:
        return name
    return f".{func.attr.value}" if isinstance(func, cst.Attribute) else "call"


def place(expr: cst.BaseExpression) -> Optional[str]:
    """Where a value is stored, as text: a dotted name (``self.images``) or one
    with literal keys (``log['loss']``, ``boxes[0]``); None for anything else
    (a computed key names a different slot on each read)."""
    if isinstance(expr, cst.Subscript):
        base = place(expr.value)
        if base is None or len(expr.slice) != 1:
            return None
        index = expr.slice[0].slice
        key = index.value if isinstance(index, cst.Index) else None
        if not isinstance(key, (cst.SimpleString, cst.Integer)):
            return None
        return f"{base}[{key.value}]"
    if isinstance(expr, cst.Attribute):
        base = place(expr.value)
        return f"{base}.{expr.attr.value}" if base is not None else None
    return expr.value if isinstance(expr, cst.Name) else None


def _module_name(expr) -> Optional[str]:
    return dotted(expr) if expr is not None else None


_UNSEEN = object()
_BUILTINS = frozenset(dir(builtins))

# Who can tell what ``from m import *`` brings in: checks ``(module, name) ->
# qualified name or None`` registered by the layers that know a module's
# exports (the API table). The engine knows no module's exports itself.
_STAR_EXPORTS: list = []


def register_star_exports(check) -> None:
    _STAR_EXPORTS.append(check)


class ImportTable:
    """Maps local names bound by imports to the qualified names they denote."""

    def __init__(self) -> None:
        self.aliases: dict = {}
        self.star_modules: list = []  # ``from m import *``, in source order
        self.local_names: set = set()  # module-level defs, classes, assignments (with stars)
        # Bound at module level (not inside a def/class): what inserted code may use.
        self.module_aliases: dict = {}
        self._qualnames: dict = {}  # expression -> qualname's answer (the imports are fixed)

    @classmethod
    def from_module(cls, module: cst.Module) -> "ImportTable":
        table = cls()
        table._scan(module.body, True)
        if table.star_modules:
            table.local_names = _module_level_names(module.body)
        return table

    def _scan(self, body, module_level: bool) -> None:
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                self._small(stmt.body, module_level)
            elif isinstance(stmt, (cst.Import, cst.ImportFrom)):  # in a one-line suite
                self._small((stmt,), module_level)
            else:
                inner = module_level and not isinstance(stmt, (cst.FunctionDef, cst.ClassDef))
                for block in statement_blocks(stmt):
                    self._scan(block, inner)

    def _small(self, statements, module_level: bool) -> None:
        """The imports among small statements (no blocks below them)."""
        for stmt in statements:
            if isinstance(stmt, cst.Import):
                self._record(self._add_import(stmt), module_level)
            elif isinstance(stmt, cst.ImportFrom):
                self._record(self._add_import_from(stmt), module_level)

    def _record(self, bound: dict, module_level: bool) -> None:
        self.aliases.update(bound)
        if module_level:
            self.module_aliases.update(bound)

    def _add_import(self, node: cst.Import) -> dict:
        bound = {}
        for alias in node.names:
            full = _module_name(alias.name)
            if full is None:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                bound[alias.asname.name.value] = full
            else:
                head = full.split(".", 1)[0]  # `import a.b` binds `a`
                bound[head] = head
        return bound

    def _add_import_from(self, node: cst.ImportFrom) -> dict:
        """``from a.b import c as d`` binds ``d`` to ``a.b.c``; a relative import
        keeps its dots (``from .nets import Q``: ``.nets.Q``), resolved against
        the file's package by the project view (``engine/project.py``)."""
        bound: dict = {}
        if isinstance(node.names, cst.ImportStar):
            module = _module_name(node.module) if node.module is not None else None
            if module is not None and not node.relative:
                self.star_modules.append(canonical(module))
            return bound
        dots = "." * len(node.relative)
        base = _module_name(node.module) if node.module is not None else ""
        if base is None:
            return bound
        base = dots + base
        for alias in node.names:
            name = _module_name(alias.name)
            if name is None:
                continue
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            bound[local] = f"{base}.{name}" if not base.endswith(".") else f"{base}{name}"
        return bound

    def qualname(self, expr: cst.BaseExpression) -> Optional[str]:
        """The canonical qualified name ``expr`` refers to, if it comes from an import."""
        found = self._qualnames.get(expr, _UNSEEN)
        if found is _UNSEEN:
            found = self._qualnames[expr] = self._qualname(expr)
        return found

    def forget(self) -> None:
        """Drop the answers kept (they hold the tree's nodes)."""
        self._qualnames.clear()

    def _qualname(self, expr: cst.BaseExpression) -> Optional[str]:
        name = dotted(expr)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        target = self.aliases.get(head)
        if target is None:
            target = self._from_star(head)
            if target is None:
                return None
        return canonical(f"{target}.{rest}" if rest else target)

    def _from_star(self, name: str) -> Optional[str]:
        """What ``name`` is when only a star import can have bound it: the last star
        module a registered check says exports it (later imports shadow earlier)."""
        if not self.star_modules or name in _BUILTINS or name in self.local_names:
            return None
        for module in reversed(self.star_modules):
            for check in _STAR_EXPORTS:
                found = check(module, name)
                if found is not None:
                    return found
        return None

    def imports_any(self, *roots: str) -> bool:
        """Whether some import brings in one of the given top-level packages."""
        for target in [*self.aliases.values(), *self.star_modules]:
            if canonical(target).split(".", 1)[0] in roots or target.split(".", 1)[0] in roots:
                return True
        return False

    @property
    def uses_tensorflow(self) -> bool:
        return self.imports_any("tensorflow", "keras", "tf_keras")

    @property
    def uses_numpy(self) -> bool:
        return self.imports_any("numpy")


def statement_blocks(stmt):
    """The statement lists nested directly in a compound statement."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef, cst.With, cst.For, cst.While)):
        yield _suite(stmt.body)
        orelse = getattr(stmt, "orelse", None)
        if orelse is not None:
            yield _suite(orelse.body)
    elif isinstance(stmt, cst.If):
        yield _suite(stmt.body)
        orelse = stmt.orelse
        while orelse is not None:
            yield _suite(orelse.body)
            orelse = orelse.orelse if isinstance(orelse, cst.If) else None
    elif isinstance(stmt, (cst.Try, cst.TryStar)):
        yield _suite(stmt.body)
        for handler in stmt.handlers:
            yield _suite(handler.body)
        if stmt.orelse is not None:
            yield _suite(stmt.orelse.body)
        if stmt.finalbody is not None:
            yield _suite(stmt.finalbody.body)
    elif isinstance(stmt, cst.Match):
        for case in stmt.cases:
            yield _suite(case.body)


def _suite(body):
    """Statements of an indented block, or small statements of ``if x: y``."""
    return body.body


def _module_level_names(body) -> set:
    """Names the module's own top-level statements bind (defs, classes, plain
    assignments): they shadow what a star import brought in."""
    out: set = set()
    for stmt in body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            out.add(stmt.name.value)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                targets = []
                if isinstance(small, cst.Assign):
                    targets = [t.target for t in small.targets]
                elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                    targets = [small.target]
                for target in targets:
                    elements = getattr(target, "elements", None)
                    for each in [e.value for e in elements] if elements else [target]:
                        if isinstance(each, cst.Name):
                            out.add(each.value)
    return out
