"""Where one-sample inference repeats: in a loop, through the functions that call
it, or in an agent method whose environment loop lives in another module."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Iterator, List, Optional, Set, Tuple, Union

from tflint_perf.analysis import api
from tflint_perf.analysis.agent_classes import AgentClasses
from tflint_perf.analysis.api import Effect
from tflint_perf.analysis.api.keras import MODEL_CHANGING_METHODS
from tflint_perf.analysis.api.tables import SAME_KIND
from tflint_perf.analysis.calls import CallGraph, external_argument
from tflint_perf.analysis.one_sample import one_item, one_sample
from tflint_perf.analysis.scopes import first_param
from tflint_perf.analysis.semantic import BindingKind, SemanticModel
from tflint_perf.analysis.shared_state import loop_runs
from tflint_perf.analysis.summaries import Summaries
from tflint_perf.analysis.trips import Estimate, Size, Trips
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.walk import descendants

MAX_DEPTH = 4  # callers followed up from the function holding the inference
_IMPURE = Effect.RANDOM | Effect.IO | Effect.DOWNLOAD | Effect.PYTHON


class Shape(enum.Enum):
    BATCHABLE = "batchable"  # independent samples: predict once on the batch
    SEQUENTIAL = "sequential"  # each input depends on the previous prediction
    UNCLEAR = "unclear"  # a `while` loop whose feedback the source does not show
    INVARIANT = "invariant"  # the same input on every iteration
    ELSEWHERE = "elsewhere"  # an agent method run from a loop in another module


@dataclass(frozen=True)
class Site:
    sample: cst.CSTNode  # what makes the input one sample
    shape: Shape
    loop: Optional[cst.CSTNode] = None  # the loop that repeats it (None: elsewhere)
    path: Tuple[cst.Call, ...] = ()  # calls from the loop's call down to the inference
    trips: Optional[Estimate] = None
    feedback: Optional[str] = None  # the input name built from the previous prediction
    stepper: Optional[cst.Call] = None  # what the prediction drives (env.step(...))
    agent: Optional[cst.ClassDef] = None  # the agent class (Shape.ELSEWHERE)
    # The function of another module of the tree that calls this one in its
    # loop (a policy handed to a rollout): its facts, and the call handing it on.
    handoff: Optional[Tuple[dict, cst.Call]] = None


@dataclass(frozen=True)
class NoSite:
    reason: Reason
    detail: str
    at: Optional[cst.CSTNode] = None  # where to record it (default: the inference call)


class Sites:
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self.graph: CallGraph = ctx.shared(CallGraph)
        self.trips: Trips = ctx.shared(Trips)
        self.summaries: Summaries = ctx.shared(Summaries)

    def report_at(self, call: cst.Call, site: Site) -> cst.Call:
        """Where to report: the inference call; or, when a function on the way
        from the loop makes the one sample and hands it to a helper that runs
        the inference (``q = self.predict(state.reshape(1, -1))[0]``), that
        helper call: there the code changes."""
        path = site.path or (call,)
        if len(path) < 2:
            return call
        home = self.sem.function_of(site.sample)
        if home is self.sem.function_of(path[0]):
            return call  # the loop makes the sample: the helper's inference is the code to change
        for each in reversed(path):
            if self.sem.function_of(each) is home:
                return each
        return call

    def find(self, call: cst.Call, data, method: str, made=None) -> Union[Site, NoSite]:
        """``made``: the input, when the call's own callee makes it one sample."""
        loops = self.trips.loops_around(call)
        if loops:
            return self._in_loop(call, data, loops[0], call, data, made=made)
        func = self.sem.function_of(call)
        if func is None:
            return NoSite(Reason.RUNS_ONCE, "not in a loop")
        found = list(self._through_callers(call, data, func, made))
        sites = [s for s in found if isinstance(s, Site)]
        if sites:
            return sites[0]
        handed = self._handed_on(call, data, func, made)
        if handed is not None:
            return handed
        shared = self._shared_state(call, data, func, made)
        if shared is not None:
            return shared
        if method == "predict":
            agent = self._agent_entry(call, data, func)
            if agent is not None:
                return agent
        if found:
            return found[0]
        return NoSite(Reason.RUNS_ONCE, f"no loop of this module runs `{func.name.value}()`")

    # -- directly in a loop, or at the loop's call of a helper -------------------
    def _in_loop(self, call, data, loop, top: cst.Call, top_data, path=(), made=None):
        """``top`` (a call in ``loop``) runs the inference ``call`` on ``data``;
        ``top_data``: what ``top`` passes that the input is computed from."""
        estimate = self.trips.repeats(top)
        if estimate.tiny:
            return NoSite(Reason.TINY_LOOP, estimate.why, top)
        inputs = self._inputs(loop, top_data)
        varying = self.sem.varying(loop, self._pure)
        varies = bool(inputs & varying)
        region = loop.body if isinstance(loop, (cst.For, cst.While)) else loop
        sample = made or one_sample(self.ctx, self.sem, top_data, top, region, varies)
        if sample is None and path:
            sample = one_item(self.ctx, self.sem, top_data)
        if sample is None:
            return NoSite(Reason.BATCHED, "the input is not shown to be one sample", top)
        if self._rebound(call, loop):
            return NoSite(Reason.DELIBERATE, "a different model on each iteration", top)
        if not varies:
            if (
                self._changes_model(loop)
                or self._over_outputs(top, loop)
                or not self._targets_read(loop)
            ):
                return NoSite(Reason.DELIBERATE, "the model changes, or the loop samples it", top)
            return Site(sample, Shape.INVARIANT, loop, path, estimate)
        derived = self.sem.derived(loop, top)
        feedback = sorted(inputs & derived)
        if feedback:
            stepper = self._stepper(loop, set(feedback), top)
            name = next((n for n in self.sem.reads(top_data) if n in derived), None)
            return Site(
                sample,
                Shape.SEQUENTIAL,
                loop,
                path,
                estimate,
                name or feedback[0],
                stepper,
            )
        if isinstance(loop, cst.While) and not self._walks_collection(loop):
            return Site(sample, Shape.UNCLEAR, loop, path, estimate)
        return Site(sample, Shape.BATCHABLE, loop, path, estimate)

    def _through_callers(self, call, data, func, made=None) -> Iterator[Union[Site, NoSite]]:
        """``def act(s): return model.predict(s[None])`` called in a loop, through any
        depth of callers (methods, wrappers, callables passed as arguments)."""
        params = self.summaries.params_reached(data, _data_params(func))
        if not params:
            return
        made = made or one_sample(self.ctx, self.sem, data, call, func.body)
        frontier: List[
            Tuple[cst.FunctionDef, Set[str], Tuple[cst.Call, ...], Optional[cst.CSTNode]]
        ]
        frontier = [(func, params, (call,), made)]
        for _ in range(MAX_DEPTH):
            following = []
            for callee, names, path, inside in frontier:
                for site in self.graph.callers(callee):
                    if self.ctx.contains(callee, site):
                        continue  # recursion
                    args = [
                        a
                        for a in (self.graph.argument(site, callee, p) for p in sorted(names))
                        if a is not None
                    ]
                    if not args:
                        continue
                    passed = (
                        args[0] if len(args) == 1 else cst.Tuple([cst.Element(a) for a in args])
                    )
                    loops = self.trips.loops_around(site)
                    if loops:
                        yield self._in_loop(
                            call, passed, loops[0], site, passed, (site,) + path, inside
                        )
                        continue
                    outer = self.sem.function_of(site)
                    if outer is None:
                        continue
                    reached: Set[str] = set()
                    for arg in args:
                        reached |= self.summaries.params_reached(arg, _data_params(outer))
                    if reached:
                        here = inside or next(
                            (
                                one_item(self.ctx, self.sem, a)
                                for a in args
                                if one_item(self.ctx, self.sem, a)
                            ),
                            None,
                        )
                        following.append((outer, reached, (site,) + path, here))
            frontier = following

    def _shared_state(self, call, data, func, made) -> Optional[Union[Site, NoSite]]:
        """A loop's body in a function of its own that takes no data parameter, run
        once per iteration of a caller's loop (``analysis/shared_state.py``)."""
        for run in loop_runs(self.ctx, call, data):
            estimate = self.trips.repeats(run.site)
            if estimate.tiny:
                return NoSite(Reason.TINY_LOOP, estimate.why, run.site)
            sample = made or one_sample(self.ctx, self.sem, data, call, func.body)
            if sample is None:
                return NoSite(Reason.BATCHED, "the input is not shown to be one sample", run.site)
            if self._rebound(call, func):
                return NoSite(Reason.DELIBERATE, "a different model on each call", run.site)
            if run.fed_back:
                return Site(sample, Shape.SEQUENTIAL, run.loop, run.path, estimate, run.fed_back[0])
            if run.varies:
                return Site(sample, Shape.BATCHABLE, run.loop, run.path, estimate)
        return None

    def _handed_on(self, call, data, func, made) -> Optional[Site]:
        """``rollout(env, greedy)`` where ``rollout``, in another module of the
        tree, calls its parameter in a loop: ``greedy`` runs once per step."""
        if self.ctx.project is None:
            return None
        sample = made or one_sample(self.ctx, self.sem, data, call, func.body)
        if sample is None or not self.summaries.params_reached(data, _data_params(func)):
            return None
        for other in self.ctx.nodes(cst.Call):
            facts = self.graph.external(other)
            looped = facts.get("calls_in_loop") if facts is not None else None
            if facts is None or not looped:
                continue
            for param, info in sorted(looped.items()):
                arg = external_argument(other, facts, param)
                if isinstance(arg, cst.Name) and any(
                    b.statement is func for b in self.sem.lookup_name(arg)
                ):
                    shape = Shape.SEQUENTIAL if info.get("sequential") else Shape.UNCLEAR
                    return Site(sample, shape, None, (other, call), handoff=(facts, other))
        return None

    def _agent_entry(self, call, data, func) -> Optional[Site]:
        """``predict`` on one observation in an agent method that nothing here
        calls: the environment loop is in another module."""
        cls = self.ctx.shared(AgentClasses).entry_method(func)
        if cls is None or not self.summaries.params_reached(data, _data_params(func)):
            return None
        sample = one_sample(self.ctx, self.sem, data, call, func.body)
        if sample is None:
            return None
        return Site(sample, Shape.ELSEWHERE, None, (call,), agent=cls)

    # -- loop facts --------------------------------------------------------------
    def _inputs(self, loop, expr) -> Set[str]:
        """Names ``expr`` is computed from, through the bindings the loop makes."""
        return self.sem.computed_from(loop, expr)

    def _pure(self, value, depth: int = 0) -> bool:
        """Computed the same way from the same names (no I/O, no randomness)."""
        if depth > 6:
            return False
        if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString, cst.Name)):
            return True
        if isinstance(value, (cst.Attribute, cst.Subscript)):
            return self._pure(value.value, depth + 1)
        if isinstance(value, cst.BinaryOperation):
            return self._pure(value.left, depth + 1) and self._pure(value.right, depth + 1)
        if isinstance(value, cst.UnaryOperation):
            return self._pure(value.expression, depth + 1)
        if isinstance(value, (cst.Tuple, cst.List)):
            return all(self._pure(e.value, depth + 1) for e in value.elements)
        if isinstance(value, cst.Call):
            facts = api.call(self.ctx.call_name(value))
            func = value.func
            if facts is not None:
                ok = not facts.effects & _IMPURE
            else:
                ok = (
                    isinstance(func, cst.Attribute)
                    and func.attr.value in SAME_KIND
                    and self._pure(func.value, depth + 1)
                )
            return ok and all(self._pure(a.value, depth + 1) for a in value.args)
        return False

    def _rebound(self, call: cst.Call, loop) -> bool:
        """The model is bound in the loop: one model per iteration (or per call of
        a function, through a parameter; a method's receiver is the same object,
        only ``self.model = ...`` in it makes a new model)."""
        model = call.func.value if isinstance(call.func, cst.Attribute) else call.func
        root = self.sem.reads(model)[:1]
        method = isinstance(loop, cst.FunctionDef) and self.sem.method_class(loop) is not None
        receiver = method and root == [first_param(loop)]
        names = {dotted(model)} if receiver else set(root)
        return any(
            b.name in names and b.kind is not BindingKind.MUTATION
            for b in self.sem.bindings_in(loop)
        )

    def _changes_model(self, loop) -> bool:
        for node in descendants(loop, skip_scopes=True):
            if isinstance(node, cst.With):
                return True  # GradientTape and friends
            if isinstance(node, cst.Call):
                if (
                    isinstance(node.func, cst.Attribute)
                    and node.func.attr.value in MODEL_CHANGING_METHODS
                ):
                    return True
                if self.summaries.effects_of(node) & (Effect.TRAINING | Effect.UPDATE):
                    return True
        return False

    def _over_outputs(self, call, loop) -> bool:
        """``predict(x)[i]`` in a loop over ``i``: the loop walks one prediction's outputs."""
        parent = self.ctx.parent(call)
        if not isinstance(parent, cst.Subscript) or parent.value is not call:
            return False
        targets = _targets(loop)
        return any(set(self.sem.reads(e.slice)) & targets for e in parent.slice)

    def _targets_read(self, loop) -> bool:
        """The loop variable is read: the loop walks something, rather than repeating
        (``for _ in range(100): predict(x)`` samples a stochastic model on purpose)."""
        targets = _targets(loop)
        region = loop.body if isinstance(loop, (cst.For, cst.While)) else getattr(loop, "elt", loop)
        return bool(targets & set(self.sem.reads(region)))

    def _stepper(self, loop, feedback: Set[str], top: cst.Call) -> Optional[cst.Call]:
        """The call in the loop, other than the prediction, that makes the next
        input from what the prediction gives (``obs = env.step(action)``)."""
        for binding in self.sem.bindings_in(loop):
            source = binding.source if binding.source is not None else binding.value
            if binding.name.split(".", 1)[0] not in feedback or not isinstance(source, cst.Call):
                continue
            if source is not top and not self.ctx.contains(source, top):
                return source
        return None

    def _walks_collection(self, loop: cst.While) -> bool:
        """``while i < len(xs)``: a walk over a collection, not an episode."""
        return self.trips.of(loop).size is not Size.DATA


def _targets(loop) -> Set[str]:
    if isinstance(loop, cst.For):
        target = loop.target
    elif hasattr(loop, "for_in"):
        target = loop.for_in.target
    else:
        return set()
    return {n.value for n in [target, *descendants(target)] if isinstance(n, cst.Name)}


def _data_params(func: cst.FunctionDef) -> Set[str]:
    params = [*func.params.posonly_params, *func.params.params, *func.params.kwonly_params]
    return {p.name.value for p in params} - {"self", "cls"}
