"""Is a model a stateful RNN (``stateful=True``), which fixes its batch size?"""

from __future__ import annotations

from typing import List

from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.semantic import BindingKind, SemanticModel
from tflint_perf.engine import cst
from tflint_perf.engine.nodes import is_true
from tflint_perf.engine.walk import descendants


def stateful_model(ctx, model: cst.BaseExpression) -> bool:
    """Where ``model`` is built (its value, the function of the module that
    builds it, the layers ``model.add`` gives it), a layer is ``stateful=True``."""
    sem: SemanticModel = ctx.shared(SemanticModel)
    graph: CallGraph = ctx.shared(CallGraph)
    regions: List[cst.CSTNode] = []
    for binding in sem.lookup_name(model) if isinstance(model, (cst.Name, cst.Attribute)) else []:
        value = binding.value
        if binding.plain and isinstance(value, cst.Call):
            regions.append(value)
            regions += [func.body for func in graph.resolve(value)]
    name = model.value if isinstance(model, cst.Name) else None
    for binding in sem.definitions(name, sem.scope_of(model)) if name else []:
        if binding.kind is BindingKind.MUTATION and isinstance(binding.value, cst.Call):
            regions.append(binding.value)  # model.add(LSTM(..., stateful=True))
    return any(_stateful_in(region) for region in regions)


def _stateful_in(region: cst.CSTNode) -> bool:
    for node in [region, *descendants(region)]:
        if (
            isinstance(node, cst.Arg)
            and node.keyword is not None
            and node.keyword.value == "stateful"
            and is_true(node.value)
        ):
            return True
    return False
