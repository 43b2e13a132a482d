"""Line and column of LibCST nodes.

LibCST computes positions by generating the code of the whole module while
counting lines: most of a finding's cost in a big file, for the one node it
reports. ``StatementPositions`` generates only the top-level statement that
holds the node, and places it with the line CPython gives that statement
(a top-level statement starts at column 0, so only lines shift). It gives
up (None), and the whole module is generated, wherever the two trees do
not pair statement for statement.
"""

from __future__ import annotations

import ast
import sys
from typing import TYPE_CHECKING, Callable, Dict, List, Mapping, Optional

from tflint_perf.engine import cst

if TYPE_CHECKING:
    from libcst.metadata import CodeRange

# LibCST's code generation recurses a few frames per level of nesting: deep
# expressions that CPython itself compiles need a higher limit.
_RECURSION = 20_000


def positions_of(module: cst.Module) -> Mapping[cst.CSTNode, CodeRange]:
    """Every node's CodeRange (LibCST's PositionProvider)."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _RECURSION))
    try:
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        generate = getattr(PositionProvider(), "_gen", None)
        if generate is not None:
            # What resolve() runs, without the visit of the whole tree it adds
            # for batched providers (there are none): half the cost.
            return generate(wrapper)
        return wrapper.resolve(PositionProvider)
    finally:
        sys.setrecursionlimit(limit)


def _statement_positions(module: cst.Module, statement: cst.CSTNode) -> Optional[dict]:
    """The CodeRange of every node of one top-level statement, as if its code
    started the file (line 1); None where LibCST's internals are not as known."""
    try:
        from libcst.metadata.position_provider import (
            PositionProvider,
            PositionProvidingCodegenState,
        )
    except ImportError:  # pragma: no cover - another LibCST layout
        return None
    provider = PositionProvider()
    computed = getattr(provider, "_computed", None)
    if not isinstance(computed, dict):  # pragma: no cover - another LibCST layout
        return None
    state = PositionProvidingCodegenState(
        default_indent=module.default_indent,
        default_newline=module.default_newline,
        provider=provider,
    )
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _RECURSION))
    try:
        statement._codegen(state)
    finally:
        sys.setrecursionlimit(limit)
    return computed


class StatementPositions:
    """Positions one top-level statement at a time (see the module docstring)."""

    def __init__(self, module: cst.Module, source: str, parent: Callable) -> None:
        self.module = module
        self.source = source
        self.parent = parent  # a node's parent (the walk's index)
        self._lines: Optional[Dict[cst.CSTNode, int]] = None
        self._done: Dict[cst.CSTNode, tuple] = {}  # statement -> (positions, shift)

    def position(self, node: cst.CSTNode) -> Optional[CodeRange]:
        statement = self._statement_of(node)
        if statement is None:
            return None
        done = self._done.get(statement)
        if done is None:
            line = self.lines().get(statement)
            found = _statement_positions(self.module, statement) if line is not None else None
            if found is None or statement not in found:
                return None
            done = self._done[statement] = (found, line - found[statement].start.line)
        positions, shift = done
        rng = positions.get(node)
        if rng is None:
            return None
        return _shifted(rng, shift) if shift else rng

    def _statement_of(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        above = self.parent(node)
        while above is not None and above is not self.module:
            node, above = above, self.parent(above)
        return node if above is self.module else None

    def lines(self) -> Dict[cst.CSTNode, int]:
        """Each top-level statement's first line, from CPython's tree; empty when
        the trees do not pair (or line ends CPython counts another way)."""
        if self._lines is None:
            self._lines = _top_lines(self.module, self.source)
        return self._lines


def _top_lines(module: cst.Module, source: str) -> Dict[cst.CSTNode, int]:
    if "\r" in source or "\f" in source:
        return {}
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    theirs: List[ast.stmt] = tree.body
    out: Dict[cst.CSTNode, int] = {}
    k = 0
    for statement in module.body:
        # One line of ``a = 1; b = 2`` is one LibCST statement, two of CPython's.
        size = len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
        if k + size > len(theirs) or size == 0:
            return {}
        out[statement] = theirs[k].lineno
        k += size
    return out if k == len(theirs) else {}


def _shifted(rng: CodeRange, lines: int) -> CodeRange:
    from libcst.metadata import CodePosition, CodeRange

    start, end = rng.start, rng.end
    return CodeRange(
        CodePosition(start.line + lines, start.column), CodePosition(end.line + lines, end.column)
    )
