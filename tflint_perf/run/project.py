"""The project index: what the modules of a linted tree tell each other.

A tree is linted in two passes, on demand (``engine/project.py`` for the
view a file holds):

1. Every file is linted alone. Its analysis records each name of an
   import it asked about (only where a rule looked: a loop calling an
   imported function, a method of an imported class ...).
2. The modules that define names some file asked about are read (once
   each, in this process) and their exports computed
   (``analysis/exports.py``), following their own imports the same way.
3. A file that asked about a name whose facts are now known is linted
   again with them; its findings replace those of the first pass.

So a file is parsed a second time only when another module of the tree
can change what a rule decides in it. Results do not depend on ``-j``:
the exports are computed in one process, in a fixed order, and each
file's second pass reads only the facts of the names it asked about.

The cache (``run/cache.py``: one folder, one invalidation) keeps both
passes of each file and the index's exports of each module, as a
verifying trace: an ``exports`` entry holds the exports and each name the
module's analysis asked about (in the order first asked) with the facts
it got, or none. When the module's bytes, package and path match, those
names are asked again through the index (which checks their modules'
entries the same way), and the entry is used only if every answer is the
same; else the module is analysed again. The analysis is a function of
the text and those answers, so equal answers give equal exports; asked
again in the same order from inside the module's own computation, they
also leave the index as the analysis would. That holds in an import
cycle too: the module being computed answers "none" as without the
cache, and an entry recorded in the other order does not verify, so
cycles need no exception. A module whose analysis failed is not stored.
A file's own entries say whether it imported a module of the tree
(``Pass.reusable``): its lint in a tree runs more rules then.

Module names follow Python's import system: a file in a folder with an
``__init__.py`` is a module of that package (up to the first folder
without one, its root); a file is also importable by its bare name from
its own folder (a script's siblings). The flake8 plugin and stdin see one
file: no index.
"""

from __future__ import annotations

import json
import os
from typing import Dict, List, Optional, Sequence, Tuple

from tflint_perf.engine.project import ProjectView

Facts = Dict[str, object]
_PY = ".py"
# Characters of source whose parses ``Parses`` keeps (about 200 MB of trees).
PARSES_BUDGET = 4_000_000
# And of the files just linted, for the index: a file asks mostly about
# modules linted just before it (on the wheel corpus, 226 of the 233 modules
# the index would parse again after their lint are within 1,000,000
# characters of it; about 50 MB of trees).
RECENT_BUDGET = 1_000_000


def module_of(path: str, inits: Optional[Dict[str, bool]] = None) -> Tuple[str, str, str]:
    """(root folder, dotted module name, package) of a ``.py`` file.
    ``inits``: whether each folder seen so far holds an ``__init__.py`` (the
    files of a tree share their folders: each is looked at once)."""
    folder, name = os.path.split(os.path.abspath(path))
    parts = [name[: -len(_PY)] if name.endswith(_PY) else name]
    if parts[0] == "__init__":
        parts = []
    while _has_init(folder, inits):
        folder, package = os.path.split(folder)
        parts.insert(0, package)
    module = ".".join(parts)
    package = module.rsplit(".", 1)[0] if "." in module else ""
    if os.path.basename(path) == "__init__.py":
        package = module
    return folder, module, package


def _has_init(folder: str, inits: Optional[Dict[str, bool]]) -> bool:
    if inits is None:
        return os.path.isfile(os.path.join(folder, "__init__.py"))
    found = inits.get(folder)
    if found is None:
        found = inits[folder] = os.path.isfile(os.path.join(folder, "__init__.py"))
    return found


class Pass:
    """One pass over a tree: the tree, and for a second pass the facts each
    file reads (by path; a file without facts records what it asks).

    In one process, the passes of a file follow each other
    (``run/parallel.py``): the first keeps the file's parse in its view
    (``keep``: ``views`` holds the views it gave), the second reuses it
    (``parsed``, by path); a parse the index made is in ``parses``."""

    def __init__(
        self,
        tree: "Tree",
        facts: Optional[Dict[str, Dict[str, Facts]]] = None,
        keep: bool = False,
        parses: Optional["Parses"] = None,
    ):
        self.tree = tree
        self.facts = facts or {}
        self.keep = keep
        self.views: Dict[str, ProjectView] = {}
        self.parsed: Dict[str, tuple] = {}
        self.parses: Optional[Parses] = parses

    def view(self, path: str) -> Optional[ProjectView]:
        if not path.endswith(_PY):
            return None
        package = self.tree.package(path)
        facts = self.facts.get(path)
        view = ProjectView(
            package,
            facts.get if facts is not None else None,
            lambda name: self.tree.locate(path, name) is not None,
        )
        view.parsed = self.parsed.pop(path, None)
        if view.parsed is None and self.parses is not None:
            view.parsed = self.parses.take(path)  # the index parsed it first
        if self.keep:
            view.keep = True
            self.views[path] = view
        return view

    def second(self, path: str) -> bool:
        return path in self.facts

    def entry(self, path: str) -> Tuple[str, str]:
        """(kind, variant) of the cache entry of ``path`` in this pass
        (``run/cache.py``). Besides its text, a file's lint in a tree depends
        on its package (the names it asks about are absolute), on the facts
        it reads in a second pass, and on whether it imports a module of the
        tree (``reusable``). A file that is not a module has no view: its
        entry is the one of a run of that file alone."""
        if not path.endswith(_PY):
            return "", ""
        package = self.tree.package(path)
        if path in self.facts:
            return "second", f"{package}\0{facts_key(self.facts[path])}"
        return "", f"tree\0{package}"

    def reusable(self, path: str, extra: dict) -> bool:
        """Whether an entry of ``path`` (its ``extra``) holds for this tree: the
        file imports a module of the tree now as it did then (``imports_tree``:
        then its lint runs the rules that read the project, whatever words it
        uses)."""
        imports = extra.get("imports", [])
        if not isinstance(imports, list):
            return False
        now = any(isinstance(n, str) and self.tree.locate(path, n) is not None for n in imports)
        return now == (extra.get("forced") is True)

    @staticmethod
    def record(view: Optional[ProjectView], extra: dict) -> None:
        """What ``reusable`` checks, kept in a file's entry."""
        if view is not None and view.imports:
            extra["imports"] = list(view.imports)
            extra["forced"] = view.forced


_NAMESPACE_DEPTH = 3  # folders without ``__init__.py`` above a module, followed up


class Tree:
    """The ``.py`` files of a run, by the module names they can be imported as."""

    def __init__(self, files: Sequence[str]) -> None:
        self.modules: Dict[Tuple[str, str], str] = {}  # (root, dotted name) -> path
        self.roots: Dict[str, Tuple[str, ...]] = {}  # path -> roots its imports search
        self.packages: Dict[str, str] = {}  # path -> its package
        inits: Dict[str, bool] = {}
        for path in files:
            if not path.endswith(_PY):
                continue
            root, module, self.packages[path] = module_of(path, inits)
            own = os.path.dirname(os.path.abspath(path))
            if module:
                self.modules.setdefault((root, module), path)
            stem = os.path.basename(path)[: -len(_PY)]
            if stem != "__init__":
                self.modules.setdefault((own, stem), path)  # a script's sibling
            self.roots[path] = (root, own) if own != root else (root,)
        for path in files:  # after every regular package: those come first
            if path.endswith(_PY):
                self._namespace_names(path)

    def _namespace_names(self, path: str) -> None:
        """``src.utils`` for ``src/utils.py`` from the folder above ``src``, when
        ``src`` has no ``__init__.py``: a namespace package, as Python imports it
        for a script run from there."""
        folder = os.path.dirname(os.path.abspath(path))
        stem = os.path.basename(path)[: -len(_PY)]
        parts = [] if stem == "__init__" else [stem]
        for _ in range(_NAMESPACE_DEPTH):
            parts.insert(0, os.path.basename(folder))
            folder = os.path.dirname(folder)
            if not all(p.isidentifier() for p in parts):
                return
            self.modules.setdefault((folder, ".".join(parts)), path)

    def package(self, path: str) -> str:
        found = self.packages.get(path)
        if found is None:
            found = self.packages[path] = module_of(path)[2]
        return found

    def locate(self, importer: str, qualname: str) -> Optional[Tuple[str, List[str]]]:
        """(path of the module, names inside it) that ``qualname`` (absolute, as
        ``importer`` asked) refers to; None when no module of the tree has it."""
        parts = qualname.split(".")
        for root in self.roots.get(importer, ()):
            for k in range(len(parts), 0, -1):
                path = self.modules.get((root, ".".join(parts[:k])))
                if path is not None:
                    return path, parts[k:]
        return None


class DiskTree(Tree):
    """The same modules as ``Tree`` over a whole folder, found on disk only when
    asked (``tflint-perf why``: one file's answers, no walk over its project)."""

    def __init__(self) -> None:
        super().__init__(())

    def locate(self, importer: str, qualname: str) -> Optional[Tuple[str, List[str]]]:
        if importer not in self.roots:
            root, _, _ = module_of(importer)
            own = os.path.dirname(os.path.abspath(importer))
            self.roots[importer] = (root, own) if own != root else (root,)
        parts = qualname.split(".")
        for root in self.roots[importer]:
            for k in range(len(parts), 0, -1):
                path = _on_disk(root, parts[:k])
                if path is not None:
                    return path, parts[k:]
        return None


def _on_disk(root: str, parts: List[str]) -> Optional[str]:
    """The file a ``Tree`` of ``root``'s files would list as module ``parts``."""
    dotted = ".".join(parts)
    for path in (
        os.path.join(root, *parts) + _PY,
        os.path.join(root, *parts, "__init__" + _PY),
    ):
        if not os.path.isfile(path):
            continue
        folder, module, _ = module_of(path)
        if (folder, module) == (root, dotted):
            return path
        if len(parts) == 1 and path.endswith(parts[0] + _PY):
            return path  # a script's sibling
        folders = parts if path.endswith("__init__" + _PY) else parts[:-1]
        if 0 < len(folders) <= _NAMESPACE_DEPTH and all(p.isidentifier() for p in parts):
            return path  # in a namespace package (``Tree._namespace_names``)
    return None


class Parses:
    """Parsed modules kept between the lint and the index of one process, by
    path: a module the index reads before its own first pass (``put``), or
    shortly after its lint (``put_linted``), is parsed once. At most
    ``budget`` characters of source of the first kind and ``recent_budget``
    of the second (a LibCST tree and CPython's take about 50 bytes a
    character); the oldest go first. ``linted``: the files whose first pass
    is done (the index takes their parse and does not put it back)."""

    def __init__(self, budget: int = PARSES_BUDGET, recent_budget: int = RECENT_BUDGET) -> None:
        self.budget = budget
        self.size = 0
        self._kept: Dict[str, tuple] = {}  # in the order put (dicts keep it)
        self.recent_budget = recent_budget
        self._recent: Dict[str, tuple] = {}  # the files linted last, oldest first
        self._recent_size = 0
        self.linted: set = set()

    def put(self, path: str, parsed: tuple) -> None:
        """Keep ``(source, CPython tree, Parsed)`` of ``path`` (``linter.py``)."""
        if len(parsed[0]) > self.budget:
            return
        self.take(path)
        self._kept[path] = parsed
        self.size += len(parsed[0])
        while self.size > self.budget:
            oldest = next(iter(self._kept))
            self.take(oldest)

    def put_linted(self, path: str, parsed: tuple) -> None:
        """Keep the parse of a file just linted, should the index read it next."""
        if len(parsed[0]) > self.recent_budget:
            return
        self._recent[path] = parsed
        self._recent_size += len(parsed[0])
        while self._recent_size > self.recent_budget:
            oldest = next(iter(self._recent))
            self._recent_size -= len(self._recent.pop(oldest)[0])

    def take(self, path: str) -> Optional[tuple]:
        parsed = self._kept.pop(path, None)
        if parsed is not None:
            self.size -= len(parsed[0])
            return parsed
        parsed = self._recent.pop(path, None)
        if parsed is not None:
            self._recent_size -= len(parsed[0])
        return parsed


class Index:
    """Exports of the modules of a tree, computed when first asked for, and
    kept in the cache (``cache``; None: neither read nor written)."""

    def __init__(self, tree: Tree, parses: Optional[Parses] = None, cache=None) -> None:
        self.tree = tree
        self.parses = parses
        self.cache = cache if cache is not None and cache.key is not None else None
        self.cache_warning: Optional[str] = None  # why the cache could not be written
        self._prepared = False
        self._exports: Dict[str, Optional[Dict[str, Facts]]] = {}
        self._computing: set = set()

    def facts(self, importer: str, qualname: str) -> Optional[Facts]:
        """What ``qualname`` (asked by ``importer``) is, if a module of the tree says."""
        found = self.tree.locate(importer, qualname)
        if found is None:
            return None
        path, names = found
        if not names:
            return None  # a module, not a name in it
        exports = self.exports(path)
        if not exports:
            return None
        facts = exports.get(names[0])
        for name in names[1:]:  # Class.method
            methods = facts.get("methods") if isinstance(facts, dict) else None
            facts = methods.get(name) if isinstance(methods, dict) else None
        return facts if isinstance(facts, dict) else None

    def exports(self, path: str) -> Optional[Dict[str, Facts]]:
        """The exports of one module (read and analysed once; a module in an
        import cycle with one being computed sees no facts of it)."""
        if path in self._exports:
            return self._exports[path]
        if path in self._computing:
            return None
        self._computing.add(path)
        try:
            found = self._read(path)
        finally:
            self._computing.discard(path)
        self._exports[path] = found
        return found

    def _read(self, path: str) -> Optional[Dict[str, Facts]]:
        """The exports of ``path``: from the cache when its entry still holds,
        else computed (and stored)."""
        from tflint_perf.run.files import read_bytes

        try:
            data = read_bytes(path)
        except OSError:
            return None
        if self.cache is None:
            return self._compute(path, data)[0]
        variant = f"{self.tree.package(path)}\0{path}"  # facts hold the path as given
        entry = self.cache.get_entry(path, data, variant, "exports")
        if entry is not None:
            found = self._replay(path, entry[1])
            if found is not _STALE:
                return found  # type: ignore[return-value]
        trace: Dict[str, Optional[Facts]] = {}
        exports, done = self._compute(path, data, trace)
        if done:
            extra = {"exports": exports, "trace": [[q, f] for q, f in trace.items()]}
            self._store(path, data, extra, variant)
        return exports

    def _replay(self, path: str, extra: dict) -> object:
        """A cached entry's exports if every name its module asked about still
        has the facts it had (asked again, in the same order: see the module
        docstring); else ``_STALE``."""
        exports, trace = extra.get("exports"), extra.get("trace")
        if not isinstance(trace, list) or not isinstance(exports, (dict, type(None))):
            return _STALE
        for item in trace:
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
                return _STALE
            if _text(self.facts(path, item[0])) != _text(item[1]):
                return _STALE
        return exports

    def _store(self, path: str, data: bytes, extra: dict, variant: str) -> None:
        cache = self.cache
        if cache is None or not cache.writable:
            return
        if not self._prepared:  # a run whose files were all cached made no folder yet
            self._prepared = True
            self.cache_warning = cache.prepare()
            if self.cache_warning:
                return
        self.cache_warning = cache.put(path, data, [], extra, variant, "exports")

    def _compute(
        self, path: str, data: bytes, trace: Optional[Dict[str, Optional[Facts]]] = None
    ) -> Tuple[Optional[Dict[str, Facts]], bool]:
        """(exports, whether they may be cached: not when the analysis failed).
        ``trace``: each name the module asked about, with the facts it got."""
        from tflint_perf.analysis.exports import module_exports
        from tflint_perf.engine.linter import analyse_source
        from tflint_perf.run.files import decode

        try:
            source, _ = decode(data)
        except ValueError:
            return None, False
        out: Dict[str, Dict[str, Facts]] = {}

        def lookup(qualname: str) -> Optional[Facts]:
            found = self.facts(path, qualname)
            if trace is not None and qualname not in trace:
                trace[qualname] = found
            return found

        view = ProjectView(self.tree.package(path), lookup)
        if self.parses is not None:  # the lint's parse, or this one for the lint
            view.parsed, view.keep = self.parses.take(path), path not in self.parses.linted

        def collect(ctx) -> None:
            out["exports"] = module_exports(ctx)

        try:
            analyse_source(source, path, collect, view)
        except Exception:  # an analysis bug costs this module's facts, not the run
            if os.environ.get("TFLINT_PERF_DEBUG"):
                raise
            return None, False
        finally:
            if view.keep and view.parsed is not None and self.parses is not None:
                self.parses.put(path, view.parsed)
        return _plain(out.get("exports")), True

    def facts_for(self, importer: str, asked: Sequence[str]) -> Dict[str, Facts]:
        """The facts of the names ``importer`` asked about, for its second pass."""
        out = {}
        for qualname in sorted(asked):
            found = self.facts(importer, qualname)
            if found is not None:
                out[qualname] = found
        return out


def _plain(exports):
    """A JSON round trip: the facts are data, the same in every process."""
    return json.loads(json.dumps(exports)) if exports is not None else None


_STALE = object()


def _text(facts: Optional[Facts]) -> str:
    """Facts compared as their JSON text (``True == 1`` in Python, not in JSON)."""
    return json.dumps(facts, sort_keys=True, separators=(",", ":"))


def facts_key(facts: Dict[str, Facts]) -> str:
    """A stable text of a file's facts, for the cache key of its second pass."""
    return json.dumps(facts, sort_keys=True, separators=(",", ":"))
