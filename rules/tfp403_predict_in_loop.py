"""TFP403 predict-in-loop."""

from __future__ import annotations

from typing import ClassVar, Optional

import libcst as cst

from tflint_perf.testcode import in_test_code
from tflint_perf.keras_models import ModelNames
from tflint_perf.loops import COMPREHENSION_TYPES, SCOPE_TYPES, LOOP_TYPES, names_used, receiver, target_names
from tflint_perf.names import dotted
from tflint_perf.rule import Rule
from tflint_perf.walk import descendants

# Arguments only Keras' predict takes (scikit-learn's takes just X).
KERAS_KEYWORDS = frozenset({"verbose", "batch_size", "steps", "callbacks", "max_queue_size", "workers", "use_multiprocessing"})
KERAS_CALLBACK_BASES = frozenset({"keras.callbacks.Callback"})
_BATCH_OF_ONE_CALLS = frozenset({"numpy.array", "numpy.asarray", "numpy.stack", "numpy.vstack", "tensorflow.constant", "tensorflow.stack", "tensorflow.convert_to_tensor"})
_EXPAND = frozenset({"numpy.expand_dims", "tensorflow.expand_dims"})
_RESHAPE = frozenset({"numpy.reshape", "tensorflow.reshape"})
_NEWAXIS = frozenset({"numpy.newaxis", "tensorflow.newaxis"})
_SMALL = 8  # x[i:i+k] with k up to this is a "small slice"


class PredictInLoop(Rule):
    """Keras `model.predict()` called on one sample per loop iteration.

    ## What it does
    Flags `model.predict(...)` inside a `for`/`while` loop or a
    comprehension when the argument is one sample or a small slice picked
    by the loop: `x[i:i+1]`, `x[i][None]`, `np.expand_dims(x[i], 0)`,
    `sample.reshape(1, -1)`, `np.array([sample])`, `[sample]`, directly or
    through a variable assigned in the loop body.

    The receiver must be a Keras model: a name bound to a Keras model in
    the module (`keras.Sequential`, `keras.Model`, `load_model`,
    `keras.applications.*`, a local `Model` subclass) or `self.model` in a
    Keras callback. When the receiver is unknown, the call must use
    arguments only Keras' `predict` takes (`verbose=`, `batch_size=`, ...);
    receivers built by other libraries (scikit-learn estimators) are never
    flagged. Silent for chunked loops over large slices
    (`x[i:i + chunk]`), for `predict` on a whole dataset per epoch, and in
    test code.

    ## Why is this bad?
    Each `predict` call builds a data adapter, may retrace, and runs a
    full prediction loop with callbacks and progress bookkeeping, all for one
    sample. Measured on TF 2.21 on a 2-core CPU, predicting samples one by
    one was 160-225x slower than one batched `predict`, and up to 4,600x
    slower than calling the model directly on a batch.

    ## Example
    ```python
    scores = []
    for i in range(len(x_test)):
        scores.append(model.predict(x_test[i : i + 1], verbose=0)[0])
    ```

    ## Use instead
    ```python
    scores = model.predict(x_test, verbose=0)
    # or, for inputs that fit in one batch:
    scores = model(x_test, training=False).numpy()
    ```
    When each input depends on the previous prediction (autoregressive
    generation), batching is impossible: call `model(x, training=False)`
    instead of `predict`.
    """

    code = "TFP403"
    name = "predict-in-loop"
    message = "`{call}()` on a single sample ({arg}) inside a loop: each call runs a whole prediction loop; call `predict` once on the batched inputs, or `model(x, training=False)` when they fit in one batch"
    triggers = (".predict(",)
    fixable = False
    #: How --verify can exercise a finding (data only): the call is made
    #: once per loop iteration on a Keras model; time the loop against one
    #: batched call.
    verify_roles: ClassVar[dict] = {"call_site": "loop", "model": "keras"}

    def finish(self) -> None:
        models: Optional[ModelNames] = None
        for node in self.ctx.nodes(cst.Call):
            if not (isinstance(node.func, cst.Attribute) and node.func.attr.value == "predict"):
                continue
            loop = self._loop(node)
            if loop is None:
                continue
            data = _data_arg(node)
            if data is None:
                continue
            loop_names, body_assigns = self._loop_names(loop)
            sample = self._per_sample(data, loop_names, body_assigns, 0)
            if sample is None:
                continue
            if models is None:
                models = ModelNames(self.ctx)
            if not self._keras_receiver(node, models) or in_test_code(self.ctx, node):
                continue
            self.report(node, call=dotted(node.func) or "predict", arg=f"`{_clip(self.ctx.code(sample))}`")

    # -- the loop ---------------------------------------------------------
    def _loop(self, call: cst.Call):
        child = call
        for parent in self.ctx.ancestors_of(call):
            if isinstance(parent, LOOP_TYPES) and child is parent.body:
                return parent
            if isinstance(parent, COMPREHENSION_TYPES):
                inside = child is getattr(parent, "elt", None) or child is getattr(parent, "key", None) or child is getattr(parent, "value", None)
                if inside:
                    return parent
            if isinstance(parent, SCOPE_TYPES):
                return None
            child = parent
        return None

    def _loop_names(self, loop):
        """Names that change per iteration, and assignments in the body (name -> value)."""
        names: set = set()
        assigns: dict = {}
        if isinstance(loop, cst.For):
            names.update(target_names(loop.target))
        elif isinstance(loop, COMPREHENSION_TYPES):
            for_in = loop.for_in
            while for_in is not None:
                names.update(target_names(for_in.target))
                for_in = for_in.inner_for_in
            return names, assigns
        for node in descendants(loop.body, skip_scopes=True):
            if isinstance(node, cst.Assign) and len(node.targets) == 1:
                target = node.targets[0].target
                if isinstance(target, cst.Name):
                    names.add(target.value)
                    assigns.setdefault(target.value, []).append(node.value)
                else:
                    names.update(target_names(target))
            elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
                names.update(target_names(node.target))
        return names, assigns

    # -- the argument -----------------------------------------------------
    def _per_sample(self, expr, loop_names: set, assigns: dict, depth: int):
        """The sub-expression proving ``expr`` is one sample picked by the loop, else None."""
        if depth > 2:
            return None
        if isinstance(expr, cst.Name) and len(assigns.get(expr.value, ())) == 1:
            inner = assigns[expr.value][0]
            return self._per_sample(inner, loop_names, assigns, depth + 1)
        if not (names_used(expr) & loop_names):
            return None
        if isinstance(expr, cst.Subscript):
            if _small_slice(expr) or _adds_axis(self.ctx, expr):
                return expr
            return None
        if isinstance(expr, cst.List) and len(expr.elements) == 1 and not isinstance(expr.elements[0], cst.StarredElement):
            return expr
        if isinstance(expr, cst.Call):
            qual = self.ctx.call_name(expr)
            args = [a for a in expr.args if a.keyword is None]
            if qual in _EXPAND and len(args) >= 2 and _is_int(args[1].value, 0):
                return expr
            if qual in _EXPAND and any(a.keyword and a.keyword.value == "axis" and _is_int(a.value, 0) for a in expr.args):
                return expr
            if qual in _BATCH_OF_ONE_CALLS and args and isinstance(args[0].value, (cst.List, cst.Tuple)) and len(args[0].value.elements) == 1:
                return expr
            if qual in _RESHAPE and len(args) >= 2 and _leading_one(args[1].value):
                return expr
            if qual is None and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "reshape" and args:
                if _leading_one(args[0].value) if len(args) == 1 else _is_int(args[0].value, 1):
                    return expr
        return None

    # -- the receiver -----------------------------------------------------
    def _keras_receiver(self, call: cst.Call, models: ModelNames) -> bool:
        recv = call.func.value
        if models.is_model_name(recv):
            return True
        name = receiver(call)
        if name == "self.model" and self._in_keras_callback(call):
            return True
        if name is not None and self._built_by_local_function(name, models):
            return True
        if name is not None and self._bound_elsewhere(name, models):
            return False
        return any(a.keyword is not None and a.keyword.value in KERAS_KEYWORDS for a in call.args)

    def _in_keras_callback(self, call) -> bool:
        for parent in self.ctx.ancestors_of(call):
            if isinstance(parent, cst.ClassDef):
                return any(self.ctx.qualname(b.value) in KERAS_CALLBACK_BASES for b in parent.bases)
        return False

    def _built_by_local_function(self, name: str, models: ModelNames) -> bool:
        """``name = build_model()`` where ``build_model`` of this module returns a Keras model."""
        for node in self.ctx.nodes(cst.Assign):
            if not (isinstance(node.value, cst.Call) and isinstance(node.value.func, cst.Name)):
                continue
            if not any(dotted(t.target) == name for t in node.targets):
                continue
            for func in self.ctx.nodes(cst.FunctionDef):
                if func.name.value == node.value.func.value and _returns_model(func, models):
                    return True
        return False

    def _bound_elsewhere(self, name: str, models: ModelNames) -> bool:
        """``name`` is assigned a call of a non-Keras library (an sklearn estimator, joblib.load)."""
        for node in self.ctx.nodes(cst.Assign):
            if isinstance(node.value, cst.Call):
                if any(dotted(t.target) == name for t in node.targets):
                    qual = self.ctx.call_name(node.value)
                    root = qual.split(".", 1)[0] if qual else None
                    if root is not None and root not in ("keras", "tensorflow"):
                        return True
        return False


def _returns_model(func: cst.FunctionDef, models: ModelNames) -> bool:
    built = set()
    for node in descendants(func.body, skip_scopes=True):
        if isinstance(node, cst.Assign) and models.is_model_expr(node.value):
            built.update(dotted(t.target) for t in node.targets)
        elif isinstance(node, cst.Return) and node.value is not None:
            if models.is_model_expr(node.value) or dotted(node.value) in built:
                return True
    return False


def _data_arg(call: cst.Call):
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            return arg.value
        if arg.keyword is not None and arg.keyword.value == "x":
            return arg.value
    return None


def _is_int(expr, value: int) -> bool:
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return isinstance(expr.expression, cst.Integer) and -int(expr.expression.value) == value
    return isinstance(expr, cst.Integer) and int(expr.value) == value


def _leading_one(shape) -> bool:
    """``(1, ...)`` / ``[1, ...]``."""
    return isinstance(shape, (cst.Tuple, cst.List)) and bool(shape.elements) and _is_int(shape.elements[0].value, 1)


def _small_slice(sub: cst.Subscript) -> bool:
    """``x[i:i+1]``, ``x[i:i + 4]`` (first index), with a small constant width."""
    first = sub.slice[0].slice if sub.slice else None
    if not isinstance(first, cst.Slice) or first.lower is None or first.upper is None or first.step is not None:
        return False
    upper = first.upper
    if isinstance(upper, cst.BinaryOperation) and isinstance(upper.operator, cst.Add):
        for base, width in ((upper.left, upper.right), (upper.right, upper.left)):
            if isinstance(width, cst.Integer) and 1 <= int(width.value) <= _SMALL and _same(base, first.lower):
                return True
    return False


def _adds_axis(ctx, sub: cst.Subscript) -> bool:
    """``x[i][None]``, ``x[None, i]``, ``img[np.newaxis, ...]``."""
    if sub.slice:
        index = sub.slice[0].slice
        if isinstance(index, cst.Index):
            value = index.value
            if isinstance(value, cst.Name) and value.value == "None":
                return True
            return ctx.qualname(value) in _NEWAXIS
    return False


def _same(a, b) -> bool:
    return dotted(a) is not None and dotted(a) == dotted(b)


def _clip(text: str, width: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."
