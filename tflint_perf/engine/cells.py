"""Modules made of cells: a notebook's code cells joined, or a script with
``# %%`` cell markers (Jupytext's percent format, VS Code, Spyder).

Cells run one at a time, so one cell that does not parse must not silence
the others: the linter reports that cell as ``TFP000`` and lints the rest
with the broken cell's lines left blank (line numbers unchanged).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import List, Optional, Pattern, Tuple

# A ``# %%`` line starts a cell in percent-format scripts.
PERCENT_MARKER = re.compile(r"^# ?%%")
# The line tflint-perf puts before each code cell of a notebook it joins.
NOTEBOOK_MARKER = re.compile(r"^# <tflint-perf cell (\d+)>$")
NOTEBOOK_MARKER_TEXT = "# <tflint-perf cell {}>"
# ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT: IPython runs top-level await.
_CELL_FLAGS = 0x400 | 0x2000


@dataclass(frozen=True)
class Cells:
    """Where each cell's code lies in the module (1-based lines)."""

    firsts: Tuple[int, ...]  # first line of each cell (the line after its marker)
    lasts: Tuple[int, ...]  # last line of each cell
    numbers: Tuple[int, ...]  # the number users know the cell by
    in_notebook: bool  # positions are told as "cell N, line M"

    @classmethod
    def find(cls, source: str, marker: Pattern, in_notebook: bool) -> Optional["Cells"]:
        """The cells of ``source`` split at ``marker`` lines; None without markers."""
        lines = source.split("\n")
        marks = [i + 1 for i, line in enumerate(lines) if marker.match(line.rstrip("\r"))]
        if not marks:
            return None
        ends = marks[1:] + [len(lines) + 1]
        numbers = []
        for k, line in enumerate(marks):
            match = marker.match(lines[line - 1].rstrip("\r"))
            group = match.group(1) if match and match.groups() else None
            numbers.append(int(group) if group else k + 1)
        return cls(
            tuple(m + 1 for m in marks), tuple(e - 1 for e in ends), tuple(numbers), in_notebook
        )

    def locate(self, line: int) -> Tuple[int, int]:
        """(cell number, 1-based line in the cell) of a module line.

        A line before the first cell counts as the first cell's first line;
        a marker line as the last line of the cell before it.
        """
        k = bisect.bisect_right(self.firsts, line) - 1
        if k < 0:
            return self.numbers[0], 1
        return self.numbers[k], line - self.firsts[k] + 1

    def line_ref(self, line: int) -> str:
        """How a message names a line: ``line 12`` or ``cell 3, line 4``."""
        if not self.in_notebook:
            return f"line {line}"
        cell, in_cell = self.locate(line)
        return f"cell {cell}, line {in_cell}"

    def broken(self, source: str) -> List[Tuple[int, int, int, str]]:
        """Cells that do not compile on their own: (index, line, column, message),
        line and column in the module."""
        lines = source.split("\n")
        out = []
        for k, (first, last) in enumerate(zip(self.firsts, self.lasts)):
            text = "\n".join(lines[first - 1 : last]) + "\n"
            error = compile_error(text, _CELL_FLAGS)
            if error is not None:
                line, column, message = error
                out.append((k, first + line - 1, column, message))
        return out

    def blank(self, source: str, indexes) -> str:
        """``source`` with the lines of the given cells emptied (same line count)."""
        lines = source.split("\n")
        for k in indexes:
            for i in range(self.firsts[k] - 1, min(self.lasts[k], len(lines))):
                lines[i] = ""
        return "\n".join(lines)


def compile_error(source: str, flags: int = 0x400) -> Optional[Tuple[int, int, str]]:
    """CPython's (line, column, message) for source that does not compile, else None.

    Pathological input (a 3,000-term expression, deep nesting) that CPython
    cannot compile either is reported, not raised.
    """
    try:
        compile(source, "<tflint-perf>", "exec", flags=flags, dont_inherit=True)
    except SyntaxError as exc:
        return exc.lineno or 1, exc.offset or 1, f"SyntaxError: {exc.msg}"
    except ValueError as exc:  # null bytes
        return 1, 1, f"SyntaxError: {exc}"
    except (RecursionError, MemoryError) as exc:  # what CPython says, as flake8's E999
        return 1, 1, f"{type(exc).__name__}: {exc}"
    return None
