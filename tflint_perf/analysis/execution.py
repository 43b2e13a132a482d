"""Execution order: what a flow runs before what, and when the runtime starts.

Shared by the rules about configuration that must happen before the
TensorFlow runtime (or the CUDA driver) starts: device configuration
(TFP301) and GPU environment variables (TFP303).

A *flow* is the module body or one function body, read top to bottom;
compound statements are entered in source order (the header before the
body); nested ``def``/``class``/``lambda`` bodies are not (they run when
called). A call counts where it is made, with everything the functions it
runs do: the summaries' effects (``Effect.INITS_RUNTIME`` and its kin,
through any depth of helpers, methods, and callables passed as arguments)
say whether it starts the runtime, and the flows of the functions it runs
say whether it reaches a target.

``RuntimeStarts`` says whether a node starts the runtime (from the API
table, through the summaries; in TF1 graph code creating tensors builds a
graph, and only the calls that create the devices count). ``FlowChecker``
lists every target a flow reaches with the first start before it.
``hoist_fix`` moves a late statement above the start when that provably
keeps the program's meaning.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Set, Tuple

from tflint_perf.analysis import api
from tflint_perf.analysis.api import Effect, Kind, others, tensorflow
from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.semantic import BindingKind, SemanticModel
from tflint_perf.analysis.summaries import Summaries
from tflint_perf.analysis.tf_version import TfStyle
from tflint_perf.analysis.values import Values
from tflint_perf.engine import cst
from tflint_perf.engine.headline import clip_code
from tflint_perf.engine.names import dotted, statement_blocks
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.walk import descendants

# What starts the runtime, most telling first (the one a message names).
START_EFFECTS = (
    Effect.INITS_DEVICES,
    Effect.INITS_RUNTIME,
    Effect.SESSION_DEVICES,
    Effect.STARTS_CUDA,
)
RUNTIME = Effect.INITS_RUNTIME | Effect.INITS_DEVICES
_ITERATED = (Kind.DATASET, Kind.ITERATOR)

# A position in nested statement lists: ((block, index), ...) from the flow root.
Chain = Tuple[Tuple[tuple, int], ...]


@dataclass(frozen=True)
class Start:
    """A node that starts the runtime (or the CUDA driver, or a session's devices)."""

    node: cst.CSTNode  # a call, or a ``for`` loop over a dataset
    effect: Effect  # which start
    path: Tuple[cst.CSTNode, ...]  # calls from ``node`` down to the one that does it


class RuntimeStarts:
    """Per file (``ctx.shared(RuntimeStarts)``): does a node start the runtime?"""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.summaries: Summaries = ctx.shared(Summaries)
        self.values: Values = ctx.shared(Values)
        # TF1 graph code: tensors, datasets and models build a graph.
        self.graph_mode = ctx.shared(TfStyle).graph_mode

    def effects(self, node: cst.CSTNode) -> Effect:
        """The starts ``node`` makes itself (a call through its callees, a loop's iteration)."""
        if isinstance(node, cst.Call):
            found = self.summaries.effects_of(node)
        elif self.iterates_a_dataset(node):
            found = Effect.INITS_RUNTIME  # iterating a dataset runs its pipeline
        else:
            return Effect.NONE
        if self.graph_mode:  # only the calls that create the devices start it
            found &= ~Effect.INITS_RUNTIME
        return found

    def iterates_a_dataset(self, node: cst.CSTNode) -> bool:
        """``for x in ds:`` or ``[f(x) for x in ds]`` (a generator runs later)."""
        if isinstance(node, cst.CompFor):
            if isinstance(self.ctx.parent(node), cst.GeneratorExp):
                return False
        elif not isinstance(node, cst.For):
            return False
        return self.values.kind(node.iter) in _ITERATED

    def start(self, node: cst.CSTNode, counted: Effect) -> Optional[Start]:
        found = self.effects(node) & counted
        for effect in START_EFFECTS:
            if found & effect:
                path = self.summaries.path_to(node, effect) if isinstance(node, cst.Call) else ()
                return Start(node, effect, path or (node,))
        return None

    def describe(self, start: Start) -> str:
        """```tf.constant()```, ```build()`` (``keras.Sequential()`` inside)``,
        ``iterating `ds```."""
        if isinstance(start.node, (cst.For, cst.CompFor)):
            return f"iterating `{_clip(self.ctx.code(start.node.iter))}`"
        shown = _call_text(self.ctx, start.path[0])
        if len(start.path) > 1:
            shown += f" ({_call_text(self.ctx, start.path[-1])} inside)"
        return shown

    def chain(self, start: Start) -> str:
        """``main()` -> `build()` -> `keras.Sequential()``: the calls to the start."""
        return " -> ".join(_call_text(self.ctx, node, width=60) for node in start.path)

    def is_reset(self, node: cst.CSTNode) -> bool:
        """A call that starts the eager runtime over (test suites do)."""
        return self.ctx.call_name(node) in tensorflow.RUNTIME_RESETS


def _call_text(ctx, node: cst.CSTNode, width: int = 40) -> str:
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
        if node.func.value in others.ITERATING_BUILTINS:  # list(ds): name the dataset
            return f"`{_clip(ctx.code(node), width)}`"
    if isinstance(node, cst.Call):
        return f"`{_clip(dotted(node.func) or ctx.code(node.func), width)}()`"
    return f"`{_clip(ctx.code(node), width)}`"


def _clip(text: str, width: int = 40) -> str:
    return clip_code(text, width)


@dataclass
class Reached:
    """A target a flow reaches, with the first start before it in that flow."""

    target: cst.CSTNode  # the target, or the call into a function that reaches one
    chain: Chain
    start: Optional[Start] = None  # None: nothing started the runtime before it
    start_chain: Chain = ()
    via: Optional[cst.FunctionDef] = None  # the function the call runs ...
    via_target: Optional[cst.CSTNode] = None  # ... and the target inside it
    reset: Optional[cst.CSTNode] = None  # a runtime reset before it (after any start)

    @property
    def setter(self) -> cst.CSTNode:
        """The node that does the late thing (where the finding goes)."""
        return self.via_target if self.via_target is not None else self.target


class FlowChecker:
    """Every target (a configuration call, an environment setting) each flow
    reaches, directly or through the functions it calls."""

    def __init__(self, ctx, counted: Effect, is_target: Callable[[cst.CSTNode], bool]) -> None:
        self.ctx = ctx
        self.counted = counted
        self.is_target = is_target
        self.starts: RuntimeStarts = ctx.shared(RuntimeStarts)
        self.graph: CallGraph = ctx.shared(CallGraph)
        self._first_target: Dict[cst.FunctionDef, Optional[cst.CSTNode]] = {}
        self._in_progress: Set[cst.FunctionDef] = set()

    def reached(self) -> List[Reached]:
        found: List[Reached] = []
        self._flow(tuple(self.ctx.module.body), found)
        for func in self.ctx.nodes(cst.FunctionDef):
            self._flow(tuple(func.body.body), found)
        return found

    # -- one flow -------------------------------------------------------------
    def _flow(self, block: tuple, found: Optional[List[Reached]]) -> Optional[cst.CSTNode]:
        """Walk a flow, appending what it reaches to ``found``; the first target
        node it reaches (inside the functions it calls too)."""
        state: dict = {"start": None, "chain": (), "reset": None, "first": None}
        self._block(block, (), state, found)
        return state["first"]

    def _block(self, block: tuple, chain: Chain, state: dict, found) -> None:
        for index, stmt in enumerate(block):
            here = chain + ((block, index),)
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                continue
            if isinstance(stmt, cst.SimpleStatementLine):
                self._event(stmt, here, state, found)
                continue
            for node in _header_nodes(stmt):
                self._event(node, here, state, found)
            if isinstance(stmt, cst.For):
                self._start(stmt, here, state)
            for inner in statement_blocks(stmt):
                self._block(tuple(inner), here, state, found)

    def _event(self, root: cst.CSTNode, chain: Chain, state: dict, found) -> None:
        for node in [root, *descendants(root, skip_scopes=True)]:
            if self.is_target(node):
                self._reach(node, chain, state, found, None, None)
                continue
            if isinstance(node, cst.CompFor):
                self._start(node, chain, state)
            if not isinstance(node, cst.Call):
                continue
            for func in self.graph.resolve(node):
                inner = self._target_in(func)
                if inner is not None:
                    self._reach(node, chain, state, found, func, inner)
                    break
            if self.starts.is_reset(node):
                state["start"], state["reset"] = None, node
                continue
            self._start(node, chain, state)

    def _start(self, node: cst.CSTNode, chain: Chain, state: dict) -> None:
        if state["start"] is None:
            start = self.starts.start(node, self.counted)
            if start is not None:
                state["start"], state["chain"] = start, chain

    def _reach(self, node, chain: Chain, state: dict, found, via, via_target) -> None:
        if state["first"] is None:
            state["first"] = via_target if via_target is not None else node
        if found is not None:
            found.append(
                Reached(
                    node, chain, state["start"], state["chain"], via, via_target, state["reset"]
                )
            )

    def _target_in(self, func: cst.FunctionDef) -> Optional[cst.CSTNode]:
        """The first target ``func``'s flow reaches (through its own calls too)."""
        if func in self._first_target:
            return self._first_target[func]
        if func in self._in_progress:  # recursion: nothing more
            return None
        self._in_progress.add(func)
        first = self._flow(tuple(func.body.body), None)
        self._in_progress.discard(func)
        self._first_target[func] = first
        return first


def _header_nodes(stmt: cst.CSTNode):
    """The expressions a compound statement evaluates before its body."""
    for name in ("test", "iter", "items", "subject"):
        value = getattr(stmt, name, None)
        if isinstance(value, cst.CSTNode):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from value


def order_doubt(
    ctx, first: cst.CSTNode, second: cst.CSTNode, happens: str, happened: str, line: str
) -> Optional[Tuple[Reason, str]]:
    """Why ``second`` may not come after ``first`` after all (reason, why), or None:
    the two sit in branches that exclude each other, or an ``except`` handler of
    the ``try`` around ``first`` may run ``second`` before it. ``happens`` and
    ``happened`` say what ``first`` does ("the runtime starts", "started the
    runtime"), ``line`` where."""
    if exclusive_branches(ctx, first, second):
        return Reason.OTHER_BRANCH, f"{happens} at {line}"
    if handler_after_body(ctx, first, second) is not None:
        return Reason.UNSAFE_TO_TELL, f"an `except` handler may run before {line} {happened}"
    return None


def exclusive_branches(ctx, first: cst.CSTNode, second: cst.CSTNode) -> bool:
    """Whether two nodes sit in different branches of one ``if``/``elif``/``else``
    (or ``match``), so that one run never reaches both."""
    a, b = _branches(ctx, first), _branches(ctx, second)
    return any(key in b and b[key] is not branch for key, branch in a.items())


def _branches(ctx, node: cst.CSTNode) -> Dict[cst.CSTNode, cst.CSTNode]:
    """For each ``if``/``match`` around ``node``: the branch holding it."""
    out: Dict[cst.CSTNode, cst.CSTNode] = {}
    child = node
    for parent in ctx.ancestors_of(node):
        if (
            isinstance(parent, (cst.If, cst.Match))
            and child is not getattr(parent, "test", None)
            and child is not getattr(parent, "subject", None)
        ):
            out[parent] = child
        child = parent
    return out


def handler_after_body(ctx, first: cst.CSTNode, second: cst.CSTNode) -> Optional[cst.Try]:
    """The ``try`` whose body holds ``first`` and one of whose ``except``
    handlers holds ``second``: the handler may run before ``first`` did."""
    in_body: Set[cst.CSTNode] = set()
    child = first
    for parent in ctx.ancestors_of(first):
        if isinstance(parent, (cst.Try, cst.TryStar)) and child is parent.body:
            in_body.add(parent)
        child = parent
    child = second
    for parent in ctx.ancestors_of(second):
        if parent in in_body and isinstance(child, (cst.ExceptHandler, cst.ExceptStarHandler)):
            return parent
        child = parent
    return None


# -- the fix: move the late statement before the first start -------------------

_BUILTINS = frozenset(dir(__import__("builtins")))


class BlockBindings:
    """The names each statement binds and the statements of a block binding
    each name, from the semantic model: every binding of a scope is mapped
    to the statements holding it once, so the fix's checks are linear."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self._bound: Dict[cst.CSTNode, Set[str]] = {}
        self._scopes: Set[int] = set()
        self._blocks: Dict[int, Tuple[tuple, Dict[str, List[int]]]] = {}

    def names(self, stmt: cst.CSTNode) -> Set[str]:
        """Names ``stmt`` binds in its scope (roots of dotted names, mutations too)."""
        scope = self.sem.scope_of(stmt)
        if id(scope) not in self._scopes:
            self._scopes.add(id(scope))
            for found in scope.bindings.values():
                for binding in found:
                    root = binding.name.split(".", 1)[0]
                    for node in [binding.statement, *self.ctx.ancestors_of(binding.statement)]:
                        if node is scope.node:
                            break
                        if isinstance(node, (cst.BaseSmallStatement, cst.BaseStatement)):
                            self._bound.setdefault(node, set()).add(root)
        return self._bound.get(stmt, set())

    def bound_in(self, block: tuple, name: str, start: int, stop: int) -> bool:
        """Whether some statement ``block[start:stop]`` binds ``name``."""
        entry = self._blocks.get(id(block))
        if entry is None or entry[0] is not block:
            index: Dict[str, List[int]] = {}
            for position, stmt in enumerate(block):
                for bound in self.names(stmt):
                    index.setdefault(bound, []).append(position)
            entry = self._blocks[id(block)] = (block, index)
        positions = entry[1].get(name, ())
        k = bisect.bisect_left(positions, start)
        return k < len(positions) and positions[k] < stop


def harmless(ctx, stmt: cst.CSTNode, allowed: Effect = Effect.NONE) -> bool:
    """Every call in ``stmt`` is one the API table knows, with no effect but
    ``allowed`` (``len``, ``str``, ``",".join``; listing physical devices)."""
    values: Values = ctx.shared(Values)
    sem: SemanticModel = ctx.shared(SemanticModel)
    for node in descendants(stmt):
        if not isinstance(node, cst.Call):
            continue
        func = node.func
        facts = api.call(ctx.call_name(node))
        if facts is None and isinstance(func, cst.Name) and not sem.lookup_name(func):
            facts = api.call(func.value)  # a builtin
        if facts is None and isinstance(func, cst.Attribute):
            facts = api.method(values.kind(func.value), func.attr.value)
        if facts is None or facts.effects & ~allowed:
            return False
    return True


def movable_group(ctx, block: tuple, index: int, takes: Callable[[cst.CSTNode], bool]) -> int:
    """First index of the statements to move with ``block[index]``: those just
    before it that bind only names it uses and that ``takes`` accepts
    (``gpus = tf.config.list_physical_devices("GPU")``)."""
    sem: SemanticModel = ctx.shared(SemanticModel)
    bindings: BlockBindings = ctx.shared(BlockBindings)
    first = index
    needed = set(sem.reads(block[index]))
    while first > 0:
        prev = block[first - 1]
        bound = bindings.names(prev)
        if bound and bound <= needed and takes(prev):
            needed |= set(sem.reads(prev))
            first -= 1
        else:
            break
    return first


def hoist_fix(ctx, reached: Reached, counted: Effect, takes, message: str):
    """A Fix moving the late statements just before the first start, or None
    when that cannot be proven to keep behaviour."""
    from tflint_perf.engine.rule import SAFE, Fix

    start = reached.start
    if reached.via is not None or start is None:
        return None
    level = _common_level(reached.start_chain, reached.chain)
    if level is None:
        return None
    block, start_index = reached.start_chain[level]
    _, target_index = reached.chain[level]
    if target_index <= start_index:
        return None
    first = movable_group(ctx, block, target_index, takes)
    if first <= start_index:
        return None
    sem: SemanticModel = ctx.shared(SemanticModel)
    bindings: BlockBindings = ctx.shared(BlockBindings)
    starts: RuntimeStarts = ctx.shared(RuntimeStarts)
    moved = block[first : target_index + 1]
    moved_bound = set().union(*(bindings.names(s) for s in moved))
    moved_used = set().union(*(set(sem.reads(s)) for s in moved))
    # The moved code must not depend on, or rebind, anything the skipped code binds ...
    if any(bindings.bound_in(block, n, start_index, first) for n in moved_used | moved_bound):
        return None
    # ... must not itself start the runtime, nor leave the block.
    for stmt in moved:
        for node in [stmt, *descendants(stmt)]:
            if starts.start(node, counted) is not None or isinstance(
                node, (cst.Return, cst.Break, cst.Continue, cst.Yield, cst.Await)
            ):
                return None
    # Every free name must be bound before the start (or be a builtin).
    params = _parameters(ctx, reached.start_chain[0][0])
    module = ctx.module.body

    def available(name: str) -> bool:
        if name in _BUILTINS:
            return True
        if any(
            bindings.bound_in(outer, name, 0, position)
            for outer, position in reached.start_chain[: level + 1]
        ):
            return True
        # a function body runs after the module has loaded
        return params is not None and (
            name in params or bindings.bound_in(module, name, 0, len(module))
        )

    if not all(available(name) for name in moved_used - moved_bound):
        return None
    begin, _ = ctx.statement_lines(moved[0])
    _, end = ctx.statement_lines(moved[-1])
    start_line, _ = ctx.statement_lines(block[start_index])
    text = ctx.lines_text(begin, end)
    return Fix((ctx.insert_lines(start_line, text), ctx.delete_lines(begin, end)), SAFE, message)


def _common_level(first: Chain, second: Chain) -> Optional[int]:
    for level, ((b1, i1), (b2, i2)) in enumerate(zip(first, second)):
        if b1 is not b2:
            return None
        if i1 != i2:
            return level
    return None


def _parameters(ctx, block: tuple) -> Optional[Set[str]]:
    """Parameter names of the function whose body is ``block``; None at module level."""
    if not block:
        return None
    sem: SemanticModel = ctx.shared(SemanticModel)
    func = sem.function_of(block[0])
    if func is None:
        return None
    scope = sem.scope(func)
    return {
        name
        for name, found in scope.bindings.items()
        if any(b.kind is BindingKind.PARAMETER for b in found)
    }
