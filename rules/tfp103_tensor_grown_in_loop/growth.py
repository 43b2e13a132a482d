"""The detector: an array grown by concatenation in every iteration of a loop.

``x = tf.concat([x, piece], axis)`` (``np.concatenate``, ``np.vstack``,
``np.append`` ...) whose loop does nothing else with ``x`` but test it for
emptiness or copy it whole into a second result; or ``t = tf.stack(pieces)``
inside the loop that appends to ``pieces``.
"""

from __future__ import annotations

import re
from typing import List, Optional

from tflint_perf.analysis.api import arraymath as am
from tflint_perf.analysis.cadence import now_and_then, once_per_run
from tflint_perf.analysis.functions import TfFunctions
from tflint_perf.analysis.reach import Reach
from tflint_perf.analysis.scopes import first_param
from tflint_perf.analysis.semantic import BindingKind, SemanticModel
from tflint_perf.analysis.testcode import is_test_module
from tflint_perf.analysis.trips import Trips
from tflint_perf.engine import cst
from tflint_perf.engine.names import place
from tflint_perf.engine.nodes import is_none_test
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.walk import descendants

LIMIT = 100
# Joins that restack everything they are given (``tf.stack(pieces)``).
_RESTACKS = ("stack", "concat", "concatenate", "vstack", "hstack")


def _join(ctx, call) -> str:
    """``concat`` / ``append`` / ``stack`` ... when ``call`` joins arrays, else ""."""
    qual = ctx.call_name(call) if isinstance(call, cst.Call) else None
    if not qual or not qual.startswith(am.ROOTS):
        return ""
    last = qual.rsplit(".", 1)[-1]
    op = am.op(qual)
    if op is am.ArrayOp.JOIN or (op is am.ArrayOp.SHAPE and last == "stack"):
        return last
    return ""


class Growth:
    def __init__(self, rule) -> None:
        self.rule = rule
        self.ctx = rule.ctx
        self.sem: SemanticModel = self.ctx.shared(SemanticModel)
        self.trips: Trips = self.ctx.shared(Trips)
        self.reach: Reach = self.ctx.shared(Reach)

    def run(self, assigns: List[cst.Assign]) -> None:
        rule, ctx = self.rule, self.ctx
        test_module = is_test_module(ctx)
        for assign in assigns:
            call = next((v for v in branches(assign.value) if _join(ctx, v)), None)
            target = place(assign.targets[0].target)
            if call is None or target is None or not call.args:
                continue
            join = _join(ctx, call)
            if test_module:
                rule.silent(call, Reason.TEST_CODE)
                continue
            loops = self.sem.loops_around(assign)
            region: cst.CSTNode
            loop: cst.CSTNode
            via: Optional[cst.FunctionDef] = None
            if loops:
                region = loop = loops[0]
            else:
                # Kept between calls (an attribute of self, a global, a closure's
                # variable): a function run per iteration of a loop grows it there.
                func = self.sem.function_of(assign)
                if func is None or not self._outlives_call(func, target):
                    rule.silent(call, Reason.RUNS_ONCE, "not in a loop (a local: anew per call)")
                    continue
                hot = self.reach.hot(assign)
                if hot is None or not hot.calls:
                    if self.reach.in_a_loop(assign):
                        why = "its function runs a handful of times (or now and then)"
                        rule.silent(call, Reason.TINY_LOOP, why)
                    else:
                        rule.silent(call, Reason.RUNS_ONCE, "not in a loop")
                    continue
                region, loop, via = func, hot.loop, func
            estimate = self.trips.of(loop)
            if estimate.tiny:
                rule.silent(call, Reason.TINY_LOOP, estimate.why)
                continue
            if self.trips.over_columns(loop):
                rule.silent(call, Reason.TINY_LOOP, "a loop over the columns of a table")
                continue
            found = None
            if join != "stack":
                found = self._self_concat(call, join, target, region)
            if found is None and join in _RESTACKS:
                found = self._restack(assign, call, target, region)
            if found is None:
                continue
            line = ctx.line_ref(ctx.position(loop).start.line)
            headline, detail = self._message(assign, call, found, line, via)
            rule.report(call, message=headline, detail=detail)

    def _outlives_call(self, func, target: str) -> bool:
        """Whether ``target`` keeps its value from one call of ``func`` to the next:
        state of the method's object (``self.x``), a ``global`` or ``nonlocal``
        name, or a slot of a container the function does not bind (``log['loss']``)."""
        root = re.split(r"[.\[]", target, maxsplit=1)[0]
        scope = self.sem.scope(func)
        if root in scope.globals or root in scope.nonlocals:
            return True
        if root == target:
            return False  # a plain name assigned here is the call's own local
        if root == first_param(func) and self.sem.method_class(func) is not None:
            return True
        local = [b for b in scope.bindings.get(root, ()) if b.kind is not BindingKind.MUTATION]
        return not local

    # -- x = concat([x, piece]) ----------------------------------------------------
    def _self_concat(self, call, join: str, target: str, loop) -> Optional[str]:
        """``x = tf.concat([x, y])``, ``x = np.append(x, y)``; x not otherwise read in the
        loop (other growth statements of x, emptiness tests and copies into another
        result aside)."""
        if self._own_piece(call, join, target) is None:
            return None
        own = []
        for binding in self.sem.bindings_in(loop):
            statement = binding.statement
            if not (isinstance(statement, cst.Assign) and len(statement.targets) == 1):
                continue
            written = statement.targets[0].target
            if place(written) != target:
                continue
            for value in branches(statement.value):
                piece = self._own_piece(value, _join(self.ctx, value), target)
                if piece is not None:
                    own += [written, piece]
        if self._reads_elsewhere(loop, target, own, call):
            self.rule.silent(call, Reason.SEQUENTIAL, f"the loop reads `{target}` for its work")
            return None
        return f"`{target}` grows by `{self.ctx.code(call.func)}`"

    def _own_piece(self, call, join: str, target: str):
        """The argument that is the growing array itself (``x`` in ``np.append(x, y)``)."""
        if not join or not isinstance(call, cst.Call) or not call.args:
            return None
        if call.args[0].keyword is not None:
            return None
        first = call.args[0].value
        if join == "append":
            return first if place(first) == target else None
        if not isinstance(first, (cst.List, cst.Tuple)):
            return None
        parts = [place(e.value) for e in first.elements]
        if parts.count(target) != 1 or len(parts) < 2:
            return None
        return next(e.value for e in first.elements if place(e.value) == target)

    # -- t = stack(pieces) of a list growing in the loop ---------------------------------
    def _restack(self, assign, call, target: str, loop) -> Optional[str]:
        """``lst.append(v)`` and ``t = tf.stack(lst)`` in the same loop; t only used after it."""
        first = call.args[0]
        if first.keyword is not None or not isinstance(first.value, cst.Name):
            return None
        pieces = first.value.value
        bound = [b for b in self.sem.bindings_in(loop) if b.name == pieces]
        appended = any(
            b.kind is BindingKind.MUTATION
            and isinstance(b.value, cst.Call)
            and isinstance(b.value.func, cst.Attribute)
            and b.value.func.attr.value in ("append", "extend")
            for b in bound
        )
        if not appended or target == pieces:
            return None
        if any(b.kind is BindingKind.ASSIGNMENT for b in bound):
            return None  # a fresh list each iteration
        if self._reads_elsewhere(loop, target, [assign.targets[0].target], call):
            return None
        return f"`{self.ctx.code(call.func)}({pieces})` re-stacks the growing list `{pieces}`"

    def _reads_elsewhere(self, loop, target: str, own, growth: cst.Call) -> bool:
        """Whether the loop reads ``target`` anywhere but at the ``own`` nodes (the
        assignment target and the piece that is the array itself). A read on the loop's
        first or last iteration only, or now and then (``if step % 500 == 0:``), does
        not count when the array grows on every iteration (growth at that same cadence,
        ``if done: memory = concat(...)``, is read there for that run's work): each
        growth copies the whole array, each such read could stack it once."""
        grown_once = once_per_run(self.ctx, growth, loop)
        grown_rarely = grown_once or now_and_then(self.ctx, growth) is not None
        inside = {id(n) for node in own for n in [node, *descendants(node)]}
        # ``log`` of ``log['loss']``: read whole (or at a computed key), it reads the array.
        container = target.split("[", 1)[0] if "[" in target else None
        roots = [loop.test] if isinstance(loop, cst.While) else []
        roots.append(loop.body)  # a loop's, or a function's run per iteration
        for root in roots:
            for n in [root, *descendants(root)]:
                if id(n) in inside or not isinstance(n, (cst.Name, cst.Attribute, cst.Subscript)):
                    continue
                spelled = place(n)
                parent = self.ctx.parent(n)
                if (
                    container is not None
                    and spelled == container
                    and not (
                        isinstance(parent, cst.Subscript) and parent.value is n and place(parent)
                    )
                ):
                    if self._rare_read(n, loop, grown_once, grown_rarely):
                        continue
                    return True
                if spelled != target:
                    continue
                if isinstance(parent, cst.AssignTarget) and parent.target is n:
                    continue
                if isinstance(parent, cst.NameItem):
                    continue  # `nonlocal x`: a declaration, not a read
                if isinstance(parent, cst.Attribute) and parent.attr is n:
                    continue
                if is_none_test(parent) or self._emptiness_test(n) or self._copied_whole(n):
                    continue  # `if x is None: x = piece`; `grid = np.concatenate((grid, row))`
                if self._rare_read(n, loop, grown_once, grown_rarely):
                    continue
                return True
        return False

    def _rare_read(self, node, loop, grown_once: bool, grown_rarely: bool) -> bool:
        if not grown_once and once_per_run(self.ctx, node, loop):
            return True  # `if step == 0: x[0] = piece`; `if done: fit(x); break`
        # `if step % 500 == 0: np.save(path, x)`
        return not grown_rarely and now_and_then(self.ctx, node) is not None

    def _emptiness_test(self, node) -> bool:
        """``x.size == 0``, ``len(x) == 0``, ``x.shape[0] == 0``, ``not x``."""
        ctx = self.ctx
        parent = ctx.parent(node)
        if isinstance(parent, cst.Attribute) and parent.attr.value in ("size", "shape"):
            node, parent = parent, ctx.parent(parent)
            if isinstance(parent, cst.Subscript):
                node, parent = parent, ctx.parent(parent)
        elif isinstance(parent, cst.Arg):
            call = ctx.parent(parent)
            if (
                isinstance(call, cst.Call)
                and isinstance(call.func, cst.Name)
                and call.func.value == "len"
            ):
                node, parent = call, ctx.parent(call)
        if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
            return True
        return (
            isinstance(parent, cst.Comparison)
            and len(parent.comparisons) == 1
            and isinstance(parent.comparisons[0].comparator, cst.Integer)
            and parent.comparisons[0].comparator.value == "0"
        )

    def _copied_whole(self, node) -> bool:
        """Read only to be stored or concatenated whole into another result."""
        ctx = self.ctx
        parent = ctx.parent(node)
        if isinstance(parent, cst.Assign):
            return True  # final = x
        if isinstance(parent, cst.Element):
            outer = ctx.parent(parent)
            call = ctx.parent(outer) if outer is not None else None
            call = ctx.parent(call) if isinstance(call, cst.Arg) else call
            return isinstance(call, cst.Call) and _join(ctx, call) not in ("", "stack", "append")
        return False

    # -- the message -------------------------------------------------------------------
    def _message(self, assign, call, found: str, line: str, via=None):
        qual = self.ctx.call_name(call) or ""
        func = next(
            (a for a in self.ctx.ancestors_of(assign) if isinstance(a, cst.FunctionDef)), None
        )
        compiled = func is not None and self.ctx.shared(TfFunctions).is_wrapped_def(func)
        restack = "re-stacks" in found
        if qual.startswith("numpy."):
            short = "use a list and one `np.concatenate`"
            advice = "Collect the pieces in a list and call `np.concatenate` or `np.stack` once."
        elif compiled:
            short = "use a `tf.TensorArray`"
            advice = "Write each piece to a `tf.TensorArray` and call its `stack` or `concat` once."
        else:
            short = "use a list and one `tf.concat`"
            advice = (
                "Collect the pieces in a list and concatenate once after the loop "
                "(a `tf.TensorArray` inside a `tf.function`)."
            )
        if restack:
            short = "stack once after the loop"
        if via is not None:
            wheres = [f"on every call of `{via.name.value}` from the loop at {line}"]
            wheres += [f"in `{via.name.value}`, called in a loop", "per call in a loop"]
            advice += f"\n`{via.name.value}` runs once per iteration of the loop at {line}."
        else:
            wheres = [f"in every iteration of the loop at {line}", f"in the loop at {line}"]
            wheres.append("in a loop")
        headline = ""
        for where in wheres:
            headline = f"{found} {where}: {short}"
            if len(headline) <= LIMIT:
                break
        detail = (
            "Each iteration copies everything gathered so far: n iterations copy O(n^2) "
            f"elements instead of O(n).\n{advice}"
        )
        return headline, detail


def branches(value) -> list:
    """The values an assignment may store: both arms of ``a if test else b``."""
    if isinstance(value, cst.IfExp):
        return branches(value.body) + branches(value.orelse)
    return [value]
