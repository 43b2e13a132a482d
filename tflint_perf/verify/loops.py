"""Long loops measured by their first iterations, the same number in both variants (worker side).

A module-level training loop (or the loops of a ``main()`` that trains for
an hour) cannot be run twenty times. ``instrument`` wraps the loops of the
measured code (not those inside nested functions or classes) so that they
ask a ``LoopLimiter`` before each iteration:

- the first run of the original (a calibration) runs until ``RUN_S`` has
  passed, letting each loop do at least ``MIN_ITERATIONS`` iterations; the
  number of iterations each loop did is recorded;
- every later run, of either variant, runs exactly those numbers.

Loops are matched between the variants by their header (``for x in xs``
text) and order, so only loops both variants have are limited. A loop the
calibration run finished is not limited at all, and when cutting makes the
code fail (a later loop reads what an earlier one would have filled),
nothing is cut. The verdict says which loops were cut and after how many
iterations.
"""

from __future__ import annotations

import ast
import time
from typing import Dict, List, Optional, Set

RUN_S = 0.5
MIN_ITERATIONS = 2
NAME = "__tfp_loop__"
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def loop_key(node: ast.AST) -> str:
    if isinstance(node, ast.For):
        return f"for {ast.unparse(node.target)} in {ast.unparse(node.iter)}"
    if isinstance(node, ast.While):
        return f"while {ast.unparse(node.test)}"
    return ""


class _Wrap(ast.NodeTransformer):
    def __init__(self, keys: Optional[Set[str]]) -> None:
        self.keys = keys
        self.found: Dict[str, int] = {}  # key -> line
        self.seen: Dict[str, int] = {}

    def _scope(self, node):
        return node  # loops in nested functions and classes run when called: not ours

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = _scope

    def _wanted(self, node) -> Optional[str]:
        header = loop_key(node)
        # loops with the same header (two `for i in range(n)`) are told apart by their order
        self.seen[header] = self.seen.get(header, 0) + 1
        key = f"{header} #{self.seen[header]}"
        if self.keys is not None and key not in self.keys:
            return None
        self.found.setdefault(key, node.lineno)
        return key

    def visit_For(self, node: ast.For):
        self.generic_visit(node)
        key = self._wanted(node)
        if key is not None:
            call = ast.Call(
                ast.Attribute(ast.Name(NAME, ast.Load()), "each", ast.Load()),
                [ast.Constant(key), node.iter],
                [],
            )
            node.iter = ast.copy_location(call, node.iter)
        return node

    def visit_While(self, node: ast.While):
        self.generic_visit(node)
        key = self._wanted(node)
        if key is not None:
            more = ast.Call(
                ast.Attribute(ast.Name(NAME, ast.Load()), "more", ast.Load()),
                [ast.Constant(key)],
                [],
            )
            test = ast.BoolOp(ast.And(), [ast.copy_location(more, node.test), node.test])
            node.test = ast.copy_location(test, node.test)
        return node


def instrument(body: List[ast.stmt], keys: Optional[Set[str]] = None):
    """(the statements with their loops wrapped, {loop key: first line})."""
    import copy

    wrapper = _Wrap(keys)
    new = [wrapper.visit(copy.deepcopy(stmt)) for stmt in body]
    for stmt in new:
        ast.fix_missing_locations(stmt)
    return new, wrapper.found


class LoopLimiter:
    def __init__(self, lines: Dict[str, int], limits: Optional[Dict[str, int]] = None) -> None:
        self.lines = lines
        self.limits = limits  # None: not calibrated yet; {}: nothing limited
        self.deadline: Optional[float] = None
        self.counts: Dict[str, int] = {}
        self.cut: Dict[str, int] = {}  # loops the calibration stopped: key -> iterations

    def _go(self, key: str) -> bool:
        count = self.counts.get(key, 0)
        if self.limits is not None:
            if key in self.limits and count >= self.limits[key]:
                return False
        elif (
            self.deadline is not None
            and count >= MIN_ITERATIONS
            and time.perf_counter() > self.deadline
        ):
            self.cut[key] = count
            return False
        self.counts[key] = count + 1
        return True

    def each(self, key: str, iterable):
        for item in iterable:
            if not self._go(key):
                return
            yield item

    def more(self, key: str) -> bool:
        return self._go(key)

    # -- the calibration ------------------------------------------------------
    def calibrate(self, run) -> None:
        """Run ``run`` (the original) under the deadline; from then on, fixed counts.

        Twice: the first run pays one-time costs (imports, caches, the first
        eager kernels), so the second one's counts are the steady state's.
        """
        for _ in range(2):
            self.limits = None
            self.counts, self.cut = {}, {}
            self.deadline = time.perf_counter() + RUN_S
            try:
                run()
            except Exception:
                if not self.cut:
                    raise  # the code fails whole: not ours to hide
                # a later part needed what a cut loop would have done: no cutting at all
                self.limits, self.cut = {}, {}
                return
            finally:
                self.deadline = None
                if self.limits is None:
                    self.limits = dict(self.counts) if self.cut else {}
                self.counts = {}
            if not self.cut:
                return  # it finishes within RUN_S: nothing to cut

    def reset(self) -> None:
        """Before each run: count from zero."""
        self.counts = {}

    def describe(self) -> str:
        if not self.cut:
            return ""
        parts = [
            f"the loop at line {self.lines.get(key, '?')} ran its first "
            f"{(self.limits or {}).get(key, n)} iterations"
            for key, n in sorted(self.cut.items(), key=lambda kv: self.lines.get(kv[0], 0))
        ]
        return "; ".join(parts) + " in every run of either variant (a long loop, cut)"
