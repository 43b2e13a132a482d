"""tf.data pipelines: their facts (analysis/datasets.py) and where they go (dataset_use.py)."""

from tests.analysis.snippets import context, find
from tflint_perf.analysis.dataset_use import DatasetUse, Use, UseKind
from tflint_perf.analysis.datasets import Pipelines
from tflint_perf.analysis.summaries import Summaries
from tflint_perf.engine import cst


def pipelines(source):
    ctx = context(source)
    return ctx, ctx.shared(Pipelines)


def name_at(ctx, spelled, line):
    return next(
        n for n in ctx.nodes(cst.Name) if n.value == spelled and ctx.position(n).start.line == line
    )


def test_facts_follow_reassignments_and_steps():
    ctx, p = pipelines(
        """
        import tensorflow as tf
        def parse(r):
            return tf.io.parse_tensor(r, tf.float32)
        ds = tf.data.TFRecordDataset(["a"])
        ds = ds.map(parse, num_parallel_calls=4).batch(32)
        consume(ds)
        """
    )
    (found,) = p.datasets(name_at(ctx, "ds", 6))
    assert found.batched and found.batch_size == 32 and not found.prefetched
    assert found.work == "`TFRecordDataset` file reads" and found.serial  # no num_parallel_reads
    assert ctx.code(found.last) == "ds.map(parse, num_parallel_calls=4).batch(32)"


def test_a_helper_summary_is_replayed_on_what_each_caller_passes():
    ctx, p = pipelines(
        """
        import tensorflow as tf
        def load(path):
            return tf.io.decode_png(tf.io.read_file(path))
        def prepare(ds):
            return ds.map(load).batch(8)
        files = prepare(tf.data.Dataset.list_files("*.png"))
        numbers = prepare(tf.data.Dataset.range(100))
        use(files, numbers)
        """
    )
    func = next(f for f in ctx.nodes(cst.FunctionDef) if f.name.value == "prepare")
    (summary,) = ctx.shared(Summaries).returned_pipelines(func)
    assert summary.param == (func, "ds") and [s.method for s in summary.steps] == ["map", "batch"]
    (files,) = p.datasets(name_at(ctx, "files", 8))
    (numbers,) = p.datasets(name_at(ctx, "numbers", 8))
    assert files.work == "`tf.io.read_file`" and files.batch_size == 8
    assert numbers.work == "`tf.io.read_file`" and numbers.limit == 13  # range(100) by 8
    assert files.source is not numbers.source


def test_a_function_given_to_apply_receives_the_pipeline():
    ctx, p = pipelines(
        """
        import tensorflow as tf
        def tokenize(ds):
            return ds.map(lambda t: tf.strings.split(t))
        lines = tf.data.TextLineDataset(["a.txt"]).apply(tokenize)
        """
    )
    receiver = name_at(ctx, "ds", 3)
    (inside,) = p.datasets(receiver)
    assert inside.work == "`TextLineDataset` file reads"
    (after,) = p.datasets(find(ctx, cst.Call, 'tf.data.TextLineDataset(["a.txt"]).apply(tokenize)'))
    assert not after.unknown and after.work == "`TextLineDataset` file reads"


def test_tfds_splits_unpacked_with_info():
    ctx, p = pipelines(
        """
        import tensorflow_datasets as tfds
        names = ["train", "test"]
        (train, test), info = tfds.load("mnist", split=names, with_info=True)
        use(train)
        """
    )
    (train,) = p.datasets(name_at(ctx, "train", 4))
    assert train.container is None and train.prefetched  # tfds prefetches its own splits


def test_an_iterator_read_by_next_in_a_step_loop_of_a_caller():
    ctx = context(
        """
        import tensorflow as tf
        model = tf.keras.Sequential()
        optimizer = tf.keras.optimizers.Adam()
        ds = tf.data.Dataset.range(10).batch(1)
        it = iter(ds)
        def step(stream):
            x = next(stream)
            with tf.GradientTape() as tape:
                loss = model(x)
            optimizer.apply_gradients(tape.gradient(loss, model.trainable_variables))
        for _ in range(1000):
            step(it)
        """
    )
    uses = ctx.shared(DatasetUse)
    iterator = find(ctx, cst.Call, "iter(ds)")
    (nxt,) = uses.uses(iterator)
    assert nxt.kind is UseKind.NEXT and [ctx.code(c) for c in nxt.via] == ["step(it)"]
    assert uses.bulk(Use(UseKind.ITERATOR, iterator))
    assert uses.trains(Use(UseKind.ITERATOR, iterator)).startswith("read by `next()` in a loop")


def test_looks_are_not_workloads():
    ctx = context(
        """
        import tensorflow as tf
        import matplotlib.pyplot as plt
        ds = tf.data.Dataset.range(100).batch(4)
        for x in ds.take(2):
            print(x)
        for x in ds:
            plt.imshow(x)
        for x in ds:
            print(x)
            break
        sample = next(iter(ds))
        """
    )
    uses = ctx.shared(DatasetUse)
    found = uses.uses(find(ctx, cst.Call, "tf.data.Dataset.range(100).batch(4)"))
    kinds = sorted(u.kind.value for u in found)
    assert kinds == ["iterator", "loop", "loop", "loop"]
    assert not any(uses.bulk(u) for u in found)


def test_a_run_unpacked_into_names_goes_where_the_names_go():
    ctx = context(
        """
        import tensorflow.compat.v1 as tf
        sess = tf.Session()
        while True:
            x, y = sess.run([a, b])
            print(x, y)
        while True:
            x2, y2 = sess.run([a, b])
            total = x2 + y2
        while True:
            _, loss = sess.run([train_op, b])
            print(loss)
        while True:
            sess.run(train_op)
        while True:
            print(sess.run(b))
        """
    )
    uses = ctx.shared(DatasetUse)
    shown = uses.uses(find(ctx, cst.Call, "sess.run([a, b])"))
    assert [u.kind for u in shown] == [UseKind.LOOK, UseKind.LOOK]
    loops = ctx.nodes(cst.While)
    assert uses.runs_only_shown(loops[0])
    assert not uses.runs_only_shown(loops[1])  # x2 + y2: used, not only shown
    assert not uses.runs_only_shown(loops[2])  # `_` never read: a step for its effect
    assert not uses.runs_only_shown(loops[3])  # the result dropped: a step
    assert uses.runs_only_shown(loops[4])  # printed as it comes
