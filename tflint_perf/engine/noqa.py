"""``# noqa`` comments, read exactly as flake8 reads them, so ``tflint-perf
check`` and ``flake8 --select TFP`` suppress the same findings:

- ``# noqa`` (any case) alone suppresses every code; ``# noqa: TFP301,TFP1``
  (one optional space after the colon) suppresses the codes listed, each
  taken as a prefix: ``TFP1`` covers TFP101, TFP102, ...; codes are
  case-sensitive, as in flake8;
- a comment after a multi-line string or a backslash-continued line
  applies to each of its lines (not to the lines inside brackets, which
  flake8 reads one by one);
- ``# tflint-perf: noqa`` on a line of its own turns the whole file off.
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Dict, FrozenSet, List, Optional

# flake8.defaults.NOQA_INLINE_REGEXP
_NOQA = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)
_FILE_NOQA = re.compile(r"^\s*#\s*tflint-perf\s*:\s*noqa\b", re.IGNORECASE | re.MULTILINE)
_MENTIONS_NOQA = re.compile("noqa", re.IGNORECASE)


def file_is_exempt(source: str) -> bool:
    """A ``# tflint-perf: noqa`` comment line anywhere turns the file off."""
    # The regex ignores case, but matches only the ASCII letters of "perf" (and
    # their capitals) to those: a file without them is told at once.
    return "perf" in source.lower() and _FILE_NOQA.search(source) is not None


def suppressed_codes(text: str) -> Optional[FrozenSet[str]]:
    """None if the text has no noqa; an empty set for a bare noqa (all codes)."""
    match = _NOQA.search(text)
    if match is None:
        return None
    codes = match.group("codes")
    if not codes:
        return frozenset()
    return frozenset(c for c in re.split(r"[,\s]", codes) if c)


def is_suppressed(code: str, text: str) -> bool:
    codes = suppressed_codes(text)
    return codes is not None and (not codes or code.startswith(tuple(codes)))


class NoqaLines:
    """Per line number, the text searched for ``noqa``: its logical line."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._mentions: Optional[bool] = None
        self._lines: Optional[List[str]] = None
        self._logical: Optional[Dict[int, str]] = None

    @property
    def lines(self) -> List[str]:
        """Lines as Python counts them (\\n, \\r\\n or \\r ends one), as flake8
        reads them (split when first asked: most files have no finding)."""
        if self._lines is None:
            normal = self.source.replace("\r\n", "\n").replace("\r", "\n")
            self._lines = io.StringIO(normal).readlines()
        return self._lines

    @property
    def mentions(self) -> bool:
        if self._mentions is None:
            self._mentions = _MENTIONS_NOQA.search(self.source) is not None
        return self._mentions

    def suppresses(self, code: str, line: int) -> bool:
        if not self.mentions or not 0 < line <= len(self.lines):
            return False
        if self._logical is None:
            self._logical = _logical_lines(self.lines)
        return is_suppressed(code, self._logical.get(line) or self.lines[line - 1])


def _logical_lines(lines: List[str]) -> Dict[int, str]:
    """flake8's ``_noqa_line_mapping``: each line of a token range ending in
    NEWLINE/NL maps to the text of the whole range; {} when tokenizing fails."""
    out: Dict[int, str] = {}
    first, last = len(lines) + 2, -1
    try:
        for tok in tokenize.generate_tokens(io.StringIO("".join(lines)).readline):
            if tok.type in (tokenize.ENDMARKER, tokenize.DEDENT):
                continue
            first, last = min(first, tok.start[0]), max(last, tok.end[0])
            if tok.type in (tokenize.NL, tokenize.NEWLINE):
                joined = "".join(lines[first - 1 : last])
                out.update(dict.fromkeys(range(first, last + 1), joined))
                first, last = len(lines) + 2, -1
    except (tokenize.TokenError, SyntaxError):
        return {}
    return out
