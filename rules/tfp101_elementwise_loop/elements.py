"""The detector for per-element math: which collected result shows it, and which op.

``verdict(facts)`` picks, among the results the loop collects, the one whose
math says most about the trap (``OpKind`` order: a set match before a helper
call, a scatter before a plain call, ... arithmetic before plumbing), and
the op applied there. None: the loop collects no element value with math
(bookkeeping such as ``if done[i]: log(r[i]); r[i] = 0``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Optional

from tflint_perf.analysis.api import arraymath as am
from tflint_perf.analysis.array_functions import FunctionKind
from tflint_perf.analysis.elementwise import LoopFacts, Sink, SinkKind, value_nodes
from tflint_perf.engine import cst
from tflint_perf.engine.nodes import node_types


class OpKind(enum.Enum):
    """What the loop does per element, most telling first."""

    SETOP = "set match"
    HELPER = "helper"
    SCATTER_ADD = "scatter-add"
    SCATTER = "scatter"
    COUNT = "count"
    MASK = "mask"
    CALL = "call"
    MATH = "math module"
    METHOD = "method"
    BUILTIN = "builtin"
    GATHER = "gather"
    LOOKUP = "lookup"
    COMPARE = "compare"
    ARITH = "arithmetic"
    PLUMBING = "plumbing"


_RANK = list(OpKind)
_ARITHMETIC = node_types(
    "Add",
    "Subtract",
    "Multiply",
    "Divide",
    "FloorDivide",
    "Power",
    "MatrixMultiply",
    "Modulo",
)


@dataclass(frozen=True)
class Op:
    kind: OpKind
    code: str  # as spelled in the source: `np.exp`, `sum`, `*`, `>`
    node: cst.CSTNode
    helper: Optional[FunctionKind] = None  # for the module's own functions
    array_op: Optional[am.ArrayOp] = None  # what the call does (reduction, ...)
    method: bool = False  # ``x.sum()`` rather than ``np.sum(x)``


@dataclass(frozen=True)
class Verdict:
    sink: Sink
    op: Op


def verdict(facts: LoopFacts) -> Optional[Verdict]:
    """The collected result with the most telling op."""
    best = None
    for sink in facts.sinks:
        if not collects_element(facts, sink):
            continue
        op = _op_of_sink(facts, sink)
        if op is None:
            continue
        rank = _RANK.index(op.kind)
        if best is None or rank < best[0]:
            best = (rank, Verdict(sink, op))
    return best[1] if best else None


def collects_element(facts: LoopFacts, sink: Sink) -> bool:
    if sink.kind in (
        SinkKind.APPEND,
        SinkKind.STORE,
        SinkKind.STORE_ADD,
        SinkKind.REDUCE,
        SinkKind.ELEMENT,
    ):
        if sink.kind is SinkKind.APPEND and facts.uses_element(sink.target):
            return False  # row.append(...): building a Python row
        if isinstance(sink.value, (cst.Tuple, cst.List)):
            return False  # (value, vector) pairs: Python records, not array math
        return facts.uses_element(sink.value) or (
            sink.test is not None and facts.uses_element(sink.test)
        )
    if sink.kind is SinkKind.COUNT:
        return sink.test is not None and facts.uses_element(sink.test)
    # Scatter, scatter-add: the index is an element. A whole row used as the
    # indices (multi-hot encoding of token-id sequences) is usually a ragged
    # Python list, which fancy indexing cannot take at once.
    return not _row_as_indices(facts, sink.target)


def _row_as_indices(facts: LoopFacts, target) -> bool:
    """``out[i, seq] = 1`` or ``for j in seq: out[i, j] = 1`` with ``seq`` a row of the
    walked sequences, named as one (a scalar label ``out[y, i] = 1`` is a real scatter)."""
    if not isinstance(target, cst.Subscript):
        return False
    rows = {e for e in facts.walk.elements if am.SEQUENCE_NAMES.search(e)}
    for node in facts.nodes:
        if isinstance(node, cst.For) and isinstance(node.iter, cst.Name):
            if node.iter.value in rows and isinstance(node.target, cst.Name):
                rows.add(node.target.value)
    return any(
        isinstance(e.slice, cst.Index)
        and isinstance(e.slice.value, cst.Name)
        and e.slice.value.value in rows
        for e in target.slice
    )


def _op_of_sink(facts: LoopFacts, sink: Sink) -> Optional[Op]:
    if sink.kind is SinkKind.SCATTER:
        return Op(OpKind.SCATTER, "", sink.node)
    if sink.kind is SinkKind.SCATTER_ADD:
        return Op(OpKind.SCATTER_ADD, "", sink.node)
    if sink.kind is SinkKind.COUNT:
        return Op(OpKind.COUNT, "", sink.node)
    op = op_of(facts, sink.value, depth=0)
    if op is None and sink.kind is SinkKind.STORE_ADD and isinstance(sink.node, cst.AugAssign):
        # `x[i, j] += y[i, j]`: the in-place operator is the element-wise math.
        symbol = facts.ctx.code(sink.node.operator).strip().rstrip("=")
        if symbol in ("+", "-", "*", "/") and facts.uses_element(sink.value):
            op = Op(OpKind.ARITH, symbol, sink.node)
    if sink.test is not None and facts.uses_element(sink.test):
        if op is None and op_of(facts, sink.test, depth=0) is None:
            return None  # `if done[i]: log(x[i]); x[i] = 0`: bookkeeping, no math
        if op is None or op.kind is not OpKind.HELPER:
            return Op(OpKind.MASK, "", sink.test)
    return op


def op_of(facts: LoopFacts, expr, depth: int) -> Optional[Op]:
    """The math applied to element data in ``expr`` (or in the names it reads)."""
    if expr is None:
        return None
    best = None
    for node in value_nodes(expr):
        op = _op_at(facts, node)
        if op is not None and (best is None or _RANK.index(op.kind) < _RANK.index(best.kind)):
            best = op
    if best is not None or depth > 3:
        return best
    plumbing = None  # as for the same call written inline: taken when nothing tells more
    for name in facts.reads(expr):
        if name in facts.derived and facts.derived[name] is not expr:
            op = op_of(facts, facts.derived[name], depth + 1)
            if op is not None and op.kind is not OpKind.PLUMBING:
                return op
            plumbing = plumbing or op
    return plumbing


def _op_at(facts: LoopFacts, node) -> Optional[Op]:
    uses = facts.uses_element
    code = facts.ctx.code
    if isinstance(node, cst.Call):
        return _call_op(facts, node)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _ARITHMETIC):
        if uses(node.left) or uses(node.right):
            return Op(OpKind.ARITH, code(node.operator).strip(), node)
    if isinstance(node, cst.Comparison) and uses(node):
        return Op(OpKind.COMPARE, code(node.comparisons[0].operator).strip(), node)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        if uses(node.expression):
            return Op(OpKind.ARITH, "-", node)
    if isinstance(node, cst.IfExp) and uses(node.test) and _selects(facts, node):
        return Op(OpKind.MASK, "", node)  # ``a[i] if keep[i] else b[i]``: a select, np.where
    if isinstance(node, cst.Subscript) and node in facts.gathers:
        return Op(OpKind.GATHER, "", node)
    if isinstance(node, cst.Subscript) and node in facts.lookups:
        return Op(OpKind.LOOKUP, code(node.value), node)
    return None


def _selects(facts: LoopFacts, choice: cst.IfExp) -> bool:
    """Both branches pick data per element: an element, or an item of another
    sequence at the loop's index (``real[i] if keep[i] else fake[i]``)."""
    return all(
        facts.uses_element(branch)
        or (isinstance(branch, cst.Subscript) and facts.walk.var in facts.reads(branch.slice[0]))
        for branch in (choice.body, choice.orelse)
    )


def _call_op(facts: LoopFacts, call: cst.Call) -> Optional[Op]:
    uses = facts.uses_element
    args_use = any(uses(a.value) for a in call.args if a.keyword is None)
    qual = facts.ctx.call_name(call)
    func = call.func
    spelled = facts.ctx.code(func)
    if qual is not None and args_use:
        op = am.op(qual, len(call.args))
        if op is am.ArrayOp.SET:
            return Op(OpKind.SETOP, spelled, call, array_op=op)
        if qual.startswith(am.MATH_MODULE):
            return Op(OpKind.MATH, spelled, call, array_op=op)
        if op is am.ArrayOp.SHAPE and _packs_values(call):
            return None  # np.array([x, y]): a record built from Python values, not array math
        if op is not None and op is not am.ArrayOp.NOT_MATH:
            kind = OpKind.PLUMBING if op is am.ArrayOp.SHAPE else OpKind.CALL
            return Op(kind, spelled, call, array_op=op)
    if isinstance(func, cst.Name) and args_use:
        if func.value in am.BUILTIN_MATH and am.BUILTIN_MATH[func.value]:
            return Op(OpKind.BUILTIN, func.value, call)
    helper = facts.functions.kind_of_call(call)
    if helper is not None and args_use:
        return Op(OpKind.HELPER, spelled, call, helper=helper)
    if isinstance(func, cst.Attribute) and uses(func.value):
        op = am.method_op(func.attr.value)
        if op is None:
            return None
        kind = OpKind.PLUMBING if op is am.ArrayOp.SHAPE else OpKind.METHOD
        return Op(kind, func.attr.value, call, array_op=op, method=True)
    return None


def _packs_values(call: cst.Call) -> bool:
    """``np.array([a, b])``: its data is a list or tuple spelled out, several values packed."""
    first = call.args[0].value if call.args and call.args[0].keyword is None else None
    return isinstance(first, (cst.List, cst.Tuple)) and len(first.elements) > 1
