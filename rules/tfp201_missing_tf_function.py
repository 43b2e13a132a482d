"""TFP201 missing-tf-function."""

from __future__ import annotations

from typing import List, Optional

import libcst as cst

from tflint_perf.functions import TF_FUNCTION, TfFunctions
from tflint_perf.keras_models import MODEL_CLASSES, ModelNames
from tflint_perf.loops import COMPREHENSION_TYPES, SCOPE_TYPES, enclosing_loops, enumerate_call, range_call, target_names
from tflint_perf.names import dotted
from tflint_perf.rule import SAFE, UNSAFE, Edit, Fix, Rule
from tflint_perf.steps import (
    TF1_GRAPH_MODE,
    calls_to,
    decorator_names,
    import_insertion_line,
    name_is_free,
    tensorflow_alias,
)
from tflint_perf.walk import descendants

APPLY_METHODS = frozenset({"apply_gradients", "minimize", "assign_sub"})
KERAS_STEP_OVERRIDES = frozenset({"train_step", "test_step", "predict_step"})
# Methods that hand a function to a distribution strategy, which traces it.
STRATEGY_RUNNERS = frozenset({"run", "experimental_run_v2", "experimental_run", "call_for_each_replica"})
EAGER_SWITCHES = frozenset(
    {"tensorflow.config.run_functions_eagerly", "tensorflow.config.experimental_run_functions_eagerly"}
)
MUTATING_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update", "add", "setdefault"})
PLAIN_DECORATORS = frozenset({"staticmethod", "classmethod"})
# Below this many calls (all loops literal), tracing costs more than it saves.
MIN_CALLS = 20
CONVERSIONS = frozenset({"float", "int", "bool"})


class MissingTfFunction(Rule):
    """A training step that runs eagerly although it is called in a loop.

    ## What it does
    Flags a function or method that records gradients with
    `tf.GradientTape` and applies them (`apply_gradients`, `minimize`,
    `assign_sub`), is not compiled with `tf.function`, and is called inside a
    loop of the same module (`step(...)`, or `self.step(...)` from another
    method of the class).

    It counts as compiled when it is decorated with `@tf.function`, passed to
    `tf.function(...)` anywhere in the module, handed to `strategy.run`, or
    called from a `tf.function`. It stays silent on `train_step`,
    `test_step` and `predict_step` of a Keras model (Keras compiles those),
    after `tf.config.run_functions_eagerly(True)`, on functions called
    only once, and when literal loops call it fewer than 20 times in all
    (tracing would cost more than it saves). A step whose body has Python side effects (`.numpy()`,
    `print`, appending to an outer list, assigning to `self`) is still
    reported, with what must move out of it before it can be wrapped.

    ## Why is this bad?
    Eagerly, every operation of the step is dispatched from Python one by
    one. Compiled with `tf.function`, the step is traced once into a graph
    that runs without Python overhead and with its operations fused: on TF
    2.21 on a 2-core CPU a small training step ran 3-12x faster.

    ## Example
    ```python
    import tensorflow as tf

    def train_step(model, optimizer, x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    for x, y in dataset:
        train_step(model, optimizer, x, y)
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    @tf.function
    def train_step(model, optimizer, x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    for x, y in dataset:
        train_step(model, optimizer, x, y)
    ```

    ## Fix safety
    The fix adds `@tf.function` right above the `def` (and
    `import tensorflow as tf` when the module has no TensorFlow import). It
    is safe when the body has no Python side effects, no `.numpy()` or
    `float()` conversion, no NumPy call, no mutation of outer Python state
    and no Python control flow: then tracing runs the same operations. It is
    unsafe when the body has `if`/`for`/`while`/`try` (AutoGraph converts
    most, not all, control flow on tensors), creates `tf.Variable`s, or the
    call passes the loop counter or an outer loop's variable (each new value
    traces again, and a retrace that creates variables raises). With side
    effects there is no fix.
    """

    code = "TFP201"
    name = "missing-tf-function"
    message = "`{func}()` is a training step called in a loop (line {line}) that runs eagerly: {advice}"
    triggers = ("GradientTape",)
    fixable = True
    # How a verifier can exercise a finding: call the reported def from the
    # loop that calls it, with and without the fix.
    verify_roles = {"call_site": "loop", "target": "def", "measure": "loop"}

    def finish(self) -> None:
        ctx = self.ctx
        if any(ctx.call_name(c) in TF1_GRAPH_MODE for c in _calls(ctx.module)):
            return
        tf_functions = ctx.shared(TfFunctions)
        self.wrapped_refs = _names_passed_to_wrappers(ctx)
        self.eager_switch_lines = [
            ctx.position(c).start.line
            for c in _calls(ctx.module)
            if ctx.call_name(c) in EAGER_SWITCHES and not _is_false(c)
        ]
        for node in ctx.nodes(cst.FunctionDef):
            if self._is_eager_step(node, tf_functions):
                self._check(node, tf_functions)

    # -- what is a step ------------------------------------------------
    def _is_eager_step(self, func: cst.FunctionDef, tf_functions: TfFunctions) -> bool:
        if func.asynchronous is not None or tf_functions.is_wrapped_def(func):
            return False
        if func.name.value in self.wrapped_refs:
            return False
        if any(name not in PLAIN_DECORATORS for name in decorator_names(self.ctx, func)):
            return False  # an unknown decorator may compile it
        has_tape = has_apply = False
        for node in descendants(func.body, skip_scopes=True):
            if isinstance(node, cst.Call):
                if self.ctx.call_name(node) == "tensorflow.GradientTape":
                    has_tape = True
                elif isinstance(node.func, cst.Attribute) and node.func.attr.value in APPLY_METHODS:
                    has_apply = True
        return has_tape and has_apply

    def _check(self, func: cst.FunctionDef, tf_functions: TfFunctions) -> None:
        ctx = self.ctx
        owner = self._owner(func)
        if isinstance(owner, cst.ClassDef):
            if func.name.value in KERAS_STEP_OVERRIDES and self._is_keras_model_class(owner):
                return
            sites = calls_to(owner.body, func.name.value, via_self=True)
        else:
            sites = (c for c in calls_to(owner, func.name.value, via_self=False) if not _inside(ctx, c, func))
        for call in sites:
            loop = self._loop_of(call)
            if loop is None or self._in_compiled_caller(call, tf_functions):
                continue
            if self._few_calls(call):
                continue
            line = ctx.position(call).start.line
            if any(switch < line for switch in self.eager_switch_lines):
                continue
            self._report(func, call, loop)
            return

    def _owner(self, func: cst.FunctionDef) -> cst.CSTNode:
        for parent in self.ctx.ancestors_of(func):
            if isinstance(parent, (cst.ClassDef, cst.FunctionDef, cst.Module)):
                return parent
        return self.ctx.module

    def _is_keras_model_class(self, cls: cst.ClassDef) -> bool:
        models = self.ctx.shared(ModelNames)
        for base in cls.bases:
            qual = self.ctx.qualname(base.value)
            name = dotted(base.value) or ""
            if qual in MODEL_CLASSES or (qual or "").startswith("keras.") or name in models.subclasses:
                return True
            if name.rsplit(".", 1)[-1].endswith("Model"):
                return True
        return False

    def _loop_of(self, call: cst.Call) -> Optional[cst.CSTNode]:
        loops = enclosing_loops(self.ctx, call)
        if loops:
            return loops[0]
        for parent in self.ctx.ancestors_of(call):
            if isinstance(parent, COMPREHENSION_TYPES):
                return parent
            if isinstance(parent, SCOPE_TYPES):
                return None
        return None

    def _few_calls(self, call: cst.Call) -> bool:
        """Every enclosing loop runs a literal number of times, fewer than
        ``MIN_CALLS`` in all: tracing would cost more than it saves."""
        total = 1
        for parent in self.ctx.ancestors_of(call):
            if isinstance(parent, SCOPE_TYPES):
                break
            if isinstance(parent, (cst.For, cst.While)) or isinstance(parent, COMPREHENSION_TYPES):
                count = _literal_count(parent)
                if count is None:
                    return False
                total *= count
        return total < MIN_CALLS

    def _in_compiled_caller(self, call: cst.Call, tf_functions: TfFunctions) -> bool:
        for parent in self.ctx.ancestors_of(call):
            if isinstance(parent, cst.FunctionDef):
                if tf_functions.is_wrapped_def(parent) or parent.name.value in self.wrapped_refs:
                    return True
                if any(name not in PLAIN_DECORATORS for name in decorator_names(self.ctx, parent)):
                    return True
            elif isinstance(parent, cst.Lambda):
                return True
        return False

    # -- report --------------------------------------------------------
    def _report(self, func: cst.FunctionDef, call: cst.Call, loop: cst.CSTNode) -> None:
        ctx = self.ctx
        effects, risks = self._body_problems(func)
        risks.extend(self._call_site_risks(call, loop))
        line = ctx.position(call).start.line
        fix = None
        if effects:
            advice = (
                f"move {_join(effects)} out of it, then wrap it in `@tf.function` "
                "(under tf.function these run only while tracing)"
            )
        else:
            advice = "wrap it in `@tf.function` (small steps run 3-12x faster compiled)"
            fix = self._fix(func, UNSAFE if risks else SAFE)
        self.report(func.name, func=func.name.value, line=line, advice=advice, fix=fix)

    def _body_problems(self, func: cst.FunctionDef):
        """(side effects to move out, constructs that make the fix unsafe)."""
        ctx = self.ctx
        effects: List[str] = []
        risks: List[str] = []
        local = _locally_bound(func)
        for node in descendants(func.body, skip_scopes=True):
            if isinstance(node, cst.Call):
                qual = ctx.call_name(node) or ""
                attr = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
                name = node.func.value if isinstance(node.func, cst.Name) else None
                where = ctx.position(node).start.line
                if attr in ("numpy", "item") and not node.args:
                    effects.append(f"`.{attr}()` (line {where})")
                elif name == "print":
                    effects.append(f"`print()` (line {where})")
                elif name in CONVERSIONS and node.args and not isinstance(node.args[0].value, (cst.Integer, cst.Float)):
                    effects.append(f"`{name}()` (line {where})")
                elif name == "open" or qual.startswith(("numpy.", "time.", "logging.", "random.")):
                    effects.append(f"`{dotted(node.func)}()` (line {where})")
                elif attr in MUTATING_METHODS and _outer_receiver(node.func.value, local):
                    effects.append(f"`{ctx.code(node.func)}()` on outer state (line {where})")
                elif isinstance(node.func, cst.Attribute) and dotted(node.func.value) in ("logging", "logger", "log"):
                    effects.append(f"`{dotted(node.func)}()` (line {where})")
                elif qual in ("tensorflow.Variable",):
                    risks.append("creates a tf.Variable")
            elif isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, (cst.Attribute, cst.Subscript)) and _outer_receiver(target.value, local):
                        effects.append(f"the assignment to `{ctx.code(target)}` (line {ctx.position(target).start.line})")
            elif isinstance(node, (cst.Global, cst.Nonlocal)):
                effects.append(f"the `{'global' if isinstance(node, cst.Global) else 'nonlocal'}` state")
            elif isinstance(node, (cst.Yield, cst.Await)):
                effects.append("the `yield`")
            elif isinstance(node, (cst.If, cst.For, cst.While, cst.Try, cst.IfExp, cst.Break, cst.Continue)):
                risks.append("Python control flow")
        return list(dict.fromkeys(effects)), risks

    def _call_site_risks(self, call: cst.Call, loop: cst.CSTNode) -> List[str]:
        """Arguments that retrace the compiled step: the innermost loop's
        counter, or anything an outer loop iterates over (another model, an
        epoch number). A retrace that builds new variables (a new optimizer's
        slots) raises under tf.function."""
        counters = set()
        if isinstance(loop, cst.For):
            if range_call(loop.iter) is not None:
                counters.update(target_names(loop.target))
            elif enumerate_call(loop.iter) is not None and isinstance(loop.target, cst.Tuple) and loop.target.elements:
                counters.update(target_names(loop.target.elements[0].value))
        inner = set(map(id, descendants(loop))) if loop is not None else set()
        for outer in enclosing_loops(self.ctx, call)[1:]:
            if isinstance(outer, cst.For):
                counters.update(target_names(outer.target))
            for node in descendants(outer.body, skip_scopes=True):
                if isinstance(node, cst.Assign) and id(node) not in inner:
                    for t in node.targets:
                        counters.update(target_names(t.target))
        used = {n.value for arg in call.args for n in [arg.value, *descendants(arg.value)] if isinstance(n, cst.Name)}
        return ["passes a value that changes between calls"] if used & counters else []

    def _fix(self, func: cst.FunctionDef, safety: str) -> Optional[Fix]:
        ctx = self.ctx
        def_line = ctx.position(func.name).start.line
        text = ctx.line_text(def_line)
        stripped = text.lstrip()
        if not stripped.startswith("def "):
            return None
        indent = text[: len(text) - len(stripped)]
        edits = []
        alias = tensorflow_alias(ctx)
        if alias is None:
            before = import_insertion_line(ctx)
            if before is None or not name_is_free(ctx, "tf"):
                return None
            alias = "tf"
            edits.append(ctx.insert_lines(before, "import tensorflow as tf"))
        edits.append(Edit(def_line, 0, def_line, 0, f"{indent}@{alias}.function\n"))
        return Fix(tuple(edits), safety, "Compile the step with @tf.function")


def _calls(node: cst.CSTNode):
    return (n for n in descendants(node) if isinstance(n, cst.Call))


def _literal_count(loop: cst.CSTNode) -> Optional[int]:
    """Iterations of ``for _ in range(N)`` / over a literal list, when literal."""
    if isinstance(loop, COMPREHENSION_TYPES):
        loop = loop.for_in
        if loop.inner_for_in is not None:
            return None
    iterable = getattr(loop, "iter", None)
    if iterable is None:
        return None
    if isinstance(iterable, (cst.List, cst.Tuple, cst.Set)):
        return len(iterable.elements)
    call = range_call(iterable)
    if call is not None and len(call.args) == 1 and isinstance(call.args[0].value, cst.Integer):
        return int(call.args[0].value.evaluated_value)
    return None


def _is_false(call: cst.Call) -> bool:
    return bool(call.args) and isinstance(call.args[0].value, cst.Name) and call.args[0].value.value == "False"


def _names_passed_to_wrappers(ctx) -> set:
    """Names (``step``, ``self.step`` -> ``step``) referenced in the arguments of
    ``tf.function(...)`` calls and of ``strategy.run(...)``-like calls."""
    out = set()
    for call in _calls(ctx.module):
        qual = ctx.call_name(call) or ""
        attr = call.func.attr.value if isinstance(call.func, cst.Attribute) else None
        if qual == TF_FUNCTION or qual.endswith("def_function.function") or qual.endswith("polymorphic_function.function"):
            args = call.args
        elif attr in STRATEGY_RUNNERS and qual == "" and call.args:
            args = call.args[:1] + tuple(a for a in call.args if a.keyword is not None and a.keyword.value == "fn")
        else:
            continue
        for arg in args:
            for node in [arg.value, *descendants(arg.value)]:
                if isinstance(node, cst.Name):
                    out.add(node.value)
                elif isinstance(node, cst.Attribute):
                    out.add(node.attr.value)
    return out


def _inside(ctx, node: cst.CSTNode, scope: cst.CSTNode) -> bool:
    return any(p is scope for p in ctx.ancestors_of(node))


def _locally_bound(func: cst.FunctionDef) -> set:
    """Names the body assigns (parameters excluded: they belong to the caller)."""
    names = set()
    for node in descendants(func.body, skip_scopes=True):
        if isinstance(node, cst.Assign):
            for t in node.targets:
                names.update(target_names(t.target) if isinstance(t.target, (cst.Name, cst.Tuple, cst.List)) else [])
        elif isinstance(node, (cst.For, cst.CompFor)):
            names.update(target_names(node.target))
        elif isinstance(node, cst.WithItem) and node.asname is not None and isinstance(node.asname.name, cst.Name):
            names.add(node.asname.name.value)
    return names


def _outer_receiver(expr: cst.BaseExpression, local: set) -> bool:
    """Whether ``expr`` (the object mutated) lives outside the function."""
    base = expr
    while isinstance(base, (cst.Attribute, cst.Subscript)):
        base = base.value
    if isinstance(base, cst.Name):
        if base.value == "self":
            return True
        return base.value not in local
    return False


def _join(items: List[str]) -> str:
    items = items[:4] + (["..."] if len(items) > 4 else [])
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else items[0]
