"""Notebooks under --verify: the code cells joined in order, as the linter reads them.

Linter side: ``NotebookView`` holds the module the linter parsed (one
marker line before each cell, IPython syntax neutralised line for line),
maps a finding to its lines in that module, maps the lines named in a
verdict back to cells ("cell 3, line 4"), and writes verified fixes into
the notebook through the same cell mapping as ``--fix``. Worker side:
``ipython_names`` gives the names Jupyter puts in a notebook's namespace
(``display``, ``get_ipython``).
"""

from __future__ import annotations

import re
from typing import Optional, Tuple

_LINES = re.compile(r"\b(lines?) (\d+)(?:-(\d+))?")


class NotebookView:
    def __init__(self, text: str) -> None:
        from tflint_perf.run.notebooks import join, read

        self.notebook = read(text)
        self.joined = join(self.notebook.cells)
        self.source = self.joined.source
        self._starts = {
            cell.number: start for cell, start in zip(self.joined.cells, self.joined.starts)
        }

    def position(self, finding) -> Tuple[int, int]:
        """The finding's first and last line in the joined module."""
        start = self._starts.get(finding.extra.get("cell"), 1)
        first = start + finding.extra.get("cell_line", 1) - 1
        last = start + finding.extra.get("cell_end_line", finding.extra.get("cell_line", 1)) - 1
        return first, last

    def ref(self, line: int) -> str:
        cell, in_cell = self.joined.locate(line)
        return f"cell {cell.number}, line {in_cell}"

    def cells_text(self, text: str) -> str:
        """``line 12`` / ``lines 12-15`` of the joined module, said as cells."""

        def one(match) -> str:
            first = self.ref(int(match.group(2)))
            if not match.group(3):
                return first
            return f"{first} to {self.ref(int(match.group(3)))}"

        return _LINES.sub(one, text)

    def write(self, fixed_source: str) -> Optional[str]:
        """The notebook's file text with the fixed joined module put back into its cells."""
        from tflint_perf.run.notebooks import apply_fixed

        return apply_fixed(self.notebook, fixed_source)


class _Shell:
    """Enough of ``get_ipython()`` for notebooks that configure their shell."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def _display(*objects, **kwargs) -> None:
    """Jupyter's ``display``: nothing to show in a worker."""


def ipython_names() -> dict:
    return {"display": _display, "get_ipython": _Shell}
