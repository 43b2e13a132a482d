"""Functions run once per iteration of a loop elsewhere, fed through shared names.

A loop's body is often moved into a function of its own that takes no data
parameter: it reads its input from names it shares with the code that calls
it (module or enclosing names, ``global``/``nonlocal`` ones), and a loop of a
caller runs it once per iteration. ``loop_runs`` finds those loops (through
functions that call it outside any loop too) and whether the input changes
from one call to the next: because the loop changes the shared names, or
because the function rebinds them itself (then from what).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, List, Set, Tuple

from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.semantic import SemanticModel
from tflint_perf.analysis.trips import Trips
from tflint_perf.engine import cst

MAX_DEPTH = 4  # callers followed up from the function holding the node


@dataclass(frozen=True)
class LoopRun:
    site: cst.Call  # the call, in a loop, that runs the function
    loop: cst.CSTNode  # that loop
    path: Tuple[cst.Call, ...]  # the calls from ``site`` down to the node
    varies: bool  # the shared input differs from one call to the next
    fed_back: Tuple[str, ...]  # shared names the function rebinds from the node's result


def loop_runs(ctx, node: cst.Call, expr: cst.CSTNode) -> Iterator[LoopRun]:
    """Loops that run ``node`` (not in a loop itself) once per iteration, when
    ``expr`` (its input) comes from names the function shares with its callers."""
    sem: SemanticModel = ctx.shared(SemanticModel)
    func = sem.function_of(node)
    if func is None:
        return
    scope = sem.scope(func)
    declared = scope.globals | scope.nonlocals
    inputs = sem.computed_from(func, expr)
    shared = {n for n in inputs if n in declared or n not in scope.bindings}
    if not shared:
        return
    changed = {b.name.split(".", 1)[0] for b in sem.bindings_in(func)} & declared & shared
    fed_back = tuple(sorted(changed & sem.derived(func, node)))
    trips: Trips = ctx.shared(Trips)
    for site, path in _callers_up(ctx, func, node):
        loop = trips.loops_around(site)[0]
        varies = bool(changed or shared & sem.varying(loop))
        yield LoopRun(site, loop, path, varies, fed_back)


def _callers_up(ctx, func, node) -> Iterator[Tuple[cst.Call, Tuple[cst.Call, ...]]]:
    graph: CallGraph = ctx.shared(CallGraph)
    sem: SemanticModel = ctx.shared(SemanticModel)
    trips: Trips = ctx.shared(Trips)
    seen: Set[cst.CSTNode] = {func}
    frontier: List[Tuple[cst.FunctionDef, Tuple[cst.Call, ...]]] = [(func, (node,))]
    for _ in range(MAX_DEPTH):
        following = []
        for callee, path in frontier:
            for site in graph.callers(callee):
                if ctx.contains(callee, site):
                    continue  # recursion
                if trips.loops_around(site):
                    yield site, (site,) + path
                    continue
                outer = sem.function_of(site)
                if outer is not None and outer not in seen:
                    seen.add(outer)
                    following.append((outer, (site,) + path))
        frontier = following
