"""Names bound to TF-Agents agents.

TF-Agents' ``agent.train`` runs eagerly in TF2 unless the caller wraps it
(``agent.train = common.function(agent.train)``); rules that look for it
need to know which names hold an agent.
"""

from __future__ import annotations

from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted


def agent_names(ctx, graph) -> set:
    """Names bound to a TF-Agents agent (``agent = dqn_agent.DqnAgent(...)``,
    an instance of a module class built on ``tf_agents``, an alias of one),
    and parameters named like one (``agent``, ``tf_agent``)."""
    local = {
        name
        for name, cls in graph.classes.items()
        if any((ctx.qualname(b.value) or "").startswith("tf_agents.") for b in cls.bases)
    }
    names: set = {  # TF-Agents code passes the agent around as `agent` / `tf_agent`
        p.name.value for p in ctx.nodes(cst.Param) if p.name.value.lower().endswith("agent")
    }
    for _ in range(3):
        for node in ctx.nodes(cst.Assign):
            if _is_agent(ctx, node.value, local, names):
                names.update(filter(None, (dotted(t.target) for t in node.targets)))
    return names


def _is_agent(ctx, value: cst.BaseExpression, local: set, names: set) -> bool:
    if isinstance(value, cst.Call):
        qual = ctx.call_name(value) or ""
        if qual.startswith("tf_agents.") and qual.endswith("Agent"):
            return True
        return isinstance(value.func, cst.Name) and value.func.value in local
    return dotted(value) in names
