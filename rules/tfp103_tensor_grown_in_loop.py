"""TFP103 tensor-grown-in-loop."""

from __future__ import annotations

from typing import List, Optional

from tflint_perf.analysis.functions import TfFunctions
from tflint_perf.analysis.loops import enclosing_loops, range_call, small_literal
from tflint_perf.analysis.tensors import shape_axis
from tflint_perf.analysis.testcode import is_test_module
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.rule import Rule
from tflint_perf.engine.verification import Input, InputKind, Rewrite, Verification
from tflint_perf.engine.walk import descendants

# x = CONCAT([x, piece], ...) grows x.
_CONCATS = frozenset(
    {
        "tensorflow.concat",
        "numpy.concatenate",
        "numpy.vstack",
        "numpy.hstack",
        "numpy.row_stack",
        "numpy.column_stack",
        "numpy.dstack",
        "keras.ops.concatenate",
    }
)
_APPENDS = frozenset({"numpy.append"})
# t = STACK(pieces) of a list that grows in the same loop.
_STACKS = frozenset(
    {
        "tensorflow.stack",
        "tensorflow.concat",
        "numpy.stack",
        "numpy.concatenate",
        "numpy.vstack",
        "numpy.hstack",
        "keras.ops.stack",
        "keras.ops.concatenate",
    }
)


class TensorGrownInLoop(Rule):
    """A tensor is grown inside a loop by concatenating to it in every iteration.

    ## What it does
    Flags `x = tf.concat([x, piece], axis)` (also `np.concatenate`,
    `np.vstack`/`np.hstack`, `np.append`) inside a loop, and `t =
    tf.stack(pieces)` / `tf.concat(pieces)` inside the same loop that
    appends to `pieces`.

    The growing array may be tested for emptiness (`if x.size == 0`,
    `len(x) == 0`, `x is None`), grown in several branches, and copied
    whole into a second result (a row of images added to a grid).

    It stays silent when the concatenation happens once after the loop,
    when the loop reads the growing tensor for its own work (a DenseNet
    block, an autoregressive decoder: each step needs the whole prefix),
    and when the loop runs only a handful of times: over a literal
    (`for k in (1, 2, 3)`), a small `range` (`range(4)`, `range(1, 4)`), or
    a name bound to a small number (`SCALES = 3`). Loops over batches,
    steps, samples or a range of unknown size are reported.

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
    message = "{what} in every iteration of the loop at {line}: each iteration copies everything gathered so far (quadratic); {advice}"
    triggers = ("concat", "stack", "append")
    fixable = False
    # For --verify: rows to grow from when nothing calls the function; timed
    # against one concatenation after the loop (a verification-only rewrite).
    verification = Verification(
        inputs=(Input("iterated", InputKind.ROWS),), rewrite=Rewrite.CONCAT_ONCE
    )

    @classmethod
    def screen(cls, facts) -> bool:
        # Every finding grows a tensor in a loop.
        return facts.has_loop()

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.assigns: List[cst.Assign] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Call) and len(node.targets) == 1:
            self.assigns.append(node)

    def finish(self) -> None:
        if is_test_module(self.ctx):
            return
        for assign in self.assigns:
            call = assign.value
            assert isinstance(call, cst.Call)  # visit_Assign keeps calls
            qual = self.ctx.call_name(call)
            if qual is None or not call.args:
                continue
            loops = enclosing_loops(self.ctx, assign)
            if not loops or _few_iterations(self.ctx, loops[0]):
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
                line=self.ctx.line_ref(self.ctx.position(loop).start.line),
                advice=self._advice(assign, qual),
            )

    def _self_concat(self, assign, call, qual, target, loop) -> Optional[str]:
        """``x = tf.concat([x, y])``, ``x = np.append(x, y)``; x not otherwise read in the loop
        (other growth statements of x, emptiness tests and copies into another result aside)."""
        if self._own_piece(call, qual, target) is None:
            return None
        own = []
        for other in self._growths(loop, target):
            own += [
                other.targets[0].target,
                self._own_piece(other.value, self.ctx.call_name(other.value), target),
            ]
        if self._reads_elsewhere(loop, target, own):
            return None
        spelled = self.ctx.code(call.func)
        return f"`{target}` grows by `{spelled}`"

    def _own_piece(self, call, qual, target):
        """The argument that is the growing array itself (``x`` in ``np.append(x, y)``)."""
        if not isinstance(call, cst.Call) or not call.args or call.args[0].keyword is not None:
            return None
        first = call.args[0].value
        if qual in _APPENDS:
            return first if dotted(first) == target else None
        if qual not in _CONCATS or not isinstance(first, (cst.List, cst.Tuple)):
            return None
        parts = [dotted(e.value) for e in first.elements]
        if parts.count(target) != 1 or len(parts) < 2:
            return None
        return next(e.value for e in first.elements if dotted(e.value) == target)

    def _growths(self, loop, target) -> list:
        """Every ``target = CONCAT([target, ...])`` statement of the loop."""
        found = []
        for n in descendants(loop.body, skip_scopes=True):
            if (
                isinstance(n, cst.Assign)
                and len(n.targets) == 1
                and dotted(n.targets[0].target) == target
                and isinstance(n.value, cst.Call)
                and self._own_piece(n.value, self.ctx.call_name(n.value), target) is not None
            ):
                found.append(n)
        return found

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
                    if _is_none_test(parent) or self._emptiness_test(n):
                        continue  # `if x is None: x = piece else: x = tf.concat([x, piece])`
                    if self._copied_whole(n):
                        continue  # `grid = np.concatenate((grid, row))`: a second result
                    return True
        return False

    def _emptiness_test(self, node) -> bool:
        """``x.size == 0``, ``len(x) == 0``, ``x.shape[0] == 0``, ``not x``."""
        parent = self.ctx.parent(node)
        if isinstance(parent, cst.Attribute) and parent.attr.value in ("size", "shape"):
            node, parent = parent, self.ctx.parent(parent)
            if isinstance(parent, cst.Subscript):
                node, parent = parent, self.ctx.parent(parent)
        elif isinstance(parent, cst.Arg):
            call = self.ctx.parent(parent)
            if (
                isinstance(call, cst.Call)
                and isinstance(call.func, cst.Name)
                and call.func.value == "len"
            ):
                node, parent = call, self.ctx.parent(call)
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
        parent = self.ctx.parent(node)
        if isinstance(parent, cst.Assign):
            return True  # final = x
        if isinstance(parent, cst.Element):
            outer = self.ctx.parent(parent)
            call = self.ctx.parent(outer) if outer is not None else None
            call = self.ctx.parent(call) if isinstance(call, cst.Arg) else call
            return isinstance(call, cst.Call) and self.ctx.call_name(call) in _CONCATS
        return False

    def _advice(self, assign, qual: str) -> str:
        if qual.startswith("numpy."):
            return "collect the pieces in a list and call `np.concatenate`/`np.stack` once after the loop"
        func = next(
            (a for a in self.ctx.ancestors_of(assign) if isinstance(a, cst.FunctionDef)), None
        )
        if func is not None and self.ctx.shared(TfFunctions).is_wrapped_def(func):
            return "write each piece to a `tf.TensorArray` and stack/concat it once after the loop"
        return "collect the pieces in a list and concatenate once after the loop (`tf.TensorArray` inside `tf.function`)"


def _few_iterations(ctx, loop) -> bool:
    """``for k in (1, 2, 3)`` / ``for i in range(4)`` / ``range(N)`` with ``N = 3``: a
    handful of iterations, where growing costs nothing worth a finding. A loop
    over the columns of a table (``range(x.shape[1])``, ``_, cols = x.shape``)
    grows by a few features too."""
    if not isinstance(loop, cst.For):
        return False
    if small_literal(ctx, loop.iter):
        return True
    rng = range_call(loop.iter)
    return rng is not None and len(rng.args) == 1 and _column_count(ctx, rng.args[0].value)


def _column_count(ctx, expr) -> bool:
    """``x.shape[1]`` (or a later axis), or a name unpacked from a shape after its first."""
    axis = shape_axis(expr)
    if axis is not None:
        return axis[1] != 0
    if not isinstance(expr, cst.Name):
        return False
    for assign in ctx.nodes(cst.Assign):
        target = assign.targets[0].target
        value = assign.value
        is_shape = (isinstance(value, cst.Attribute) and value.attr.value == "shape") or (
            ctx.call_name(value) in ("numpy.shape", "tensorflow.shape")
        )
        if is_shape and isinstance(target, (cst.Tuple, cst.List)):
            names = [dotted(e.value) for e in target.elements]
            if expr.value in names[1:]:
                return True
    return False


def _is_none_test(node) -> bool:
    return (
        isinstance(node, cst.Comparison)
        and len(node.comparisons) == 1
        and isinstance(node.comparisons[0].operator, (cst.Is, cst.IsNot))
        and isinstance(node.comparisons[0].comparator, cst.Name)
        and node.comparisons[0].comparator.value == "None"
    )
