"""TFP202 rebuilt-in-loop."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional

import libcst as cst

from tflint_perf.functions import TF_FUNCTION, decorator_call
from tflint_perf.keras_models import ModelNames, is_model_construction
from tflint_perf.loops import COMPREHENSION_TYPES, LOOP_TYPES, SCOPE_TYPES, enclosing_loops, names_used, target_names
from tflint_perf.names import dotted
from tflint_perf.rule import SAFE, UNSAFE, Fix, Rule
from tflint_perf.steps import TF1_GRAPH_MODE, _bound_bases, is_clear_session, varying_names
from tflint_perf.walk import children, descendants

TF1_BUILDERS = {
    "tensorflow.Graph": "graph",
    "tensorflow.Session": "session",
    "tensorflow.InteractiveSession": "session",
    "tensorflow.placeholder": "placeholder",
    "tensorflow.Variable": "variable",
    "tensorflow.get_variable": "variable",
}
TRAINING_METHODS = frozenset({"fit", "fit_generator", "evaluate", "evaluate_generator"})
USING_METHODS = frozenset({"predict", "predict_on_batch", "train_on_batch", "test_on_batch", "evaluate", "__call__"})
STEP_MARKERS = frozenset(
    {"apply_gradients", "minimize", "train_on_batch", "test_on_batch", "predict_on_batch", "predict", "numpy"}
)
RUNNERS = frozenset({"run", "eval"})


@dataclass
class Item:
    kind: str  # model, layer, function, tf1
    node: cst.CSTNode
    label: str
    bound: Optional[str] = None  # the name it is assigned to
    detail: str = ""  # tf1: graph/session/placeholder/variable; model: the construction call
    construction: Optional[cst.Call] = None  # the Keras call, for the import alias


@dataclass
class Factory:
    """A function of this module that builds a Keras model."""

    construction: cst.Call
    returns: bool
    trains: bool
    clears: bool


class RebuiltInLoop(Rule):
    """Something expensive to build is built again on every loop iteration.

    ## What it does
    Flags a loop whose body builds, on every iteration, one of:

    - a Keras model (`Sequential`, `Model`, a subclass, `clone_model`,
      `load_model`, or a function of the module that builds one) used in a
      training or inference loop, or a layer that is then called in the same
      iteration of such a loop;
    - a `tf.function` (`tf.function(...)` or a decorated `def` in the loop)
      that is then called;
    - a TF1 graph: `tf.Graph()`, `Session`, placeholders and variables.

    A rebuilt thing whose arguments depend on the loop (a new model per
    hyperparameter, a new graph per shape) is not reported, except a Keras
    model trained in the loop (a search or cross-validation loop): that one
    is reported when the loop does not call `keras.backend.clear_session()`,
    because every model built keeps adding to Keras' global state (a
    literal loop of fewer than three iterations is left alone). Layers
    collected to build one model, and factory functions that build a
    `tf.function` once, are not reported. One finding per loop, at the
    first thing rebuilt, names everything rebuilt in it.

    ## Why is this bad?
    Building a model, a layer or a graph creates variables and runs
    initialisers; a new `tf.function` is traced again on its first call.
    Done per batch, that work dominates the step: on TF 2.21 on a 2-core CPU
    rebuilding a small model per batch made the loop 6-12x slower. Models
    built in a search loop without `clear_session()` also pile up in
    memory, so each trial gets slower than the last.

    ## Example
    ```python
    import keras

    for params in grid:
        model = keras.Sequential([keras.layers.Dense(params["units"]), keras.layers.Dense(1)])
        model.compile(optimizer="adam", loss="mse")
        model.fit(x, y, epochs=2, verbose=0)
    ```

    ## Use instead
    ```python
    import keras

    for params in grid:
        keras.backend.clear_session()
        model = keras.Sequential([keras.layers.Dense(params["units"]), keras.layers.Dense(1)])
        model.compile(optimizer="adam", loss="mse")
        model.fit(x, y, epochs=2, verbose=0)
    ```

    When nothing the loop builds depends on the loop variables, build it
    once before the loop instead.

    ## Fix safety
    For a model trained in a search or cross-validation loop, the fix
    inserts `keras.backend.clear_session()` (spelled with the module's own
    Keras import) as the first statement of the loop body. It is safe: the
    models of earlier iterations keep working, only Keras' global naming
    and graph state is reset. It is unsafe when the loop also uses a model
    built before the loop or the module runs in TF1 graph mode (resetting
    the graph invalidates what was built in it). Hoisting is never applied
    automatically: whether a rebuilt object may be shared across iterations
    is for the author to decide.
    """

    code = "TFP202"
    name = "rebuilt-in-loop"
    message = "Rebuilt on every iteration of this loop: {things}. {advice}"
    triggers = ("Sequential", "Model", "load_model", "clone_model", "function", "Graph(", "Session(", "placeholder", "layers")
    fixable = True
    # How a verifier can exercise a finding: time the reported loop as
    # written and with the rebuilt object hoisted (or clear_session added).
    verify_roles = {"call_site": "loop", "target": "loop", "measure": "loop"}

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.calls: List[cst.Call] = []
        self.defs: Dict[str, List[cst.FunctionDef]] = {}
        self.class_names: set = set()
        self._factory_cache: Dict[str, Optional[Factory]] = {}

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.defs.setdefault(node.name.value, []).append(node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.class_names.add(node.name.value)

    def finish(self) -> None:
        ctx = self.ctx
        loops = []
        seen = set()
        for node in self._candidates():
            found = enclosing_loops(ctx, node)
            if found and id(found[0]) not in seen:
                seen.add(id(found[0]))
                loops.append(found[0])
        if not loops:
            return
        self.models = ctx.shared(ModelNames)
        self.graph_mode = any(ctx.call_name(n) in TF1_GRAPH_MODE for n in self.calls)
        for loop in loops:
            self._check_loop(loop)

    def _candidates(self):
        """Calls and defs that might be rebuilt things (cheap, by name only)."""
        ctx = self.ctx
        for call in self.calls:
            func = call.func
            if isinstance(func, cst.Name) and (func.value in self.defs or func.value in self.class_names):
                yield call
            elif (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value == "self"
                and func.attr.value in self.defs
            ):
                yield call
            else:
                qual = ctx.call_name(call)
                if qual is not None and (
                    qual in TF1_BUILDERS or qual == TF_FUNCTION or qual.startswith("keras.") and is_model_construction(ctx, call)
                    or qual.startswith("keras.layers.")
                ):
                    yield call
        for found in self.defs.values():
            for func in found:
                if func.decorators and decorator_call(ctx, func) is not None:
                    yield func

    # -- factories -----------------------------------------------------
    def _factory(self, name: str) -> Optional[Factory]:
        if name not in self._factory_cache:
            found = self.defs.get(name, [])
            self._factory_cache[name] = self._analyse_factory(found[0]) if len(found) == 1 else None
        return self._factory_cache[name]

    def _analyse_factory(self, func: cst.FunctionDef) -> Optional[Factory]:
        construction = None
        returns = trains = clears = False
        model_names = set()
        for node in descendants(func.body, skip_scopes=True):
            if isinstance(node, cst.Call):
                if construction is None and self.models.is_model_expr(node):
                    construction = node
                if is_clear_session(self.ctx, node):
                    clears = True
                if isinstance(node.func, cst.Attribute) and node.func.attr.value in TRAINING_METHODS:
                    trains = True
            elif isinstance(node, cst.Assign) and self.models.is_model_expr(node.value):
                model_names.update(n for t in node.targets for n in _bound_bases(t.target))
            elif isinstance(node, cst.Return) and node.value is not None:
                value = node.value
                if self.models.is_model_expr(value) or (isinstance(value, cst.Name) and value.value in model_names):
                    returns = True
        if construction is not None and (returns or trains):
            return Factory(construction, returns, trains, clears)
        return None

    def _factory_of(self, call: cst.Call) -> Optional[Factory]:
        func = call.func
        if isinstance(func, cst.Name) and func.value in self.defs:
            return self._factory(func.value)
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            if func.attr.value in self.defs:
                return self._factory(func.attr.value)
        return None

    # -- one loop --------------------------------------------------------
    def _check_loop(self, loop: cst.CSTNode) -> None:
        ctx = self.ctx
        items: List[Item] = []
        clears = False
        calls: List[cst.Call] = []
        for node in _own_body(loop):
            if isinstance(node, cst.FunctionDef):
                if decorator_call(ctx, node) is not None:
                    items.append(Item("function", node, f"a tf.function (`@tf.function def {node.name.value}`)", node.name.value))
                continue
            if not isinstance(node, cst.Call):
                continue
            calls.append(node)
            if is_clear_session(ctx, node):
                clears = True
            item = self._item(node)
            if item is not None:
                items.append(item)
            factory = self._factory_of(node)
            if factory is not None and factory.clears:
                clears = True
        if not items:
            return
        clears = clears or self._enclosing_loop_clears(loop)
        body_calls = [n for n in descendants(loop.body, skip_scopes=True) if isinstance(n, cst.Call)]
        varying = varying_names(loop, lambda v: self._stable_value(v))
        reported: List[Item] = []
        search = []
        for item in items:
            if item.kind == "model":
                if clears:
                    continue
                factory = self._factory_of(item.node)
                trained = (factory is not None and factory.trains) or (
                    item.bound is not None and _called_on(body_calls, item.bound, TRAINING_METHODS)
                )
                if trained:
                    if self._few_iterations(loop):
                        continue
                    search.append(item)
                    reported.append(item)
                elif (
                    self._independent(item.node, varying)
                    and self._used(item, body_calls)
                    and self._is_step_loop(loop, body_calls)
                ):
                    reported.append(item)
            elif item.kind == "layer":
                if (
                    not clears
                    and self._independent(item.node, varying)
                    and self._used(item, body_calls)
                    and self._is_step_loop(loop, body_calls)
                ):
                    reported.append(item)
            elif item.kind == "function":
                if self._independent(item.node, varying) and self._used(item, body_calls):
                    reported.append(item)
        tf1 = [i for i in items if i.kind == "tf1"]
        if any(i.detail != "variable" for i in tf1) and all(self._independent(i.node, varying) for i in tf1):
            if self._targets_only_fed(loop):
                reported.extend(tf1)
        if not reported:
            return
        reported.sort(key=lambda i: (ctx.position(i.node).start.line, ctx.position(i.node).start.column))
        things = _describe(reported, ctx)
        fix = None
        if search:
            prefix = self._clear_session_prefix(search[0].construction)
            advice = (
                "Building a new model each iteration is the point here, but Keras keeps every one in its global "
                f"state and memory grows: call `{prefix or 'keras.backend'}.clear_session()` at the start of each iteration"
            )
            others = [i for i in reported if i not in search]
            if others:
                advice += "; hoist the rest out of the loop (its arguments do not depend on the loop)"
            if prefix is not None:
                fix = self._clear_session_fix(loop, prefix)
        elif all(i.kind == "tf1" for i in reported):
            advice = "Build the graph and session once before the loop and feed each iteration's data through `feed_dict`"
        else:
            advice = "Hoist it out of the loop: its arguments do not depend on the loop" if len(reported) == 1 else (
                "Hoist them out of the loop: their arguments do not depend on the loop"
            )
        self.report(reported[0].node, things=things, advice=advice, fix=fix)

    def _item(self, call: cst.Call) -> Optional[Item]:
        ctx = self.ctx
        qual = ctx.call_name(call) or ""
        bound = _bound_name(ctx, call)
        spelled = dotted(call.func) or "?"
        if self.models.is_model_expr(call):
            return Item("model", call, f"a Keras model (`{spelled}()`)", bound, construction=call)
        factory = self._factory_of(call)
        if factory is not None:
            return Item("model", call, f"a Keras model (`{spelled}()`)", bound, construction=factory.construction)
        if qual.startswith("keras.layers.") and qual.rsplit(".", 1)[-1][:1].isupper() and not qual.endswith("Input"):
            return Item("layer", call, f"a layer (`{spelled}()`)", bound)
        if qual == TF_FUNCTION:
            return Item("function", call, f"a tf.function (`{spelled}()`)", bound)
        kind = TF1_BUILDERS.get(qual)
        if kind is not None:
            return Item("tf1", call, spelled, bound, detail=kind)
        return None

    def _stable_value(self, value: cst.BaseExpression) -> bool:
        """A value that is the same every iteration when its arguments are."""
        if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)):
            return True
        # tf.Graph().as_default() and the like: look at the innermost call.
        while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and isinstance(value.func.value, cst.Call):
            value = value.func.value
        return isinstance(value, cst.Call) and self._item(value) is not None

    def _independent(self, node: cst.CSTNode, varying: set) -> bool:
        if isinstance(node, cst.FunctionDef):
            used = names_used(node.body) | {n for d in node.decorators for n in names_used(d.decorator)}
            used -= _locals_of(node)
        else:
            used = set()
            for arg in node.args:
                used |= names_used(arg.value)
            if isinstance(node.func, cst.Attribute):
                used |= names_used(node.func.value)
        return not (used & varying)

    def _used(self, item: Item, body_calls: List[cst.Call]) -> bool:
        """Called or run later in the same iteration."""
        parent = self.ctx.parent(item.node)
        if isinstance(parent, cst.Call) and parent.func is item.node:
            return True
        if item.bound is None:
            return False
        for call in body_calls:
            func = call.func
            if isinstance(func, cst.Name) and func.value == item.bound:
                return True
            if isinstance(func, cst.Attribute) and dotted(func.value) == item.bound and func.attr.value in USING_METHODS:
                return True
        return False

    def _is_step_loop(self, loop: cst.CSTNode, body_calls: List[cst.Call]) -> bool:
        for call in body_calls:
            if self.ctx.call_name(call) == "tensorflow.GradientTape":
                return True
            if isinstance(call.func, cst.Attribute) and call.func.attr.value in STEP_MARKERS:
                return True
        return False

    def _targets_only_fed(self, loop: cst.CSTNode) -> bool:
        """The loop variables reach the graph only through ``sess.run(...)`` / ``.eval(...)``."""
        if not isinstance(loop, cst.For):
            return True
        targets = set(target_names(loop.target))
        fed = set()
        for node in descendants(loop.body, skip_scopes=True):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in RUNNERS:
                for arg in node.args:
                    fed.update(id(n) for n in [arg.value, *descendants(arg.value)])
        for node in descendants(loop.body, skip_scopes=True):
            if isinstance(node, cst.Name) and node.value in targets and id(node) not in fed:
                return False
        return True

    def _few_iterations(self, loop: cst.CSTNode) -> bool:
        """A literal loop of fewer than three iterations: little to accumulate."""
        iterable = getattr(loop, "iter", None)
        if isinstance(iterable, (cst.List, cst.Tuple, cst.Set)):
            return len(iterable.elements) < 3
        return False

    def _enclosing_loop_clears(self, loop: cst.CSTNode) -> bool:
        for outer in _enclosing(self.ctx, loop):
            for node in descendants(outer.body, skip_scopes=True):
                if isinstance(node, cst.Call) and is_clear_session(self.ctx, node):
                    return True
        return False

    # -- fix -----------------------------------------------------------
    def _clear_session_prefix(self, construction: Optional[cst.Call]) -> Optional[str]:
        """``keras.backend`` spelled from the import the model was built with."""
        if construction is None:
            return None
        head = (dotted(construction.func) or "").split(".", 1)[0]
        full = self.ctx.imports.aliases.get(head)
        if full is None:
            return None
        root = "tf_keras" if full.startswith("tf_keras") else "tensorflow" if full.startswith("tensorflow") else "keras"
        aliases = self.ctx.imports.aliases
        for local, target in aliases.items():
            if "." in local:
                continue
            if target in (f"{root}.backend", f"{root}.keras.backend") or (root == "keras" and target == "keras.api.backend"):
                return local
        for local, target in aliases.items():
            if "." in local:
                continue
            if target == root:
                return f"{local}.keras.backend" if root == "tensorflow" else f"{local}.backend"
            if root == "tensorflow" and target == "tensorflow.keras":
                return f"{local}.backend"
        return None

    def _clear_session_fix(self, loop: cst.CSTNode, prefix: str) -> Optional[Fix]:
        ctx = self.ctx
        body = loop.body
        if not isinstance(body, cst.IndentedBlock) or not body.body:
            return None
        first = body.body[0]
        line = ctx.position(first).start.line
        indent = ctx.indentation(first)
        safety = SAFE
        assigned = set()
        for node in descendants(body, skip_scopes=True):
            if isinstance(node, cst.Assign):
                for t in node.targets:
                    assigned.update(_bound_bases(t.target))
        outer_models = {n for n in self.models.names if "." not in n} - assigned
        if self.graph_mode or (names_used(body) & outer_models):
            safety = UNSAFE
        edit = ctx.insert_lines(line, f"{indent}{prefix}.clear_session()")
        return Fix((edit,), safety, "Call clear_session() at the start of each iteration")


def _own_body(loop: cst.CSTNode):
    """Nodes run once per iteration of ``loop`` and of no loop inside it.

    Nested loops contribute their header only (their body belongs to them);
    nested functions and classes are yielded but not entered.
    """
    stack = list(reversed(children(loop.body)))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, LOOP_TYPES):
            header = [node.iter] if isinstance(node, cst.For) else [node.test]
            stack.extend(reversed(header))
            continue
        if isinstance(node, COMPREHENSION_TYPES):
            continue  # a comprehension is its own loop
        stack.extend(reversed(children(node)))


def _enclosing(ctx, loop: cst.CSTNode):
    for parent in ctx.ancestors_of(loop):
        if isinstance(parent, SCOPE_TYPES):
            return
        if isinstance(parent, LOOP_TYPES):
            yield parent


def _bound_name(ctx, call: cst.Call) -> Optional[str]:
    parent = ctx.parent(call)
    if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
        return dotted(parent.targets[0].target)
    if isinstance(parent, cst.WithItem) and parent.asname is not None:
        return dotted(parent.asname.name)
    return None


def _called_on(calls: List[cst.Call], name: str, methods) -> bool:
    return any(
        isinstance(c.func, cst.Attribute) and c.func.attr.value in methods and dotted(c.func.value) == name for c in calls
    )


def _locals_of(func: cst.FunctionDef) -> set:
    names = {p.name.value for p in [*func.params.params, *func.params.posonly_params, *func.params.kwonly_params]}
    for star in (func.params.star_arg, func.params.star_kwarg):
        if isinstance(star, cst.Param):
            names.add(star.name.value)
    for node in descendants(func.body):
        if isinstance(node, cst.Assign):
            for t in node.targets:
                names.update(_bound_bases(t.target))
        elif isinstance(node, (cst.For, cst.CompFor)):
            names.update(target_names(node.target))
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            names.update(_bound_bases(node.asname.name))
    return names


def _describe(items: List[Item], ctx) -> str:
    parts = []
    tf1 = [i for i in items if i.kind == "tf1"]
    for item in items:
        line = ctx.position(item.node).start.line
        if item.kind == "tf1":
            if item is not tf1[0]:
                continue
            counts: Dict[str, int] = {}
            for i in tf1:
                counts[i.detail] = counts.get(i.detail, 0) + 1
            bits = [f"{n} {kind}{'s' if n > 1 else ''}" if n > 1 else f"a {kind}" for kind, n in counts.items()]
            parts.append(f"a TF1 graph ({', '.join(bits)}; line {line})")
        else:
            parts.append(f"{item.label} on line {line}")
    return ", ".join(parts)
