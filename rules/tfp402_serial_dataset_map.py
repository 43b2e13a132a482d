"""TFP402 serial-dataset-map."""

from __future__ import annotations

from typing import ClassVar, Optional

import libcst as cst

from tflint_perf.datasets import SOURCES, DatasetFlow, autotune_expr
from tflint_perf.testcode import in_test_code
from tflint_perf.rule import SAFE, UNSAFE, Edit, Fix, Rule
from tflint_perf.walk import descendants

# Per-element work worth running in parallel (canonical qualified-name prefixes).
WORK_PREFIXES = (
    "tensorflow.io.decode_",
    "tensorflow.io.parse_",
    "tensorflow.io.read_file",
    "tensorflow.io.gfile.",
    "tensorflow.image.",
    "tensorflow.audio.",
    "tensorflow.signal.",
    "tensorflow.strings.",
    "tensorflow.py_function",
    "tensorflow.numpy_function",
    "tensorflow.py_func",
    "tensorflow.read_file",
    "tensorflow.decode_",
    "tensorflow.parse_",
    "tensorflow_text.",
)
# Image ops that are a cast in disguise.
CHEAP = frozenset({"tensorflow.image.convert_image_dtype"})
PYTHON_CALLS = frozenset({"tensorflow.py_function", "tensorflow.numpy_function", "tensorflow.py_func"})
RANDOM_PREFIXES = ("tensorflow.random.", "tensorflow.random_", "tensorflow.image.random_")
STATEFUL_CALLS = frozenset({"tensorflow.nn.dropout", "tensorflow.multinomial"})
_STATEFUL_METHODS = frozenset({"assign", "assign_add", "assign_sub"})
_MAX_DEPTH = 4


class SerialDatasetMap(Rule):
    """`Dataset.map`/`interleave` doing real work runs on one thread.

    ## What it does
    Flags `map(...)` and `interleave(...)` on a `tf.data` pipeline (followed
    as for TFP401) without `num_parallel_calls`, when the mapped function
    does real per-element work: decoding or parsing records, reading files,
    image resizing and augmentation, string processing, `tf.py_function` /
    `tf.numpy_function`, or (for `interleave`) opening record files. The
    function is read when it is a lambda, a function or method of the same
    module (and the functions of the module it calls), or a dataset
    constructor.

    Silent for trivial functions (a cast, a scalar multiply, rearranging a
    dict), for functions it cannot read, when `deterministic=` is passed
    explicitly, and in test code.

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
    module's TensorFlow alias). Output order is kept (deterministic is the
    default), so it is safe when the function is pure TensorFlow. It is
    unsafe when the function runs Python code per element
    (`tf.py_function`, `tf.numpy_function`), draws stateful random numbers
    (`tf.random.*`, `tf.image.random_*`) or assigns variables: in parallel,
    Python side effects interleave and random draws reach different
    elements, so results can change. No fix without a TensorFlow module
    alias.
    """

    code = "TFP402"
    name = "serial-dataset-map"
    message = "`.{method}()` without `num_parallel_calls` runs {work} on one element at a time: pass `num_parallel_calls=tf.data.AUTOTUNE`"
    triggers = (".map(", ".interleave(")
    fixable = True
    #: How --verify can exercise a finding (data only): the call is a
    #: dataset transformation; iterate the pipeline with and without the fix.
    verify_roles: ClassVar[dict] = {"call_site": "dataset_transformation", "consumer": "iterate", "variant": "fix"}

    def finish(self) -> None:
        self.flow = flow = self.ctx.shared(DatasetFlow)
        for node in self.ctx.nodes(cst.Call):
            if id(node) not in flow.method_receivers:
                continue
            method = node.func.attr.value
            if method not in ("map", "interleave") or not self._serial(node, method):
                continue
            func = _arg(node, 0, "map_func")
            if func is None or in_test_code(self.ctx, node):
                continue
            if isinstance(func, cst.Name) and _is_parameter(self.ctx, node, func.value):
                continue  # a function passed in: any def of that name is a guess
            work, unsafe = self._work(func, set(), 0)
            if work is None:
                continue
            self.report(node.func.attr, method=method, work=work, fix=self._fix(node, unsafe))

    def _serial(self, call: cst.Call, method: str) -> bool:
        if any(a.star for a in call.args):
            return False
        if any(a.keyword is not None and a.keyword.value in ("num_parallel_calls", "deterministic") for a in call.args):
            return False
        positional = [a for a in call.args if a.keyword is None]
        # map(func, num_parallel_calls, ...); interleave(func, cycle_length, block_length, num_parallel_calls, ...)
        return len(positional) < (2 if method == "map" else 4)

    # -- what the mapped function does ---------------------------------
    def _resolve(self, expr: cst.BaseExpression) -> Optional[cst.CSTNode]:
        if isinstance(expr, cst.Lambda):
            return expr.body
        if isinstance(expr, cst.Call) and self.ctx.call_name(expr) == "functools.partial" and expr.args:
            return self._resolve(expr.args[0].value)
        return self.flow.local_def(expr)

    def _work(self, func: cst.BaseExpression, seen: set, depth: int):
        """(description of the work or None when trivial or unreadable, unsafe-to-parallelise)."""
        qual = self.ctx.qualname(func)
        if qual in SOURCES:
            return f"`{qual.rsplit('.', 1)[-1]}` file reads", False
        body = self._resolve(func)
        if body is None or id(body) in seen or depth > _MAX_DEPTH:
            return None, False
        seen.add(id(body))
        work = None
        unsafe = False
        for node in [body, *descendants(body)]:
            if not isinstance(node, cst.Call):
                continue
            name = self.ctx.call_name(node)
            if name is not None:
                if name in PYTHON_CALLS or name in STATEFUL_CALLS or (name.startswith(RANDOM_PREFIXES) and "stateless_" not in name):
                    unsafe = True
                if work is None and ((name not in CHEAP and name.startswith(WORK_PREFIXES)) or name in SOURCES):
                    work = f"`{_short(name)}`"
                continue
            if isinstance(node.func, cst.Attribute) and node.func.attr.value in _STATEFUL_METHODS:
                unsafe = True
            inner = self._resolve(node.func)
            if inner is not None:
                inner_work, inner_unsafe = self._work(node.func, seen, depth + 1)
                work = work or inner_work
                unsafe = unsafe or inner_unsafe
        return work, unsafe

    def _fix(self, call: cst.Call, unsafe: bool) -> Optional[Fix]:
        autotune = autotune_expr(self.ctx)
        if autotune is None or not call.args:
            return None
        end = self.ctx.position(call.args[-1].value).end
        return Fix(
            (Edit(end.line, end.column, end.line, end.column, f", num_parallel_calls={autotune}"),),
            safety=UNSAFE if unsafe else SAFE,
            message=f"Pass `num_parallel_calls={autotune}`",
        )


def _is_parameter(ctx, node, name: str) -> bool:
    for parent in ctx.ancestors_of(node):
        if isinstance(parent, (cst.FunctionDef, cst.Lambda)):
            p = parent.params
            if any(param.name.value == name for param in (*p.posonly_params, *p.params, *p.kwonly_params)):
                return True
    return False


def _arg(call: cst.Call, index: int, keyword: str):
    positional = [a for a in call.args if a.keyword is None]
    if len(positional) > index:
        return positional[index].value
    for a in call.args:
        if a.keyword is not None and a.keyword.value == keyword:
            return a.value
    return None


def _short(name: str) -> str:
    for prefix in ("tensorflow.", "tensorflow_text."):
        if name.startswith(prefix):
            return ("tf." if prefix == "tensorflow." else "tensorflow_text.") + name[len(prefix) :]
    return name
