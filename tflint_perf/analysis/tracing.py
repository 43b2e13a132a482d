"""What changes when Python code runs under ``tf.function``.

A ``tf.function`` runs its Python once, while tracing, and then only the
TensorFlow operations it recorded. Code in a step that relies on Python
running every call is found here, in two kinds:

- blockers, which fail in a graph: ``.numpy()``/``.item()``, ``float()`` or
  ``int()`` of a tensor, NumPy calls, ``open``, ``yield``;
- hazards, which run but change behaviour: ``print`` and logging (once, at
  trace time), calls into plain-Python libraries, Python state changed
  (list appends, attribute or global assignment, ``+=`` counters: frozen at
  their traced value; for a function, ``Summaries.of(func).mutations``
  through every call it makes), creating variables, layers, models or
  optimizers on a call (raises when a retrace creates them again), Python
  control flow (converted to graph control flow only when its condition is
  a tensor), and calls the linter cannot read (their effect is unknown).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Iterable, List, Optional, Set

from tflint_perf.analysis import api
from tflint_perf.analysis.api import Effect, Kind
from tflint_perf.analysis.api.steps import (
    FROZEN_MODULES,
    LOGGER_NAMES,
    PYTHON_CONVERSIONS,
    PYTHON_LIBRARIES,
    TO_PYTHON_METHODS,
    UPDATE_METHODS,
)
from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.semantic import MUTATORS, BindingKind, SemanticModel
from tflint_perf.analysis.summaries import Summaries
from tflint_perf.analysis.values import Values
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.walk import descendants


class Severity(enum.Enum):
    BLOCKER = "blocker"  # fails in a graph: no fix
    HAZARD = "hazard"  # runs, but differently: the fix is unsafe


STATE = "changes Python state (frozen at its traced value)"
CONTROL = "is Python control flow (compiled only when its condition is a tensor)"
UNREAD = "is a call the linter cannot read (what it does under tracing is unknown)"
ONCE = "runs only while tracing"
CREATES = "creates variables on every call (a retrace raises)"
# Kinds of objects whose construction creates variables.
STATEFUL = (Kind.VARIABLE, Kind.LAYER, Kind.KERAS_MODEL, Kind.OPTIMIZER, Kind.METRIC)
# Calling a value of these kinds runs TensorFlow (a model, a layer, a loss ...).
CALLABLE_KINDS = (
    Kind.KERAS_MODEL,
    Kind.LAYER,
    Kind.LOSS,
    Kind.METRIC,
    Kind.TF_FUNCTION,
    Kind.GRADIENT_FUNCTION,
)
CONTROL_FLOW = {  # by LibCST node class name (naming the classes would load LibCST)
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
    severity: Severity
    what: str  # "`.numpy()` (line 12)"
    why: str  # short reason, shared by problems of one sort


class Tracing:
    """Per-file answers about code run under ``tf.function`` (``ctx.shared``)."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self.values: Values = ctx.shared(Values)
        self.graph: CallGraph = ctx.shared(CallGraph)
        self.summaries: Summaries = ctx.shared(Summaries)

    # -- code moved or compiled as it is ------------------------------------------
    def problems(self, nodes: Iterable[cst.CSTNode]) -> List[Problem]:
        """Blockers and hazards among ``nodes`` (flattened, nested scopes skipped);
        Python state is asked separately (``state_changes``, ``mutations``)."""
        found: List[Problem] = []
        for node in nodes:
            problem = None
            if isinstance(node, cst.Call):
                problem = self._call_problem(node)
            elif isinstance(node, (cst.Yield, cst.Await)):
                problem = Problem(Severity.BLOCKER, "the `yield`", "cannot run in a graph")
            elif type(node).__name__ in CONTROL_FLOW:
                what = f"{CONTROL_FLOW[type(node).__name__]} ({self._line(node)})"
                problem = Problem(Severity.HAZARD, what, CONTROL)
            if problem is not None:
                found.append(problem)
        return list(dict.fromkeys(found))

    def problems_in(self, body: cst.CSTNode) -> List[Problem]:
        return self.problems(descendants(body, skip_scopes=True))

    def _line(self, node: cst.CSTNode) -> str:
        return self.ctx.line_ref(self.ctx.position(node).start.line)

    def _call_problem(self, call: cst.Call) -> Optional[Problem]:
        ctx = self.ctx
        func = call.func
        qual = ctx.call_name(call) or ""
        attr = func.attr.value if isinstance(func, cst.Attribute) else None
        builtin = self.builtin(call)
        where = f"({self._line(call)})"
        shown = dotted(func) or ctx.code(func)
        if attr in TO_PYTHON_METHODS and not call.args:
            return Problem(Severity.BLOCKER, f"`.{attr}()` {where}", "has no value in a graph")
        if builtin in PYTHON_CONVERSIONS and call.args and not _literal(call.args[0].value):
            return Problem(Severity.BLOCKER, f"`{builtin}()` {where}", "has no value in a graph")
        effects = api.effects(builtin) if builtin is not None else Effect.NONE
        if qual.startswith("numpy.") or effects & Effect.IO:
            return Problem(Severity.BLOCKER, f"`{shown}()` {where}", "cannot run on graph tensors")
        if effects & Effect.DISPLAY:
            return Problem(Severity.HAZARD, f"`{shown}()` {where}", ONCE)
        if self.creates_state(call):
            return Problem(Severity.HAZARD, f"`{shown}()` {where}", CREATES)
        if qual.startswith(FROZEN_MODULES) or self._logger(func) or self._python_object(call):
            return Problem(Severity.HAZARD, f"`{shown}()` {where}", ONCE)
        return None

    def builtin(self, call: cst.Call) -> Optional[str]:
        """``print`` for ``print(...)`` when the module does not rebind ``print``."""
        func = call.func
        if isinstance(func, cst.Name) and not self.sem.lookup_name(func):
            return func.value
        return None

    def _logger(self, func: cst.BaseExpression) -> bool:
        return isinstance(func, cst.Attribute) and dotted(func.value) in LOGGER_NAMES

    def _python_object(self, call: cst.Call) -> bool:
        """A call of a plain-Python library, or of an object one built
        (``env = gym.make(...)``; ``env.step(a)``)."""
        if _python_library(self.ctx.call_name(call)):
            return True
        func = call.func
        receiver = func.value if isinstance(func, cst.Attribute) else func
        if not isinstance(receiver, (cst.Name, cst.Attribute)):
            return False
        return any(
            b.plain and _python_library(self.ctx.call_name(b.value))
            for b in self.sem.lookup_name(receiver)
        )

    def creates_state(self, call: cst.Call) -> bool:
        """A new variable, layer, model, optimizer or metric: built directly, as an
        instance of a Keras subclass of the module, or by a module function."""
        if self.values.kind(call) not in STATEFUL:
            return False
        qual = self.ctx.call_name(call)
        if qual is not None:
            facts = api.call(qual)
            return facts is not None and (
                bool(facts.effects & Effect.BUILDS) or facts.returns is Kind.METRIC
            )
        if self.values.class_called(call) is not None:
            return True
        return any(self.summaries.of(f).effects & Effect.BUILDS for f in self.graph.resolve(call))

    # -- Python state ------------------------------------------------------------------
    def state_changes(self, statements, local: Set[str]) -> List[Problem]:
        """Python state that ``statements`` (code moved into a function) change
        outside themselves: in-place changes, attribute and ``+=`` assignments of
        objects they do not bind, ``global``/``nonlocal``."""
        out: List[Problem] = []
        for stmt in statements:
            for node in [stmt, *descendants(stmt, skip_scopes=True)]:
                if isinstance(node, (cst.Global, cst.Nonlocal)):
                    out.append(Problem(Severity.HAZARD, f"`{self._first_line(node)}`", STATE))
            for binding in self.sem.bindings_in(stmt):
                root = binding.name.split(".", 1)[0]
                outer = root == "self" or root not in local
                if not outer:
                    continue
                if isinstance(binding.value, cst.Call) and self.graph.resolve(binding.value):
                    continue  # ``policy.update(tape)``: a method of the module, read on its own
                if binding.kind is BindingKind.MUTATION or (
                    binding.kind is BindingKind.AUGMENTED
                    or (binding.kind is BindingKind.ASSIGNMENT and "." in binding.name)
                ):
                    out.append(self._state_problem(binding.statement, None))
        return list(dict.fromkeys(out))

    def mutations(self, func: cst.FunctionDef) -> List[Problem]:
        """Python state ``func`` changes, itself or anywhere in its call tree
        (``Summaries.of(func).mutations``), each named with where it happens."""
        out = []
        for path, _ in self.summaries.of(func).mutations:
            statement = path[-1]
            owner = self.sem.function_of(statement)
            out.append(self._state_problem(statement, owner if owner is not func else None))
        return list(dict.fromkeys(out))

    def _state_problem(self, statement: cst.CSTNode, owner) -> Problem:
        where = f" in `{owner.name.value}()`" if owner is not None else ""
        what = f"`{self._first_line(statement)}` ({self._line(statement)}){where}"
        return Problem(Severity.HAZARD, what, STATE)

    def _first_line(self, node: cst.CSTNode) -> str:
        text = self.ctx.code(node).strip().splitlines()[0]
        return text if len(text) <= 50 else text[:47] + "..."

    # -- calls nobody can read ---------------------------------------------------------
    def readable(self, call: cst.Call) -> bool:
        """What ``call`` does is known: a function of the module, a call the API
        table describes, a builtin, a method of a value of known kind, a call of
        a model, layer, loss or tf.function, or a TensorFlow update by name."""
        if self.graph.resolve(call):
            return True
        qual = self.ctx.call_name(call)
        if qual is not None:
            return api.call(qual) is not None
        builtin = self.builtin(call)
        if builtin is not None:
            return api.call(builtin) is not None
        func = call.func
        if self.values.class_called(call) is not None:
            return True  # a class of the module without an ``__init__``
        if isinstance(func, cst.Attribute):
            if func.attr.value in UPDATE_METHODS or func.attr.value in MUTATORS:
                return True  # Python state changed is judged by ``mutations``
            receiver = self.values.kind(func.value)
            if api.method(receiver, func.attr.value) is not None:
                return True
            if func.attr.value == "__call__":
                return self._callable(func.value)
        return self._callable(func)

    def _callable(self, expr: cst.BaseExpression) -> bool:
        """A model, layer, loss, metric or tf.function (also ``self`` in a Keras model)."""
        if self.values.kind(expr) in CALLABLE_KINDS:
            return True
        cls = self.values.instance_class(expr)
        return cls is not None and self.values.class_kind(cls) in CALLABLE_KINDS

    def call_tree(self, func: cst.FunctionDef, skip) -> List[cst.FunctionDef]:
        """The module functions ``func`` calls, at any depth, in the order found
        (``skip(callee)``: callees not to enter, such as compiled ones)."""
        out: List[cst.FunctionDef] = []
        seen = {func}
        todo = [func]
        while todo:
            caller = todo.pop(0)
            for call in self.graph.calls_in(caller):
                for callee in self.graph.resolve(call):
                    if callee not in seen and not skip(callee):
                        seen.add(callee)
                        out.append(callee)
                        todo.append(callee)
        return out

    def unread_calls(self, func: cst.FunctionDef) -> List[Problem]:
        """Calls ``func``'s own body makes that the linter cannot read."""
        out = []
        for call in self.graph.calls_in(func):
            if not self.readable(call) and self._call_problem(call) is None:
                shown = dotted(call.func) or self._first_line(call.func)
                out.append(Problem(Severity.HAZARD, f"`{shown}()` ({self._line(call)})", UNREAD))
        return list(dict.fromkeys(out))


def _literal(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString))


def _python_library(qual: Optional[str]) -> bool:
    return qual is not None and qual.split(".", 1)[0] in PYTHON_LIBRARIES
