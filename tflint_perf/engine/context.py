"""What a rule sees of one file: the tree, import aliases, parents, positions.

Positions come from LibCST's PositionProvider, computed lazily: only files
where some rule reports (or builds a fix) pay for them, and mostly only for
the top-level statements that hold what they report (``positions.py``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, Iterator, List, Mapping, Optional, Type, TypeVar, Union

from tflint_perf.engine import cst
from tflint_perf.engine.cells import Cells
from tflint_perf.engine.names import ImportTable
from tflint_perf.engine.positions import StatementPositions, positions_of
from tflint_perf.engine.project import ProjectView
from tflint_perf.engine.reasons import Silence
from tflint_perf.engine.rule import Edit, Finding, Fix

if TYPE_CHECKING:
    from libcst.metadata import CodeRange

N = TypeVar("N", bound="cst.CSTNode")


@dataclass(frozen=True)
class Indexes:
    """What the walk (and the import scan) make of a module: the same for every
    pass over the same tree, so a pass may hand them to the next one."""

    imports: ImportTable
    parents: dict
    spans: dict
    by_type: dict


class FileContext:
    def __init__(
        self,
        path: str,
        source: str,
        module: cst.Module,
        cells: Optional[Cells] = None,
        indexes: Optional[Indexes] = None,
    ) -> None:
        self.path = path
        self.source = source
        self.module = module
        self.cells = cells  # a notebook's cells: messages name "cell N, line M"
        # ``indexes``: a previous walk's over this module, read only. ``kept``:
        # the indexes belong to the parse, for other passes (``release`` drops them).
        self.kept = indexes is not None
        self.imports = indexes.imports if indexes else ImportTable.from_module(module)
        self.parents: Dict[cst.CSTNode, cst.CSTNode] = indexes.parents if indexes else {}
        self.by_type: dict = indexes.by_type if indexes else {}  # node class -> its nodes in order
        self.spans: Dict[cst.CSTNode, List[int]] = indexes.spans if indexes else {}  # [first, last]
        self.ancestors: List[cst.CSTNode] = []  # chain above the visited node
        self.findings: List[Finding] = []
        self.recording = False  # record silent exits (``tflint-perf why``)
        self.project: Optional[ProjectView] = None  # the other modules of the tree, if known
        self.silences: List[Silence] = []
        self._positions: Optional[Mapping[cst.CSTNode, CodeRange]] = None
        self._statement_positions: Optional[StatementPositions] = None
        self._line_starts: Optional[List[int]] = None
        self._shared: dict = {}
        self.ast_tree: Optional[ast.Module] = None  # CPython's tree of the source, when at hand
        self._name_lines: Optional[Dict[cst.CSTNode, int]] = None

    def shared(self, factory):
        """One ``factory(ctx)`` per file, shared by the rules that need it.

        For analyses such as ``TfFunctions`` or ``SemanticModel``; call it from
        ``finish()`` or a hook (parents are complete only after the walk).
        """
        if factory not in self._shared:
            self._shared[factory] = factory(self)
        return self._shared[factory]

    def release(self) -> None:
        """Drop the shared analyses once the rules are done: they refer back to
        the context, a cycle that only the garbage collector would free (with
        the whole tree), where reference counting frees it at once. An analysis
        with cycles of its own breaks them in its ``release()``."""
        for analysis in self._shared.values():
            release = getattr(analysis, "release", None)
            if release is not None:
                release()
        self._shared.clear()
        # A closure may still hold the context in a cycle (a recursive local
        # function of an analysis): without these, the tree is freed all the same.
        if self.kept:  # the parse's indexes: dropped, not emptied
            self.parents, self.spans, self.by_type = {}, {}, {}
        for index in (self.parents, self.spans, self.by_type):
            index.clear()
        self.imports.forget()
        self._positions = self._statement_positions = None
        self.module = None  # type: ignore[assignment]  # released: no tree any more

    def keep_indexes(self) -> Indexes:
        """This context's indexes (complete after the walk), for other passes."""
        self.kept = True
        return Indexes(self.imports, self.parents, self.spans, self.by_type)

    # -- names ----------------------------------------------------------
    def qualname(self, expr: cst.BaseExpression) -> Optional[str]:
        """Canonical qualified name of an imported name (``tensorflow.constant``)."""
        return self.imports.qualname(expr)

    def call_name(self, node: cst.CSTNode) -> Optional[str]:
        """Qualified name of the function a Call calls, else None."""
        if isinstance(node, cst.Call):
            return self.imports.qualname(node.func)
        return None

    # -- tree -----------------------------------------------------------
    def nodes(self, node_type: Type[N]) -> List[N]:
        """Every node of exactly this LibCST class in the file, in source order.

        Recorded by the one walk, so module-wide scans in ``finish()`` cost
        nothing extra (complete only after the walk).
        """
        return self.by_type.get(node_type, [])

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        return self.parents.get(node)

    def ancestors_of(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        """Parents of ``node``, nearest first (valid after the walk reached it)."""
        above = self.parents.get(node)
        while above is not None:
            yield above
            above = self.parents.get(above)

    def span(self, node: cst.CSTNode) -> List[int]:
        """``[first, last]``: the node's pre-order index and its subtree's last
        (source order is index order; filled by the walk)."""
        return self.spans[node]

    def contains(self, outer: cst.CSTNode, inner: cst.CSTNode) -> bool:
        """Whether ``inner`` is ``outer`` or below it."""
        first, last = self.spans[outer]
        return first <= self.spans[inner][0] <= last

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    # -- positions ------------------------------------------------------
    def position(self, node: cst.CSTNode) -> CodeRange:
        """CodeRange of ``node``: 1-based lines, 0-based columns. From its
        top-level statement's code alone when it can be placed (a finding in a
        big file), else from the whole module's (``engine/positions.py``)."""
        if self._positions is None:
            if self._statement_positions is None:
                self._statement_positions = StatementPositions(
                    self.module, self.source, self.parent
                )
            found = self._statement_positions.position(node)
            if found is not None:
                return found
            self._positions = positions_of(self.module)
        return self._positions[node]

    def name_line(self, node: Union[cst.FunctionDef, cst.ClassDef]) -> int:
        """The line of a def's or class's name. From CPython's tree when it is at
        hand and positions are not computed: they cost generating the whole
        module's code, for one line."""
        if self._positions is None and self.ast_tree is not None:
            if self._name_lines is None:
                self._name_lines = _name_lines(self)
            line = self._name_lines.get(node)
            if line is not None:
                return line
        return self.position(node.name).start.line

    def line_start(self, line: int) -> int:
        """Offset of the first character of 1-based ``line`` in the source."""
        if self._line_starts is None:
            starts = [0]
            for index, char in enumerate(self.source):
                if char == "\n":
                    starts.append(index + 1)
            self._line_starts = starts
        if line - 1 < len(self._line_starts):
            return self._line_starts[line - 1]
        return len(self.source)

    def line_ref(self, line: int) -> str:
        """How a message names a line of this file: ``line 12``, or in a
        notebook ``cell 3, line 4`` (what Jupyter shows)."""
        if self.cells is None:
            return f"line {line}"
        return self.cells.line_ref(line)

    def line_text(self, line: int) -> str:
        start = self.line_start(line)
        end = self.source.find("\n", start)
        return self.source[start : end if end >= 0 else len(self.source)]

    # -- fixes ----------------------------------------------------------
    def replace(self, node: cst.CSTNode, new) -> Edit:
        """An edit replacing ``node`` with ``new`` (code text or a node)."""
        rng = self.position(node)
        content = new if isinstance(new, str) else self.module.code_for_node(new)
        return Edit(rng.start.line, rng.start.column, rng.end.line, rng.end.column, content)

    def statement_lines(self, first: cst.CSTNode, last: Optional[cst.CSTNode] = None):
        """Whole source lines spanned by statements ``first``..``last``: (start, end) lines."""
        start = self.position(first).start.line
        end_pos = self.position(last or first).end
        # A statement's range ends after its last token; an IndentedBlock
        # ends at the start of the next line.
        end = end_pos.line - 1 if end_pos.column == 0 else end_pos.line
        return start, end

    def lines_text(self, start: int, end: int) -> str:
        """Text of lines ``start``..``end`` (1-based, inclusive) with newlines."""
        return self.source[self.line_start(start) : self.line_start(end + 1)]

    def delete_lines(self, start: int, end: int) -> Edit:
        return Edit(start, 0, end + 1, 0, "")

    def insert_lines(self, before_line: int, text: str) -> Edit:
        if text and not text.endswith("\n"):
            text += "\n"
        return Edit(before_line, 0, before_line, 0, text)

    def indentation(self, stmt: cst.CSTNode) -> str:
        line = self.line_text(self.position(stmt).start.line)
        return line[: len(line) - len(line.lstrip())]

    # -- findings -------------------------------------------------------
    def add_finding(
        self,
        rule,
        node: cst.CSTNode,
        message: str,
        fix: Optional[Fix],
        detail: str = "",
        extra: Optional[dict] = None,
    ) -> None:
        rng = self.position(node)
        self.findings.append(
            Finding(
                path=self.path,
                line=rng.start.line,
                column=rng.start.column + 1,
                end_line=rng.end.line,
                end_column=rng.end.column + 1,
                code=rule.code,
                name=rule.name,
                message=message,
                fix=fix,
                detail=detail,
                extra=dict(extra or {}),
            )
        )

    def add_silence(self, rule, node: cst.CSTNode, reason, detail: str) -> None:
        rng = self.position(node)
        self.silences.append(Silence(rule.code, rng.start.line, rng.end.line, reason, detail))


def _name_lines(ctx: FileContext) -> Dict[cst.CSTNode, int]:
    """Each def's and class's name line, by pairing the CPython tree's defs with
    LibCST's (both in source order); empty when they do not pair. CPython's
    ``lineno`` is the line of ``def`` (``async``) or ``class``; the name is
    further down by the line continuations between them. Only for ``\\n``
    line ends, where both count lines the same way."""
    if ctx.ast_tree is None or "\r" in ctx.source:
        return {}
    defs: List[ast.AST] = []
    classes: List[ast.AST] = []
    for statement in _statements(ctx.ast_tree):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.append(statement)
        elif isinstance(statement, ast.ClassDef):
            classes.append(statement)
    out: Dict[cst.CSTNode, int] = {}
    for mine, theirs in ((ctx.nodes(cst.FunctionDef), defs), (ctx.nodes(cst.ClassDef), classes)):
        theirs.sort(key=lambda n: (n.lineno, n.col_offset))  # type: ignore[attr-defined]
        if len(mine) != len(theirs):
            return {}
        for node, other in zip(mine, theirs):
            if node.name.value != other.name:  # type: ignore[attr-defined]
                return {}
            out[node] = other.lineno + _breaks(node)  # type: ignore[attr-defined]
    return out


def _statements(tree: ast.Module) -> Iterator[ast.AST]:
    """Every statement of the module (defs and classes are statements: the
    expressions, most of the tree, need not be walked)."""
    stack: List[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        yield node
        for name in _BLOCKS:
            block = getattr(node, name, None)
            if isinstance(block, list):
                stack.extend(block)


# The fields holding statements, or ``except`` and ``case`` clauses holding them.
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _breaks(node: cst.CSTNode) -> int:
    """Line continuations between the keyword and the name of a def or class."""
    if isinstance(node, cst.ClassDef):
        return node.whitespace_after_class.value.count("\n")
    if not isinstance(node, cst.FunctionDef):
        return 0
    found = node.whitespace_after_def.value.count("\n")
    if node.asynchronous is not None:
        found += node.asynchronous.whitespace_after.value.count("\n")
    return found
