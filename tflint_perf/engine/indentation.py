"""Indentation that CPython accepts and LibCST's tokenizer does not.

CPython reads a tab in the indentation as a move to the next multiple of 8
(and checks the result is consistent); LibCST's tokenizer rejects some such
lines, a tab followed by spaces under a line indented by spaces ("no
matching outer block for dedent"). Expanding the tabs of each line's
indentation gives the same blocks, so the module can be analysed as the
interpreter reads it. Lines keep their numbers; columns after an expanded
indentation move, and ``Expanded.column`` moves them back.
"""

from __future__ import annotations

import io
import tokenize
from dataclasses import dataclass
from typing import Dict, Optional, Set


@dataclass(frozen=True)
class Expanded:
    source: str  # the text with the tabs of its indentation expanded
    shifts: Dict[int, int]  # line -> characters added to its indentation

    def column(self, line: int, column: int) -> int:
        """A 1-based column of the expanded text, in the original line."""
        shift = self.shifts.get(line, 0)
        return max(1, column - shift) if shift else column


def expand_indentation(source: str) -> Optional[Expanded]:
    """The text with tabs in indentation expanded (tab stops of 8, as CPython),
    lines inside multi-line strings left alone; None when no line changes or
    the text does not tokenize."""
    inside = _string_lines(source)
    if inside is None:
        return None
    lines = source.splitlines(keepends=True)
    shifts: Dict[int, int] = {}
    for number, line in enumerate(lines, start=1):
        body = line.lstrip(" \t")
        indent = line[: len(line) - len(body)]
        if "\t" not in indent or number in inside:
            continue
        wide = indent.expandtabs(8)
        lines[number - 1] = wide + body
        shifts[number] = len(wide) - len(indent)
    return Expanded("".join(lines), shifts) if shifts else None


def _string_lines(source: str) -> Optional[Set[int]]:
    """Lines that start inside a string literal (after its first line)."""
    out: Set[int] = set()
    starts = []
    fstring_start = getattr(tokenize, "FSTRING_START", None)  # Python 3.12+
    fstring_end = getattr(tokenize, "FSTRING_END", None)
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.STRING:
                out.update(range(token.start[0] + 1, token.end[0] + 1))
            elif token.type == fstring_start:
                starts.append(token.start[0])
            elif token.type == fstring_end and starts:
                out.update(range(starts.pop() + 1, token.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):
        return None
    return out
