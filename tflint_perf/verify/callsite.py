"""Findings inside a top-level function: timed at a real call, else with given inputs (worker side).

The module runs as ``__main__`` with a hook after each flagged function's
definition that wraps it: at its first call, the original and the fixed
function are both measured with that call's arguments, then the module
goes on, and stops once every flagged function was measured. Functions
nothing called are measured afterwards with inputs from a configured
factory, or synthesised from the rule's input roles; otherwise the
finding is ``unverified`` with the reason.

With ``skip_main`` (the linter saw the module's ``__main__`` block hang
before it reached the function), the module runs under another name, so
that block does not run, and the inputs come from a factory or are
synthesised.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import sys
import types
from typing import Optional

from tflint_perf.verify.measure import Measurement
from tflint_perf.verify.state import State


class CallSites:
    def __init__(self, worker, jobs: list, skip_main: bool = False) -> None:
        self.worker = worker
        self.tree = ast.parse(worker.source)
        self.skip_main = skip_main
        self.fixed_defs = {job["id"]: self._fixed_def(job) for job in jobs}
        self.by_name: dict = {}
        for job in jobs:
            self.by_name.setdefault(job["function"], []).append(job)
        self.pending = {job["id"]: job for job in jobs}
        self.namespace = worker.namespace(main=not skip_main)
        self.wrappers: dict = {}
        self.busy = False

    def _fixed_def(self, job: dict) -> ast.FunctionDef:
        fixed_tree = ast.parse(job["fixed_source"])
        for node in self.worker.statements(fixed_tree, *job["fixed_region"]):
            if isinstance(node, ast.FunctionDef) and node.name == job["function"]:
                return node
        raise LookupError(job["function"])

    def _base_def(self, name: str) -> ast.FunctionDef:
        return next(s for s in self.tree.body if isinstance(s, ast.FunctionDef) and s.name == name)

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
            if isinstance(stmt, ast.FunctionDef) and stmt.name in self.by_name:
                hook = ast.parse(f"__tfp_hook__({stmt.name!r})").body[0]
                for node in ast.walk(hook):
                    node.lineno = node.end_lineno = stmt.end_lineno
                    node.col_offset = node.end_col_offset = 0
                body.append(hook)
        return self.worker.compile_body(body, self.worker.path)

    def _hook(self, name: str) -> None:
        base_fn = self.namespace[name]

        @functools.wraps(base_fn)
        def wrapper(*args, **kwargs):
            mine = [j for j in self.by_name[name] if j["id"] in self.pending]
            if self.busy or not mine:
                return base_fn(*args, **kwargs)
            self._at_call(name, mine, base_fn, args, kwargs)
            if not self.pending:
                raise self.worker.Stop()
            self.worker.send(type="start", ids=list(self.pending), phase="main")
            return base_fn(*args, **kwargs)

        self.wrappers[name] = wrapper
        self.namespace[name] = wrapper

    def _at_call(self, name, jobs, base_fn, args, kwargs) -> None:
        self.busy = True
        line = self._caller_line()
        try:
            for job in jobs:
                self.worker.send(type="start", ids=[job["id"]], phase="measure")
                try:
                    result = self.measure(job, base_fn, args, kwargs)
                    result["where"] = f"`{name}` at its call site (line {line})"
                except (self.worker.Stop, KeyboardInterrupt):
                    raise
                except (Exception, SystemExit) as exc:
                    result = {
                        "status": "failed",
                        "reason": self.worker.error_line(exc, self.worker.path),
                    }
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
        defs = {"baseline": self._base_def(job["function"]), "fixed": self.fixed_defs[job["id"]]}
        functions = {"baseline": base_fn, "fixed": worker.define(defs["fixed"], namespace, job)}
        cold = self._cold_definitions(job) if job.get("cold") else None

        def call(which):
            def run():
                function = functions[which]
                if cold is not None:  # fresh tf.functions (and this function) for every run
                    worker.run_main(cold, namespace)
                    function = worker.define(defs[which], namespace, job)
                return function(*worker.copy_args(args), **worker.copy_args(kwargs))

            return worker.timed(run)

        arguments = list(args) + list(kwargs.values())
        state = State(worker.np, list(namespace.values()) + arguments, namespace)
        try:
            return Measurement(worker, call("baseline"), call("fixed"), state, namespace).run(
                arguments
            )
        finally:
            if cold is not None:
                worker.run_main(cold, namespace)  # leave fresh definitions behind
                namespace.update(self.wrappers)

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
        name = job["function"]
        base_fn = self.namespace.get(name)
        base_fn = getattr(base_fn, "__wrapped__", base_fn)
        ran = self._why_not_called(module_error)
        if job.get("main_note"):
            ran = f"{job['main_note']}; {ran}"
        if base_fn is None:
            return {"status": "failed", "reason": f"`{name}` was never defined: {ran}"}
        try:
            args, kwargs, source = self._inputs(job)
        except (Exception, SystemExit) as exc:
            return {
                "status": "failed",
                "reason": f"the input factory raised {self.worker.error_line(exc)}",
            }
        if args is None:
            return {
                "status": "failed" if module_error else "unverified",
                "reason": f"no inputs for `{name}`: {ran}, and {job.get('inputs_reason') or 'no roles are known'}; "
                "give a factory in [tool.tflint-perf.verify.inputs]",
            }
        try:
            result = self.measure(job, base_fn, args, kwargs)
        except (Exception, SystemExit) as exc:
            return {
                "status": "failed",
                "reason": f"calling `{name}` with {source} raised {self.worker.error_line(exc, self.worker.path)}",
            }
        note = module_error or job.get("main_note")
        result["where"] = f"`{name}` with {source}" + (f" ({ran})" if note else "")
        return result

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
