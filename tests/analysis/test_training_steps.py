"""Training steps, how they run (compiled, hot), and what tracing would change."""

from tests.analysis.snippets import context
from tflint_perf.analysis.extraction import Extractions
from tflint_perf.analysis.reach import Reach
from tflint_perf.analysis.tapes import TapeSteps
from tflint_perf.analysis.tracing import STATE, UNREAD, Severity, Tracing
from tflint_perf.engine import cst


def func(ctx, name):
    return next(f for f in ctx.nodes(cst.FunctionDef) if f.name.value == name)


STEPS = """
import tensorflow as tf
model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
opt = tf.keras.optimizers.SGD(0.1)

def apply(grads):
    opt.apply_gradients(zip(grads, model.trainable_variables))

def inline(batches):
    for x, y in batches:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        apply(grads)

def step(x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(model(x))
    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

def saliency(images):
    maps = []
    for x in images:
        with tf.GradientTape() as tape:
            tape.watch(x)
            score = tf.reduce_max(model(x))
        maps.append(tape.gradient(score, x))
    return maps

def gradients(x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(model(x))
    return tape.gradient(loss, model.trainable_variables)
"""


def test_tape_steps_their_updates_and_tapes_that_are_not_steps():
    ctx = context(STEPS)
    steps = ctx.shared(TapeSteps)
    by_scope = {s.scope.name.value: s for s in steps.steps}
    assert set(by_scope) == {"inline", "step", "gradients"}
    assert by_scope["inline"].loop is not None  # an inline step, applied through a helper
    assert [ctx.code(u) for u in by_scope["inline"].updates] == ["apply(grads)"]
    assert by_scope["step"].loop is None and by_scope["step"].tapes == ("tape",)
    assert by_scope["gradients"].returns_gradients
    (saliency,) = steps.not_steps  # its gradients feed a map, no update
    assert steps.sem.function_of(saliency).name.value == "saliency"


def test_a_tf1_eager_gradient_function_makes_a_step():
    ctx = context(
        """
        import tensorflow.contrib.eager as tfe
        grad_fn = tfe.implicit_value_and_gradients(loss_fn)
        for x in data:
            loss, grads = grad_fn(x)
            optimizer.apply_gradients(grads)
        """
    )
    (step,) = ctx.shared(TapeSteps).steps
    assert step.via == "grad_fn" and step.tapes == ()


def test_compiled_functions_and_what_only_compiled_code_calls():
    ctx = context(
        """
        import tensorflow as tf
        @tf.function
        def a(x):
            return b(x)
        def b(x):
            return x
        def c(x):
            return x
        c_fast = tf.function(c)
        def d(x):
            return x
        strategy.run(d, args=(1,))
        def e(x):
            return x
        e(1)
        """
    )
    reach = ctx.shared(Reach)
    assert [f for f in "abcde" if reach.compiles(func(ctx, f))] == ["a", "c", "d"]
    assert reach.compiled(func(ctx, "b").body)  # only a compiled function calls it
    assert not reach.compiled(func(ctx, "e").body)


def test_hot_through_helpers_and_never_through_a_handful_of_iterations():
    ctx = context(
        """
        def step(x):
            return x
        def helper(x):
            return step(x)
        def few():
            for _ in range(4):
                step(1)
        for batch in dataset:
            helper(batch)
        """
    )
    reach = ctx.shared(Reach)
    hot = reach.hot(func(ctx, "step").body)
    assert hot is not None
    assert [ctx.code(c) for c in hot.calls] == ["step(x)", "helper(batch)"]
    assert reach.in_a_loop(func(ctx, "few").body) is False
    only_few = context("def step(x):\n    return x\nfor _ in range(4):\n    step(1)\n")
    r = only_few.shared(Reach)
    assert r.hot(func(only_few, "step").body) is None
    assert r.in_a_loop(func(only_few, "step").body)


def test_tracing_problems_state_two_calls_down_and_calls_nobody_can_read():
    ctx = context(
        """
        import numpy as np
        import tensorflow as tf
        from helpers import augment
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        loss_fn = tf.keras.losses.MeanSquaredError()
        class Counter:
            def bump(self):
                self.n += 1
        counter = Counter()
        def log():
            counter.bump()
        def step(x, y):
            x = augment(x)
            loss = loss_fn(y, model(x))
            print(loss)
            log()
            return np.mean(loss.numpy())
        """
    )
    tracing = ctx.shared(Tracing)
    step = func(ctx, "step")
    found = {(p.severity, p.what.split(" (")[0], p.why) for p in tracing.problems_in(step.body)}
    assert (Severity.BLOCKER, "`.numpy()`", "has no value in a graph") in found
    assert (Severity.BLOCKER, "`np.mean()`", "cannot run on graph tensors") in found
    assert any(p[1] == "`print()`" for p in found)
    state = tracing.mutations(step)
    assert [p.why for p in state] == [STATE] and "in `bump()`" in state[0].what
    unread = tracing.unread_calls(step)
    assert [p.what.split(" (")[0] for p in unread] == ["`augment()`"]
    assert unread[0].why == UNREAD  # model(...) and loss_fn(...) are read: a model, a loss


def test_extraction_plan_parameters_results_and_blockers():
    ctx = context(
        """
        import tensorflow as tf
        for epoch in range(10):
            for x, y in data:
                x = tf.cast(x, tf.float32)
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x) - y)
                grads = tape.gradient(loss, model.trainable_variables)
                opt.apply_gradients(zip(grads, model.trainable_variables))
            print(epoch, float(loss))
        """
    )
    with_node = ctx.nodes(cst.With)[0]
    block = ctx.parent(with_node)
    start = list(block.body).index(with_node)
    statements = list(block.body)[start:]
    loops = [ctx.nodes(cst.For)[1], ctx.nodes(cst.For)[0]]
    plan = ctx.shared(Extractions).plan(statements, loops, None)
    assert plan.params == ["x", "y"]  # the batch, and x recomputed earlier in the iteration
    assert plan.results == ["loss"]  # read after the inner loop
    assert plan.blockers == []

    ctx = context(
        """
        for step in range(1000):
            with tape_of(step) as tape:
                loss = model(step)
            total = total + loss
        """
    )
    with_node = ctx.nodes(cst.With)[0]
    plan = ctx.shared(Extractions).plan([with_node], [ctx.nodes(cst.For)[0]], None)
    assert plan.blockers == ["it uses the loop counter `step` (each value traces again)"]
