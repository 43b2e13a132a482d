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
is not a training step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple

from tflint_perf.analysis.callgraph import CallGraph
from tflint_perf.analysis.loops import enclosing_loops, target_names
from tflint_perf.engine import cst
from tflint_perf.engine.walk import descendants

UPDATE_METHODS = frozenset({"apply_gradients", "assign_sub", "assign_add", "assign", "minimize"})
# Updates that need no proof that they use this tape's gradients when the
# region opens no other tape (exercise notebooks leave ``tape.gradient`` as a TODO).
OPTIMIZER_UPDATES = frozenset({"apply_gradients", "minimize"})
# TensorFlow 1.x eager: ``grad_fn = tfe.implicit_value_and_gradients(loss_fn)``.
IMPLICIT_GRADIENTS = (
    ".implicit_value_and_gradients",
    ".implicit_gradients",
    ".value_and_gradients_function",
    ".gradients_function",
)


@dataclass
class TapeStep:
    node: cst.With  # the ``with`` statement that opens the tape(s)
    tapes: Tuple[str, ...]  # the names it binds
    scope: Optional[cst.FunctionDef]  # None: module level
    loop: Optional[cst.CSTNode]  # innermost loop of its scope around it; None: the step is `scope`
    updates: Tuple[cst.Call, ...]  # the calls that apply its gradients (or receive the tape)
    via: str = ""  # for an implicit-gradient step: the gradient function's name
    returns_gradients: bool = False  # `scope` returns the gradients; its callers apply them


def is_gradient_tape(ctx, expr: cst.BaseExpression) -> bool:
    qual = ctx.call_name(expr) or ""
    return qual.startswith("tensorflow") and qual.endswith(".GradientTape")


def tape_names(ctx, node: cst.With) -> Tuple[str, ...]:
    """Names a ``with`` binds to new tapes (empty when it opens none)."""
    out = []
    for item in node.items:
        if is_gradient_tape(ctx, item.item):
            out.extend(target_names(item.asname.name) if item.asname is not None else ["?"])
    return tuple(out)


class TapeSteps:
    """Every training step of the module that records with a GradientTape."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.graph = ctx.shared(CallGraph)
        self._applies: dict = {}
        self.steps: List[TapeStep] = []
        for node in ctx.nodes(cst.With):
            tapes = tape_names(ctx, node)
            if tapes and not self._inside_other_tape(node):
                step = self._step(node, tapes)
                if step is not None:
                    self.steps.append(step)
        self.steps += self._implicit_steps()

    def _inside_other_tape(self, node: cst.With) -> bool:
        for parent in self.ctx.ancestors_of(node):
            if isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return False
            if isinstance(parent, cst.With) and tape_names(self.ctx, parent):
                return True
        return False

    def _step(self, node: cst.With, tapes: Tuple[str, ...]) -> Optional[TapeStep]:
        scope = self.graph.scope_of(node)
        loops = enclosing_loops(self.ctx, node)
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

    def _returns_gradients(self, func: cst.FunctionDef, start: cst.With, tapes) -> bool:
        """``return loss, tape.gradient(loss, model.trainable_variables)``."""
        grads: set = set()
        started = False
        for node in descendants(func.body, skip_scopes=True):
            started = started or node is start
            if not started:
                continue
            if isinstance(node, cst.Assign) and self._from_gradients(node.value, tapes, grads):
                for target in node.targets:
                    grads.update(target_names(target.target))
            elif isinstance(node, cst.Return) and node.value is not None:
                if self._from_gradients(node.value, tapes, grads):
                    return True
        return False

    def applies_result(self, call: cst.Call) -> bool:
        """Whether the gradients ``call`` returns are applied after it, in the
        same loop iteration (or the same function body)."""
        statement = self.ctx.parent(call)
        if not isinstance(statement, cst.Assign) or statement.value is not call:
            return False
        grads = {n for t in statement.targets for n in target_names(t.target)}
        loops = enclosing_loops(self.ctx, call)
        scope = self.graph.scope_of(call)
        region = loops[0].body if loops else scope.body if scope is not None else None
        return region is not None and bool(self._updates(region, statement, (), grads))

    def _implicit_steps(self) -> List[TapeStep]:
        """``loss, grads = grad_fn(x)`` (a TF1 eager implicit-gradient function)
        followed by ``optimizer.apply_gradients(grads)`` in a loop."""
        grad_fns = {
            name
            for node in self.ctx.nodes(cst.Assign)
            if (self.ctx.call_name(node.value) or "").endswith(IMPLICIT_GRADIENTS)
            for t in node.targets
            for name in target_names(t.target)
        }
        out = []
        for node in self.ctx.nodes(cst.Assign) if grad_fns else ():
            value = node.value
            if not (
                isinstance(value, cst.Call)
                and isinstance(value.func, cst.Name)
                and _is_name(value.func, tuple(grad_fns))
            ):
                continue
            loops = enclosing_loops(self.ctx, node)
            grads = {n for t in node.targets for n in target_names(t.target)}
            updates = self._updates(loops[0].body, node, (), grads) if loops else ()
            if updates:
                statement = self.ctx.parent(node)
                scope = self.graph.scope_of(node)
                out.append(TapeStep(statement, (), scope, loops[0], updates, value.func.value))
        return out

    def _updates(self, region, start, tapes, grads: Optional[set] = None) -> Tuple[cst.Call, ...]:
        """The calls in ``region``, from ``start`` on, that apply the tapes'
        gradients: updates whose arguments use names bound from
        ``tape.gradient(...)`` (or from a call that receives the tape), and
        module functions that receive the tape and apply gradients themselves."""
        grads = set(grads or ())
        updates, fallback = [], []
        started = False
        other_tapes = False
        for node in descendants(region, skip_scopes=True):
            started = started or node is start
            if not started:
                continue
            if isinstance(node, cst.With) and node is not start and tape_names(self.ctx, node):
                if set(tape_names(self.ctx, node)) & set(tapes):
                    break  # the name now holds the next step's tape
                other_tapes = True
            if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                if node.value is not None and self._from_gradients(node.value, tapes, grads):
                    targets = node.targets if isinstance(node, cst.Assign) else [node]
                    for target in targets:
                        grads.update(target_names(target.target))
            elif isinstance(node, (cst.For, cst.CompFor)):  # for g, v in zip(grads, ...)
                if self._from_gradients(node.iter, tapes, grads):
                    grads.update(target_names(node.target))
            elif isinstance(node, cst.Call) and self._is_update(node, tapes, grads):
                updates.append(node)
            elif isinstance(node, cst.Call) and _method(node) in OPTIMIZER_UPDATES:
                fallback.append(node)
        if not updates and tapes and not other_tapes:
            return tuple(fallback)
        return tuple(updates)

    def _from_gradients(self, value: cst.CSTNode, tapes, grads: set) -> bool:
        for node in [value, *descendants(value)]:
            if isinstance(node, cst.Name) and node.value in grads:
                return True
            if isinstance(node, cst.Call) and _uses_tape(node, tapes):
                return True
        return False

    def _is_update(self, call: cst.Call, tapes, grads: set) -> bool:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in UPDATE_METHODS:
            return any(self._from_gradients(arg.value, tapes, grads) for arg in call.args) or any(
                _is_name(arg.value, tapes) for arg in call.args
            )
        if any(_is_name(arg.value, tapes) for arg in call.args):
            return self._applies_in(call, needs_tape=True)
        # update_weights(gradients, model.weights): a module function applying them
        gradients = any(self._from_gradients(arg.value, (), grads) for arg in call.args)
        return gradients and self._applies_in(call, needs_tape=False)

    def _applies_in(self, call: cst.Call, needs_tape: bool) -> bool:
        """Whether the module function ``call`` runs applies gradients (and, for a
        function handed the tape, computes them: ``gradient`` is called in it)."""
        target = self.graph.resolve(call)
        if target is None:
            return False
        if id(target) not in self._applies:
            calls = {
                n.func.attr.value
                for n in descendants(target.body, skip_scopes=True)
                if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute)
            }
            self._applies[id(target)] = ("gradient" in calls, bool(UPDATE_METHODS & calls))
        computes, applies = self._applies[id(target)]
        return applies and (computes or not needs_tape)


def _method(call: cst.Call) -> Optional[str]:
    return call.func.attr.value if isinstance(call.func, cst.Attribute) else None


def _uses_tape(call: cst.Call, tapes) -> bool:
    """``tape.gradient(...)``, or a call that is handed the tape."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "gradient":
        return _is_name(func.value, tapes)
    return any(_is_name(arg.value, tapes) for arg in call.args)


def _is_name(expr: cst.BaseExpression, names: Tuple[str, ...]) -> bool:
    return isinstance(expr, cst.Name) and expr.value in names
