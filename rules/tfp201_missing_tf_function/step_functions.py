"""Step functions: a function or method holding a training step, called in a loop.

Reached directly, through helpers, ``self.method()``, subclass overrides and
callables passed as arguments (the call graph), or, for a method of a
reinforcement-learning agent class nothing in the module calls, from the
environment loop of another module.
"""

from __future__ import annotations

from typing import List, Optional, Set

from tflint_perf.analysis.agent_classes import AgentClasses
from tflint_perf.analysis.api import Kind
from tflint_perf.analysis.reach import HotLoop
from tflint_perf.analysis.semantic import BindingKind
from tflint_perf.analysis.tapes import TapeStep, TapeSteps
from tflint_perf.analysis.tracing import CONTROL, Problem, Severity
from tflint_perf.engine import cst
from tflint_perf.engine.headline import fit_headline
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.rule import SAFE, UNSAFE

from .common import FASTER, Facts, join

CHANGES = "which changes between calls (each new value traces again)"
UNSEEN = (
    "the arguments it gets come from a loop in another module and cannot be checked here "
    "(a Python number, such as a reward or `done`, traces again on each new value)"
)


class StepFunctions:
    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self.ctx = facts.ctx
        self.rule = facts.rule

    def check(self, func: cst.FunctionDef, step: TapeStep) -> None:
        facts, rule = self.facts, self.rule
        if facts.reach.compiled(func.body):
            rule.silent(
                func.name, Reason.COMPILED, "it is compiled, or only compiled code calls it"
            )
            return
        hot = self._hot_path(func, step)
        agent = None
        if hot is None and not step.returns_gradients:
            agent = self.ctx.shared(AgentClasses).entry_method(func)
        if agent is None and (hot is None or not hot.calls):
            self._quiet(func, step)
            return
        anchor = func if agent is not None else hot.calls[-1]  # type: ignore[union-attr]
        if facts.eager_switch(anchor) is not None:
            rule.silent(
                func.name, Reason.DELIBERATE, "`run_functions_eagerly` is switched on above"
            )
            return
        if agent is not None:
            risks = [Problem(Severity.HAZARD, UNSEEN, "")] if _data_params(func) else []
        else:
            assert hot is not None
            risks = self.call_site_risks(hot.calls[0])
        self._report(func, hot, agent, risks)

    def _quiet(self, func: cst.FunctionDef, step: TapeStep) -> None:
        """Why a step function that no loop runs often is left alone."""
        callers = self.facts.graph.callers(func)
        if self.facts.framework_method(func):
            detail = "a method of a framework class that nothing here calls (it may compile it)"
            self.rule.silent(func.name, Reason.UNRESOLVED, detail)
        elif step.returns_gradients and callers:
            detail = "its gradients are not applied in a loop that calls it"
            self.rule.silent(func.name, Reason.NOT_WORK, detail)
        elif not callers:
            self.rule.silent(
                func.name, Reason.RUNS_ONCE, "nothing in the module calls it in a loop"
            )
        elif self.facts.reach.in_a_loop(func.body):
            self.rule.silent(func.name, Reason.TINY_LOOP, "the loops that run it are tiny")
        else:
            self.rule.silent(func.name, Reason.RUNS_ONCE, "no loop runs it")

    # -- what the fix would change ------------------------------------------------------
    def _problems(self, func: cst.FunctionDef) -> List[Problem]:
        """Blockers and hazards in the step and in every function it calls (their
        control flow aside: AutoGraph converts it with the step), Python state
        changed anywhere in that call tree, and calls nobody can read."""
        tracing = self.facts.tracing
        problems = tracing.problems_in(func.body)
        callees = tracing.call_tree(func, self.facts.reach.compiles)
        for callee in callees:
            name = callee.name.value
            for problem in tracing.problems_in(callee.body):
                if problem.why != CONTROL:
                    what = f"{problem.what} in `{name}()`"
                    problems.append(Problem(problem.severity, what, problem.why))
        problems += tracing.mutations(func)
        for each in [func, *callees]:
            problems += tracing.unread_calls(each)
        return list(dict.fromkeys(problems))

    def _report(self, func, hot: Optional[HotLoop], agent, risks: List[Problem]) -> None:
        facts = self.facts
        spelling = facts.spelling()
        name = func.name.value
        problems = self._problems(func) + risks
        blockers = [p for p in problems if p.severity is Severity.BLOCKER]
        fix = None
        if blockers:
            movable = [p.what for p in problems if p.why != CONTROL and p not in risks]
            moved = [b.what.split(" (")[0] for b in blockers]
            headline = fit_headline(
                f"`{name}()` is an eager training step: move {join(moved)} out, then `@{spelling}`",
                f"`{name}()` is an eager training step: move what fails in a graph out, then "
                f"`@{spelling}`",
            )
            advice = (
                f"Move {join(movable)} out of it, then decorate it with `@{spelling}` "
                "(in a graph these fail or run only while tracing)."
            )
        else:
            where = f"of agent `{agent.name.value}`" if agent is not None else "called in a loop"
            headline = fit_headline(
                f"`{name}()` is an eager training step {where}: decorate it with `@{spelling}`",
                f"`{name}()` is an eager training step: decorate it with `@{spelling}`",
            )
            if problems:
                hazards = [f"{p.what} {p.why}".strip() for p in problems]
                advice = f"Decorate it with `@{spelling}` once tracing cannot change it: " + join(
                    hazards, "; "
                )
                advice += "."
                fix = facts.decorator_fix(func, UNSAFE)
            else:
                advice = f"Decorate it with `@{spelling}` ({FASTER})."
                fix = facts.decorator_fix(func, SAFE)
        if agent is not None:
            reached = self.ctx.shared(AgentClasses).how_reached(func)
            where = (
                f"It is a method of agent `{agent.name.value}`; {reached}, so the environment "
                "loop in another module runs it once per step or episode."
            )
        else:
            assert hot is not None
            where = facts.loop_words(hot)
        self.rule.report(func.name, message=headline, detail=f"{where}\n{advice}", fix=fix)

    # -- the loop that runs it ----------------------------------------------------------
    def _hot_path(self, func: cst.FunctionDef, step: TapeStep) -> Optional[HotLoop]:
        """The loop that calls the step; for a function that returns its
        gradients, a loop that also applies them."""
        reach = self.facts.reach
        if not step.returns_gradients:
            return reach.hot(func.body)
        steps = self.ctx.shared(TapeSteps)
        for call in self.facts.graph.callers(func):
            if reach.compiled(call) or not steps.applies_result(call):
                continue
            hot = reach.hot(call)
            if hot is not None:
                return HotLoop(hot.loop, (call,) + hot.calls)
        return None

    def call_site_risks(self, call: cst.Call) -> List[Problem]:
        """Arguments that retrace the compiled step: the innermost loop's
        counter, what an outer loop iterates over (another model, an epoch
        number), a Python number or a new model or optimizer a loop assigns,
        or a Python number the loop computes (a reward, ``done``). A retrace
        that builds new variables raises under tf.function."""
        sem = self.facts.sem
        loops = sem.loops_around(call)
        if not loops:
            return []
        counters: Set[str] = set()
        loop = loops[0]
        if isinstance(loop, cst.For):
            if _builtin(loop.iter, "range"):
                counters.update(b.name for b in sem.bindings_of(loop))
            elif _builtin(loop.iter, "enumerate") and isinstance(loop.target, cst.Tuple):
                index = loop.target.elements[0].value
                counters.update(b.name for b in sem.bindings_of(loop) if b.node is index)
        statement = sem.statement_of(call)
        for position, each in enumerate(loops):
            if position > 0 and isinstance(each, cst.For):
                counters.update(b.name for b in sem.bindings_of(each))
            for binding in sem.bindings_in(each.body):
                if binding.statement is statement or "." in binding.name:
                    continue
                if self._new_each_time(binding):
                    counters.add(binding.name)
        used = [n for arg in call.args for n in sem.reads(arg.value) if n in counters]
        if not used:
            return []
        line = self.ctx.line_ref(self.ctx.position(call).start.line)
        return [Problem(Severity.HAZARD, f"the call at {line} passes `{used[0]}`,", CHANGES)]

    def _new_each_time(self, binding) -> bool:
        """A Python number (``lr = lr * 0.9``, ``n += 1``, ``r = 0.1 if ok else -1``)
        or a new model, layer or optimizer: passed to a tf.function, each new one
        traces again."""
        if binding.kind is BindingKind.AUGMENTED:
            return True
        if not binding.plain:
            return False
        value = binding.value
        if isinstance(value, cst.Call):
            return self.facts.tracing.creates_state(value)
        return _is_number_expression(value) and self.facts.values.kind(value) in (
            Kind.SCALAR,
            Kind.UNKNOWN,
        )


def _data_params(func: cst.FunctionDef) -> List[str]:
    params = [p.name.value for p in (*func.params.params, *func.params.kwonly_params)]
    return [p for p in params if p not in ("self", "cls")]


def _builtin(expr: cst.BaseExpression, name: str) -> bool:
    return (
        isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == name
    )


def _is_number_expression(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return _is_number_expression(expr.expression)
    if isinstance(expr, cst.IfExp):
        return _is_number_expression(expr.body) and _is_number_expression(expr.orelse)
    if isinstance(expr, cst.BinaryOperation):
        sides = (expr.left, expr.right)
        return any(_is_number_expression(e) for e in sides) and all(
            isinstance(e, cst.Name) or _is_number_expression(e) for e in sides
        )
    return False
