"""What a module tells the other modules of the tree about itself.

``module_exports(ctx)`` gives, for each name the module binds at its top
level, the facts another module's analysis may need (plain data, so they
can be cached and sent between processes):

- a function: its effects (inference, training, construction, graph growth,
  runtime initialisation ...), which parameter inference and training apply
  to and whether the function makes that input one sample, whether it
  changes Python state, whether it is compiled, what it returns, its line;
- a class: what its instances are (a Keras model, a layer ...) and the same
  facts for each of its methods;
- a value: what it holds (a dataset, a Keras model ...).

Only names with some fact are exported. Read back through
``ctx.project.symbol(qualname)`` (``engine/project.py``) by ``values``,
``calls`` and ``summaries``.
"""

from __future__ import annotations

from typing import Dict, Optional

from tflint_perf.analysis.api import Effect, Kind
from tflint_perf.analysis.semantic import BindingKind, SemanticModel
from tflint_perf.analysis.summaries import DATA_EFFECTS, Summaries
from tflint_perf.analysis.values import Values
from tflint_perf.engine import cst

Facts = Dict[str, object]


def module_exports(ctx) -> Dict[str, Facts]:
    sem: SemanticModel = ctx.shared(SemanticModel)
    values: Values = ctx.shared(Values)
    summaries: Summaries = ctx.shared(Summaries)
    out: Dict[str, Facts] = {}
    for name, bindings in sem.module_scope.bindings.items():
        if "." in name or name.startswith("__"):
            continue
        binding = bindings[-1]  # what the name holds once the module has run
        facts: Optional[Facts] = None
        if binding.kind is BindingKind.FUNCTION and isinstance(binding.statement, cst.FunctionDef):
            facts = function_facts(ctx, summaries, values, binding.statement)
        elif binding.kind is BindingKind.CLASS and isinstance(binding.statement, cst.ClassDef):
            facts = class_facts(ctx, summaries, values, binding.statement)
        elif binding.plain:
            kind = values.kind(binding.value)
            if kind is not Kind.UNKNOWN:
                facts = {"kind": "value", "value_kind": kind.value}
        if facts is not None:
            out[name] = facts
    return out


def function_facts(
    ctx, summaries: Summaries, values: Values, func: cst.FunctionDef
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
        "line": ctx.position(func.name).start.line,
        "path": ctx.path,
        "calls_in_loop": _parameters_called_in_loops(ctx, func),
    }
    if (
        not facts["effects"]
        and facts["returns"] == Kind.UNKNOWN.value
        and not facts["mutates"]
        and not facts["calls_in_loop"]
    ):
        return None
    return facts


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


def class_facts(ctx, summaries: Summaries, values: Values, cls: cst.ClassDef) -> Optional[Facts]:
    methods = {}
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef):
            found = function_facts(ctx, summaries, values, stmt)
            if found is not None:
                methods[stmt.name.value] = found
    kind = values.class_kind(cls)
    if not methods and kind is Kind.UNKNOWN:
        return None
    return {
        "kind": "class",
        "value_kind": kind.value,
        "methods": methods,
        "line": ctx.position(cls.name).start.line,
        "path": ctx.path,
    }


def _single(flag: Effect) -> bool:
    return flag.value & (flag.value - 1) == 0
