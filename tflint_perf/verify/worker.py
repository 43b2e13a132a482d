"""The verify worker: ``python -m tflint_perf.verify.worker SPEC.json``.

Runs in a fresh interpreter (the user's Python), in a temporary working
directory, started by ``tflint_perf.verify.orchestrate``. It imports
TensorFlow once and serves every job of one file (or one failure run).
Messages go to the original stdout as JSON lines (``hello``, ``start``,
``result``); everything the user's code prints goes to stderr.
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import inspect
import json
import os
import random
import sys
import time
import traceback
import types

CONFIG_FUNCTIONS = (
    "set_memory_growth",
    "set_visible_devices",
    "set_logical_device_configuration",
    "set_virtual_device_configuration",
    "set_intra_op_parallelism_threads",
    "set_inter_op_parallelism_threads",
)
CONFIG_NAMESPACES = (
    "config", "config.experimental", "config.threading",
    "compat.v1.config", "compat.v1.config.experimental", "compat.v1.config.threading",
)


MIN_TIMED_S = 1.0  # keep adding timed pairs of fast code until this much was timed
MAX_PAIRS = 41


class _Stop(BaseException):
    """Raised into the user's module once everything needed was measured."""


def error_line(exc: BaseException, path: str = "") -> str:
    """The error's last line (``Type: message``), with the user's line when known."""
    message = str(exc).strip().splitlines()
    text = f"{type(exc).__name__}: {message[-1] if message else ''}".rstrip(": ")
    if len(text) > 300:
        text = text[:297] + "..."
    if path:
        lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == path]
        if lines:
            text += f" (line {lines[-1]})"
    return text


class Worker:
    def __init__(self, spec: dict, channel) -> None:
        self.spec = spec
        self.channel = channel
        self.path = spec.get("path", "")
        self.source = spec.get("source", "")
        self.rtol, self.atol = spec.get("rtol", 1e-4), spec.get("atol", 1e-5)
        self.repeats = max(1, int(spec.get("repeats", 7)))
        self.timeout = float(spec.get("timeout", 120))
        self.size = int(spec.get("size", 256))
        self.tf = None
        self.np = None
        self.device = {}

    # -- messages -------------------------------------------------------
    def send(self, **message) -> None:
        self.channel.write(json.dumps(message, default=str) + "\n")
        self.channel.flush()

    # -- start ----------------------------------------------------------
    def hello(self) -> bool:
        module = self.spec.get("tf_module")
        info = {"python": sys.version.split()[0]}
        try:
            import numpy

            self.np = numpy
        except ImportError as exc:
            self.send(type="hello", ok=False, error=error_line(exc), **info)
            return False
        if module:
            try:
                self.tf = importlib.import_module(module)
                info["tf_version"] = getattr(self.tf, "__version__", "?")
            except Exception as exc:
                self.send(type="hello", ok=False, missing_tf=True, error=error_line(exc), **info)
                return False
        from tflint_perf.verify.device import detect

        self.device = detect(self.tf)
        self.send(type="hello", ok=True, device=self.device, **info)
        return True

    # -- state: seeds and variables --------------------------------------
    def seed(self, framework: bool = True) -> None:
        """Seed Python and numpy; with ``framework`` also TensorFlow/Keras.

        ``tf.random.set_seed`` clears TensorFlow's kernel caches, which would
        make every following tf.function call slow: timed runs skip it.
        """
        random.seed(0)
        self.np.random.seed(0)
        if not framework:
            return
        if self.tf is not None:
            try:
                self.tf.random.set_seed(0)
            except Exception:
                pass
        keras = sys.modules.get("keras")
        if keras is not None and hasattr(getattr(keras, "utils", None), "set_random_seed"):
            try:
                keras.utils.set_random_seed(0)
            except Exception:
                pass

    def snapshot(self, roots) -> list:
        """(variable, value) for every variable reachable from ``roots`` (shallowly)."""
        if self.tf is None:
            return []
        found = {}

        def is_variable(v):
            return callable(getattr(v, "assign", None)) and callable(getattr(v, "numpy", None)) and not isinstance(v, type)

        def visit(value, depth):
            if isinstance(value, (types.ModuleType, type, types.FunctionType, str, bytes, int, float)):
                return
            if is_variable(value):
                found[id(value)] = value
                return
            if depth > 2:
                return
            if isinstance(value, (list, tuple, set)):
                for item in list(value)[:1000]:
                    visit(item, depth + 1)
                return
            if isinstance(value, dict):
                for item in list(value.values())[:1000]:
                    visit(item, depth + 1)
                return
            if hasattr(type(value), "variables"):
                try:
                    for item in list(value.variables):
                        if is_variable(item):
                            found[id(item)] = item
                except Exception:
                    pass

        for root in roots:
            visit(root, 0)
        out = []
        for variable in found.values():
            try:
                out.append((variable, self.np.array(variable.numpy())))
            except Exception:
                pass
        return out

    def restore(self, snapshot) -> None:
        for variable, value in snapshot:
            try:
                variable.assign(value)
            except Exception:
                pass

    # -- timing ---------------------------------------------------------
    def _gpu(self) -> bool:
        return self.device.get("kind") == "GPU" and self.tf is not None

    def timed(self, run):
        """Wrap a plain callable: (seconds, materialised result), clock read after materialising."""
        from tflint_perf.verify.equality import Materialiser

        materialise = Materialiser(self.tf)

        def inner():
            start = time.perf_counter()
            value = materialise(run())
            return time.perf_counter() - start, value

        return inner

    def _peak_reset(self):
        if self._gpu():
            try:
                self.tf.config.experimental.reset_memory_stats("GPU:0")
            except Exception:
                pass

    def _peak(self):
        if self._gpu():
            try:
                return int(self.tf.config.experimental.get_memory_info("GPU:0")["peak"])
            except Exception:
                return None
        return None

    def measure(self, run_b, run_f, roots) -> dict:
        """Warm-up (first call) each, then alternating timed pairs; equality of results."""
        from tflint_perf.verify.equality import Comparison

        deadline = time.perf_counter() + self.timeout * 0.5
        snap = self.snapshot(roots)
        peaks = {"baseline": None, "fixed": None}

        def one(which, run, seeded=False):
            self.restore(snap)
            self.seed(framework=seeded)
            self._peak_reset()
            seconds, value = run()
            peak = self._peak()
            if peak is not None:
                peaks[which] = max(peaks[which] or 0, peak)
            return seconds, value

        # Seeded runs: first calls (timed apart), then one more of each, for the equality checks.
        first_b, out_b1 = one("baseline", run_b, seeded=True)
        first_f, out_f1 = one("fixed", run_f, seeded=True)
        _, out_b2 = one("baseline", run_b, seeded=True)
        _, out_f2 = one("fixed", run_f, seeded=True)
        one("baseline", run_b)  # warm again: seeding cleared TensorFlow's caches
        one("fixed", run_f)
        times_b, times_f = [], []
        note = ""
        # At least ``repeats`` pairs; fast code gets more, up to MIN_TIMED_S of timing or MAX_PAIRS.
        i = 0
        while True:
            order = (("baseline", run_b), ("fixed", run_f)) if i % 2 == 0 else (("fixed", run_f), ("baseline", run_b))
            for which, run in order:
                seconds, _ = one(which, run)
                (times_b if which == "baseline" else times_f).append(seconds)
            i += 1
            spent = sum(times_b) + sum(times_f)
            pair = spent / i
            if i >= MAX_PAIRS or (i >= self.repeats and spent >= MIN_TIMED_S):
                break
            if time.perf_counter() + pair > deadline:
                if i < self.repeats:
                    note = f"only {i} timed pair(s) fit in half the time limit"
                break
        self.restore(snap)

        result = {
            "baseline_times": times_b,
            "fixed_times": times_f,
            "first_call_s": {"baseline": first_b, "fixed": first_f},
            "repeats": len(times_b),
            "peak_memory_bytes": peaks if any(v is not None for v in peaks.values()) else None,
            "tolerance": {"rtol": self.rtol, "atol": self.atol},
            "note": note,
        }
        determinism = Comparison(self.rtol, self.atol)
        if not determinism.equal(out_b1, out_b2, "result"):
            result["equal"] = None
            result["equal_note"] = (
                f"the original's results differ between two runs ({determinism.first_difference}); not compared"
            )
            return result
        comparison = Comparison(self.rtol, self.atol)
        equal = comparison.equal(out_b1, out_f1, "result") and comparison.equal(out_b2, out_f2, "result")
        result["max_abs_diff"] = comparison.max_abs_diff
        if comparison.compared == 0:
            result["equal"] = None
            result["equal_note"] = "the flagged code produced no value that can be compared"
        else:
            result["equal"] = equal
            result["compared"] = comparison.compared
            if not equal:
                result["equal_note"] = comparison.first_difference
        return result

    # -- running a module ------------------------------------------------
    def namespace(self) -> dict:
        return {"__name__": "__main__", "__file__": self.path, "__builtins__": builtins, "__doc__": None}

    def run_main(self, code, namespace) -> None:
        """Execute module code as ``__main__`` (sys.argv, sys.path, sys.modules set up)."""
        module = types.ModuleType("__main__")
        module.__dict__.update(namespace)
        saved = sys.modules.get("__main__"), sys.argv
        sys.modules["__main__"] = module
        sys.argv = [self.path]
        try:
            exec(code, namespace)
        finally:
            sys.modules["__main__"], sys.argv = saved

    def bind_imports(self, job: dict, namespace: dict) -> None:
        """Run the imports the fix adds at the top of the module (e.g. ``import tensorflow as tf``).

        They bind into the module's namespace only names it does not hold
        already (or holds as the same object); the original never reads them.
        """
        text = job.get("fixed_imports")
        if not text:
            return
        scratch = dict(namespace)
        exec(compile(text, f"{self.path} (fix imports)", "exec"), scratch)
        for key, value in scratch.items():
            if key in namespace and namespace[key] is not value:
                raise RuntimeError(f"the fix imports `{key}`, which the module binds to something else")
            namespace[key] = value

    def statements(self, tree, first: int, last: int):
        def start(s):
            return min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", [])])

        return [s for s in tree.body if start(s) >= first and s.end_lineno <= last]

    def compile_body(self, body, filename):
        return compile(ast.Module(body=body, type_ignores=[]), filename, "exec")

    @staticmethod
    def bound_names(body) -> set:
        names = set()

        def visit(node):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                return
            if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                return
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            for child in ast.iter_child_nodes(node):
                visit(child)

        for stmt in body:
            visit(stmt)
        return names

    def copy_namespace(self, base: dict) -> dict:
        out = {}
        for key, value in base.items():
            if isinstance(value, (list, dict, set)):
                value = type(value)(value) if type(value) in (list, dict, set) else value
            elif self.np is not None and isinstance(value, self.np.ndarray):
                value = value.copy()
            out[key] = value
        return out

    def module_job(self, job: dict) -> dict:
        tree = ast.parse(self.source)
        fixed_tree = ast.parse(job["fixed_source"])
        first, last = job["region"]
        prefix = [s for s in tree.body if s.end_lineno < first]
        region_b = self.statements(tree, first, last)
        region_f = self.statements(fixed_tree, *job["fixed_region"])
        prefix_code = self.compile_body(prefix, self.path)
        code_b = self.compile_body(region_b, self.path)
        code_f = self.compile_body(region_f, f"{self.path} ({job.get('variant') or 'fix'})")
        outputs = sorted(self.bound_names(region_b) & self.bound_names(region_f))
        base = self.namespace()
        try:
            self.seed()
            self.run_main(prefix_code, base)
            self.bind_imports(job, base)
        except _Stop:
            raise
        except BaseException as exc:
            return {"status": "failed", "reason": f"running the module up to line {first} raised {error_line(exc, self.path)}"}
        from tflint_perf.verify.equality import Materialiser

        materialise = Materialiser(self.tf)

        def runner(code):
            def run():
                if job.get("cold"):
                    local = self.namespace()
                    self.run_main(prefix_code, local)
                else:
                    local = self.copy_namespace(base)
                start = time.perf_counter()
                self.run_main(code, local)
                value = materialise({name: local[name] for name in outputs if name in local})
                return time.perf_counter() - start, value

            return run

        try:
            result = self.measure(runner(code_b), runner(code_f), list(base.values()))
        except BaseException as exc:
            if isinstance(exc, (_Stop, KeyboardInterrupt)):
                raise
            return {"status": "failed", "reason": error_line(exc, self.path)}
        result["compared_names"] = outputs
        result["where"] = f"module-level statements, lines {first}-{last}"
        return result

    # -- functions at their call sites -----------------------------------
    def function_jobs(self, jobs: list) -> None:
        tree = ast.parse(self.source)
        fixed_defs = {}
        for job in jobs:
            fixed_tree = ast.parse(job["fixed_source"])
            for node in self.statements(fixed_tree, *job["fixed_region"]):
                if isinstance(node, ast.FunctionDef) and node.name == job["function"]:
                    fixed_defs[job["id"]] = node
        by_name = {}
        for job in jobs:
            by_name.setdefault(job["function"], []).append(job)
        body = []
        for stmt in tree.body:
            body.append(stmt)
            if isinstance(stmt, ast.FunctionDef) and stmt.name in by_name:
                hook = ast.parse(f"__tfp_hook__({stmt.name!r})").body[0]
                for node in ast.walk(hook):
                    node.lineno = node.end_lineno = stmt.end_lineno
                    node.col_offset = node.end_col_offset = 0
                body.append(hook)
        namespace = self.namespace()
        pending = {job["id"]: job for job in jobs}
        busy = []

        def measure_call(job, base_fn, args, kwargs):
            self.bind_imports(job, namespace)
            fixed_fn = self.define(fixed_defs[job["id"]], namespace, job)
            cold_defs = self.cold_definitions(tree, job) if job.get("cold") else None
            base_def = next(s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == job["function"])

            def call(which):
                def run():
                    function = base_fn if which == "baseline" else fixed_fn
                    if cold_defs is not None:  # fresh tf.functions (and this function) each run
                        self.run_main(cold_defs, namespace)
                        function = self.define(base_def if which == "baseline" else fixed_defs[job["id"]], namespace, job)
                    return function(*self.copy_args(args), **self.copy_args(kwargs))

                return self.timed(run)

            try:
                return self.measure(call("baseline"), call("fixed"), list(namespace.values()) + list(args) + list(kwargs.values()))
            finally:
                if cold_defs is not None:
                    self.run_main(cold_defs, namespace)  # leave fresh definitions behind
                    namespace.update({name: wrappers[name] for name in wrappers})

        wrappers = {}

        def hook(name):
            base_fn = namespace[name]

            @functools.wraps(base_fn)
            def wrapper(*args, **kwargs):
                mine = [j for j in by_name[name] if j["id"] in pending]
                if busy or not mine:
                    return base_fn(*args, **kwargs)
                busy.append(name)
                try:
                    for job in mine:
                        self.send(type="start", ids=[job["id"]])
                        try:
                            result = measure_call(job, base_fn, args, kwargs)
                            result["where"] = f"`{name}` at its call site (line {self.caller_line()})"
                        except (_Stop, KeyboardInterrupt):
                            raise
                        except BaseException as exc:
                            result = {"status": "failed", "reason": error_line(exc, self.path)}
                        pending.pop(job["id"], None)
                        self.send(type="result", id=job["id"], result=result)
                finally:
                    busy.pop()
                if not pending:
                    raise _Stop()
                return base_fn(*args, **kwargs)

            wrappers[name] = wrapper
            namespace[name] = wrapper

        namespace["__tfp_hook__"] = hook
        module_error = None
        self.send(type="start", ids=list(pending))
        try:
            self.seed()
            self.run_main(self.compile_body(body, self.path), namespace)
        except _Stop:
            pass
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            module_error = error_line(exc, self.path)
        for job in list(pending.values()):
            self.send(type="start", ids=[job["id"]])
            result = self.function_fallback(job, namespace, fixed_defs[job["id"]], module_error, tree)
            pending.pop(job["id"], None)
            self.send(type="result", id=job["id"], result=result)

    def caller_line(self) -> int:
        frame = sys._getframe(1)
        lines = []
        while frame is not None:
            if frame.f_code.co_filename == self.path:
                lines.append(frame.f_lineno)
            frame = frame.f_back
        return lines[1] if len(lines) > 1 else (lines[0] if lines else 0)

    def define(self, node, namespace, job):
        local: dict = {}
        exec(self.compile_body([node], f"{self.path} ({job.get('variant') or 'fix'})"), namespace, local)
        return local[node.name]

    def cold_definitions(self, tree, job):
        """Top-level defs and ``x = tf.function(...)`` bindings, re-run before each cold run."""
        keep = []
        for stmt in tree.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name != job["function"]:
                keep.append(stmt)
            elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
                func = stmt.value.func
                if isinstance(func, ast.Attribute) and func.attr == "function":
                    keep.append(stmt)
        return self.compile_body(keep, self.path)

    def copy_args(self, args):
        if isinstance(args, dict):
            return {k: self.copy_value(v) for k, v in args.items()}
        return [self.copy_value(v) for v in args]

    def copy_value(self, value):
        if type(value) in (list, dict, set):
            return type(value)(value)
        if self.np is not None and isinstance(value, self.np.ndarray):
            return value.copy()
        return value

    def function_fallback(self, job, namespace, fixed_def, module_error, tree) -> dict:
        name = job["function"]
        base_fn = namespace.get(name)
        base_fn = getattr(base_fn, "__wrapped__", base_fn)
        ran = "running the module raised " + module_error if module_error else "nothing called it when the module ran as __main__"
        if base_fn is None:
            return {"status": "failed", "reason": f"`{name}` was never defined: {ran}"}
        args, kwargs, source = None, {}, ""
        try:
            if job.get("factory"):
                args, kwargs = self.factory_inputs(job["factory"])
                source = f"inputs from factory {job['factory']}"
            elif job.get("inputs") is not None:
                from tflint_perf.verify.inputs import build

                args = []
                kwargs = {param: build(spec, self.tf, seed=i) for i, (param, spec) in enumerate(job["inputs"].items())}
                shapes = ", ".join(f"{p}: {s['kind']} {'x'.join(map(str, s['shape']))}" for p, s in job["inputs"].items())
                source = f"synthesised inputs ({shapes})" if shapes else "no arguments"
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            return {"status": "failed", "reason": f"the input factory raised {error_line(exc)}"}
        if args is None:
            status = "failed" if module_error else "unverified"
            return {
                "status": status,
                "reason": f"no inputs for `{name}`: {ran}, and {job.get('inputs_reason') or 'no roles are known'}; "
                f"give a factory in [tool.tflint-perf.verify.inputs]",
            }
        fixed_fn = None
        try:
            self.bind_imports(job, namespace)
            fixed_fn = self.define(fixed_def, namespace, job)
            cold_defs = self.cold_definitions(tree, job) if job.get("cold") else None
            base_def = next(s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == name)

            def call(which):
                def run():
                    function = base_fn if which == "baseline" else fixed_fn
                    if cold_defs is not None:
                        self.run_main(cold_defs, namespace)
                        function = self.define(base_def if which == "baseline" else fixed_def, namespace, job)
                    return function(*self.copy_args(args), **self.copy_args(kwargs))

                return self.timed(run)

            result = self.measure(call("baseline"), call("fixed"), list(namespace.values()) + list(args) + list(kwargs.values()))
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            return {"status": "failed", "reason": f"calling `{name}` with {source or 'its inputs'} raised {error_line(exc, self.path)}"}
        result["where"] = f"`{name}` with {source}" + (f" ({ran})" if module_error else "")
        return result

    def factory_inputs(self, factory: str):
        module_name, _, attr = factory.partition(":")
        function = getattr(importlib.import_module(module_name), attr)
        try:
            accepts_size = "size" in inspect.signature(function).parameters
        except (TypeError, ValueError):
            accepts_size = False
        value = function(size=self.size) if accepts_size else function()
        if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], (list, tuple)) and isinstance(value[1], dict):
            return list(value[0]), dict(value[1])
        if isinstance(value, tuple):
            return list(value), {}
        if isinstance(value, dict):
            return [], value
        return [value], {}

    # -- failure rules ---------------------------------------------------
    def failure_job(self, job: dict, variant: str) -> dict:
        source = self.source if variant == "original" else job["fixed_source"]
        events = []
        tf = self.tf
        path = self.path

        def user_lines():
            frame, lines = sys._getframe(2), []
            while frame is not None:
                if frame.f_code.co_filename == path:
                    lines.append(frame.f_lineno)
                frame = frame.f_back
            return lines

        def recording(original, name):
            @functools.wraps(original)
            def record(*args, **kwargs):
                lines = user_lines()
                try:
                    value = original(*args, **kwargs)
                except Exception as exc:
                    events.append({"call": name, "lines": lines, "error": error_line(exc)})
                    if variant == "original" and job["line"] in lines and isinstance(exc, RuntimeError):
                        raise _Stop() from None
                    raise
                events.append({"call": name, "lines": lines, "error": None})
                return value

            record.__tfp_recording__ = True
            return record

        if tf is not None:
            for dotted in CONFIG_NAMESPACES:
                namespace = tf
                try:
                    for part in dotted.split("."):
                        namespace = getattr(namespace, part)
                except AttributeError:
                    continue
                for name in CONFIG_FUNCTIONS:
                    original = getattr(namespace, name, None)
                    if original is not None and not getattr(original, "__tfp_recording__", False):
                        try:
                            setattr(namespace, name, recording(original, name))
                        except Exception:
                            pass
        error, stopped = None, False
        try:
            self.run_main(compile(source, path, "exec"), self.namespace())
        except _Stop:
            stopped = True
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            error = error_line(exc, path)
        result = {"variant": variant, "events": events, "error": error, "stopped": stopped}
        if tf is not None:
            try:
                result["gpus_visible"] = len(tf.config.list_physical_devices("GPU"))
            except Exception:
                pass
        result["cuda_visible_devices"] = os.environ.get("CUDA_VISIBLE_DEVICES")
        return result

    # -- dispatch ----------------------------------------------------------
    def serve(self) -> None:
        if not self.hello() or self.spec.get("probe"):
            return
        if self.path:
            directory = os.path.dirname(os.path.abspath(self.path))
            for entry in [self.spec.get("root"), directory]:
                if entry and entry not in sys.path:
                    sys.path.insert(0, entry)
        if self.spec.get("failure"):
            job = self.spec["jobs"][0]
            self.send(type="start", ids=[job["id"]])
            self.send(type="result", id=job["id"], result=self.failure_job(job, self.spec["failure"]))
            return
        functions = [job for job in self.spec["jobs"] if job["mode"] == "function"]
        for job in self.spec["jobs"]:
            if job["mode"] != "module":
                continue
            self.send(type="start", ids=[job["id"]])
            try:
                result = self.module_job(job)
            except _Stop:
                result = {"status": "failed", "reason": "the module stopped the run"}
            self.send(type="result", id=job["id"], result=result)
        if functions:
            self.function_jobs(functions)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    with open(argv[0], encoding="utf-8") as handle:
        spec = json.load(handle)
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # the user's prints go to stderr, not into our messages
    sys.stdout = os.fdopen(1, "w", encoding="utf-8", errors="replace", closefd=False)
    Worker(spec, channel).serve()
    channel.flush()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # skip TensorFlow's slow (and sometimes hanging) interpreter teardown


if __name__ == "__main__":
    sys.exit(main())
