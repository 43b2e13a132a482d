"""Lint (and fix) files: read, decode, lint, write back."""

from __future__ import annotations

import io
import os
import tokenize

from tflint_perf.run.config import Settings
from tflint_perf.run.result import CHECK, FIX, FileResult

# tflint_perf.engine.linter (and with it LibCST, 0.15 s to import) is imported only
# when a file is actually linted: a run answered from the cache never pays it.

# TFLINT_PERF_DEBUG=1: an internal error raises (with its traceback) instead of
# being reported as one line for that file.
DEBUG_ENV = "TFLINT_PERF_DEBUG"


def decode(data: bytes):
    """Text and encoding of Python source bytes (PEP 263), or raise ValueError."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding), encoding
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        raise ValueError(str(exc)) from None


def lint_text(
    source: str,
    path: str,
    settings: Settings,
    mode: str = CHECK,
    unsafe: bool = False,
    project=None,
) -> FileResult:
    """Lint one text; a bug in tflint-perf is that file's error, not the run's end.

    ``project``: what the file may know of the other modules of the tree
    (``engine/project.py``), or None."""
    try:
        return _lint_text(source, path, settings, mode, unsafe, project)
    except Exception as exc:
        if os.environ.get(DEBUG_ENV):
            raise
        reason = f"internal error: {type(exc).__name__}: {exc}"
        return FileResult(path, error=f"{reason[:300]} (please report it)", failed=True)


def _lint_text(
    source: str, path: str, settings: Settings, mode: str, unsafe: bool, project=None
) -> FileResult:
    if path.lower().endswith(".ipynb"):  # the code cells as one module
        from tflint_perf.run.notebooks import lint_notebook

        return lint_notebook(source, path, settings, mode, unsafe)
    from tflint_perf.engine.linter import fix_source, lint_source

    rules = settings.rules_for(path)
    result = FileResult(path)
    if mode == CHECK:
        result.findings = lint_source(source, path, rules, project=project)
    else:
        outcome = fix_source(source, path, rules, unsafe, project=project)
        result.findings, result.fixed, result.error = outcome.findings, outcome.fixed, outcome.error
        result.fixed_codes = outcome.codes
        if outcome.source != source:
            result.original, result.fixed_source = source, outcome.source
    if not settings.reports_syntax_errors(path):
        result.findings = [f for f in result.findings if f.code != "TFP000"]
    return result


def read_bytes(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def lint_file(
    path: str, settings: Settings, mode: str = CHECK, unsafe: bool = False, project=None
) -> FileResult:
    try:
        data = read_bytes(path)
    except OSError as exc:
        return FileResult(path, error=f"cannot read: {exc.strerror or exc}", failed=True)
    try:
        source, encoding = decode(data)
    except ValueError as exc:
        from tflint_perf.engine.linter import syntax_finding

        result = FileResult(path, [syntax_finding(path, 1, 1, f"cannot decode file: {exc}")])
        if not settings.reports_syntax_errors(path):
            result.findings = []
        return result
    result = lint_text(source, path, settings, mode, unsafe, project)
    if mode == FIX and result.fixed_source is not None:
        result = _write_back(result, data, encoding, settings, unsafe)
    return result


def _write_back(result: FileResult, data: bytes, encoding: str, settings, unsafe) -> FileResult:
    """Write the fixed text; if that fails, the file's findings as it still is."""
    from tflint_perf.run.writeback import WriteError, replace_text

    # Fixing sets both texts together, and lint_file comes here only when it did.
    assert result.fixed_source is not None and result.original is not None
    try:
        replace_text(result.path, result.fixed_source, encoding, data)
    except WriteError as exc:
        unfixed = lint_text(result.original, result.path, settings, CHECK, unsafe)
        unfixed.error, unfixed.failed = f"not fixed: {exc}", True
        return unfixed
    return result
