"""Is this call Keras inference, and on which model?"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from tflint_perf.analysis.api import Kind
from tflint_perf.analysis.api.keras import (
    CALLBACK_BASE,
    INFERENCE_METHODS,
    KERAS_ONLY_INFERENCE,
    KERAS_PREDICT_KEYWORDS,
)
from tflint_perf.analysis.api.others import MODEL_LOADER_ROOTS, OTHER_PREDICTOR_ROOTS
from tflint_perf.analysis.calls import CallGraph, external_argument
from tflint_perf.analysis.semantic import BindingKind, SemanticModel
from tflint_perf.analysis.values import Values
from tflint_perf.engine import cst
from tflint_perf.engine.reasons import Reason

CALL = "__call__"


@dataclass(frozen=True)
class Inference:
    method: str  # predict, predict_on_batch, ... or __call__ (``model(x)``)
    model: cst.BaseExpression  # the model expression (``self.model``)
    known: bool  # the model is known to be Keras (not only likely)
    # A function of another module of the tree that runs the inference: its
    # exported facts, the argument it runs it on, and whether it makes that
    # argument one sample itself.
    external: Optional[dict] = None
    data: Optional[cst.BaseExpression] = None
    made_inside: bool = False


@dataclass(frozen=True)
class NotInference:
    reason: Reason
    detail: str


def inference_method(call: cst.Call) -> Optional[str]:
    """The inference method a call spells (``x.predict``), or ``__call__`` for ``f(x)``."""
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value if func.attr.value in INFERENCE_METHODS else None
    return CALL if isinstance(func, cst.Name) else None


class Receivers:
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.values: Values = ctx.shared(Values)
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self.graph: CallGraph = ctx.shared(CallGraph)
        imports = ctx.imports
        self.keras_only = imports.uses_tensorflow and not imports.imports_any(
            *OTHER_PREDICTOR_ROOTS
        )

    def classify(
        self, call: cst.Call, method: Optional[str]
    ) -> Union[Inference, NotInference, None]:
        """Inference on a Keras model; a reason when it looks like one but is not
        (or cannot be told); None when it is no inference-like call at all."""
        func = call.func
        external = self.graph.external(call)
        if external is not None:
            return self._external(call, external)
        if method is None:
            return None
        if method == CALL:
            assert isinstance(func, cst.Name)
            if self.values.kind(func) is Kind.KERAS_MODEL:
                return Inference(CALL, func, True)
            if self._passed_in(func) and self._numpy_of_result(call):
                return Inference(CALL, func, False)  # f(x).numpy(): a TF model passed in
            return None
        assert isinstance(func, cst.Attribute)
        model = func.value
        if self.graph.resolve(call):
            return NotInference(Reason.OTHER_LIBRARY, f"`{method}` of a class of this module")
        kind = self.values.kind(model)
        if kind is Kind.KERAS_MODEL:
            return Inference(method, model, True)
        if kind is Kind.OTHER_MODEL or self._loaded_elsewhere(model):
            return NotInference(Reason.OTHER_LIBRARY, "a model of another library")
        if kind is not Kind.UNKNOWN:
            return NotInference(Reason.OTHER_LIBRARY, f"`{method}` of a {kind.value}")
        if self._keras_evidence(call, method):
            return Inference(method, model, False)
        return NotInference(Reason.UNRESOLVED, "the model's library is not known")

    def _external(self, call: cst.Call, facts: dict) -> Union[Inference, NotInference, None]:
        """A function of another module of the tree that runs Keras inference on
        one of its parameters (``agent.act(obs)``, ``QNetwork.predict(states)``)."""
        used = facts.get("uses", {}).get("INFERENCE", {})
        if not used:
            return None
        param, info = sorted(used.items())[0]
        if facts.get("inference_reported"):
            # Its module reports the one-sample `predict` where it happens.
            return NotInference(Reason.COVERED, "reported in the function's own module")
        data = external_argument(call, facts, param)
        if data is None:
            return None
        func = call.func
        model = func.value if isinstance(func, cst.Attribute) else func
        method = func.attr.value if isinstance(func, cst.Attribute) else CALL
        made = bool(info.get("one_sample"))
        return Inference(method, model, True, facts, data, made)

    def _passed_in(self, func: cst.Name) -> bool:
        """Bound only as a parameter (not a def, class or import of this module)."""
        found = self.sem.lookup_name(func)
        return bool(found) and all(b.kind is BindingKind.PARAMETER for b in found)

    def _numpy_of_result(self, call: cst.Call) -> bool:
        parent = self.ctx.parent(call)
        return (
            isinstance(parent, cst.Attribute)
            and parent.attr.value == "numpy"
            and isinstance(self.ctx.parent(parent), cst.Call)
            and self.ctx.imports.uses_tensorflow
        )

    def _keras_evidence(self, call: cst.Call, method: str) -> bool:
        """A Keras-only method or keyword, ``self.model`` in a Keras callback, or a
        module where only Keras has a ``predict`` and no class of its own defines one."""
        if method in KERAS_ONLY_INFERENCE:
            return True
        if any(
            a.keyword is not None and a.keyword.value in KERAS_PREDICT_KEYWORDS for a in call.args
        ):
            return True
        if self._in_keras_callback(call):
            return True
        defined_here = any(f.name.value == method for f in self.ctx.nodes(cst.FunctionDef))
        return self.keras_only and not defined_here

    def _in_keras_callback(self, call: cst.Call) -> bool:
        cls = self.sem.method_class(self.sem.function_of(call))
        return cls is not None and any(
            self.ctx.qualname(base.value) == CALLBACK_BASE for base in cls.bases
        )

    def _loaded_elsewhere(self, model: cst.BaseExpression) -> bool:
        """Bound to what a pickling library loads (a scikit-learn estimator, mostly)."""
        for binding in (
            self.sem.lookup_name(model) if isinstance(model, (cst.Name, cst.Attribute)) else []
        ):
            if binding.kind is BindingKind.ASSIGNMENT and isinstance(binding.value, cst.Call):
                root = (self.ctx.call_name(binding.value) or "").split(".", 1)[0]
                if root in MODEL_LOADER_ROOTS or root in OTHER_PREDICTOR_ROOTS:
                    return True
        return False
