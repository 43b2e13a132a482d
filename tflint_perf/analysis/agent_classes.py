"""Reinforcement-learning agent classes whose methods run from a loop elsewhere.

An agent class (``class Agent:`` with ``choose_action``, ``learn``,
``store_transition``, an ``epsilon`` or a replay ``memory``) is usually
driven by an episode loop in another file (``main.py``: ``while not done:
action = agent.choose_action(obs); ...; agent.learn()``). Linting one file
cannot see that loop, but the class shape is the evidence: a method of such
a class that nothing in its own module calls is an entry point the loop
calls once per environment step or episode. Asked by TFP201 (an eager
training step in ``learn``) and TFP403 (``predict`` on one observation in
``choose_action``).
"""

from __future__ import annotations

from typing import Dict, List, Optional

from tflint_perf.analysis.api.others import FRAMEWORK_BASE_PREFIXES
from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.loops import enclosing_loops
from tflint_perf.analysis.semantic import ScopeKind, SemanticModel
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.walk import descendants

# Method names that only agents define (an environment loop calls them).
AGENT_METHODS = frozenset(
    {
        "choose_action",
        "select_action",
        "get_action",
        "sample_action",
        "policy_action",
        "act",
        "remember",
        "memorize",
        "store_transition",
        "store_experience",
        "replay",
        "experience_replay",
        "learn",
        "update_target",
        "update_target_model",
        "update_target_network",
        "update_network_parameters",
        "replace_target_network",
        "sample_buffer",
    }
)
# ``self.<attr>`` an agent keeps: exploration rate, discount, replay memory.
AGENT_ATTRIBUTES = frozenset(
    {"epsilon", "eps", "gamma", "memory", "replay_buffer", "replay_memory", "buffer"}
)
ENVIRONMENT_LIBRARIES = ("gym", "gymnasium")
MIN_SIGNALS = 2  # one method name alone (``act``, ``learn``) is too common
MAX_DEPTH = 2  # methods followed back to the entry point the outside loop calls
# Methods Keras calls itself on its subclasses.
FRAMEWORK_HOOKS = frozenset({"train_step", "test_step", "predict_step", "call"})


class AgentClasses:
    """Which classes of the module are RL agents (one per file: ``ctx.shared``)."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self._verdicts: Dict[int, bool] = {}

    def is_agent(self, cls: cst.ClassDef) -> bool:
        key = id(cls)
        if key not in self._verdicts:
            self._verdicts[key] = self._signals(cls) >= MIN_SIGNALS and not self._framework(cls)
        return self._verdicts[key]

    def entry_method(self, func: cst.FunctionDef, depth: int = 0) -> Optional[cst.ClassDef]:
        """The agent class of ``func`` when ``func`` is one of its methods that
        nothing in this module calls (the loop that calls it is elsewhere), or
        that only such methods call (``step()`` calling ``self.learn()``)."""
        name = func.name.value
        cls = self.sem.method_class(func)
        if name.startswith("__") or cls is None or not self.is_agent(cls):
            return None
        if name in FRAMEWORK_HOOKS and any(dotted(b.value) != "object" for b in cls.bases):
            return None  # a base we cannot read may be a Keras model whose fit() calls it
        if self._referenced(func, cls):
            return None
        for call in self._callers(func):
            caller = self._calling_function(call)
            if (
                depth >= MAX_DEPTH
                or caller is None
                or self.sem.method_class(caller) is not cls
                or enclosing_loops(self.ctx, call)
                or self.entry_method(caller, depth + 1) is None
            ):
                return None
        return cls

    def how_reached(self, func: cst.FunctionDef) -> str:
        """Why ``func`` (an entry method) runs from outside, for messages."""
        callers = [self._calling_function(c) for c in self._callers(func)]
        names = list(dict.fromkeys(f"`{c.name.value}()`" for c in callers if c is not None))
        if not names:
            return f"nothing in this module calls `{func.name.value}()`"
        return (
            f"`{func.name.value}()` is called only from {' and '.join(names)}, which nothing "
            "in this module calls"
        )

    def _callers(self, func: cst.FunctionDef) -> List[cst.Call]:
        """The calls of this module that may run ``func``, but its own recursive ones."""
        graph: CallGraph = self.ctx.shared(CallGraph)
        return [c for c in graph.possible_callers(func) if not self.ctx.contains(func, c)]

    def _calling_function(self, call: cst.Call) -> Optional[cst.FunctionDef]:
        """The function whose body makes ``call``; None in a lambda (a callback
        handed on, which runs who knows when) or outside any function."""
        scope = self.sem.scope_of(call)
        while scope.kind is ScopeKind.COMPREHENSION and scope.parent is not None:
            scope = scope.parent
        return scope.function

    def _signals(self, cls: cst.ClassDef) -> int:
        found = set()
        for stmt in cls.body.body:
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value in AGENT_METHODS:
                found.add(stmt.name.value)
        for node in descendants(cls.body):
            if isinstance(node, cst.AssignTarget):
                name = dotted(node.target) or ""
                if name.startswith("self.") and name[5:] in AGENT_ATTRIBUTES:
                    found.add(name)
        if self.ctx.imports.imports_any(*ENVIRONMENT_LIBRARIES):
            found.add("gym")
        return len(found)

    def _framework(self, cls: cst.ClassDef) -> bool:
        """A Keras model or layer, a TF-Agents agent...: the framework calls its methods."""
        return any(
            (self.ctx.qualname(base.value) or "").startswith(FRAMEWORK_BASE_PREFIXES)
            for base in cls.bases
        )

    def _referenced(self, func: cst.FunctionDef, cls: cst.ClassDef) -> bool:
        """``self.learn`` handed on (a callback, a thread target) rather than called."""
        name = func.name.value
        for node in descendants(cls.body):
            if (
                isinstance(node, cst.Attribute)
                and node.attr.value == name
                and dotted(node.value) == "self"
                and not isinstance(self.ctx.parent(node), cst.Call)
            ):
                return True
        return False
