"""Sizes told by indexing: a loop bounded by a short literal list it indexes on
every iteration, and a comprehension whose list is read back at a few indices.

``for i in range(len(outputs)): loss += WEIGHTS[i] * ...`` with ``WEIGHTS`` a
list of four spelled out in the source runs at most four times: a fifth
index would raise ``IndexError``. ``Trips`` uses it when the loop's header
alone says nothing smaller (``len`` of a model's outputs).
"""

from __future__ import annotations

from typing import Iterator, List, Optional

from tflint_perf.analysis.estimates import TINY, Estimate, Spelled, counted
from tflint_perf.analysis.semantic import SemanticModel
from tflint_perf.analysis.shapes import literal_number
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.nodes import assigned_name, node_types
from tflint_perf.engine.walk import children

# Code that may be skipped on an iteration: branches, short-circuit operands, scopes.
_MAYBE = node_types(
    "IfExp", "BooleanOperation", "Lambda", "ListComp", "SetComp", "DictComp", "GeneratorExp"
)
_LEAVES = node_types("Break", "Continue", "Return", "Raise")


def indexes_a_literal(ctx, sem: SemanticModel, loop: cst.For) -> Optional[Estimate]:
    """At most as many iterations as a literal list of a handful that every iteration
    of ``for i in range(...)`` reads at ``[i]``; None when there is none."""
    index = loop.target
    rng = loop.iter
    if not (
        isinstance(index, cst.Name)
        and isinstance(rng, cst.Call)
        and isinstance(rng.func, cst.Name)
        and rng.func.value == "range"
        and rng.args
        and (len(rng.args) == 1 or literal_number(rng.args[0].value) == 0)
    ):
        return None
    if any(b.name == index.value for b in sem.bindings_in(loop.body)):
        return None  # ``i`` changed in the body
    for node in _always_evaluated(loop.body):
        if not (
            isinstance(node, cst.Subscript)
            and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)
            and isinstance(node.slice[0].slice.value, cst.Name)
            and node.slice[0].slice.value.value == index.value
        ):
            continue
        items = literal_length(sem, node.value)
        if items is not None and items <= TINY:
            code = Spelled(ctx, node.value)
            return counted(items, f"`{index.value}` indexes `{code}`, {items} literal items")
    return None


def literal_length(sem: SemanticModel, expr, depth: int = 0) -> Optional[int]:
    """How many items a list or tuple spelled out in the source has (through names;
    ``[0.0] * 4`` included)."""
    if isinstance(expr, (cst.List, cst.Tuple)):
        if any(isinstance(e, cst.StarredElement) for e in expr.elements):
            return None
        return len(expr.elements)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
        for own, other in ((expr.left, expr.right), (expr.right, expr.left)):
            if isinstance(own, (cst.List, cst.Tuple)) and isinstance(other, cst.Integer):
                items = literal_length(sem, own, depth)
                return None if items is None else items * int(other.evaluated_value)
        return None
    if isinstance(expr, (cst.Name, cst.Attribute)) and depth < 3:
        value = sem.value_of(expr)
        if value is None or dotted(expr) in sem.changed_in_place():
            return None  # ``self.actions = []`` appended to in another method
        return literal_length(sem, value, depth + 1)
    return None


def _always_evaluated(block: cst.BaseSuite) -> Iterator[cst.CSTNode]:
    """Nodes of a loop body's simple statements that run on every iteration, up to
    the first statement that may leave it (compound statements are skipped)."""
    lines: List[cst.CSTNode] = list(block.body) if isinstance(block, cst.IndentedBlock) else [block]
    for line in lines:
        if not isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            continue
        todo: List[cst.CSTNode] = list(line.body)
        while todo:
            node = todo.pop()
            if isinstance(node, _MAYBE):
                continue
            yield node
            todo.extend(children(node))
        if any(isinstance(small, _LEAVES) for small in line.body):
            return


def read_as_record(ctx, sem: SemanticModel, loop: cst.CSTNode) -> Optional[int]:
    """``box = [int(s * v) for v in box]`` read back only as ``box[0]`` ... ``box[3]``:
    a record of a few fields (a box, a point), not rows of data. How many the highest
    index says; None when any read is something else (a loop, a slice, a call)."""
    parent = ctx.parent(loop)
    name = assigned_name(parent)
    if name is None:
        return None
    binding = next((b for b in sem.bindings_of(parent) if b.name == name), None)
    reads = sem.references(binding) if binding is not None else []
    highest = -1
    for read in reads:
        subscript = ctx.parent(read)
        if not (
            isinstance(subscript, cst.Subscript)
            and subscript.value is read
            and len(subscript.slice) == 1
            and isinstance(subscript.slice[0].slice, cst.Index)
        ):
            return None
        index = literal_number(subscript.slice[0].slice.value)
        if index is None or index < 0 or index != int(index):
            return None
        highest = max(highest, int(index))
    return highest + 1 if 0 <= highest < TINY else None
