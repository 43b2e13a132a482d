"""Lint (and fix) files: read, decode, lint, write back."""

from __future__ import annotations

import io
import tokenize
from dataclasses import dataclass, field
from typing import List, Optional

from tflint_perf.config import Settings
from tflint_perf.rule import Finding

# tflint_perf.linter (and with it LibCST, 0.15 s to import) is imported only
# when a file is actually linted: a run answered from the cache never pays it.

CHECK, FIX, DIFF = "check", "fix", "diff"


@dataclass
class FileResult:
    path: str
    findings: List[Finding] = field(default_factory=list)
    fixed: int = 0
    original: Optional[str] = None  # source before fixing, when it changed
    fixed_source: Optional[str] = None
    error: Optional[str] = None  # something to tell the user, not a finding


def decode(data: bytes):
    """Text and encoding of Python source bytes (PEP 263), or raise ValueError."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding), encoding
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        raise ValueError(str(exc)) from None


def lint_text(
    source: str, path: str, settings: Settings, mode: str = CHECK, unsafe: bool = False
) -> FileResult:
    if path.lower().endswith(".ipynb"):  # the code cells as one module
        from tflint_perf.notebooks import lint_notebook

        return lint_notebook(source, path, settings, mode, unsafe)
    from tflint_perf.linter import fix_source, lint_source

    rules = settings.rules_for(path)
    result = FileResult(path)
    if mode == CHECK:
        result.findings = lint_source(source, path, rules)
    else:
        outcome = fix_source(source, path, rules, unsafe)
        result.findings, result.fixed, result.error = outcome.findings, outcome.fixed, outcome.error
        if outcome.source != source:
            result.original, result.fixed_source = source, outcome.source
    if not settings.reports_syntax_errors(path):
        result.findings = [f for f in result.findings if f.code != "TFP000"]
    return result


def lint_file(path: str, settings: Settings, mode: str = CHECK, unsafe: bool = False) -> FileResult:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        return FileResult(path, error=f"{path}: cannot read: {exc.strerror or exc}")
    try:
        source, encoding = decode(data)
    except ValueError as exc:
        from tflint_perf.linter import syntax_finding

        result = FileResult(path, [syntax_finding(path, 1, 1, f"cannot decode file: {exc}")])
        if not settings.reports_syntax_errors(path):
            result.findings = []
        return result
    result = lint_text(source, path, settings, mode, unsafe)
    if mode == FIX and result.fixed_source is not None:
        with open(path, "w", encoding=encoding, newline="") as handle:
            handle.write(result.fixed_source)
    return result
