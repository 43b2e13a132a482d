"""How code runs: compiled by ``tf.function`` or eagerly, once or per loop iteration.

Compiled: inside a function decorated with ``tf.function`` (or with any
decorator that may wrap it), a function handed to ``tf.function(...)``,
``common.function(...)`` or ``strategy.run(...)`` anywhere in the module, a
lambda, or a function every caller of which in the module is compiled.

Hot: in a loop of its own function that runs an unknown number of times, or
at least ``MIN_CALLS`` times (``range(5)`` inside ``range(10)`` counts 50),
or in a function called from such a loop (followed through a few calls of
the module; see ``CallGraph``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from tflint_perf.analysis.callgraph import CallGraph
from tflint_perf.analysis.functions import TF_FUNCTION, TfFunctions
from tflint_perf.analysis.loops import (
    IntConstants,
    iterations_here,
    repeating_loops,
    trip_count,
)
from tflint_perf.analysis.steps import decorator_names
from tflint_perf.engine import cst
from tflint_perf.engine.walk import descendants

# Below this many runs (all loops literal), tracing costs more than it saves.
MIN_CALLS = 20
MAX_DEPTH = 3  # calls followed from a function to the loop that calls it
PLAIN_DECORATORS = frozenset({"staticmethod", "classmethod"})
# Methods that hand a function to a distribution strategy, which traces it.
STRATEGY_RUNNERS = frozenset(
    {"run", "experimental_run_v2", "experimental_run", "call_for_each_replica"}
)
_WRAPPER_SUFFIXES = (".function", ".defun", ".to_graph")


@dataclass(frozen=True)
class HotLoop:
    loop: cst.CSTNode  # the loop (or comprehension) that repeats the code
    calls: Tuple[cst.Call, ...]  # calls from the code's function out to that loop, nearest first


class Reach:
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.graph = ctx.shared(CallGraph)
        self.constants = ctx.shared(IntConstants)
        self.tf_functions = ctx.shared(TfFunctions)
        self.wrapped = _names_passed_to_wrappers(ctx)

    # -- compiled ----------------------------------------------------------
    def compiles(self, func: cst.FunctionDef) -> bool:
        """``func`` itself is compiled (or wrapped by a decorator we cannot see through)."""
        if self.tf_functions.is_wrapped_def(func) or func.name.value in self.wrapped:
            return True
        return any(name not in PLAIN_DECORATORS for name in decorator_names(self.ctx, func))

    def compiled(self, node: cst.CSTNode, depth: int = 0) -> bool:
        """Whether ``node`` runs inside a compiled function (never eagerly)."""
        for parent in self.ctx.ancestors_of(node):
            if isinstance(parent, cst.FunctionDef) and self.compiles(parent):
                return True
            if isinstance(parent, cst.Lambda):
                return True
        scope = self.graph.scope_of(node)
        if scope is None or depth >= MAX_DEPTH:
            return False
        calls = self.graph.callers(scope)
        return bool(calls) and all(self.compiled(call, depth + 1) for call in calls)

    # -- hot ---------------------------------------------------------------
    def hot(self, node: cst.CSTNode, depth: int = 0) -> Optional[HotLoop]:
        """The loop that runs ``node`` many times, eagerly; None if none does."""
        count = iterations_here(self.ctx, node, self.constants)
        if count is None or count >= MIN_CALLS:
            loop = self._hot_repeater(node)
            return HotLoop(loop, ()) if loop is not None else None
        scope = self.graph.scope_of(node)
        if scope is None or depth >= MAX_DEPTH:
            return None
        for call in self.graph.callers(scope):
            if self.compiled(call):
                continue
            found = self.hot(call, depth + 1)
            if found is not None:
                return HotLoop(found.loop, (call,) + found.calls)
        return None

    def _hot_repeater(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The innermost loop around ``node`` that alone runs often (or an
        unknown number of times); else the outermost one."""
        found = None
        for loop in repeating_loops(self.ctx, node):
            count = trip_count(loop, self.constants)
            if count is None or count >= MIN_CALLS:
                return loop
            found = loop
        return found


def _names_passed_to_wrappers(ctx) -> set:
    """Names (``step``, ``self.step`` -> ``step``) in the arguments of
    ``tf.function(...)``-like calls and of ``strategy.run(...)``-like calls."""
    out = set()
    for call in ctx.nodes(cst.Call):
        qual = ctx.call_name(call) or ""
        attr = call.func.attr.value if isinstance(call.func, cst.Attribute) else None
        if qual == TF_FUNCTION or (
            qual.startswith(("tensorflow.", "tf_agents.")) and qual.endswith(_WRAPPER_SUFFIXES)
        ):
            args = call.args
        elif attr in STRATEGY_RUNNERS and qual == "" and call.args:
            args = call.args[:1] + tuple(
                a for a in call.args if a.keyword is not None and a.keyword.value == "fn"
            )
        else:
            continue
        for arg in args:
            for node in [arg.value, *descendants(arg.value)]:
                if isinstance(node, cst.Name):
                    out.add(node.value)
                elif isinstance(node, cst.Attribute):
                    out.add(node.attr.value)
    return out
