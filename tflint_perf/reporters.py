"""Output formats: full (code frames) and concise text, json, github (workflow annotations), sarif."""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import IO, Callable, List, Mapping, Optional, Sequence, Type

from tflint_perf import __version__
from tflint_perf.engine.fixes import applicable
from tflint_perf.engine.rule import SAFE, SYNTAX_CODE, SYNTAX_NAME, Finding, Rule

# ``full`` (code frames) is the default; ``text`` is its old name.
FORMATS = ("full", "concise", "json", "github", "sarif", "text")


def finding_to_dict(f: Finding) -> dict:
    out = {
        "path": f.path,
        "line": f.line,
        "column": f.column,
        "end_line": f.end_line,
        "end_column": f.end_column,
        "code": f.code,
        "name": f.name,
        "message": f.message,
        "detail": f.detail,
        "fix": None,
    }
    if f.fix is not None:
        out["fix"] = {
            "safety": f.fix.safety,
            "message": f.fix.message,
            "edits": [
                {
                    "line": e.line,
                    "column": e.column + 1,
                    "end_line": e.end_line,
                    "end_column": e.end_column + 1,
                    "content": e.content,
                }
                for e in f.fix.edits
            ],
        }
    out.update(f.extra)
    if "cell" in f.extra:
        # A notebook: ``line`` is a line of the .ipynb file, so ``column`` is a
        # column of that line too; the cell's own column is ``cell_column``.
        out["column"], out["end_column"] = file_columns(f)
        out["cell_column"], out["cell_end_column"] = f.column, f.end_column
        out.pop("file_column", None)
        out.pop("file_end_column", None)
    return out


def display_location(f: Finding) -> str:
    """``path:line:col``; notebook findings say which cell."""
    from tflint_perf.frames import location

    return location(f)


def _fixable(f: Finding, unsafe_fixes: bool) -> bool:
    return f.fix is not None and (f.fix.safety == SAFE or unsafe_fixes)


def write_text(
    findings: Sequence[Finding],
    out: IO[str],
    color: bool = False,
    unsafe_fixes: bool = False,
    statistics: bool = False,
    quiet: bool = False,
    fixed: int = 0,
    concise: bool = False,
    sources=None,
    show_fixes: bool = True,
    before_summary: Optional[Callable[[], None]] = None,
    failed_files: int = 0,
) -> None:
    """The text formats: ``full`` (a code frame per finding, its text from
    ``sources``, a ``frames.Sources``) or ``concise`` (one line per finding);
    then ``before_summary`` and the summary (``quiet``: neither)."""
    from tflint_perf.frames import CODE, FIXABLE, Paint, render

    paint = Paint(color)
    if statistics:
        write_statistics(findings, out, unsafe_fixes)
    elif concise:
        for f in findings:
            marker = paint("[*]", FIXABLE) + " " if _fixable(f, unsafe_fixes) else ""
            where = paint(display_location(f), "1")
            out.write(f"{where}: {paint(f.code, CODE)} {marker}{f.message}\n")
    else:
        for f in findings:
            unit = sources.unit(f) if sources is not None else None
            out.write(render(f, unit, paint, _fixable(f, unsafe_fixes), show_fixes))
    if not quiet:
        if before_summary is not None:
            before_summary()
        write_summary(findings, out, unsafe_fixes, fixed, failed_files)


def write_fixed_list(per_file: Mapping[str, Mapping[str, int]], names, out: IO[str]) -> None:
    """What ``--fix`` changed, file by file, as ``ruff --fix --show-fixes`` lists it."""
    total = sum(sum(codes.values()) for codes in per_file.values())
    out.write(f"\nFixed {_plural(total, 'finding')}:\n")
    for path in sorted(per_file):
        codes = per_file[path]
        width = len(str(max(codes.values())))
        out.write(f"- {path}:\n")
        for code in sorted(codes):
            out.write(f"    {codes[code]:>{width}} \u00d7 {code} ({names.get(code, '?')})\n")
    out.write("\n")


def write_summary(
    findings: Sequence[Finding],
    out: IO[str],
    unsafe_fixes: bool = False,
    fixed: int = 0,
    failed_files: int = 0,
) -> None:
    """ruff's summary lines. A file that could not be linted (its error is on
    stderr) is counted: then "All checks passed!" would not be true."""
    if failed_files:
        out.write(f"{_plural(failed_files, 'file')} could not be linted (see the errors).\n")
    fixable = sum(1 for f in findings if _fixable(f, unsafe_fixes))
    hidden = sum(
        1 for f in findings if f.fix is not None and f.fix.safety != SAFE and not unsafe_fixes
    )
    if not findings:
        if fixed:
            out.write(f"Fixed {_plural(fixed, 'finding')}.\n")
        else:
            out.write(
                "No findings in the other files.\n" if failed_files else "All checks passed!\n"
            )
        return
    summary = f"Found {_plural(len(findings) + fixed, 'finding')}"
    if fixed:
        summary += f" ({fixed} fixed, {len(findings)} remaining)"
    out.write(summary + ".\n")
    if fixable:
        out.write(f"[*] {fixable} fixable with the `--fix` option.\n")
    if hidden:
        out.write(
            f"{_plural(hidden, 'hidden fix', 'hidden fixes')} can be enabled with the `--unsafe-fixes` option.\n"
        )


def fixed_summary(fixed: int, left: Sequence[Finding], unsafe_fixes: bool = False) -> str:
    """``--fix-only``'s one line: what was fixed, and the unsafe fixes not applied."""
    hidden = sum(1 for f in left if f.fix is not None and f.fix.safety != SAFE and not unsafe_fixes)
    text = f"Fixed {_plural(fixed, 'finding')}" if fixed else "No fixes applied"
    if hidden:
        more = _plural(hidden, "additional fix", "additional fixes")
        text += f" ({more} available with `--unsafe-fixes`)"
    return text + ".\n"


def write_statistics(findings: Sequence[Finding], out: IO[str], unsafe_fixes: bool = False) -> None:
    """Findings per rule, most frequent first (the summary after it gives the total)."""
    counts = Counter((f.code, f.name) for f in findings)
    fixable = {f.code for f in findings if _fixable(f, unsafe_fixes)}
    for (code, name), count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        out.write(f"{count:>5}\t{code}\t{'[*]' if code in fixable else '   '} {name}\n")


def _plural(n: int, word: str, plural: str = "") -> str:
    return f"{n} {word if n == 1 else (plural or word + 's')}"


def write_json(findings: Sequence[Finding], out: IO[str]) -> None:
    json.dump([finding_to_dict(f) for f in findings], out, indent=2)
    out.write("\n")


def write_statistics_json(
    findings: Sequence[Finding], out: IO[str], unsafe_fixes: bool = False
) -> None:
    """``--statistics --format json``: the per-rule counts as a JSON array."""
    counts = Counter((f.code, f.name) for f in findings)
    fixable = {f.code for f in findings if applicable(f, unsafe_fixes)}
    rows = [
        {"code": code, "name": name, "count": count, "fixable": code in fixable}
        for (code, name), count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    json.dump(rows, out, indent=2)
    out.write("\n")


def report_path(path: str) -> str:
    """The path as CI tools want it: relative (to ``$GITHUB_WORKSPACE`` when the
    file is inside it, else to the current folder), with ``/`` separators."""
    absolute = os.path.abspath(path)
    base = os.environ.get("GITHUB_WORKSPACE") or ""
    if not base or os.path.commonpath([absolute, os.path.abspath(base)]) != os.path.abspath(base):
        base = os.getcwd()
    try:
        relative = os.path.relpath(absolute, base)
    except ValueError:  # another drive (Windows)
        return absolute.replace(os.sep, "/")
    return relative.replace(os.sep, "/")


def file_columns(f: Finding):
    """Start and end column in the reported file's own line: for notebooks,
    in the ``.ipynb`` JSON line that ``line`` points at, not in the cell."""
    return f.extra.get("file_column", f.column), f.extra.get("file_end_column", f.end_column)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_line(f: Finding) -> str:
    """One workflow command: ``::error`` for a file that does not parse, else
    ``::warning``; columns only on a one-line span (GitHub drops them otherwise)."""
    level = "error" if f.code == SYNTAX_CODE else "warning"
    props = [f"file={_escape_property(report_path(f.path))}", f"line={f.line}"]
    props.append(f"endLine={max(f.end_line, f.line)}")
    column, end_column = file_columns(f)
    if f.end_line <= f.line:
        props += [f"col={column}", f"endColumn={max(end_column, column)}"]
    # GitHub shows the title in bold above the body: the headline, then the detail.
    props.append(f"title={_escape_property(f.code + ' ' + f.message)}")
    return f"::{level} {','.join(props)}::{_escape_data(f.detail or f.message)}\n"


def write_github(findings: Sequence[Finding], out: IO[str]) -> None:
    for f in findings:
        out.write(github_line(f))


def sarif_uri(path: str) -> str:
    """A URI reference for ``artifactLocation.uri``: relative and percent-encoded."""
    from urllib.parse import quote

    relative = report_path(path)
    if os.path.isabs(relative):
        from pathlib import Path

        return Path(relative).as_uri()
    return quote(relative, safe="/")


_SYNTAX_RULE = {
    "id": SYNTAX_CODE,
    "name": SYNTAX_NAME,
    "shortDescription": {"text": "The file could not be parsed."},
    "fullDescription": {"text": "The file could not be parsed or decoded; no rule ran on it."},
    "help": {"text": "Fix the syntax error.", "markdown": "Fix the syntax error."},
    "defaultConfiguration": {"level": "error"},
    "properties": {"tags": ["correctness"]},
}


def _sarif_rule(rule: Type[Rule]) -> dict:
    from tflint_perf.docs import rule_url

    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary()},
        "fullDescription": {"text": rule.doc_sections().get("What it does", rule.summary())},
        "help": {"text": rule.doc(), "markdown": rule.doc()},
        "helpUri": rule_url(rule.code),
        "defaultConfiguration": {"level": "warning"},
        # GitHub code scanning shows tags and filters by them.
        "properties": {"fixable": rule.fixable, "tags": ["performance", "tensorflow"]},
    }


def _sarif_fix(f: Finding, uri: str) -> dict:
    """The fix as SARIF replacements (columns 1-based, end exclusive)."""
    assert f.fix is not None
    replacements = [
        {
            "deletedRegion": {
                "startLine": e.line,
                "startColumn": e.column + 1,
                "endLine": e.end_line,
                "endColumn": e.end_column + 1,
            },
            "insertedContent": {"text": e.content},
        }
        for e in f.fix.edits
    ]
    return {
        "description": {"text": f.fix.message or "Apply the fix"},
        "artifactChanges": [{"artifactLocation": {"uri": uri}, "replacements": replacements}],
        "properties": {"safety": f.fix.safety},
    }


def _sarif_result(f: Finding, index: dict) -> dict:
    column, end_column = file_columns(f)
    region = {"startLine": f.line, "startColumn": column, "endLine": max(f.end_line, f.line)}
    region["endColumn"] = end_column if f.end_line > f.line else max(end_column, column)
    uri = sarif_uri(f.path)
    message = {"text": f.message}
    if f.detail:
        message["markdown"] = f"{f.message}\n\n{f.detail}"
    result = {
        "ruleId": f.code,
        "ruleIndex": index.get(f.code, 0),
        "level": "error" if f.code == SYNTAX_CODE else "warning",
        "message": message,
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri}, "region": region}}],
    }
    # A notebook's edits are positions in its joined cells, not in the .ipynb
    # text SARIF points into: its fixes are left out.
    if f.fix is not None and "cell" not in f.extra:
        result["fixes"] = [_sarif_fix(f, uri)]
    return result


def sarif_log(findings: Sequence[Finding], rule_classes: Sequence[Type[Rule]]) -> dict:
    rules: List[dict] = [dict(_SYNTAX_RULE)] + [_sarif_rule(r) for r in rule_classes]
    index = {r["id"]: i for i, r in enumerate(rules)}
    driver = {"name": "tflint-perf", "version": __version__, "rules": rules}
    run = {
        "tool": {"driver": driver},
        # Columns count characters (code points), as Python does, not UTF-16 units.
        "columnKind": "unicodeCodePoints",
        "results": [_sarif_result(f, index) for f in findings],
    }
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [run],
    }


def write_sarif(
    findings: Sequence[Finding], out: IO[str], rule_classes: Sequence[Type[Rule]]
) -> None:
    json.dump(sarif_log(findings, rule_classes), out, indent=2)
    out.write("\n")
