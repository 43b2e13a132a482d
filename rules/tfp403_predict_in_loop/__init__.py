"""TFP403 predict-in-loop."""

from __future__ import annotations

import ast
from typing import ClassVar

from tflint_perf.analysis.keras_models import graph_mode_keras
from tflint_perf.analysis.semantic import SemanticModel
from tflint_perf.analysis.summaries import data_argument
from tflint_perf.analysis.testcode import in_test_code
from tflint_perf.engine import cst
from tflint_perf.engine.nodes import is_true
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.rule import Rule
from tflint_perf.engine.verification import Rewrite, Verification
from tflint_perf.engine.walk import descendants

from .message import message
from .receiver import CALL, Inference, NotInference, Receivers, inference_method
from .sites import NoSite, Shape, Sites


class PredictInLoop(Rule):
    """Keras inference on one sample per loop iteration.

    ## What it does
    Flags `model.predict(...)` (also `predict_on_batch`, `predict_classes`,
    and calling a Keras model, `model(x)`) on one sample per iteration of a
    `for`/`while` loop or a comprehension, directly or through the
    functions the loop calls (any depth of wrappers, methods through `self`
    and the class hierarchy, and callables passed as arguments, such as a
    policy handed to a rollout loop, or a loop body moved into a function of
    its own that takes no data parameter and shares its input with the loop
    through `global`/`nonlocal` names). It reports at the inference call, or,
    when a function on the way from the loop makes the one sample and hands
    it to a thin helper that runs the inference
    (`q = self.predict(state.reshape(1, -1))[0]`), at that helper call: that
    is the code to change.

    One sample is what the code shows: `x[i:i+1]`, `x[i][None]`,
    `np.expand_dims(x, 0)`, `s.reshape(1, -1)`, `np.array([s])`,
    `pad_sequences([seq])`, `[image]` passed to a helper that batches a
    list, a dict or list of such inputs (a multi-input model), or keeping
    only the first row of the output (`predict(s)[0]`, `np.argmax(q)`
    without an axis) on an input that changes per iteration.

    The model must be Keras: a value the analysis shows to be a Keras model
    (built by `keras.Sequential`/`keras.Model`, loaded, a `keras.Model`
    subclass of the module, a module function that returns one,
    `self.model` set to one in any method or, on an instance of the class,
    by code outside it: `agent.model = build()`), or, for an object it cannot
    follow, Keras-only evidence: `predict_on_batch`, a Keras-only keyword
    (`verbose=`, `batch_size=`), `self.model` in a Keras callback, or a
    module that uses TensorFlow and no other library with a `predict`
    (scikit-learn, XGBoost, ...). Objects of a class of the module that
    defines its own `predict` (also a parameter annotated with a class of
    another module of the tree, `net: qnet.QNetwork`), and what
    `joblib`/`pickle` load, are not Keras.

    Reinforcement-learning agents usually keep their environment loop in
    another file. A `predict` on one observation in a method of an agent
    class (see `analysis/agent_classes.py`) that nothing in its module calls
    is reported too, with the advice to call the model directly; when the
    tree is linted, the environment loop's call of that method in the other
    file is the same trap and stays silent. A loop over an object that its
    callers build from several classes (`run(agent)` called with an `Agent()`
    and a `RandomAgent()`) may run the method of any of them.

    The advice depends on the loop:

    - independent samples (a loop over rows, files, windows): predict once
      on the batch;
    - each input built from the previous prediction (autoregressive
      generation, an environment stepped with the predicted action):
      batching is impossible, so call the model directly,
      `model(x, training=False)`; `model(x)` and `predict_on_batch` there
      are already the light calls and are not reported;
    - a `while` loop whose feedback the source does not show: both;
    - the same input on every iteration: compute it once before the loop
      (not when the loop trains or rebuilds the model, walks the outputs of
      that one prediction, or does not read its loop variable: sampling a
      stochastic model on purpose).

    Silent (`tflint-perf why` says which): loops of a handful of iterations
    (at most 16, from the source: `range(4)`, five literal items,
    `ds.take(3)`, the default of a function no code calls, work a counter
    ends early: `if i > 10: continue`), a different model per iteration, a forward pass under a
    `GradientTape` or with `training=True`, inputs not shown to be one
    sample (chunks, batches), and test code.

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
    generation, environment steps), batching is impossible: call
    `model(x, training=False)` instead of `predict`.
    """

    code = "TFP403"
    name = "predict-in-loop"
    message = "`{call}()` on a single sample inside a loop: call it once on the batch"
    triggers = ("predict", "Model", "Sequential", "load_model", "applications", ".numpy()")
    fixable = False
    reads_project = True  # a model, wrapper or policy of another module of the tree
    #: For --verify: timed against calling the model directly (a
    #: verification-only rewrite).
    verification: ClassVar[Verification] = Verification(rewrite=Rewrite.PREDICT_AS_CALL)

    @classmethod
    def screen(cls, facts) -> bool:
        # The call repeats in a loop of this module, or it is `predict` in an
        # agent's method whose loop lives elsewhere.
        return facts.has_loop() or (
            "predict" in facts.source
            and any(node.attr == "predict" for node in facts.nodes(ast.Attribute))
        )

    def finish(self) -> None:
        ctx = self.ctx
        receivers = sites = None
        graph_mode = None
        project = ctx.project is not None
        reported: set = set()
        for call in ctx.nodes(cst.Call):
            method = inference_method(call)
            if method is None and not project:
                continue
            if receivers is None:
                receivers, sites = Receivers(ctx), Sites(ctx)
            verdict = receivers.classify(call, method)
            if verdict is None:
                continue
            if isinstance(verdict, NotInference) and method is None:  # another module's function
                self.silent(call, verdict.reason, verdict.detail)
                continue
            data = data_argument(call)
            if isinstance(verdict, Inference) and verdict.external is not None:
                data, method = verdict.data, verdict.method
            if data is None or method is None:
                continue
            if isinstance(verdict, NotInference):
                self.silent(call, verdict.reason, verdict.detail)
                continue
            if method == CALL and (self._under_tape(call) or _training_true(call)):
                self.silent(call, Reason.DELIBERATE, "a forward pass for training")
                continue
            if in_test_code(ctx, call):
                self.silent(call, Reason.TEST_CODE)
                continue
            assert sites is not None
            made = data if isinstance(verdict, Inference) and verdict.made_inside else None
            site = sites.find(call, data, method, made)
            if isinstance(site, NoSite):
                self.silent(site.at or call, site.reason, site.detail)
                if site.at is not None:
                    self.silent(call, site.reason, site.detail)
                continue
            light = method in (CALL, "predict_on_batch")
            if light and site.shape in (Shape.SEQUENTIAL, Shape.UNCLEAR, Shape.ELSEWHERE):
                self.silent(
                    call, Reason.ALREADY_DONE, "already the light call for a sequential loop"
                )
                continue
            if graph_mode is None:
                graph_mode = graph_mode_keras(ctx)
            at = sites.report_at(call, site)
            if at in reported:  # a helper call whose function runs one of two models
                self.silent(call, Reason.COVERED, "reported at the helper call already")
                continue
            reported.add(at)
            headline, detail = message(ctx, call, at, verdict, site, graph_mode)
            self.report(at, message=headline, detail=detail)

    def _under_tape(self, call: cst.Call) -> bool:
        """A forward pass for gradients (training, saliency): in a ``with
        tf.GradientTape()`` block or a function that opens one."""
        sem = self.ctx.shared(SemanticModel)
        for parent in self.ctx.ancestors_of(call):
            if isinstance(parent, cst.With) and any(_tape(self.ctx, i.item) for i in parent.items):
                return True
        func = sem.function_of(call)
        return func is not None and any(
            _tape(self.ctx, node) for node in descendants(func.body, skip_scopes=True)
        )


def _tape(ctx, node) -> bool:
    return isinstance(node, cst.Call) and ctx.call_name(node) == "tensorflow.GradientTape"


def _training_true(call: cst.Call) -> bool:
    return any(
        a.keyword is not None and a.keyword.value == "training" and is_true(a.value)
        for a in call.args
    )
