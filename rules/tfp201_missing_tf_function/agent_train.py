"""TF-Agents: ``agent.train(experience)`` in a loop, never wrapped in ``common.function``."""

from __future__ import annotations

from typing import Optional

from tflint_perf.analysis.agents import TfAgents
from tflint_perf.analysis.reach import HotLoop
from tflint_perf.analysis.steps import tf_function_spelling
from tflint_perf.analysis.testcode import in_test_code
from tflint_perf.engine import cst
from tflint_perf.engine.headline import fit_headline
from tflint_perf.engine.names import dotted
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.rule import UNSAFE, Fix

from .common import Facts

METHOD = "train"


class AgentTrain:
    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self.ctx = facts.ctx
        self.rule = facts.rule

    def check(self) -> None:
        ctx, facts, rule = self.ctx, self.facts, self.rule
        agents = ctx.shared(TfAgents)
        wrapped = METHOD in facts.reach.wrapped_methods()
        for call in ctx.nodes(cst.Call):
            func = call.func
            if not (isinstance(func, cst.Attribute) and func.attr.value == METHOD):
                continue
            if not agents.is_agent(func.value):
                continue
            if wrapped:
                rule.silent(call, Reason.COMPILED, f"`{METHOD}` is wrapped in a compiling function")
                continue
            if in_test_code(ctx, call):
                rule.silent(call, Reason.TEST_CODE)
                continue
            if facts.reach.compiled(call):
                rule.silent(call, Reason.COMPILED, "it runs inside a compiled function")
                continue
            hot = facts.reach.hot(call)
            if hot is None:
                rule.silent(call, Reason.TINY_LOOP, "the loops around it run a handful of times")
                continue
            if facts.eager_switch(call) is not None:
                rule.silent(call, Reason.DELIBERATE, "`run_functions_eagerly` is switched on")
                continue
            self._report(call, dotted(func.value) or "agent", hot)

    def _report(self, call: cst.Call, receiver: str, hot: HotLoop) -> None:
        facts = self.facts
        wrapper = self._wrapper() or "tf.function"
        wrap = f"{receiver}.train = {wrapper}({receiver}.train)"
        scope = facts.sem.function_of(call)
        at_top = not hot.calls and scope is None
        once = "before the loop" if at_top else f"where `{receiver}` is built"
        headline = fit_headline(
            f"`{receiver}.train()` runs eagerly in a loop: wrap it once, {once}: `{wrap}`",
            f"`{receiver}.train()` runs eagerly in a loop: wrap it once in `{wrapper}`",
        )
        detail = (
            f"{facts.loop_words(hot)} TF-Agents compiles `train` only when it is wrapped: "
            f"`{wrap}`, once, {once}."
        )
        fix = self._fix(hot, wrap) if at_top and self._wrapper() else None
        self.rule.report(call, message=headline, detail=detail, fix=fix)

    def _wrapper(self) -> Optional[str]:
        for local, full in self.ctx.imports.module_aliases.items():
            if full == "tf_agents.utils.common" and "." not in local:
                return f"{local}.function"
        spelling = tf_function_spelling(self.ctx)
        return spelling if spelling and spelling.endswith(".function") else None

    def _fix(self, hot: HotLoop, wrap: str) -> Optional[Fix]:
        loops = self.facts.sem.loops_around(hot.loop) if isinstance(hot.loop, cst.For) else []
        outer = loops[-1] if loops else hot.loop
        if not isinstance(outer, (cst.For, cst.While)):
            return None
        line = self.ctx.position(outer).start.line
        indent = self.ctx.indentation(outer)
        edit = self.ctx.insert_lines(line, f"{indent}{wrap}")
        return Fix((edit,), UNSAFE, "Compile agent.train once, before the loop")
