"""Code frames for the default (``full``) text output, laid out as ruff 0.17 does.

    TFP302 [*] `gc.collect()` on every step of the training loop
     --> train.py:20:13
       |
    19 |     for step in range(steps):
    20 |         gc.collect()
       |         ^^^^^^^^^^^^
    21 |         loss = train_step()
       |
    help: Remove the `gc.collect()` call
       |
    19 |     for step in range(steps):
       -         gc.collect()
    20 |         loss = train_step()
       |

The frame shows the flagged lines with two lines of context (blank edge
lines trimmed), the span underlined; ``info:`` holds the finding's detail,
``help:`` the fix's message, then the fix as a diff with one line of
context (line numbers of the fixed file), and ``note:`` for an unsafe fix.
Notebooks show cell lines, and their fixes cell by cell.
"""

from __future__ import annotations

import difflib
import unicodedata
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from tflint_perf.engine.rule import SAFE, Finding

CONTEXT = 2  # source lines shown around the span
DIFF_CONTEXT = 1  # unchanged lines shown around each change of a fix
FOLD_AFTER = 6  # a span longer than this shows its first and last two lines
TAB = "    "
UNSAFE_NOTE = "This is an unsafe fix and may change runtime behavior"


@dataclass
class Unit:
    """The text a finding points into: a module, or one notebook cell."""

    lines: List[str]
    # The fix applied, per unit: (label, old lines, new lines); label is
    # "" for a module, "cell N" for a notebook cell.
    fixed: List[Tuple[str, List[str], List[str]]] = field(default_factory=list)


class Paint:
    """ANSI colours when writing to a terminal, nothing otherwise."""

    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.color and text else text


# Colours as ruff prints them.
CODE, BOLD, GUTTER, CARET, HELP, NOTE, INFO, REMOVED, ADDED, FIXABLE = (
    "1;91",
    "1",
    "1;94",
    "1;91",
    "1;96",
    "1;33",
    "1;32",
    "31",
    "32",
    "1;36",
)


def display(text: str) -> str:
    return text.rstrip("\r\n").replace("\t", TAB)


def width(text: str) -> int:
    """Columns ``text`` takes on a terminal (tabs expanded, wide characters 2)."""
    text = text.replace("\t", TAB)
    if text.isascii():
        return len(text)
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


# A row of a frame: (gutter label, mark, text, style of the text). The mark
# is "|" for source and annotation rows, "-"/"+" in a diff.
Row = Tuple[str, str, str, str]


def _edge_trimmed(lines: Sequence[str], first: int, last: int, start: int, end: int):
    """The shown range [first, last] minus blank lines at its edges outside [start, end]."""
    while first < start and not lines[first - 1].strip():
        first += 1
    while last > end and not lines[last - 1].strip():
        last -= 1
    return first, last


def frame_rows(lines: Sequence[str], line: int, column: int, end_line: int, end_column: int):
    """The source rows with the span ``(line, column)``-``(end_line, end_column)``
    (1-based, end exclusive) underlined."""
    count = len(lines)
    line = min(max(line, 1), max(count, 1))
    end_line = min(max(end_line, line), max(count, 1))
    if not lines:
        return []
    first, last = _edge_trimmed(
        lines, max(1, line - CONTEXT), min(count, end_line + CONTEXT), line, end_line
    )
    rows: List[Row] = []
    if end_line == line:
        text = lines[line - 1]
        start = width(text[: max(column - 1, 0)])
        length = max(width(text[max(column - 1, 0) : max(end_column - 1, column)]), 1)
        for number in range(first, last + 1):
            rows.append((str(number), "|", display(lines[number - 1]), ""))
            if number == line:
                rows.append(("", "|", " " * start + "^" * length, CARET))
        return rows
    return _multi_line_rows(lines, first, last, line, column, end_line, end_column)


def _multi_line_rows(lines, first, last, line, column, end_line, end_column) -> List[Row]:
    """A span over several lines, drawn as annotate-snippets draws it:
    ``/`` (or ``_^``) where it starts, ``|`` beside it, ``|__^`` where it ends."""
    rows: List[Row] = []
    opening = lines[line - 1]
    at_indent = not opening[: max(column - 1, 0)].strip()
    folded = end_line - line + 1 > FOLD_AFTER
    for number in range(first, last + 1):
        text = display(lines[number - 1])
        if folded and line + 2 <= number <= end_line - 2:
            if number == line + 2:
                rows.append(("...", "", "", ""))
            continue
        if number == line and at_indent:
            rows.append((str(number), "|", "/ " + text, ""))
            continue
        inside = line < number <= end_line
        rows.append((str(number), "|", ("| " if inside else "  ") + text, ""))
        if number == line:
            start = width(opening[: max(column - 1, 0)])
            rows.append(("", "|", " " + "_" * (start + 1) + "^", CARET))
        elif number == end_line:
            stop = max(width(lines[end_line - 1][: max(end_column - 2, 0)]), 0)
            rows.append(("", "|", "|" + "_" * (stop + 1) + "^", CARET))
    return rows


def diff_rows(old: List[str], new: List[str]) -> List[Row]:
    """The change from ``old`` to ``new`` lines: ``-`` rows for removed lines,
    ``+`` rows (numbered in the new text) for added ones, one line of context."""
    rows: List[Row] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for k, group in enumerate(matcher.get_grouped_opcodes(DIFF_CONTEXT)):
        if k:
            rows.append(("...", "", "", ""))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                rows += [(str(j + 1), "|", display(new[j]), "") for j in range(j1, j2)]
                continue
            rows += [("", "-", display(old[i]), REMOVED) for i in range(i1, i2)]
            rows += [(str(j + 1), "+", display(new[j]), ADDED) for j in range(j1, j2)]
    return rows


def _render_rows(rows: Sequence[Row], gutter: int, paint: Paint) -> List[str]:
    out = []
    for label, mark, text, style in rows:
        if label == "...":
            out.append(paint("...", GUTTER))
            continue
        if mark in "-+":
            head = paint(f"{label:>{gutter}} ", GUTTER) + paint(mark, style)
        else:
            head = paint(f"{label:>{gutter}} {mark}", GUTTER)
        body = f" {text}".rstrip() if text.strip() else ""
        out.append(head + (paint(body, style) if style else body))
    return out


def location(f: Finding) -> str:
    """``path:line:col``; a notebook finding says which cell (``path:cell 3:2:5``)."""
    cell = f.extra.get("cell")
    if cell is not None:
        return f"{f.path}:cell {cell}:{f.extra.get('cell_line', f.line)}:{f.column}"
    return f"{f.path}:{f.line}:{f.column}"


def render(
    f: Finding,
    unit: Optional[Unit],
    paint: Paint,
    fixable: bool,
    show_fixes: bool = True,
) -> str:
    """One finding in the full format, ending with a blank line."""
    marker = " " + paint("[*]", FIXABLE) if fixable else ""
    lines = [paint(f.code, CODE) + marker + " " + paint(f.message, BOLD)]
    frame: List[Row] = []
    if unit is not None:
        start = f.extra.get("cell_line", f.line)
        end = f.extra.get("cell_end_line", f.end_line)
        frame = frame_rows(unit.lines, start, f.column, end, f.end_column)
    fix_parts: List[Tuple[str, List[Row]]] = []
    if show_fixes and f.fix is not None and unit is not None:
        fix_parts = [(label, diff_rows(old, new)) for label, old, new in unit.fixed]
        fix_parts = [(label, rows) for label, rows in fix_parts if rows]
    labels = [r[0] for r in frame] + [r[0] for _, rows in fix_parts for r in rows]
    gutter = max([len(x) for x in labels if x != "..."] + [1])
    pad = " " * gutter
    lines.append(paint(pad + "-->", GUTTER) + " " + location(f))
    if frame:
        lines.append(paint(pad + " |", GUTTER))
        lines += _render_rows(frame, gutter, paint)
        if frame[-1][3] != CARET:
            lines.append(paint(pad + " |", GUTTER))
    if f.detail:
        lines += _labelled("info", f.detail, INFO, paint)
    if f.fix is not None and f.fix.message:
        lines += _labelled("help", f.fix.message, HELP, paint)
    for label, rows in fix_parts:
        if label:
            lines.append(paint(pad + ":::", GUTTER) + " " + label)
        lines.append(paint(pad + " |", GUTTER))
        lines += _render_rows(rows, gutter, paint)
        lines.append(paint(pad + " |", GUTTER))
    if f.fix is not None and f.fix.safety != SAFE and fix_parts:
        lines += _labelled("note", UNSAFE_NOTE, NOTE, paint)
    return "\n".join(lines) + "\n\n"


def _labelled(label: str, text: str, style: str, paint: Paint) -> List[str]:
    """``label: text``, further lines of ``text`` indented under its first."""
    first, *rest = text.strip("\n").split("\n")
    indent = " " * (len(label) + 2)
    return [paint(label, style) + paint(": " + first, BOLD)] + [
        (indent + line).rstrip() for line in rest
    ]


# -- where the frames' text comes from -------------------------------------------


class Sources:
    """The text each reported file had when its findings were made, read once
    per file: the file on disk (after ``--fix``, the fixed file), or the text
    given for stdin."""

    def __init__(self, given: Optional[Dict[str, str]] = None) -> None:
        self.given = dict(given or {})
        self._texts: Dict[str, Optional[str]] = {}

    def text(self, path: str) -> Optional[str]:
        if path not in self._texts:
            self._texts[path] = self.given[path] if path in self.given else _read(path)
        return self._texts[path]

    def unit(self, f: Finding) -> Optional[Unit]:
        text = self.text(f.path)
        if text is None:
            return None
        if f.path.lower().endswith(".ipynb"):
            return _notebook_unit(text, f)
        unit = Unit(_lines(text))
        if f.fix is not None:
            from tflint_perf.engine.fixes import apply_edits

            unit.fixed = [("", unit.lines, _lines(apply_edits(text, f.fix.edits)))]
        return unit


def _lines(text: str) -> List[str]:
    """The lines of ``text`` (split at ``\\n`` only, as the linter counts them)."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _read(path: str) -> Optional[str]:
    from tflint_perf.run.files import decode, read_bytes

    try:
        return decode(read_bytes(path))[0]
    except (OSError, ValueError):
        return None


def _notebook_unit(text: str, f: Finding) -> Optional[Unit]:
    from tflint_perf.run import notebooks

    try:
        notebook = notebooks.read(text)
    except notebooks.NotebookError:
        return None
    cells = {cell.number: cell for cell in notebook.cells}
    cell = cells.get(f.extra.get("cell", 0))
    if cell is None:
        return None
    unit = Unit(_lines(cell.text))
    if f.fix is not None:
        for number, new_text in sorted(notebooks.fixed_cells(notebook, f.fix.edits).items()):
            unit.fixed.append((f"cell {number}", _lines(cells[number].text), _lines(new_text)))
    return unit


Lookup = Callable[[Finding], Optional[Unit]]
