"""The one vectoriser: what a per-element loop computes, as code over whole arrays.

TFP101's advice and ``--verify``'s timing read the same text: the rule
attaches it to the finding (``Finding.extra["whole_array"]``) and ``--verify``
times exactly it against the loop.

``Vectoriser(facts)`` lifts an expression of the loop body, computed for one
element, to one computed for all elements at once (``lift``): ``x[i]`` and a
row ``row`` of ``x`` become ``x``, ``a[0, i]`` becomes ``a[0, :]``, ``p[i,
y[i]]`` becomes ``p[np.arange(n), y]``, element-wise calls stay, a reduction
of a row gains ``axis=1`` (``np.amax(q[i])`` -> ``np.amax(q, axis=1)``),
``np.dot(x[i], w)`` becomes ``np.dot(x, w)``, ``a if c else b`` becomes
``np.where(c, a, b)``, names the body computes from elements are replaced by
their values. What cannot be lifted with the same meaning (a shifted index,
a window, a call the file does not show to be element-wise) gives None: the
advice then names the function to use instead of inventing code.

``plan()`` turns the loop's collected results into statements: ``out[i] =
v`` -> ``out[:] = V``, ``target[i][a[i]] = v`` -> ``target[np.arange(n), a]
= V``, ``acc += v`` -> ``acc += np.sum(V, axis=0)``, ``n += 1`` under a test
-> ``n += np.count_nonzero(C)``, ``out[idx[i]] += v`` -> ``np.add.at(out,
idx, V)``, appends stacked after the loop -> ``y = V``; with the nodes the
statements replace, so a fix or ``--verify`` can apply them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, List, Optional, Tuple

from tflint_perf.analysis.api import arraymath as am
from tflint_perf.analysis.lifting import WALK, Lifted, Lifter, atom
from tflint_perf.engine import cst

if TYPE_CHECKING:
    from tflint_perf.analysis.elementwise import Sink

__all__ = ["Lifted", "Plan", "Vectoriser", "atom"]


def _nodes_of(expr):
    from tflint_perf.engine.walk import descendants

    return [expr, *descendants(expr)]


def value_nodes(expr):
    from tflint_perf.analysis.elementwise import value_nodes as nodes

    return list(nodes(expr))


@dataclass
class Plan:
    """Statements doing the loop's work on whole arrays, and what they replace."""

    statements: List[str]
    # the first node replaced (the loop, or the call stacking a comprehension)
    first: cst.CSTNode = field(repr=False)
    # the last node replaced (the loop, or the statement stacking its list)
    last: cst.CSTNode = field(repr=False)
    expression: bool = False  # the statements are one expression replacing ``first``
    assumptions: List[str] = field(default_factory=list)


class Vectoriser(Lifter):
    """Whole-array forms of one loop's per-element work (see the module docstring)."""

    def expression(self, expr) -> Optional[str]:
        """``expr`` over whole arrays, or None when no form with the same meaning is known."""
        lifted = self.lift(expr)
        return lifted.code if lifted is not None and self.clean(lifted.code) else None

    # -- statements --------------------------------------------------------------
    def plan(self) -> Optional[Plan]:
        """The loop's results as whole-array statements, or None."""
        facts = self.facts
        loop = facts.walk.node
        if not facts.sinks or not self._only_sinks():
            return None
        if isinstance(loop, (cst.ListComp, cst.GeneratorExp)):
            return self._comprehension(facts.sinks[0])
        statements: List[str] = []
        consumer = None
        for sink in facts.sinks:
            made = self._sink(sink)
            if made is None:
                return None
            text, stacked = made
            if stacked is not None:
                if consumer is not None:
                    return None
                consumer = stacked
            if text != _WRITTEN:
                statements.append(text)
        if not all(self.clean(s) for s in statements) or self._read_after(loop):
            return None
        return Plan(statements, loop, consumer or loop, assumptions=list(self.assumptions))

    def lift_value(self, expr) -> Optional[Lifted]:
        """A collected value over whole arrays; in TensorFlow code, what does not lift
        op by op is mapped over the rows (``tf.vectorized_map``)."""
        return self.lift(expr) or self._mapped(expr)

    def _mapped(self, expr) -> Optional[Lifted]:
        """``tf.vectorized_map(lambda row: f(row), x)`` for a value computed from one row
        of the walked tensor ``x`` (``f(x[i])`` or ``f(row)``) and nothing else of the loop."""
        facts, walk = self.facts, self.facts.walk
        if not self.tensors or self.tf is None or not walk.tensor or facts.derived:
            return None
        rows = [
            n
            for n in value_nodes(expr)
            if isinstance(n, cst.Subscript)
            and len(n.slice) == 1
            and self.ctx.code(n.slice[0].slice).strip() in facts.index
            and self.ctx.code(n.value).strip() == walk.tensor
        ]
        names = {n.value for n in _nodes_of(expr) if isinstance(n, cst.Name)}
        param = walk.var if walk.var in walk.elements else "row"
        if param in names - set(walk.elements):
            return None
        code = self.ctx.code(expr).strip()
        for row in rows:
            code = code.replace(self.ctx.code(row).strip(), param)
        if "\n" in code:
            code = f"({code})"  # an expression over several lines (a conditional in a call)
        try:
            parsed = cst.parse_expression(code)
        except cst.ParserSyntaxError:
            return None  # the rows' replacement did not leave Python: no advice
        rest = set(facts.sem.reads(parsed)) & self.loop_only - {param}
        if rest:
            return None
        return Lifted(f"{self.tf}.vectorized_map(lambda {param}: {code}, {walk.tensor})", (WALK,))

    def _comprehension(self, sink: "Sink") -> Optional[Plan]:
        loop = self.facts.walk.node
        value = self.lift_value(sink.value)
        if value is None or not value.batched:
            return None
        code = value.code
        if sink.test is not None:
            test = self.lift(sink.test)
            if test is None or not test.batched or self.tensors:
                return None
            code = f"{atom(code)}[{test.code}]"
        if not self.clean(code):
            return None
        outer = self._stacking_call(loop)
        if outer is not None:
            return Plan([code], outer, outer, expression=True, assumptions=list(self.assumptions))
        if not isinstance(loop, cst.ListComp):
            return None  # a generator handed to something that consumes it one item at a time
        # a list nothing stacks stays a list: of the rows of the whole-array result
        return Plan(
            [f"list({code})"], loop, loop, expression=True, assumptions=list(self.assumptions)
        )

    def _stacking_call(self, node) -> Optional[cst.Call]:
        """``np.array([... for ...])`` / ``tf.stack(...)`` around a comprehension."""
        arg = self.ctx.parent(node)
        call = self.ctx.parent(arg) if isinstance(arg, cst.Arg) else None
        if not isinstance(call, cst.Call) or call.args[0] is not arg or len(call.args) != 1:
            return None
        qual = self.ctx.call_name(call) or ""
        last = qual.rsplit(".", 1)[-1]
        if qual.startswith(am.ROOTS) and (last in am.FROM_DATA or last == "stack"):
            return call
        return None

    def _only_sinks(self) -> bool:
        """Every statement of the body is a sink, a name computed from elements, the
        ``while`` step, or an ``if`` / inner ``for`` holding only these."""
        facts = self.facts
        loop = facts.walk.node
        if isinstance(loop, (cst.ListComp, cst.GeneratorExp)):
            return len(facts.sinks) == 1
        sinks = {id(s.node) for s in facts.sinks}
        for node in facts.nodes:
            if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Expr)):
                if id(node) in sinks or node is facts.walk.step:
                    continue
                if isinstance(node, cst.Assign) and all(
                    isinstance(t.target, cst.Name) and t.target.value in facts.derived
                    for t in node.targets
                ):
                    continue
                return False
            if isinstance(node, (cst.Pass, cst.Continue)):
                return False
        return True

    def _read_after(self, loop) -> bool:
        """A name the loop binds (a derived name, the ``while`` counter) is read after it."""
        facts = self.facts
        first, last = self.ctx.span(loop)
        bound = set(facts.derived) | (set(facts.index) if facts.walk.step is not None else set())
        for binding in facts.sem.bindings_in(loop):
            if binding.name not in bound:
                continue
            for scope_binding in binding.scope.bindings.get(binding.name, ()):
                if scope_binding is binding:
                    break
            for name in self._reads_of(binding.name, binding.scope):
                at = self.ctx.span(name)[0]
                if not first <= at <= last and binding in facts.sem.lookup(binding.name, name):
                    return True
        return False

    def _reads_of(self, name: str, scope) -> List[cst.Name]:
        found = self._names_by_value.get(name)
        if found is None:
            found = self._names_by_value[name] = [
                n for n in self.ctx.nodes(cst.Name) if n.value == name
            ]
        return [n for n in found if self.facts.sem.scope_of(n) is scope]

    def _sink(self, sink: "Sink") -> Optional[Tuple[str, Optional[cst.CSTNode]]]:
        from tflint_perf.analysis.elementwise import SinkKind

        kind = sink.kind
        if sink.nested:
            return None
        if kind is SinkKind.APPEND:
            return self._append(sink)
        if kind is SinkKind.COUNT:
            test = self.lift(sink.test) if sink.test is not None else None
            if test is None or not test.batched:
                return None
            cond = f"~{atom(test.code)}" if sink.negated else test.code
            return f"{self.ctx.code(sink.target)} += {self.lib('count_nonzero')}({cond})", None
        value = self.lift(sink.value)
        if value is None:
            return None
        if kind is SinkKind.REDUCE:
            return self._reduce(sink, value), None
        target = self.lift_target(sink.target)
        if target is None:
            return None
        if kind is SinkKind.SCATTER_ADD:
            if self.tensors or not value.batched and not target.fancy:
                return None
            index = target.index_code()
            return f"{self.np}.add.at({target.base}, {index}, {value.code})", None
        operator = "=" if kind in (SinkKind.STORE, SinkKind.SCATTER) else _aug(sink.node)
        if operator is None:
            return None
        if sink.test is None:
            return f"{target.code} {operator} {value.code}", None
        return self._masked(sink, target, value, operator)

    def _masked(self, sink, target, value, operator) -> Optional[Tuple[str, None]]:
        """A store under a test: ``np.where`` for an ``if``/``else`` pair into one target,
        a boolean mask for one branch."""
        test = self.lift(sink.test)
        if test is None or not test.batched or self.tensors:
            return None
        pair = [
            s
            for s in self.facts.sinks
            if s.test is sink.test
            and s.target is not None
            and self.ctx.code(s.target) == self.ctx.code(sink.target)
        ]
        if len(pair) == 2 and operator == "=" and pair[0].negated != pair[1].negated:
            if pair[1] is sink:
                return _WRITTEN, None  # written with the first of the pair
            other = self.lift(pair[1].value)
            if other is None:
                return None
            yes, no = (value.code, other.code) if not sink.negated else (other.code, value.code)
            return f"{target.code} = {self.lib('where')}({test.code}, {yes}, {no})", None
        if len(pair) != 1 or not target.whole_rows:
            return None
        cond = f"~{atom(test.code)}" if sink.negated else test.code
        picked = f"{atom(value.code)}[{cond}]" if value.batched else value.code
        return f"{target.masked(cond)} {operator} {picked}", None

    def _reduce(self, sink: "Sink", value: Lifted) -> str:
        target = self.ctx.code(sink.target)
        operator = _aug(sink.node) or "+="
        axes = "0" if len(value.dims) <= 1 else f"({', '.join(map(str, range(len(value.dims))))})"
        if sink.test is not None:
            test = self.lift(sink.test)
            if test is None or not test.batched or self.tensors:
                return ""
            cond = f"~{atom(test.code)}" if sink.negated else test.code
            if value.batched:
                return f"{target} {operator} {self.lib('sum')}({atom(value.code)}[{cond}], axis=0)"
            return f"{target} {operator} {atom(value.code)} * {self.lib('count_nonzero')}({cond})"
        if not value.batched:
            return (
                f"{target} {operator} {atom(value.code)} * {self.count()}" if self.count() else ""
            )
        return f"{target} {operator} {self.lib('sum')}({value.code}, axis={axes})"

    def _append(self, sink: "Sink") -> Optional[Tuple[str, Optional[cst.CSTNode]]]:
        facts = self.facts
        if facts.walk.reordered or sink.negated and sink.test is None:
            return None
        value = self.lift_value(sink.value)
        if value is None or not value.batched or len(value.dims) != 1:
            return None
        code = value.code
        listed = self.ctx.code(sink.target)
        appends = [
            s
            for s in facts.sinks
            if s.kind is sink.kind and s.target is not None and self.ctx.code(s.target) == listed
        ]
        if sink.test is not None:
            test = self.lift(sink.test)
            if test is None or not test.batched or self.tensors:
                return None
            pair = [s for s in appends if s.test is sink.test]
            if len(appends) == 2 and len(pair) == 2 and pair[0].negated != pair[1].negated:
                # ``if t: acc.append(a) else: acc.append(b)``: one list, in order
                if pair[1] is sink:
                    return _WRITTEN, None  # written with the first of the pair
                other = self.lift_value(pair[1].value)
                if other is None or not other.batched or len(other.dims) != 1:
                    return None
                yes, no = (code, other.code) if not sink.negated else (other.code, code)
                code = f"{self.lib('where')}({test.code}, {yes}, {no})"
            elif len(appends) == 1:
                cond = f"~{atom(test.code)}" if sink.negated else test.code
                code = f"{atom(code)}[{cond}]"
            else:
                return None  # appends from several branches: their order is the loop's
        elif len(appends) != 1:
            return None
        stacked = self._stacked_after(sink.target)
        if stacked is not None:
            prefix, statement = stacked
            return f"{prefix}{code}", statement
        return f"{listed}.extend({code})", None

    def _stacked_after(self, listed) -> Optional[Tuple[str, cst.CSTNode]]:
        """``y = np.array(acc)`` (or ``return tf.stack(acc)``) right after the loop:
        (what it binds, the statement)."""
        loop = self.facts.walk.node
        block = self.ctx.parent(loop)
        body = getattr(block, "body", None)
        if not isinstance(body, (list, tuple)) or loop not in body:
            return None
        index = list(body).index(loop)
        if index + 1 >= len(body) or not isinstance(body[index + 1], cst.SimpleStatementLine):
            return None
        line = body[index + 1]
        if len(line.body) != 1:
            return None
        small = line.body[0]
        value = getattr(small, "value", None)
        if not isinstance(value, cst.Call) or len(value.args) != 1:
            return None
        arg = value.args[0].value
        if self.ctx.code(arg) != self.ctx.code(listed) or self._stacking_call_of(value) is None:
            return None
        if isinstance(small, cst.Return):
            return "return ", line
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            return f"{self.ctx.code(small.targets[0].target).strip()} = ", line
        return None

    def _stacking_call_of(self, call: cst.Call) -> Optional[cst.Call]:
        qual = self.ctx.call_name(call) or ""
        last = qual.rsplit(".", 1)[-1]
        keywords = [a for a in call.args if a.keyword is not None]
        if keywords:
            return None
        if qual.startswith(am.ROOTS) and (last in am.FROM_DATA or last == "stack"):
            return call
        return None


_WRITTEN = "<written with another result>"


def _aug(node) -> Optional[str]:
    if isinstance(node, cst.AugAssign):
        symbol = node.operator
        return {
            cst.AddAssign: "+=",
            cst.SubtractAssign: "-=",
            cst.MultiplyAssign: "*=",
            cst.DivideAssign: "/=",
        }.get(type(symbol))
    return "+="  # n = n + v
