"""What changes when Python code runs under ``tf.function``.

A ``tf.function`` runs its Python once, while tracing, and then only the
TensorFlow operations it recorded. Code in a step that relies on Python
running every call is found here, in two kinds:

- blockers, which fail in a graph: ``.numpy()``/``.item()``, ``float()`` or
  ``int()`` of a tensor, NumPy calls, ``open``, ``yield``;
- hazards, which run but change behaviour: ``print`` and logging (once, at
  trace time), calls into non-TensorFlow libraries, mutation of Python state
  (list appends, attribute or global assignment, ``+=`` counters: frozen at
  their traced value), creating variables, layers, models or optimizers on a
  call (raises when a retrace creates them again), and Python control flow
  (converted to graph control flow only when its condition is a tensor).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, List, Optional, Set, Union

from tflint_perf.analysis.callgraph import CallGraph
from tflint_perf.analysis.dataflow import target_leaves
from tflint_perf.analysis.keras_models import ModelNames, is_model_construction
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.walk import descendants

BLOCKER = "blocker"
HAZARD = "hazard"
MUTATING_METHODS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "clear", "update", "add", "setdefault"}
)
STATE = "changes Python state (frozen at its traced value)"
CONTROL = "is Python control flow (compiled only when its condition is a tensor)"
CONVERSIONS = frozenset({"float", "int", "bool"})
LOGGERS = frozenset({"logging", "logger", "log", "LOGGER", "LOG"})
FROZEN_MODULES = ("time.", "random.", "datetime.")
# Libraries whose calls are plain Python (plots, progress bars, experiment
# loggers, environments): under tf.function they run once, while tracing.
PYTHON_LIBRARIES = frozenset(
    {
        "matplotlib",
        "wandb",
        "comet_ml",
        "mlflow",
        "neptune",
        "tensorboardX",
        "tqdm",
        "IPython",
        "PIL",
        "cv2",
        "imageio",
        "pandas",
        "sklearn",
        "gym",
        "gymnasium",
        "os",
        "sys",
        "json",
        "csv",
        "pickle",
        "shutil",
        "subprocess",
        "mitdeeplearning",
    }
)
CREATING_PREFIXES = ("keras.layers.", "keras.optimizers.", "keras.metrics.")
CONTROL_FLOW = {  # by LibCST node class name
    "If": "`if`",
    "For": "`for`",
    "While": "`while`",
    "Try": "`try`",
    "IfExp": "a conditional expression",
    "Break": "`break`",
    "Continue": "`continue`",
}


@dataclass(frozen=True)
class Problem:
    kind: str  # BLOCKER or HAZARD
    what: str  # "`.numpy()` (line 12)"
    why: str  # short reason, shared by problems of one sort


def tracing_problems(ctx, nodes: Iterable[cst.CSTNode], local: Set[str]) -> List[Problem]:
    """Problems in ``nodes`` (already flattened, nested scopes skipped).

    ``local``: names bound in the code itself (objects it owns).
    """
    found: List[Problem] = []
    objects = ctx.shared(PythonObjects)
    for node in nodes:
        problem = None
        if isinstance(node, cst.Call):
            problem = _call_problem(ctx, node, local, objects)
        elif isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            problem = _assignment_problem(ctx, node, local)
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            problem = Problem(HAZARD, f"`{ctx.code(node).strip()}`", STATE)
        elif isinstance(node, (cst.Yield, cst.Await)):
            problem = Problem(BLOCKER, "the `yield`", "cannot run in a graph")
        elif type(node).__name__ in CONTROL_FLOW:
            problem = Problem(
                HAZARD,
                f"{CONTROL_FLOW[type(node).__name__]} ({_line(ctx, node)})",
                CONTROL,
            )
        if problem is not None:
            found.append(problem)
    return list(dict.fromkeys(found))


def _line(ctx, node: cst.CSTNode) -> str:
    return ctx.line_ref(ctx.position(node).start.line)


def _call_problem(ctx, call: cst.Call, local: Set[str], objects) -> Optional[Problem]:
    func = call.func
    qual = ctx.call_name(call) or ""
    attr = func.attr.value if isinstance(func, cst.Attribute) else None
    name = func.value if isinstance(func, cst.Name) else None
    where = f"({_line(ctx, call)})"
    if attr in ("numpy", "item") and not call.args:
        return Problem(BLOCKER, f"`.{attr}()` {where}", "has no value in a graph")
    if name in CONVERSIONS and call.args and not _literal(call.args[0].value):
        return Problem(BLOCKER, f"`{name}()` {where}", "has no value in a graph")
    if qual.startswith("numpy.") or name == "open":
        return Problem(BLOCKER, f"`{dotted(func)}()` {where}", "cannot run on graph tensors")
    if name == "print":
        return Problem(HAZARD, f"`print()` {where}", "runs only while tracing")
    if creates_state(ctx, call):
        return Problem(
            HAZARD,
            f"`{dotted(func)}()` {where}",
            "creates variables on every call (a retrace raises)",
        )
    mutates = (
        attr in MUTATING_METHODS
        and not qual
        and isinstance(func, cst.Attribute)
        and _outer(func.value, local)
    )
    if mutates and ctx.shared(CallGraph).resolve(call) is None:
        return Problem(HAZARD, f"`{ctx.code(func)}()` {where}", STATE)
    if qual.startswith(FROZEN_MODULES) or _is_logger(func):
        return Problem(HAZARD, f"`{dotted(func)}()` {where}", "runs only while tracing")
    if objects.is_python_call(call):
        return Problem(
            HAZARD, f"`{dotted(func) or ctx.code(func)}()` {where}", "runs only while tracing"
        )
    return None


def _literal(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString))


def _is_logger(func: cst.BaseExpression) -> bool:
    return isinstance(func, cst.Attribute) and dotted(func.value) in LOGGERS


def creates_state(ctx, call: cst.Call) -> bool:
    qual = ctx.call_name(call) or ""
    if qual == "tensorflow.Variable" or is_model_construction(ctx, call):
        return True
    last = qual.rsplit(".", 1)[-1]
    if qual.startswith(CREATING_PREFIXES) and last[:1].isupper():
        return True
    return ctx.shared(ModelNames).is_model_expr(call)


def _assignment_problem(
    ctx, node: Union[cst.Assign, cst.AugAssign, cst.AnnAssign], local: Set[str]
) -> Optional[Problem]:
    targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
    for target in targets:
        for leaf in target_leaves(target):
            outer_attr = isinstance(leaf, (cst.Attribute, cst.Subscript)) and _outer(
                leaf.value, local
            )
            counter = (
                isinstance(node, cst.AugAssign)
                and isinstance(leaf, cst.Name)
                and _outer(leaf, local)
            )
            if outer_attr or counter:
                return Problem(
                    HAZARD,
                    f"`{ctx.code(node).strip().splitlines()[0]}` ({_line(ctx, node)})",
                    STATE,
                )
    return None


def _outer(expr: cst.BaseExpression, local: Set[str]) -> bool:
    """Whether the object ``expr`` denotes lives outside the code examined."""
    base = expr
    while isinstance(base, (cst.Attribute, cst.Subscript, cst.Call)):
        base = base.func if isinstance(base, cst.Call) else base.value
    if isinstance(base, cst.Name):
        return base.value == "self" or base.value not in local
    return False


class PythonObjects:
    """Names bound to objects of plain-Python libraries (``env =
    gym.make(...)``, ``run = wandb.init()``): calling them, or calling such a
    library directly, runs Python that tracing would run only once."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.names: Set[str] = set()
        for node in ctx.nodes(cst.Assign):
            if isinstance(node.value, cst.Call) and self._foreign(ctx.call_name(node.value)):
                for target in node.targets:
                    name = dotted(target.target)
                    if name is not None:
                        self.names.add(name)

    @staticmethod
    def _foreign(qual: Optional[str]) -> bool:
        return qual is not None and qual.split(".", 1)[0] in PYTHON_LIBRARIES

    def is_python_call(self, call: cst.Call) -> bool:
        if self._foreign(self.ctx.call_name(call)):
            return True
        func = call.func
        receiver = dotted(func.value) if isinstance(func, cst.Attribute) else dotted(func)
        return receiver is not None and receiver in self.names


def problems_in(ctx, body: cst.CSTNode, local: Set[str]) -> List[Problem]:
    """``tracing_problems`` over everything under ``body`` (nested scopes skipped)."""
    return tracing_problems(ctx, descendants(body, skip_scopes=True), local)
