"""TF1 graph growth: ops created where the graph runs, on every step.

In graph mode every op call adds nodes to the default graph and
``sess.run`` only executes them (``Summaries``: GRAPH_GROWTH, RUNS_GRAPH).
A loop that runs the graph and creates ops on every iteration, itself or
through a helper (``tf.assign`` for a target-network copy, ``tf.gradients``,
a ``Saver`` per checkpoint), makes the graph grow with every step and each
run slower. Construction is not growth: a loop of a handful of iterations or
one over layers builds one set of ops per item, once; a graph built before
any run is built once; an op built on the first call only and kept
(``if self.op is None: self.op = ...``, a cache) is built once.

Also: a whole TF1 graph (``tf.Graph()``, a session, placeholders) rebuilt on
every iteration although nothing it is built from changes, and a function
that builds a whole network in the default graph called once per trial.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from tflint_perf.analysis.agent_classes import AGENT_METHODS, AgentClasses
from tflint_perf.analysis.api import Effect, Kind
from tflint_perf.analysis.api.steps import (
    HEAVY_OPS,
    NEW_GRAPHS,
    TF1_GRAPH_PARTS,
    TF1_INITIALIZERS,
)
from tflint_perf.analysis.cadence import every_n, once_per_run, rare_guard
from tflint_perf.analysis.execution import exclusive_branches
from tflint_perf.analysis.exports import defined_in
from tflint_perf.analysis.reach import Reach
from tflint_perf.analysis.steps import tensorflow_alias
from tflint_perf.analysis.trips import Size
from tflint_perf.engine import cst
from tflint_perf.engine.headline import fit_headline
from tflint_perf.engine.names import callee, dotted
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.walk import descendants

from .common import Built, Facts, Item, Loop, describe

GROWS = (
    "The graph grows with every iteration and each `sess.run` gets slower. Create the ops "
    "once, before the loop (feed what changes through a placeholder), and only run them inside."
)
GROWS_NOW_AND_THEN = GROWS.replace("with every iteration", "by a copy each time")
MIN_TRIALS = 3  # as for Keras searches: two graphs left behind do not matter
MIN_COPIES = 100  # copies of ops built now and then that make a graph grow for real
GROWTH_PERIOD = 1000  # steps between copies, the count unknown: a few copies per long run


class GraphGrowth:
    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self.ctx = facts.ctx
        self.rule = facts.rule
        self._reported: Set[cst.CSTNode] = set()
        self._runs: Dict[cst.CSTNode, bool] = {}

    # -- ops created in a loop that runs the graph -------------------------------------------
    def runs_graph(self, loop: Loop) -> bool:
        known = self._runs.get(loop)
        if known is None:
            summaries = self.facts.summaries
            known = self._runs[loop] = any(  # a run on one iteration only is no step loop
                summaries.effects_of(c) & Effect.RUNS_GRAPH and not once_per_run(self.ctx, c, loop)
                for c in self.facts.calls_under(loop.body)
            )
        return known

    def check_loop(self, loop: Loop, items: List[Item]) -> bool:
        """Report ops created on every iteration of a loop that runs the graph, one
        finding per statement; True when the loop grows the graph."""
        facts = self.facts
        if any(i.built is Built.TF1 and i.part in ("graph", "session") for i in items):
            return False  # a new graph per iteration: see check_rebuilt
        ops = [n for n in facts.own_body(loop) if isinstance(n, cst.Call) and self._adds_ops(n)]
        if not self.runs_graph(loop):
            if ops:
                self.rule.silent(
                    ops[0],
                    Reason.RUNS_ONCE,
                    "the loop builds the graph, runs it on one iteration at most",
                )
            return False
        calls = facts.calls_under(loop.body)
        if any(self.ctx.call_name(c) in NEW_GRAPHS for c in calls):
            return False
        if not ops:
            self.rule.silent(loop, Reason.NOT_WORK, "it only runs ops built before it")
            return False
        rare = {op: why for op in ops for why in [self._rarely(loop, op)] if why is not None}
        for op, why in rare.items():  # a few copies over a whole training run
            self.rule.silent(op, Reason.RARELY, f"built now and then: {why}")
        ops = [op for op in ops if op not in rare]
        if not ops:
            return False
        quiet = self._construction_loop(loop)
        varying = facts.varying(loop)
        if quiet is None and self._builds_per_call(loop):
            quiet = Reason.RUNS_ONCE, "one op per item, built on each call of its function"
        if quiet is not None:
            # One set of ops per item is construction; the same op every time is not.
            steps = self._over_steps(loop)
            per_item = [
                op
                for op in ops
                if self._depends(op, varying) and not (steps and self._bakes_results(op, loop))
            ]
            if per_item:  # an initializer built after them covers the new variables
                per_item += [op for op in ops if self.ctx.call_name(op) in TF1_INITIALIZERS]
            for op in per_item:
                self.rule.silent(op, quiet[0], quiet[1])
            ops = [op for op in ops if op not in per_item]
            if not ops:
                return False
        by_statement: Dict[cst.CSTNode, List[cst.Call]] = {}
        for op in ops:
            by_statement.setdefault(facts.sem.statement_of(op), []).append(op)
        for _statement, found in by_statement.items():
            self._report_ops(loop, found)
        return True

    def _rarely(self, loop: Loop, op: cst.Call) -> Optional[str]:
        """Why ``op`` is built on few iterations of ``loop`` (None: on many): under a
        throttle, or a period that leaves fewer than ``MIN_COPIES`` copies over the
        loop's known count (``if i % 100 == 0`` in 9,900 steps: 99), or, the count
        unknown, a period of at least ``GROWTH_PERIOD`` steps."""
        why = rare_guard(self.ctx, op)
        period = every_n(self.ctx, op)
        if why is None or period is None:
            return why
        body = getattr(loop, "body", None)
        count = self.facts.trips.repeats(body).count if body is not None else None
        if count is not None:
            return why if count // period[1] < MIN_COPIES else None
        return why if period[1] >= GROWTH_PERIOD else None

    def _called_hot(self, func: cst.FunctionDef) -> bool:
        """A loop of many iterations runs ``func`` (through any helpers)."""
        hot = self.ctx.shared(Reach).hot(func.body)
        return hot is not None and bool(hot.calls)

    def _adds_ops(self, call: cst.Call) -> bool:
        """A TF op (or a module function that builds ops without running them), or
        a builder the linter cannot read, fetched with ``reuse=True``."""
        summaries = self.facts.summaries
        external = self.facts.graph.external(call)
        if external is not None and external.get("growth_reported"):
            where = f"{defined_in(self.ctx, external)}, line {external.get('line', '?')}"
            self.rule.silent(call, Reason.COVERED, f"reported where it builds the ops ({where})")
            return False
        if summaries.direct_effects(call) & Effect.GRAPH_GROWTH:
            return not self._lazy(call) and not self.facts.reused_variable(call)
        targets = self.facts.graph.resolve(call)
        if targets:
            effects = summaries.effects_of(call)
            return (
                bool(effects & Effect.GRAPH_GROWTH)
                and not effects & Effect.RUNS_GRAPH
                and not any(self._lazy_in(t) for t in targets)
            )
        return self._unseen_builder(call)

    def _judged_in(self, loop: Loop, op: cst.Call) -> bool:
        """The loop that runs ``op`` judges it itself (it runs the graph and is not a
        per-item construction loop of its function)."""
        if not self.runs_graph(loop):
            return False
        return not (self._builds_per_call(loop) and self._depends(op, self.facts.varying(loop)))

    def _depends(self, op: cst.Call, varying: Set[str]) -> bool:
        """The op is built from what changes between iterations (one per item)."""
        return bool(set(self.facts.sem.reads(op)) & varying)

    def _builds_per_call(self, loop: Loop) -> bool:
        """A loop in a function over items that are not data (``for p in self.params``):
        it builds one op per item on each call; whether that grows the graph is for
        the function's callers (``check_helpers``)."""
        return (
            isinstance(loop, cst.For)
            and self.facts.sem.function_of(loop) is not None
            and self.facts.trips.of(loop).size is Size.UNKNOWN
        )

    def _over_steps(self, loop: Loop) -> bool:
        """``for step in range(a, b)``: a count of steps, not the items of a collection
        (``for v in variables``, ``range(len(variables))``)."""
        iterable = loop.iter if isinstance(loop, cst.For) else None
        if not (isinstance(iterable, cst.Call) and dotted(iterable.func) == "range"):
            return False
        return not any(
            isinstance(n, cst.Call) and dotted(n.func) == "len" for n in descendants(iterable)
        )

    def _bakes_results(self, op: cst.Call, loop: Loop) -> bool:
        """The op is built from what a run in the loop returned (``v.assign(norms)``
        with ``norms`` computed from ``sess.run(...)``): each iteration bakes new
        values into the graph as constants, growth however few items there are."""
        sem, summaries = self.facts.sem, self.facts.summaries
        values: Dict[str, List[cst.CSTNode]] = {}
        for binding in sem.bindings_in(loop.body):
            values.setdefault(binding.name, []).append(binding.statement)
        todo: List[str] = list(sem.reads(op))
        seen: Set[str] = set()
        while todo and len(seen) < 40:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            for statement in values.get(name, ()):
                calls = [n for n in descendants(statement) if isinstance(n, cst.Call)]
                if any(summaries.effects_of(c) & Effect.RUNS_GRAPH for c in calls):
                    return True
                todo.extend(sem.reads(statement))
        return False

    def _construction_loop(self, loop: Loop):
        """(reason, detail) for a loop that builds a graph once: a handful of
        iterations, or one set of ops per layer."""
        facts = self.facts
        estimate = facts.trips.repeats(loop.body)  # the loops around it repeat it too
        home = facts.sem.function_of(loop)
        if estimate.size is Size.TINY and (home is None or not self._called_hot(home)):
            return Reason.TINY_LOOP, f"{estimate.why}: one set of ops per item, built once"
        if isinstance(loop, cst.For):
            kinds = {facts.values.binding_kind(b) for b in facts.sem.bindings_of(loop)}
            if Kind.LAYER in kinds:
                return Reason.RUNS_ONCE, "a loop over layers builds one set of ops per layer, once"
        return None

    def _unseen_builder(self, call: cst.Call) -> bool:
        """``sess.run(generator(z, reuse=True))`` where ``generator`` is not a def the
        linter can read (imported, or in a notebook cell that does not parse): a call
        that takes a variable scope's ``reuse`` flag and whose result the session
        fetches builds ops."""
        func = call.func
        if not isinstance(func, cst.Name):
            return False
        if any(b.kind.value != "import" for b in self.facts.sem.lookup_name(func)):
            return False  # a function or value of this module
        if not any(a.keyword is not None and a.keyword.value == "reuse" for a in call.args):
            return False
        arg = self.ctx.parent(call)
        runner = self.ctx.parent(arg) if isinstance(arg, cst.Arg) else None
        return (
            isinstance(runner, cst.Call)
            and bool(self.facts.summaries.effects_of(runner) & Effect.RUNS_GRAPH)
            and arg is runner.args[0]
        )

    def _report_ops(self, loop: Loop, calls: List[cst.Call]) -> None:
        facts = self.facts
        names = list(dict.fromkeys(f"`{callee(c.func)}()`" for c in calls))
        builders = [c for c in calls if facts.graph.resolve(c)]
        shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        verb = (
            "builds new TF1 graph ops"
            if builders and len(names) == 1
            else (
                "adds new ops to the TF1 graph"
                if len(names) == 1
                else "add new ops to the TF1 graph"
            )
        )
        period = every_n(self.ctx, calls[0])
        when = "on every iteration"
        if period is not None:  # a modulo is exact; a counter may step on some iterations only
            counted = "" if "%" in period[0] else " counted"
            when = f"every {period[1]}{counted} iterations"
        headline = fit_headline(
            f"{shown} {verb} {when}: create them once before the loop",
            f"{names[0]} adds ops to the TF1 graph {when}: create them once before the loop",
            f"{names[0]} adds TF1 ops {when}: create them once before the loop",
            f"new TF1 ops {when}: create them once before the loop",
        )
        count = facts.trips.repeats(loop.body).count
        copies = "" if period is None or count is None else f" ({count // period[1]:,} copies)"
        detail = (
            f"{shown} {verb} {when} of the loop at {facts.line(loop)}, which runs "
            f"the graph{copies}. {GROWS if period is None else GROWS_NOW_AND_THEN}"
        )
        self.rule.report(calls[0], message=headline, detail=detail)

    # -- helpers that build ops and run them, called per step ---------------------------------
    def check_helpers(self) -> None:
        """A function that builds ops and runs the graph on every call (itself or
        through what it calls), run by a loop (through any helpers) or by an agent's
        environment loop in another module: the default graph grows per call."""
        facts = self.facts
        reach = self.ctx.shared(Reach)
        for func in self.ctx.nodes(cst.FunctionDef):
            ops = [  # ops in a loop that runs the graph are judged with that loop
                c
                for c in facts.graph.calls_in(func)
                if facts.summaries.direct_effects(c) & Effect.GRAPH_GROWTH
                and not any(self._judged_in(loop, c) for loop in facts.sem.loops_around(c))
            ]
            if not ops:
                continue
            effects = facts.summaries.of(func).effects
            if not effects & Effect.RUNS_GRAPH or effects & Effect.RESETS:
                continue
            if any(self.ctx.call_name(c) in NEW_GRAPHS for c in facts.graph.calls_in(func)):
                self.rule.silent(ops[0], Reason.DELIBERATE, "it builds in a graph of its own")
                continue
            eager = [op for op in ops if not self._lazy(op)]
            if not eager:
                self.rule.silent(
                    ops[0], Reason.RUNS_ONCE, "its ops are built on the first call only"
                )
                continue
            runs = [
                c
                for c in facts.graph.calls_in(func)
                if facts.summaries.effects_of(c) & Effect.RUNS_GRAPH
            ]
            if runs and all(exclusive_branches(self.ctx, op, r) for op in eager for r in runs):
                self.rule.silent(
                    eager[0],
                    Reason.OTHER_BRANCH,
                    "one branch builds the ops, another runs the graph: no call does both",
                )
                continue
            parts = {TF1_GRAPH_PARTS.get(self.ctx.call_name(c) or "") for c in eager}
            if parts & {"placeholder", "variable"}:
                self._trial(func, parts)  # a whole network per call
                continue
            hot = reach.hot(func.body)
            if hot is not None and hot.calls:
                rare = {o: w for o in eager for w in [self._rarely(hot.loop, o)] if w is not None}
                for op, why in rare.items():
                    self.rule.silent(op, Reason.RARELY, f"built now and then: {why}")
                eager = [op for op in eager if op not in rare]
                if eager:
                    self._judge_helper(func, eager, hot.loop, hot.calls)
                continue
            agent = self.ctx.shared(AgentClasses).entry_method(func)
            periodic = self._periodic_caller(func)
            if agent is not None and self._per_step(func):
                self._report_helper(func, eager, None, (), agent)
            elif periodic is not None:  # every 100 of 30,000 steps: 300 copies
                self._judge_helper(func, eager, periodic[0], (periodic[1],))
            else:
                self._quiet_helper(func, eager[0])

    def _periodic_caller(self, func: cst.FunctionDef) -> Optional[Tuple[Loop, cst.Call]]:
        """A loop that calls ``func`` now and then, but often enough over its count to
        leave ``MIN_COPIES`` copies or more (what ``_rarely`` tells for an op in it)."""
        for call in self.facts.graph.callers(func):
            loops = self.facts.sem.loops_around(call)
            if not loops or rare_guard(self.ctx, call) is None or not self.runs_graph(loops[0]):
                continue
            if self._rarely(loops[0], call) is None:
                return loops[0], call
        return None

    def _quiet_helper(self, func: cst.FunctionDef, op: cst.Call) -> None:
        guards = (rare_guard(self.ctx, call) for call in self.facts.graph.callers(func))
        rare = next((g for g in guards if g is not None), None)
        if rare is not None:
            self.rule.silent(op, Reason.RARELY, f"a loop calls it now and then: {rare}")
        else:
            self.rule.silent(op, Reason.RUNS_ONCE, "no loop runs it many times")

    def _per_step(self, func: cst.FunctionDef, depth: int = 0) -> bool:
        """An agent method an environment loop calls every step (``learn``, ``act``,
        or one they call), not one it calls once (``load``, ``save``)."""
        if func.name.value in AGENT_METHODS:
            return True
        graph, sem = self.facts.graph, self.facts.sem
        return depth < 2 and any(
            self._per_step(caller, depth + 1)
            for call in graph.callers(func)
            for caller in [sem.function_of(call)]
            if caller is not None and caller is not func
        )

    def _trial(self, func: cst.FunctionDef, parts) -> None:
        """A function that builds a network in the default graph, called once per
        iteration of a loop of at least ``MIN_TRIALS`` trials that keeps the graph."""
        facts = self.facts
        for call in facts.graph.callers(func):
            loops = facts.sem.loops_around(call)
            if not loops:
                continue
            loop = loops[0]
            if any(self.ctx.call_name(c) in NEW_GRAPHS for c in facts.calls_under(loop.body)):
                self.rule.silent(call, Reason.DELIBERATE, "each iteration starts a new graph")
                continue
            estimate = facts.trips.repeats(call)  # every loop around the call
            if estimate.count is not None and estimate.count < MIN_TRIALS:
                self.rule.silent(call, Reason.TINY_LOOP, estimate.why)
                continue
            self._report_trial(func, parts, call, loop)
            return

    def _judge_helper(self, func, ops: List[cst.Call], loop, calls) -> None:
        facts = self.facts
        if any(self.ctx.call_name(c) in NEW_GRAPHS for c in facts.calls_under(loop.body)):
            self.rule.silent(ops[0], Reason.DELIBERATE, "each iteration starts a new graph")
            return
        if isinstance(loop, (cst.For, cst.While)):
            quiet = self._construction_loop(loop)
            if quiet is not None:
                self.rule.silent(ops[0], quiet[0], quiet[1])
                return
        self._report_helper(func, ops, loop, calls, None)

    def _report_helper(self, func, ops: List[cst.Call], loop, calls, agent) -> None:
        facts = self.facts
        anchor = next((c for c in ops if self.ctx.call_name(c) in HEAVY_OPS), None)
        anchor = anchor or next(
            (c for c in ops if "Optimizer" in (self.ctx.call_name(c) or "")), ops[0]
        )
        if anchor in self._reported:
            return
        self._reported.add(anchor)
        name = func.name.value
        names = list(dict.fromkeys(f"`{callee(c.func)}()`" for c in ops))
        shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        headline = fit_headline(
            f"`{name}()` adds new TF1 ops ({shown}) on every call: create them once outside it",
            f"`{name}()` adds new ops to the TF1 graph on every call: create them once outside it",
        )
        if agent is not None:
            how = self.ctx.shared(AgentClasses).how_reached(func)
            where = (
                f"`{name}()` is a method of agent `{agent.name.value}`; {how}, so the "
                "environment loop in another module runs it every step"
            )
        else:
            chain = " <- ".join(f"`{callee(c.func)}()` ({facts.line(c)})" for c in calls)
            where = f"the loop at {facts.line(loop)} calls it through {chain}"
        init = " (in `__init__`)" if facts.sem.method_class(func) is not None else ""
        detail = (
            f"`{name}()` builds {shown} and runs the graph on every call, and {where}. "
            + GROWS.replace("before the loop", f"outside `{name}()`{init}").replace(
                "every iteration", "every call"
            )
        )
        self.rule.report(anchor, message=headline, detail=detail)

    def _report_trial(self, func, parts, site: cst.Call, loop) -> None:
        name = func.name.value
        kinds = " and ".join(f"{k}s" for k in sorted(p for p in parts if p))
        tf = tensorflow_alias(self.ctx) or "tf"
        if "compat.v1" in self.ctx.source:
            tf += ".compat.v1"
        headline = fit_headline(
            f"`{name}()` builds a new TF1 graph per call: call `{tf}.reset_default_graph()` per trial",
            f"a new TF1 graph per call of `{name}()`: reset the default graph per trial",
        )
        detail = (
            f"`{name}()` builds a new TF1 graph ({kinds}) in the default graph on every call, and "
            f"the loop at {self.facts.line(loop)} calls it once per iteration: the default graph "
            f"keeps every copy and grows from trial to trial. Call `{tf}.reset_default_graph()` "
            f"at the start of each iteration, or build each one in `with {tf}.Graph().as_default():`."
        )
        self.rule.report(site, message=headline, detail=detail)

    # -- a whole TF1 graph rebuilt per iteration ----------------------------------------------
    def check_rebuilt(self, loop: Loop, items: List[Item]) -> None:
        facts = self.facts
        tf1 = [i for i in items if i.built is Built.TF1]
        if not tf1 or all(i.part == "variable" for i in tf1):
            return
        if facts.trips.repeats(tf1[0].node).size is Size.TINY:
            self.rule.silent(tf1[0].node, Reason.TINY_LOOP, "the loops around it are tiny")
            return
        varying = facts.varying(loop)
        if not all(facts.independent(i, varying) for i in tf1) or not self._targets_only_fed(loop):
            self.rule.silent(tf1[0].node, Reason.DELIBERATE, "built from what changes in the loop")
            return
        first, _ = describe(tf1, facts)
        headline = fit_headline(
            "a TF1 graph and session rebuilt on every iteration: build them once, feed the data",
        )
        detail = (
            f"Rebuilt on every iteration of the loop at {facts.line(loop)}: {first}. Build the "
            "graph and session once before the loop and feed each iteration's data through "
            "`feed_dict`."
        )
        self.rule.report(tf1[0].node, message=headline, detail=detail)

    def _targets_only_fed(self, loop: Loop) -> bool:
        """The loop variables reach the graph only through what is run (``feed_dict``)."""
        if not isinstance(loop, cst.For):
            return True
        targets = {b.name for b in self.facts.sem.bindings_of(loop)}
        fed: Set[int] = set()
        for call in self.facts.calls_under(loop.body):
            if self.facts.summaries.effects_of(call) & Effect.RUNS_GRAPH:
                for arg in call.args:
                    fed.update(id(n) for n in [arg.value, *descendants(arg.value)])
        for node in descendants(loop.body, skip_scopes=True):
            if isinstance(node, cst.Name) and node.value in targets and id(node) not in fed:
                return False
        return True

    # -- built once and kept -------------------------------------------------------------------
    def _lazy(self, call: cst.Call) -> bool:
        return self.facts.lazy(call)

    def _lazy_in(self, func: cst.FunctionDef) -> bool:
        summaries = self.facts.summaries
        ops = [
            c
            for c in self.facts.graph.calls_in(func)
            if summaries.direct_effects(c) & Effect.GRAPH_GROWTH
        ]
        return bool(ops) and all(self._lazy(op) for op in ops)
