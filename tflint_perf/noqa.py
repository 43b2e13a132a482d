"""``# noqa`` comments: per line, per code, and the file-level opt-out."""

from __future__ import annotations

import re

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_FILE_NOQA = re.compile(r"^\s*#\s*tflint-perf\s*:\s*noqa\b", re.IGNORECASE | re.MULTILINE)


def file_is_exempt(source: str) -> bool:
    """A ``# tflint-perf: noqa`` comment line anywhere turns the file off."""
    return _FILE_NOQA.search(source) is not None


def suppressed_codes(line: str):
    """None if the line has no noqa; an empty set for a bare noqa (all codes)."""
    if "#" not in line:
        return None
    match = _NOQA.search(line)
    if match is None:
        return None
    codes = match.group("codes")
    if not codes:
        return frozenset()
    return frozenset(c.upper() for c in re.split(r"[\s,]+", codes) if c)


def is_suppressed(code: str, line: str) -> bool:
    codes = suppressed_codes(line)
    return codes is not None and (not codes or code in codes)
