"""Values that are TF-Agents agents.

TF-Agents' ``agent.train`` runs eagerly in TF2 unless the caller wraps it
(``agent.train = common.function(agent.train)``); rules that look for it
need to know which expressions hold an agent.
"""

from __future__ import annotations

from tflint_perf.analysis.api.steps import AGENT_PARAMETER_SUFFIX
from tflint_perf.analysis.semantic import BindingKind, SemanticModel
from tflint_perf.analysis.values import Values
from tflint_perf.engine import cst

_ROOT = "tf_agents."
_DEPTH = 4


class TfAgents:
    """One per file (``ctx.shared``)."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self.values: Values = ctx.shared(Values)

    def is_agent(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """``agent = dqn_agent.DqnAgent(...)``, an instance of a module class built on
        ``tf_agents``, an alias of one, or a parameter named like one (``tf_agent``)."""
        if depth > _DEPTH or not isinstance(expr, (cst.Name, cst.Attribute)):
            return False
        for binding in self.sem.lookup_name(expr):
            if binding.kind is BindingKind.PARAMETER:
                if binding.name.lower().endswith(AGENT_PARAMETER_SUFFIX):
                    return True
            elif binding.plain and self._agent_value(binding.value, depth):
                return True
        return False

    def _agent_value(self, value, depth: int) -> bool:
        if isinstance(value, cst.Call):
            qual = self.ctx.call_name(value) or ""
            if qual.startswith(_ROOT) and qual.endswith("Agent"):
                return True
            cls = self.values.class_called(value)
            return cls is not None and any(
                (self.ctx.qualname(b.value) or "").startswith(_ROOT)
                for each in self.sem.class_and_bases(cls)
                for b in each.bases
            )
        return self.is_agent(value, depth + 1)
