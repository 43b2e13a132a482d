"""Training steps written with ``tf.GradientTape``: tapes whose gradients are applied.

A ``with tf.GradientTape() as tape:`` statement is a training step when, in
the same iteration of the loop around it (or in its function, when no loop
of that function surrounds it):

- ``tape.gradient(...)`` is called and an update applies gradients
  (``apply_gradients``, ``assign_sub``, ``assign_add``, ``minimize``), or
- the tape is handed to a function of the module that does both
  (``policy.train_net(tape)``), or the gradients are handed to a function
  of the module that applies them (``update_weights(grads, model.weights)``).

A tape opened inside another tape's block (a gradient penalty, a second
derivative) is part of the outer step, not a step of its own. A tape whose
gradients only feed a saliency map or an input update without an optimizer
is not a training step. TensorFlow 1.x eager steps compute their gradients
with a gradient function (``loss, grads = grad_fn(x)``,
``Kind.GRADIENT_FUNCTION``) instead of a tape.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Set, Tuple

from tflint_perf.analysis.api import Effect, Kind
from tflint_perf.analysis.api.steps import GRADIENT_METHODS, OPTIMIZER_UPDATES, UPDATE_METHODS
from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.semantic import BindingKind, SemanticModel
from tflint_perf.analysis.summaries import Summaries
from tflint_perf.analysis.values import Values
from tflint_perf.engine import cst
from tflint_perf.engine.walk import descendants


@dataclass
class TapeStep:
    node: cst.CSTNode  # the ``with`` statement that opens the tape(s), or the step's statement
    tapes: Tuple[str, ...]  # the names it binds
    scope: Optional[cst.FunctionDef]  # None: module level
    loop: Optional[cst.CSTNode]  # innermost loop of its scope around it; None: the step is `scope`
    updates: Tuple[cst.Call, ...]  # the calls that apply its gradients (or receive the tape)
    via: str = ""  # for an implicit-gradient step: the gradient function's name
    returns_gradients: bool = False  # `scope` returns the gradients; its callers apply them


class TapeSteps:
    """Every training step of the module that records with a GradientTape."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self.values: Values = ctx.shared(Values)
        self.graph: CallGraph = ctx.shared(CallGraph)
        self.summaries: Summaries = ctx.shared(Summaries)
        self._applies: Dict[cst.FunctionDef, Tuple[bool, bool]] = {}
        self.steps: List[TapeStep] = []
        self.not_steps: List[cst.With] = []  # tapes whose gradients no update applies
        for node in ctx.nodes(cst.With):
            tapes = self.tape_names(node)
            if tapes and not self._inside_other_tape(node):
                step = self._step(node, tapes)
                if step is not None:
                    self.steps.append(step)
                else:
                    self.not_steps.append(node)
        self.steps += self._implicit_steps()

    def tape_names(self, node: cst.With) -> Tuple[str, ...]:
        """Names a ``with`` binds to new tapes (empty when it opens none)."""
        out: List[str] = []
        for item in node.items:
            if self.values.kind(item.item) is Kind.TAPE:
                names = [b.name for b in self.sem.bindings_of(item)]
                out.extend(names or ["?"])
        return tuple(out)

    def _inside_other_tape(self, node: cst.With) -> bool:
        for parent in self.ctx.ancestors_of(node):
            if isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return False
            if isinstance(parent, cst.With) and self.tape_names(parent):
                return True
        return False

    def _step(self, node: cst.With, tapes: Tuple[str, ...]) -> Optional[TapeStep]:
        scope = self.sem.function_of(node)
        loops = self.sem.loops_around(node)
        for loop in loops:  # innermost first: gradients accumulated over an
            updates = self._updates(loop.body, node, tapes)  # inner loop apply outside it
            if updates:
                return TapeStep(node, tapes, scope, loops[0], updates)
        if scope is None:
            return None  # module level outside any loop: runs once
        updates = self._updates(scope.body, node, tapes)
        if updates:
            return TapeStep(node, tapes, scope, None, updates)
        if not loops and self._returns_gradients(scope, node, tapes):
            return TapeStep(node, tapes, scope, None, (), returns_gradients=True)
        return None

    # -- gradients flowing to an update ---------------------------------------------
    def _gradient_names(self, region, start, tapes, grads: Set[str], end: int) -> Set[str]:
        """Names bound in ``region`` from ``start`` on (before ``end``) to values
        computed from the tapes' gradients."""
        grads = set(grads)
        first = self.ctx.span(start)[0]
        bindings = [
            b
            for b in self.sem.bindings_in(region)
            if first <= self.ctx.span(b.statement)[0] < end and "." not in b.name
        ]
        for _ in range(2):  # chains run forward; a second pass catches loop-carried ones
            for binding in bindings:
                value = binding.value if binding.plain else binding.source
                if value is not None and self._from_gradients(value, tapes, grads):
                    grads.add(binding.name)
        return grads

    def _updates(self, region, start, tapes, grads: Optional[Set[str]] = None):
        """The calls in ``region``, from ``start`` on, that apply the tapes'
        gradients: updates whose arguments use names bound from
        ``tape.gradient(...)`` (or from a call that receives the tape), and
        module functions that receive the tape and apply gradients themselves."""
        ctx = self.ctx
        first = ctx.span(start)[0]
        end = ctx.span(region)[1] + 1
        other_tapes = False
        for node in self.ctx.nodes(cst.With):
            where = ctx.span(node)[0]
            if node is start or where < first or where >= end or not ctx.contains(region, node):
                continue
            if self.sem.function_of(node) is not self.sem.function_of(start):
                continue
            names = self.tape_names(node)
            if set(names) & set(tapes):
                end = where  # the name now holds the next step's tape
                break
            other_tapes = other_tapes or bool(names)
        found = self._gradient_names(region, start, tapes, grads or set(), end)
        updates, fallback = [], []
        for call in self.graph.calls_in(self.sem.function_of(start)):
            where = ctx.span(call)[0]
            if where < first or where >= end or not ctx.contains(region, call):
                continue
            if self._is_update(call, tapes, found):
                updates.append(call)
            elif _method(call) in OPTIMIZER_UPDATES:
                fallback.append(call)
        if not updates and tapes and not other_tapes:
            return tuple(fallback)
        return tuple(updates)

    def _from_gradients(self, value: cst.CSTNode, tapes, grads: Set[str]) -> bool:
        if set(self.sem.reads(value)) & grads:
            return True
        return any(
            isinstance(node, cst.Call) and _uses_tape(node, tapes)
            for node in [value, *descendants(value, skip_scopes=True)]
        )

    def _is_update(self, call: cst.Call, tapes, grads: Set[str]) -> bool:
        args = [arg.value for arg in call.args]
        if _method(call) in UPDATE_METHODS:
            return any(self._from_gradients(a, tapes, grads) for a in args) or any(
                _is_name(a, tapes) for a in args
            )
        if any(_is_name(a, tapes) for a in args):
            return self._applies_in(call, needs_tape=True)
        # update_weights(gradients, model.weights): a module function applying them
        gradients = any(self._from_gradients(a, (), grads) for a in args)
        return gradients and self._applies_in(call, needs_tape=False)

    def _applies_in(self, call: cst.Call, needs_tape: bool) -> bool:
        """Whether a module function ``call`` runs applies gradients (and, for a
        function handed the tape, computes them: ``gradient`` is called in it)."""
        for target in self.graph.resolve(call):
            if target not in self._applies:
                effects = self.summaries.of(target).effects
                methods = {_method(c) for c in self.graph.calls_in(target)}
                computes = bool(effects & Effect.GRADIENTS or methods & GRADIENT_METHODS)
                applies = bool(effects & Effect.UPDATE or methods & UPDATE_METHODS)
                self._applies[target] = (computes, applies)
            computes, applies = self._applies[target]
            if applies and (computes or not needs_tape):
                return True
        return False

    # -- gradients returned to the caller -------------------------------------------
    def _returns_gradients(self, func: cst.FunctionDef, start: cst.With, tapes) -> bool:
        """``return loss, tape.gradient(loss, model.trainable_variables)``."""
        end = self.ctx.span(func)[1] + 1
        grads = self._gradient_names(func.body, start, tapes, set(), end)
        first = self.ctx.span(start)[0]
        return any(
            self.ctx.span(r)[0] > first and self._from_gradients(r.value, tapes, grads)
            for r in self.values.returns(func)
            if r.value is not None
        )

    def applies_result(self, call: cst.Call) -> bool:
        """Whether the gradients ``call`` returns are applied after it, in the
        same loop iteration (or the same function body)."""
        statement = self.ctx.parent(call)
        if not isinstance(statement, cst.Assign) or statement.value is not call:
            return False
        grads = {b.name for b in self.sem.bindings_of(statement) if "." not in b.name}
        loops = self.sem.loops_around(call)
        scope = self.sem.function_of(call)
        region = loops[0].body if loops else scope.body if scope is not None else None
        return region is not None and bool(self._updates(region, statement, (), grads))

    # -- TensorFlow 1.x eager ----------------------------------------------------------
    def _implicit_steps(self) -> List[TapeStep]:
        """``loss, grads = grad_fn(x)`` (a TF1 eager gradient function) followed by
        ``optimizer.apply_gradients(grads)`` in a loop."""
        out = []
        for node in self.ctx.nodes(cst.Assign):
            value = node.value
            if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Name):
                continue
            if self.values.kind(value.func) is not Kind.GRADIENT_FUNCTION:
                continue
            loops = self.sem.loops_around(node)
            grads = {b.name for b in self.sem.bindings_of(node) if b.kind is BindingKind.ASSIGNMENT}
            updates = self._updates(loops[0].body, node, (), grads) if loops else ()
            if updates:
                statement = self.ctx.parent(node)
                assert statement is not None  # an assignment is in a statement line
                scope = self.sem.function_of(node)
                out.append(TapeStep(statement, (), scope, loops[0], updates, value.func.value))
        return out


def _method(call: cst.Call) -> Optional[str]:
    return call.func.attr.value if isinstance(call.func, cst.Attribute) else None


def _uses_tape(call: cst.Call, tapes) -> bool:
    """``tape.gradient(...)``, or a call that is handed the tape."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in GRADIENT_METHODS:
        return _is_name(func.value, tapes)
    return any(_is_name(arg.value, tapes) for arg in call.args)


def _is_name(expr: cst.BaseExpression, names) -> bool:
    return isinstance(expr, cst.Name) and expr.value in names
