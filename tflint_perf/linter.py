"""Lint one source text: parse once, walk once, every enabled rule."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import List, Optional, Sequence

import libcst as cst

from tflint_perf import noqa
from tflint_perf.context import FileContext
from tflint_perf.fixes import applicable, apply_edits, choose_fixes
from tflint_perf.rule import Finding
from tflint_perf.walk import dispatch_tables, walk

SYNTAX_CODE = "TFP000"
SYNTAX_NAME = "syntax-error"
MAX_FIX_PASSES = 10

# Rules only apply to modules that use one of these.
_USES_FRAMEWORK = re.compile(r"\b(tensorflow|keras|tf_keras|numpy)\b")


def syntax_finding(path: str, line: int, column: int, reason: str) -> Finding:
    return Finding(path, line, column, line, column, SYNTAX_CODE, SYNTAX_NAME, reason)


def _check_syntax_cheaply(source: str, path: str) -> List[Finding]:
    """For files no rule needs to parse: CPython's parser is ten times faster."""
    try:
        compile(source, path, "exec", flags=0x400, dont_inherit=True)  # ast.PyCF_ONLY_AST
    except SyntaxError as exc:
        return [syntax_finding(path, exc.lineno or 1, exc.offset or 1, f"SyntaxError: {exc.msg}")]
    except ValueError as exc:  # null bytes
        return [syntax_finding(path, 1, 1, f"SyntaxError: {exc}")]
    return []


def _parse(source: str, path: str):
    try:
        return cst.parse_module(source), []
    except cst.ParserSyntaxError as exc:
        reason = f"SyntaxError: {exc.message}"
        return None, [syntax_finding(path, exc.raw_line, exc.raw_column + 1, reason)]
    except (RecursionError, MemoryError) as exc:  # pathological nesting
        return None, [syntax_finding(path, 1, 1, f"cannot parse: {type(exc).__name__}")]


def active_rules(source: str, rule_classes: Sequence[type]) -> list:
    """The rules whose cheap text pre-check matches this source."""
    if not _USES_FRAMEWORK.search(source):
        return []
    return [
        r for r in rule_classes if not r.triggers or any(t in source for t in r.triggers)
    ]


def lint_source(source: str, path: str, rule_classes: Sequence[type]) -> List[Finding]:
    """Findings for one module, noqa applied, sorted by position."""
    if noqa.file_is_exempt(source):
        return []
    rules = active_rules(source, rule_classes)
    if not rules:
        return _check_syntax_cheaply(source, path)
    module, errors = _parse(source, path)
    if module is None:
        return errors
    ctx = FileContext(path, source, module)
    if not (ctx.imports.uses_tensorflow or ctx.imports.uses_numpy):
        return []
    instances = [rule_class(ctx) for rule_class in rules]
    visits, leaves = dispatch_tables(instances)
    walk(module, visits, leaves, ctx.parents, ctx.ancestors, ctx.by_type)
    for rule in instances:
        rule.finish()
    lines = source.splitlines()
    kept = [
        f
        for f in ctx.findings
        if not (f.line - 1 < len(lines) and noqa.is_suppressed(f.code, lines[f.line - 1]))
    ]
    return sorted(kept, key=Finding.sort_key)


@dataclass
class FixResult:
    source: str
    fixed: int = 0
    findings: List[Finding] = field(default_factory=list)
    error: Optional[str] = None


def fix_source(source: str, path: str, rule_classes: Sequence[type], unsafe: bool) -> FixResult:
    """Apply fixes until none is left to apply; the remaining findings.

    Each round applies the fixes that do not overlap; a fix whose result
    would not parse is dropped (and said), never written.
    """
    fixed = 0
    error = None
    findings = lint_source(source, path, rule_classes)
    for _ in range(MAX_FIX_PASSES):
        fixes = [f.fix for f in findings if applicable(f, unsafe)]
        if not fixes:
            break
        chosen = choose_fixes(source, fixes)
        candidate = apply_edits(source, [e for fix in chosen for e in fix.edits])
        try:
            cst.parse_module(candidate)
        except cst.ParserSyntaxError as exc:
            error = f"a fix produced code that does not parse ({exc.message}); left unfixed"
            break
        source = candidate
        fixed += len(chosen)
        findings = lint_source(source, path, rule_classes)
    return FixResult(source, fixed, findings, error)
