"""When does the TensorFlow runtime get initialised? Execution-order analysis.

Shared by the rules about configuration that must happen before the runtime
starts (device configuration, GPU environment variables). A *flow* is the
module body or one function body, read top to bottom; compound statements
are entered in source order; nested ``def``/``class``/``lambda`` bodies are
not (they run when called). A call to a function defined at module level
counts at the call site, with what that function does (transitively).

Which calls start the runtime is ``runtime_init.InitModel``'s question.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

from tflint_perf.analysis.loops import names_used
from tflint_perf.analysis.runtime_init import RUNTIME_RESETS, InitModel
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted, statement_blocks
from tflint_perf.engine.walk import descendants

# A position in nested statement lists: ((block, index), ...) from the flow root.
Chain = Tuple[Tuple[tuple, int], ...]


@dataclass
class Violation:
    target: cst.CSTNode  # what came too late (or the call into a function doing it)
    init: cst.CSTNode  # the first initialising node
    init_reason: str
    target_chain: Chain
    init_chain: Chain
    via: Optional[cst.FunctionDef] = None  # the local function the target call runs
    via_target: Optional[cst.CSTNode] = None  # the offending node inside it


@dataclass
class _Summary:
    init: Optional[Tuple[cst.CSTNode, str]]
    target: Optional[cst.CSTNode]


class FlowChecker:
    """Finds targets (config calls, env assignments) reached after initialisation."""

    def __init__(
        self, ctx, init_model: InitModel, is_target: Callable[[cst.CSTNode], bool]
    ) -> None:
        self.ctx = ctx
        self.init_model = init_model
        self.is_target = is_target
        self.functions: Dict[str, cst.FunctionDef] = {
            s.name.value: s for s in ctx.module.body if isinstance(s, cst.FunctionDef)
        }
        self._summaries: Dict[str, _Summary] = {}
        self._in_progress: set = set()

    def violations(self) -> List[Violation]:
        found: List[Violation] = []
        self._simulate(tuple(self.ctx.module.body), found)
        for node in self.ctx.nodes(cst.FunctionDef):
            self._simulate(tuple(_body(node)), found)
        # Branches are read one after the other, but only one of them runs.
        return [v for v in found if not exclusive_branches(self.ctx, v.init, v.target)]

    # -- one flow ---------------------------------------------------------
    def _simulate(self, block: tuple, found: Optional[List[Violation]]) -> _Summary:
        state = {"init": None, "init_chain": None, "target": None}
        self._run_block(block, (), state, found)
        return _Summary(state["init"], state["target"])

    def _run_block(self, block: tuple, chain: Chain, state: dict, found) -> None:
        for index, stmt in enumerate(block):
            here = chain + ((block, index),)
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                continue
            nested = (
                list(statement_blocks(stmt))
                if not isinstance(stmt, (cst.SimpleStatementLine,))
                else []
            )
            if nested:
                for node in _header_nodes(stmt):
                    self._event(node, here, state, found)
                for inner in nested:
                    self._run_block(tuple(inner), here, state, found)
            else:
                self._event(stmt, here, state, found)

    def _event(self, root: cst.CSTNode, chain: Chain, state: dict, found) -> None:
        for node in [root, *descendants(root, skip_scopes=True)]:
            if self.is_target(node):
                if state["target"] is None:
                    state["target"] = node
                if state["init"] is not None and found is not None:
                    init, why = state["init"]
                    found.append(Violation(node, init, why, chain, state["init_chain"]))
                continue
            if (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Name)
                and node.func.value in self.functions
            ):
                summary = self._summary(node.func.value)
                if summary.target is not None:
                    if state["target"] is None:
                        state["target"] = summary.target  # the real offending node
                    if state["init"] is not None and found is not None:
                        init, why = state["init"]
                        found.append(
                            Violation(
                                node,
                                init,
                                why,
                                chain,
                                state["init_chain"],
                                self.functions[node.func.value],
                                summary.target,
                            )
                        )
                if summary.init is not None and state["init"] is None:
                    state["init"] = (node, f"`{node.func.value}()` ({summary.init[1]} inside)")
                    state["init_chain"] = chain
                continue
            if isinstance(node, cst.Call) and self.ctx.call_name(node) in RUNTIME_RESETS:
                state["init"] = state["init_chain"] = None  # tests reset the eager context
                continue
            if state["init"] is None:
                why = self.init_model.reason(node)
                if why is not None:
                    state["init"] = (node, why)
                    state["init_chain"] = chain

    def _summary(self, name: str) -> _Summary:
        if name in self._summaries:
            return self._summaries[name]
        if name in self._in_progress:  # recursion: assume nothing
            return _Summary(None, None)
        self._in_progress.add(name)
        summary = self._simulate(tuple(_body(self.functions[name])), None)
        self._in_progress.discard(name)
        self._summaries[name] = summary
        return summary


def _body(func: cst.FunctionDef):
    return func.body.body


def _header_nodes(stmt: cst.CSTNode):
    """The expressions a compound statement evaluates before its body."""
    for name in ("test", "iter", "items", "subject"):
        value = getattr(stmt, name, None)
        if isinstance(value, cst.CSTNode):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from value


# -- the shared fix: move the late statement before the first init -------------

_BUILTINS = frozenset(dir(__import__("builtins")))


def _bound_names(stmt: cst.CSTNode) -> set:
    names = set()
    for node in [stmt, *descendants(stmt)]:
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
            target = node.target
            for sub in [target, *descendants(target)]:
                if isinstance(sub, cst.Name):
                    names.add(sub.value)
        elif isinstance(node, (cst.For, cst.CompFor)):
            for sub in [node.target, *descendants(node.target)]:
                if isinstance(sub, cst.Name):
                    names.add(sub.value)
        elif isinstance(node, cst.AsName) and isinstance(node.name, cst.Name):
            names.add(node.name.value)
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            names.add(node.name.value)
        elif isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(
            node.names, cst.ImportStar
        ):
            for alias in node.names:
                if alias.asname is None:
                    names.add((dotted(alias.name) or "").split(".")[0])
        elif isinstance(node, cst.NamedExpr) and isinstance(node.target, cst.Name):
            names.add(node.target.value)
    return names


class BlockBindings:
    """Which statements of a block bind each name, computed once per block:
    the fix's checks ask it for every violation (linear in the file, not
    quadratic)."""

    def __init__(self, ctx) -> None:
        self._names: Dict[cst.CSTNode, set] = {}
        self._blocks: Dict[int, Tuple[tuple, Dict[str, List[int]]]] = {}

    def names(self, stmt: cst.CSTNode) -> set:
        got = self._names.get(stmt)
        if got is None:
            got = self._names[stmt] = _bound_names(stmt)
        return got

    def _index(self, block: tuple) -> Dict[str, List[int]]:
        entry = self._blocks.get(id(block))
        if entry is None or entry[0] is not block:
            index: Dict[str, List[int]] = {}
            for position, stmt in enumerate(block):
                for name in self.names(stmt):
                    index.setdefault(name, []).append(position)
            entry = self._blocks[id(block)] = (block, index)
        return entry[1]

    def bound_in(self, block: tuple, name: str, start: int, stop: int) -> bool:
        """Whether some statement ``block[start:stop]`` binds ``name``."""
        positions = self._index(block).get(name, ())
        k = bisect.bisect_left(positions, start)
        return k < len(positions) and positions[k] < stop


def movable_group(block: tuple, index: int, helpers: Callable[[cst.CSTNode], bool]) -> int:
    """First index of the statements to move with ``block[index]``.

    Statements directly before it are taken along when it uses a name they
    bind and ``helpers`` accepts them (e.g. ``gpus = list_physical_devices()``).
    """
    first = index
    needed = names_used(block[index])
    while first > 0:
        prev = block[first - 1]
        bound = _bound_names(prev)
        if bound and bound <= needed and helpers(prev):
            needed |= names_used(prev)
            first -= 1
        else:
            break
    return first


def hoist_fix(ctx, violation: Violation, init_model: InitModel, helpers, message: str):
    """A Fix moving the late statements just before the first initialising
    statement, or None when that cannot be proven to keep behaviour."""
    from tflint_perf.engine.rule import SAFE, Fix

    if violation.via is not None:
        return None
    level = _common_level(violation.init_chain, violation.target_chain)
    if level is None:
        return None
    block, init_index = violation.init_chain[level]
    _, target_index = violation.target_chain[level]
    if target_index <= init_index:
        return None
    first = movable_group(block, target_index, helpers)
    if first <= init_index:
        return None
    bindings = ctx.shared(BlockBindings)
    moved = block[first : target_index + 1]
    moved_bound = set().union(*(bindings.names(s) for s in moved))
    moved_used = set().union(*(names_used(s) for s in moved))
    # The moved code must not depend on, or rebind, anything the skipped code binds.
    if any(bindings.bound_in(block, name, init_index, first) for name in moved_used | moved_bound):
        return None
    # ... and must not itself initialise the runtime or leave the block.
    for stmt in moved:
        for node in [stmt, *descendants(stmt)]:
            if init_model.reason(node) is not None or isinstance(
                node, (cst.Return, cst.Break, cst.Continue, cst.Yield, cst.Await)
            ):
                return None
    # Every free name must be bound before the init statement (or be a builtin).
    params = _enclosing_params(ctx, violation.init_chain[0][0])
    module = ctx.module.body

    def available(name: str) -> bool:
        if name in _BUILTINS:
            return True
        if any(
            bindings.bound_in(outer, name, 0, position)
            for outer, position in violation.init_chain[: level + 1]
        ):
            return True
        # a function body runs after the module has loaded
        return params is not None and (
            name in params or bindings.bound_in(module, name, 0, len(module))
        )

    if not all(available(name) for name in moved_used - moved_bound):
        return None
    start, _ = ctx.statement_lines(moved[0])
    _, end = ctx.statement_lines(moved[-1])
    init_line, _ = ctx.statement_lines(block[init_index])
    text = ctx.lines_text(start, end)
    return Fix((ctx.insert_lines(init_line, text), ctx.delete_lines(start, end)), SAFE, message)


def _common_level(init_chain: Chain, target_chain: Chain) -> Optional[int]:
    for level, ((b1, i1), (b2, i2)) in enumerate(zip(init_chain, target_chain)):
        if b1 is not b2:
            return None
        if i1 != i2:
            return level
    return None


def _enclosing_params(ctx, block: tuple) -> Optional[set]:
    """Parameter names of the function whose body is ``block``; None at module level."""
    if not block:
        return None
    for node in ctx.ancestors_of(block[0]):
        if isinstance(node, cst.FunctionDef):
            params = node.params
            every = [*params.posonly_params, *params.params, *params.kwonly_params]
            if isinstance(params.star_arg, cst.Param):
                every.append(params.star_arg)
            if params.star_kwarg is not None:
                every.append(params.star_kwarg)
            return {p.name.value for p in every}
    return None


def exclusive_branches(ctx, first: cst.CSTNode, second: cst.CSTNode) -> bool:
    """Whether two nodes sit in different branches of one ``if``/``elif``/``else``
    (or ``match``), so that one flow never runs both."""

    def branches(node):
        out = {}
        child = node
        for parent in ctx.ancestors_of(node):
            if (
                isinstance(parent, (cst.If, cst.Match))
                and child is not getattr(parent, "test", None)
                and child is not getattr(parent, "subject", None)
            ):
                out[id(parent)] = id(child)
            child = parent
        return out

    a, b = branches(first), branches(second)
    return any(key in b and b[key] != branch for key, branch in a.items())
