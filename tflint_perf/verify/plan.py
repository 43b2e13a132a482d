"""What to run for each finding (planner side: no TensorFlow, no execution).

A finding becomes one job, as the rule's ``verification`` (the contract in
``tflint_perf.engine.verification``) asks:

- ``module``: the finding (and its fix) lie in top-level statements; the
  module runs up to them, then those statements are timed, original and
  fixed, from the same starting namespace.
- ``function``: they lie in one top-level function; it is timed at its
  real call sites when running the module (as ``__main__``) reaches one,
  else with inputs from a configured factory or synthesised by role.
- ``failure`` (``Purpose.FAILURE``): the original and the fixed module each
  run in a fresh process; did TensorFlow fail, does the fixed order run clean.

Or, without running anything, an ``unverified`` outcome with its reason.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
from typing import Any, Dict, List, Optional, Tuple

from tflint_perf.engine.fixes import apply_edits
from tflint_perf.engine.linter import SYNTAX_CODE
from tflint_perf.engine.rule import Finding
from tflint_perf.engine.verification import Purpose, Timing, Verification
from tflint_perf.verify import inputs as inputs_mod
from tflint_perf.verify.options import VerifyOptions
from tflint_perf.verify.rewrites import Source, Unsupported, rewrite
from tflint_perf.verify.source import last_line


class Unverifiable(Exception):
    """This finding is not run; the message says why."""


def unverified(reason: str) -> dict:
    return {"status": "unverified", "reason": reason}


def _start(stmt: ast.stmt) -> int:
    decorators = getattr(stmt, "decorator_list", None) or []
    return min([stmt.lineno] + [d.lineno for d in decorators])


def _overlapping(body: List[ast.stmt], lo: int, hi: int) -> List[ast.stmt]:
    return [s for s in body if _start(s) <= hi and lo <= last_line(s)]


def _caught(tree: ast.Module, line: int) -> bool:
    """Whether the line sits in a ``try`` whose handlers catch RuntimeError."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try) or not any(
            s.lineno <= line <= last_line(s) for s in node.body
        ):
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


def _added_imports(edits: List):
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
    if (
        (edit.line, edit.column) != (edit.end_line, edit.end_column)
        or edit.column != 0
        or not edit.content.endswith("\n")
    ):
        return False
    try:
        body = ast.parse(edit.content).body
    except SyntaxError:
        return False
    return bool(body) and all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in body)


def measured_diff(path: str, source: str, fixed: str, variant: str) -> str:
    """The measured variant as a unified diff of the module (the rewrite is never written)."""
    label = "fix" if variant == "fix" else "verification-only rewrite"
    return "".join(
        difflib.unified_diff(
            source.splitlines(keepends=True),
            fixed.splitlines(keepends=True),
            f"{path} (original)",
            f"{path} ({label}, measured)",
        )
    )


def _variant(finding: Finding, source: str, spec: Verification) -> Tuple[Optional[list], str]:
    """(edits of the faster variant, "fix" or "rewrite"); failure rules may have none."""
    if finding.fix is not None:
        return list(finding.fix.edits), "fix"
    if spec.purpose is Purpose.FAILURE:
        return None, "fix"
    if spec.rewrite is None and spec.unmeasurable:
        raise Unverifiable(f"{finding.code} cannot be measured: {spec.unmeasurable}")
    if spec.rewrite is None:
        raise Unverifiable(
            f"{finding.code} has no fix here and no verification rewrite to measure against"
        )
    try:
        src = Source(source)
        return rewrite(spec.rewrite, src, finding.line, finding.end_line, finding.extra), "rewrite"
    except Unsupported as exc:
        raise Unverifiable(f"no verification rewrite for this {finding.code} case: {exc}") from None


def _regions(job: dict, source: str, tree: ast.Module, edits: list, fixed_tree: ast.Module):
    """The top-level statements that hold the finding and its edits, in both variants."""
    added_imports, edits_in_code = _added_imports(edits)
    lines = [job["line"], job["end_line"]] + [
        line for e in edits_in_code for line in (e.line, e.end_line)
    ]
    region = _overlapping(tree.body, min(lines), max(lines))
    if not region:
        raise Unverifiable("the finding is not inside any statement")
    start, end = _start(region[0]), last_line(region[-1])
    fixed_start = start + sum(text.count("\n") for text in added_imports)
    fixed_end = end + (len(job["fixed_source"].splitlines()) - len(source.splitlines()))
    fixed_region = [
        s for s in fixed_tree.body if _start(s) >= fixed_start and last_line(s) <= fixed_end
    ]
    imports = [ast.dump(s) for stmt in added_imports for s in ast.parse(stmt).body]
    before = [ast.dump(s) for s in tree.body if last_line(s) < start]
    fixed_before = [
        ast.dump(s)
        for s in fixed_tree.body
        if last_line(s) < fixed_start
        and not (isinstance(s, (ast.Import, ast.ImportFrom)) and ast.dump(s) in imports)
    ]
    if before != fixed_before:
        raise Unverifiable(
            "the fix changes code before the flagged statements; cannot time them apart"
        )
    job["region"] = [start, end]
    job["fixed_region"] = [_start(fixed_region[0]) if fixed_region else fixed_start, fixed_end]
    job["fixed_imports"] = "".join(added_imports)
    return region, fixed_region


def _function_job(job, finding, tree, func, fixed_region, spec: Verification, options) -> dict:
    if isinstance(func, ast.AsyncFunctionDef):
        raise Unverifiable(f"`{func.name}` is a coroutine function")
    if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _own_nodes(func)):
        raise Unverifiable(f"`{func.name}` is a generator: its work happens as it is consumed")
    same = [s for s in fixed_region if isinstance(s, ast.FunctionDef) and s.name == func.name]
    # A fix may add functions next to it (a training step moved out into a `@tf.function`).
    added = [s for s in fixed_region if s not in same]
    module_names = {s.name for s in tree.body if isinstance(s, (ast.FunctionDef, ast.ClassDef))}
    if (
        len(same) != 1
        or not all(isinstance(s, ast.FunctionDef) for s in added)
        or {s.name for s in added} & module_names
    ):
        raise Unverifiable(f"the {job['variant']} changes more than the function `{func.name}`")
    job["added_defs"] = [[_start(s), last_line(s)] for s in added]
    # The lines a measured call must run: the finding's, or (a finding on the `def` itself)
    # any of the body's.
    body_start = func.body[0].lineno
    whole = finding.line < body_start
    job["reach"] = [body_start, last_line(func)] if whole else [finding.line, finding.end_line]
    specs, why = inputs_mod.plan_inputs(
        finding.code, func, finding.line, finding.end_line, options.size, spec.inputs, tree
    )
    job.update(
        mode="function",
        function=func.name,
        factory=options.factory_for(finding.path, func.name),
        inputs=specs,
        inputs_reason=why,
    )
    return job


def _method_job(job, finding, tree, cls: ast.ClassDef, fixed_region, spec, options) -> dict:
    """A finding inside a method: timed at the method's first call on an instance."""
    methods = [
        s
        for s in cls.body
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
        and _start(s) <= finding.line <= last_line(s)
    ]
    if not methods:
        raise Unverifiable(
            f"the finding is in the body of class `{cls.name}`, not in one of its methods"
        )
    method = methods[0]
    if isinstance(method, ast.AsyncFunctionDef):
        raise Unverifiable(f"`{cls.name}.{method.name}` is a coroutine method")
    kinds = {ast.unparse(d).rsplit(".", 1)[-1] for d in method.decorator_list}
    if kinds & {"staticmethod", "classmethod", "property"}:
        raise Unverifiable(f"`{cls.name}.{method.name}` is a {sorted(kinds)[0]}, not a method")
    fixed = [s for s in fixed_region if isinstance(s, ast.ClassDef) and s.name == cls.name]
    if len(fixed_region) != 1 or not fixed:
        raise Unverifiable(f"the {job['variant']} changes more than the class `{cls.name}`")
    others = [ast.dump(s) for s in cls.body if s is not method]
    fixed_method = [
        s for s in fixed[0].body if isinstance(s, ast.FunctionDef) and s.name == method.name
    ]
    fixed_others = [ast.dump(s) for s in fixed[0].body if s not in fixed_method]
    if len(fixed_method) != 1 or others != fixed_others:
        raise Unverifiable(
            f"the {job['variant']} changes more than the method `{cls.name}.{method.name}`"
        )
    if spec.timing is Timing.COLD:
        raise Unverifiable("cold timing (every run from fresh definitions) of a method is not done")
    job = _function_job(job, finding, tree, method, [fixed_method[0]], spec, options)
    job["owner"] = cls.name
    job["init"] = _init_plan(cls, tree)
    return job


def _init_plan(cls: ast.ClassDef, tree: ast.Module) -> Optional[dict]:
    """How to make an instance when nothing did: ``__init__``'s arguments from the module's globals."""
    init = next(
        (s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None
    )
    if init is None:
        return {"kwargs": {}} if not cls.bases else None
    needed, _ = inputs_mod.parameters(init)
    bound = {
        n.id
        for stmt in tree.body
        for n in [stmt, *_own_nodes(stmt)]
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    if not set(needed) <= bound:
        return None
    return {"kwargs": {name: name for name in needed}}  # parameter -> the module's global


def _own_nodes(func: ast.AST):
    """The nodes of a function's body, not of the functions and classes nested in it."""
    todo = list(ast.iter_child_nodes(func))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))


def _call_at(tree: ast.AST, line: int, col: int) -> bool:
    return any(
        isinstance(n, ast.Call) and (n.lineno, n.col_offset) == (line, col) for n in ast.walk(tree)
    )


def _pipeline(job, finding, source, tree, edits, fixed_tree) -> None:
    """Where the flagged method call's chain starts, in both variants (``Verification.iterate``).

    The finding points at the method's name (``.map``); the chain it ends
    (``tf.data.Dataset.range(n).map(f)``) starts where that call starts.
    Columns are byte offsets, as ``ast`` counts them.
    """
    text = source.splitlines()[finding.end_line - 1] if finding.end_line else ""
    end = (finding.end_line, len(text[: finding.end_column - 1].encode("utf-8")))
    calls = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and (n.func.end_lineno, n.func.end_col_offset) == end
    ]
    if not calls:
        raise Unverifiable("the flagged call builds no pipeline that can be iterated apart")
    line, col = calls[0].lineno, calls[0].col_offset
    # Lines the fix inserts before the chain's start move it down in the fixed variant.
    shift = sum(
        e.content.count("\n") - (e.end_line - e.line)
        for e in edits
        if (e.end_line, e.end_column) <= (line, col)
    )
    if not _call_at(fixed_tree, line + shift, col):
        raise Unverifiable(f"the {job['variant']} moves the pipeline; cannot iterate it apart")
    job["pipeline"] = [line, col]
    job["fixed_pipeline"] = [line + shift, col]


def _timed_job(job, finding, source, tree, edits, spec: Verification, options) -> dict:
    fixed_tree = ast.parse(str(job["fixed_source"]))
    region, fixed_region = _regions(job, source, tree, edits, fixed_tree)
    if spec.iterate is not None:
        _pipeline(job, finding, source, tree, edits, fixed_tree)
        job["iterate"] = spec.iterate.value
    job["cold"] = spec.timing is Timing.COLD
    if len(region) == 1 and isinstance(region[0], ast.ClassDef):
        return _method_job(job, finding, tree, region[0], fixed_region, spec, options)
    if len(region) == 1 and isinstance(region[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return _function_job(job, finding, tree, region[0], fixed_region, spec, options)
    job["mode"] = "module"
    return job


def plan_finding(
    job_id: int,
    finding: Finding,
    source: str,
    tree: Optional[ast.Module],
    options: VerifyOptions,
    spec: Optional[Verification] = None,
) -> Tuple[Optional[dict], Optional[dict]]:
    """(job, None) or (None, immediate outcome)."""
    spec = spec or Verification()
    if tree is None:
        return None, unverified("the file does not parse as Python for this interpreter")
    job: Dict[str, Any] = {
        "id": job_id,
        "code": finding.code,
        "line": finding.line,
        "end_line": finding.end_line,
        "needs_gpu": spec.needs_gpu,
    }
    if spec.differs_by_design and not finding.extra.get("comparable"):
        job["by_design"] = spec.differs_by_design
    if spec.moves_random_draws:
        job["draws_move"] = True
    try:
        edits, variant = _variant(finding, source, spec)
        job["fixed_source"] = apply_edits(source, edits) if edits else None
        job["variant"] = variant if job["fixed_source"] is not None else None
        if job["fixed_source"] is not None:
            job["diff"] = measured_diff(finding.path, source, job["fixed_source"], variant)
            try:
                ast.parse(job["fixed_source"])
            except SyntaxError:
                raise Unverifiable(f"the {variant} does not parse") from None
        if spec.purpose is Purpose.FAILURE:
            job.update(mode="failure", caught=_caught(tree, finding.line), observe=spec.observe)
            return job, None
        return _timed_job(job, finding, source, tree, edits, spec, options), None
    except Unverifiable as exc:
        return None, unverified(str(exc))


def plan_file(
    path: str,
    source: str,
    findings: List[Finding],
    first_id: int,
    options: VerifyOptions,
    rules: Dict[str, type],
    position=None,
) -> Tuple[List[dict], Dict[int, dict]]:
    """Jobs and immediate outcomes; ``position(finding)`` gives its lines in ``source`` (notebooks)."""
    why = ""
    try:
        tree: Optional[ast.Module] = ast.parse(source)
    except SyntaxError as exc:
        tree, why = None, f" (line {exc.lineno}: {exc.msg})"
    except ValueError:
        tree = None
    jobs, outcomes = [], {}
    for offset, finding in enumerate(findings):
        job_id = first_id + offset
        if finding.code == SYNTAX_CODE:
            outcomes[job_id] = unverified("the file does not parse; nothing to run")
            continue
        rule = rules.get(finding.code)
        spec = getattr(rule, "verification", None) or Verification()
        if position is not None:
            line, end_line = position(finding)
            finding = dataclasses.replace(finding, line=line, end_line=end_line)
        job, outcome = plan_finding(job_id, finding, source, tree, options, spec)
        if job is not None:
            jobs.append(job)
        elif outcome is not None:
            if tree is None:
                outcome["reason"] += why
            outcomes[job_id] = outcome
    return jobs, outcomes
