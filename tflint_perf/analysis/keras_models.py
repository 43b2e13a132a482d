"""Recognising Keras models: constructors, loaders, factories, and names bound to them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Set

from tflint_perf.analysis.api.keras import (
    APPLICATIONS,
    MODEL_CLASSES,
    MODEL_FACTORIES,
    TF1_SESSION_CALLS,
)
from tflint_perf.analysis.steps import TF1_GRAPH_MODE, bound_bases, is_clear_session
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.walk import descendants

TRAINING_METHODS = frozenset({"fit", "fit_generator", "evaluate", "evaluate_generator"})
# Training by hand: a custom loop in the function trains the model it builds.
CUSTOM_TRAINING = frozenset({"apply_gradients", "train_on_batch", "minimize"})
# Keras' inference entry points (predict_classes/predict_proba: Sequential before TF 2.6).
PREDICT_METHODS = frozenset({"predict", "predict_on_batch", "predict_classes", "predict_proba"})
# Libraries whose objects have a ``predict`` of their own (scikit-learn style).
OTHER_PREDICTORS = (
    "sklearn",
    "xgboost",
    "lightgbm",
    "catboost",
    "statsmodels",
    "torch",
    "prophet",
    "fbprophet",
    "pmdarima",
    "sktime",
)


def is_model_construction(ctx, call: cst.CSTNode) -> bool:
    """``keras.Sequential(...)``, ``keras.Model(...)``, ``load_model(...)``,
    ``keras.applications.ResNet50(...)`` and the like."""
    if not isinstance(call, cst.Call):
        return False
    qual = ctx.call_name(call)
    if qual is None:
        return False
    if qual in MODEL_CLASSES or qual in MODEL_FACTORIES:
        return True
    return qual.startswith(APPLICATIONS) and qual.rsplit(".", 1)[-1][:1].isupper()


def _local_model_subclasses(ctx) -> set:
    """Classes in this file that subclass a Keras model."""
    out = set()
    for node in ctx.nodes(cst.ClassDef):
        for base in node.bases:
            if ctx.qualname(base.value) in MODEL_CLASSES:
                out.add(node.name.value)
    return out


@dataclass
class Factory:
    """A function of this module that builds a Keras model."""

    construction: cst.Call  # the first model construction in it
    returns: bool  # returns the model it builds
    trains: bool  # calls fit/evaluate
    clears: bool  # calls clear_session()


class ModelNames:
    """Names (``model``, ``self.model``) assigned a Keras model anywhere in the file."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.subclasses = _local_model_subclasses(ctx)
        self.names: set = set()
        for node in ctx.nodes(cst.Assign):
            if self.is_model_expr(node.value):
                for target in node.targets:
                    name = dotted(target.target)
                    if name:
                        self.names.add(name)
        self._defs: Optional[Dict[str, List[cst.FunctionDef]]] = None
        self._factories: Dict[str, Optional[Factory]] = {}
        self._built: Optional[set] = None

    def is_model_expr(self, expr: cst.BaseExpression) -> bool:
        if not isinstance(expr, cst.Call):
            return False
        if is_model_construction(self.ctx, expr):
            return True
        return isinstance(expr.func, cst.Name) and expr.func.value in self.subclasses

    def is_model_name(self, expr: cst.BaseExpression) -> bool:
        name = dotted(expr)
        return name is not None and name in self.names

    # -- functions of the module that build models ------------------------
    def factory(self, name: str) -> Optional[Factory]:
        """The model factory ``def name``, else None. Defined several times in the
        file (``create_model`` of an actor and of a critic), every definition must
        be a factory of the same kind."""
        if self._defs is None:
            self._defs = {}
            for func in self.ctx.nodes(cst.FunctionDef):
                self._defs.setdefault(func.name.value, []).append(func)
        if name not in self._factories:
            found = [self._analyse(f) for f in self._defs.get(name, [])]
            kinds = {(f.returns, f.trains, f.clears) if f else None for f in found}
            self._factories[name] = found[0] if len(kinds) == 1 and None not in kinds else None
        return self._factories[name]

    def factory_of(self, call: cst.Call) -> Optional[Factory]:
        """The factory ``f(...)`` / ``self.f(...)`` calls, else None."""
        func = call.func
        if isinstance(func, cst.Name):
            return self.factory(func.value)
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
        ):
            return self.factory(func.attr.value)
        return None

    def _analyse(self, func: cst.FunctionDef) -> Optional[Factory]:
        construction = None
        returns = trains = clears = False
        built: Set[str] = set()  # names bound to a model in the function
        for node in descendants(func.body, skip_scopes=True):
            if isinstance(node, cst.Call):
                if construction is None and self.is_model_expr(node):
                    construction = node
                clears = clears or is_clear_session(self.ctx, node)
            elif isinstance(node, cst.Assign) and self.is_model_expr(node.value):
                built.update(n for t in node.targets for n in bound_bases(t.target))
                built.update(filter(None, (dotted(t.target) for t in node.targets)))
            elif isinstance(node, cst.Return) and node.value is not None:
                value = node.value
                returns = returns or self.is_model_expr(value) or dotted(value) in built
        if construction is not None:
            trains = any(_trains(node) for node in descendants(func.body))  # nested steps too
        if construction is not None and (returns or trains):
            return Factory(construction, returns, trains, clears)
        return None

    def built_names(self) -> set:
        """Names assigned the model a factory of the module returns (``m = build()``)."""
        if self._built is None:
            self._built = set()
            for node in self.ctx.nodes(cst.Assign):
                if isinstance(node.value, cst.Call):
                    factory = self.factory_of(node.value)
                    if factory is not None and factory.returns:
                        self._built.update(dotted(t.target) for t in node.targets)
            self._built.discard(None)
        return self._built

    def is_keras_model(self, expr: cst.BaseExpression) -> bool:
        """A name bound to a model: built here, by a factory here, or ``obj.model``
        when some class here binds ``self.model`` to one."""
        name = dotted(expr)
        if name is None:
            return False
        if name in self.names or name in self.built_names():
            return True
        if isinstance(expr, cst.Attribute):
            attr = f"self.{expr.attr.value}"
            return attr in self.names or attr in self.built_names()
        return False


def _trains(node: cst.CSTNode) -> bool:
    """``m.fit(...)``, ``optimizer.apply_gradients(...)`` and the like."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
        return False
    method = node.func.attr.value
    return method in TRAINING_METHODS or method in CUSTOM_TRAINING


def keras_only_module(ctx) -> bool:
    """The module uses TensorFlow or Keras and no other library with a ``predict``."""
    imports = ctx.imports
    return imports.uses_tensorflow and not imports.imports_any(*OTHER_PREDICTORS)


# Calls that show Keras runs on a TF1 graph here: calling a model on NumPy
# data builds graph ops instead of computing, so `model(x)` is no advice.
SESSION_CALLS = TF1_GRAPH_MODE | TF1_SESSION_CALLS


def graph_mode_keras(ctx) -> bool:
    """The module uses TF1 sessions or turns eager execution off."""
    return any(ctx.call_name(call) in SESSION_CALLS for call in ctx.nodes(cst.Call))
