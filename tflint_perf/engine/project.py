"""What one file may know of the other modules of the linted tree.

The runner lints a tree in two passes (``tflint_perf/run/project.py``). In
the first, each file is linted alone and its exported facts are collected
(``analysis/exports.py``: what its functions and classes do, what its
module-level names hold); the analysis records every imported name of the
tree it asked about. In the second, a file that asked about a name whose
facts are known is linted again with them. Facts are plain data (JSON),
so they are cached with the file that exports them.

Here: the view a FileContext holds. ``symbol(qualname)`` gives the facts
of ``package.module.name`` (a function, a class, a value), or None; a
relative import is resolved against the file's own package first.
"""

from __future__ import annotations

import re
from typing import Callable, Dict, List, Optional, Set

Facts = Dict[str, object]
# Module names in import statements (for ``imports_tree``: no parse needed).
_IMPORTED = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import|import[ \t]+([\w., \t]+))", re.M
)


class ProjectView:
    def __init__(
        self,
        package: str,
        lookup: Optional[Callable[[str], Optional[Facts]]] = None,
        in_tree: Optional[Callable[[str], bool]] = None,
    ):
        self.package = package  # the importing module's package ("" at the top)
        self._lookup = lookup
        self._in_tree = in_tree  # whether an absolute module name is a module of the tree
        self.asked: Set[str] = set()
        self.forced = False  # the module uses no framework itself, but imports the tree
        self.imports: List[str] = []  # the modules it imports (``imports_tree``)
        # The parse of this file's text that a pass keeps for the next one
        # (``keep``), or a previous pass's, reused when the text is the same
        # (``engine/linter.py``): a second pass parses nothing again.
        self.keep = False
        self.parsed: Optional[tuple] = None

    def imports_tree(self, source: str) -> bool:
        """Whether the module imports a module of the tree: then it is read even
        when it names no framework itself (a training script importing its model).
        ``imports`` keeps the modules it imports, for the runner's cache: the
        answer changes when the tree does."""
        if self._in_tree is None:
            return False
        self.imports = self.imported(source)
        if any(self._in_tree(name) for name in self.imports):
            self.forced = True
            return True
        return False

    def imported(self, source: str) -> List[str]:
        """The absolute names of the modules ``source``'s import statements name
        (a text search, no parse), each once, in order."""
        found: Dict[str, None] = {}
        for match in _IMPORTED.finditer(source):
            names = [match.group(1)] if match.group(1) else match.group(2).split(",")
            for name in names:
                name = name.strip().split(" ", 1)[0]
                if name:
                    found.setdefault(self.absolute(name), None)
        return list(found)

    def absolute(self, qualname: str) -> str:
        """``.networks.QNetwork`` in package ``agents`` -> ``agents.networks.QNetwork``."""
        if not qualname.startswith("."):
            return qualname
        dots = len(qualname) - len(qualname.lstrip("."))
        parts = self.package.split(".") if self.package else []
        base = parts[: len(parts) - (dots - 1)] if dots > 1 else parts
        rest = qualname[dots:]
        return ".".join([*base, rest]) if base else rest

    def symbol(self, qualname: Optional[str]) -> Optional[Facts]:
        """The facts of an imported name of the tree (recorded as asked)."""
        if not qualname:
            return None
        name = self.absolute(qualname)
        self.asked.add(name)
        return self._lookup(name) if self._lookup is not None else None
