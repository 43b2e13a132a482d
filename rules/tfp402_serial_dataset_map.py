"""TFP402 serial-dataset-map."""

from __future__ import annotations

from typing import ClassVar, List, Optional, Tuple

from tflint_perf.analysis.api import tfdata
from tflint_perf.analysis.dataset_use import DatasetUse, UseKind
from tflint_perf.analysis.datasets import Pipelines, Step, autotune_expr
from tflint_perf.analysis.testcode import in_test_code
from tflint_perf.engine import cst
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.rule import SAFE, UNSAFE, Edit, Fix, Rule
from tflint_perf.engine.verification import Iterate, Verification


class SerialDatasetMap(Rule):
    """`Dataset.map`/`interleave` doing real work runs on one thread.

    ## What it does
    Flags `map(...)` and `interleave(...)` on a `tf.data` pipeline (followed
    as for TFP401) without `num_parallel_calls`, when the mapped function
    does real per-element work: decoding or parsing records, reading files,
    image resizing and augmentation, string processing (tokenising, also
    with a `TextVectorization` layer or a KerasNLP / TensorFlow Text
    tokenizer; not number/string conversions), `tf.py_function` /
    `tf.numpy_function`, a Keras preprocessing layer or model called per
    element (augmentation, resizing, lookups; not a `Rescaling` or a
    `Normalization`, which are arithmetic), or (for `interleave`) opening
    record files. The function is read through the semantic model when it
    is a lambda, `functools.partial`, a function or method of the module
    (the one visible where `map` is called when a name is defined twice,
    one a module function returns, and the functions of the module it
    calls), or a dataset constructor; the pipeline is followed as for
    TFP401 (also into a function given to `ds.apply(f)`). One finding per
    line when several maps are chained on it.

    Silent for trivial functions (a cast, a scalar multiply, rearranging a
    dict), for functions it cannot read, for a `map` whose function returns
    a dataset (`window`/`flat_map` tricks: no per-element compute), for a
    `map` after batching (one vectorised call per batch) unless it
    tokenises text (string kernels loop over the batch's strings on one
    thread, so parallel calls still pay; also a KerasHub/KerasNLP model
    tokenizer from a preset), for a `map` on the dataset a parallel
    `interleave` opens per input (`def read(path): return
    TextLineDataset(path).map(f)`: the interleave already runs several at
    a time), for a
    handful of elements (`ds.take(2).map(f)`), for a pipeline only looked
    at, never trained on: displayed or printed then replaced, peeked at
    (`ds.take(2)`, `next(iter(ds))`, a TF1 iterator run in a loop of a few
    iterations, or in a loop whose runs' results are only printed), iterated by a loop that
    only prints each element, or iterated to plot or show each element (`plt.imshow`, a
    helper that draws, a `time.sleep` per element), when `deterministic=`
    is passed explicitly (or `num_threads=`, `tf.contrib.data`'s name for
    it before TF 1.4), and in test code.

    ## Why is this bad?
    Without `num_parallel_calls`, `tf.data` applies the function to one
    element at a time on a single thread, so decoding and augmentation
    cannot use the other cores and the model waits for input. With
    `num_parallel_calls=tf.data.AUTOTUNE` the runtime picks the parallelism
    and, by default, still yields elements in their original order.
    Measured on TF 2.21, a map that waits on I/O runs about 2x faster in
    parallel (with prefetch) on two cores; the gain grows with cores.
    TensorFlow 2.7 and later also parallelise a *stateless* map themselves
    (the `map_parallelization` optimisation, on by default): there the
    argument changes nothing, and keeps the map parallel on older versions
    and where the options turn the optimisation off. A map that draws
    stateful random numbers, runs Python or updates variables is never
    parallelised that way (`python bench/tfdata_map_parallelization.py`
    measures both). Silent when the pipeline's options turn
    `map_parallelization` on explicitly and the map is stateless.

    ## Example
    ```python
    import tensorflow as tf

    def load(path, label):
        image = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
        return tf.image.resize(image, (224, 224)), label

    ds = tf.data.Dataset.from_tensor_slices((paths, labels)).map(load)
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    def load(path, label):
        image = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
        return tf.image.resize(image, (224, 224)), label

    ds = tf.data.Dataset.from_tensor_slices((paths, labels)).map(load, num_parallel_calls=tf.data.AUTOTUNE)
    ```

    ## Fix safety
    The fix adds `num_parallel_calls=tf.data.AUTOTUNE` (spelled with the
    module's TensorFlow alias; `tf.data.experimental.AUTOTUNE` in code
    written for TF1 or already using that spelling). Output order is kept
    (deterministic is the default), so it is safe when the function is pure
    TensorFlow. On `interleave` it is safe only with an explicit
    `cycle_length`: without one, the parallel version reads as many inputs
    at once as the machine has cores, and the elements come in another
    order. It is unsafe when the function runs Python code per element
    (`tf.py_function`, `tf.numpy_function`), draws stateful random numbers
    (`tf.random.*`, `tf.image.random_*`) or assigns variables: in parallel,
    Python side effects interleave and random draws reach different
    elements, so results can change. No fix without a TensorFlow module
    alias.
    """

    code = "TFP402"
    name = "serial-dataset-map"
    message = "`.{method}()` runs {work} serially: pass `num_parallel_calls={autotune}`"
    triggers = (".map(", ".interleave(")
    fixable = True
    fix_summary = "safe / unsafe"  # the README's Fix column
    #: For --verify: the dataset it builds is iterated with and without the fix, as fast as it
    #: makes elements (a parallel map makes them faster).
    verification: ClassVar[Verification] = Verification(iterate=Iterate.ALONE)

    def finish(self) -> None:
        pipelines = self.ctx.shared(Pipelines)
        found: List[Tuple[Tuple[int, int], Step, tuple]] = []
        for node in self.ctx.nodes(cst.Call):
            step = pipelines.step(node)
            if (
                step is None
                or step.method not in tfdata.PARALLEL_POSITION
                or not isinstance(node.func, cst.Attribute)
            ):
                continue
            receivers = pipelines.datasets(node.func.value)
            if not receivers:
                continue  # not a tf.data pipeline (a pandas Series, an unknown object)
            silent = self._silent_because(step, receivers)
            if silent is not None:
                self.silent(node.func, *silent)
                continue
            start = self.ctx.position(node.func.attr).start
            found.append(((start.line, start.column), step, receivers))
        lines: set = set()
        for (line, _), step, receivers in sorted(found, key=lambda item: item[0]):
            if line in lines:
                self.silent(step.call.func, Reason.ALREADY_DONE, "one finding per line")
                continue  # one finding per line (chained maps)
            lines.add(line)
            self._report(step, receivers)

    def _silent_because(self, step: Step, receivers) -> Optional[Tuple[Reason, str]]:
        """Why this serial step is no finding (None: it is one)."""
        if step.parallel:
            return Reason.ALREADY_DONE, "num_parallel_calls (or deterministic=, num_threads=) given"
        if in_test_code(self.ctx, step.call):
            return Reason.TEST_CODE, ""
        if all(p.tiny for p in receivers):
            return Reason.DEMO, "a handful of elements"
        work = step.work
        if work.what is None:
            return Reason.NOT_WORK, "no per-element work the linter can see"
        if step.method == "map" and all(p.batched for p in receivers) and not work.text:
            return Reason.BATCHED, "after batching: one vectorised call per batch"
        if self._in_parallel_interleave(step.call):
            return Reason.ALREADY_DONE, "a parallel interleave opens this dataset per input"
        uses = self.ctx.shared(DatasetUse)
        found = uses.uses(step.call)
        bulk = [use for use in found if uses.bulk(use)]
        if bulk and not work.unsafe and all(uses.parallelizes_maps(use) for use in bulk):
            return (
                Reason.ALREADY_DONE,
                "the pipeline's options set map_parallelization: tf.data runs this stateless "
                "map in parallel",
            )
        if not bulk:
            if any(u.kind is UseKind.LOOP and uses.display_loop(u.site) for u in found):
                return Reason.DISPLAY_ONLY, "each element is shown to a person"
            return Reason.DEMO, "only looked at (printed, a few elements), never trained on"
        return None

    def _in_parallel_interleave(self, node: cst.Call) -> bool:
        """The map builds the dataset a parallel ``interleave`` opens per input
        (``def read_file(f): return TextLineDataset(f).map(g)``)."""
        pipelines = self.ctx.shared(Pipelines)
        home = pipelines.sem.function_of(node)
        if home is None:
            return False
        for call in self.ctx.nodes(cst.Call):
            step = pipelines.step(call)
            if step is None or step.method != "interleave" or not step.parallel or not call.args:
                continue
            if home in pipelines.work.bodies(call.args[0].value):
                return True
        return False

    def _report(self, step: Step, receivers) -> None:
        call = step.call
        assert isinstance(call.func, cst.Attribute)  # a step is a method call
        autotune = autotune_expr(self.ctx)
        spelled = autotune or "tf.data.AUTOTUNE"
        unit = "batch" if all(p.batched for p in receivers) else "element"
        work = step.work
        headline = self.message.format(method=step.method, work=work.what, autotune=spelled)
        if len(headline) > 100:  # long work or alias: the advice without the work
            headline = f"`.{step.method}()` runs serially: pass `num_parallel_calls={spelled}`"
        if len(headline) > 100:
            headline = f"`.{step.method}()` runs serially: pass `num_parallel_calls`"
        if work.unsafe:  # never parallelised by tf.data's own optimisation
            serial = f"without `num_parallel_calls` tf.data runs it on one {unit} at a time"
        else:
            serial = (
                "without `num_parallel_calls` TensorFlow before 2.7, or a pipeline whose options "
                f"turn `map_parallelization` off, runs it on one {unit} at a time"
            )
        detail = [
            f"Per-{unit} work: {work.what}; {serial}, on one thread, while the other cores wait.",
        ]
        if work.python:
            detail.append("It runs Python (holding the GIL): threads gain less than for TF ops.")
        fix = self._fix(call, work.unsafe, autotune)
        if fix is not None and fix.safety == UNSAFE:
            detail.append(
                f"The fix is unsafe: {_UNSAFE_WHY[self._unsafe_kind(call, work.unsafe)]}."
            )
        self.report(call.func.attr, message=headline, detail="\n".join(detail), fix=fix)

    def _unsafe_kind(self, call: cst.Call, unsafe_work: bool) -> str:
        if _is_method(call, "interleave") and _arg(call, 1, "cycle_length") is None:
            return "order"
        return "effects" if unsafe_work else "order"

    def _fix(self, call: cst.Call, unsafe: bool, autotune: Optional[str]) -> Optional[Fix]:
        if autotune is None or not call.args:
            return None
        end = self.ctx.position(call.args[-1].value).end
        message = f"Pass `num_parallel_calls={autotune}`"
        if _is_method(call, "interleave") and _arg(call, 1, "cycle_length") is None:
            # Without cycle_length, a parallel interleave reads as many inputs
            # at once as there are cores: the elements come in another order.
            unsafe = True
            message += " (unsafe: without `cycle_length` the element order changes)"
        return Fix(
            (Edit(end.line, end.column, end.line, end.column, f", num_parallel_calls={autotune}"),),
            safety=UNSAFE if unsafe else SAFE,
            message=message,
        )


_UNSAFE_WHY = {
    "order": "without `cycle_length`, a parallel interleave reads as many inputs at once as "
    "there are cores, so the elements come in another order",
    "effects": "the function has side effects (Python code, stateful random numbers or "
    "variable updates) that run in another order in parallel",
}


def _is_method(call: cst.Call, name: str) -> bool:
    return isinstance(call.func, cst.Attribute) and call.func.attr.value == name


def _arg(call: cst.Call, index: int, keyword: str):
    positional = [a for a in call.args if a.keyword is None]
    if len(positional) > index:
        return positional[index].value
    for a in call.args:
        if a.keyword is not None and a.keyword.value == keyword:
            return a.value
    return None
