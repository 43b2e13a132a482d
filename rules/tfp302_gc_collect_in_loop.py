"""TFP302 gc-collect-in-loop."""

from __future__ import annotations

from typing import List, Optional, Union

from tflint_perf.analysis.loops import SCOPE_TYPES, enclosing_loops, method_name
from tflint_perf.analysis.training_loops import GRADIENT_TAPE, TrainingLoops
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.rule import SAFE, Fix, Rule
from tflint_perf.engine.verification import Verification
from tflint_perf.engine.walk import children, descendants

GC_COLLECT = "gc.collect"
# A `gc.collect()` guarded by `if step % N == 0` with N at least this runs
# rarely enough that its cost is noise.
RARE_INTERVAL = 100
# Keras calls that run a whole epoch (or more) per call.
_EPOCH_METHODS = frozenset({"fit", "evaluate", "fit_generator", "evaluate_generator"})


class GcCollectInLoop(Rule):
    """`gc.collect()` on every step of a training or inference loop.

    ## What it does
    Flags `gc.collect()` (also through `import gc as g` or
    `from gc import collect`) that runs once per training or inference
    step: in the body of a loop that itself runs a step (calls a step
    function such as `train_step()`, a `tf.function`, `strategy.run()`,
    `train_on_batch` / `predict_on_batch`, `predict`,
    `optimizer.apply_gradients`, calls a model, or opens a
    `tf.GradientTape`), and in a Keras callback's per-batch hook
    (`on_train_batch_end`, ...).

    It stays silent when the collection runs once per epoch (after an inner
    loop over the batches, in a loop whose only step is `fit`/`evaluate`,
    which run a whole epoch per call, in `on_epoch_end`), after the loop,
    in a loop that starts a new trial each iteration (calls
    `clear_session()` or builds a new model, as hyper-parameter searches
    do), and under a guard such as `if step % 1000 == 0` that runs the
    collection at most once every 100 steps.

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
    message = (
        "`{call}()` {where}: a full collection costs 50-150 ms in a TensorFlow process; remove it"
    )
    triggers = ("gc.collect", "from gc ", "import gc")
    fixable = True
    fix_summary = "safe"  # the README's Fix column
    # For --verify: the loop is timed with and without the collection.
    verification = Verification()

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
        found = self._step_loop_around(loops, call)
        if found is not None:
            loop, why = found
            line = self.ctx.line_ref(self.ctx.position(loop).start.line)
            return f"inside the training loop at {line} (it {why})"
        # Directly in a callback hook (not in a loop of its own, not in a nested def).
        for node in self.ctx.ancestors_of(call):
            if isinstance(node, (cst.For, cst.While, cst.Lambda, cst.ClassDef)):
                return None
            if isinstance(node, cst.FunctionDef):
                if loops.callback_hook(node) != "per-batch":
                    return None  # per epoch, or not a hook: not once per step
                return f"in the Keras callback's per-batch hook `{node.name.value}`"
        return None

    def _step_loop_around(self, loops: TrainingLoops, call: cst.Call):
        """(loop, evidence) for the loop whose every iteration runs a step and the call.

        Enclosing loops, nearest first: a trial loop ends the search, and so
        does an epoch loop (its steps run in an inner loop, or in ``fit``, so
        the call runs once per epoch).
        """
        for loop in enclosing_loops(self.ctx, call):
            if loops.is_trial_loop(loop):
                return None
            kind, why = _own_steps(self.ctx, loops, loop)
            if kind == "step":
                return loop, why
            if kind == "epoch" or loops.evidence(loop) is not None:
                return None  # steps in an inner loop or in fit(): once per epoch
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
        block = self.ctx.parent(line) if line is not None else None
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


def _own_steps(ctx, loops: TrainingLoops, loop: Union[cst.For, cst.While]):
    """("step", why) if the loop body itself (not an inner loop) runs a training
    or inference step; ("epoch", why) if it only calls ``fit``/``evaluate``,
    which run whole epochs; (None, None) otherwise."""
    epoch = None
    for node in _body_outside_inner_loops(loop):
        if isinstance(node, cst.With):
            for item in node.items:
                if ctx.call_name(item.item) == GRADIENT_TAPE:
                    return "step", "runs a `GradientTape`"
        elif isinstance(node, cst.Call):
            why = loops.step_call(node)
            if why is None:
                continue
            if method_name(node) in _EPOCH_METHODS:
                epoch = epoch or why
            else:
                return "step", why
    return ("epoch", epoch) if epoch else (None, None)


def _body_outside_inner_loops(loop: Union[cst.For, cst.While]):
    stack: List[cst.CSTNode] = [loop.body]
    while stack:
        node = stack.pop()
        for child in children(node):
            yield child
            if not isinstance(child, (cst.For, cst.While, SCOPE_TYPES)):
                stack.append(child)


def _young_only(call: cst.Call) -> bool:
    """``gc.collect(0)`` / ``gc.collect(1)``: a cheap young-generation pass."""
    return (
        bool(call.args)
        and isinstance(call.args[0].value, cst.Integer)
        and call.args[0].value.value in ("0", "1")
    )
