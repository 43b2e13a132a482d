"""How code runs: compiled by ``tf.function`` or eagerly, once or per loop iteration.

Compiled: inside a function decorated with ``tf.function`` (or with any
decorator that may wrap it), a function handed to a compiling wrapper
(``tf.function(step)``, ``common.function(agent.train)``) or to
``strategy.run(step)`` anywhere in the module, a lambda, or a function every
caller of which in the module is compiled.

Hot: run more than a handful of times (``Trips``: loops around it that are
not tiny, all together) and on every iteration (not under ``if step % 500
== 0``: ``cadence.py``), in its own function or, through the call graph
(helpers, ``self.method()``, overrides, callables passed as arguments), in
a function that calls it from such a loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Set, Tuple

from tflint_perf.analysis import api
from tflint_perf.analysis.api import Kind
from tflint_perf.analysis.api.steps import PLAIN_DECORATORS, STRATEGY_RUNNERS
from tflint_perf.analysis.cadence import rare_guard
from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.semantic import SemanticModel
from tflint_perf.analysis.trips import Size, Trips
from tflint_perf.analysis.values import Values
from tflint_perf.engine import cst

MAX_DEPTH = 3  # calls followed from a function to the loop that calls it


@dataclass(frozen=True)
class HotLoop:
    loop: cst.CSTNode  # the loop (or comprehension) that repeats the code
    calls: Tuple[cst.Call, ...]  # calls from the code's function out to that loop, nearest first


class Reach:
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self.values: Values = ctx.shared(Values)
        self.graph: CallGraph = ctx.shared(CallGraph)
        self.trips: Trips = ctx.shared(Trips)
        self._wrappers: Optional[Dict[cst.FunctionDef, cst.CSTNode]] = None
        self._strategy: Optional[Set[cst.FunctionDef]] = None

    # -- compiled ----------------------------------------------------------
    def wrapper(self, func: cst.FunctionDef) -> Optional[cst.CSTNode]:
        """The ``@tf.function`` decorator of ``func``, or the call that compiles
        it (``step = tf.function(step)``), if any."""
        for decorator in func.decorators:
            if self._compiling(decorator.decorator):
                return decorator
        if self._wrappers is None:
            self._wrappers = {}
            for call in self.ctx.nodes(cst.Call):
                if self._compiling(call) and call.args:
                    for target in self.graph.refers_to(call.args[0].value):
                        self._wrappers.setdefault(target, call)
        return self._wrappers.get(func)

    def wrapped_methods(self) -> Set[str]:
        """Method names handed to a compiling wrapper on an object the module does
        not define (``agent.train = common.function(agent.train)``)."""
        out: Set[str] = set()
        for call in self.ctx.nodes(cst.Call):
            if self._compiling(call) and call.args:
                arg = call.args[0].value
                if isinstance(arg, cst.Attribute):
                    out.add(arg.attr.value)
        return out

    def _compiling(self, expr: cst.BaseExpression) -> bool:
        """``tf.function``, ``tf.function(...)`` (with options), ``common.function``..."""
        target = expr.func if isinstance(expr, cst.Call) else expr
        return api.returns(self.ctx.qualname(target)) is Kind.TF_FUNCTION

    def compiles(self, func: cst.FunctionDef) -> bool:
        """``func`` itself is compiled (or wrapped by a decorator we cannot see through)."""
        if self.wrapper(func) is not None or func in self._strategy_functions():
            return True
        for decorator in func.decorators:
            target = decorator.decorator
            target = target.func if isinstance(target, cst.Call) else target
            if not (isinstance(target, cst.Name) and target.value in PLAIN_DECORATORS):
                return True
        return False

    def _strategy_functions(self) -> Set[cst.FunctionDef]:
        """Functions handed to ``strategy.run(fn, ...)`` (the strategy traces them)."""
        if self._strategy is None:
            self._strategy = set()
            for call in self.ctx.nodes(cst.Call):
                func = call.func
                if not (isinstance(func, cst.Attribute) and func.attr.value in STRATEGY_RUNNERS):
                    continue
                if self.ctx.call_name(call) is not None or not call.args:
                    continue  # subprocess.run(...): a module function, not a strategy
                handed = [call.args[0]] + [
                    a for a in call.args if a.keyword is not None and a.keyword.value == "fn"
                ]
                for arg in handed:
                    self._strategy.update(self.graph.refers_to(arg.value))
        return self._strategy

    def compiled(self, node: cst.CSTNode, depth: int = 0) -> bool:
        """Whether ``node`` runs inside a compiled function (never eagerly)."""
        for parent in self.ctx.ancestors_of(node):
            if isinstance(parent, cst.FunctionDef) and self.compiles(parent):
                return True
            if isinstance(parent, cst.Lambda):
                return True
        scope = self.sem.function_of(node)
        if scope is None or depth >= MAX_DEPTH:
            return False
        calls = self.graph.callers(scope)
        return bool(calls) and all(self.compiled(call, depth + 1) for call in calls)

    # -- hot ---------------------------------------------------------------
    def hot(self, node: cst.CSTNode, depth: int = 0) -> Optional[HotLoop]:
        """The loop that runs ``node`` many times, eagerly; None if none does."""
        if rare_guard(self.ctx, node) is not None:
            return None  # every 500 steps, once per epoch: not per iteration
        if self.trips.repeats(node).size is not Size.TINY:
            loop = self._repeater(node)
            return HotLoop(loop, ()) if loop is not None else None
        scope = self.sem.function_of(node)
        if scope is None or depth >= MAX_DEPTH:
            return None
        for call in self.graph.callers(scope):
            if self.compiled(call) or self.ctx.contains(scope, call):
                continue
            found = self.hot(call, depth + 1)
            if found is not None:
                return HotLoop(found.loop, (call,) + found.calls)
        return None

    def in_a_loop(self, node: cst.CSTNode, depth: int = 0) -> bool:
        """Whether any loop runs ``node``, itself or through the calls that lead to
        it (however few times: to tell a tiny loop from none)."""
        if self.trips.loops_around(node):
            return True
        scope = self.sem.function_of(node)
        if scope is None or depth >= MAX_DEPTH:
            return False
        return any(
            self.in_a_loop(call, depth + 1)
            for call in self.graph.callers(scope)
            if not self.ctx.contains(scope, call)
        )

    def _repeater(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The innermost loop around ``node`` that alone runs more than a
        handful of times (or an unknown number of times); else the outermost one."""
        found = None
        for loop in self.trips.loops_around(node):
            if self.trips.of(loop).size is not Size.TINY:
                return loop
            found = loop
        return found
