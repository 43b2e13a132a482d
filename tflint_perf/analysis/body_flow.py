"""The results a loop body collects, in statement order, and what it carries over.

``BodyFlow(facts).run()`` reads the body's statements in order (through
``if``/``else`` and inner ``for`` loops) and fills ``facts.sinks`` (appends,
stores, scatters, accumulations, counts) and ``facts.derived`` (names bound
from element values). It then blocks the loop when a value is carried from
one iteration to the next other than by plain accumulation: a name read
before the body binds it (the semantic model's reaching bindings say so), or
an array read at another index than the one it is written at (``y[t] = a *
y[t - 1]``), or read whole while it is written per element.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Set, Tuple

from tflint_perf.analysis.api import arraymath as am
from tflint_perf.analysis.element_reads import bare_any
from tflint_perf.analysis.semantic import BindingKind
from tflint_perf.engine import cst
from tflint_perf.engine.walk import descendants

if TYPE_CHECKING:
    from tflint_perf.analysis.elementwise import LoopFacts

# Bindings that give a name a new value (not an object changed in place, not a loop target).
_VALUES = (BindingKind.ASSIGNMENT, BindingKind.AUGMENTED)


class BodyFlow:
    def __init__(self, facts: "LoopFacts") -> None:
        self.facts = facts
        self._where = (False, False)  # (negated, nested) of the statement being read

    def run(self) -> None:
        from tflint_perf.analysis.elementwise import Sink, SinkKind

        facts = self.facts
        node = facts.walk.node
        if isinstance(node, (cst.ListComp, cst.GeneratorExp)):
            test = node.for_in.ifs[0].test if node.for_in.ifs else None
            facts.sinks.append(Sink(SinkKind.ELEMENT, node, node.elt, test=test))
        else:
            self._suite(node.body.body, None)
        self._recurrences()

    def _suite(self, statements, test, negated=False, nested=False) -> None:
        for stmt in statements:
            guard = skip_test(stmt)
            if guard is None:
                self._statement(stmt, test, negated, nested)
            elif test is None:  # ``if bad: continue``: what follows runs where it is false
                test, negated = guard, True
            else:
                nested = True  # a second test: no one mask is spelled for both

    def _statement(self, stmt, test, negated=False, nested=False) -> None:
        """``test``: the ``if`` around the statement (the outermost one); ``negated``:
        in its ``else``; ``nested``: under more than one test or an inner loop."""
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self._simple(small, test, negated, nested)
        elif isinstance(stmt, cst.If):
            if test is None:
                inner, deeper = stmt.test, nested
            else:
                inner, deeper = test, True
            self._suite(stmt.body.body, inner, negated if test is not None else False, deeper)
            if isinstance(stmt.orelse, cst.If):
                self._statement(stmt.orelse, inner, True, True)
            elif stmt.orelse is not None:
                self._suite(stmt.orelse.body.body, inner, test is None or negated, deeper)
        elif isinstance(stmt, cst.For):
            self._suite(stmt.body.body, test, negated, nested)

    def _simple(self, small, test, negated=False, nested=False) -> None:
        from tflint_perf.analysis.elementwise import Sink, SinkKind

        self._where = (negated, nested)
        if isinstance(small, cst.Assign):
            for target in small.targets:
                self._bind(target.target, small.value, small, test)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self._bind(small.target, small.value, small, test)
        elif isinstance(small, cst.AugAssign):
            self._aug(small, test)
        elif isinstance(small, cst.Expr):
            call = small.value
            if (
                isinstance(call, cst.Call)
                and isinstance(call.func, cst.Attribute)
                and call.func.attr.value == "append"
                and len(call.args) == 1
            ):
                self._sink(Sink(SinkKind.APPEND, small, call.args[0].value, call.func.value, test))

    def _bind(self, target, value, stmt, test) -> None:
        from tflint_perf.analysis.elementwise import Sink, SinkKind

        facts = self.facts
        if isinstance(target, cst.Name) and _self_update(facts, target.value, value):
            aug = cst.AugAssign(target, cst.AddAssign(), value.right)  # n = n + 1
            self._aug(aug, test, stmt)
        elif isinstance(target, cst.Name):
            if facts.uses_element(value):
                facts.derived[target.value] = value
            else:
                facts.derived.pop(target.value, None)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element, part in zip(target.elements, _unpacked(value, len(target.elements))):
                self._bind(element.value, part, stmt, test)
        elif isinstance(target, cst.Subscript) and _cell_update(facts, target, value):
            aug = cst.AugAssign(target, cst.AddAssign(), value.right)  # c[k] = c[k] + 1
            self._aug(aug, test, stmt)
        elif isinstance(target, cst.Subscript):
            scatter = facts.index_uses_element(target) and facts.array_target(target)
            kind = SinkKind.SCATTER if scatter else SinkKind.STORE
            self._sink(Sink(kind, stmt, value, target, test))

    def _aug(self, stmt: cst.AugAssign, test, node=None) -> None:
        from tflint_perf.analysis.elementwise import Sink, SinkKind

        facts = self.facts
        target = stmt.target
        node = node or stmt
        if isinstance(target, cst.Subscript):
            scatter = facts.index_uses_element(target) and facts.array_target(target)
            kind = SinkKind.SCATTER_ADD if scatter else SinkKind.STORE_ADD
            if (
                not scatter
                and facts.index
                and not facts.reads(target) & facts.index
                and isinstance(stmt.operator, (cst.AddAssign, cst.SubtractAssign))
            ):
                kind = SinkKind.REDUCE  # `total[j] += x[t, j]` over t: one cell accumulates
            self._sink(Sink(kind, node, stmt.value, target, test))
            return
        if not isinstance(target, cst.Name):
            return
        if target.value in facts.derived or target.value in facts.index:
            return  # an element updated in place, or the while counter
        item = one_item(stmt)
        if item is not None:  # ``xs += [v]``: xs.append(v)
            self._sink(Sink(SinkKind.APPEND, node, item, target, test))
            return
        if _is_one(stmt.value) and isinstance(stmt.operator, cst.AddAssign):
            self._sink(Sink(SinkKind.COUNT, node, None, target, test))
        elif isinstance(stmt.operator, (cst.AddAssign, cst.SubtractAssign)):
            self._sink(Sink(SinkKind.REDUCE, node, stmt.value, target, test))

    def _sink(self, sink) -> None:
        sink.negated, sink.nested = self._where
        self.facts.sinks.append(sink)

    # -- what an iteration hands to the next ---------------------------------------
    def _recurrences(self) -> None:
        from tflint_perf.analysis.elementwise import Blocker, SinkKind

        facts = self.facts
        for name, reads in self._carried().items():
            writes = self._writes(name)
            if name in facts.index and isinstance(facts.walk.node, cst.While):
                continue  # the while counter
            if all(_accumulates(facts, w, name) for w in writes) and all(
                facts.sem.statement_of(r) in writes for r in reads
            ):
                continue  # acc += v, n = n + 1: a reduction, not a recurrence
            if _geometric(facts, writes, name):
                continue  # d *= gamma: d0 * gamma ** k, a function of the index
            if all(_re_view(facts, w, name) for w in writes):
                continue  # mv = mv.reshape(d, 1)
            facts.block(Blocker.RECURRENCE, reads[0])
            return
        written: Dict[str, Set[str]] = {}
        for sink in facts.sinks:
            if isinstance(sink.target, cst.Subscript):
                base, index = _flat(facts.ctx, sink.target)
                written.setdefault(base, set()).add(index)
        tested = _tested(facts)
        for n in facts.nodes:
            if isinstance(n, cst.Subscript) and not _inner(facts.ctx, n):
                base, index = _flat(facts.ctx, n)
                if base in written and index not in written[base]:
                    facts.block(Blocker.RECURRENCE, n)  # y[t] = a * y[t - 1]
                    return
                if base in written and n in tested and not _own_cell(facts, n):
                    facts.block(Blocker.RECURRENCE, n)  # if not used[j]: used[j] = 1
                    return
            elif (
                isinstance(n, cst.Name)
                and n.value in written
                and _whole_read(facts, n)
                and not _row_alias(facts, n.value)
            ):
                facts.block(Blocker.RECURRENCE, n)  # h = W.T.dot(x); W[:, k] += ...
                return
        appended = {facts.ctx.code(s.target) for s in facts.sinks if s.kind is SinkKind.APPEND}
        for n in facts.nodes:
            if isinstance(n, cst.Subscript) and facts.ctx.code(n.value) in appended:
                facts.block(Blocker.RECURRENCE, n)  # out.append(out[-1] * f + x): the last result
                return

    def _carried(self) -> Dict[str, List[cst.Name]]:
        """Names read where a binding made later in the loop body reaches them: the
        value of the previous iteration (the semantic model's reaching bindings)."""
        facts = self.facts
        loop = facts.walk.node
        first, last = facts.ctx.span(loop)
        own = [b for b in facts.sem.bindings_in(loop) if b.kind in _VALUES and "." not in b.name]
        bound = {b.name for b in own}
        targets = {id(b.node) for b in own}
        out: Dict[str, List[cst.Name]] = {}
        reset = _reset_first(facts, loop)
        running = {b.name for b in own if b.kind is BindingKind.AUGMENTED} - reset
        for n in facts.nodes:
            if not isinstance(n, cst.Name) or n.value not in bound or id(n) in targets:
                continue
            if n.value in running:
                out.setdefault(n.value, []).append(n)  # acc += v: every read sees a running value
                continue
            if n.value in reset:
                continue  # `s = 0.0` opens every iteration: nothing reaches the next one
            position = facts.ctx.span(n)[0]
            for binding in facts.sem.lookup(n.value, n):
                at = facts.ctx.span(binding.statement)[0]
                if binding.kind in _VALUES and first <= at <= last and binding.position >= position:
                    out.setdefault(n.value, []).append(n)
                    break
        return out

    def _writes(self, name: str) -> List[cst.CSTNode]:
        loop = self.facts.walk.node
        return [
            b.statement
            for b in self.facts.sem.bindings_in(loop)
            if b.name == name and b.kind in _VALUES
        ]


def _reset_first(facts, loop) -> Set[str]:
    """Names the loop body binds afresh (``s = 0.0``) in a top-level statement before
    any statement reads them: each iteration starts from its own value."""
    body = getattr(loop, "body", None)
    if not isinstance(body, cst.IndentedBlock):
        return set()
    out: Set[str] = set()
    seen: Set[str] = set()
    for statement in body.body:
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
            small = statement.body[0]
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target = small.targets[0].target
                read = set(facts.sem.reads(small.value))
                seen |= read
                if isinstance(target, cst.Name) and target.value not in seen:
                    out.add(target.value)
                continue
        seen |= {n.value for n in [statement, *descendants(statement)] if isinstance(n, cst.Name)}
    return out


def _tested(facts) -> Set[cst.CSTNode]:
    """Nodes of the body's ``if`` tests: what decides whether a store runs."""
    out: Set[cst.CSTNode] = set()
    for n in facts.nodes:
        if isinstance(n, (cst.If, cst.IfExp)):
            out.update([n.test, *descendants(n.test)])
    return out


def _own_cell(facts, sub: cst.Subscript) -> bool:
    """``x[i]`` by the loop's index: each iteration tests the cell it writes, so no
    iteration sees another's store (``used[jmax]`` at a computed index may)."""
    return any(bare_any(e, facts.index) for e in sub.slice)


def _row_alias(facts, name: str) -> bool:
    """``t = p[i]`` in the body: a view of this iteration's own row, bound anew each
    time, so ``t[a] = ...; y[i] = t`` hands nothing to the next iteration."""
    value = facts.derived.get(name)
    for _ in range(4):  # t = row; row = p[i]
        if not isinstance(value, cst.Name):
            break
        value = facts.derived.get(value.value)
    return isinstance(value, cst.Subscript) and _own_cell(facts, value)


def _whole_read(facts, name: cst.Name) -> bool:
    from tflint_perf.analysis.elementwise import whole_read

    return whole_read(facts.ctx, name)


def _self_update(facts, name: str, value) -> bool:
    """``n = n + v`` with v free of n."""
    return (
        isinstance(value, cst.BinaryOperation)
        and isinstance(value.operator, cst.Add)
        and isinstance(value.left, cst.Name)
        and value.left.value == name
        and name not in facts.reads(value.right)
    )


def _cell_update(facts, target: cst.Subscript, value) -> bool:
    """``c[k] = c[k] + v``: the cell's own value plus something else (``c[k] += v``)."""
    code = facts.ctx.code
    if not (
        isinstance(value, cst.BinaryOperation)
        and isinstance(value.operator, cst.Add)
        and code(value.left) == code(target)
    ):
        return False
    cell = code(target)
    return not any(
        isinstance(n, cst.Subscript) and code(n) == cell
        for n in [value.right, *descendants(value.right)]
    )


def _unpacked(value, count: int) -> list:
    """What each of ``count`` unpacked names gets: ``a, b = x, y`` or ``a, b = row``."""
    if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == count:
        return [e.value for e in value.elements]
    return [
        cst.Subscript(value, [cst.SubscriptElement(cst.Index(cst.Integer(str(k))))])
        for k in range(count)
    ]


def _is_one(expr) -> bool:
    return isinstance(expr, cst.Integer) and expr.value == "1"


def _geometric(facts, writes, name: str) -> bool:
    """``d *= c`` the only write of ``d``, ``c`` the same on every iteration: the
    value at step ``k`` is ``d0 * c ** k``, not a result of the previous iteration's
    work."""
    if len(writes) != 1 or not isinstance(writes[0], cst.AugAssign):
        return False
    stmt = writes[0]
    if not isinstance(stmt.operator, cst.MultiplyAssign):
        return False
    changing = facts.index | facts.elements | set(facts.derived)
    return name not in facts.reads(stmt.value) and not facts.reads(stmt.value) & changing


def _accumulates(facts, stmt, name: str) -> bool:
    """``acc += v`` / ``acc = acc + v`` / ``best = max(best, v)`` with v free of acc."""
    if isinstance(stmt, cst.AugAssign):
        return name not in facts.reads(stmt.value)
    if not isinstance(stmt, cst.Assign):
        return False
    value = stmt.value
    if isinstance(value, cst.BinaryOperation) and isinstance(
        value.operator, (cst.Add, cst.Subtract, cst.Multiply)
    ):
        for own, other in ((value.left, value.right), (value.right, value.left)):
            if isinstance(own, cst.Name) and own.value == name and name not in facts.reads(other):
                return True
    if isinstance(value, cst.Call) and len(value.args) == 2:
        func = value.func
        fname = (
            func.value
            if isinstance(func, cst.Name)
            else (func.attr.value if isinstance(func, cst.Attribute) else "")
        )
        if fname in ("max", "min", "maximum", "minimum"):
            args = [a.value for a in value.args]
            return (
                any(isinstance(a, cst.Name) and a.value == name for a in args)
                and sum(name in facts.reads(a) for a in args) == 1
            )
    return False


def _re_view(facts, stmt, name: str) -> bool:
    """``mv = mv.reshape(d, 1)``: the same values seen differently, not a new value."""
    if not isinstance(stmt, cst.Assign):
        return False
    value = stmt.value
    if isinstance(value, cst.Tuple):
        values = [e.value for e in value.elements]
        targets = stmt.targets[0].target
        if isinstance(targets, cst.Tuple) and len(targets.elements) == len(values):
            for t, v in zip(targets.elements, values):
                if isinstance(t.value, cst.Name) and t.value.value == name:
                    value = v
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
        if am.method_op(value.func.attr.value) is not am.ArrayOp.SHAPE:
            return False
        if any(name in facts.reads(a.value) for a in value.args):
            return False
        value = value.func.value
    return isinstance(value, cst.Name) and value.value == name


def _index_code(ctx, sub: cst.Subscript) -> str:
    return ", ".join(ctx.code(e.slice).strip() for e in sub.slice)


def _flat(ctx, sub: cst.Subscript) -> Tuple[str, str]:
    """(base, index) of a subscript, chains joined: ``g[k][0]`` is ``g`` at ``k, 0``, so a
    read of ``g[k + 1][0]`` is told from the write of ``g[k][0]``."""
    parts = [_index_code(ctx, sub)]
    while isinstance(sub.value, cst.Subscript):
        sub = sub.value
        parts.append(_index_code(ctx, sub))
    return ctx.code(sub.value), ", ".join(reversed(parts))


def _inner(ctx, sub: cst.Subscript) -> bool:
    """``g[k]`` inside ``g[k][0]``: part of a longer subscript, judged as that one."""
    parent = ctx.parent(sub)
    return isinstance(parent, cst.Subscript) and parent.value is sub


def one_item(stmt: cst.AugAssign):
    """``v`` of ``xs += [v]`` (an append spelled as list arithmetic), else None."""
    value = stmt.value
    if not isinstance(stmt.operator, cst.AddAssign) or not isinstance(value, cst.List):
        return None
    if len(value.elements) != 1 or isinstance(value.elements[0], cst.StarredElement):
        return None
    return value.elements[0].value


def skip_test(stmt):
    """The test of ``if test: continue`` (nothing else in it), else None."""
    if not isinstance(stmt, cst.If) or stmt.orelse is not None:
        return None
    body = stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else ()
    if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine):
        return None
    smalls = body[0].body
    return stmt.test if len(smalls) == 1 and isinstance(smalls[0], cst.Continue) else None
