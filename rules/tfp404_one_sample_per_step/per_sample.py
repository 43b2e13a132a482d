"""Shape 1: a training call on one sample per loop iteration.

``model.fit(state, target, epochs=1)`` for each transition of a replay
minibatch, directly or through a function of the module (``agent.learn(s,
t)`` whose summary trains on its parameter): one whole ``fit`` per sample.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterator, List, Optional, Tuple

from tflint_perf.analysis import api
from tflint_perf.analysis.agent_classes import AgentClasses
from tflint_perf.analysis.api import Effect, Kind, tfdata
from tflint_perf.analysis.dataset_use import DatasetUse
from tflint_perf.analysis.samples import batch_of_one
from tflint_perf.analysis.semantic import BindingKind
from tflint_perf.analysis.shared_state import loop_runs
from tflint_perf.analysis.summaries import Summaries, data_argument
from tflint_perf.analysis.testcode import in_test_code
from tflint_perf.analysis.trips import Trips
from tflint_perf.engine import cst
from tflint_perf.engine.headline import fit_headline
from tflint_perf.engine.names import dotted
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.walk import descendants
from tflint_perf.rules.tfp404_one_sample_per_step.verdicts import (
    Report,
    Silent,
    Verdict,
    clip,
)

_ARRAYS = (Kind.ARRAY, Kind.TENSOR, Kind.VARIABLE)
_LIGHT = "train_on_batch"  # one step, no data adapter or callbacks


@dataclass(frozen=True)
class Site:
    """A call that trains on ``data``, with the chain of calls down to the Keras call."""

    call: cst.Call
    data: cst.BaseExpression
    method: str  # the Keras method at the end of the chain
    path: Tuple[cst.CSTNode, ...]
    sample: Optional[cst.CSTNode] = None  # inside a helper: what makes it one sample


class PerSample:
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.uses: DatasetUse = ctx.shared(DatasetUse)
        self.sem = self.uses.sem
        self.values = self.uses.values
        self.graph = self.uses.graph
        self.trips: Trips = ctx.shared(Trips)
        self._summaries: Optional[Summaries] = None

    @property
    def summaries(self) -> Summaries:
        """Built when a call in a loop runs a function of the module (most files: never)."""
        if self._summaries is None:
            self._summaries = self.ctx.shared(Summaries)
        return self._summaries

    def verdicts(self) -> Iterator[Verdict]:
        for call in self.ctx.nodes(cst.Call):
            func = call.func
            if isinstance(func, cst.Attribute) and _trains(func.attr.value):
                method = func.attr.value
                keras = (
                    self.uses.keras_call(call)
                    if method != _LIGHT
                    else (self.values.kind(func.value) is not Kind.OTHER_MODEL)
                )
                data = data_argument(call)
                if not keras:
                    yield Silent(call, Reason.OTHER_LIBRARY, "not a Keras model")
                elif data is not None:
                    yield self._judge(Site(call, data, method, (call,)))
                continue
            for site in self._helper_sites(call)[:1]:
                yield self._judge(site)

    # -- candidates ---------------------------------------------------------------------
    def _helper_sites(self, call: cst.Call) -> List[Site]:
        """A call of the module's functions, in a loop, that trains on what it passes."""
        if not self.graph.resolve(call) or not self.trips.loops_around(call):
            return []  # (cheap tests first: most calls are neither)
        if not self.summaries.effects_of(call) & Effect.TRAINING:
            return []
        out = []
        for target in self.graph.resolve(call):
            used = self.summaries.of(target).uses.get(Effect.TRAINING, {})
            for param, use in used.items():
                arg = self.graph.argument(call, target, param)
                last = use.path[-1] if use.path else None
                method = _method(last)
                if arg is not None and _trains(method):
                    out.append(Site(call, arg, method, (call,) + use.path, use.sample))
        return out

    # -- the decision ---------------------------------------------------------------------
    def _judge(self, site: Site) -> Verdict:
        call, data = site.call, site.data
        if in_test_code(self.ctx, call):
            return Silent(call, Reason.TEST_CODE)
        loops = self.trips.loops_around(call)
        region: Optional[cst.CSTNode] = None  # where the samples are made, when not the loop
        if loops:
            loop, estimate = loops[0], self.trips.repeats(call)
        else:  # a loop's body in a function of its own, fed through shared names
            run = next(loop_runs(self.ctx, call, data), None)
            if run is None:
                return self._agent_step(site) or Silent(call, Reason.RUNS_ONCE, "not in a loop")
            func = self.sem.function_of(call)
            loop, estimate = run.loop, self.trips.repeats(run.site)
            region = func.body if func is not None else None
            site = replace(site, path=run.path[:-1] + site.path)
        if estimate.tiny:
            return Silent(call, Reason.TINY_LOOP, estimate.why)
        model = _receiver(site.path[-1])
        if model is not None and self._built_in(region or loop, model):
            return Silent(call, Reason.DELIBERATE, "a new model per iteration, each trained once")
        shown = clip(self.ctx.code(data))
        inputs = (
            self.sem.computed_from(region, data) if region is not None else self.sem.reads(data)
        )
        if not set(inputs) & self.sem.varying(loop):
            return Silent(call, Reason.BATCHED, f"`{shown}` is the same data on every iteration")
        evidence = self._one_sample(region or loop, site)
        if evidence is None:
            return Silent(
                call, Reason.BATCHED, f"`{shown}` changes per iteration; no sign of one sample"
            )
        independent = self._independent(loop, data, region)
        if site.method == _LIGHT and not independent:
            return Silent(call, Reason.SEQUENTIAL, "already the light call, one update per step")
        return self._report(site, loop, evidence, independent)

    def _agent_step(self, site: Site) -> Optional[Verdict]:
        """``fit`` on one sample in an agent's method that nothing here calls: the
        environment loop in another module runs it once per step (online learning)."""
        func = self.sem.function_of(site.call)
        agent = self.ctx.shared(AgentClasses).entry_method(func) if func is not None else None
        if func is None or agent is None:
            return None
        if site.method == _LIGHT:
            return Silent(
                site.call, Reason.SEQUENTIAL, "already the light call, one update per step"
            )
        evidence = self._one_sample(func.body, site)
        if evidence is None:
            shown = clip(self.ctx.code(site.data))
            return Silent(site.call, Reason.BATCHED, f"`{shown}`: no sign of one sample")
        return self._report(site, None, evidence, False, agent.name.value)

    def _built_in(self, loop: cst.CSTNode, model: cst.BaseExpression) -> bool:
        """``model`` is bound anew inside the loop (a fresh model per iteration)."""
        if model is None or not isinstance(model, (cst.Name, cst.Attribute)):
            return False
        first, last = self.ctx.span(loop)
        return any(
            b.kind is BindingKind.ASSIGNMENT and first <= self.ctx.span(b.statement)[0] <= last
            for b in self.sem.lookup_name(model)
        )

    def _one_sample(self, loop: cst.CSTNode, site: Site) -> Optional[str]:
        """Why ``site.data`` holds one sample on each iteration, or None."""
        sample = site.sample or self._batch_of_one(site.data)
        if sample is not None:
            return f"`{clip(self.ctx.code(sample))}` makes it a batch of one"
        row = self._row(site.data)
        if row is not None:
            return row
        return self._indexed_prediction(loop, site)

    def _batch_of_one(self, data: cst.BaseExpression) -> Optional[cst.CSTNode]:
        """``x.reshape(1, -1)``, ``x[None]``: also a name every binding of which
        reaching here is one (``obs = env.reset()[None]`` ... ``obs = after``)."""
        found = batch_of_one(self.ctx, data, self.sem.origin_value)
        if found is not None or not isinstance(data, cst.Name):
            return found
        bindings = self.sem.lookup_name(data)
        if not bindings or not all(b.plain for b in bindings):
            return None
        each = [batch_of_one(self.ctx, b.value, self.sem.value_of) for b in bindings]
        return each[0] if all(each) else None

    def _row(self, data: cst.BaseExpression) -> Optional[str]:
        """``x[i]`` of an array, or a loop target that walks an array's rows."""
        shown = clip(self.ctx.code(data))
        if isinstance(data, cst.Subscript) and len(data.slice) == 1:
            index = data.slice[0].slice
            if (
                isinstance(index, cst.Index)
                and self.values.kind(index.value) is Kind.SCALAR
                and self.values.kind(data.value) in _ARRAYS
            ):
                return f"`{shown}` is one row of `{clip(self.ctx.code(data.value))}`"
        if not isinstance(data, cst.Name):
            return None
        for binding in self.sem.lookup_name(data):
            if binding.kind is not BindingKind.LOOP_TARGET or binding.source is None:
                continue
            walked = _iterated_part(binding.source, binding.path)
            if walked is not None and self.values.kind(walked) in _ARRAYS:
                return f"`{shown}` is one row of `{clip(self.ctx.code(walked))}`"
        return None

    def _indexed_prediction(self, loop: cst.CSTNode, site: Site) -> Optional[str]:
        """The loop reads ``[0]`` of the model's output for the same input
        (``target_f = model.predict(state); target_f[0][action] = ...``): one sample."""
        mine = set(self.sem.reads(site.data))
        receiver = _receiver(site.path[-1])
        model = dotted(receiver) if receiver is not None else None
        region = loop.body if isinstance(loop, (cst.For, cst.While)) else loop
        for node in descendants(region, skip_scopes=True):
            if not (isinstance(node, cst.Subscript) and _first_index_zero(node)):
                continue
            base = node.value
            call = self.sem.value_of(base) if isinstance(base, cst.Name) else base
            while isinstance(call, cst.Call) and not self._infers(call, model):
                func = call.func  # model(x).numpy(), predict(x).copy()
                call = func.value if isinstance(func, cst.Attribute) else None
            if not isinstance(call, cst.Call):
                continue
            arg = data_argument(call)
            if arg is not None and set(self.sem.reads(arg)) & mine:
                return (
                    f"`{clip(self.ctx.code(node))}` reads the model's output for "
                    f"`{clip(self.ctx.code(arg))}` alone"
                )
        return None

    def _infers(self, call: cst.Call, model: Optional[str], depth: int = 0) -> bool:
        """``call`` gives the model's output: an inference call, or a function of the module
        that returns one (running inference inside is not enough: a training step that
        predicts on the way returns its losses, and ``[0]`` of those is not a sample)."""
        if self.summaries.direct_effects(call) & Effect.INFERENCE:
            return True
        targets = self.summaries.graph.resolve(call)
        if targets:
            return depth < 3 and any(self._returns_output(t, model, depth + 1) for t in targets)
        func = call.func  # the same object the training call trains (of unknown kind)
        return (
            isinstance(func, cst.Attribute)
            and func.attr.value == "predict"
            and model is not None
            and dotted(func.value) == model
        )

    def _returns_output(self, func: cst.FunctionDef, model: Optional[str], depth: int) -> bool:
        for node in descendants(func.body, skip_scopes=True):
            if isinstance(node, cst.Return) and node.value is not None:
                call: Optional[cst.BaseExpression] = node.value
                for _ in range(4):  # ``return q[0]``, ``q = model.predict(s); return q``
                    if isinstance(call, cst.Subscript):
                        call = call.value
                    elif isinstance(call, cst.Name):
                        call = self.sem.value_of(call)
                    else:
                        break
                while isinstance(call, cst.Call) and not self._infers(call, model, depth):
                    func_ = call.func  # model(x).numpy(), predict(x).copy()
                    call = func_.value if isinstance(func_, cst.Attribute) else None
                if isinstance(call, cst.Call):
                    return True
        return False

    def _independent(self, loop: cst.CSTNode, data: cst.BaseExpression, region=None) -> bool:
        """The samples come from a collection the loop walks (its target, or a
        subscript of a name the loop does not bind), not from the step before
        (``region``: the function, run by the loop, that makes them)."""
        derived = self.sem.computed_from(region or loop, data)
        if isinstance(loop, cst.For):
            targets = {b.name for b in self.sem.bindings_of(loop)}
            if derived & targets:
                return True
        made = self.sem.bindings_in(loop)
        bound = {b.name.split(".", 1)[0] for b in made}
        # The data, and the loop's statements that fill what it reads (``x[0] = xs[idx]``).
        sources = [data] + [
            b.statement
            for b in made
            if b.name.split(".", 1)[0] in derived
            and isinstance(b.statement, (cst.Assign, cst.AugAssign, cst.AnnAssign))
        ]
        for node in (n for source in sources for n in [source, *descendants(source)]):
            if isinstance(node, cst.Subscript):
                base = dotted(node.value)
                if base is not None and base.split(".", 1)[0] not in bound:
                    return bool(set(self.sem.reads(node)) & self.sem.varying(loop))
        return False

    # -- the message ------------------------------------------------------------------------
    def _report(
        self, site: Site, loop, evidence: str, independent: bool, agent: Optional[str] = None
    ) -> Report:
        ctx = self.ctx
        method = site.method
        head = clip(ctx.code(site.call.func), 28)
        where = _loop_words(ctx, loop) if loop is not None else "the environment loop"
        if agent is not None:
            headline = fit_headline(
                f"`{head}()` trains on one sample per environment step: call `train_on_batch` "
                "instead",
                f"`{method}()` on one sample per environment step: call `train_on_batch` instead",
            )
        elif independent:
            headline = fit_headline(
                f"`{head}()` trains on one sample per iteration of {where}: stack the samples, "
                f"call `{method}` once",
                f"`{head}()` trains on one sample per loop iteration: stack the samples, call "
                f"`{method}` once",
                f"`{method}()` on one sample per loop iteration: stack the samples, call it once",
            )
        else:
            headline = fit_headline(
                f"`{head}()` trains on one sample per step of {where}: call `train_on_batch` "
                "instead",
                f"`{method}()` on one sample per loop step: call `train_on_batch` instead",
            )
        lines = [f"One sample: {evidence}."]
        if agent is not None:
            lines.append(
                f"Nothing in this module calls this method of agent `{agent}`, so the environment "
                "loop in another module runs it once per step."
            )
        if len(site.path) > 1:
            chain = " -> ".join(
                f"`{clip(ctx.code(n.func), 28)}()`" for n in site.path if isinstance(n, cst.Call)
            )
            lines.append(f"The training call is reached through {chain}.")
        cost = (
            f"Each `{method}` call builds a data adapter, callbacks and a training loop: "
            "milliseconds of overhead for one sample's step."
            if method != _LIGHT
            else "Each call runs one optimizer step for one sample."
        )
        lines.append(cost)
        if independent:
            lines.append(
                "Collect the samples and their targets into arrays (`np.stack`) and call "
                f"`{method}` once; the result differs by design: one optimizer step on the "
                "batch's mean gradient instead of one step per sample."
            )
        else:
            lines.append(
                "Each sample comes from the step before it, so they cannot be batched: "
                "`train_on_batch` runs the one step without `fit`'s setup."
            )
        # Online: the variant --verify times is `train_on_batch`, which computes the same step.
        extra = None if independent else {"variant": "train_on_batch", "comparable": True}
        return Report(site.call.func, headline, "\n".join(lines), extra)


def _trains(method: str) -> bool:
    facts = api.method(Kind.KERAS_MODEL, method)
    return facts is not None and bool(facts.effects & Effect.TRAINING)


def _method(node) -> str:
    func = node.func if isinstance(node, cst.Call) else None
    return func.attr.value if isinstance(func, cst.Attribute) else ""


def _receiver(node) -> Optional[cst.BaseExpression]:
    """``model`` of ``model.fit(...)``."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        return node.func.value
    return None


def _first_index_zero(sub: cst.Subscript) -> bool:
    first = sub.slice[0].slice if sub.slice else None
    return (
        isinstance(first, cst.Index)
        and isinstance(first.value, cst.Integer)
        and first.value.value == "0"
    )


def _iterated_part(source, path: tuple):
    """What a loop target walks: ``X`` for ``x`` in ``for x, y in zip(X, Y)``."""
    while isinstance(source, cst.Call) and isinstance(source.func, cst.Name) and source.args:
        name = source.func.value
        if name == "zip" and path and path[0] < len(source.args):
            source, path = source.args[path[0]].value, path[1:]
        elif name == "enumerate" and path and path[0] == 1:
            source, path = source.args[0].value, path[1:]
        elif name in tfdata.ITERABLE_WRAPPERS:
            source = source.args[0].value
        else:
            return None
    return source if not path else None


def _loop_words(ctx, loop) -> str:
    if isinstance(loop, cst.For):
        return f"the loop over `{clip(ctx.code(loop.iter), 24)}`"
    if isinstance(loop, cst.While):
        return f"`while {clip(ctx.code(loop.test), 24)}`"
    return "a comprehension"
