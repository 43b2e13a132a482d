"""Which functions are ``tf.function``s: decorated, or wrapped by a call."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional

from tflint_perf.analysis.api.others import LOOP_COMPILERS
from tflint_perf.engine import cst
from tflint_perf.engine.nodes import is_none

TF_FUNCTION = "tensorflow.function"


@dataclass
class TfFunctionInfo:
    name: str  # the name it is called by
    definition: Optional[cst.FunctionDef]  # the Python function, when known
    wrapper: cst.CSTNode  # the decorator or the tf.function(...) call
    input_signature: bool  # converts arguments: no retracing on Python values


def _is_tf_function(ctx, expr: cst.BaseExpression) -> Optional[cst.Call]:
    """For ``tf.function`` / ``tf.function(...)``: the Call (or a dummy None)."""
    if isinstance(expr, cst.Call) and ctx.qualname(expr.func) == TF_FUNCTION:
        return expr
    return None


def _has_signature(call: Optional[cst.Call]) -> bool:
    if call is None:
        return False
    return any(
        arg.keyword is not None
        and arg.keyword.value == "input_signature"
        and not is_none(arg.value)
        for arg in call.args
    )


def decorator_name(ctx, dec: cst.Decorator) -> Optional[str]:
    """What a decorator applies, by qualified name (``@jit`` and ``@jit(...)`` alike)."""
    expr = dec.decorator
    return ctx.qualname(expr.func if isinstance(expr, cst.Call) else expr)


def decorator_call(ctx, func: cst.FunctionDef) -> Optional[cst.Decorator]:
    """The ``@tf.function`` decorator of a def, if it has one."""
    return next((d for d in func.decorators if decorator_name(ctx, d) == TF_FUNCTION), None)


def loop_compiler(ctx, func: cst.FunctionDef) -> Optional[str]:
    """The compiler a def's decorator hands its loops to (``@numba.njit``,
    ``@jit(nopython=True)``, ``@jax.jit``), by qualified name; None if none."""
    names = (decorator_name(ctx, dec) for dec in func.decorators)
    return next((n for n in names if n in LOOP_COMPILERS), None)


class TfFunctions:
    """Every ``tf.function`` in a module, by the name it is called by.

    Counts ``@tf.function`` (with or without arguments) on any def, and
    ``g = tf.function(f, ...)`` / ``f = tf.function(f)`` assignments. Names
    are file-wide (no scope analysis): a method ``step`` decorated in a
    class is known as ``step`` and matched by ``self.step(...)`` calls.
    """

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.by_name: Dict[str, TfFunctionInfo] = {}
        self.wrapped_defs: set = set()  # names of defs passed to tf.function(...)
        defs: Dict[str, cst.FunctionDef] = {}
        for node in ctx.nodes(cst.FunctionDef):
            defs.setdefault(node.name.value, node)
            dec = decorator_call(ctx, node)
            if dec is not None:
                call = dec.decorator if isinstance(dec.decorator, cst.Call) else None
                self.by_name[node.name.value] = TfFunctionInfo(
                    node.name.value, node, dec, _has_signature(call)
                )
        for node in ctx.nodes(cst.Call):
            call = _is_tf_function(ctx, node)
            if call is None or not call.args:
                continue
            first = call.args[0].value
            wrapped = first.value if isinstance(first, cst.Name) else None
            if wrapped is not None:
                self.wrapped_defs.add(wrapped)
            parent = ctx.parent(call)
            if isinstance(parent, cst.Assign):
                for target in parent.targets:
                    if isinstance(target.target, cst.Name):
                        name = target.target.value
                        self.by_name[name] = TfFunctionInfo(
                            name, defs.get(wrapped) if wrapped else None, call, _has_signature(call)
                        )

    def is_wrapped_def(self, func: cst.FunctionDef) -> bool:
        """Decorated with tf.function, or passed to tf.function(...) somewhere."""
        return decorator_call(self.ctx, func) is not None or func.name.value in self.wrapped_defs

    def for_call(self, call: cst.Call) -> Optional[TfFunctionInfo]:
        """The tf.function a call invokes: ``step(...)`` or ``self.step(...)``."""
        func = call.func
        if isinstance(func, cst.Name):
            return self.by_name.get(func.value)
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
        ):
            info = self.by_name.get(func.attr.value)
            return info if info is not None and info.definition is not None else None
        return None
