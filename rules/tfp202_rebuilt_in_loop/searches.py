"""Searches over models: a new Keras model trained on every iteration of a loop
(hyper-parameter search, cross-validation, a trial function called per
setting) while Keras keeps every model built in its global state.

Building a new model each trial is the point; the trap is not resetting:
the fix calls ``clear_session()`` at the start of each iteration (or of the
trial function).
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from tflint_perf.analysis.api import Effect, Kind
from tflint_perf.analysis.api.steps import (
    KERAS_METHOD_KEYWORDS,
    KERAS_TRAINING_KEYWORDS,
    OTHER_FRAMEWORKS,
)
from tflint_perf.analysis.api.tables import OTHER_PREDICTOR_ROOTS
from tflint_perf.analysis.semantic import BindingKind
from tflint_perf.analysis.steps import import_insertion_line
from tflint_perf.analysis.trips import Size
from tflint_perf.engine import cst
from tflint_perf.engine.headline import fit_headline
from tflint_perf.engine.names import callee, canonical, dotted
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.rule import SAFE, UNSAFE, Fix

from .common import Built, Facts, Item, Loop, first_statement

# Fewer trials than this leave too little behind to matter (two models).
MIN_TRIALS = 3
TRAINS = Effect.TRAINING | Effect.UPDATE
# import statement, the name it binds, and keras.backend spelled with it
OWN_IMPORTS = {
    "tensorflow": ("tf", "import tensorflow as tf", "tf.keras.backend"),
    "keras": ("keras", "import keras", "keras.backend"),
    "tf_keras": ("tf_keras", "import tf_keras", "tf_keras.backend"),
}
WHY = (
    "Building a new model each iteration is the point here, but Keras keeps every model "
    "built in its global state: memory grows and each trial gets slower than the last."
)


class Searches:
    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self.ctx = facts.ctx
        self.rule = facts.rule

    # -- a loop that trains a new model per iteration -------------------------------------
    def library_models(self, loop: Loop, known: List[Item]) -> List[Item]:
        """``m = compiled_tcn(...)`` (a library's factory) then ``m.compile(optimizer=...)``
        or ``m.fit_headline(..., epochs=...)`` in the same loop: a Keras model built per iteration."""
        facts = self.facts
        seen = {id(i.node) for i in known}
        calls = facts.calls_under(loop.body)
        out = []
        for node in facts.own_body(loop):
            if not (isinstance(node, cst.Assign) and isinstance(node.value, cst.Call)):
                continue
            call = node.value
            qual = self.ctx.call_name(call) or ""
            if id(call) in seen or qual.split(".", 1)[0] in OTHER_PREDICTOR_ROOTS:
                continue
            if qual.startswith(("numpy.", "tensorflow.")) or facts.values.kind(call) not in (
                Kind.UNKNOWN,
                Kind.KERAS_MODEL,
            ):
                continue
            if isinstance(call.func, cst.Attribute) and isinstance(
                node.targets[0].target, cst.Name
            ):
                if dotted(call.func.value) == node.targets[0].target.value:
                    continue  # m = m.something(...)
            item = Item(Built.MODEL, call, f"`{callee(call.func)}()`", facts.binding_of(call))
            if item.binding is None:
                continue
            uses = facts.uses(item, calls)
            if any(_keras_training(c) for c in uses):
                out.append(item)
            elif any(_method(c) in KERAS_TRAINING_KEYWORDS for c in uses):
                detail = "its fit_headline() or compile() takes keywords Keras' does not"
                self.rule.silent(call, Reason.OTHER_LIBRARY, detail)
        if out and self.ctx.imports.imports_any(*OTHER_FRAMEWORKS):
            for item in out:  # a model of another framework (``theano_ann.ANN``)
                self.rule.silent(item.node, Reason.OTHER_LIBRARY, "another framework's model")
            return []
        return out

    def trained(self, item: Item, loop: Loop) -> bool:
        """The model is trained in the iteration (by its factory or in the loop)."""
        facts = self.facts
        if isinstance(item.node, cst.Call):
            for target in facts.graph.resolve(item.node):
                if facts.summaries.of(target).effects & TRAINS:
                    return True
        for call in facts.uses(item, facts.calls_under(loop.body)):
            if facts.summaries.direct_effects(call) & Effect.TRAINING or _keras_training(call):
                return True
        return False

    def check_loop(self, loop: Loop, items: List[Item], clears: bool) -> List[Item]:
        """Report a loop that trains a new model per iteration; the items judged."""
        facts = self.facts
        models = [i for i in items if i.built is Built.MODEL and self.trained(i, loop)]
        if not models:
            return []
        first = models[0].node
        estimate = facts.trips.of(loop)
        if clears:
            self.rule.silent(first, Reason.ALREADY_DONE, "Keras' state is reset in the loop")
        elif estimate.count is not None and estimate.count < MIN_TRIALS:
            self.rule.silent(first, Reason.TINY_LOOP, f"{estimate.count} trials")
        elif any(facts.kept(m, loop) for m in models):
            self.rule.silent(first, Reason.DELIBERATE, "the models are kept (an ensemble)")
        else:
            self._report_loop(loop, models)
        return models

    def _report_loop(self, loop: Loop, models: List[Item]) -> None:
        facts, ctx = self.facts, self.ctx
        model = models[0]
        statement = first_statement(loop) or loop
        spelling = self.spelling(model.construction, ctx.position(statement).start.line, loop)
        prefix = spelling[0] if spelling else "keras.backend"
        headline = fit_headline(
            f"new Keras model ({model.label}) per iteration: call `{prefix}.clear_session()` first",
            f"new Keras model per iteration: call `{prefix}.clear_session()` first in the loop",
        )
        loop_line = facts.line(loop)
        detail = (
            f"The loop at {loop_line} builds and trains {model.label} on every iteration "
            f"without resetting Keras. {WHY} Call `{prefix}.clear_session()` at the start of "
            "each iteration."
        )
        fix = self.fix(loop.body, spelling, loop) if spelling is not None else None
        self.rule.report(model.node, message=headline, detail=detail, fix=fix)

    # -- a trial function called per iteration ---------------------------------------------
    def check_trials(self) -> None:
        """A function that builds and trains a model, called once per iteration of a
        loop (directly or through one helper) without ``clear_session()``."""
        facts = self.facts
        for func in self.ctx.nodes(cst.FunctionDef):
            effects = facts.summaries.of(func).effects
            if not (effects & Effect.BUILDS and effects & TRAINS):
                continue
            construction = facts.first_construction(func)
            owner = facts.sem.function_of(construction) if construction is not None else None
            if construction is None or owner is None or owner is not func:
                continue
            if any(
                facts.values.kind(r.value) is Kind.KERAS_MODEL for r in facts.values.returns(func)
            ):
                continue  # a factory: judged where its model is built
            if effects & Effect.RESETS:
                self.rule.silent(construction, Reason.ALREADY_DONE, "it resets Keras' state")
                continue
            found = self._trial_loop(func)
            if found is not None:
                self._report_trial(func, construction, *found)

    def _trial_loop(
        self, func: cst.FunctionDef
    ) -> Optional[Tuple[Loop, Optional[cst.FunctionDef]]]:
        """(loop, helper between) for a loop that runs ``func`` once per iteration."""
        graph, sem = self.facts.graph, self.facts.sem
        for call in graph.callers(func):
            loops = sem.loops_around(call)
            if loops:
                if self._runs_trials(loops[0]):
                    return loops[0], None
                continue
            wrapper = sem.function_of(call)
            if wrapper is None or wrapper is func:
                continue
            for outer in graph.callers(wrapper):
                loops = sem.loops_around(outer)
                if loops and self._runs_trials(loops[0]):
                    return loops[0], wrapper
        return None

    def _runs_trials(self, loop: Loop) -> bool:
        estimate = self.facts.trips.of(loop)
        if (
            estimate.size is Size.TINY
            and estimate.count is not None
            and estimate.count < MIN_TRIALS
        ):
            return False
        return not self.facts.clears(loop)

    def _report_trial(self, func, construction: cst.Call, loop: Loop, wrapper) -> None:
        ctx = self.ctx
        name = func.name.value
        via = f" (through `{wrapper.name.value}()`)" if wrapper is not None else ""
        first = first_statement(func)
        line = (
            ctx.position(first).start.line if first is not None else ctx.position(func).start.line
        )
        spelling = self.spelling(construction, line)
        prefix = spelling[0] if spelling else "keras.backend"
        built = callee(construction.func)
        headline = fit_headline(
            f"`{name}()` builds and trains a new Keras model per call: call "
            f"`{prefix}.clear_session()` at its start",
            f"`{name}()` trains a new model per call: call `{prefix}.clear_session()` at its start",
        )
        detail = (
            f"`{name}()` builds `{built}()` and trains it on every call, and the loop at "
            f"{self.facts.line(loop)} calls it{via} once per iteration. {WHY}"
        )
        fix = self.fix(func.body, spelling, func) if spelling else None
        self.rule.report(construction, message=headline, detail=detail, fix=fix)

    # -- the fix: clear_session() ----------------------------------------------------------
    def spelling(self, construction: Optional[cst.Call], line: int, scope=None):
        """(``keras.backend`` as spelled by an import above ``line`` at module level or
        in the function around ``scope``, the import statement to add when there is
        none), for the Keras the model was built with; else None."""
        ctx, sem = self.ctx, self.facts.sem
        root = self._keras_root(construction)
        if root is None:
            return None
        function = sem.function_of(scope) if scope is not None else None
        for node in [*ctx.nodes(cst.Import), *ctx.nodes(cst.ImportFrom)]:
            if ctx.position(node).start.line >= line:
                continue
            if sem.function_of(node) not in (None, function):
                continue
            prefix = _backend_prefix(_raw_imports(node), root)
            if prefix is not None:
                return prefix, None
        name, statement, prefix = OWN_IMPORTS[root]
        if not self._can_bind(name, root):
            return None
        return prefix, statement

    def _keras_root(self, construction: Optional[cst.Call]) -> Optional[str]:
        """The Keras a model was built with: ``tensorflow`` (tf.keras), ``keras``, ``tf_keras``."""
        ctx = self.ctx
        full = None
        if construction is not None:
            head = (dotted(construction.func) or "").split(".", 1)[0]
            full = ctx.imports.aliases.get(head)
            cls = self.facts.values.class_called(construction)
            if full is None and cls is not None:
                for each in self.facts.sem.class_and_bases(cls):
                    for base in each.bases:
                        head = (dotted(base.value) or "").split(".", 1)[0]
                        full = full or ctx.imports.aliases.get(head)
        if full is None:  # a library's factory: the Keras this module imports
            imports = ctx.imports
            roots = [r for r in ("tensorflow", "keras", "tf_keras") if imports.imports_any(r)]
            full = roots[0] if len(roots) == 1 else None
        if full is None:
            return None
        if full.startswith("tf_keras"):
            return "tf_keras"
        return "tensorflow" if full.startswith("tensorflow") else "keras"

    def _can_bind(self, name: str, full: str) -> bool:
        """A new ``import`` may bind ``name``: nothing else in the file binds it."""
        if self.ctx.imports.aliases.get(name, full) != full:
            return False
        return all(
            b.kind is BindingKind.IMPORT for b in self.facts.sem.module_scope.bindings.get(name, [])
        ) and not any(name in scope_bindings for scope_bindings in self._other_scopes())

    def _other_scopes(self):
        for func in self.ctx.nodes(cst.FunctionDef):
            yield self.facts.sem.scope(func).bindings

    def fix(self, block, spelling, owner) -> Optional[Fix]:
        ctx, facts = self.ctx, self.facts
        prefix, statement = spelling
        first = first_statement(owner)
        if first is None:
            return None
        line = ctx.position(first).start.line
        indent = ctx.indentation(first)
        unsafe = facts.graph_mode or self._uses_outer_model(block)
        text = f"{indent}{prefix}.clear_session()"
        edits = []
        if statement is not None:
            at = import_insertion_line(ctx)
            if at is not None and at <= line:
                edits.append(ctx.insert_lines(at, statement))
            elif isinstance(owner, (cst.For, cst.While)):  # right above the loop, in its cell
                above = ctx.position(owner).start.line
                edits.append(ctx.insert_lines(above, f"{ctx.indentation(owner)}{statement}"))
            else:
                text = f"{indent}{statement}\n{text}"
        edits.append(ctx.insert_lines(line, text))
        loop = isinstance(owner, (cst.For, cst.While))
        where = "each iteration" if loop else f"`{owner.name.value}()`"
        return Fix(
            tuple(edits),
            UNSAFE if unsafe else SAFE,
            f"Call clear_session() at the start of {where}",
        )

    def _uses_outer_model(self, block: cst.CSTNode) -> bool:
        """The block reads a Keras model built outside it (``clear_session`` would
        leave that model in a reset session)."""
        sem, values = self.facts.sem, self.facts.values
        first, last = self.ctx.span(block)
        for name in set(sem.reads(block)):
            bindings = sem.definitions(name)
            inside = any(first <= self.ctx.span(b.statement)[0] <= last for b in bindings)
            if not inside and any(
                b.plain and values.kind(b.value) is Kind.KERAS_MODEL for b in bindings
            ):
                return True
        return False


def _keras_training(call: cst.Call) -> bool:
    """``m.compile(optimizer=..., loss=...)`` or ``m.fit_headline(..., epochs=...)``: Keras' API."""
    func = call.func
    if not isinstance(func, cst.Attribute):
        return False
    wanted = KERAS_TRAINING_KEYWORDS.get(func.attr.value)
    keywords = {a.keyword.value for a in call.args if a.keyword is not None}
    if wanted is None or not keywords & wanted:
        return False
    return keywords <= KERAS_METHOD_KEYWORDS[func.attr.value]  # nothing Keras lacks


def _method(call: cst.Call) -> Optional[str]:
    return call.func.attr.value if isinstance(call.func, cst.Attribute) else None


def _raw_imports(node) -> Dict[str, str]:
    """What one import statement binds: local name -> the module path it spells."""
    out: Dict[str, str] = {}
    if isinstance(node, cst.Import):
        for alias in node.names:
            full = dotted(alias.name)
            if full is None:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                out[alias.asname.name.value] = full
            else:
                out[full.split(".", 1)[0]] = full.split(".", 1)[0]
        return out
    if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
        return out
    base = dotted(node.module)
    for alias in node.names:
        name = dotted(alias.name)
        if base is None or name is None:
            continue
        local = name
        if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
            local = alias.asname.name.value
        out[local] = f"{base}.{name}"
    return out


def _backend_prefix(bound: Dict[str, str], root: str) -> Optional[str]:
    """How one import's names spell ``keras.backend`` for ``root``."""
    for local, target in bound.items():
        if target in (f"{root}.backend", f"{root}.keras.backend") or (
            root == "keras" and target == "keras.api.backend"
        ):
            return local
    for local, target in bound.items():
        if target == root or (root == "tensorflow" and canonical(target) == "tensorflow"):
            return f"{local}.keras.backend" if root == "tensorflow" else f"{local}.backend"
        if root == "tensorflow" and target == "tensorflow.keras":
            return f"{local}.backend"
    return None
