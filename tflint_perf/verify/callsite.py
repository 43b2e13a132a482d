"""Findings inside a top-level function or a method: timed at a real call, else with given inputs (worker side).

The module runs as ``__main__`` with a hook after each flagged function's
definition (or flagged method's class) that wraps it: at its first call,
the original and the fixed function (method) are both measured with that
call's arguments (its instance), then the module goes on, and stops once
every flagged function was measured. A fixed method is measured by
patching the class attribute for the fixed runs, so the instance's other
methods call it too. Functions nothing called are measured afterwards
with inputs from a configured factory, or synthesised from the rule's
input roles (methods: on an instance made from the module's own objects
when ``__init__`` can be called with them); otherwise the finding is
``unverified`` with the reason.

With ``skip_main`` (the linter saw the module's ``__main__`` block hang
before it reached the function), the module runs under another name, so
that block does not run, and the inputs come from a factory or are
synthesised.
"""

from __future__ import annotations

import ast
import copy
import functools
import importlib
import inspect
import sys
import types
from typing import Optional

from tflint_perf.engine.verification import Iterate
from tflint_perf.verify import pipeline
from tflint_perf.verify.loops import NAME as LOOPS
from tflint_perf.verify.loops import LoopLimiter, instrument
from tflint_perf.verify.measure import Measurement, NotReached
from tflint_perf.verify.state import State

MAX_MISSES = 50  # calls that skip the flagged lines before the finding is given up


def _label(job: dict) -> str:
    return f"{job['owner']}.{job['function']}" if job.get("owner") else job["function"]


def _key(job: dict) -> str:
    return job.get("owner") or job["function"]  # what the hook after a statement is called with


class _Target:
    """A flagged function, or method of a class: the original, the fixed one, and how to call each."""

    def __init__(self, sites: "CallSites", job: dict) -> None:
        self.sites, self.job = sites, job
        self.worker, self.namespace = sites.worker, sites.namespace
        self.name, self.owner = job["function"], job.get("owner")
        base_def = sites.base_def(job)
        fixed_def = sites.fixed_defs[job["id"]]
        if job.get("pipeline"):  # the dataset each variant builds is caught there
            base_def, fixed_def = copy.deepcopy(base_def), copy.deepcopy(fixed_def)
            pipeline.wrap([base_def], job["pipeline"])
            pipeline.wrap([fixed_def], job["fixed_pipeline"])
        _, keys_b = instrument(base_def.body)
        _, keys_f = instrument(fixed_def.body)
        common = set(keys_b) & set(keys_f)
        self.limiter: Optional[LoopLimiter] = None
        self.defs = {"baseline": base_def, "fixed": fixed_def}
        if common:  # long loops in the function: cut after the same iterations in both
            body_b, lines = instrument(base_def.body, common)
            body_f, _ = instrument(fixed_def.body, common)
            self.defs = {
                "baseline": _with_body(base_def, body_b),
                "fixed": _with_body(fixed_def, body_f),
            }
            self.limiter = LoopLimiter(lines, job.get("loop_limits"))

    def define(self, which: str):
        """The function object of one variant (a method: as found in a class body)."""
        node = self.defs[which]
        baseline = which == "baseline"
        if self.owner is None:
            return self.worker.define(node, self.namespace, self.job, baseline)
        cls = self.sites.classes[self.owner]
        holder = ast.ClassDef(self.owner, [], [], [node], [])
        ast.copy_location(holder, node)
        holder = self.worker.define(holder, self.namespace, self.job, baseline)
        value = holder.__dict__[self.name]
        _bind_class_cell(value, cls)  # zero-argument super() in the method
        return value

    def caller(self, function, args, kwargs):
        """A call of ``function`` (the original or the fixed) with the call's arguments."""
        worker = self.worker
        if self.owner is None:
            return lambda: function(*worker.copy_args(args), **worker.copy_args(kwargs))
        cls = self.sites.classes[self.owner]
        instance, rest = args[0], args[1:]

        def call():
            current = cls.__dict__.get(self.name)
            setattr(cls, self.name, function)  # the class attribute: its other methods call it too
            try:
                return getattr(instance, self.name)(
                    *worker.copy_args(rest), **worker.copy_args(kwargs)
                )
            finally:
                setattr(cls, self.name, current)

        return call


def _with_body(node: ast.FunctionDef, body) -> ast.FunctionDef:
    new = copy.copy(node)
    new.body = body
    return new


def _bind_class_cell(value, cls) -> None:
    for function in (
        value,
        getattr(value, "python_function", None),
        getattr(value, "__wrapped__", None),
    ):
        code = getattr(function, "__code__", None)
        closure = getattr(function, "__closure__", None)
        if code is None or closure is None or "__class__" not in code.co_freevars:
            continue
        closure[code.co_freevars.index("__class__")].cell_contents = cls


class CallSites:
    def __init__(self, worker, jobs: list, skip_main: bool = False) -> None:
        self.worker = worker
        self.tree = ast.parse(worker.source)
        self.skip_main = skip_main
        self.fixed_defs = {job["id"]: self._fixed_def(job) for job in jobs}
        self.by_key: dict = {}
        for job in jobs:
            self.by_key.setdefault(_key(job), []).append(job)
        self.pending = {job["id"]: job for job in jobs}
        self.namespace = worker.namespace(main=not skip_main)
        self.wrappers: dict = {}  # (owner or None, name) -> wrapper
        self.originals: dict = {}  # (owner or None, name) -> the module's own function
        self.classes: dict = {}
        self.misses: dict = {}  # job id -> calls that did not run the flagged lines
        self.busy = False

    def _fixed_def(self, job: dict) -> ast.FunctionDef:
        fixed_tree = ast.parse(job["fixed_source"])
        for node in self.worker.statements(fixed_tree, *job["fixed_region"]):
            found = _def_in(node, job)
            if found is not None:
                return found
        raise LookupError(_label(job))

    def base_def(self, job: dict) -> ast.FunctionDef:
        return next(d for d in map(lambda s: _def_in(s, job), self.tree.body) if d is not None)

    # -- the module, with hooks -------------------------------------------------
    def run(self) -> None:
        self.namespace["__tfp_hook__"] = self._hook
        self.worker.send(type="start", ids=list(self.pending), phase="main")
        module_error = None
        try:
            self.worker.seed()
            self.worker.run_main(self._instrumented(), self.namespace)
        except self.worker.Stop:
            pass
        except (Exception, SystemExit) as exc:
            module_error = self.worker.error_line(exc, self.worker.path)
        for job in list(self.pending.values()):
            self.worker.send(type="start", ids=[job["id"]], phase="measure")
            result = self._without_call_site(job, module_error)
            self.pending.pop(job["id"], None)
            self.worker.send(type="result", id=job["id"], result=result)

    def _instrumented(self):
        body = []
        for stmt in self.tree.body:
            body.append(stmt)
            if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)) and stmt.name in self.by_key:
                hook = ast.parse(f"__tfp_hook__({stmt.name!r})").body[0]
                for node in ast.walk(hook):
                    node.lineno = node.end_lineno = stmt.end_lineno
                    node.col_offset = node.end_col_offset = 0
                body.append(hook)
        return self.worker.compile_body(body, self.worker.path)

    def _hook(self, key: str) -> None:
        jobs = self.by_key[key]
        if jobs[0].get("owner"):
            cls = self.namespace[key]
            self.classes[key] = cls
            for name in {job["function"] for job in jobs}:
                function = cls.__dict__.get(name)
                if isinstance(function, types.FunctionType):
                    self._wrap(cls, key, name, function, jobs)
            return
        self._wrap(None, None, key, self.namespace[key], jobs)

    def _wrap(self, cls, owner: Optional[str], name: str, base_fn, jobs) -> None:
        @functools.wraps(base_fn)
        def wrapper(*args, **kwargs):
            mine = [j for j in jobs if j["function"] == name and j["id"] in self.pending]
            if self.busy or not mine:
                return base_fn(*args, **kwargs)
            self._at_call(mine, base_fn, args, kwargs)
            if not self.pending:
                raise self.worker.Stop()
            self.worker.send(type="start", ids=list(self.pending), phase="main")
            return base_fn(*args, **kwargs)

        self.originals[(owner, name)] = base_fn
        self.wrappers[(owner, name)] = wrapper
        if cls is None:
            self.namespace[name] = wrapper
        else:
            setattr(cls, name, wrapper)

    def _at_call(self, jobs, base_fn, args, kwargs) -> None:
        self.busy = True
        line = self._caller_line()
        try:
            for job in jobs:
                self.worker.send(type="start", ids=[job["id"]], phase="measure")
                try:
                    result = self.measure(job, base_fn, args, kwargs)
                    site = f"`{_label(job)}` at its call site (line {line})"
                    result["where"] = pipeline.where(site, result)
                except (self.worker.Stop, KeyboardInterrupt):
                    raise
                except NotReached:  # this call skips the flagged lines: wait for one that runs them
                    self.misses[job["id"]] = self.misses.get(job["id"], 0) + 1
                    if self.misses[job["id"]] < MAX_MISSES:
                        continue
                    result = {
                        "status": "unverified",
                        "reason": f"`{_label(job)}` was called {MAX_MISSES} times and never ran the "
                        f"flagged line {job['line']}: there was nothing to measure",
                    }
                except (Exception, SystemExit) as exc:
                    result = self.worker.failed(exc)
                self.pending.pop(job["id"], None)
                self.worker.send(type="result", id=job["id"], result=result)
        finally:
            self.busy = False

    def _caller_line(self) -> int:
        frame: Optional[types.FrameType] = sys._getframe(1)
        lines = []
        while frame is not None:
            if frame.f_code.co_filename == self.worker.path:
                lines.append(frame.f_lineno)
            frame = frame.f_back
        return lines[1] if len(lines) > 1 else (lines[0] if lines else 0)

    # -- measuring one function ----------------------------------------------------
    def measure(self, job, base_fn, args, kwargs) -> dict:
        worker, namespace = self.worker, self.namespace
        worker.bind_imports(job, namespace)
        target = _Target(self, job)
        outer_loops, outer_busy = namespace.get(LOOPS), self.busy
        namespace[LOOPS] = target.limiter
        self.busy = True  # a flagged function it calls is not a call site while it is measured
        if target.limiter is not None or job.get("pipeline"):  # made from its source too
            base_fn = target.define("baseline")
        self._define_added(job)
        functions = {"baseline": base_fn, "fixed": target.define("fixed")}
        cold = self._cold_definitions(job) if job.get("cold") else None

        def call(which):
            def run():
                function = functions[which]
                if cold is not None:  # fresh tf.functions (and this function) for every run
                    worker.run_main(cold, namespace)
                    function = target.define(which)
                return target.caller(function, args, kwargs)()

            return worker.timed(run)

        if job.get("pipeline"):
            try:
                pipeline.install(worker, namespace)
                datasets = {
                    which: pipeline.build(
                        worker, which, target.caller(functions[which], args, kwargs)
                    )
                    for which in ("baseline", "fixed")
                }
                return pipeline.measure(
                    worker, datasets, job["line"], job["iterate"] == Iterate.WITH_STEP.value
                )
            finally:
                namespace[LOOPS], self.busy = outer_loops, outer_busy
        arguments = list(args) + list(kwargs.values())
        state = State(worker.np, list(namespace.values()) + arguments, namespace)
        if job.get("owner") and args:
            state.watch(args[0])  # the instance's own attributes: epsilon, replay memory, ...
        try:
            first, last = job.get("reach") or (job["line"], job["end_line"])
            reach = (worker.path, first, last)
            return Measurement(
                worker,
                call("baseline"),
                call("fixed"),
                state,
                namespace,
                target.limiter,
                reach,
                job.get("by_design", ""),
                draws_move=bool(job.get("draws_move")),
            ).run(arguments)
        finally:
            namespace[LOOPS], self.busy = outer_loops, outer_busy
            if cold is not None:
                worker.run_main(cold, namespace)  # leave fresh definitions behind
                for (owner, name), wrapper in self.wrappers.items():
                    if owner is None:
                        namespace[name] = wrapper

    def _define_added(self, job: dict) -> None:
        """Functions the fix adds next to the flagged one, defined once in the module."""
        fixed_tree = ast.parse(job["fixed_source"])
        for first, last in job.get("added_defs", []):
            for node in self.worker.statements(fixed_tree, first, last):
                self.namespace[node.name] = self.worker.define(node, self.namespace, job)

    def _cold_definitions(self, job):
        """Top-level defs and ``x = tf.function(...)`` bindings, re-run before each cold run."""
        keep = []
        for stmt in self.tree.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name != job["function"]:
                keep.append(stmt)
            elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
                func = stmt.value.func
                if isinstance(func, ast.Attribute) and func.attr == "function":
                    keep.append(stmt)
        return self.worker.compile_body(keep, self.worker.path)

    # -- functions nothing called -----------------------------------------------
    def _why_not_called(self, module_error) -> str:
        if module_error:
            return "running the module raised " + module_error
        if self.skip_main:
            return "the module's __main__ block was not run"
        return "nothing called it when the module ran as __main__"

    def _without_call_site(self, job: dict, module_error) -> dict:
        name = _label(job)
        owner = job.get("owner")
        base_fn = self.originals.get((owner, job["function"]))
        if base_fn is None and owner is None:
            base_fn = self.namespace.get(job["function"])
            base_fn = getattr(base_fn, "__wrapped__", base_fn)
        ran = self._why_not_called(module_error)
        if self.misses.get(job["id"]):
            ran = (
                f"the {self.misses[job['id']]} call(s) the module made never ran the flagged "
                f"line {job['line']}" + (f" ({ran})" if module_error else "")
            )
        if job.get("main_note"):
            ran = f"{job['main_note']}; {ran}"
        if base_fn is None:
            return {"status": "failed", "reason": f"`{name}` was never defined: {ran}"}
        try:
            args, kwargs, source = self._inputs(job)
            if owner is not None and args is not None:
                instance, how = self._instance(job)
                if instance is None:
                    return {
                        "status": "failed" if module_error else "unverified",
                        "reason": f"no instance of `{owner}` to call `{name}` on: {ran}, and {how}",
                    }
                args = [instance, *args]
                source = f"{source} on {how}"
        except (Exception, SystemExit) as exc:
            return {
                "status": "failed",
                "reason": f"making the inputs raised {self.worker.error_line(exc, self.worker.path)}",
            }
        if args is None:
            return {
                "status": "failed" if module_error else "unverified",
                "reason": f"no inputs for `{name}`: {ran}, and {job.get('inputs_reason') or 'no roles are known'}; "
                "give a factory in [tool.tflint-perf.verify.inputs]",
            }
        try:
            result = self.measure(job, base_fn, args, kwargs)
        except NotReached:
            return {
                "status": "unverified",
                "reason": f"calling `{name}` with {source} never ran the flagged line {job['line']}: "
                "there was nothing to measure; give a factory in [tool.tflint-perf.verify.inputs]",
            }
        except (Exception, SystemExit) as exc:
            return self.worker.failed(exc, f"calling `{name}` with {source} raised ")
        note = module_error or job.get("main_note")
        result["where"] = pipeline.where(
            f"`{name}` with {source}" + (f" ({ran})" if note else ""), result
        )
        return result

    def _instance(self, job: dict):
        """(an instance of the method's class, how it was made) or (None, why not)."""
        cls = self.classes.get(job["owner"]) or self.namespace.get(job["owner"])
        plan = job.get("init")
        if cls is None or plan is None:
            return None, f"`{job['owner']}.__init__` takes arguments the module has no objects for"
        missing = [g for g in plan["kwargs"].values() if g not in self.namespace]
        if missing:
            return (
                None,
                f"the module never bound {', '.join(missing)} for `{job['owner']}.__init__`",
            )
        kwargs = {p: self.namespace[g] for p, g in plan["kwargs"].items()}
        self.busy = True  # __init__ may call the flagged method: not a call site
        try:
            instance = cls(**kwargs)
        finally:
            self.busy = False
        shown = ", ".join(f"{p}={g}" for p, g in plan["kwargs"].items())
        return instance, f"an instance made by `{job['owner']}({shown})`"

    def _inputs(self, job: dict):
        """(args, kwargs, description); args None when there are none to give."""
        if job.get("factory"):
            args, kwargs = factory_inputs(job["factory"], self.worker.size)
            return args, kwargs, f"inputs from factory {job['factory']}"
        if job.get("inputs") is None:
            return None, {}, ""
        from tflint_perf.verify.inputs import build, describe

        kwargs = {
            param: build(spec, self.worker.tf, seed=i)
            for i, (param, spec) in enumerate(job["inputs"].items())
        }
        shapes = describe(job["inputs"])
        return [], kwargs, (f"synthesised inputs ({shapes})" if shapes else "no arguments")


def _def_in(stmt: ast.stmt, job: dict) -> Optional[ast.FunctionDef]:
    """The flagged function in a top-level statement (a method: in its class)."""
    owner = job.get("owner")
    if owner is None:
        return stmt if isinstance(stmt, ast.FunctionDef) and stmt.name == job["function"] else None
    if isinstance(stmt, ast.ClassDef) and stmt.name == owner:
        for node in stmt.body:
            if isinstance(node, ast.FunctionDef) and node.name == job["function"]:
                return node
    return None


def factory_inputs(factory: str, size: int):
    module_name, _, attr = factory.partition(":")
    function = getattr(importlib.import_module(module_name), attr)
    try:
        accepts_size = "size" in inspect.signature(function).parameters
    except (TypeError, ValueError):
        accepts_size = False
    value = function(size=size) if accepts_size else function()
    if (
        isinstance(value, tuple)
        and len(value) == 2
        and isinstance(value[0], (list, tuple))
        and isinstance(value[1], dict)
    ):
        return list(value[0]), dict(value[1])
    if isinstance(value, tuple):
        return list(value), {}
    if isinstance(value, dict):
        return [], value
    return [value], {}
