"""The verify worker: ``python -m tflint_perf.verify.worker SPEC.json``.

Runs in a fresh interpreter (the user's Python), in a temporary working
directory, started by ``tflint_perf.verify.orchestrate``. It first splits
off a reaper (``reaper.supervise``) that ends every process the code under
review starts, then limits its own memory, imports TensorFlow once and
serves every job of one file (or one failure run). Messages go to the
original stdout as JSON lines (``hello``, ``start``, ``result``, ``exit``);
everything the user's code prints goes to stderr. Processes the user's code
forks do not inherit the message channel.
"""

from __future__ import annotations

import ast
import builtins
import faulthandler
import importlib
import importlib.util
import json
import os
import random
import re
import signal
import sys
import threading
import time
import traceback
import types
from typing import Any


class Stop(BaseException):
    """Raised into the user's module once everything needed was measured."""


def error_line(exc: BaseException, path: str = "") -> str:
    """The error's last line (``Type: message``), with the user's line when known."""
    lines = [
        f.lineno for f in traceback.extract_tb(exc.__traceback__) if path and f.filename == path
    ]
    where = f" (line {lines[-1]})" if lines else ""
    if isinstance(exc, SystemExit):
        return f"sys.exit({exc.code!r}){where}: the module exited"
    if isinstance(exc, MemoryError):
        limit = os.environ.get("TFLINT_PERF_VERIFY_MEMORY", "")
        text = "MemoryError: out of memory" + (f" (the memory limit is {limit})" if limit else "")
        return text + where
    message = str(exc).strip().splitlines()
    text = f"{type(exc).__name__}: {message[-1] if message else ''}".rstrip(": ")
    if len(text) > 300:
        text = text[:297] + "..."
    return text + where


def limit_memory(limit_bytes: int) -> None:
    """Cap the worker's (and its children's) heap: allocations beyond fail with MemoryError."""
    if not limit_bytes:
        return
    try:
        import resource

        for name in ("RLIMIT_DATA", "RLIMIT_AS"):
            kind = getattr(resource, name, None)
            if kind is not None:
                resource.setrlimit(kind, (limit_bytes, limit_bytes))
                break
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ImportError, ValueError, OSError):
        pass


class Worker:
    Stop = Stop
    error_line = staticmethod(error_line)

    def __init__(self, spec: dict, channel) -> None:
        self.spec = spec
        self.channel = channel
        self.pid = os.getpid()
        self.path = spec.get("path", "")
        self.source = spec.get("source", "")
        self.rtol, self.atol = spec.get("rtol", 1e-4), spec.get("atol", 1e-5)
        self.repeats = max(1, int(spec.get("repeats", 7)))
        self.timeout = float(spec.get("timeout", 120))
        self.size = int(spec.get("size", 256))
        self.budget = float(spec.get("budget", 30))
        self.first_call_only = spec.get("first_call_only")  # "baseline" / "fixed": only that
        self.workdir = spec.get("workdir") or os.getcwd()
        self.script = spec.get("script_copy") or self.path  # what ``__file__`` says
        self.guard: Any = None
        self.tf: Any = None
        self.np: Any = None
        self.device: dict = {}

    # -- messages -------------------------------------------------------
    def send(self, **message) -> None:
        if os.getpid() != self.pid or self.channel is None:
            return  # a process the user's code forked: it has no say
        if message.get("type") == "result":
            message["result"] = self.annotate(message["result"])
        self.channel.write(json.dumps(message, default=str) + "\n")
        self.channel.flush()

    def forked(self) -> None:
        """In a child the user's code forked: drop the channel, so the linter never waits on it."""
        channel, self.channel = self.channel, None
        try:
            os.close(channel.fileno())
        except (OSError, ValueError, AttributeError):
            pass

    def failed(self, exc: BaseException, prefix: str = "") -> dict:
        """A failed result; when the measured variant (not the original) raised, it says so."""
        variant = bool(getattr(exc, "__tfp_variant__", False))
        what = "the measured variant raised " if variant else prefix
        return {
            "status": "failed",
            "reason": what + self.error_line(exc, self.path),
            "variant_failed": variant,
        }

    def annotate(self, result: dict) -> dict:
        """A refused action ends the finding as unverified (named); synthetic data is said."""
        from tflint_perf.verify.datasets import USED
        from tflint_perf.verify.imports import FIXED_ORDER, SHORTENED

        result = dict(result)
        if USED:
            result["synthetic_data"] = list(USED)
        if SHORTENED:
            result["shortened"] = list(dict.fromkeys(SHORTENED))
        if FIXED_ORDER:
            result["fixed_order"] = list(dict.fromkeys(FIXED_ORDER))
        if self.guard is not None and self.guard.made:
            result["made_folders"] = list(dict.fromkeys(self.guard.made))
        refused = list(dict.fromkeys(self.guard.refused)) if self.guard is not None else []
        if refused:
            where = re.search(r"\(line \d+\)\)?$", result.get("reason") or "")
            result.update(
                status="unverified",
                refused=refused,
                reason="the guard rails refused "
                + "; ".join(refused[:3])
                + (f" (and {len(refused) - 3} more)" if len(refused) > 3 else "")
                + (f" {where.group(0).rstrip(')')})" if where else "")
                + ": --verify does not let the code under review use the network or write "
                "outside its working copy",
            )
        return result

    # -- start ----------------------------------------------------------
    def hello(self) -> bool:
        """Import numpy and TensorFlow, say which device; the probe only checks TensorFlow is there."""
        info = {"python": sys.version.split()[0], "pid": os.getpid()}
        info["thread"] = threading.get_ident()
        from tflint_perf.verify.device import detect

        module = self.spec.get("tf_module")
        # TensorFlow first: without it (and so without numpy, which it brings)
        # the message must name TensorFlow.
        if self.spec.get("probe"):  # cheap: no TensorFlow import; the first worker tells the rest
            found = not module or importlib.util.find_spec(module) is not None
            error = "" if found else f"ModuleNotFoundError: No module named {module!r}"
            if found and importlib.util.find_spec("numpy") is None:
                found, error = False, "ModuleNotFoundError: No module named 'numpy'"
            self.send(type="hello", ok=found, error=error, device=detect(None, error), **info)
            return False
        try:
            import numpy

            self.np = numpy
        except ImportError as exc:
            self.send(type="hello", ok=False, error=error_line(exc), device=detect(None), **info)
            return False
        if module:
            try:
                self.tf = importlib.import_module(module)
                info["tf_version"] = getattr(self.tf, "__version__", "?")
            except Exception as exc:
                error = error_line(exc)
                self.send(type="hello", ok=False, error=error, device=detect(None, error), **info)
                return False
        self.device = detect(self.tf)
        self.send(type="hello", ok=True, device=self.device, loaded=bool(self.tf), **info)
        return True

    # -- state and timing -------------------------------------------------
    def seed(self, framework: bool = True, value: int = 0) -> None:
        """Seed Python and numpy; with ``framework`` also TensorFlow/Keras.

        ``tf.random.set_seed`` clears TensorFlow's kernel caches, which would
        make every following tf.function call slow: timed runs skip it.
        """
        random.seed(value)
        self.np.random.seed(value)
        if not framework:
            return
        keras = sys.modules.get("keras")
        for setter in (
            getattr(getattr(self.tf, "random", None), "set_seed", None),
            getattr(getattr(keras, "utils", None), "set_random_seed", None),
        ):
            if setter is not None:
                try:
                    setter(value)
                except Exception:
                    pass

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

    def peak_reset(self) -> None:
        if self._gpu():
            try:
                self.tf.config.experimental.reset_memory_stats("GPU:0")
            except Exception:
                pass

    def peak(self):
        if self._gpu():
            try:
                return int(self.tf.config.experimental.get_memory_info("GPU:0")["peak"])
            except Exception:
                return None
        return None

    # -- running module code ------------------------------------------------
    def namespace(self, main: bool = True) -> dict:
        namespace = {
            "__name__": "__main__" if main else "__tfp_verify__",
            "__file__": self.script,
            "__builtins__": builtins,
            "__doc__": None,
        }
        if self.spec.get("package"):  # relative imports resolve in the script's folder
            namespace["__package__"] = self.spec["package"]
        if self.spec.get("notebook"):
            from tflint_perf.verify.notebook import ipython_names

            namespace.update(ipython_names())
        return namespace

    def run_main(self, code, namespace) -> float:
        """Execute module code as ``__main__`` (sys.argv, sys.modules set up); the seconds the
        code itself ran (the set-up, a copy of the namespace, is not the code's)."""
        module = types.ModuleType("__main__")
        module.__dict__.update(namespace)
        saved_main, saved_argv = sys.modules.get("__main__"), sys.argv
        sys.modules["__main__"] = module
        sys.argv = [self.script]
        try:
            start = time.perf_counter()
            exec(code, namespace)
            return time.perf_counter() - start
        finally:
            sys.argv = saved_argv
            if saved_main is not None:
                sys.modules["__main__"] = saved_main

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
                raise RuntimeError(
                    f"the fix imports `{key}`, which the module binds to something else"
                )
            namespace[key] = value

    @staticmethod
    def statements(tree, first: int, last: int):
        def start(s):
            return min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", [])])

        return [s for s in tree.body if start(s) >= first and s.end_lineno <= last]

    @staticmethod
    def compile_body(body, filename):
        return compile(ast.Module(body=body, type_ignores=[]), filename, "exec")

    def define(self, node, namespace: dict, job: dict, baseline: bool = False) -> Any:
        """Run one ``def`` (or ``class``) statement of a variant; the object it binds."""
        local: dict = {}
        filename = self.path if baseline else f"{self.path} ({job.get('variant') or 'fix'})"
        exec(self.compile_body([node], filename), namespace, local)
        return local[node.name]

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

    def back_home(self) -> None:
        """The user's code may have changed directory (or removed ours): back to a known place."""
        for place in (self.workdir, os.path.dirname(self.workdir) or "/"):
            try:
                os.chdir(place)
                return
            except OSError:
                continue

    # -- dispatch ----------------------------------------------------------
    def protect(self) -> None:
        """Guard rails and patched loaders, before any of the user's code runs."""
        from tflint_perf.verify import imports
        from tflint_perf.verify.guard import Guard, guard_tensorflow

        roots = self.spec.get("guard_roots") or []
        if roots:
            self.guard = Guard(roots)
            if self.tf is not None:
                guard_tensorflow(self.guard, self.tf)
        imports.install(self)
        if self.guard is not None:
            self.guard.install()

    def serve(self) -> None:
        if not self.hello():
            return
        self.protect()
        folder = os.path.dirname(os.path.abspath(self.script))
        entries = [self.spec.get("root"), folder]
        if self.spec.get("package"):  # the package's parent: `from .bbox import ...` finds it
            entries.insert(1, os.path.dirname(folder))
        for entry in entries:
            if self.path and entry and entry not in sys.path:
                sys.path.insert(0, entry)
        if self.spec.get("failure"):
            from tflint_perf.verify.failure import run_failure

            job = self.spec["jobs"][0]
            self.send(type="start", ids=[job["id"]], phase="measure")
            result = run_failure(self, job, self.spec["failure"])
            self.send(type="result", id=job["id"], result=result)
            return
        for job in self.spec["jobs"]:
            if job["mode"] == "module":
                self.send(type="start", ids=[job["id"]], phase="measure")
                from tflint_perf.verify.module import run_module_job

                result = run_module_job(self, job)
                self.back_home()
                self.send(type="result", id=job["id"], result=result)
        functions = [job for job in self.spec["jobs"] if job["mode"] == "function"]
        if functions:
            from tflint_perf.verify.callsite import CallSites

            CallSites(self, functions, skip_main=bool(self.spec.get("skip_main"))).run()


def _guard_exit(worker: Worker):
    """``os._exit`` from the user's code: say so (status, line) before exiting."""
    real_exit = os._exit

    def _exit(status):
        frame, line = sys._getframe(1), 0
        while frame is not None and not line:
            if frame.f_code.co_filename == worker.path:
                line = frame.f_lineno
            frame = frame.f_back
        try:
            worker.send(type="exit", status=status, line=line)
        except Exception:
            pass
        real_exit(status)

    os._exit = _exit
    return real_exit


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    with open(argv[0], encoding="utf-8") as handle:
        spec = json.load(handle)
    from tflint_perf.verify.reaper import supervise

    supervise()  # from here on: the worker (the reaper never returns)
    limit_memory(int(spec.get("memory_limit") or 0))
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")  # not inherited by exec'd children
    os.dup2(2, 1)  # the user's prints go to stderr, not into our messages
    sys.stdout = os.fdopen(1, "w", encoding="utf-8", errors="replace", closefd=False)
    faulthandler.enable(file=sys.stderr, all_threads=True)
    if hasattr(signal, "SIGUSR1"):  # the linter asks where the code hangs
        faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True)
    worker = Worker(spec, channel)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=worker.forked)
    real_exit = _guard_exit(worker)
    worker.serve()
    worker.back_home()
    if worker.channel is not None:
        worker.channel.flush()
    sys.stdout.flush()
    sys.stderr.flush()
    real_exit(0)  # skip TensorFlow's slow (and sometimes hanging) interpreter teardown


if __name__ == "__main__":
    main()
