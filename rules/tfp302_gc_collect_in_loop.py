"""TFP302 gc-collect-in-loop."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tflint_perf.names import dotted
from tflint_perf.rule import SAFE, Fix, Rule
from tflint_perf.training_loops import TrainingLoops
from tflint_perf.walk import descendants

GC_COLLECT = "gc.collect"
# A `gc.collect()` guarded by `if step % N == 0` with N at least this runs
# rarely enough that its cost is noise.
RARE_INTERVAL = 100


class GcCollectInLoop(Rule):
    """`gc.collect()` on every step of a training or inference loop.

    ## What it does
    Flags `gc.collect()` (also through `import gc as g` or
    `from gc import collect`) called inside a training or inference loop, a
    loop that calls a step function (`train_step()`, a `tf.function`,
    `strategy.run()`), `fit` / `train_on_batch` / `predict_on_batch`,
    `optimizer.apply_gradients`, calls a model, or opens a
    `tf.GradientTape`, and inside a Keras callback's per-batch or per-epoch
    hook (`on_train_batch_end`, `on_epoch_end`, ...).

    It stays silent after the loop, in a loop that starts a new trial each
    iteration (calls `clear_session()` or builds a new model, as
    hyper-parameter searches do), and under a guard such as
    `if step % 1000 == 0` that runs the collection at most once every 100
    steps.

    ## Why is this bad?
    A full collection walks every Python object the process holds; a
    TensorFlow/Keras program holds millions (graphs, layers, traced
    functions). On TF 2.21, one `gc.collect()` took 57-153 ms, and
    collecting every 10 steps slowed small training loops 1.5-13x. Python's
    generational collector already runs on its own; TensorFlow memory is
    freed by reference counting as soon as tensors go out of scope.

    ## Example
    ```python
    import gc

    import tensorflow as tf

    for step, (x, y) in enumerate(dataset):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        gc.collect()
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    for step, (x, y) in enumerate(dataset):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
    ```

    ## Fix safety
    The fix deletes the `gc.collect()` statement (or replaces it with
    `pass` when it is the only statement of its block). It is safe: the
    program computes the same results, and unreachable objects are still
    reclaimed by the automatic collector. It is offered only when the call
    is a statement of its own; when its return value is used, the finding
    has no fix.
    """

    code = "TFP302"
    name = "gc-collect-in-loop"
    message = "`{call}()` {where}: a full collection costs 50-150 ms in a TensorFlow process; remove it"
    triggers = ("gc.collect", "from gc ", "import gc")
    fixable = True
    # How --verify can exercise a finding (data only): time the enclosing
    # loop before and after the fix; the fixed program must be faster and
    # produce the same output.
    verify_roles = {"kind": "speedup", "measure": "enclosing-loop", "same_output": True}

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.calls: list = []

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.call_name(node) == GC_COLLECT and not _young_only(node):
            self.calls.append(node)

    def finish(self) -> None:
        calls = self.calls
        if not calls:
            return
        loops = self.ctx.shared(TrainingLoops)
        for call in calls:
            where = self._where(loops, call)
            if where is None or self._rarely_run(call):
                continue
            self.report(call, call=dotted(call.func), where=where, fix=self._fix(call))

    def _where(self, loops: TrainingLoops, call: cst.Call) -> Optional[str]:
        found = loops.training_loop_around(call)
        if found is not None:
            loop, why = found
            line = self.ctx.position(loop).start.line
            return f"inside the training loop on line {line} (it {why})"
        # Directly in a callback hook (not in a loop of its own, not in a nested def).
        for node in self.ctx.ancestors_of(call):
            if isinstance(node, (cst.For, cst.While, cst.Lambda, cst.ClassDef)):
                return None
            if isinstance(node, cst.FunctionDef):
                kind = loops.callback_hook(node)
                if kind is None:
                    return None
                return f"in the Keras callback's {kind} hook `{node.name.value}`"
        return None

    def _rarely_run(self, call: cst.Call) -> bool:
        """Under ``if <x> % N == 0`` with a literal N >= RARE_INTERVAL."""
        for node in self.ctx.ancestors_of(call):
            if isinstance(node, (cst.For, cst.While, cst.FunctionDef)):
                return False
            if isinstance(node, cst.If):
                for sub in [node.test, *descendants(node.test)]:
                    if (
                        isinstance(sub, cst.BinaryOperation)
                        and isinstance(sub.operator, cst.Modulo)
                        and isinstance(sub.right, cst.Integer)
                        and int(sub.right.evaluated_value) >= RARE_INTERVAL
                    ):
                        return True
        return False

    def _fix(self, call: cst.Call) -> Optional[Fix]:
        expr = self.ctx.parent(call)
        if not isinstance(expr, cst.Expr):
            return None
        line = self.ctx.parent(expr)
        block = self.ctx.parent(line)
        message = "Remove the `gc.collect()` call"
        if (
            isinstance(line, cst.SimpleStatementLine)
            and len(line.body) == 1
            and isinstance(block, (cst.IndentedBlock, cst.Module))
            and len(block.body) > 1
        ):
            start, end = self.ctx.statement_lines(line)
            return Fix((self.ctx.delete_lines(start, end),), SAFE, message)
        # The only statement of its block, or one of several on a line.
        return Fix((self.ctx.replace(expr, "pass"),), SAFE, message)


def _young_only(call: cst.Call) -> bool:
    """``gc.collect(0)`` / ``gc.collect(1)``: a cheap young-generation pass."""
    return bool(call.args) and isinstance(call.args[0].value, cst.Integer) and call.args[0].value.value in ("0", "1")
