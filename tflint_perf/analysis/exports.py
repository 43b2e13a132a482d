"""What a module tells the other modules of the tree about itself.

``module_exports(ctx)`` gives, for each name the module binds at its top
level, the facts another module's analysis may need (plain data, so they
can be cached and sent between processes):

- a function: its effects (inference, training, construction, graph growth,
  runtime initialisation ...), which parameter inference and training apply
  to and whether the function makes that input one sample, whether it
  changes Python state, whether it is compiled, what it returns, its line;
  the training step it holds (``step``: a GradientTape step of its own, and
  whether the module compiles it or already reports it) and the ``tf.data``
  pipelines it returns (``pipelines``: each one's facts, where it ends);
  ``growth_reported``: it builds TF1 ops and runs them on every call, and
  the module's own finding already points at it; ``inference_reported``: it
  runs inference on one sample itself and a loop of its module runs it, or it
  is an agent's method (an environment loop elsewhere runs it): its module
  reports that call, so a caller elsewhere does not again;
  ``array_kind``: it is plain array math on its parameters, element-wise or
  numeric (``array_functions.py``), so a loop elsewhere calling it per row
  does array work one row at a time;
- a class: what its instances are (a Keras model, a layer ...) and the same
  facts for each of its methods;
- a value: what it holds (a dataset, a Keras model ...).

Only names with some fact are exported. Read back through
``ctx.project.symbol(qualname)`` (``engine/project.py``) by ``values``,
``calls`` and ``summaries``.
"""

from __future__ import annotations

from typing import Dict, List, Optional

from tflint_perf.analysis.api import Effect, Kind
from tflint_perf.analysis.array_functions import ArrayFunctions
from tflint_perf.analysis.semantic import BindingKind, SemanticModel
from tflint_perf.analysis.summaries import DATA_EFFECTS, Summaries, data_argument
from tflint_perf.analysis.values import Values
from tflint_perf.engine import cst

Facts = Dict[str, object]


def module_exports(ctx) -> Dict[str, Facts]:
    sem: SemanticModel = ctx.shared(SemanticModel)
    steps = _step_facts(ctx)
    values: Values = ctx.shared(Values)
    summaries: Summaries = ctx.shared(Summaries)
    out: Dict[str, Facts] = {}
    for name, bindings in sem.module_scope.bindings.items():
        if "." in name or name.startswith("__"):
            continue
        binding = bindings[-1]  # what the name holds once the module has run
        facts: Optional[Facts] = None
        if binding.kind is BindingKind.FUNCTION and isinstance(binding.statement, cst.FunctionDef):
            facts = function_facts(ctx, summaries, values, binding.statement, steps)
        elif binding.kind is BindingKind.CLASS and isinstance(binding.statement, cst.ClassDef):
            facts = class_facts(ctx, summaries, values, binding.statement, steps)
        elif binding.plain:
            kind = values.kind(binding.value)
            if kind is not Kind.UNKNOWN:
                facts = {"kind": "value", "value_kind": kind.value}
        if facts is not None:
            out[name] = facts
    return out


def function_facts(
    ctx,
    summaries: Summaries,
    values: Values,
    func: cst.FunctionDef,
    steps: Optional[Dict[cst.FunctionDef, Facts]] = None,
) -> Optional[Facts]:
    summary = summaries.of(func)
    uses = {
        flag.name: {param: {"one_sample": use.sample is not None} for param, use in found.items()}
        for flag, found in summary.uses.items()
        if flag in DATA_EFFECTS
    }
    returns = {values.kind(r.value) for r in values.returns(func)}
    facts: Facts = {
        "kind": "function",
        "effects": sorted(str(f.name) for f in Effect if f and f in summary.effects and _single(f)),
        "uses": uses,
        "mutates": bool(summary.mutations),
        "compiled": values.is_compiled(func),
        "params": [p.name.value for p in [*func.params.posonly_params, *func.params.params]],
        "returns": returns.pop().value if len(returns) == 1 else Kind.UNKNOWN.value,
        "line": ctx.name_line(func),
        "path": ctx.path,
        "calls_in_loop": _parameters_called_in_loops(ctx, func),
    }
    items = _returned_items(values, func)
    if items is not None:
        facts["items"] = items
        if Kind.DATASET.value in items:  # train, valid = make_datasets()
            each = [_pipeline_facts(ctx, func, k) for k in range(len(items))]
            if any(each):
                facts["pipeline_items"] = each
    step = (steps or {}).get(func)
    if step is not None:
        facts["step"] = step
    array = ctx.shared(ArrayFunctions).kind(func)
    if array is not None:  # plain array math: a loop elsewhere calling it per row is TFP101's
        facts["array_kind"] = array.value
    growth = Effect.GRAPH_GROWTH | Effect.RUNS_GRAPH
    if summary.effects & growth == growth and _reported_here(ctx, func):
        facts["growth_reported"] = True
    direct = [u for u in summary.uses.get(Effect.INFERENCE, {}).values() if len(u.path) == 1]
    if direct and _reported_here(ctx, func) and any(_one_sample(ctx, u, func) for u in direct):
        facts["inference_reported"] = True  # its own `predict` on one sample: reported there
    if facts["returns"] == Kind.DATASET.value:
        pipelines = _pipeline_facts(ctx, func)
        if pipelines:
            facts["pipelines"] = pipelines
    if (
        not facts["effects"]
        and facts["returns"] == Kind.UNKNOWN.value
        and not facts["mutates"]
        and not facts["calls_in_loop"]
        and "array_kind" not in facts
        and "items" not in facts
    ):
        return None
    return facts


def _step_facts(ctx) -> Dict[cst.FunctionDef, Facts]:
    """Functions and methods holding a GradientTape training step of their own
    (not inside a loop of theirs: that is an epoch function), as TFP201 reads
    them: a loop of another module that calls one repeats the step. ``compiled``:
    the module compiles it (``@tf.function``, ``tf.function(step)``, only compiled
    callers ...); ``reported``: a loop of the module runs it, or it is an agent's
    method, so the module's own finding already points at it. None in TF1 graph
    code, and for methods of a class a framework may compile (a base the module
    does not define)."""
    from tflint_perf.analysis.reach import Reach
    from tflint_perf.analysis.tapes import TapeSteps

    if "GradientTape" not in ctx.source or ctx.shared(Summaries).graph_mode:
        return {}
    reach: Reach = ctx.shared(Reach)
    out: Dict[cst.FunctionDef, Facts] = {}
    for step in ctx.shared(TapeSteps).steps:
        func = step.scope
        if func is None or func in out or step.loop is not None or step.returns_gradients:
            continue
        if _framework_method(ctx, func):
            continue
        out[func] = {"compiled": reach.compiled(func.body), "reported": _reported_here(ctx, func)}
    return out


def _returned_items(values: Values, func: cst.FunctionDef) -> Optional[list]:
    """The kind of each item of the tuple every ``return`` of ``func`` spells out
    (``return full_path, dob, face_score``), when they agree and one is known."""
    found = None
    for ret in values.returns(func):
        items = ret.value
        if not isinstance(items, cst.Tuple) or any(
            isinstance(e, cst.StarredElement) for e in items.elements
        ):
            return None
        kinds = [values.kind(e.value).value for e in items.elements]
        if found is not None and kinds != found:
            return None
        found = kinds
    if found is None or all(k == Kind.UNKNOWN.value for k in found):
        return None
    return found


def _reported_here(ctx, func: cst.FunctionDef) -> bool:
    """A loop of the module runs ``func``, or it is an agent's method (an environment
    loop runs it): the module's own finding points at it, not the callers elsewhere."""
    from tflint_perf.analysis.reach import Reach

    return ctx.shared(Reach).hot(func.body) is not None or _agent_entry(ctx, func)


def _one_sample(ctx, use, func: cst.FunctionDef) -> bool:
    """The function's own inference call is on one sample, by the evidence TFP403
    reads in its module (a batch of one made here, or only the first row kept)."""
    from tflint_perf.analysis.one_sample import one_sample

    if use.sample is not None:
        return True
    call = use.path[0]
    data = data_argument(call)
    return (
        data is not None
        and one_sample(ctx, ctx.shared(SemanticModel), data, call, func.body) is not None
    )


def _agent_entry(ctx, func: cst.FunctionDef) -> bool:
    from tflint_perf.analysis.agent_classes import AgentClasses

    return ctx.shared(AgentClasses).entry_method(func) is not None


def _framework_method(ctx, func: cst.FunctionDef) -> bool:
    """A method of a class with a base from outside the module (a Keras model's
    ``train_step``: ``fit`` compiles it)."""
    from tflint_perf.analysis.api.steps import EAGER_BASES
    from tflint_perf.engine.names import dotted

    sem: SemanticModel = ctx.shared(SemanticModel)
    cls = sem.method_class(func)
    if cls is None:
        return False
    for each in sem.class_and_bases(cls):
        for base in each.bases:
            if any(b.kind is BindingKind.CLASS for b in sem.lookup_name(base.value)):
                continue  # a class of the module: class_and_bases follows it
            if (ctx.qualname(base.value) or dotted(base.value)) not in EAGER_BASES:
                return True
    return False


def _pipeline_facts(ctx, func: cst.FunctionDef, item: Optional[int] = None) -> List[Facts]:
    """The ``tf.data`` pipelines ``func`` returns (or item ``item`` of the tuple it
    returns), each with the facts TFP401 reads and where it ends (its last step).
    Empty when one is not fully known here (a parameter's pipeline, a container)."""
    from tflint_perf.analysis.datasets import Pipelines

    pipelines = ctx.shared(Pipelines)
    out: List[Facts] = []
    found = pipelines.returned(func) if item is None else pipelines.returned_item(func, item)
    for p in found:
        if p.param is not None or p.container is not None:
            return []
        last = _method_name(p.last)
        out.append(
            {
                "origin": p.origin.value if p.origin is not None else None,
                "batched": p.batched,
                "batch_size": p.batch_size,
                "prefetched": p.prefetched,
                "unknown": p.unknown,
                "work": p.work,
                "limit": p.limit,
                "serial": p.serial,
                "cached": p.cached,
                "last": last,
                "line": ctx.position(p.last).start.line,
            }
        )
    return out


def _method_name(node: cst.CSTNode) -> Optional[str]:
    """``batch`` for ``ds.batch(32)``; None for a constructor or anything else."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        return node.func.attr.value
    return None


def _parameters_called_in_loops(ctx, func: cst.FunctionDef) -> Dict[str, Facts]:
    """Parameters the function calls in a loop that is not tiny (a policy handed
    to a rollout), and whether each call's result feeds the next call."""
    from tflint_perf.analysis.calls import CallGraph
    from tflint_perf.analysis.trips import Trips

    sem: SemanticModel = ctx.shared(SemanticModel)
    trips: Trips = ctx.shared(Trips)
    out: Dict[str, Facts] = {}
    for call in ctx.shared(CallGraph).calls_in(func):
        if not isinstance(call.func, cst.Name):
            continue
        bound = sem.lookup_name(call.func)
        if not bound or any(b.kind is not BindingKind.PARAMETER for b in bound):
            continue
        loops = trips.loops_around(call)
        estimate = trips.repeats(call)
        if not loops or estimate.tiny:
            continue
        inputs = set(sem.reads(call))
        out[call.func.value] = {
            "sequential": bool(inputs & sem.derived(loops[0], call)),
            "line": ctx.position(loops[0]).start.line,
        }
    return out


def class_facts(
    ctx,
    summaries: Summaries,
    values: Values,
    cls: cst.ClassDef,
    steps: Optional[Dict[cst.FunctionDef, Facts]] = None,
) -> Optional[Facts]:
    methods = {}
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef):
            found = function_facts(ctx, summaries, values, stmt, steps)
            if found is not None:
                methods[stmt.name.value] = found
    kind = values.class_kind(cls)
    attributes = {}  # what an instance's attributes hold (``self.model = Sequential()``)
    for attr, bindings in sorted(values.sem.class_attributes.get(cls, {}).items()):
        held = values.of_bindings(bindings)
        if held in _HELD:
            attributes[attr] = held.value
    if not methods and kind is Kind.UNKNOWN and not attributes:
        return None
    return {
        "kind": "class",
        "value_kind": kind.value,
        "methods": methods,
        "attributes": attributes,
        "line": ctx.name_line(cls),
        "path": ctx.path,
    }


# The kinds of attributes another module may ask about (the framework's objects).
_HELD = frozenset(
    {Kind.KERAS_MODEL, Kind.LAYER, Kind.DATASET, Kind.OPTIMIZER, Kind.ARRAY, Kind.TENSOR}
)


def _single(flag: Effect) -> bool:
    return flag.value & (flag.value - 1) == 0


def defined_in(ctx, facts: Facts) -> str:
    """Where another module's function is (its facts' path), relative to the folder
    of the file a message is about: ``model.py``, ``../pkg/data.py``."""
    import os

    path = str(facts.get("path", "?"))
    return os.path.relpath(path, os.path.dirname(os.path.abspath(ctx.path))).replace(os.sep, "/")
