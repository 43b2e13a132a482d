"""Jupyter notebooks (nbformat 4 ``.ipynb``): lint the code cells as one module.

The code cells are joined in order, so rules see the notebook as it runs
top to bottom (device configuration in cell 5 after a tensor in cell 2 is
TFP301). Before each cell goes a marker comment line; IPython syntax that is
not Python (``%magic``, ``!shell``, ``x = !cmd``, ``obj?``, ``%%cell`` magics)
is neutralised line for line, so every other line keeps its number and
column inside its cell.

Where findings point:

- ``line``/``end_line``: the line of the ``.ipynb`` file (the JSON text) that
  holds that source line, so SARIF, GitHub annotations and ``git diff`` all
  point into the notebook file itself;
- ``cell`` (1-based index among the *code* cells), ``cell_line`` and
  ``cell_end_line``: where it is in the notebook as Jupyter shows it;
- ``column``/``end_column``: 1-based columns in the cell's source line.

``--fix`` rewrites only the ``source`` value of cells whose code changed; the
rest of the file (outputs, metadata, key order, indentation, escapes, the
trailing newline) is kept byte for byte.
"""

from __future__ import annotations

import bisect
import difflib
import json
import re
from dataclasses import dataclass, field
from json.decoder import scanstring  # type: ignore[attr-defined]  # in json.decoder, not in typeshed's stub
from typing import Dict, List, Optional, Tuple

from tflint_perf.engine.cells import NOTEBOOK_MARKER_TEXT, compile_error
from tflint_perf.run.result import CHECK, FileResult

SUFFIX = ".ipynb"
_PLACEHOLDER = "pass  # <tflint-perf magic>"
# Cell magics whose body is ordinary Python run once in the user namespace
# (``tflint_perf``: the IPython extension's, tflint_perf/ipython.py).
_PYTHON_BODY_CELL_MAGICS = frozenset({"time", "capture", "tflint_perf"})
_WS = re.compile(r"[ \t\n\r]*")
_ASSIGN_MAGIC = re.compile(r"^\s*[\w.\[\]'\", ]+?\s*=\s*[%!]")
# Words IPython runs without `%` or `!` (automagic and the default shell
# aliases): `pip install x`, `cd data`, `ls -l` in a cell are not Python.
_AUTOMAGIC = (
    "pip|pip3|conda|cd|ls|ll|pwd|mkdir|rmdir|rm|cp|mv|cat|env|load_ext|reload_ext|"
    "matplotlib|tensorboard|tensorflow_version|timeit|time|run|who|whos|history|reset|"
    "config|autoreload|pylab|alias|unalias|sx|system|debug|pdb|prun|xmode|bookmark|"
    "dirs|pushd|popd|wget|unzip|git|nvidia-smi"
)
_AUTOMAGIC_LINE = re.compile(rf"^[ \t]*(?:{_AUTOMAGIC})[ \t]+[^\s=(.,:\[)]", re.MULTILINE)
_MAYBE_IPYTHON = re.compile(
    rf"^[ \t]*[%!?]|\?[ \t]*(?:#.*)?$|=[ \t]*[%!]|{_AUTOMAGIC_LINE.pattern[1:]}", re.MULTILINE
)


def is_notebook(path: str) -> bool:
    return path.lower().endswith(SUFFIX)


class NotebookError(ValueError):
    """Not a readable nbformat 4 notebook; ``line`` is where, in the file."""

    def __init__(self, message: str, line: int = 1) -> None:
        super().__init__(message)
        self.line = line


# -- reading: where each cell's source sits in the file ---------------------


@dataclass
class _Span:
    start: int  # offset of the value (``[`` or ``"``)
    end: int  # offset just after it
    items: Optional[List[Tuple[int, int]]]  # list form: each string's span; None for one string


def _ws(text: str, i: int) -> int:
    match = _WS.match(text, i)
    assert match is not None, "_WS matches the empty string"
    return match.end()


def _expect(text: str, i: int, char: str) -> int:
    if text[i : i + 1] != char:
        raise ValueError(f"expected {char!r} at offset {i}")
    return i + 1


def _source_spans(text: str) -> List[Optional[_Span]]:
    """The span of every cell's ``source`` value, in cell order.

    A small navigator over the JSON text: it descends only into the top-level
    object, its ``cells`` list and each cell object; everything else is
    skipped with the C JSON decoder.
    """
    skip = json.JSONDecoder().raw_decode
    spans: List[Optional[_Span]] = []

    def members(i: int, on_value) -> int:
        i = _expect(text, _ws(text, i), "{")
        i = _ws(text, i)
        if text[i : i + 1] == "}":
            return i + 1
        while True:
            key, i = scanstring(text, _expect(text, _ws(text, i), '"'))
            i = _ws(text, _expect(text, _ws(text, i), ":"))
            i = on_value(key, i)
            i = _ws(text, i)
            if text[i : i + 1] == ",":
                i += 1
                continue
            return _expect(text, i, "}")

    def source_value(i: int) -> int:
        if text[i : i + 1] == '"':
            _, end = scanstring(text, i + 1)
            spans[-1] = _Span(i, end, None)
            return end
        start = i
        items = []
        i = _ws(text, _expect(text, i, "["))
        if text[i : i + 1] != "]":
            while True:
                item_start = i
                _, i = scanstring(text, _expect(text, i, '"'))
                items.append((item_start, i))
                i = _ws(text, i)
                if text[i : i + 1] != ",":
                    break
                i = _ws(text, i + 1)
        i = _expect(text, i, "]")
        spans[-1] = _Span(start, i, items)
        return i

    def cell_value(key: str, i: int) -> int:
        if key == "source":
            return source_value(i)
        return skip(text, i)[1]

    def top_value(key: str, i: int) -> int:
        if key != "cells" or text[i : i + 1] != "[":
            return skip(text, i)[1]
        i = _ws(text, i + 1)
        if text[i : i + 1] == "]":
            return i + 1
        while True:
            spans.append(None)
            i = _ws(text, members(i, cell_value))
            if text[i : i + 1] != ",":
                return _expect(text, i, "]")
            i += 1

    members(0, top_value)
    return spans


@dataclass
class Cell:
    number: int  # 1-based among all cells (markdown ones too), as ruff numbers them
    text: str  # the source as one string
    as_list: bool  # stored as a list of lines (nbformat's usual form)
    file_lines: List[int]  # per source line: the line of the .ipynb that holds it
    span: Optional[_Span] = None
    neutral: str = ""  # the text with IPython syntax neutralised, ending in "\n"

    @property
    def lines(self) -> List[str]:
        return self.text.split("\n")


@dataclass
class Notebook:
    text: str  # the whole file
    cells: List[Cell] = field(default_factory=list)
    python: bool = True
    _line_starts: List[int] = field(default_factory=list)

    def file_line(self, offset: int) -> int:
        return bisect.bisect_right(self._line_starts, offset)


def _split_keep(text: str) -> List[str]:
    """Lines with their ``\\n``, as nbformat stores them."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def _is_python(nb: dict) -> bool:
    meta = nb.get("metadata")
    if not isinstance(meta, dict):
        return True
    for key, sub in (("kernelspec", "language"), ("language_info", "name")):
        value = meta.get(key)
        if isinstance(value, dict) and isinstance(value.get(sub), str):
            return value[sub].lower() in ("python", "python3", "ipython", "ipython3")
    return True


def read(text: str) -> Notebook:
    """Parse a notebook's JSON text; raise NotebookError when it is not one."""
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        nb = json.loads(text)
    except ValueError as exc:
        raise NotebookError(
            f"cannot read notebook: invalid JSON: {getattr(exc, 'msg', exc)}",
            getattr(exc, "lineno", 1),
        ) from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        if isinstance(nb, dict) and "worksheets" in nb:
            raise NotebookError(
                "cannot read notebook: nbformat 3 is not supported (convert it with `jupyter nbconvert --to notebook`)"
            )
        raise NotebookError("cannot read notebook: no 'cells' list (not an nbformat 4 notebook)")
    notebook = Notebook(text, python=_is_python(nb))
    starts = [0]
    starts.extend(m.end() for m in re.finditer("\n", text))
    notebook._line_starts = starts
    try:
        spans = _source_spans(text)
    except (ValueError, IndexError):  # pragma: no cover - json.loads accepted it
        spans = [None] * len(nb["cells"])
    if len(spans) != len(nb["cells"]):  # duplicate "cells" keys and such: no positions
        spans = [None] * len(nb["cells"])
    # Cells are numbered as ruff and Jupyter's cell list count them: every
    # cell, markdown and raw included, from 1.
    for number, (raw, span) in enumerate(zip(nb["cells"], spans), 1):
        if not isinstance(raw, dict) or raw.get("cell_type") != "code":
            continue
        source = raw.get("source", "")
        as_list = isinstance(source, list)
        if as_list:
            items = [s for s in source if isinstance(s, str)]
            text_ = "".join(items)
        else:
            items = [source] if isinstance(source, str) else []
            text_ = items[0] if items else ""
        cell = Cell(number, text_, as_list, [], span)
        cell.file_lines = _file_lines(notebook, cell, items)
        notebook.cells.append(cell)
    return notebook


def _file_lines(notebook: Notebook, cell: Cell, items: List[str]) -> List[int]:
    count = len(cell.lines)
    span = cell.span
    if span is None:
        return [1] * count
    if span.items is None or len(span.items) != len(items):
        return [notebook.file_line(span.start)] * count
    out: List[int] = []
    for item, (start, _) in zip(items, span.items):
        out.extend([notebook.file_line(start)] * item.count("\n"))
    while len(out) < count:  # the last line, without "\n"
        out.append(
            notebook.file_line(span.items[-1][0]) if span.items else notebook.file_line(span.start)
        )
    return out[:count]


# -- IPython syntax ---------------------------------------------------------


def _scan(line: str, state: list) -> str:
    """The code of ``line`` without comments and string contents; updates
    ``state`` = [open triple quote or None, bracket depth, continued]."""
    out = []
    i, n = 0, len(line)
    quote = state[0]
    while i < n:
        ch = line[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if line.startswith(quote, i):
                i += len(quote)
                quote = None
                out.append('""')
                continue
            i += 1
            continue
        if ch == "#":
            break
        if ch in "\"'":
            triple = line[i : i + 3]
            if triple in ('"""', "'''"):
                quote = triple
                i += 3
                continue
            j = i + 1
            while j < n and line[j] != ch:
                j += 2 if line[j] == "\\" else 1
            out.append('""')
            i = j + 1
            continue
        if ch in "([{":
            state[1] += 1
        elif ch in ")]}":
            state[1] = max(0, state[1] - 1)
        out.append(ch)
        i += 1
    state[0] = quote
    code = "".join(out)
    state[2] = quote is None and code.rstrip().endswith("\\")
    return code


def _is_magic(code: str) -> bool:
    stripped = code.strip()
    if not stripped:
        return False
    if stripped[0] in "%!?":
        return True
    if stripped.endswith("?"):  # obj? / obj?? help
        return True
    if _ASSIGN_MAGIC.match(code) is not None:
        return True
    # `pip install x`: an automagic word, then something that is not Python.
    return _AUTOMAGIC_LINE.match(code) is not None and compile_error(stripped) is not None


def neutralise(text: str) -> str:
    """The cell with IPython-only lines replaced, same number of lines.

    A line magic, shell escape or help line (and its backslash
    continuations) becomes a ``pass`` at the same indentation; a cell magic
    blanks the whole cell, except ``%%time`` and ``%%capture`` whose body is
    ordinary Python (only their first line goes).
    """
    if not _MAYBE_IPYTHON.search(text):
        return text  # the common case: plain Python
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        magic = re.match(r"%%(\w*)", lines[first].lstrip())
        assert magic is not None, "the line starts with %%"
        name = magic.group(1)
        if name not in _PYTHON_BODY_CELL_MAGICS:
            return "\n".join("" for _ in lines)
        lines[first] = ""
    state: list = [None, 0, False]
    out = []
    in_magic = False
    indent = ""
    for line in lines:
        logical_start = state[0] is None and state[1] == 0 and not state[2]
        if in_magic:  # a backslash continuation of the magic above
            out.append(indent + _PLACEHOLDER)
            in_magic = line.rstrip().endswith("\\")
            continue
        if logical_start and _is_magic(_scan(line, list(state))):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(indent + _PLACEHOLDER)
            in_magic = line.rstrip().endswith("\\")
            continue
        _scan(line, state)
        out.append(line)
    return "\n".join(out)


# -- joining and mapping ----------------------------------------------------


@dataclass
class Joined:
    source: str
    starts: List[int]  # joined line of each cell's first source line
    cells: List[Cell]

    def locate(self, line: int) -> Tuple[Cell, int]:
        """(cell, 1-based line in the cell) of a joined line; a marker line
        counts as the end of the cell before it."""
        k = bisect.bisect_right(self.starts, line) - 1
        if k < 0:
            return self.cells[0], 1
        return self.cells[k], line - self.starts[k] + 1


def join(cells: List[Cell]) -> Joined:
    parts: List[str] = []
    starts: List[int] = []
    line = 1
    for cell in cells:
        neutral = neutralise(cell.text)
        if neutral and not neutral.endswith("\n"):
            neutral += "\n"
        cell.neutral = neutral
        parts.append(NOTEBOOK_MARKER_TEXT.format(cell.number) + "\n")
        line += 1
        starts.append(line)
        parts.append(neutral)
        line += neutral.count("\n")
    return Joined("".join(parts), starts, cells)


def _split_joined(source: str, cells: List[Cell]) -> Optional[List[str]]:
    """The cells' new neutral texts from a fixed joined source, or None when
    a fix moved a marker (code would cross cells in a way we cannot map)."""
    lines = source.splitlines(keepends=True)
    markers = [
        i for i, line in enumerate(lines) if line.rstrip("\r\n").startswith("# <tflint-perf cell ")
    ]
    expected = [NOTEBOOK_MARKER_TEXT.format(c.number) for c in cells]
    if [lines[i].rstrip("\r\n") for i in markers] != expected:
        return None
    out = []
    for k, start in enumerate(markers):
        end = markers[k + 1] if k + 1 < len(markers) else len(lines)
        out.append("".join(lines[start + 1 : end]))
    return out


def _restore(cell: Cell, new_neutral: str) -> Optional[str]:
    """Put the original IPython lines back into a fixed cell text; None if a
    fix moved or duplicated one of them, or edited a blanked ``%%`` cell."""
    if not cell.neutral.strip() and cell.text.strip():
        return None
    old_neutral = cell.neutral.split("\n")
    old_text = cell.text.split("\n")
    if len(old_text) < len(old_neutral):
        old_text += [""] * (len(old_neutral) - len(old_text))
    new = new_neutral.split("\n")
    result = list(new)
    matched = set()
    matcher = difflib.SequenceMatcher(None, old_neutral, new, autojunk=False)
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            result[block.b + offset] = old_text[block.a + offset]
            matched.add(block.b + offset)
    for index, line in enumerate(new):
        if index not in matched and _PLACEHOLDER in line:
            return None
    text = "\n".join(result)
    if not cell.text.endswith("\n") and text.endswith("\n"):
        text = text[:-1]
    return text


# -- writing back -----------------------------------------------------------


def _detect_ascii(text: str) -> bool:
    if any(ord(ch) > 127 for ch in text):
        return False
    return re.search(r"\\u[0-9a-fA-F]{4}", text) is not None


def _line_indent(text: str, offset: int) -> str:
    start = text.rfind("\n", 0, offset) + 1
    line = text[start:offset]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _indent_unit(text: str) -> str:
    match = re.search(r"\n([ \t]+)\S", text)
    return match.group(1) if match else " "


def _serialise(notebook: Notebook, cell: Cell, new_text: str, ensure_ascii: bool) -> str:
    text, span = notebook.text, cell.span
    assert span is not None, "write_back serialises only cells it found in the file"
    if not cell.as_list:
        return json.dumps(new_text, ensure_ascii=ensure_ascii)
    items = [json.dumps(s, ensure_ascii=ensure_ascii) for s in _split_keep(new_text)]
    if not items:
        return "[]"
    old = span.items
    if old:
        opening = text[span.start + 1 : old[0][0]]
        closing = text[old[-1][1] : span.end - 1]
        sep = text[old[0][1] : old[1][0]] if len(old) > 1 else "," + opening
    elif "\n" in text:
        key_indent = _line_indent(text, span.start)
        opening = "\n" + key_indent + _indent_unit(text)
        closing = "\n" + key_indent
        sep = "," + opening
    else:
        opening = closing = ""
        sep = ", " if '", "' in text else ","
    return "[" + opening + sep.join(items) + closing + "]"


def write_back(notebook: Notebook, new_texts: Dict[int, str]) -> str:
    """The file text with the ``source`` of the given cells (by number)
    replaced; everything else byte for byte as it was."""
    out = notebook.text
    ensure_ascii = _detect_ascii(notebook.text)
    for cell in reversed(notebook.cells):  # spans are in file order
        if cell.number not in new_texts or cell.span is None:
            continue
        value = _serialise(notebook, cell, new_texts[cell.number], ensure_ascii)
        out = out[: cell.span.start] + value + out[cell.span.end :]
    return out


# -- linting ----------------------------------------------------------------


def _cell_file_line(cell: Cell, line: int) -> int:
    if not cell.file_lines:
        return 1
    return cell.file_lines[min(max(line, 1), len(cell.file_lines)) - 1]


def _char_offsets(text: str, start: int, end: int) -> List[int]:
    """File offset of each character the JSON string ``text[start:end]``
    (quotes included) decodes to, and of its closing quote."""
    out = []
    i, stop = start + 1, end - 1
    while i < stop:
        out.append(i)
        if text[i] != "\\":
            i += 1
        elif text[i + 1] != "u":
            i += 2
        else:  # \uXXXX, or a surrogate pair that decodes to one character
            high = 0xD800 <= int(text[i + 2 : i + 6], 16) < 0xDC00
            i += 12 if high and text.startswith("\\u", i + 6) else 6
    out.append(i)
    return out


def _file_position(notebook: Notebook, cell: Cell, line: int, column: int):
    """(line, column) in the ``.ipynb`` text of a 1-based (line, column) in
    the cell, or None when the cell's source cannot be located."""
    span = cell.span
    if span is None:
        return None
    items = span.items if span.items is not None else [(span.start, span.end)]
    lines = cell.lines
    offset = sum(len(t) + 1 for t in lines[: max(line, 1) - 1]) + max(column, 1) - 1
    for k, (start, end) in enumerate(items):
        chars = _char_offsets(notebook.text, start, end)
        if offset < len(chars) - 1 or k == len(items) - 1:
            raw = chars[min(offset, len(chars) - 1)]
            file_line = notebook.file_line(raw)
            return file_line, raw - notebook._line_starts[file_line - 1] + 1
        offset -= len(chars) - 1
    return None


def _add_file_columns(f, notebook: Notebook, cell: Cell) -> None:
    """Columns in the ``.ipynb`` line that ``line`` points at (SARIF, GitHub)."""
    start = _file_position(notebook, cell, f.extra.get("cell_line", 1), f.column)
    if start is None or start[0] != f.line:
        return
    end = _file_position(notebook, cell, f.extra.get("cell_end_line", 1), f.end_column)
    f.extra["file_column"] = start[1]
    f.extra["file_end_column"] = end[1] if end is not None and end[0] == f.end_line else start[1]


def _map_edit(joined: Joined, edit) -> dict:
    cell, line = joined.locate(edit.line)
    end_cell, end_line = joined.locate(edit.end_line)
    return {
        "cell": cell.number,
        "line": line,
        "column": edit.column + 1,
        "end_cell": end_cell.number,
        "end_line": end_line,
        "end_column": edit.end_column + 1,
        "content": edit.content,
    }


def _map_findings(findings, notebook: Notebook, joined: Joined) -> None:
    """Point findings at the lines of the ``.ipynb`` file; the engine has
    already given each its cell and lines in the cell."""
    from tflint_perf.engine.fixes import apply_edits

    by_number = {cell.number: cell for cell in joined.cells}
    for f in findings:
        cell = by_number.get(f.extra.get("cell"), joined.cells[0])
        f.line = _cell_file_line(cell, f.extra.get("cell_line", 1))
        f.end_line = _cell_file_line(cell, f.extra.get("cell_end_line", 1))
        _add_file_columns(f, notebook, cell)
        if (
            f.fix is not None
            and _new_texts(notebook, apply_edits(joined.source, f.fix.edits)) is None
        ):
            f.fix = None  # it would move a magic or cross cells: not offered here
        if f.fix is not None:
            f.extra["fix"] = {
                "safety": f.fix.safety,
                "message": f.fix.message,
                "edits": [_map_edit(joined, e) for e in f.fix.edits],
            }


def lint_notebook(text: str, path: str, settings, mode: str = "check", unsafe: bool = False):
    """Lint (and in fix/diff mode, fix) one notebook's file text: a FileResult.

    ``fixed_source``/``original`` are whole file texts, like for modules.
    """
    from tflint_perf.engine.cells import NOTEBOOK_MARKER
    from tflint_perf.engine.linter import fix_source, lint_source, syntax_finding

    result = FileResult(path)
    try:
        notebook = read(text)
    except NotebookError as exc:
        if settings.reports_syntax_errors(path):
            result.findings = [syntax_finding(path, exc.line, 1, str(exc))]
        return result
    if not notebook.python or not notebook.cells:
        return result
    rules = settings.rules_for(path)
    joined = join(notebook.cells)
    if mode == CHECK:
        result.findings = lint_source(joined.source, path, rules, NOTEBOOK_MARKER)
    else:
        outcome = fix_source(joined.source, path, rules, unsafe, NOTEBOOK_MARKER)
        result.findings, result.fixed, result.error = outcome.findings, outcome.fixed, outcome.error
        result.fixed_codes = outcome.codes
        if outcome.source != joined.source:
            new_text = apply_fixed(notebook, outcome.source)
            if new_text is None:
                result.error = "a fix would move code across cells or touch an IPython magic; notebook left unfixed"
                result.fixed, result.fixed_codes = 0, {}
                result.findings = lint_source(joined.source, path, rules, NOTEBOOK_MARKER)
            else:
                result.original, result.fixed_source = text, new_text
                notebook = read(new_text)
                joined = join(notebook.cells)
                result.findings = lint_source(joined.source, path, rules, NOTEBOOK_MARKER)
    _map_findings(result.findings, notebook, joined)
    if not settings.reports_syntax_errors(path):
        from tflint_perf.engine.linter import SYNTAX_CODE

        result.findings = [f for f in result.findings if f.code != SYNTAX_CODE]
    return result


def _new_texts(notebook: Notebook, fixed_joined: str) -> Optional[Dict[int, str]]:
    """The new source of each changed cell, or None if the fixed joined
    source cannot be mapped back onto the cells."""
    parts = _split_joined(fixed_joined, notebook.cells)
    if parts is None:
        return None
    new_texts = {}
    for cell, part in zip(notebook.cells, parts):
        if part == cell.neutral:
            continue
        if cell.span is None:
            return None
        restored = _restore(cell, part)
        if restored is None:
            return None
        new_texts[cell.number] = restored
    return new_texts


def apply_fixed(notebook: Notebook, fixed_joined: str) -> Optional[str]:
    new_texts = _new_texts(notebook, fixed_joined)
    if new_texts is None:
        return None
    text = write_back(notebook, new_texts)
    try:
        json.loads(text)  # never write a file that is not JSON
    except ValueError:  # pragma: no cover - a bug in write_back
        return None
    return text


def fixed_cells(notebook: Notebook, edits) -> Dict[int, str]:
    """The new source of each cell a fix changes (its edits are positions in
    the joined module), for showing the fix; empty when it cannot be mapped."""
    from tflint_perf.engine.fixes import apply_edits

    joined = join(notebook.cells)
    return _new_texts(notebook, apply_edits(joined.source, edits)) or {}


# -- helpers for --diff-base and --baseline ---------------------------------


def load_file(path: str) -> Optional[Notebook]:
    try:
        with open(path, encoding="utf-8-sig") as handle:
            return read(handle.read())
    except (OSError, UnicodeDecodeError, NotebookError):
        return None


def cell_file_spans(notebook: Notebook) -> Dict[int, Tuple[int, int]]:
    """Per code cell's number: the first and last line of the file holding its source."""
    out = {}
    for cell in notebook.cells:
        if cell.span is not None:
            out[cell.number] = (
                notebook.file_line(cell.span.start),
                notebook.file_line(max(cell.span.end - 1, cell.span.start)),
            )
    return out
