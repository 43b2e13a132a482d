"""TFP103 tensor-grown-in-loop."""

from __future__ import annotations

from typing import List

from tflint_perf.engine import cst
from tflint_perf.engine.rule import Rule
from tflint_perf.engine.verification import Input, InputKind, Rewrite, Verification


class TensorGrownInLoop(Rule):
    """A tensor is grown inside a loop by concatenating to it in every iteration.

    ## What it does
    Flags `x = tf.concat([x, piece], axis)` (also `np.concatenate`,
    `np.vstack`/`np.hstack`, `np.append`) inside a loop, and `t =
    tf.stack(pieces)` / `tf.concat(pieces)` inside the same loop that
    appends to `pieces`.

    The growing array may be a name, an attribute (`self.images`) or a
    slot with a literal key (`log["loss"]`); it may be tested for emptiness
    (`if x.size == 0`, `len(x) == 0`, `x is None`), grown in several
    branches or in one arm of `piece if x is None else np.concatenate([x,
    piece])`, and copied whole into a second result (a row of images added
    to a grid). Growth of state that outlives a call (an attribute of
    `self`, a `global` or `nonlocal` name, a slot of a container the
    function does not bind) counts in a function that a loop runs once per
    iteration, through the call graph (`replay.remember(...)` per step).

    It stays silent when the concatenation happens once after the loop,
    when a function grows its own local (it starts anew on each call),
    when the loop reads the growing tensor for its own work (a DenseNet
    block, an autoregressive decoder: each step needs the whole prefix; a
    read on the loop's first iteration only, `if step == 0:`, or on its
    last, `if done: ...; break`, `if done:` in `while not done:`, or a
    block that sets `done = True` before an `if done: break`, is no such
    work: `analysis/cadence.py`),
    and when the loop runs only a handful of times (the trip-count estimate
    of `tflint_perf/analysis/trips.py`: a literal `for k in (1, 2, 3)`, a
    small `range`, a name bound to a small number such as `SCALES = 3`) or
    over the columns of a table (`range(x.shape[1])`, `_, cols = x.shape`).
    Loops over batches, steps, samples or a range of unknown size are
    reported. `tflint-perf why` names the reason of each silence.

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
    message = "`{target}` grows by `{func}` in every iteration of the loop at {line}: {advice}"
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
        if isinstance(node.value, (cst.Call, cst.IfExp)) and len(node.targets) == 1:
            self.assigns.append(node)

    def finish(self) -> None:
        if not self.assigns:
            return
        # The model is loaded here, not at import (see TFP101).
        from .growth import Growth

        Growth(self).run(self.assigns)
