"""Findings in module-level statements (worker side).

The module runs up to the flagged statements (as ``__main__``); then those
statements and their fixed version are measured, each run from a copy of
that namespace (cold: from a fresh run of the prefix). Compared are the
names both variants bind, and the variables reachable from the namespace.
"""

from __future__ import annotations

import ast
import time

from tflint_perf.verify.measure import Measurement
from tflint_perf.verify.state import State


def bound_names(body) -> set:
    """Names the statements bind at their own level (not inside functions, classes, comprehensions)."""
    names = set()
    scopes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
    comprehensions = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)

    def visit(node):
        if isinstance(node, scopes + comprehensions):
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        for child in ast.iter_child_nodes(node):
            visit(child)

    for stmt in body:
        visit(stmt)
    return names


def copy_namespace(worker, base: dict) -> dict:
    out = {}
    for key, value in base.items():
        if type(value) in (list, dict, set):
            value = type(value)(value)
        elif worker.np is not None and isinstance(value, worker.np.ndarray):
            value = value.copy()
        out[key] = value
    return out


class _Parts:
    def __init__(self, worker, job: dict) -> None:
        tree = ast.parse(worker.source)
        fixed_tree = ast.parse(job["fixed_source"])
        self.first, self.last = job["region"]
        region_b = worker.statements(tree, self.first, self.last)
        region_f = worker.statements(fixed_tree, *job["fixed_region"])
        prefix = [s for s in tree.body if s.end_lineno < self.first]
        self.prefix = worker.compile_body(prefix, worker.path)
        self.baseline = worker.compile_body(region_b, worker.path)
        self.fixed = worker.compile_body(region_f, f"{worker.path} ({job.get('variant') or 'fix'})")
        self.outputs = sorted(bound_names(region_b) & bound_names(region_f))


def run_module_job(worker, job: dict) -> dict:
    parts = _Parts(worker, job)
    base = worker.namespace()
    try:
        worker.seed()
        worker.run_main(parts.prefix, base)
        worker.bind_imports(job, base)
    except worker.Stop:
        raise
    except (Exception, SystemExit) as exc:
        return {
            "status": "failed",
            "reason": f"running the module up to line {parts.first} raised {worker.error_line(exc, worker.path)}",
        }
    from tflint_perf.verify.equality import Materialiser

    materialise = Materialiser(worker.tf)

    def runner(code):
        def run():
            if job.get("cold"):
                local = worker.namespace()
                worker.run_main(parts.prefix, local)
            else:
                local = copy_namespace(worker, base)
            start = time.perf_counter()
            worker.run_main(code, local)
            value = materialise({name: local[name] for name in parts.outputs if name in local})
            return time.perf_counter() - start, value

        return run

    try:
        state = State(worker.np, list(base.values()))
        result = Measurement(worker, runner(parts.baseline), runner(parts.fixed), state, base).run()
    except (worker.Stop, KeyboardInterrupt):
        raise
    except (Exception, SystemExit) as exc:
        return {"status": "failed", "reason": worker.error_line(exc, worker.path)}
    result["compared_names"] = parts.outputs
    result["where"] = f"module-level statements, lines {parts.first}-{parts.last}"
    return result
