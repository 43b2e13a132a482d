"""Findings in module-level statements (worker side).

The module runs up to the flagged statements (as ``__main__``); then those
statements and their fixed version are measured, each run from a copy of
that namespace (cold: from a fresh run of the prefix). Compared are the
names both variants bind, and the variables reachable from the namespace.
"""

from __future__ import annotations

import ast
import time

from tflint_perf.engine.verification import Iterate
from tflint_perf.verify import pipeline
from tflint_perf.verify.loops import NAME as LOOPS
from tflint_perf.verify.loops import LoopLimiter, instrument
from tflint_perf.verify.measure import Measurement, NotReached
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


def copy_namespace(worker, base: dict, names=None) -> dict:
    """A namespace to run from; the containers and arrays among ``names`` (all: None) copied."""
    out = {}
    for key, value in base.items():
        if names is not None and key not in names:
            pass
        elif type(value) in (list, dict, set):
            value = type(value)(value)
        elif worker.np is not None and isinstance(value, worker.np.ndarray):
            value = value.copy()
        out[key] = value
    return out


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Code that runs later than it is written, and so may reach the module's names at any run.
_DEFERRED = _DEFINITIONS + (ast.Lambda, ast.GeneratorExp)
# Reaching names without spelling them: every name may be touched.
_BY_ANY_NAME = {
    "globals",
    "vars",
    "locals",
    "eval",
    "exec",
    "__import__",
    "__dict__",
    "modules",
    "__main__",
}


def reachable_names(trees, regions):
    """The names the measured statements can reach: those they spell, and those spelled by
    any function, class, lambda or generator of the module (which they may call); None when
    names can be reached without being spelled (``globals()``, ``sys.modules``, ...).

    Only these are copied before each run: copying every array of the module (a training
    set of 50 MB) before a run of microseconds leaves the caches cold and adds its refill
    to both variants' times, which flattens their ratio (a 10 us rewrite timed at 100 us)."""
    nodes = [n for region in regions for stmt in region for n in ast.walk(stmt)]
    nodes += [
        n for tree in trees for d in ast.walk(tree) if isinstance(d, _DEFERRED) for n in ast.walk(d)
    ]
    names = {n.id for n in nodes if isinstance(n, ast.Name)}
    attributes = {n.attr for n in nodes if isinstance(n, ast.Attribute)}
    return None if (names | attributes) & _BY_ANY_NAME else names


class _Parts:
    def __init__(self, worker, job: dict) -> None:
        tree = ast.parse(worker.source)
        fixed_tree = ast.parse(job["fixed_source"])
        self.first, self.last = job["region"]
        region_b = worker.statements(tree, self.first, self.last)
        region_f = worker.statements(fixed_tree, *job["fixed_region"])
        if job.get("pipeline"):  # the dataset each variant builds is caught there
            pipeline.wrap(region_b, job["pipeline"])
            pipeline.wrap(region_f, job["fixed_pipeline"])
        prefix = [s for s in tree.body if s.end_lineno < self.first]
        self.prefix = worker.compile_body(prefix, worker.path)
        self.reachable = reachable_names((tree, fixed_tree), (region_b, region_f))
        self.common = sorted(bound_names(region_b) & bound_names(region_f))
        # What the rest of the module reads: a loop's temporaries that nothing reads
        # afterwards may differ (a step moved into a function no longer binds them).
        later = [s for s in tree.body if s.lineno > self.last]
        read = {n.id for s in later for n in ast.walk(s) if isinstance(n, ast.Name)}
        self.live = [name for name in self.common if name in read]
        self.outputs = self.live
        # Definitions the fix adds (a step function moved out of a loop) run once, not in every timed
        # run: a tf.function made anew per run would be traced anew per run.
        own = bound_names(region_b) | {s.name for s in region_b if isinstance(s, _DEFINITIONS)}
        added = [
            s
            for s in region_f
            if isinstance(s, _DEFINITIONS) and s.name not in own and not job.get("cold")
        ]
        region_f = [s for s in region_f if s not in added]
        fixed_name = f"{worker.path} ({job.get('variant') or 'fix'})"
        self.definitions = worker.compile_body(added, fixed_name) if added else None
        _, keys_b = instrument(region_b)
        _, keys_f = instrument(region_f)
        common = set(keys_b) & set(keys_f)
        region_b, lines = instrument(region_b, common)
        region_f, _ = instrument(region_f, common)
        self.limiter = LoopLimiter(lines, job.get("loop_limits")) if lines else None
        self.baseline = worker.compile_body(region_b, worker.path)
        self.fixed = worker.compile_body(region_f, fixed_name)


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
    base[LOOPS] = parts.limiter
    bases = {parts.baseline: base, parts.fixed: base}
    if parts.definitions is not None:
        bases[parts.fixed] = copy_namespace(worker, base)
        worker.run_main(parts.definitions, bases[parts.fixed])

    def runner(code):
        def run():
            if job.get("cold"):
                local = worker.namespace()
                worker.run_main(parts.prefix, local)
                local[LOOPS] = parts.limiter
            else:
                local = copy_namespace(worker, bases[code], parts.reachable)
            seconds = worker.run_main(code, local)
            start = time.perf_counter()  # materialised on the clock: lazy results count
            value = materialise({name: local[name] for name in parts.outputs if name in local})
            return seconds + time.perf_counter() - start, value

        return run

    where = f"module-level statements, lines {parts.first}-{parts.last}"
    try:
        if job.get("pipeline"):
            for namespace in bases.values():
                pipeline.install(worker, namespace)
            datasets = {
                which: pipeline.build(worker, which, lambda code=code: runner(code)())
                for which, code in (("baseline", parts.baseline), ("fixed", parts.fixed))
            }
            result = pipeline.measure(
                worker, datasets, job["line"], job["iterate"] == Iterate.WITH_STEP.value
            )
            result["where"] = pipeline.where(where, result)
            return result
        # The variables the measured code can reach; restoring the others (every model the
        # module trained earlier) before each run would only add TensorFlow work beside it.
        reachable = parts.reachable
        state = State(
            worker.np, [v for k, v in base.items() if reachable is None or k in reachable]
        )
        if not parts.live and not len(state):  # nothing read later, no variables: all it binds
            parts.outputs = parts.common
        reach = (worker.path, job["line"], job["end_line"])
        result = Measurement(
            worker,
            runner(parts.baseline),
            runner(parts.fixed),
            state,
            base,
            parts.limiter,
            reach,
            job.get("by_design", ""),
            draws_move=bool(job.get("draws_move")),
        ).run()
    except (worker.Stop, KeyboardInterrupt):
        raise
    except NotReached:
        return {
            "status": "unverified",
            "reason": f"running lines {parts.first}-{parts.last} never executed the flagged "
            f"line {job['line']}: there is nothing to measure",
        }
    except (Exception, SystemExit) as exc:
        return worker.failed(exc)
    result["compared_names"] = parts.outputs
    result["where"] = where
    return result
