"""TF1 graph code: is this module run through sessions, does this call add ops to the graph?

In graph mode every ``tf.add``/``tf.nn.softmax``/``tf.train.Saver()`` call
adds nodes to the default graph; ``sess.run`` only executes them. A loop
that both runs the session and creates ops makes the graph grow on every
iteration (and each run slower): the lazy-loading trap.
"""

from __future__ import annotations

from typing import Dict, Optional

from tflint_perf.analysis.steps import TF1_GRAPH_MODE
from tflint_perf.analysis.tensors import is_tensor_call_name
from tflint_perf.engine import cst
from tflint_perf.engine.walk import descendants

SESSIONS = frozenset(
    {
        "tensorflow.Session",
        "tensorflow.InteractiveSession",
        "tensorflow.train.MonitoredSession",
        "tensorflow.train.MonitoredTrainingSession",
        "tensorflow.train.SingularMonitoredSession",
    }
)
# Calls that add to the graph although they return no tensor.
GRAPH_ADDERS = frozenset(
    {
        "tensorflow.train.Saver",
        "tensorflow.global_variables_initializer",
        "tensorflow.initialize_all_variables",
        "tensorflow.local_variables_initializer",
        "tensorflow.variables_initializer",
        "tensorflow.tables_initializer",
        "tensorflow.summary.merge_all",
        "tensorflow.summary.merge",
        "tensorflow.summary.scalar",
        "tensorflow.summary.histogram",
        "tensorflow.summary.image",
        "tensorflow.summary.text",
        "tensorflow.summary.audio",
        "tensorflow.assign",
        "tensorflow.assign_add",
        "tensorflow.assign_sub",
        "tensorflow.Variable",
        "tensorflow.placeholder",
        "tensorflow.gradients",  # a whole backward subgraph
        "tensorflow.hessians",
    }
)
# tensorflow.* functions that return a value but add nothing to the graph.
_NOT_OPS = frozenset(
    {
        "tensorflow.get_default_graph",
        "tensorflow.get_default_session",
        "tensorflow.get_collection",
        "tensorflow.trainable_variables",
        "tensorflow.global_variables",
        "tensorflow.all_variables",
        "tensorflow.local_variables",
        "tensorflow.reset_default_graph",
        "tensorflow.set_random_seed",
        "tensorflow.executing_eagerly",
        "tensorflow.get_variable",  # with reuse it returns the existing variable
        "tensorflow.get_variable_scope",
        "tensorflow.variable_scope",
        "tensorflow.name_scope",
        "tensorflow.device",
        "tensorflow.control_dependencies",
        "tensorflow.make_template",
    }
)
_NOT_OP_PREFIXES = (
    "tensorflow.compat.",
    "tensorflow.logging.",
    "tensorflow.gfile.",
    "tensorflow.io.gfile.",
    "tensorflow.app.",
    "tensorflow.flags.",
    "tensorflow.python_io.",
    "tensorflow.contrib.",
    "tensorflow.sysconfig.",
    "tensorflow.version.",
)
RUNNERS = frozenset({"run", "eval"})


def graph_mode(ctx) -> bool:
    """The module runs TensorFlow through sessions (TF1 style)."""
    if "Session" not in ctx.source and "disable_" not in ctx.source:
        return False
    return any(
        ctx.call_name(call) in SESSIONS or ctx.call_name(call) in TF1_GRAPH_MODE
        for call in ctx.nodes(cst.Call)
    )


def adds_ops(ctx, call: cst.Call) -> bool:
    """``tf.add(...)``, ``tf.nn.softmax(...)``, ``tf.train.Saver()``,
    ``iterator.get_next()``: new graph nodes."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "get_next" and not call.args:
        return True
    qual = ctx.call_name(call)
    if qual is None or not qual.startswith("tensorflow."):
        return False
    if qual in _NOT_OPS or qual.startswith(_NOT_OP_PREFIXES):
        return False
    if qual in GRAPH_ADDERS:
        return True
    if qual.startswith("tensorflow.train.") and qual.endswith("Optimizer"):
        return True
    return is_tensor_call_name(qual)


def runs_session(call: cst.CSTNode) -> bool:
    """``sess.run(...)`` / ``tensor.eval(...)``."""
    return (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value in RUNNERS
    )


class GraphBuilders:
    """Functions of the module that add ops to the graph and do not run it themselves:
    ``def G(z): return tf.sigmoid(tf.matmul(z, w))``. One per file (``ctx.shared``)."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self._by_name: Dict[str, Optional[cst.FunctionDef]] = {}
        for func in ctx.nodes(cst.FunctionDef):
            name = func.name.value
            self._by_name[name] = None if name in self._by_name else func
        self._builds: Dict[int, bool] = {}

    def builder(self, call: cst.Call) -> Optional[cst.FunctionDef]:
        """The builder ``call`` calls (``G(z)``, ``self.build_head(x)``), else None."""
        func = call.func
        if isinstance(func, cst.Name):
            name = func.value
        elif (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
        ):
            name = func.attr.value
        else:
            return None
        found = self._by_name.get(name)
        return found if found is not None and self._is_builder(found) else None

    def _is_builder(self, func: cst.FunctionDef) -> bool:
        key = id(func)
        if key not in self._builds:
            adds = runs = False
            for node in descendants(func.body, skip_scopes=True):
                if isinstance(node, cst.Call):
                    adds = adds or adds_ops(self.ctx, node)
                    runs = runs or runs_session(node)
            self._builds[key] = adds and not runs
        return self._builds[key]
