"""Applying fixes: text edits, conflict handling, repeat until stable."""

from __future__ import annotations

from typing import Iterable, List

from tflint_perf.engine.rule import SAFE, Edit, Finding, Fix


def _offsets(source: str):
    starts = [0]
    for index, char in enumerate(source):
        if char == "\n":
            starts.append(index + 1)
    return starts


def _span(starts: List[int], edit: Edit, length: int):
    def offset(line: int, column: int) -> int:
        if line - 1 >= len(starts):
            return length
        return min(starts[line - 1] + column, length)

    return offset(edit.line, edit.column), offset(edit.end_line, edit.end_column)


def apply_edits(source: str, edits: Iterable[Edit]) -> str:
    starts = _offsets(source)
    spans = sorted(
        (_span(starts, e, len(source)) + (i, e.content) for i, e in enumerate(edits)),
        reverse=True,
    )
    out = source
    for start, end, _, content in spans:
        out = out[:start] + content + out[end:]
    return out


def choose_fixes(source: str, fixes: Iterable[Fix]) -> List[Fix]:
    """Fixes whose edits do not touch each other, first come first served."""
    starts = _offsets(source)
    taken: list = []
    chosen = []
    for fix in fixes:
        spans = [_span(starts, e, len(source)) for e in fix.edits]
        if any(s <= te and ts <= e for s, e in spans for ts, te in taken):
            continue  # overlaps (or touches) an edit already chosen: next round
        taken.extend(spans)
        chosen.append(fix)
    return chosen


def applicable(finding: Finding, unsafe: bool) -> bool:
    return finding.fix is not None and (finding.fix.safety == SAFE or unsafe)
