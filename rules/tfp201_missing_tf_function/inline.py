"""Inline steps: a ``with tf.GradientTape()`` block and its update in a loop body."""

from __future__ import annotations

from tflint_perf.analysis.extraction import Extractions, extraction_edits
from tflint_perf.analysis.steps import name_is_free
from tflint_perf.analysis.tapes import TapeStep, TapeSteps
from tflint_perf.engine import cst
from tflint_perf.engine.headline import fit_headline
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.rule import UNSAFE, Fix
from tflint_perf.engine.walk import descendants

from .common import FASTER, Facts, join


class InlineSteps:
    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self.ctx = facts.ctx
        self.rule = facts.rule

    def check(self, step: TapeStep) -> None:
        facts, rule, node = self.facts, self.rule, step.node
        if facts.reach.compiled(node):
            rule.silent(node, Reason.COMPILED, "it runs inside a compiled function")
            return
        if step.scope is not None and facts.framework_method(step.scope):
            rule.silent(node, Reason.UNRESOLVED, "a method its framework calls (and may compile)")
            return
        hot = facts.reach.hot(node)
        if hot is None:
            rule.silent(node, Reason.TINY_LOOP, "the loops around it run a handful of times")
            return
        switch = facts.eager_switch(node)
        if switch is not None:
            rule.silent(node, Reason.DELIBERATE, "`run_functions_eagerly` is switched on above")
            return
        statements, reasons = self._block(step)
        fix, call = None, None
        if not reasons:
            fix, call, reasons = self._fix(step, statements)
        ctx = self.ctx
        first, last = ctx.statement_lines(statements[0], statements[-1])
        tapes = " and ".join(f"`{t}`" for t in step.tapes)
        what = f"on {tapes}" if tapes else f"through `{step.via}()`"
        spelling = facts.spelling()
        name = f" `{call.split('(')[0].split('= ')[-1]}`" if call is not None else ""
        headline = fit_headline(
            f"eager training step {what} in a loop: move it into a `@{spelling}` function{name}",
            f"eager training step in a loop: move it into a `@{spelling}` function{name}",
            f"eager training step in a loop: move it into a `@{spelling}` function",
        )
        span = "" if first == last else f" to the update at {ctx.line_ref(last)}"
        then = f"call `{call}` in its place" if call is not None else "call it in its place"
        lines = [
            f"{facts.loop_words(hot)} Move the block from here{span} into a function "
            f"decorated with `@{spelling}` and {then} ({FASTER})."
        ]
        if reasons:
            lines.append(f"Not fixed automatically: {join(reasons, '; ')}.")
        rule.report(node, message=headline, detail="\n".join(lines), fix=fix)

    def _block(self, step: TapeStep):
        """The statements from the ``with`` to the last one that uses the tape
        or applies the update, and why they cannot move (empty: they can)."""
        node = step.node
        parent = self.ctx.parent(node)
        body = list(parent.body) if isinstance(parent, (cst.IndentedBlock, cst.Module)) else [node]
        start = next(i for i, stmt in enumerate(body) if stmt is node)
        updates = {id(u) for u in step.updates}
        steps = self.ctx.shared(TapeSteps)
        end = start
        for index in range(start, len(body)):
            stmt = body[index]
            if index > start and isinstance(stmt, cst.With):
                if set(steps.tape_names(stmt)) & set(step.tapes):
                    break  # the next step reuses the tape's name
            if set(self.facts.sem.reads(stmt)) & set(step.tapes) or _holds(stmt, updates):
                end = index
        statements = body[start : end + 1]
        inside = {id(n) for stmt in statements for n in descendants(stmt)}
        if updates - inside:
            return statements, ["its update is not in the same block as the tape"]
        return statements, []

    def _fix(self, step: TapeStep, statements):
        """(fix, call text, reasons it cannot be fixed)."""
        ctx, facts = self.ctx, self.facts
        loops = facts.sem.loops_around(step.node)
        plan = ctx.shared(Extractions).plan(statements, loops, step.scope)
        flat = [n for stmt in statements for n in [stmt, *descendants(stmt, skip_scopes=True)]]
        problems = facts.tracing.problems(flat) + facts.tracing.state_changes(
            statements, plan.local
        )
        reasons = plan.blockers + [f"{p.what} {p.why}" for p in problems]
        reasons += [f"it uses `{t}` after the update" for t in step.tapes if t in plan.results]
        spelling, import_edits = facts.decorator()
        if spelling is None:
            reasons.append("the module has no TensorFlow import to spell `tf.function` with")
        if reasons:
            return None, None, list(dict.fromkeys(reasons))
        name = self._free_name(step.tapes)
        edits = extraction_edits(ctx, plan, name, spelling, plan.results)
        if edits is None:
            return None, None, ["the loop is not in a module-level statement"]
        call = f"{name}({', '.join(plan.params)})"
        if plan.results:
            call = f"{', '.join(plan.results)} = {call}"
        fix = Fix(tuple(import_edits + edits), UNSAFE, f"Move the training step into `{name}()`")
        return fix, call, []

    def _free_name(self, tapes) -> str:
        first = tapes[0] if tapes else ""
        prefix = first[: -len("tape")].rstrip("_") if first.endswith("tape") else ""
        base = f"{prefix}_train_step" if prefix else "train_step"
        name, number = base, 2
        while not name_is_free(self.ctx, name):
            name, number = f"{base}_{number}", number + 1
        return name


def _holds(stmt: cst.CSTNode, ids: set) -> bool:
    return any(id(node) in ids for node in [stmt, *descendants(stmt)])
