"""Imported steps: a training step function of another module called in a loop here.

``pkg/train.py`` loops over batches and calls ``train_step`` from
``pkg/model.py``, which holds the tape and the update. The step's module
sees no loop (nothing there calls it), this module sees no tape: the
project index (``run/project.py``) carries the step's facts over
(``analysis/exports.py``: ``step``, with whether its module compiles it).
Reported at the call in the loop; the fix belongs in the other module, so
none is offered here.
"""

from __future__ import annotations

from tflint_perf.analysis import api
from tflint_perf.analysis.api import Kind
from tflint_perf.analysis.exports import defined_in
from tflint_perf.analysis.semantic import BindingKind
from tflint_perf.analysis.testcode import in_test_code
from tflint_perf.engine import cst
from tflint_perf.engine.headline import fit_headline
from tflint_perf.engine.names import dotted
from tflint_perf.engine.reasons import Reason

from .common import FASTER, Facts, join
from .step_functions import StepFunctions


class ImportedSteps:
    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self.ctx = facts.ctx
        self.rule = facts.rule

    def check(self) -> None:
        if self.ctx.project is None:
            return
        for call in self.ctx.nodes(cst.Call):
            found = self.facts.graph.external(call)
            if found is not None and isinstance(found.get("step"), dict):
                self._check(call, found, found["step"])

    def _check(self, call: cst.Call, found: dict, step: dict) -> None:
        rule, reach = self.rule, self.facts.reach
        where = f"{defined_in(self.ctx, found)}, line {found.get('line', '?')}"
        rebound = self._rebound(call)
        if rebound is not None:
            rule.silent(call, *rebound)
        elif step.get("compiled"):
            rule.silent(call, Reason.COMPILED, f"compiled in its module ({where})")
        elif step.get("reported"):
            rule.silent(call, Reason.ALREADY_DONE, f"reported in its module ({where})")
        elif in_test_code(self.ctx, call):
            rule.silent(call, Reason.TEST_CODE)
        elif reach.compiled(call):
            rule.silent(call, Reason.COMPILED, "it runs inside a compiled function")
        else:
            hot = reach.hot(call)
            if hot is None:
                reason = Reason.TINY_LOOP if reach.in_a_loop(call) else Reason.RUNS_ONCE
                rule.silent(call, reason, "no loop runs it many times")
            elif self.facts.eager_switch(call) is not None:
                rule.silent(call, Reason.DELIBERATE, "`run_functions_eagerly` is switched on")
            else:
                self._report(call, where, hot)

    def _rebound(self, call: cst.Call):
        """Why the name called is not (only) the import: ``train_step =
        tf.function(train_step)`` compiles it here; anything else is unknown. (A
        method of an instance of an imported class is read through the instance.)"""
        if self.ctx.qualname(call.func) is None:
            return None
        root = call.func
        while isinstance(root, cst.Attribute):
            root = root.value
        if not isinstance(root, cst.Name):
            return Reason.UNRESOLVED, "not a name of an import"
        others = [b for b in self.facts.sem.lookup_name(root) if b.kind is not BindingKind.IMPORT]
        if not others:
            return None
        if any(
            isinstance(b.value, cst.Call)
            and api.returns(self.ctx.call_name(b.value)) is Kind.TF_FUNCTION
            for b in others
        ):
            return Reason.COMPILED, "wrapped in a compiling function here"
        return Reason.UNRESOLVED, "the imported name is rebound here"

    def _report(self, call: cst.Call, where: str, hot) -> None:
        facts = self.facts
        spelling = facts.spelling()
        name = dotted(call.func) or "step"
        headline = fit_headline(
            f"`{name}()` (`{where.split(',')[0]}`) is an eager training step: "
            f"decorate it there with `@{spelling}`",
            f"`{name}()` is an eager training step: decorate it with `@{spelling}` where defined",
        )
        risks = StepFunctions(facts).call_site_risks(call)
        advice = (
            f"It is defined in another module ({where}), which has the tape and the update; "
            f"decorate it there with `@{spelling}` ({FASTER})."
        )
        if risks:
            advice += " Once compiled, " + join([f"{p.what} {p.why}" for p in risks], "; ") + "."
        why = (
            "Not fixed automatically: the fix belongs in the other module, and whether "
            "tracing can change what the step does (Python state, `.numpy()`, `print`) "
            "is checked there, not here."
        )
        detail = f"{facts.loop_words(hot)}\n{advice}\n{why}"
        self.rule.report(call, message=headline, detail=detail)
