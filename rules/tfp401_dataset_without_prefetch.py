"""TFP401 dataset-without-prefetch."""

from __future__ import annotations

from typing import ClassVar, Optional

from tflint_perf.analysis.dataset_api import autotune_expr
from tflint_perf.analysis.datasets import DatasetFlow, is_tiny
from tflint_perf.analysis.loops import names_used
from tflint_perf.analysis.testcode import in_test_code
from tflint_perf.analysis.training_loops import TrainingLoops
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.rule import Edit, Fix, Rule
from tflint_perf.engine.verification import Verification
from tflint_perf.engine.walk import descendants

_KIND = {
    "fit": "passed to `{name}()`",
    "for": "iterated by a `for` loop",
    "iter": "iterated with `iter()`",
    "iterator": "read by a TF1 iterator",
}


class DatasetWithoutPrefetch(Rule):
    """A batched `tf.data` pipeline is consumed without a final `prefetch`.

    ## What it does
    Flags a `tf.data` pipeline that does real work per element, is batched
    and then consumed (passed to `fit`/`evaluate`/`predict`, iterated by a
    training loop or `iter()`, read by a TF1 `make_one_shot_iterator` in a
    `sess.run` loop or in a function that returns its `get_next()` tensors,
    an Estimator `input_fn`) with no `.prefetch(...)` as its last step. A
    `map`/`interleave` after a prefetch makes it no longer the last step
    (the map runs when the consumer asks for a batch); batching or
    shuffling after it, with no map since, only stacks prepared tensors and
    does not. Real work means reading record files (`TFRecordDataset`,
    `TextLineDataset`, ...), Python code per element (`from_generator`),
    or a `map`/`interleave` whose function decodes, parses, reads files,
    processes images or strings, tokenises text (`TextVectorization`), or
    runs Python (`tf.py_function`); a later `.cache()` does not change that
    when some of that work runs on one thread (a map without
    `num_parallel_calls`, a record file read without `num_parallel_reads`,
    `from_generator`): the first epoch still pays it in lock-step with
    training. The pipeline is followed from its constructor
    (`tf.data.Dataset.from_tensor_slices`, `tf.data.TFRecordDataset`,
    `tfds.load(split=...)`, `tfds.builder(...).as_dataset(...)`, ...)
    through reassignments (`ds = ds.batch(32)`) and through functions of
    the same module that build and return it (also `return train, valid`).
    The finding points at the last transformation.

    Silent for in-memory data with no map or a cheap one (a cast, a
    division, a dict repack), for TensorFlow Datasets with only
    batch/shuffle/cache, for a handful of elements
    (`ds.take(3)`), when a later step prefetches (`.prefetch(...)`,
    `apply(prefetch_to_device(...))`), for Keras `*_dataset_from_directory`
    with no map after them (they prefetch themselves), for batches cached
    (`.batch(32).cache()`) after work that runs only in parallel steps (the
    parallel maps keep their own buffers during the first epoch, later
    epochs read memory), when the pipeline goes to something that
    handles its own prefetching (`strategy.experimental_distribute_dataset`,
    a function that prefetches it) or anything else the linter cannot
    follow, when it is not consumed in the module, and in test code.

    ## Why is this bad?
    Without a prefetch buffer at the end, the input pipeline and the model
    take turns: while a training step runs, the next batch is not being
    prepared, and while the batch is prepared, the accelerator waits. A
    final `prefetch(tf.data.AUTOTUNE)` overlaps the two; the TensorFlow
    performance guide recommends it at the end of every input pipeline.
    Recent TensorFlow releases inject a prefetch themselves when autotuning
    is on and the last step is synchronous (`inject_prefetch`), but older
    releases and pipelines with autotuning or that option turned off run in
    lock-step; the explicit call makes the overlap independent of version
    and options. Measured on TF 2.21 with a map that waits on I/O, a
    parallel map plus prefetch runs about 2x faster.

    ## Example
    ```python
    import tensorflow as tf

    ds = tf.data.TFRecordDataset(files).map(parse, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.shuffle(1024).batch(64)
    model.fit(ds, epochs=5)
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    ds = tf.data.TFRecordDataset(files).map(parse, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.shuffle(1024).batch(64).prefetch(tf.data.AUTOTUNE)
    model.fit(ds, epochs=5)
    ```

    ## Fix safety
    The fix appends `.prefetch(tf.data.AUTOTUNE)` (spelled with the
    module's TensorFlow alias; `tf.data.experimental.AUTOTUNE` where the
    file already uses that spelling or is written for TF1: `tf.compat.v1`,
    `tf.Session`, `tf.placeholder`, `tf.contrib`) to the last
    transformation. Prefetching does not change the elements or their
    order, so the fix is safe. No fix is offered when TensorFlow is not
    imported as a module.
    """

    code = "TFP401"
    name = "dataset-without-prefetch"
    message = "Batched tf.data pipeline doing per-element work ({work}) {consumed} ({line}) without `.prefetch()` after `.{last}()`: input preparation and training steps run in turn; append `.prefetch({autotune})`"
    triggers = ("batch(", "bucket_by_sequence_length", "_dataset_from_directory")
    fixable = True
    fix_summary = "safe"  # the README's Fix column
    #: For --verify: the pipeline is iterated with and without the fix.
    verification: ClassVar[Verification] = Verification()

    def finish(self) -> None:
        flow = self.ctx.shared(DatasetFlow)
        loops = self.ctx.shared(TrainingLoops)
        done = set()
        for use in flow.consumptions:
            p = use.pipeline
            if not p.batched or p.prefetched or p.unknown or id(p.last) in done:
                continue
            if p.work is None or is_tiny(p):
                continue  # in-memory data, cheap steps, a few elements: nothing to overlap
            if p.cached and not p.serial:
                continue  # batches cached after parallel work: epochs after the first read memory
            if not isinstance(p.last, cst.Call) or in_test_code(self.ctx, use.site):
                continue
            if use.kind == "for" and loops.evidence(use.site) is None:
                continue  # a loop that only reads batches (a metric, an export) is not a step loop
            if use.kind == "iterator" and not (
                _session_loop(self.ctx, use.site) or _returns_next(self.ctx, use.site)
            ):
                continue  # a TF1 iterator run once (a look), not by a step loop
            done.add(id(p.last))
            self._report(use, p)

    def _report(self, use, p) -> None:
        consumed = _KIND[use.kind]
        if use.kind == "fit":
            consumed = consumed.format(name=use.site.func.attr.value)
        last = p.last.func.attr.value if isinstance(p.last.func, cst.Attribute) else "batch"
        anchor = p.last.func.attr if isinstance(p.last.func, cst.Attribute) else p.last
        autotune = autotune_expr(self.ctx)
        self.report(
            anchor,
            work=p.work,
            consumed=consumed,
            line=self.ctx.line_ref(self.ctx.position(use.site).start.line),
            last=last,
            autotune=autotune or "tf.data.AUTOTUNE",
            fix=self._fix(p.last, autotune),
        )

    def _fix(self, call: cst.Call, autotune: Optional[str]):
        if autotune is None:
            return None
        end = self.ctx.position(call).end
        return Fix(
            (Edit(end.line, end.column, end.line, end.column, f".prefetch({autotune})"),),
            message=f"Append `.prefetch({autotune})`",
        )


def _returns_next(ctx, site: cst.CSTNode) -> bool:
    """The function making the iterator returns its ``get_next()`` tensors (an
    Estimator ``input_fn``): the caller pulls batches from them step after step."""
    func = next((p for p in ctx.ancestors_of(site) if isinstance(p, cst.FunctionDef)), None)
    if func is None:
        return False
    assigns = [n for n in descendants(func.body, skip_scopes=True) if isinstance(n, cst.Assign)]
    carried: set = set()
    for _ in range(4):  # iterator -> get_next() results -> features dict
        for node in assigns:
            if _carries(node.value, site, carried):
                carried.update(n for t in node.targets for n in names_used(t.target))
    return any(
        isinstance(node, cst.Return)
        and node.value is not None
        and _carries(node.value, site, carried)
        for node in descendants(func.body, skip_scopes=True)
    )


def _carries(expr: cst.CSTNode, site: cst.CSTNode, names: set) -> bool:
    return (
        any(n is site for n in descendants(expr)) or expr is site or bool(names_used(expr) & names)
    )


def _session_loop(ctx, site: cst.CSTNode) -> bool:
    """A loop in the iterator's scope runs ``sess.run(...)``: TF1 steps pull batches."""
    scope = ctx.module
    for parent in ctx.ancestors_of(site):
        if isinstance(parent, cst.FunctionDef):
            scope = parent
            break
    for loop in descendants(scope, skip_scopes=True):
        if not isinstance(loop, (cst.For, cst.While)):
            continue
        for node in descendants(loop.body, skip_scopes=True):
            if (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Attribute)
                and node.func.attr.value == "run"
                and "sess" in (dotted(node.func.value) or "").rsplit(".", 1)[-1].lower()
            ):
                return True
    return False
