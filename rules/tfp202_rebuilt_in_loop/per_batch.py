"""Per-batch construction: a model, layer, variable or ``tf.function`` built on
every iteration of a loop that does per-batch work with it, although nothing
it is built from changes between iterations (build it once, before the
loop); a model rebuilt only to load other weights into it; and a Keras layer
built inside a layer's or model's ``call()``, so on every forward pass.
"""

from __future__ import annotations

import keyword
import re
from typing import List, Optional, Set

from tflint_perf.analysis.api import Effect, Kind
from tflint_perf.analysis.api.keras import MODULE_BASES
from tflint_perf.analysis.api.steps import BUILD_METHODS, FORWARD_METHODS, WEIGHT_LOADERS
from tflint_perf.analysis.trips import Size
from tflint_perf.engine import cst
from tflint_perf.engine.headline import fit_headline
from tflint_perf.engine.names import dotted
from tflint_perf.engine.reasons import Reason

from .common import Built, Facts, Item, Loop, describe

HOISTED = (Built.MODEL, Built.LAYER, Built.VARIABLE, Built.FUNCTION)
COST = {
    Built.MODEL: "building a model creates its variables and runs their initialisers",
    Built.LAYER: "building a layer creates new variables (new weights) each time",
    Built.VARIABLE: "creating a variable allocates and initialises it each time",
    Built.FUNCTION: "a new `tf.function` traces its Python again on its first call",
}


class PerBatch:
    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self.ctx = facts.ctx
        self.rule = facts.rule
        self._seen: Set[cst.Call] = set()

    def check_loop(self, loop: Loop, items: List[Item], clears: bool) -> None:
        facts = self.facts
        items = [i for i in items if i.built in HOISTED]
        if not items:
            return
        if facts.trips.repeats(items[0].node).size is Size.TINY:
            for item in items:
                self.rule.silent(item.node, Reason.TINY_LOOP, "the loops around it are tiny")
            return
        varying = facts.varying(loop)
        calls = facts.calls_under(loop.body)
        step = facts.step_loop(loop)
        hoist: List[Item] = []
        reload: List[Item] = []
        for item in items:
            verdict = self._judge(item, varying, calls, step, clears)
            if verdict is Reason.ALREADY_DONE and item.built is Built.MODEL:
                reload.append(item)
            elif verdict is None:
                hoist.append(item)
        if hoist or reload:
            self._report(loop, hoist + reload, reload_only=not hoist)

    def _judge(self, item: Item, varying, calls, step: bool, clears: bool) -> Optional[Reason]:
        """None: rebuilt for nothing (report); ALREADY_DONE for a model rebuilt only
        to load weights into it (report as such); a reason to stay silent otherwise."""
        facts, rule = self.facts, self.rule
        if not facts.independent(item, varying):
            rule.silent(item.node, Reason.DELIBERATE, "built from what changes in the loop")
            return Reason.DELIBERATE
        used = self._used(item, calls)
        if item.built is Built.FUNCTION:
            if used:
                return None
            rule.silent(item.node, Reason.NOT_WORK, "not called in the iteration")
            return Reason.NOT_WORK
        if item.built in (Built.LAYER, Built.VARIABLE) and clears:
            rule.silent(item.node, Reason.DELIBERATE, "Keras' state is reset in the loop")
            return Reason.DELIBERATE
        if step and (used or item.built is Built.VARIABLE):
            return None
        if item.built is Built.MODEL and self._reloaded(item, calls):
            return Reason.ALREADY_DONE
        reason = Reason.NOT_DATA if not step else Reason.NOT_WORK
        rule.silent(item.node, reason, "no per-batch work uses it" if step else "not a step loop")
        return reason

    def _used(self, item: Item, calls: List[cst.Call]) -> bool:
        """Called, or run (inference, training) later in the same iteration."""
        facts = self.facts
        parent = self.ctx.parent(item.node)
        if isinstance(parent, cst.Call) and parent.func is item.node:
            return True
        for call in facts.uses(item, calls):
            func = call.func
            if facts.refers_to(func, item):
                return True
            if facts.summaries.direct_effects(call) & (Effect.INFERENCE | Effect.TRAINING):
                return True
        return False

    def _reloaded(self, item: Item, calls: List[cst.Call]) -> bool:
        return any(
            isinstance(c.func, cst.Attribute) and c.func.attr.value in WEIGHT_LOADERS
            for c in self.facts.uses(item, calls)
        )

    def _report(self, loop: Loop, items: List[Item], reload_only: bool) -> None:
        facts = self.facts
        items.sort(key=lambda i: self.ctx.span(i.node)[0])
        first, parts = describe(items, facts)
        item = items[0]
        if reload_only:
            headline = fit_headline(
                f"{item.label} rebuilds the model on every iteration: build it once, load "
                "weights inside",
                "model rebuilt on every iteration: build it once, load the weights inside",
            )
            advice = (
                "Build it once before the loop and only load the weights (`load_weights`) "
                "inside: nothing it is built from changes in the loop."
            )
        else:
            what = item.built.value
            if isinstance(item.node, cst.FunctionDef):
                what = "the `@tf.function` it decorates"
            headline = fit_headline(
                f"{item.label} builds {what} on every iteration: build it once before the loop",
                f"{what} rebuilt on every iteration: build it once before the loop",
            )
            advice = (
                "Build it once before the loop: nothing it is built from changes in the loop."
                if len(items) == 1
                else "Build them once before the loop: nothing they are built from changes "
                "in the loop."
            )
        costs = "; ".join(dict.fromkeys(COST[i.built] for i in items))
        detail = (
            f"Rebuilt on every iteration of the loop at {facts.line(loop)}: {', '.join(parts)}. "
            f"Done per batch, that dominates the step: {costs}. {advice}"
        )
        self.rule.report(item.node, message=headline, detail=detail)

    # -- layers built on every forward pass -------------------------------------------------
    def check_forward_passes(self) -> None:
        """A Keras layer constructed inside ``call()`` of a layer or model subclass, or
        ``__call__`` of a ``tf.Module`` (or a function it calls), is built again on
        every forward pass."""
        facts = self.facts
        for cls in self.ctx.nodes(cst.ClassDef):
            if facts.values.class_kind(cls) not in (
                Kind.LAYER,
                Kind.KERAS_MODEL,
            ) and not facts.values.derives_from(cls, MODULE_BASES):
                continue
            for stmt in cls.body.body:
                if isinstance(stmt, cst.FunctionDef) and stmt.name.value in FORWARD_METHODS:
                    self._forward_pass(cls, stmt)

    def _forward_pass(self, cls: cst.ClassDef, call_method: cst.FunctionDef) -> None:
        facts = self.facts
        for func in [call_method, *self._callees(call_method)]:
            for call in facts.graph.calls_in(func):
                item = facts.item(call)
                if item is None or item.built is not Built.LAYER or call in self._seen:
                    continue
                self._seen.add(call)
                if self._lazy(call, func):
                    self.rule.silent(call, Reason.RUNS_ONCE, "built on the first call only")
                    continue
                self._report_forward(cls, call_method, func, item)

    def _callees(self, func: cst.FunctionDef) -> List[cst.FunctionDef]:
        """Module functions ``call()`` runs on every pass (helpers building layers, also
        those it hands to another function to run), not methods of other layers (their
        own ``call`` is judged in their class)."""
        out: List[cst.FunctionDef] = []
        todo = [func]
        while todo and len(out) < 20:
            caller = todo.pop()
            for call in self.facts.graph.calls_in(caller):
                if self.facts.lazy(call):  # ``if not self._built: self._build()``
                    self.rule.silent(call, Reason.RUNS_ONCE, "run on the first pass only")
                    continue
                # A function handed to another (``batch_apply(self._torso, x)``,
                # ``tf.map_fn(fn, xs)``) runs in the pass too.
                handed = [
                    f
                    for arg in call.args
                    if isinstance(arg.value, (cst.Name, cst.Attribute))
                    for f in self.facts.graph.refers_to(arg.value)
                ]
                for callee in [*self.facts.graph.resolve(call), *handed]:
                    name = callee.name.value
                    if callee in out or callee is func or name in FORWARD_METHODS:
                        continue
                    if name in BUILD_METHODS:
                        continue  # runs once (Keras' lazy ``build``, a constructor)
                    out.append(callee)
                    todo.append(callee)
        return out

    def _lazy(self, call: cst.Call, func: cst.FunctionDef) -> bool:
        return self.facts.lazy(call)

    def _report_forward(self, cls, call_method, func, item: Item) -> None:
        spelled = item.label
        assert isinstance(item.node, cst.Call)  # a layer is built by a call
        name = _attribute_name(item.node)
        where = f"`{cls.name.value}.{call_method.name.value}()`"
        headline = fit_headline(
            f"{spelled} builds a new layer on every forward pass: build it once in `__init__`",
            "a layer is built on every forward pass: build it once in `__init__`",
        )
        via = "" if func is call_method else f" (through `{func.name.value}()`)"
        detail = (
            f"{where} runs on every forward pass{via}, and it constructs {spelled} each time: a "
            "new layer (new weights, for a layer that has any) on every call. Build it once in "
            f"`__init__` (or `build`), e.g. `self.{name} = ...`, and call `self.{name}(...)` in "
            f"`{call_method.name.value}()`."
        )
        self.rule.report(item.node, message=headline, detail=detail)


def _attribute_name(call: cst.Call) -> str:
    """A name for the layer: its class name in snake case (``MaxPooling2D`` ->
    ``max_pooling2d``; ``Lambda`` -> ``lambda_``, a keyword cannot be an attribute)."""
    last = (dotted(call.func) or "layer").rsplit(".", 1)[-1]
    name = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", last).lower() or "layer"
    return name + "_" if keyword.iskeyword(name) else name
