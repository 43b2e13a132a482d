"""Execution order and runtime starts: what starts the runtime, what a flow reaches first."""

import pytest

from tests.analysis.snippets import context, find
from tflint_perf.analysis import api
from tflint_perf.analysis.api import Effect
from tflint_perf.analysis.execution import (
    RUNTIME,
    BlockBindings,
    FlowChecker,
    RuntimeStarts,
    exclusive_branches,
    handler_after_body,
    harmless,
)
from tflint_perf.engine import cst


def starts(source):
    ctx = context(source)
    return ctx, ctx.shared(RuntimeStarts)


def test_the_table_says_which_calls_start_what():
    assert api.effects("tensorflow.constant") & Effect.INITS_RUNTIME
    assert api.effects("tensorflow.math.reduce_sum") & Effect.INITS_RUNTIME
    devices = api.effects("tensorflow.distribute.MirroredStrategy")
    assert devices & Effect.INITS_DEVICES and devices & Effect.INITS_RUNTIME
    # measured not to start the eager runtime: a session creates its own GPU devices
    assert api.effects("tensorflow.Session") == Effect.SESSION_DEVICES
    assert api.effects("tensorflow.config.list_physical_devices") == Effect.STARTS_CUDA
    assert not api.effects("tensorflow.random.set_seed") & Effect.INITS_RUNTIME
    assert not api.effects("tensorflow.random.Generator") & Effect.INITS_RUNTIME


@pytest.mark.parametrize(
    "code, started",
    [
        ("keras.Sequential([keras.layers.Dense(1, input_shape=(4,))])", True),
        ("keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])", True),
        ("keras.Sequential([keras.layers.Dense(1)])", False),  # unbuilt
        ("keras.Model(inp, out)", True),  # functional: its layers ran on Inputs
        ("keras.layers.Dense(3)", False),
        ("list(ds)", True),  # iterating a dataset runs its pipeline
        ("ds.take(1)", True),  # a dataset exists only once the runtime runs
        ("model.compile('sgd', 'mse')", True),
        ("model.summary()", False),
    ],
)
def test_a_call_starts_the_runtime_by_its_facts_and_arguments(code, started):
    ctx, s = starts(
        f"""
        import tensorflow_datasets as tfds
        from tensorflow import keras
        ds = tfds.load("mnist")
        model = keras.Sequential()
        result = {code}
        """
    )
    call = find(ctx, cst.Call, code)
    assert (s.start(call, RUNTIME) is not None) is started


def test_a_helper_starts_the_runtime_where_it_is_called_with_its_chain():
    ctx, s = starts(
        """
        import tensorflow as tf
        def build():
            return tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
        class Trainer:
            def __init__(self):
                self.model = build()
        trainer = Trainer()
        """
    )
    start = s.start(find(ctx, cst.Call, "Trainer()"), RUNTIME)
    assert start is not None and start.effect is Effect.INITS_RUNTIME
    assert s.chain(start) == ("`Trainer()` -> `build()` -> `tf.keras.Sequential()`")
    assert s.describe(start) == "`Trainer()` (`tf.keras.Sequential()` inside)"


def test_graph_mode_keeps_only_the_calls_that_create_devices():
    ctx, s = starts(
        """
        import tensorflow.compat.v1 as tf
        tf.disable_eager_execution()
        x = tf.constant(1.0)
        devices = tf.config.list_logical_devices()
        """
    )
    assert s.start(find(ctx, cst.Call, "tf.constant(1.0)"), RUNTIME) is None
    found = s.start(find(ctx, cst.Call, "tf.config.list_logical_devices()"), RUNTIME)
    assert found is not None and found.effect is Effect.INITS_DEVICES


def test_loops_and_list_comprehensions_over_a_dataset_start_it_generators_do_not():
    ctx, s = starts(
        """
        import tensorflow_datasets as tfds
        ds = tfds.load("mnist")
        for x in ds:
            pass
        sizes = [len(x) for x in ds]
        lazy = (len(x) for x in ds)
        """
    )
    loop = ctx.nodes(cst.For)[0]
    eager, lazy = ctx.nodes(cst.CompFor)
    assert s.iterates_a_dataset(loop) and s.iterates_a_dataset(eager)
    assert not s.iterates_a_dataset(lazy)


def reached(source, counted=RUNTIME):
    ctx = context(source)

    def is_target(node):
        return isinstance(node, cst.Call) and ctx.call_name(node) == (
            "tensorflow.config.set_visible_devices"
        )

    return ctx, FlowChecker(ctx, counted, is_target).reached()


def test_a_flow_reaches_a_target_through_a_method_after_the_start():
    ctx, found = reached(
        """
        import tensorflow as tf
        class Setup:
            def hide(self):
                tf.config.set_visible_devices([], "GPU")
        def main():
            x = tf.zeros([2])
            setup = Setup()
            setup.hide()
        """
    )
    late = [r for r in found if r.start is not None]
    assert len(late) == 1
    (r,) = late
    assert r.via is not None and r.via.name.value == "hide"
    assert ctx.code(r.setter) == 'tf.config.set_visible_devices([], "GPU")'
    assert ctx.code(r.start.node) == "tf.zeros([2])"
    # the method's own flow reaches it first, with nothing before
    assert any(r.start is None and r.via is None for r in found)


def test_a_reset_clears_the_start():
    ctx, found = reached(
        """
        import tensorflow as tf
        from tensorflow.python.eager import context
        x = tf.ones([1])
        context._reset_context()
        tf.config.set_visible_devices([], "GPU")
        """
    )
    (r,) = found
    assert r.start is None and r.reset is not None


def test_branches_and_handlers():
    ctx = context(
        """
        if a:
            first()
        else:
            second()
        try:
            body()
        except ValueError:
            handler()
        finally:
            last()
        """
    )

    def call(code):
        return find(ctx, cst.Call, code)

    assert exclusive_branches(ctx, call("first()"), call("second()"))
    assert not exclusive_branches(ctx, call("first()"), call("body()"))
    assert handler_after_body(ctx, call("body()"), call("handler()")) is not None
    assert handler_after_body(ctx, call("body()"), call("last()")) is None
    assert handler_after_body(ctx, call("handler()"), call("body()")) is None


def test_block_bindings_come_from_the_semantic_model():
    ctx = context(
        """
        import os
        gpus = list_them()
        if gpus:
            chosen = gpus[0]
            memory.append(chosen)
        for i, g in enumerate(gpus):
            pass
        """
    )
    bindings = ctx.shared(BlockBindings)
    block = tuple(ctx.module.body)
    assert [sorted(bindings.names(s)) for s in block] == [
        ["os"],
        ["gpus"],
        ["chosen", "memory"],  # the mutation counts: the object changes
        ["g", "i"],
    ]
    assert bindings.bound_in(block, "chosen", 2, 3)
    assert not bindings.bound_in(block, "chosen", 3, 4)


def test_harmless_statements_call_only_known_effect_free_functions():
    ctx = context(
        """
        import os
        import tensorflow as tf
        value = ",".join(str(i) for i in range(len(ids)))
        gpus = tf.config.list_physical_devices("GPU")
        x = tf.constant(1)
        y = helper()
        """
    )
    value, gpus, x, y = ctx.module.body[2:]
    assert harmless(ctx, value)
    assert not harmless(ctx, gpus) and harmless(ctx, gpus, Effect.STARTS_CUDA)
    assert not harmless(ctx, x)
    assert not harmless(ctx, y)  # unknown: not provably harmless
