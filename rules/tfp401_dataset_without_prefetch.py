"""TFP401 dataset-without-prefetch."""

from __future__ import annotations

from typing import ClassVar, Optional, Tuple

from tflint_perf.analysis.api.tfdata import Role
from tflint_perf.analysis.dataset_use import Consumption, DatasetUse, Use, UseKind
from tflint_perf.analysis.datasets import Pipeline, Pipelines, autotune_expr
from tflint_perf.analysis.exports import defined_in
from tflint_perf.analysis.semantic import SemanticModel
from tflint_perf.analysis.testcode import in_test_code
from tflint_perf.engine import cst
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.rule import Edit, Fix, Rule
from tflint_perf.engine.verification import Iterate, Verification


class DatasetWithoutPrefetch(Rule):
    """A batched `tf.data` pipeline is consumed without a final `prefetch`.

    ## What it does
    Flags a `tf.data` pipeline that does real work per element, is batched
    and then consumed by a workload (passed to `fit`/`evaluate`/`predict`,
    iterated by a loop whose body runs training or inference steps, read
    through `iter()` by many `next()` calls, read by a TF1
    `make_one_shot_iterator` (or an iterator `make_initializer(ds)` sets to
    read it) in a `sess.run` loop or in a function that
    returns its `get_next()` tensors, an Estimator `input_fn`; returned by
    a function an Estimator is given as `input_fn=`, `train_input_fn=` or
    `eval_input_fn=`: a def, a lambda calling one, or what a factory of the
    module returns) with no `.prefetch(...)` as its last step.
    `tf.contrib.data` pipelines (before TF 1.4) are `tf.data` pipelines. A `map`/`interleave` after a
    prefetch makes it no longer the last step (the map runs when the
    consumer asks for a batch); batching or shuffling after it, with no map
    since, only stacks prepared tensors and does not, nor does a map that only
    picks parts of each element (`map(lambda x, y: x)`, `map(lambda x, y: (x[:, :n], y))`). Real work means
    reading record files (`TFRecordDataset`, `TextLineDataset`, ...),
    Python code per element (`from_generator`), or a `map`/`interleave`
    whose function decodes, parses, reads files, processes images or
    strings, tokenises text (`TextVectorization`), runs Python
    (`tf.py_function`), or calls a Keras preprocessing layer or model
    (augmentation, resizing, lookups; a `Rescaling` is arithmetic); a
    later `.cache()` does not change that when some of that work runs on
    one thread (a map without `num_parallel_calls`, a record file read
    without `num_parallel_reads`, `from_generator`): the first epoch still
    pays it in lock-step with training. The pipeline is followed through
    the semantic model: from its constructor (`Dataset.from_tensor_slices`,
    `TFRecordDataset`, `tfds.load(split=...)`,
    `tfds.builder(...).as_dataset(...)`, ...) through reassignments
    (`ds = ds.batch(32)`), the functions of the module that build and
    return it (also `return train, valid`), and the functions it is passed
    to (their parameters hold what each caller passes). The finding points
    at the last transformation. A pipeline a function of another module of
    the linted tree builds and returns (`from pkg.data import make_dataset`)
    is reported where it is consumed, at the call that returns it; the
    detail names the step that ends it there (no fix: the prefetch belongs
    in that module, where every consumer gets it). A pipeline that one path
    carries on (`if shuffle: ds = ds.shuffle(n)`) is reported once, at the
    end of the longer path.

    Silent for in-memory data with no map or a cheap one (a cast, a
    division, a dict repack), for TensorFlow Datasets with only
    batch/shuffle/cache, for a handful of elements (`ds.take(3)`), for a
    pipeline only looked at (a loop over `take(1)`, `next(iter(ds))`, a
    loop that prints or plots each batch, one that breaks after the first),
    when a later step prefetches (`.prefetch(...)`,
    `apply(prefetch_to_device(...))`) or ends with a fused
    `map_and_batch`, which computes batches ahead on its own thread, for Keras `*_dataset_from_directory`
    with no map after them (they prefetch themselves), for a `.cache()`
    after work that runs only in parallel steps and before nothing but
    batching, shuffling or cheap maps (`.map(f, num_parallel_calls=8)
    .cache().shuffle(1000).batch(32)`, `.batch(32).cache()`: the parallel
    maps keep their own buffers during the first epoch, later epochs read
    memory), when the pipeline goes to something that handles
    its own prefetching (`strategy.experimental_distribute_dataset`, a
    function that prefetches it) or anything else the linter cannot
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
    message = "No final `.prefetch()` after `.{last}()`: append `.prefetch({autotune})`"
    triggers = ("batch(", "bucket_by_sequence_length", "_dataset_from_directory")
    fixable = True
    fix_summary = "safe"  # the README's Fix column
    #: For --verify: the dataset it builds is iterated with and without the fix, each element
    #: followed by a stand-in step (prefetching overlaps making elements with the step).
    verification: ClassVar[Verification] = Verification(iterate=Iterate.WITH_STEP)
    reads_project = True  # a pipeline built and returned by another module of the tree

    def finish(self) -> None:
        pipelines = self.ctx.shared(Pipelines)
        uses = self.ctx.shared(DatasetUse)
        done: set = set()
        seen: set = set()
        for consumption in uses.consumptions():
            found = pipelines.datasets(consumption.data)
            for pipeline in found:
                seen.add(pipeline.last)
                if pipeline.last in done:
                    continue
                anchor = _anchor(pipeline.last)
                longer = next(  # reported, or prefetched (fixed): one finding per pipeline
                    (
                        p
                        for p in found
                        if self._extends(p, pipeline)
                        and (p.prefetched or not self._silent_because(uses, consumption, p))
                    ),
                    None,
                )
                silent = self._silent_because(uses, consumption, pipeline)
                if silent is None and longer is not None:  # ``if shuffle: ds = ds.shuffle(n)``
                    line = self.ctx.line_ref(self.ctx.position(longer.last).start.line)
                    silent = Reason.COVERED, f"on another path it goes on to {line}: its end counts"
                if silent is not None:
                    self.silent(anchor, *silent)
                    continue
                done.add(pipeline.last)
                self._report(uses, consumption, pipeline, anchor)
        if self.ctx.recording:  # for `tflint-perf why` only: pipelines no consumer reads
            self._unconsumed(pipelines, uses, seen)

    def _extends(self, longer: Pipeline, shorter: Pipeline) -> bool:
        """``longer`` goes on from ``shorter``'s end: its steps start from a name one
        of whose bindings holds ``shorter`` (the end of the other path)."""
        node = longer.last
        if node is shorter.last or self.ctx.contains(shorter.last, node):
            return False  # the same end, or one inside the other (``ds = ds.batch(8)``)
        while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            node = node.func.value  # down the chain of steps to what it starts from
        if not isinstance(node, cst.Name):
            return False
        sem = self.ctx.shared(SemanticModel)
        return any(b.value is shorter.last for b in sem.lookup_name(node) if b.plain)

    def _unconsumed(self, pipelines: Pipelines, uses: DatasetUse, seen: set) -> None:
        for call in self.ctx.nodes(cst.Call):
            step = pipelines.step(call)
            if step is None or step.role is not Role.BATCH or call in seen:
                continue
            if not pipelines.datasets(call):
                continue
            lost = [u for u in uses.uses(call) if u.kind in (UseKind.OTHER, UseKind.RETURNED)]
            if lost:
                where = self.ctx.code(lost[0].site).split("\n", 1)[0][:40]
                self.silent(_anchor(call), Reason.UNRESOLVED, f"goes to `{where}`")
            else:
                self.silent(_anchor(call), Reason.NOT_DATA, "not consumed as data")

    def _silent_because(
        self, uses: DatasetUse, c: Consumption, p: Pipeline
    ) -> Optional[Tuple[Reason, str]]:
        """Why this consumption of this pipeline is no finding (None: it is one)."""
        if p.prefetched:
            return Reason.ALREADY_DONE, "prefetched after the last batching step"
        if p.unknown:
            return Reason.UNRESOLVED, "a step the linter cannot read"
        if not p.batched:
            return Reason.NOT_DATA, "not batched"
        if p.work is None:
            return Reason.NOT_WORK, "in-memory data and cheap steps: nothing to overlap"
        if p.tiny:
            return Reason.DEMO, f"a handful of elements (at most {p.limit})"
        if p.cached and not p.serial:
            return Reason.ALREADY_DONE, "cached after parallel work: later steps only stack tensors"
        if in_test_code(self.ctx, c.site):
            return Reason.TEST_CODE, ""
        if c.kind is UseKind.LOOP:
            if uses.runs_once(c.site):
                return Reason.DEMO, "the loop stops after the first element"
            if uses.display_loop(c.site):
                return Reason.DISPLAY_ONLY, "the loop shows each batch to a person"
            if uses.step_evidence(c.site) is None:
                return Reason.NOT_WORK, "the loop runs no training or inference step"
        if c.kind is UseKind.ITERATOR and not uses.bulk(Use(c.kind, c.site)):
            return Reason.DEMO, "the iterator is only peeked at"
        if c.kind is UseKind.TF1_ITERATOR and not uses.bulk(Use(c.kind, c.site)):
            return Reason.RUNS_ONCE, "a TF1 iterator read once or a few times, not by a step loop"
        return None

    def _report(self, uses: DatasetUse, c: Consumption, p: Pipeline, anchor) -> None:
        ctx = self.ctx
        last = _method(p.last)
        autotune = autotune_expr(ctx)
        spelled = autotune or "tf.data.AUTOTUNE"
        if p.elsewhere is not None and p.last is p.source:
            self._report_built_elsewhere(uses, c, p, anchor, spelled)
            return
        headline = self.message.format(last=last, autotune=spelled)
        if len(headline) > 100:  # a long alias or step name: the advice, then the step
            headline = f"No final `.prefetch()`: append `.prefetch({spelled})`"
        if len(headline) > 100:
            headline = f"No final `.prefetch()` after `.{last}()`"[:100]
        detail = "\n".join([self._work_and_consumer(uses, c, p), _WHY])
        self.report(anchor, message=headline, detail=detail, fix=self._fix(p.last, autotune))

    def _report_built_elsewhere(
        self, uses: DatasetUse, c: Consumption, p: Pipeline, anchor, spelled: str
    ) -> None:
        """A pipeline another module builds and returns, consumed here: reported at
        the call that brings it here (the project index says what it is there)."""
        assert p.elsewhere is not None
        ctx = self.ctx
        builder = _method(p.last)
        there = defined_in(ctx, {"path": p.elsewhere.path})
        headline = (
            f"`{builder}()` returns a pipeline with no final `.prefetch()`: append it in {there}"
        )
        if len(headline) > 100:
            headline = f"`{builder}()` returns a pipeline with no final `.prefetch()`"[:100]
        step = f"`.{p.elsewhere.last}()`" if p.elsewhere.last else "its last step"
        detail = "\n".join(
            [
                self._work_and_consumer(uses, c, p),
                f"`{builder}()` builds it in {there}, where {step} at line {p.elsewhere.line} "
                f"ends it: append `.prefetch({spelled})` there.",
                _WHY,
                "Not fixed automatically: the pipeline is built in another module, where the "
                "prefetch serves every consumer.",
            ]
        )
        self.report(anchor, message=headline, detail=detail)

    def _work_and_consumer(self, uses: DatasetUse, c: Consumption, p: Pipeline) -> str:
        line = self.ctx.line_ref(self.ctx.position(c.site).start.line)
        where = {
            UseKind.FIT: f"`{_method(c.site)}()` at {line} iterates it",
            UseKind.LOOP: f"the loop at {line} {uses.step_evidence(c.site) or 'iterates it'}",
            UseKind.ITERATOR: f"`iter()` at {line} reads it, batch after batch",
            UseKind.TF1_ITERATOR: f"the TF1 iterator at {line} feeds the graph's steps",
            UseKind.INPUT_FN: f"`{_method(c.site)}()` at {line} reads it through its `input_fn`",
        }[c.kind]
        serial = " (some of it on one thread)" if p.serial else ""
        return f"Per-element work: {p.work}{serial}; {where}."

    def _fix(self, call: cst.CSTNode, autotune: Optional[str]) -> Optional[Fix]:
        if autotune is None:
            return None
        end = self.ctx.position(call).end
        return Fix(
            (Edit(end.line, end.column, end.line, end.column, f".prefetch({autotune})"),),
            message=f"Append `.prefetch({autotune})`",
        )


_WHY = (
    "Without a prefetch buffer at the end, preparing the next batch and running "
    "the step take turns; a final prefetch overlaps them."
)


def _anchor(last: cst.CSTNode) -> cst.CSTNode:
    if isinstance(last, cst.Call) and isinstance(last.func, cst.Attribute):
        return last.func.attr
    return last


def _method(call: cst.CSTNode) -> str:
    func = call.func if isinstance(call, cst.Call) else None
    if isinstance(func, cst.Attribute):
        return func.attr.value
    if isinstance(func, cst.Name):
        return func.value
    return "batch"
