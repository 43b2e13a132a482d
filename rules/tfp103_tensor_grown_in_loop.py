"""TFP103 tensor-grown-in-loop."""

from __future__ import annotations

from typing import List, Optional

import libcst as cst

from tflint_perf.functions import TfFunctions
from tflint_perf.loops import enclosing_loops, range_call
from tflint_perf.names import dotted
from tflint_perf.rule import Rule
from tflint_perf.testcode import is_test_file
from tflint_perf.walk import descendants

# x = CONCAT([x, piece], ...) grows x.
_CONCATS = frozenset(
    {
        "tensorflow.concat", "numpy.concatenate", "numpy.vstack", "numpy.hstack", "numpy.row_stack",
        "numpy.column_stack", "numpy.dstack", "keras.ops.concatenate",
    }
)
_APPENDS = frozenset({"numpy.append"})
# t = STACK(pieces) of a list that grows in the same loop.
_STACKS = frozenset(
    {"tensorflow.stack", "tensorflow.concat", "numpy.stack", "numpy.concatenate", "numpy.vstack", "numpy.hstack", "keras.ops.stack", "keras.ops.concatenate"}
)


class TensorGrownInLoop(Rule):
    """A tensor is grown inside a loop by concatenating to it in every iteration.

    ## What it does
    Flags `x = tf.concat([x, piece], axis)` (also `np.concatenate`,
    `np.vstack`/`np.hstack`, `np.append`) inside a loop, and `t =
    tf.stack(pieces)` / `tf.concat(pieces)` inside the same loop that
    appends to `pieces`.

    It stays silent when the concatenation happens once after the loop,
    when the loop reads the growing tensor for its own work (a DenseNet
    block, an autoregressive decoder: each step needs the whole prefix),
    and when the loop runs over a short literal (`for k in (1, 2, 3)`,
    `range(4)`).

    ## Why is this bad?
    Each concatenation allocates a new tensor and copies everything
    gathered so far: n iterations copy O(n^2) elements instead of O(n), and
    in a `tf.function` each step also adds ops with growing shapes.

    ## Example
    ```python
    import tensorflow as tf

    def embed_all(batches, encoder):
        embeddings = tf.zeros([0, 128])
        for batch in batches:
            embeddings = tf.concat([embeddings, encoder(batch)], axis=0)
        return embeddings
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    def embed_all(batches, encoder):
        pieces = []
        for batch in batches:
            pieces.append(encoder(batch))
        return tf.concat(pieces, axis=0)
    ```
    Inside a `tf.function`, write to a `tf.TensorArray` and call
    `.stack()` / `.concat()` once after the loop.
    """

    code = "TFP103"
    name = "tensor-grown-in-loop"
    message = "{what} in every iteration of the loop on line {line}: each iteration copies everything gathered so far (quadratic); {advice}"
    triggers = ("concat", "stack", "append")
    fixable = False
    # For --verify: "grown" is the tensor/array that the loop extends;
    # "piece" is what one iteration adds (same rank, same trailing shape).
    verify_roles = {"grown": "tensor", "piece": "tensor"}

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.assigns: List[cst.Assign] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Call) and len(node.targets) == 1:
            self.assigns.append(node)

    def finish(self) -> None:
        if is_test_file(self.ctx.path):
            return
        for assign in self.assigns:
            call = assign.value
            qual = self.ctx.call_name(call)
            if qual is None or not call.args:
                continue
            loops = enclosing_loops(self.ctx, assign)
            if not loops or _short_literal(loops[0]):
                continue
            loop = loops[0]
            target = dotted(assign.targets[0].target)
            if target is None:
                continue
            found = None
            if qual in _CONCATS or qual in _APPENDS:
                found = self._self_concat(assign, call, qual, target, loop)
            if found is None and qual in _STACKS:
                found = self._stack_of_growing_list(assign, call, target, loop)
            if found is None:
                continue
            self.report(
                call,
                what=found,
                line=self.ctx.position(loop).start.line,
                advice=self._advice(assign, qual),
            )

    def _self_concat(self, assign, call, qual, target, loop) -> Optional[str]:
        """``x = tf.concat([x, y])``, ``x = np.append(x, y)``; x not otherwise read in the loop."""
        first = call.args[0]
        if first.keyword is not None:
            return None
        if qual in _APPENDS:
            if dotted(first.value) != target:
                return None
        else:
            if not isinstance(first.value, (cst.List, cst.Tuple)):
                return None
            parts = [dotted(e.value) for e in first.value.elements]
            if parts.count(target) != 1 or len(parts) < 2:
                return None
        own = first.value if qual in _APPENDS else next(e.value for e in first.value.elements if dotted(e.value) == target)
        if self._reads_elsewhere(loop, target, [assign.targets[0].target, own]):
            return None
        spelled = self.ctx.code(call.func)
        return f"`{target}` grows by `{spelled}`"

    def _stack_of_growing_list(self, assign, call, target, loop) -> Optional[str]:
        """``lst.append(v)`` and ``t = tf.stack(lst)`` in the same loop; t only used after it."""
        first = call.args[0]
        if first.keyword is not None or not isinstance(first.value, cst.Name):
            return None
        pieces = first.value.value
        appends = [
            n
            for n in descendants(loop.body, skip_scopes=True)
            if isinstance(n, cst.Call)
            and isinstance(n.func, cst.Attribute)
            and n.func.attr.value in ("append", "extend")
            and dotted(n.func.value) == pieces
        ]
        if not appends:
            return None
        # The list must be created before the loop, not afresh in it.
        for n in descendants(loop.body, skip_scopes=True):
            if isinstance(n, cst.Assign) and any(dotted(t.target) == pieces for t in n.targets):
                return None
        if self._reads_elsewhere(loop, target, [assign.targets[0].target]) or target == pieces:
            return None
        spelled = self.ctx.code(call.func)
        return f"`{spelled}({pieces})` re-stacks the growing list `{pieces}`"

    def _reads_elsewhere(self, loop, target, own) -> bool:
        """Whether the loop reads ``target`` anywhere but at the ``own`` nodes
        (the assignment target and the piece that is the tensor itself)."""
        inside = {id(n) for node in own for n in [node, *descendants(node)]}
        nodes = [loop.test] if isinstance(loop, cst.While) else []
        nodes.append(loop.body)
        for root in nodes:
            for n in [root, *descendants(root, skip_scopes=False)]:
                if id(n) in inside:
                    continue
                if isinstance(n, (cst.Name, cst.Attribute)) and dotted(n) == target:
                    parent = self.ctx.parent(n)
                    if isinstance(parent, cst.AssignTarget) and parent.target is n:
                        continue
                    if isinstance(parent, cst.Attribute) and parent.attr is n:
                        continue
                    if _is_none_test(parent):
                        continue  # `if x is None: x = piece else: x = tf.concat([x, piece])`
                    return True
        return False

    def _advice(self, assign, qual: str) -> str:
        if qual.startswith("numpy."):
            return "collect the pieces in a list and call `np.concatenate`/`np.stack` once after the loop"
        func = next((a for a in self.ctx.ancestors_of(assign) if isinstance(a, cst.FunctionDef)), None)
        if func is not None and self.ctx.shared(TfFunctions).is_wrapped_def(func):
            return "write each piece to a `tf.TensorArray` and stack/concat it once after the loop"
        return "collect the pieces in a list and concatenate once after the loop (`tf.TensorArray` inside `tf.function`)"


def _short_literal(loop) -> bool:
    """``for k in (1, 2, 3)`` / ``for i in range(4)``: a handful of iterations."""
    if not isinstance(loop, cst.For):
        return False
    if isinstance(loop.iter, (cst.List, cst.Tuple, cst.Set)):
        return True
    rng = range_call(loop.iter)
    return rng is not None and all(isinstance(a.value, cst.Integer) for a in rng.args)


def _is_none_test(node) -> bool:
    return (
        isinstance(node, cst.Comparison)
        and len(node.comparisons) == 1
        and isinstance(node.comparisons[0].operator, (cst.Is, cst.IsNot))
        and isinstance(node.comparisons[0].comparator, cst.Name)
        and node.comparisons[0].comparator.value == "None"
    )
