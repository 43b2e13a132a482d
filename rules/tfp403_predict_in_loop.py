"""TFP403 predict-in-loop."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import ClassVar, Dict, Optional

from tflint_perf.analysis.agent_classes import AgentClasses
from tflint_perf.analysis.callers import Callers, enclosing_function
from tflint_perf.analysis.callgraph import CallGraph
from tflint_perf.analysis.keras_models import (
    OTHER_PREDICTORS,
    PREDICT_METHODS,
    ModelNames,
    graph_mode_keras,
    keras_only_module,
)
from tflint_perf.analysis.loop_flow import ScopeFlow
from tflint_perf.analysis.loops import (
    COMPREHENSION_TYPES,
    LOOP_TYPES,
    SCOPE_TYPES,
    names_used,
    receiver,
    target_names,
)
from tflint_perf.analysis.samples import batch_of_one, built_with_rows
from tflint_perf.analysis.steps import _bound_bases
from tflint_perf.analysis.testcode import in_test_code
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.rule import Rule
from tflint_perf.engine.verification import Rewrite, Verification
from tflint_perf.engine.walk import descendants

# Arguments only Keras' predict takes (scikit-learn's takes just X).
KERAS_KEYWORDS = frozenset(
    {
        "verbose",
        "batch_size",
        "steps",
        "callbacks",
        "max_queue_size",
        "workers",
        "use_multiprocessing",
    }
)
KERAS_CALLBACK_BASES = frozenset({"keras.callbacks.Callback"})
# Libraries that load pickled estimators (scikit-learn models, mostly).
MODEL_LOADERS = frozenset({"joblib", "pickle", "dill", "cloudpickle", "skops"})
# Methods only Keras models have (predict_on_batch, predict_classes).
KERAS_ONLY_METHODS = frozenset({"predict_on_batch", "predict_classes"})
# Calls in a loop that change the model: its predictions differ per iteration.
CHANGES_MODEL = frozenset(
    {
        "fit",
        "fit_generator",
        "train_on_batch",
        "apply_gradients",
        "minimize",
        "set_weights",
        "load_weights",
        "compile",
    }
)
PURE_METHODS = frozenset({"reshape", "astype", "copy", "flatten", "squeeze", "ravel", "transpose"})
_COST = {
    "predict": "each call runs a whole prediction loop",
    "predict_on_batch": "each call pays a fixed per-call cost for one sample",
    "__call__": "each call pays a fixed per-call cost for one sample",
}
TINY = 10  # a literal loop of at most this many iterations is a demo


@dataclass
class Site:
    """Where one-sample inference repeats, and what the loop does with it."""

    sample: cst.CSTNode  # the expression proving one sample
    loop: Optional[cst.CSTNode]  # the loop that repeats it (None: a loop in another module)
    sequential: bool = False  # each iteration needs the previous prediction
    feedback: Optional[str] = None  # the input name built from the previous result
    stepper: Optional[cst.Call] = None  # env.step(...) driven by the prediction
    invariant: bool = False  # the same input every iteration
    helper: Optional[cst.FunctionDef] = None  # the function the loop calls
    at_call: bool = False  # the helper's caller makes the one sample
    agent: Optional[cst.ClassDef] = None  # an agent method run from a loop elsewhere


class PredictInLoop(Rule):
    """Keras inference on one sample per loop iteration.

    ## What it does
    Flags `model.predict(...)` (also `predict_on_batch`, `predict_classes`,
    and calling a Keras model, `model(x)`) on one sample per iteration of a
    `for`/`while` loop or a comprehension. One sample is what the code
    shows: `x[i:i+1]`, `x[i][None]`, `np.expand_dims(x, 0)`,
    `s.reshape(1, -1)`, `np.array([s])`, `pad_sequences([seq])`,
    `np.zeros((1, n))` filled in the loop, a dict or list of such inputs
    (a multi-input model: `predict([source, target])`), or
    `predict(s)[0]` (or `r = predict(s)` then `r[0]`) on a value that
    changes per iteration, directly or through variables (not when the
    source builds that value with several rows,
    `np.random.normal(size=(batch_size, dim))`).

    It follows one level of helper: `def act(s): return model.predict(s[None])`
    called in a loop (`act(s)`, `self.act(s)`, `agent.act(s)`) is reported
    at the `predict` line, when the loop passes a different sample on each
    call.

    Reinforcement-learning agents usually keep their environment loop in
    another file (`main.py`). A `predict` on one observation in a method of
    an agent class (at least two of: agent methods such as `choose_action`,
    `act`, `remember`, `store_transition`, `learn`; an `epsilon`, `gamma` or
    replay `memory` attribute; a `gym` import) that nothing in its module
    calls (or only another such method) is reported too: the observation is a parameter made a batch of
    one (`obs[np.newaxis, :]`, `np.array([obs])`) or the prediction is
    reduced to one action (`[0]`, `np.argmax(q)` without an axis,
    `np.random.choice(n, p=probs)`). The advice is `model(x, training=False)`:
    environment steps cannot be batched. A predict over a sampled replay
    batch, `model(x)` and `predict_on_batch` are not reported there.

    In a loop that steps a Gym-style environment (`s, r, done, info =
    env.step(a)`), a project object's `predict` (`self.agent = Agent(...)`
    from a sibling module, wrapping Keras') counts as Keras inference when
    no other library with a `predict` is imported and no class of the module
    defines one.

    The advice depends on the loop:

    - independent samples (a loop over rows, files, windows): predict once
      on the batch;
    - each input built from the previous prediction (autoregressive
      generation, `env.step(action)` in reinforcement learning): batching is
      impossible, so the advice is to call the model directly,
      `model(x, training=False)`, instead of `predict` (per-call overhead);
      `model(x)` and `predict_on_batch` there are already the light calls
      and are not reported;
    - the same input on every iteration: compute it once before the loop
      (not when the loop variable is unused, which samples a stochastic
      model on purpose, nor when the loop walks the outputs of that one
      prediction, `predict(x)[i]`, or trains the model).

    A `while True`/`while not done` loop whose feedback is not visible gets
    both pieces of advice; `model(x)` and `predict_on_batch` there are not
    reported.

    The receiver must be a Keras model: a name bound to a Keras model in the
    module (`keras.Sequential`, `keras.Model`, `load_model`,
    `keras.applications.*`, a local `Model` subclass, a function of the
    module that returns one, `self.model` set to one and read as
    `agent.model`), `self.model` in a Keras callback, the class's own thin
    wrapper (`self.predict(s)` where `predict` returns
    `self.model.predict(s)`), or a call with
    Keras-only arguments (`verbose=`, `batch_size=`); a direct call
    `f(x).numpy()` counts when `f` is not a function or import of the
    module (a model passed in). An unknown receiver (also an object of
    the project's own package, `detector = YoloV3(...)`) counts only in a
    module that imports TensorFlow or Keras and no other library with a
    `predict` (scikit-learn, XGBoost, ...); names bound by such libraries
    or loaded with `joblib`/`pickle`, and objects of a class of the module
    that defines its own `predict`, are never flagged. Silent for chunked loops over large
    slices (`x[i:i + chunk]`), for `predict` on a whole dataset per epoch,
    for a different model per iteration (`for m in models`, a model built
    in the loop), for loops over at most ten literal items or a
    `dataset.take(k)` peek (demos), and in test code.

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
    message = "`{call}()` on a single sample ({arg}) inside a loop: each call runs a whole prediction loop; call `predict` once on the batched inputs, or `model(x, training=False)` when they fit in one batch"
    triggers = ("predict", "Model", "Sequential", "load_model", "applications", ".numpy()")
    fixable = False
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
        self._flows: Dict[int, ScopeFlow] = {}
        self.models: Optional[ModelNames] = None
        for node in self.ctx.nodes(cst.Call):
            method = _inference_method(node)
            if method is None:
                continue
            data = _data_arg(node)
            if data is None:
                continue
            if self.models is None:
                self.models = self.ctx.shared(ModelNames)
            if method == "__call__" and (not self._tf_callable(node) or self._under_tape(node)):
                continue
            site = self._site(node, data, method)
            if site is None or not self._acceptable(node, method, site):
                continue
            if in_test_code(self.ctx, node):
                continue
            self.report(node, message=self._message(node, method, site))

    def _under_tape(self, call: cst.Call) -> bool:
        """A forward pass for gradients (training, saliency), not inference: the call
        sits in a ``with tf.GradientTape()`` block or a function that opens one."""
        for parent in self.ctx.ancestors_of(call):
            if isinstance(parent, cst.With) and any(
                _tape(self.ctx, item.item) for item in parent.items
            ):
                return True
            if isinstance(parent, cst.FunctionDef):
                return any(
                    _tape(self.ctx, node) for node in descendants(parent.body, skip_scopes=True)
                )
        return False

    def _tf_callable(self, call: cst.Call) -> bool:
        """``model(x)`` on a Keras model, or ``f(x).numpy()`` where ``f`` is a name
        bound outside this module's defs and imports (a model passed in)."""
        assert self.models is not None  # set in finish() before any check
        if self.models.is_keras_model(call.func):
            return True
        parent = self.ctx.parent(call)
        if not (
            isinstance(parent, cst.Attribute)
            and parent.attr.value == "numpy"
            and isinstance(self.ctx.parent(parent), cst.Call)
        ):
            return False
        name = call.func.value if isinstance(call.func, cst.Name) else None
        return (
            name is not None
            and self.ctx.imports.uses_tensorflow
            and name not in self.ctx.imports.aliases
            and not any(f.name.value == name for f in self.ctx.nodes(cst.FunctionDef))
            and not any(c.name.value == name for c in self.ctx.nodes(cst.ClassDef))
        )

    # -- where the call repeats -------------------------------------------
    def _site(self, call: cst.Call, data, method: str) -> Optional[Site]:
        func = enclosing_function(self.ctx, call)
        loop = self._loop(call)
        if loop is not None:
            return self._in_loop(call, data, loop, self._flow(func))
        if func is not None and self._called_in_loop(func):
            return self._through_helper(call, data, func, self._flow(func))
        if func is not None and method == "predict":
            return self._agent_entry(call, data, func)
        return None

    def _agent_entry(self, call, data, func) -> Optional[Site]:
        """``def choose_action(self, obs): ... predict(obs[None])`` in an agent class
        whose environment loop lives in another module (nothing here calls it)."""
        cls = self.ctx.shared(AgentClasses).entry_method(func)
        if cls is None or not self._keras_receiver(call, "predict"):
            return None
        flow = self._flow(func)
        if not flow.inputs(func, _names(data)) & _param_names(func):
            return None  # not the observation the caller passes (a replay batch)
        sample = batch_of_one(self.ctx, data, flow.value_at)
        if sample is None and _first_of_result(self.ctx, call, data, func.body):
            sample = data
        if sample is None:
            return None
        return Site(sample, None, sequential=True, helper=func, agent=cls)

    def _called_in_loop(self, func) -> bool:
        """Cheap check before reading the helper: some loop of this module calls it."""
        return any(self._loop(site) for site in self.ctx.shared(Callers).calls_of(func))

    def _in_loop(self, call, data, loop, flow: ScopeFlow) -> Optional[Site]:
        if self._tiny(loop, flow):
            return None
        sample = batch_of_one(self.ctx, data, flow.value_at)
        inputs = flow.inputs(loop, _names(data))
        varying = flow.varying(loop, self._pure)
        varies = bool(inputs & varying)
        if (
            sample is None
            and varies
            and not built_with_rows(self.ctx, data, flow.value_at)
            and _first_of_result(
                self.ctx, call, data, loop.body if isinstance(loop, LOOP_TYPES) else loop
            )
        ):
            sample = data
        if sample is None or self._rebound(call, loop):
            return None
        if not varies:
            if (
                self._changes_model(call, loop, varying)
                or self._over_outputs(call, loop)
                or not self._targets_used(loop)
            ):
                return None
            return Site(sample, loop, invariant=True)
        return self._sequence(Site(sample, loop), flow, call, _names(data))

    def _through_helper(self, call, data, func, flow: ScopeFlow) -> Optional[Site]:
        """``def act(s): return model.predict(s[None])`` called in a loop."""
        params = _param_names(func)
        used = sorted(flow.inputs(func, _names(data)) & params)
        if not used:
            return None
        sample = batch_of_one(self.ctx, data, flow.value_at)
        first = isinstance(data, cst.Name) and data.value in params
        first = first and _first_of_result(self.ctx, call, data, func.body)
        callers = self.ctx.shared(Callers)
        for site in callers.calls_of(func):
            loop = self._loop(site)
            if loop is None:
                continue
            site_flow = self._flow(enclosing_function(self.ctx, site))
            if self._tiny(loop, site_flow):
                continue
            args = [a for a in (callers.param_for(func, site, p) for p in used) if a is not None]
            inputs = site_flow.inputs(loop, set().union(*(_names(a) for a in args)))
            if not inputs & site_flow.varying(loop, self._pure):
                continue
            found = (self._one_item(a, site_flow) for a in args)
            at_call = None if sample is not None else next((f for f in found if f), None)
            if sample is None and at_call is None and not first:
                continue
            if not self._receiver_passed(call, func, site) and not self._stepped_project_model(
                call, loop
            ):
                continue
            shown = sample or at_call or data
            result = Site(shown, loop, helper=func, at_call=at_call is not None)
            return self._sequence(result, site_flow, site, set().union(*map(_names, args)))
        return None

    def _one_item(self, arg, flow: ScopeFlow):
        """What makes a helper's argument one sample: ``[image]`` (a list of one item for
        a helper that batches a list) or a batch of one."""
        value = arg
        for _ in range(3):
            if not isinstance(value, cst.Name):
                break
            value = flow.value_at(value)
        if isinstance(value, cst.List) and len(value.elements) == 1:
            if not isinstance(value.elements[0], cst.StarredElement):
                return value
        return batch_of_one(self.ctx, arg, flow.value_at)

    def _loop(self, call: cst.CSTNode):
        """The innermost loop (or comprehension) running ``call`` in its scope."""
        child = call
        for parent in self.ctx.ancestors_of(call):
            if isinstance(parent, LOOP_TYPES) and child is parent.body:
                return parent
            if isinstance(parent, COMPREHENSION_TYPES) and child in (
                getattr(parent, "elt", None),
                getattr(parent, "key", None),
                getattr(parent, "value", None),
            ):
                return parent
            if isinstance(parent, SCOPE_TYPES):
                return None
            child = parent
        return None

    def _flow(self, func: Optional[cst.FunctionDef]) -> ScopeFlow:
        scope = func if func is not None else self.ctx.module
        flow = self._flows.get(id(scope))
        if flow is None:
            flow = self._flows[id(scope)] = ScopeFlow(scope)
        return flow

    # -- loop properties ---------------------------------------------------
    def _tiny(self, loop, flow: ScopeFlow) -> bool:
        """A loop (and every loop around it) over at most TINY literal items."""
        node = loop
        while node is not None:
            if not _literal_trips(self._iterable(node, flow)):
                return False
            node = self._loop(node)
        return True

    def _iterable(self, loop, flow: ScopeFlow):
        if isinstance(loop, cst.For):
            iterable = loop.iter
        elif isinstance(loop, COMPREHENSION_TYPES):
            iterable = loop.for_in.iter
        else:
            return None
        if isinstance(iterable, cst.Name):
            return flow.value_at(iterable) or self._flow(None).value_at(iterable)
        return iterable

    def _pure(self, value, depth: int = 0) -> bool:
        """A value computed the same way from the same names (no I/O, no randomness)."""
        if depth > 6:
            return False
        if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString, cst.Name)):
            return True
        if isinstance(value, (cst.Attribute, cst.Subscript)):
            return self._pure(value.value, depth + 1)
        if isinstance(value, cst.BinaryOperation):
            return self._pure(value.left, depth + 1) and self._pure(value.right, depth + 1)
        if isinstance(value, cst.UnaryOperation):
            return self._pure(value.expression, depth + 1)
        if isinstance(value, (cst.Tuple, cst.List)):
            return all(self._pure(e.value, depth + 1) for e in value.elements)
        if isinstance(value, cst.Call):
            qual = self.ctx.call_name(value) or ""
            func = value.func
            method_ok = isinstance(func, cst.Attribute) and func.attr.value in PURE_METHODS
            lib_ok = qual.startswith(("numpy.", "tensorflow.")) and ".random" not in qual
            if not (
                lib_ok
                or method_ok
                and isinstance(func, cst.Attribute)
                and self._pure(func.value, depth + 1)
            ):
                return False
            return all(self._pure(a.value, depth + 1) for a in value.args)
        return False

    def _changes_model(self, call, loop, varying: set) -> bool:
        """The loop trains or rebuilds the model, so its output differs per iteration."""
        recv = call.func.value if isinstance(call.func, cst.Attribute) else call.func
        base = dotted(recv)
        if base is None or base.split(".", 1)[0] in varying:
            return True
        for node in descendants(loop, skip_scopes=True):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                if node.func.attr.value in CHANGES_MODEL:
                    return True
            if isinstance(node, cst.With):
                return True  # GradientTape and friends
        return False

    def _sequence(self, site: Site, flow: ScopeFlow, result, names: set) -> Site:
        """Mark ``site`` sequential when the loop feeds the prediction back into
        the input (``names``: what the input is computed from)."""
        assert site.loop is not None  # a loop of this module
        derived = flow.derived(site.loop, result)
        site.feedback = flow.nearest(site.loop, names, derived)
        for node in descendants(site.loop, skip_scopes=True):
            if isinstance(node, cst.Call) and _is_step(node) and node is not result:
                if any(names_used(a.value) & derived for a in node.args):
                    site.stepper = node
                    break
        site.sequential = site.feedback is not None or site.stepper is not None
        return site

    def _targets_used(self, loop) -> bool:
        """The loop variable is read in the loop: it walks something else than repetitions
        (``for _ in range(100): predict(x)`` samples a stochastic model on purpose)."""
        targets = _loop_targets(loop)
        if not targets:
            return False
        region = (
            loop.body
            if isinstance(loop, LOOP_TYPES)
            else loop.elt
            if hasattr(loop, "elt")
            else loop
        )
        return bool(names_used(region) & targets)

    def _rebound(self, call, loop) -> bool:
        """The model itself is built or loaded in the loop: one model per iteration."""
        recv = call.func.value if isinstance(call.func, cst.Attribute) else call.func
        name = dotted(recv)
        if name is not None and name.split(".", 1)[0] in _loop_targets(loop):
            return True  # for model in models: one model per iteration
        for node in descendants(loop, skip_scopes=True):
            if isinstance(node, cst.Assign):
                if any(dotted(t.target) == name for t in node.targets):
                    return True
                if any(
                    name in _bound_bases(t.target)
                    for t in node.targets
                    if not isinstance(t.target, (cst.Name, cst.Attribute))
                ):
                    return True
        return False

    def _over_outputs(self, call, loop) -> bool:
        """``predict(x)[i]`` in a loop over ``i``: the loop walks one prediction's outputs."""
        parent = self.ctx.parent(call)
        if not isinstance(parent, cst.Subscript) or parent.value is not call:
            return False
        targets = _loop_targets(loop)
        return any(names_used(e.slice) & targets for e in parent.slice)

    # -- the receiver --------------------------------------------------------
    def _acceptable(self, call: cst.Call, method: str, site: Site) -> bool:
        if method in ("__call__", "predict_on_batch"):
            # Already the light call: worth reporting only when the samples
            # can be batched, which a while loop (an episode, a stream) hides.
            if site.sequential or not _iterates(site.loop):
                return False
        if method == "__call__":
            return not site.invariant and not _training_true(call)
        if site.helper is not None:
            return True  # checked with the call site
        return self._keras_receiver(call, method)

    def _keras_receiver(self, call: cst.Call, method: str) -> bool:
        assert isinstance(call.func, cst.Attribute)  # a method call: `model.predict(x)`
        assert self.models is not None  # set in finish() before any check
        recv = call.func.value
        if self._overridden(recv, method):
            return False  # the project's own `predict` (often just `self(x)`)
        if self.models.is_keras_model(recv) or self._wrapped_model(call, method) is not None:
            return True
        name = receiver(call)
        if name == "self.model" and self._in_keras_callback(call):
            return True
        if name is not None and self._bound_elsewhere(name):
            return False
        return self._keras_evidence(call, method)

    def _keras_evidence(self, call: cst.Call, method: str) -> bool:
        """A Keras-only method or argument, or a module where only Keras predicts."""
        if method in KERAS_ONLY_METHODS:
            return True
        if any(a.keyword is not None and a.keyword.value in KERAS_KEYWORDS for a in call.args):
            return True
        assert isinstance(call.func, cst.Attribute)  # a method call: `model.predict(x)`
        return keras_only_module(self.ctx) and not self._local_method(call.func.attr.value)

    def _receiver_passed(self, call: cst.Call, func, site: cst.Call) -> bool:
        """The helper's model: a Keras model here, or the one the call site passes."""
        recv = call.func if not isinstance(call.func, cst.Attribute) else call.func.value
        assert self.models is not None  # set in finish() before any check
        if isinstance(recv, cst.Name) and recv.value in _param_names(func):
            arg = self.ctx.shared(Callers).param_for(func, site, recv.value)
            if arg is None:
                return False
            if self.models.is_keras_model(arg):
                return True
            recv_name = dotted(arg)
            if recv_name is None or self._bound_elsewhere(recv_name):
                return False
            if not isinstance(call.func, cst.Attribute):
                return False
            return self._keras_evidence(call, call.func.attr.value)
        if not isinstance(call.func, cst.Attribute):
            return self.models.is_keras_model(recv)
        return self._keras_receiver(call, call.func.attr.value)

    def _stepped_project_model(self, call: cst.Call, loop) -> bool:
        """A model object of the project (``self.agent = Agent(...)`` from a sibling
        module, whose ``predict`` wraps Keras') called once per environment step: the
        loop steps a Gym-style environment and no other ``predict`` library is in use."""
        recv = call.func.value if isinstance(call.func, cst.Attribute) else None
        name = dotted(recv) if recv is not None else None
        if name is None or self._bound_elsewhere(name) or self._local_method("predict"):
            return False
        if self.ctx.imports.imports_any(*OTHER_PREDICTORS):
            return False
        return any(_environment_step(self.ctx, n) for n in descendants(loop, skip_scopes=True))

    def _in_keras_callback(self, call) -> bool:
        for parent in self.ctx.ancestors_of(call):
            if isinstance(parent, cst.ClassDef):
                return any(self.ctx.qualname(b.value) in KERAS_CALLBACK_BASES for b in parent.bases)
        return False

    def _bound_elsewhere(self, name: str) -> bool:
        """``name`` is assigned a call of a non-Keras library (an sklearn estimator, joblib.load)."""
        for node in self.ctx.nodes(cst.Assign):
            if isinstance(node.value, cst.Call):
                if any(dotted(t.target) == name for t in node.targets):
                    qual = self.ctx.call_name(node.value)
                    root = qual.split(".", 1)[0] if qual else None
                    if root in OTHER_PREDICTORS or root in MODEL_LOADERS:
                        return True
        return False

    def _wrapped_model(self, call: cst.Call, method: str) -> Optional[cst.BaseExpression]:
        """For ``self.predict(s)`` where this class's ``predict`` only returns
        ``self.model.predict(s)`` of a Keras model (an agent's thin wrapper): that model."""
        recv = call.func.value if isinstance(call.func, cst.Attribute) else None
        if not (isinstance(recv, cst.Name) and recv.value == "self"):
            return None
        graph = self.ctx.shared(CallGraph)
        func = enclosing_function(self.ctx, call)
        cls = graph.class_of(func) if func is not None else None
        wrapper = graph.method(cls.name.value, method) if cls is not None else None
        body = list(wrapper.body.body) if wrapper is not None else []
        line = body[0] if len(body) == 1 else None
        small = line.body[0] if isinstance(line, cst.SimpleStatementLine) else None
        inner = small.value if isinstance(small, cst.Return) else None
        if (
            isinstance(inner, cst.Call)
            and isinstance(inner.func, cst.Attribute)
            and inner.func.attr.value == method
            and self.models is not None
            and self.models.is_keras_model(inner.func.value)
        ):
            return inner.func.value
        return None

    def _overridden(self, recv: cst.BaseExpression, method: str) -> bool:
        """``recv`` is bound here to an object of a class of this module that
        defines ``method`` itself (a ``keras.Model`` subclass with its own ``predict``)."""
        graph = self.ctx.shared(CallGraph)
        cls = graph.instances.get(dotted(recv) or "")
        return cls is not None and graph.method(cls, method) is not None

    def _local_method(self, method: str) -> bool:
        """A class of this module defines ``method``: the receiver may be one of its objects."""
        return any(f.name.value == method for f in self.ctx.nodes(cst.FunctionDef))

    # -- the message -----------------------------------------------------------
    def _message(self, call: cst.Call, method: str, site: Site) -> str:
        ctx = self.ctx
        spelled = dotted(call.func) or method
        arg = _clip(ctx.code(site.sample))
        wrapped = self._wrapped_model(call, method)  # self.predict -> self.model
        if wrapped is None and isinstance(call.func, cst.Attribute):
            wrapped = call.func.value
        model = (dotted(wrapped) if wrapped is not None else None) or "model"
        graph = graph_mode_keras(ctx)
        direct = f"`{model}.predict_on_batch(x)`" if graph else f"`{model}(x, training=False)`"
        if site.agent is not None:
            assert site.helper is not None  # an agent site names its method
            helper = site.helper.name.value
            reached = ctx.shared(AgentClasses).how_reached(site.helper)
            return (
                f"`{spelled}()` in `{helper}()` runs on a single sample (`{arg}`); {reached}, "
                f"so the environment loop of agent `{site.agent.name.value}` in another module "
                f"runs it once per step, and every `{method}` call sets up a whole prediction "
                f"loop; steps that depend on the previous action cannot be batched: call "
                f"{direct} instead"
            )
        where = _loop_words(ctx, site.loop)
        if site.helper is not None:
            assert site.loop is not None  # the caller's loop, in this module
            helper = site.helper.name.value
            line = ctx.line_ref(ctx.position(site.loop).start.line)
            head = (
                f"`{spelled}()` in `{helper}()` runs on a single sample (`{arg}`), and "
                f"`{helper}()` is called once per iteration of {where} ({line})"
            )
            if site.at_call:
                head = (
                    f"`{spelled}()` in `{helper}()` runs once per call, and {where} ({line}) "
                    f"calls `{helper}()` with a single sample (`{arg}`) on each iteration"
                )
        elif site.invariant:
            return (
                f"`{spelled}()` runs on the same input (`{arg}`) on every iteration of {where}: "
                "the result does not change; compute it once before the loop"
            )
        else:
            head = f"`{spelled}()` on a single sample (`{arg}`) per iteration of {where}"
        if site.sequential:
            return (
                f"{head}; each input depends on the previous prediction ({_why(ctx, site)}), so "
                f"batching is impossible, but every `{method}` call sets up a whole prediction "
                f"loop: call {direct} instead"
            )
        if not _iterates(site.loop) and method != "__call__":
            return (
                f"{head}: each call runs a whole prediction loop; if the inputs are independent, "
                f"collect them and call `{method}` once on the batch; if each depends on the "
                f"previous prediction, call {direct} instead"
            )
        if method == "__call__":
            return (
                f"{head}: {_COST[method]}; stack the samples and call the model once on the batch"
            )
        cost = _COST.get(method, _COST["predict"])
        if graph:
            return f"{head}: {cost}; collect the samples and call `{method}` once on the batch"
        return (
            f"{head}: {cost}; collect the samples and call "
            f"`{method}` once on the batch (or the model directly, `{model}(batch, training=False)`, "
            "when the batch fits in memory)"
        )


def _tape(ctx, node) -> bool:
    return isinstance(node, cst.Call) and ctx.call_name(node) == "tensorflow.GradientTape"


def _why(ctx, site: Site) -> str:
    if site.stepper is not None:
        step = _clip(ctx.code(site.stepper))
        then = ", which produces the next input" if site.feedback is not None else ""
        return f"it drives `{step}`{then}"
    return f"`{site.feedback}` is built from it"


def _is_step(call: cst.Call) -> bool:
    """``env.step(a)``, ``vista_step(a)``: advancing an environment with an action."""
    name = dotted(call.func)
    last = name.rsplit(".", 1)[-1] if name else ""
    return last == "step" or last.startswith("step_") or last.endswith("_step")


def _iterates(loop) -> bool:
    """A ``for`` loop, a comprehension, or ``while i < len(xs)``: it walks a
    collection, unlike ``while True`` or ``while not done`` (an episode, a stream)."""
    if not isinstance(loop, cst.While):
        return True
    test = loop.test
    if not isinstance(test, cst.Comparison):
        return False
    for node in descendants(test):
        if isinstance(node, cst.Call) and dotted(node.func) == "len":
            return True
        if isinstance(node, cst.Attribute) and node.attr.value == "shape":
            return True
    return False


def _loop_targets(loop) -> set:
    if isinstance(loop, cst.For):
        return set(target_names(loop.target))
    if isinstance(loop, COMPREHENSION_TYPES):
        return set(target_names(loop.for_in.target))
    return set()


def _inference_method(call: cst.Call) -> Optional[str]:
    func = call.func
    if isinstance(func, cst.Attribute):
        attr = func.attr.value
        return attr if attr in PREDICT_METHODS else None
    if isinstance(func, cst.Name):
        return "__call__"
    return None


def _data_arg(call: cst.Call):
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            return arg.value
        if arg.keyword is not None and arg.keyword.value in ("x", "inputs"):
            return arg.value
    return None


def _names(expr) -> set:
    return names_used(expr) if expr is not None else set()


def _param_names(func: cst.FunctionDef) -> set:
    params = [*func.params.posonly_params, *func.params.params, *func.params.kwonly_params]
    return {p.name.value for p in params} - {"self", "cls"}


def _first_of_result(ctx, call: cst.Call, data, region: cst.CSTNode) -> bool:
    """The caller wants the one sample's output, on a plain name: ``predict(x)[0]``,
    ``np.argmax(predict(x))`` (one action from the whole output),
    ``np.random.choice(n, p=predict(x).ravel())``, or ``r = predict(x)`` then the same
    on ``r`` (also ``abs(v - r)[0]``) in ``region``."""
    if not isinstance(data, (cst.Name, cst.Attribute)):
        return False
    if _reduced_to_one(ctx, call):
        return True
    parent = ctx.parent(call)
    while isinstance(parent, cst.Attribute) and parent.attr.value in _FLATTENING:
        parent = ctx.parent(ctx.parent(parent))  # r = predict(x).ravel()
    if not (
        isinstance(parent, cst.Assign)
        and len(parent.targets) == 1
        and isinstance(parent.targets[0].target, cst.Name)
    ):
        return False
    result = parent.targets[0].target.value
    return any(
        isinstance(node, cst.Name)
        and node.value == result
        and node is not parent.targets[0].target
        and _reduced_to_one(ctx, node)
        for node in descendants(region, skip_scopes=True)
    )


# Element-wise steps a prediction may pass through before it is reduced to one.
_FLATTENING = frozenset({"ravel", "flatten", "squeeze"})


def _reduced_to_one(ctx, node: cst.CSTNode) -> bool:
    """``node`` (a prediction) is indexed ``[0]``, given whole to ``np.argmax``, or
    used as the probabilities of ``np.random.choice``, directly or through
    element-wise arithmetic, ``abs`` or ``.ravel()``."""
    for _ in range(4):
        parent = ctx.parent(node)
        if isinstance(parent, cst.Subscript) and parent.value is node:
            return _index_zero(parent)
        if isinstance(parent, cst.Arg):
            outer = ctx.parent(parent)
            qual = ctx.call_name(outer) or ""
            if qual == "numpy.argmax" and len(outer.args) == 1:
                return True
            if qual == "numpy.random.choice" and parent.keyword is not None:
                return parent.keyword.value == "p"
            if not (isinstance(outer, cst.Call) and qual in ("", "numpy.abs") and _is_abs(outer)):
                return False
            node = outer
        elif isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation)):
            node = parent
        elif isinstance(parent, cst.Attribute) and parent.attr.value in _FLATTENING:
            outer = ctx.parent(parent)
            if not (isinstance(outer, cst.Call) and outer.func is parent):
                return False
            node = outer
        else:
            return False
    return False


def _is_abs(call: cst.Call) -> bool:
    return len(call.args) == 1 and (dotted(call.func) or "").rsplit(".", 1)[-1] == "abs"


def _environment_step(ctx, node: cst.CSTNode) -> bool:
    """``obs, reward, done, info = env.step(action)``: a Gym-style environment step
    (``.step`` with an action, its result unpacked into three or more names)."""
    if not isinstance(node, cst.Assign) or not isinstance(node.value, cst.Call):
        return False
    func = node.value.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "step" and node.value.args):
        return False
    target = node.targets[0].target
    return isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) >= 3


def _index_zero(sub: cst.Subscript) -> bool:
    index = sub.slice[0].slice
    return (
        isinstance(index, cst.Index)
        and isinstance(index.value, cst.Integer)
        and index.value.value == "0"
    )


def _training_true(call: cst.Call) -> bool:
    return any(
        a.keyword is not None
        and a.keyword.value == "training"
        and isinstance(a.value, cst.Name)
        and a.value.value == "True"
        for a in call.args
    )


def _literal_trips(iterable) -> bool:
    """At most TINY iterations, from the source alone."""
    if isinstance(iterable, (cst.List, cst.Tuple, cst.Set)):
        return len(iterable.elements) <= TINY
    if (
        isinstance(iterable, cst.Call)
        and isinstance(iterable.func, cst.Attribute)
        and iterable.func.attr.value == "take"
        and len(iterable.args) == 1
    ):  # dataset.take(1): a peek at the first batch
        count = iterable.args[0].value
        return isinstance(count, cst.Integer) and int(count.value) <= TINY
    if (
        isinstance(iterable, cst.Call)
        and isinstance(iterable.func, cst.Name)
        and iterable.func.value == "range"
    ):
        bounds = [a.value for a in iterable.args]
        if not all(isinstance(b, cst.Integer) for b in bounds) or not bounds or len(bounds) > 3:
            return False
        values = [int(b.value) for b in bounds if isinstance(b, cst.Integer)]  # (all are)
        return len(range(*values)) <= TINY if len(values) > 1 else values[0] <= TINY
    return False


def _loop_words(ctx, loop) -> str:
    if isinstance(loop, cst.For):
        return f"the loop over `{_clip(ctx.code(loop.target), 30)}`"
    if isinstance(loop, COMPREHENSION_TYPES):
        return f"the comprehension over `{_clip(ctx.code(loop.for_in.target), 30)}`"
    return f"the `while {_clip(ctx.code(loop.test), 30)}` loop"


def _clip(text: str, width: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."
