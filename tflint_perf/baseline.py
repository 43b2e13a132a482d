"""``--baseline FILE`` / ``--write-baseline FILE``: adopt the linter on an
existing code base by recording today's findings and reporting only new ones.

An entry is keyed by the file (relative to the baseline file's folder), the
rule code and the text of the flagged line with all whitespace removed (for
notebooks: the line in its cell), with a count. Line numbers are not part of
the key, so edits elsewhere in the file (above the finding included) and
reformatting keep the entry valid; the finding goes out of the baseline when
its own line changes. With several identical keys in a file, the first
``count`` (top to bottom) are the recorded ones and any more are new.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Dict, Iterable, List, Optional, Tuple

from tflint_perf.engine.rule import Finding
from tflint_perf.run.config import ConfigError
from tflint_perf.run.writeback import write_atomically

TOOL = "tflint-perf"
FORMAT = 1

Key = Tuple[str, str, str]


def _normal(text: str) -> str:
    return "".join(text.split())


class _Lines:
    """Source lines of the files findings point at, read once per file."""

    def __init__(self, overrides: Optional[Dict[str, str]] = None) -> None:
        self.overrides = overrides or {}
        self.cache: Dict[str, object] = {}

    def _load(self, path: str):
        from tflint_perf.run.notebooks import is_notebook, load_file, read

        if path in self.overrides:
            text = self.overrides[path]
            if is_notebook(path):
                try:
                    return {c.number: c.lines for c in read(text).cells}
                except ValueError:
                    return {}
            return text.splitlines()
        if is_notebook(path):
            notebook = load_file(path)
            return {c.number: c.lines for c in notebook.cells} if notebook is not None else {}
        from tflint_perf.run.files import decode

        try:
            with open(path, "rb") as handle:
                return decode(handle.read())[0].splitlines()
        except (OSError, ValueError):
            return []

    def text(self, finding: Finding) -> str:
        if finding.path not in self.cache:
            self.cache[finding.path] = self._load(finding.path)
        lines = self.cache[finding.path]
        cell = finding.extra.get("cell")
        if cell is not None:
            lines = lines.get(cell, []) if isinstance(lines, dict) else []
            number = finding.extra.get("cell_line", 1)
        else:
            lines = lines if isinstance(lines, list) else []
            number = finding.line
        return lines[number - 1].strip() if 0 < number <= len(lines) else ""


def _relative(path: str, folder: str) -> str:
    absolute = os.path.abspath(path)
    try:
        rel = os.path.relpath(absolute, folder)
    except ValueError:  # another drive (Windows)
        rel = absolute
    return rel.replace(os.sep, "/")


def keyed(
    findings: Iterable[Finding], folder: str, lines: _Lines
) -> List[Tuple[Key, str, Finding]]:
    """(key, readable line text, finding) per finding, in report order."""
    out = []
    for f in sorted(findings, key=Finding.sort_key):
        text = lines.text(f)
        out.append(((_relative(f.path, folder), f.code, _normal(text)), text, f))
    return out


def write(
    path: str, findings: Iterable[Finding], overrides: Optional[Dict[str, str]] = None
) -> int:
    """Write every finding to the baseline file; the number recorded."""
    folder = os.path.dirname(os.path.abspath(path))
    counts: Counter = Counter()
    first: Dict[Key, Tuple[str, Finding]] = {}
    for key, text, f in keyed(findings, folder, _Lines(overrides)):
        counts[key] += 1
        first.setdefault(key, (text, f))
    entries = []
    for key in sorted(counts):
        text, f = first[key]
        entries.append(
            {
                "path": key[0],
                "code": key[1],
                "text": text,
                "count": counts[key],
                "message": f.message,
            }
        )
    data = {"tool": TOOL, "format": FORMAT, "findings": entries}
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    try:
        write_atomically(path, text.encode("utf-8"))
    except OSError as exc:
        raise ConfigError(f"--write-baseline: cannot write {path}: {exc.strerror or exc}") from None
    return sum(counts.values())


class Baseline:
    def __init__(self, path: str, counts: Counter) -> None:
        self.path = path
        self.folder = os.path.dirname(os.path.abspath(path))
        self.counts = counts

    def filter(
        self,
        findings: Iterable[Finding],
        linted: Iterable[str] = (),
        overrides: Optional[Dict[str, str]] = None,
    ) -> Tuple[List[Finding], int, int]:
        """(new findings, how many the baseline hid, how many entries of the
        linted files matched nothing: fixed since, or changed)."""
        left = Counter(self.counts)
        new: List[Finding] = []
        hidden = 0
        for key, _, f in keyed(findings, self.folder, _Lines(overrides)):
            if left[key] > 0:
                left[key] -= 1
                hidden += 1
            else:
                new.append(f)
        linted_paths = {_relative(p, self.folder) for p in linted}
        stale = sum(n for key, n in left.items() if n > 0 and key[0] in linted_paths)
        return sorted(new, key=Finding.sort_key), hidden, stale


def load(path: str) -> Baseline:
    """Read a baseline file; ConfigError (exit 2) when missing or not one."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        raise ConfigError(
            f"--baseline: {path}: no such file (create it with --write-baseline {path})"
        ) from None
    except OSError as exc:
        raise ConfigError(f"--baseline: cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ConfigError(
            f"--baseline: {path} is not a tflint-perf baseline (invalid JSON: {exc})"
        ) from None
    if (
        not isinstance(data, dict)
        or data.get("tool") != TOOL
        or not isinstance(data.get("findings"), list)
    ):
        raise ConfigError(
            f"--baseline: {path} is not a tflint-perf baseline (write one with --write-baseline)"
        )
    if data.get("format") != FORMAT:
        raise ConfigError(
            f"--baseline: {path} has baseline format {data.get('format')!r}; this version reads {FORMAT}"
        )
    counts: Counter = Counter()
    for index, entry in enumerate(data["findings"]):
        try:
            key = (entry["path"], entry["code"], _normal(entry["text"]))
            count = entry.get("count", 1)
            if not all(isinstance(k, str) for k in key) or not isinstance(count, int) or count < 1:
                raise TypeError
        except (KeyError, TypeError, AttributeError):
            raise ConfigError(
                f"--baseline: {path}: entry {index + 1} is malformed (needs path, code, text, count)"
            ) from None
        counts[key] += count
    return Baseline(path, counts)


def summary(hidden: int, stale: int, path: str) -> Optional[str]:
    """The note for stderr, or None when there is nothing to say."""
    parts = []
    if hidden:
        parts.append(f"{hidden} finding{'s' if hidden != 1 else ''} in the baseline not shown")
    if stale:
        parts.append(
            f"{stale} baseline entr{'ies' if stale != 1 else 'y'} matched nothing"
            f" (fixed?); rerun with --write-baseline {path} to drop them"
        )
    return "tflint-perf: " + "; ".join(parts) + "\n" if parts else None
