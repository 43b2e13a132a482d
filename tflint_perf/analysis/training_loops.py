"""Is this loop a training or inference loop? Is this method a Keras per-step hook?

Shared by rules about work that should not run once per step (TFP302
``gc.collect()`` in a loop, and later ones). Evidence is an allowlist, so
an unknown loop is *not* a training loop and rules stay silent:

- calling a ``tf.function`` of the module, or a function whose name says it
  is a step (``train_step``, ``distributed_eval_step``, ``test_step_fn``);
- ``strategy.run(...)`` / ``experimental_run_v2(...)``;
- ``fit`` / ``evaluate`` / ``predict`` on a name bound to a Keras model (or
  one whose last part contains ``model``), ``train_on_batch`` /
  ``test_on_batch`` / ``predict_on_batch`` on anything, calling a model;
- ``optimizer.apply_gradients(...)``;
- ``with tf.GradientTape() as tape:``.

A loop whose body starts a new trial (``clear_session()``, building a new
model) is a *trial loop*: per-iteration work there runs once per model, not
once per step.
"""

from __future__ import annotations

import re
from typing import Optional, Union

from tflint_perf.analysis.functions import TfFunctions
from tflint_perf.analysis.keras_models import ModelNames, is_model_construction
from tflint_perf.analysis.loops import body_nodes, method_name, receiver
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.walk import descendants

STEP_NAME = re.compile(
    r"^(?:[a-z0-9]+_)*(?:train|training|test|eval|evaluate|evaluation|val|valid|validation|"
    r"predict|prediction|infer|inference)_?steps?(?:_fn|_func|_function)?$"
)
_ALWAYS_KERAS_METHODS = frozenset({"train_on_batch", "test_on_batch", "predict_on_batch"})
_MODEL_METHODS = frozenset(
    {"fit", "evaluate", "predict", "fit_generator", "evaluate_generator", "predict_generator"}
)
_STRATEGY_METHODS = frozenset({"run", "experimental_run_v2"})
GRADIENT_TAPE = "tensorflow.GradientTape"
TRIAL_RESETS = frozenset(
    {
        "keras.backend.clear_session",
        "keras.utils.clear_session",
        "tensorflow.reset_default_graph",
    }
)

CALLBACK_BASES = ("keras.callbacks.",)
PER_BATCH_HOOKS = frozenset(
    {
        "on_batch_begin",
        "on_batch_end",
        "on_train_batch_begin",
        "on_train_batch_end",
        "on_test_batch_begin",
        "on_test_batch_end",
        "on_predict_batch_begin",
        "on_predict_batch_end",
    }
)
PER_EPOCH_HOOKS = frozenset({"on_epoch_begin", "on_epoch_end"})


class TrainingLoops:
    """Per-file answers: is a loop a training loop, a trial loop; is a def a hook."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.tf_functions = ctx.shared(TfFunctions)
        self.models = ctx.shared(ModelNames)
        self._evidence: dict = {}
        self._trial: dict = {}
        self.model_builders = {
            s.name.value
            for s in ctx.module.body
            if isinstance(s, cst.FunctionDef)
            and any(is_model_construction(ctx, n) for n in descendants(s.body, skip_scopes=True))
        }

    # -- loops ------------------------------------------------------------
    def evidence(self, loop: Union[cst.For, cst.While]) -> Optional[str]:
        """Why ``loop`` is a training/inference loop (a short phrase), or None."""
        key = id(loop)
        if key not in self._evidence:
            self._evidence[key] = self._find_evidence(loop)
        return self._evidence[key]

    def _find_evidence(self, loop: Union[cst.For, cst.While]) -> Optional[str]:
        for node in body_nodes(loop):
            if isinstance(node, cst.With):
                for item in node.items:
                    if (
                        isinstance(item.item, cst.Call)
                        and self.ctx.call_name(item.item) == GRADIENT_TAPE
                    ):
                        return "runs a `GradientTape`"
            elif isinstance(node, cst.Call):
                why = self.step_call(node)
                if why is not None:
                    return why
        return None

    def step_call(self, call: cst.Call) -> Optional[str]:
        """A phrase if ``call`` runs a training/inference step, else None."""
        func = call.func
        shown = dotted(func)
        if shown is None:
            return None
        if self.tf_functions.for_call(call) is not None:
            return f"calls the `tf.function` `{shown}()`"
        last = shown.rsplit(".", 1)[-1]
        if STEP_NAME.match(last):
            return f"calls `{shown}()`"
        meth = method_name(call)
        if meth in _ALWAYS_KERAS_METHODS or meth == "apply_gradients":
            return f"calls `{shown}()`"
        if (
            meth in _MODEL_METHODS
            and isinstance(func, cst.Attribute)
            and self._looks_like_model(func.value)
        ):
            return f"calls `{shown}()`"
        if (
            meth in _STRATEGY_METHODS
            and "strategy" in (receiver(call) or "").rsplit(".", 1)[-1].lower()
        ):
            return f"calls `{shown}()`"
        if isinstance(func, cst.Name) and self.models.is_model_name(func):
            return f"calls the model `{shown}`"
        return None

    def _looks_like_model(self, expr: cst.BaseExpression) -> bool:
        if self.models.is_model_name(expr):
            return True
        name = dotted(expr)
        return name is not None and "model" in name.rsplit(".", 1)[-1].lower()

    def is_trial_loop(self, loop: Union[cst.For, cst.While]) -> bool:
        """Each iteration resets Keras or builds a new model: once per trial."""
        key = id(loop)
        if key not in self._trial:
            self._trial[key] = any(
                isinstance(node, cst.Call)
                and (
                    self.ctx.call_name(node) in TRIAL_RESETS
                    or self.models.is_model_expr(node)
                    or isinstance(node.func, cst.Name)
                    and node.func.value in self.model_builders
                )
                for node in body_nodes(loop)
            )
        return self._trial[key]

    # -- Keras callbacks ---------------------------------------------------
    def callback_hook(self, func: cst.FunctionDef) -> Optional[str]:
        """``"per-batch"``/``"per-epoch"`` if ``func`` is such a hook of a Keras callback class."""
        name = func.name.value
        if name not in PER_BATCH_HOOKS and name not in PER_EPOCH_HOOKS:
            return None
        cls = self.ctx.parent(self.ctx.parent(func))  # FunctionDef -> IndentedBlock -> ClassDef
        if not isinstance(cls, cst.ClassDef):
            return None
        if not any(
            (self.ctx.qualname(b.value) or "").startswith(CALLBACK_BASES) for b in cls.bases
        ):
            return None
        return "per-batch" if name in PER_BATCH_HOOKS else "per-epoch"
