"""TFP402 serial-dataset-map."""

from __future__ import annotations

from typing import ClassVar, Optional

from tflint_perf.analysis.dataset_api import autotune_expr
from tflint_perf.analysis.dataset_use import DatasetUse
from tflint_perf.analysis.datasets import DatasetFlow, is_tiny, parallel_step
from tflint_perf.analysis.testcode import in_test_code
from tflint_perf.engine import cst
from tflint_perf.engine.rule import SAFE, UNSAFE, Edit, Fix, Rule
from tflint_perf.engine.verification import Verification


class SerialDatasetMap(Rule):
    """`Dataset.map`/`interleave` doing real work runs on one thread.

    ## What it does
    Flags `map(...)` and `interleave(...)` on a `tf.data` pipeline (followed
    as for TFP401) without `num_parallel_calls`, when the mapped function
    does real per-element work: decoding or parsing records, reading files,
    image resizing and augmentation, string processing (tokenising, also
    with a `TextVectorization` layer or a KerasNLP / TensorFlow Text
    tokenizer; not number/string conversions), `tf.py_function` /
    `tf.numpy_function`,
    or (for `interleave`) opening record files. The function is read when
    it is a lambda, `functools.partial`, a function or method of the same
    module (the one visible where `map` is called when a name is defined
    twice; and the functions of the module it calls), or a dataset
    constructor. One finding per line when several maps are chained on it.

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
    handful of elements (`ds.take(2).map(f)`), for a pipeline that is never
    iterated (only displayed or printed, then replaced) or only iterated
    to plot or show each element (`plt.imshow`, `display`, a
    `time.sleep` per element), or, when the only
    work is Python (`tf.py_function`, which holds the GIL, so threads gain
    little), only peeked at (`ds.take(2)`, `next(iter(ds))`), when
    `deterministic=` is passed explicitly, and in test code.

    ## Why is this bad?
    Without `num_parallel_calls`, `tf.data` applies the function to one
    element at a time on a single thread, so decoding and augmentation
    cannot use the other cores and the model waits for input. With
    `num_parallel_calls=tf.data.AUTOTUNE` the runtime picks the parallelism
    and, by default, still yields elements in their original order.
    Measured on TF 2.21, a map that waits on I/O runs about 2x faster in
    parallel (with prefetch) on two cores; the gain grows with cores.

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
    message = "`.{method}()` without `num_parallel_calls` runs {work} on one {unit} at a time: pass `num_parallel_calls={autotune}`"
    triggers = (".map(", ".interleave(")
    fixable = True
    fix_summary = "safe / unsafe"  # the README's Fix column
    #: For --verify: the pipeline is iterated with and without the fix.
    verification: ClassVar[Verification] = Verification()

    def finish(self) -> None:
        flow = self.ctx.shared(DatasetFlow)
        found = []
        for node in self.ctx.nodes(cst.Call):
            work = self._serial_work(flow, node)
            if work is not None and isinstance(node.func, cst.Attribute):  # (work: a method call)
                start = self.ctx.position(node.func.attr).start
                found.append(((start.line, start.column), node, work))
        if not found:
            return
        uses = DatasetUse(self.ctx)
        lines = set()
        for (line, _), node, work in sorted(found, key=lambda item: item[0]):
            if line in lines or not uses.iterated(node, bulk=work.python):
                continue  # one finding per line (chained maps); never iterated: no cost
            lines.add(line)
            assert isinstance(node.func, cst.Attribute)  # (checked in the first loop)
            autotune = autotune_expr(self.ctx)
            self.report(
                node.func.attr,
                method=node.func.attr.value,
                work=work.what,
                unit="batch"
                if all(p.batched for p in flow.method_receivers[id(node)])
                else "element",
                autotune=autotune or "tf.data.AUTOTUNE",
                fix=self._fix(node, work.unsafe, autotune),
            )

    def _serial_work(self, flow: DatasetFlow, node: cst.Call):
        """What a serial ``map``/``interleave`` on a tracked pipeline does, if real work."""
        if id(node) not in flow.method_receivers:
            return None
        assert isinstance(node.func, cst.Attribute)  # method_receivers holds method calls
        method = node.func.attr.value
        if method not in ("map", "interleave") or parallel_step(node, method):
            return None
        func = _arg(node, 0, "map_func")
        if func is None or in_test_code(self.ctx, node):
            return None
        if isinstance(func, cst.Name) and _is_parameter(self.ctx, node, func.value):
            return None  # a function passed in: any def of that name is a guess
        receivers = flow.method_receivers[id(node)]
        if all(is_tiny(p) for p in receivers):
            return None  # `ds.take(3).map(f)`: a few elements
        work = flow.step_work(node, method, func)
        if work.what is None:
            return None
        if method == "map" and all(p.batched for p in receivers) and not work.text:
            return None  # `ds.batch(32).map(f)`: already vectorised, one call per batch
        if self._in_parallel_interleave(node):
            return None  # each input's dataset is read cycle_length at a time, in parallel
        return work

    def _in_parallel_interleave(self, node: cst.Call) -> bool:
        """The map builds the dataset a parallel ``interleave`` opens per input
        (``def read_file(f): return TextLineDataset(f).map(g)``)."""
        func = next(
            (p for p in self.ctx.ancestors_of(node) if isinstance(p, cst.FunctionDef)), None
        )
        if func is None:
            return False
        for call in self.ctx.nodes(cst.Call):
            if (
                isinstance(call.func, cst.Attribute)
                and call.func.attr.value == "interleave"
                and parallel_step(call, "interleave")
                and isinstance(_arg(call, 0, "map_func"), cst.Name)
                and _arg(call, 0, "map_func").value == func.name.value
            ):
                return True
        return False

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


def _is_parameter(ctx, node, name: str) -> bool:
    for parent in ctx.ancestors_of(node):
        if isinstance(parent, (cst.FunctionDef, cst.Lambda)):
            p = parent.params
            if any(
                param.name.value == name
                for param in (*p.posonly_params, *p.params, *p.kwonly_params)
            ):
                return True
    return False


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
