"""What to run for each finding (planner side: no TensorFlow, no execution).

A finding becomes one job:

- ``module``: the finding (and its fix) lie in top-level statements; the
  module runs up to them, then those statements are timed, original and
  fixed, from the same starting namespace.
- ``function``: they lie in one top-level function; it is timed at its
  real call sites when running the module (as ``__main__``) reaches one,
  else with inputs from a configured factory or synthesised by role.
- ``failure`` (TFP301, TFP303): the original and the fixed module each run
  in a fresh process; did TensorFlow raise, does the fixed order run clean.

Or, without running anything, an ``unverified`` outcome with its reason.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Tuple

from tflint_perf.fixes import apply_edits
from tflint_perf.rule import Finding
from tflint_perf.verify import inputs as inputs_mod
from tflint_perf.verify.options import VerifyOptions
from tflint_perf.verify.rewrites import Source, Unsupported, rewrite

FAILURE_RULES = {"TFP301", "TFP303"}
# Rules whose cost is tracing: every timed run starts from fresh definitions,
# or steady state would hide the retracing behind the tf.function cache.
COLD_RULES = {"TFP203"}
NEEDS_GPU_RULES = {"TFP303"}


def _start(stmt: ast.stmt) -> int:
    decorators = getattr(stmt, "decorator_list", None) or []
    return min([stmt.lineno] + [d.lineno for d in decorators])


def _overlapping(body: List[ast.stmt], lo: int, hi: int) -> List[ast.stmt]:
    return [s for s in body if _start(s) <= hi and lo <= s.end_lineno]


def _caught(tree: ast.Module, line: int) -> bool:
    """Whether the line sits in a ``try`` whose handlers catch RuntimeError."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try) or not any(s.lineno <= line <= s.end_lineno for s in node.body):
            continue
        for handler in node.handlers:
            if handler.type is None:
                return True
            names = [handler.type] if not isinstance(handler.type, ast.Tuple) else handler.type.elts
            for name in names:
                text = ast.unparse(name).rsplit(".", 1)[-1]
                if text in ("RuntimeError", "Exception", "BaseException"):
                    return True
    return False


def _added_imports(source: str, edits: List, tree: ast.Module):
    """(texts of whole import statements the edits insert before the first statement they touch, the other edits)."""
    if not edits:
        return [], edits
    first_other = min((e.line for e in edits if not _is_import_insertion(e)), default=None)
    added, others = [], []
    for edit in edits:
        if _is_import_insertion(edit) and (first_other is None or edit.line < first_other):
            added.append(edit.content)
        else:
            others.append(edit)
    return added, (others or edits)


def _is_import_insertion(edit) -> bool:
    if (edit.line, edit.column) != (edit.end_line, edit.end_column) or edit.column != 0 or not edit.content.endswith("\n"):
        return False
    try:
        body = ast.parse(edit.content).body
    except SyntaxError:
        return False
    return bool(body) and all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in body)


def unverified(reason: str) -> dict:
    return {"status": "unverified", "reason": reason}


def plan_finding(
    job_id: int, finding: Finding, source: str, tree: Optional[ast.Module], options: VerifyOptions, rule=None
) -> Tuple[Optional[dict], Optional[dict]]:
    """(job, None) or (None, immediate outcome)."""
    code = finding.code
    if tree is None:
        return None, unverified("the file does not parse as Python for this interpreter")
    job = {"id": job_id, "code": code, "line": finding.line, "end_line": finding.end_line}
    edits = list(finding.fix.edits) if finding.fix is not None else None
    variant = "fix"
    if edits is None and code not in FAILURE_RULES:
        try:
            edits = rewrite(code, Source(source), finding.line, finding.end_line)
        except Unsupported as exc:
            return None, unverified(f"no verification rewrite for this {code} case: {exc}")
        variant = "rewrite"
        if edits is None:
            return None, unverified(f"{code} has no fix and no verification rewrite to measure against")
    fixed = apply_edits(source, edits) if edits else None
    if fixed is not None:
        try:
            fixed_tree = ast.parse(fixed)
        except SyntaxError:
            return None, unverified(f"the {variant} does not parse")
    job["variant"] = variant if fixed is not None else None
    job["fixed_source"] = fixed

    if code in FAILURE_RULES:
        job["mode"] = "failure"
        job["caught"] = _caught(tree, finding.line)
        return job, None

    # A fix may add imports at the top of the module (TFP102: `import tensorflow as tf`):
    # they run before the fixed variant and do not count as part of the timed region.
    added_imports, edits_in_code = _added_imports(source, edits, tree)
    lines = [finding.line, finding.end_line] + [line for e in edits_in_code for line in (e.line, e.end_line)]
    lo, hi = min(lines), max(lines)
    region = _overlapping(tree.body, lo, hi)
    if not region:
        return None, unverified("the finding is not inside any statement")
    start, end = _start(region[0]), region[-1].end_lineno
    shift = sum(text.count("\n") for text in added_imports)
    fixed_start = start + shift
    fixed_end = end + (len(fixed.splitlines()) - len(source.splitlines()))
    fixed_region = [s for s in fixed_tree.body if _start(s) >= fixed_start and s.end_lineno <= fixed_end]
    before = [ast.dump(s) for s in tree.body if s.end_lineno < start]
    fixed_before = [s for s in fixed_tree.body if s.end_lineno < fixed_start]
    imports = [ast.dump(s) for stmt in added_imports for s in ast.parse(stmt).body]
    if before != [ast.dump(s) for s in fixed_before if not (isinstance(s, (ast.Import, ast.ImportFrom)) and ast.dump(s) in imports)]:
        return None, unverified("the fix changes code before the flagged statements; cannot time them apart")
    job["region"] = [start, end]
    job["fixed_region"] = [_start(fixed_region[0]) if fixed_region else fixed_start, fixed_end]
    job["fixed_imports"] = "".join(added_imports)
    job["cold"] = code in COLD_RULES

    if len(region) == 1 and isinstance(region[0], ast.ClassDef):
        return None, unverified(
            f"the finding is inside class `{region[0].name}`: --verify times module-level code and top-level functions"
        )
    if len(region) == 1 and isinstance(region[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        func = region[0]
        if isinstance(func, ast.AsyncFunctionDef):
            return None, unverified(f"`{func.name}` is a coroutine function")
        same = [s for s in fixed_region if isinstance(s, ast.FunctionDef) and s.name == func.name]
        if len(fixed_region) != 1 or not same:
            return None, unverified(f"the {variant} changes more than the function `{func.name}`")
        job["mode"] = "function"
        job["function"] = func.name
        job["factory"] = options.factory_for(finding.path, func.name)
        roles = getattr(rule, "verify_roles", None) if rule is not None else None
        specs, why = inputs_mod.plan_inputs(code, func, finding.line, finding.end_line, options.size, roles)
        job["inputs"] = specs
        job["inputs_reason"] = why
        return job, None
    job["mode"] = "module"
    return job, None


def plan_file(
    path: str, source: str, findings: List[Finding], first_id: int, options: VerifyOptions, rules: Dict[str, type]
) -> Tuple[List[dict], Dict[int, dict]]:
    try:
        tree: Optional[ast.Module] = ast.parse(source)
    except (SyntaxError, ValueError):
        tree = None
    jobs, outcomes = [], {}
    for offset, finding in enumerate(findings):
        job_id = first_id + offset
        if finding.code == "TFP000":
            outcomes[job_id] = unverified("the file does not parse; nothing to run")
            continue
        job, outcome = plan_finding(job_id, finding, source, tree, options, rules.get(finding.code))
        if job is not None:
            jobs.append(job)
        else:
            outcomes[job_id] = outcome
    return jobs, outcomes
