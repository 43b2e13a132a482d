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
from typing import Iterator, List, Optional, Set, Tuple

from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.scopes import first_param
from tflint_perf.analysis.semantic import SemanticModel
from tflint_perf.analysis.trips import Trips
from tflint_perf.engine import cst
from tflint_perf.engine.walk import descendants

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
    receiver = first_param(func) if sem.method_class(func) is not None else None
    state = _attributes(func, receiver) if receiver in inputs else set()
    if not shared and not state:
        return
    changed = {b.name.split(".", 1)[0] for b in sem.bindings_in(func)} & declared & shared
    fed_back = tuple(sorted(changed & sem.derived(func, node)))
    trips: Trips = ctx.shared(Trips)
    for site, path in _callers_up(ctx, func, node):
        loop = trips.loops_around(site)[0]
        varies = bool(changed or shared & sem.varying(loop))
        if state and not varies and len(path) == 2:
            moved, fed = _attributes_changed(ctx, sem, site, loop)
            varies = bool(state & moved)
            fed_back = fed_back or tuple(f"{receiver}.{a}" for a in sorted(state & fed))
        yield LoopRun(site, loop, path, varies, fed_back)


def _attributes(func: cst.FunctionDef, receiver: Optional[str]) -> Set[str]:
    """The attributes of the instance a method reads (``self.state``): state it
    shares with the methods of the same object that call it."""
    return {
        node.attr.value
        for node in descendants(func, skip_scopes=True)
        if isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == receiver
    }


def _attributes_changed(ctx, sem: SemanticModel, site: cst.Call, loop) -> Tuple[Set[str], Set[str]]:
    """The attributes of the object whose method ``site`` calls (``self.act()``,
    in a method of the same object) that ``loop`` changes: in its body, or in
    the methods of that object it calls there (one level down); and those of
    them a method changes from what ``site`` returned (``self.observe(obs)``
    after ``obs = env.step(self.act())``: each step's input comes from the last)."""
    caller = sem.function_of(site)
    receiver = first_param(caller) if sem.method_class(caller) is not None else None
    func = site.func
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
        return set(), set()
    if receiver is None or func.value.value != receiver:
        return set(), set()
    graph: CallGraph = ctx.shared(CallGraph)
    from_site = sem.derived(loop, site)
    regions: List[Tuple[cst.CSTNode, Optional[str], bool]] = [(loop, receiver, False)]
    for call in descendants(loop, skip_scopes=True):
        if isinstance(call, cst.Call) and receiver in sem.reads(call.func)[:1]:
            fed = any(
                set(sem.reads(a.value)) & from_site or ctx.contains(a.value, site)
                for a in call.args
            )
            regions += [(m, first_param(m), fed) for m in graph.resolve(call) if m is not caller]
    moved: Set[str] = set()
    fed_back: Set[str] = set()
    for region, name, fed in regions:
        for binding in sem.bindings_in(region):
            head, _, attr = binding.name.partition(".")
            if head == name and attr and "." not in attr:
                moved.add(attr)
                if fed:
                    fed_back.add(attr)
    return moved, fed_back


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
