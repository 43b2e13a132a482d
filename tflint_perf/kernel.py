"""One cell linted as a kernel runs it: in the context of the cells run before it.

The cells a kernel ran are joined in *execution* order, with the notebook
cell marker before each, and linted as one module, the way
``run/notebooks.py`` lints a notebook file in file order; only the findings
in the cell being run are kept. So a ``set_memory_growth`` cell run after a
model cell is TFP301 even when it sits first in the notebook file.

Each cell is numbered by its execution count, so "cell 7" in a message is
the cell Jupyter shows as ``In [7]``.

Linting the whole history costs time in proportion to its length, so the
context is kept to ``CONTEXT_LINES`` lines (``bench/ipython_cells.py``
measures the time a cell pays). While the cells run so far fit, they are all
the context. Past that, the context is chosen: first the cells that bind a
name the cell reads (the newest binder first, then what those cells read,
and so on), then the other cells, oldest first (a notebook's first cells
import, configure devices and start the runtime); a cell whose code ran
before is taken once.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import FrozenSet, List, Optional, Set, Tuple

from tflint_perf.engine import noqa
from tflint_perf.engine.cells import NOTEBOOK_MARKER
from tflint_perf.engine.linter import cpython_tree, lint_source
from tflint_perf.engine.rule import Finding
from tflint_perf.run import notebooks

# Lines of earlier cells linted with a cell: the time a cell pays grows with
# them (bench/ipython_cells.py; the figures are in docs/notebooks.md).
CONTEXT_LINES = 150
# A star import may bind any name.
_ANY_NAME = "*"


@dataclass(frozen=True)
class RunCell:
    """A cell as the kernel ran it."""

    number: int  # its execution count: In [number]
    text: str  # the source, ``# tflint-perf: noqa`` lines blanked
    lines: int
    compiles: bool  # CPython compiles it (IPython syntax neutralised)
    off: bool  # it has a ``# tflint-perf: noqa`` line: not linted
    binds: FrozenSet[str]  # names it assigns, defines or imports
    reads: FrozenSet[str]  # names it reads


def run_cell(number: int, source: str) -> RunCell:
    """The cell ``In [number]`` with its facts, computed once."""
    # In a kernel there is no file to turn off: such a line turns off its own
    # cell, and is blanked so that the cell does not turn off the later cells
    # it is the context of.
    lines = source.split("\n")
    text = "\n".join("" if noqa.file_is_exempt(line) else line for line in lines)
    tree = cpython_tree(notebooks.neutralise(text))
    binds, reads = _names(tree) if tree is not None else (frozenset(), frozenset())
    off = text != source
    return RunCell(number, text, len(lines), tree is not None, off, binds, reads)


def warm_up() -> None:
    """Import LibCST and the rules now, so that the first cell does not pay for it."""
    from tflint_perf.rules import all_rules

    lint_source(
        "import tensorflow as tf\nfor x in []:\n    tf.add(x, 1)\n", "warm-up.py", all_rules()
    )


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _names(tree: ast.Module) -> Tuple[FrozenSet[str], FrozenSet[str]]:
    """The names a cell binds in the module's namespace and the names it reads
    from it (a function's own locals and parameters are neither)."""
    binds: Set[str] = set()
    reads: Set[str] = set()
    todo: List[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, _SCOPES):
            if not isinstance(node, ast.Lambda):
                binds.add(node.name)
            free, declared_global = _free_names(node)
            reads |= free
            binds |= declared_global
            continue
        if isinstance(node, ast.Name):
            (reads if isinstance(node.ctx, ast.Load) else binds).add(node.id)
        elif isinstance(node, ast.alias):
            binds.add((node.asname or node.name).split(".")[0])
        todo.extend(ast.iter_child_nodes(node))
    return frozenset(binds), frozenset(reads)


def _free_names(scope: ast.AST) -> Tuple[Set[str], Set[str]]:
    """What a function or class (and what it nests) reads but does not bind
    itself, and the names it declares ``global``."""
    local: Set[str] = set()
    loads: Set[str] = set()
    declared: Set[str] = set()
    for node in ast.walk(scope):
        if isinstance(node, ast.Name):
            (loads if isinstance(node.ctx, ast.Load) else local).add(node.id)
        elif isinstance(node, ast.arg):
            local.add(node.arg)
        elif isinstance(node, _SCOPES) and node is not scope and not isinstance(node, ast.Lambda):
            local.add(node.name)
        elif isinstance(node, ast.alias):
            local.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.Global):
            declared.update(node.names)
    return loads - (local - declared), declared


class History:
    """The cells this kernel ran, in execution order."""

    def __init__(self) -> None:
        self.cells: List[RunCell] = []

    def add(self, cell: RunCell) -> None:
        self.cells.append(cell)

    def context(self, cell: RunCell, limit: Optional[int] = None) -> List[RunCell]:
        """The earlier cells ``cell`` is linted with, in execution order."""
        limit = CONTEXT_LINES if limit is None else limit
        if sum(c.lines for c in self.cells) <= limit:
            return list(self.cells)
        chosen, seen_texts, used = set(), set(), 0
        for index in self._priority(cell):
            earlier = self.cells[index]
            if earlier.text in seen_texts or used + earlier.lines > limit:
                continue
            chosen.add(index)
            seen_texts.add(earlier.text)
            used += earlier.lines
        return [self.cells[i] for i in sorted(chosen)]

    def _priority(self, cell: RunCell) -> List[int]:
        """Indexes of the earlier cells, most needed first: the binders of the
        names ``cell`` reads (newest first), then theirs, then the rest, oldest first."""
        order: List[int] = []
        taken = set()
        wanted = set(cell.reads)
        frontier = set(wanted)
        while frontier:
            found: Set[str] = set()
            for index in range(len(self.cells) - 1, -1, -1):
                earlier = self.cells[index]
                if index in taken:
                    continue
                if earlier.binds & frontier or _ANY_NAME in earlier.binds:
                    taken.add(index)
                    order.append(index)
                    found |= earlier.reads
            frontier = found - wanted
            wanted |= frontier
        order += [i for i in range(len(self.cells)) if i not in taken]
        return order

    def lint(self, cell: RunCell, path: str, rules) -> List[Finding]:
        """The findings in ``cell``, linted after its context.

        A cell that does not compile gets none: IPython reports its syntax
        error itself. (A TFP000 in a cell that compiles is LibCST's limit.)
        """
        if not cell.compiles or cell.off:
            return []
        cells = [notebooks.Cell(c.number, c.text, False, []) for c in [*self.context(cell), cell]]
        joined = notebooks.join(cells)
        first = joined.starts[-1]
        findings = lint_source(joined.source, path, rules, NOTEBOOK_MARKER)
        # ``extra["cell_line"]`` is the line in the cell (the engine's notebook data).
        return [f for f in findings if f.line >= first]
