"""TFP202 rebuilt-in-loop."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Set, Tuple, Union

from tflint_perf.analysis.callers import Callers, enclosing_function
from tflint_perf.analysis.functions import TF_FUNCTION, decorator_call
from tflint_perf.analysis.keras_models import (
    OTHER_PREDICTORS,
    Factory,
    ModelNames,
    is_model_construction,
)
from tflint_perf.analysis.loop_flow import MUTATORS
from tflint_perf.analysis.loops import (
    COMPREHENSION_TYPES,
    LOOP_TYPES,
    SCOPE_TYPES,
    enclosing_loops,
    names_used,
    target_names,
)
from tflint_perf.analysis.steps import (
    TF1_GRAPH_MODE,
    _bound_bases,
    import_insertion_line,
    is_clear_session,
    tensorflow_alias,
    varying_names,
)
from tflint_perf.analysis.tf1_graphs import GraphBuilders, adds_ops, graph_mode, runs_session
from tflint_perf.engine import cst
from tflint_perf.engine.names import ImportTable, canonical, dotted
from tflint_perf.engine.rule import SAFE, UNSAFE, Fix, Rule
from tflint_perf.engine.verification import Rewrite, Verification
from tflint_perf.engine.walk import children, descendants

TF1_BUILDERS = {
    "tensorflow.Graph": "graph",
    "tensorflow.Session": "session",
    "tensorflow.InteractiveSession": "session",
    "tensorflow.placeholder": "placeholder",
    "tensorflow.Variable": "variable",
    "tensorflow.get_variable": "variable",
}
TRAINING_METHODS = frozenset({"fit", "fit_generator", "evaluate", "evaluate_generator"})
USING_METHODS = frozenset(
    {"predict", "predict_on_batch", "train_on_batch", "test_on_batch", "evaluate", "__call__"}
)
STEP_MARKERS = frozenset(
    {
        "apply_gradients",
        "minimize",
        "train_on_batch",
        "test_on_batch",
        "predict_on_batch",
        "predict",
        "numpy",
    }
)
RUNNERS = frozenset({"run", "eval"})
# Calls that give what follows a fresh graph.
NEW_GRAPHS = frozenset({"tensorflow.Graph", "tensorflow.reset_default_graph"})
# Text a trial function's training leaves in the source (a cheap pre-check).
TRAINING_WORDS = (".fit", ".evaluate", "apply_gradients", "train_on_batch", ".minimize")
# A model loaded with new weights per iteration could be built once.
WEIGHT_LOADERS = frozenset({"load_weights", "set_weights"})
GROWTH_ADVICE = (
    "the graph grows with every step and each `sess.run` gets slower; create the ops once "
    "before the loop (feed what changes through a placeholder) and only run them inside"
)
# import statement, the name it binds, and keras.backend spelled with it
OWN_IMPORTS = {
    "tensorflow": ("tf", "import tensorflow as tf", "tf.keras.backend"),
    "keras": ("keras", "import keras", "keras.backend"),
    "tf_keras": ("tf_keras", "import tf_keras", "tf_keras.backend"),
}


@dataclass
class Item:
    kind: str  # model, layer, function, tf1
    node: Union[cst.Call, cst.FunctionDef]  # a def only for a decorated function
    label: str
    bound: Optional[str] = None  # the name it is assigned to
    detail: str = ""  # tf1: graph/session/placeholder/variable; model: the construction call
    construction: Optional[cst.Call] = None  # the Keras call, for the import alias


class RebuiltInLoop(Rule):
    """Something expensive to build is built again on every loop iteration.

    ## What it does
    Flags a loop whose body builds, on every iteration, one of:

    - a Keras model (`Sequential`, `Model`, a subclass, `clone_model`,
      `load_model`, a function of the module that builds one, or a library
      factory whose result gets `compile()`/`fit(..., epochs=...)` in the
      loop) used in a training or inference loop, or rebuilt only to
      `load_weights` into it; a layer or a `tf.Variable` created in the step
      loop and used there;
    - a `tf.function` (`tf.function(...)` or a decorated `def` in the loop)
      that is then called;
    - a TF1 graph: `tf.Graph()`, `Session`, placeholders and variables;
    - TF1 graph ops in a loop that runs the session (`sess.run(tf.add(x, y))`,
      `tf.nn.softmax(...)` per test batch, a function of the module that
      builds ops, like `sess.run(G(z))`, and `sess.run(G(z, reuse=True))`
      with a `G` that cannot be read, imported or defined in a notebook cell
      that does not parse): the graph grows on every step. One finding per
      statement;
    - TF1 ops created by a function of the module that also runs the session
      (`def accuracy(x): return sess.run(tf.reduce_mean(...), ...)`), called
      once per iteration of a loop: reported in the function, at its
      heaviest op (`tf.gradients`, an optimizer) or its first. A function
      that builds a whole graph per call (placeholders, variables: a trial
      per configuration) is reported at the call in the loop. Not when the
      function builds in a `tf.Graph()` of its own or either resets the
      default graph, nor for an op built once and kept
      (`if self.op is None: self.op = ...`).

    A rebuilt thing whose arguments depend on the loop (a new model per
    hyperparameter, a new graph per shape) is not reported, except a Keras
    model trained in the loop (a search or cross-validation loop): that one
    is reported when the loop does not call `keras.backend.clear_session()`,
    because every model built keeps adding to Keras' global state (a
    literal loop of fewer than three iterations is left alone). The same
    holds for a trial function, one that builds and trains a model, called
    once per iteration of a loop (directly or through one helper): it is
    reported at the model it builds.

    Not reported: models kept in a list on purpose (an ensemble), loops in a
    function that calls `clear_session()` itself, layers collected to build
    one model, factory functions that build a `tf.function` once, and TF1
    graphs built once before a serving loop or unrolled over time steps
    before any `sess.run`. One finding per loop, at the first thing rebuilt,
    names everything rebuilt in it.

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
    inserts `keras.backend.clear_session()` as the first statement of the
    loop body (for a trial function: of the function). It is spelled with
    an import of the model's Keras bound above that line (in a notebook: in
    an earlier cell or the same one); without one, the fix adds its own
    import (`import tensorflow as tf`) to the module's imports or right
    above the loop. It is safe: the models of earlier iterations keep
    working, only Keras' global naming and graph state is reset. It is
    unsafe when the loop also uses a model built before the loop or the
    module runs in TF1 graph mode (resetting the graph invalidates what was
    built in it). Hoisting is never applied automatically: whether a rebuilt
    object may be shared across iterations is for the author to decide.
    """

    code = "TFP202"
    name = "rebuilt-in-loop"
    message = "Rebuilt on every iteration of this loop: {things}. {advice}"
    triggers = (
        "Sequential",
        "Model",
        "load_model",
        "clone_model",
        "function",
        "Graph(",
        "Session(",
        "placeholder",
        "layers",
        "epochs",
        "compile(",
    )

    @classmethod
    def screen(cls, facts) -> bool:
        # Every rebuild this rule reports happens inside a loop of the module.
        return facts.has_loop()

    fixable = True
    fix_summary = "safe / unsafe"  # the README's Fix column
    # For --verify: without a fix, timed against the construction hoisted out of
    # the loop (a verification-only rewrite).
    verification = Verification(rewrite=Rewrite.HOIST)

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.calls: List[cst.Call] = []
        self.defs: Dict[str, List[cst.FunctionDef]] = {}
        self.class_names: set = set()

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.defs.setdefault(node.name.value, []).append(node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.class_names.add(node.name.value)

    def finish(self) -> None:
        ctx = self.ctx
        self.models = ctx.shared(ModelNames)
        self.graph_mode = any(ctx.call_name(n) in TF1_GRAPH_MODE for n in self.calls)
        self.sessions = graph_mode(ctx)
        source = ctx.source
        self.fits = ("fit(" in source or "compile(" in source) and any(
            _keras_training_call(c) for c in self.calls
        )
        self.builders = ctx.shared(GraphBuilders) if self.sessions else None
        loops = []
        seen = set()
        for node in self._candidates():
            found = enclosing_loops(ctx, node)
            if found and id(found[0]) not in seen:
                seen.add(id(found[0]))
                loops.append(found[0])
        for loop in loops:
            self._check_loop(loop)
        self._check_trials()
        if self.sessions:
            self._check_session_helpers()

    def _candidates(self):
        """Calls and defs that might be rebuilt things (cheap, by name only)."""
        ctx = self.ctx
        for call in self.calls:
            func = call.func
            if isinstance(func, cst.Name) and (
                func.value in self.defs or func.value in self.class_names
            ):
                yield call
            elif (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value == "self"
                and func.attr.value in self.defs
            ):
                yield call
            elif (self.fits and _keras_training_call(call)) or (
                self.sessions and (adds_ops(ctx, call) or self._unseen_builder(call))
            ):
                yield call
            else:
                qual = ctx.call_name(call)
                if qual is not None and (
                    qual in TF1_BUILDERS
                    or qual == TF_FUNCTION
                    or qual.startswith("keras.")
                    and is_model_construction(ctx, call)
                    or qual.startswith("keras.layers.")
                ):
                    yield call
        for found in self.defs.values():
            for func in found:
                if func.decorators and decorator_call(ctx, func) is not None:
                    yield func

    # -- factories -----------------------------------------------------
    def _factory_of(self, call: cst.Call) -> Optional[Factory]:
        return self.models.factory_of(call)

    # -- one loop --------------------------------------------------------
    def _check_loop(self, loop: Union[cst.For, cst.While]) -> None:
        body_calls = [
            n for n in descendants(loop.body, skip_scopes=True) if isinstance(n, cst.Call)
        ]
        items, clears = self._loop_items(loop, body_calls)
        grows = self._graph_growth(loop, items, body_calls)
        if grows:
            items = [i for i in items if i.kind != "tf1"]
        if not items:
            return
        clears = clears or self._enclosing_loop_clears(loop) or self._scope_clears(loop)
        varying = varying_names(loop, lambda v: self._stable_value(v))
        reported: List[Item] = []
        search: List[Item] = []
        self.reloads = False
        for item in items:
            verdict = self._judge(item, loop, clears, body_calls, varying)
            if verdict is not None:
                reported.append(item)
                if verdict == "search":
                    search.append(item)
                self.reloads = self.reloads or verdict == "reload"
        tf1 = [i for i in items if i.kind == "tf1"]
        if any(i.detail != "variable" for i in tf1) and all(
            self._independent(i.node, varying) for i in tf1
        ):
            if self._targets_only_fed(loop):
                reported.extend(tf1)
        if reported:
            self._report_loop(loop, reported, search)

    def _loop_items(
        self, loop: Union[cst.For, cst.While], body_calls: List[cst.Call]
    ) -> Tuple[List[Item], bool]:
        """What ``loop`` builds on every iteration, and whether it clears the session."""
        ctx = self.ctx
        items: List[Item] = []
        clears = False
        for node in _own_body(loop):
            if isinstance(node, cst.FunctionDef):
                if decorator_call(ctx, node) is not None:
                    label = f"a tf.function (`@tf.function def {node.name.value}`)"
                    items.append(Item("function", node, label, node.name.value))
                continue
            if not isinstance(node, cst.Call):
                continue
            if is_clear_session(ctx, node):
                clears = True
            item = self._item(node)
            if item is not None:
                items.append(item)
            factory = self._factory_of(node)
            if factory is not None and factory.clears:
                clears = True
        if self.fits:
            items.extend(self._fitted_unknown_models(loop, items, body_calls))
        return items, clears

    def _judge(self, item: Item, loop, clears: bool, body_calls, varying) -> Optional[str]:
        """``"search"`` for a model trained per iteration, ``"hoist"`` for a rebuilt
        thing that could be built once, None when it is fine here."""
        if item.kind == "model":
            if clears:
                return None
            assert isinstance(item.node, cst.Call)  # a model item is a call
            factory = self._factory_of(item.node)
            if factory is not None and factory.trains and not factory.returns:
                return None  # a trial function: reported in it (_check_trials)
            trained = (factory is not None and factory.trains) or (
                item.bound is not None and _called_on(body_calls, item.bound, TRAINING_METHODS)
            )
            if trained:
                if self._few_iterations(loop) or self._kept(item, loop):
                    return None
                return "search"
            if not self._independent(item.node, varying):
                return None
            if self._used(item, body_calls) and self._is_step_loop(loop, body_calls):
                return "hoist"
            # Built again only to load other weights into it: build once, load per iteration.
            if item.bound is not None and _called_on(body_calls, item.bound, WEIGHT_LOADERS):
                return "reload"
            return None
        if item.kind in ("layer", "variable"):
            if (
                not clears
                and self._independent(item.node, varying)
                and (item.kind == "variable" or self._used(item, body_calls))
                and self._is_step_loop(loop, body_calls)
            ):
                return "hoist"
            return None
        if item.kind == "function":
            if self._independent(item.node, varying) and self._used(item, body_calls):
                return "hoist"
        return None

    def _report_loop(self, loop, reported: List[Item], search: List[Item]) -> None:
        ctx = self.ctx
        reported.sort(
            key=lambda i: (ctx.position(i.node).start.line, ctx.position(i.node).start.column)
        )
        things = _describe(reported, ctx)
        fix = None
        if search:
            first = _first_statement(loop) or loop
            line = ctx.position(first).start.line
            scope = enclosing_function(ctx, loop)
            spelling = self._clear_session_spelling(search[0].construction, line, scope)
            prefix = spelling[0] if spelling else None
            advice = (
                "Building a new model each iteration is the point here, but Keras keeps every one in its global "
                f"state and memory grows: call `{prefix or 'keras.backend'}.clear_session()` at the start of each iteration"
            )
            others = [i for i in reported if i not in search]
            if others:
                advice += (
                    "; hoist the rest out of the loop (its arguments do not depend on the loop)"
                )
            if spelling is not None:
                fix = self._clear_session_fix(loop.body, spelling, loop)
        elif all(i.kind == "tf1" for i in reported):
            advice = "Build the graph and session once before the loop and feed each iteration's data through `feed_dict`"
        elif self.reloads and len(reported) == 1:
            advice = "Build it once before the loop and only load the weights (`load_weights`) inside: its arguments do not depend on the loop"
        else:
            advice = (
                "Hoist it out of the loop: its arguments do not depend on the loop"
                if len(reported) == 1
                else ("Hoist them out of the loop: their arguments do not depend on the loop")
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
            return Item(
                "model",
                call,
                f"a Keras model (`{spelled}()`)",
                bound,
                construction=factory.construction,
            )
        if (
            qual.startswith("keras.layers.")
            and qual.rsplit(".", 1)[-1][:1].isupper()
            and not qual.endswith("Input")
        ):
            return Item("layer", call, f"a layer (`{spelled}()`)", bound)
        if qual == TF_FUNCTION:
            return Item("function", call, f"a tf.function (`{spelled}()`)", bound)
        if qual == "tensorflow.Variable" and not self.sessions:
            return Item("variable", call, f"a variable (`{spelled}()`)", bound)
        kind = TF1_BUILDERS.get(qual)
        if kind is not None:
            return Item("tf1", call, spelled, bound, detail=kind)
        return None

    def _stable_value(self, value: cst.BaseExpression) -> bool:
        """A value that is the same every iteration when its arguments are."""
        if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)):
            return True
        # tf.Graph().as_default() and the like: look at the innermost call.
        while (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and isinstance(value.func.value, cst.Call)
        ):
            value = value.func.value
        return isinstance(value, cst.Call) and self._item(value) is not None

    def _independent(self, node: Union[cst.Call, cst.FunctionDef], varying: set) -> bool:
        if isinstance(node, cst.FunctionDef):
            used = names_used(node.body) | {
                n for d in node.decorators for n in names_used(d.decorator)
            }
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
            if (
                isinstance(func, cst.Attribute)
                and dotted(func.value) == item.bound
                and func.attr.value in USING_METHODS
            ):
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
        fed: Set[int] = set()
        for node in descendants(loop.body, skip_scopes=True):
            if (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Attribute)
                and node.func.attr.value in RUNNERS
            ):
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

    def _scope_clears(self, loop: cst.CSTNode) -> bool:
        """The function around the loop calls ``clear_session()``: it manages the session
        itself (once per call of a trial function)."""
        func = enclosing_function(self.ctx, loop)
        if func is None:
            return False
        return any(
            isinstance(n, cst.Call) and is_clear_session(self.ctx, n)
            for n in descendants(func.body, skip_scopes=True)
        )

    def _kept(self, item: Item, loop: Union[cst.For, cst.While]) -> bool:
        """The model is stored in a collection in the loop: an ensemble, kept on purpose."""

        def is_model(expr) -> bool:
            if isinstance(expr, (cst.List, cst.Tuple)):
                return any(is_model(e.value) for e in expr.elements)
            return expr is item.node or (item.bound is not None and dotted(expr) == item.bound)

        for node in descendants(loop.body, skip_scopes=True):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                if node.func.attr.value in MUTATORS and any(is_model(a.value) for a in node.args):
                    return True
            elif isinstance(node, cst.Assign) and is_model(node.value):
                if any(isinstance(t.target, cst.Subscript) for t in node.targets):
                    return True
            elif isinstance(node, cst.AugAssign) and is_model(node.value):
                return True
        return False

    def _fitted_unknown_models(self, loop, items: List[Item], body_calls) -> List[Item]:
        """``m = compiled_tcn(...)`` (a library's factory) then ``m.compile()`` or
        ``m.fit(..., epochs=...)`` in the same loop: a Keras model built per iteration."""
        known = {id(i.node) for i in items}
        trained = {dotted(c.func.value) for c in body_calls if _keras_training_call(c)}
        out = []
        for node in _own_body(loop):
            if not (isinstance(node, cst.Assign) and isinstance(node.value, cst.Call)):
                continue
            call = node.value
            bound = _bound_name(self.ctx, call)
            if id(call) in known or bound is None or bound not in trained:
                continue
            qual = self.ctx.call_name(call) or ""
            if qual.split(".", 1)[0] in OTHER_PREDICTORS or qual.startswith(
                ("numpy.", "tensorflow.")
            ):
                continue
            if isinstance(call.func, cst.Attribute) and dotted(call.func.value) == bound:
                continue  # m = m.something(...)
            label = f"a Keras model (`{dotted(call.func) or '?'}()`)"
            out.append(Item("model", call, label, bound))
        return out

    # -- TF1 graphs that grow ------------------------------------------------
    def _graph_growth(self, loop: Union[cst.For, cst.While], items: List[Item], body) -> bool:
        """Report ops created in a loop that runs the session, one finding per statement."""
        if not self.sessions or any(
            i.kind == "tf1" and i.detail in ("graph", "session") for i in items
        ):
            return False
        if not any(runs_session(n) for n in body):
            return False
        if any(self.ctx.call_name(n) == "tensorflow.reset_default_graph" for n in body):
            return False
        assert self.builders is not None  # set for a module that runs sessions
        by_statement: Dict[int, List[cst.Call]] = {}
        order = []
        for node in _own_body(loop):
            if isinstance(node, cst.Call) and (
                adds_ops(self.ctx, node)
                or self.builders.builder(node) is not None
                or self._unseen_builder(node)
            ):
                stmt = _statement_of(self.ctx, node)
                if id(stmt) not in by_statement:
                    order.append(id(stmt))
                by_statement.setdefault(id(stmt), []).append(node)
        line = self.ctx.line_ref(self.ctx.position(loop).start.line)
        for key in order:
            calls = by_statement[key]
            message = f"{self._ops_words(calls)} on every iteration of the loop at {line}, which runs the session: {GROWTH_ADVICE}"
            self.report(calls[0], message=message)
        return bool(order)

    def _unseen_builder(self, call: cst.Call) -> bool:
        """``sess.run(generator(z, reuse=True))`` where ``generator`` is not a def the
        linter can read (imported, or in a notebook cell that does not parse): a call
        that takes a variable scope's ``reuse`` flag and whose result the session
        fetches builds ops."""
        func = call.func
        if not isinstance(func, cst.Name) or func.value in self.defs:
            return False
        if func.value in self.class_names:
            return False
        if not any(a.keyword is not None and a.keyword.value == "reuse" for a in call.args):
            return False
        arg = self.ctx.parent(call)
        runner = self.ctx.parent(arg) if isinstance(arg, cst.Arg) else None
        if not (isinstance(runner, cst.Call) and runs_session(runner) and arg is runner.args[0]):
            return False
        return not any(
            func.value in _bound_bases(t.target)
            for node in self.ctx.nodes(cst.Assign)
            for t in node.targets
        )

    def _ops_words(self, calls: List[cst.Call]) -> str:
        names = []
        builds = False
        assert self.builders is not None  # (called from _graph_growth)
        for call in calls:
            spelled = f"`{dotted(call.func) or '?'}()`"
            builds = builds or self.builders.builder(call) is not None
            if spelled not in names:
                names.append(spelled)
        shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        if builds and len(names) == 1:
            return f"{shown} builds new TF1 graph ops"
        return f"{shown} add{'s' if len(names) == 1 else ''} new ops to the TF1 graph"

    # -- TF1 helpers that build ops and run them -------------------------------
    def _check_session_helpers(self) -> None:
        """``def evaluate(): return sess.run(tf.reduce_mean(...))`` (ops built, then run,
        on every call) called once per iteration of a loop: the default graph grows."""
        callers = None
        for func in self.ctx.nodes(cst.FunctionDef):
            ops = [
                n
                for n in _own_body(func)
                if isinstance(n, cst.Call) and adds_ops(self.ctx, n) and not self._lazy(n, func)
            ]
            if not ops or not self._runs_in_default_graph(func):
                continue
            callers = callers or self.ctx.shared(Callers)
            site = next((c for c in callers.calls_of(func) if self._graph_loop(c)), None)
            if site is not None:
                self._report_helper(func, ops, site, self._graph_loop(site))

    def _lazy(self, call: cst.Call, func: cst.FunctionDef) -> bool:
        """Built once and kept: ``if self.op is None: self.op = tf.assign(...)``."""
        for parent in self.ctx.ancestors_of(call):
            if parent is func:
                return False
            if isinstance(parent, cst.If):
                unset = _unset_test(parent.test)
                if unset is not None and unset in _assigned_in(parent.body):
                    return True
        return False

    def _runs_in_default_graph(self, func: cst.FunctionDef) -> bool:
        """Runs the session, never in a graph of its own or after resetting the default one."""
        runs = False
        for node in descendants(func.body, skip_scopes=True):
            if not isinstance(node, cst.Call):
                continue
            if self.ctx.call_name(node) in NEW_GRAPHS:
                return False
            runs = runs or runs_session(node)
        return runs

    def _graph_loop(self, call: cst.Call):
        """The loop running ``call`` once per iteration, unless it gives each iteration a
        new graph (``tf.reset_default_graph()``, ``with tf.Graph().as_default()``)."""
        loops = enclosing_loops(self.ctx, call)
        if not loops:
            return None
        for node in descendants(loops[0].body, skip_scopes=True):
            if isinstance(node, cst.Call) and self.ctx.call_name(node) in NEW_GRAPHS:
                return None
        return loops[0]

    def _report_helper(self, func, ops: List[cst.Call], site: cst.Call, loop) -> None:
        ctx = self.ctx
        name = func.name.value
        builds = [
            TF1_BUILDERS[q]
            for q in map(ctx.call_name, ops)
            if q is not None and TF1_BUILDERS.get(q) in ("placeholder", "variable")
        ]
        loop_line = ctx.line_ref(ctx.position(loop).start.line)
        if builds:  # a whole model graph per call: a new graph per trial is the point
            kinds = " and ".join(f"{k}s" for k in dict.fromkeys(builds))
            tf = tensorflow_alias(ctx) or "tf"
            if "compat.v1" in ctx.source:
                tf += ".compat.v1"
            message = (
                f"`{name}()` builds a new TF1 graph ({kinds}) in the default graph on every "
                f"call, and the loop at {loop_line} calls it once per iteration: the default "
                "graph keeps every copy and grows from trial to trial; call "
                f"`{tf}.reset_default_graph()` at the start of each iteration, or build each "
                f"one in `with {tf}.Graph().as_default():`"
            )
            self.report(site, message=message)
            return
        anchor = next((c for c in ops if _heavy_op(ctx, c)), ops[0])
        names = list(dict.fromkeys(f"`{dotted(c.func) or '?'}()`" for c in ops))
        shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        message = (
            f"`{name}()` adds new ops to the TF1 graph ({shown}) on every call and runs them, "
            f"and the loop at {loop_line} calls it once per iteration: {GROWTH_ADVICE}"
        ).replace("before the loop", f"outside `{name}()`")
        self.report(anchor, message=message)

    # -- trial functions -------------------------------------------------------
    def _check_trials(self) -> None:
        """A function that builds and trains a model, called once per iteration of a
        loop (directly or through one helper) without ``clear_session()``."""
        if not any(word in self.ctx.source for word in TRAINING_WORDS):
            return
        callers = None
        for func in self._functions_building_models():
            factory = self.models.factory(func.name.value)
            if factory is None or not factory.trains or factory.returns or factory.clears:
                continue
            if enclosing_function(self.ctx, factory.construction) is not func:
                continue
            callers = callers or self.ctx.shared(Callers)
            found = self._trial_loop(func, callers)
            if found is not None:
                self._report_trial(func, factory, *found)

    def _functions_building_models(self):
        """Defs with a model construction directly in their body, in source order."""
        found = {}
        for call in self.calls:
            if self.models.is_model_expr(call):
                func = enclosing_function(self.ctx, call)
                if func is not None:
                    found.setdefault(id(func), func)
        return list(found.values())

    def _trial_loop(self, func, callers: Callers):
        """(loop, helper between) for a loop that runs ``func`` once per iteration."""
        for call in callers.calls_of(func):
            loops = enclosing_loops(self.ctx, call)
            if loops:
                if self._runs_trials(loops[0]):
                    return loops[0], None
                continue
            wrapper = enclosing_function(self.ctx, call)
            if wrapper is None or wrapper is func:
                continue
            for outer in callers.calls_of(wrapper):
                loops = enclosing_loops(self.ctx, outer)
                if loops and self._runs_trials(loops[0]):
                    return loops[0], wrapper
        return None

    def _runs_trials(self, loop) -> bool:
        if self._few_iterations(loop) or self._enclosing_loop_clears(loop):
            return False
        if self._scope_clears(loop):
            return False
        return not any(
            isinstance(n, cst.Call) and is_clear_session(self.ctx, n)
            for n in descendants(loop.body, skip_scopes=True)
        )

    def _report_trial(self, func, factory: Factory, loop, wrapper) -> None:
        ctx = self.ctx
        name = func.name.value
        loop_line = ctx.line_ref(ctx.position(loop).start.line)
        via = f" (through `{wrapper.name.value}()`)" if wrapper is not None else ""
        first = _first_statement(func)
        spelling = self._clear_session_spelling(
            factory.construction, ctx.position(first).start.line
        )
        prefix = spelling[0] if spelling else "keras.backend"
        built = dotted(factory.construction.func) or "?"
        message = (
            f"`{name}()` builds and trains a new Keras model (`{built}()`) on every call, and the "
            f"loop at {loop_line} calls it{via} once per iteration: Keras keeps every model in its "
            f"global state and memory grows from trial to trial; call `{prefix}.clear_session()` "
            f"at the start of `{name}()`"
        )
        fix = self._clear_session_fix(func.body, spelling, func) if spelling else None
        self.report(factory.construction, message=message, fix=fix)

    # -- fix -----------------------------------------------------------
    def _clear_session_spelling(self, construction: Optional[cst.Call], line: int, scope=None):
        """(``keras.backend`` as spelled by an import above ``line`` at module level or
        in ``scope``, the import statement to add when there is none), for the Keras the
        model was built with; else None."""
        root = self._keras_root(construction)
        if root is None:
            return None
        scopes = (None, scope)
        for node in [*self.ctx.nodes(cst.Import), *self.ctx.nodes(cst.ImportFrom)]:
            if self.ctx.position(node).start.line >= line:
                continue
            if enclosing_function(self.ctx, node) not in scopes:
                continue
            prefix = _backend_prefix(_bindings(node), root)
            if prefix is not None:
                return prefix, None
        name, statement, prefix = OWN_IMPORTS[root]
        if not self._can_bind(name, root):
            return None
        return prefix, statement

    def _keras_root(self, construction: Optional[cst.Call]) -> Optional[str]:
        """The Keras a model was built with: ``tensorflow`` (tf.keras), ``keras``, ``tf_keras``."""
        full = None
        if construction is not None:
            head = (dotted(construction.func) or "").split(".", 1)[0]
            full = self.ctx.imports.aliases.get(head)
        if full is None and construction is not None:
            full = self._subclass_base(construction)
        if full is None:  # a library's factory: the Keras this module imports
            imports = self.ctx.imports
            roots = [r for r in ("tensorflow", "keras", "tf_keras") if imports.imports_any(r)]
            full = roots[0] if len(roots) == 1 else None
        if full is None:
            return None
        if full.startswith("tf_keras"):
            return "tf_keras"
        return "tensorflow" if full.startswith("tensorflow") else "keras"

    def _subclass_base(self, construction: cst.Call) -> Optional[str]:
        """For ``ConvN()`` where ``class ConvN(tf.keras.Model)``: the base's import target."""
        if not isinstance(construction.func, cst.Name):
            return None
        for cls in self.ctx.nodes(cst.ClassDef):
            if cls.name.value == construction.func.value:
                for base in cls.bases:
                    head = (dotted(base.value) or "").split(".", 1)[0]
                    if head in self.ctx.imports.aliases:
                        return self.ctx.imports.aliases[head]
        return None

    def _can_bind(self, name: str, full: str) -> bool:
        """A new ``import`` may bind ``name``: nothing else in the file binds it."""
        if self.ctx.imports.aliases.get(name, full) != full:
            return False
        for node in self.ctx.nodes(cst.Assign):
            if any(name in _bound_bases(t.target) for t in node.targets):
                return False
        return name not in self.defs and name not in self.class_names

    def _clear_session_fix(self, block, spelling, owner) -> Optional[Fix]:
        ctx = self.ctx
        prefix, statement = spelling
        first = _first_statement(owner)
        if first is None:
            return None
        line = ctx.position(first).start.line
        indent = ctx.indentation(first)
        assigned = set()
        for node in descendants(block, skip_scopes=True):
            if isinstance(node, cst.Assign):
                for t in node.targets:
                    assigned.update(_bound_bases(t.target))
        outer_models = {n for n in self.models.names if "." not in n} - assigned
        unsafe = self.graph_mode or self.sessions or bool(names_used(block) & outer_models)
        text = f"{indent}{prefix}.clear_session()"
        edits = []
        if statement is not None:
            at = import_insertion_line(ctx)
            if at is not None and at <= line:
                edits.append(ctx.insert_lines(at, statement))
            elif isinstance(owner, LOOP_TYPES):  # right above the loop, in its cell
                above = ctx.position(owner).start.line
                edits.append(ctx.insert_lines(above, f"{ctx.indentation(owner)}{statement}"))
            else:
                text = f"{indent}{statement}\n{text}"
        edits.append(ctx.insert_lines(line, text))
        where = "each iteration" if isinstance(owner, LOOP_TYPES) else f"`{owner.name.value}()`"
        return Fix(
            tuple(edits),
            UNSAFE if unsafe else SAFE,
            f"Call clear_session() at the start of {where}",
        )


def _unset_test(test: cst.BaseExpression) -> Optional[str]:
    """``x is None`` / ``not x`` / ``not hasattr(self, "x")``: the name tested unset."""
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if isinstance(target.operator, cst.Is) and dotted(target.comparator) == "None":
            return dotted(test.left)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = test.expression
        if isinstance(inner, cst.Call) and dotted(inner.func) == "hasattr" and len(inner.args) == 2:
            attr = inner.args[1].value
            if isinstance(attr, cst.SimpleString):
                return f"{dotted(inner.args[0].value)}.{attr.evaluated_value!s}"
        return dotted(inner)
    return None


def _assigned_in(block: cst.CSTNode) -> set:
    return {
        dotted(t.target)
        for node in descendants(block, skip_scopes=True)
        if isinstance(node, cst.Assign)
        for t in node.targets
    }


def _heavy_op(ctx, call: cst.Call) -> bool:
    """An op that adds a whole subgraph: gradients, an optimizer."""
    qual = ctx.call_name(call) or ""
    return qual in ("tensorflow.gradients", "tensorflow.hessians") or qual.endswith("Optimizer")


def _bindings(node) -> dict:
    table = ImportTable()
    if isinstance(node, cst.Import):
        return table._add_import(node)
    return table._add_import_from(node)


def _backend_prefix(bound: dict, root: str) -> Optional[str]:
    """How ``bound`` (one import's names) spells ``keras.backend`` for ``root``."""
    for local, target in bound.items():
        if "." in local:
            continue
        if target in (f"{root}.backend", f"{root}.keras.backend") or (
            root == "keras" and target == "keras.api.backend"
        ):
            return local
    for local, target in bound.items():
        if "." in local:
            continue
        if target == root or (root == "tensorflow" and canonical(target) == "tensorflow"):
            return f"{local}.keras.backend" if root == "tensorflow" else f"{local}.backend"
        if root == "tensorflow" and target == "tensorflow.keras":
            return f"{local}.backend"
    return None


def _keras_training_call(call: cst.Call) -> bool:
    """``m.compile(optimizer=..., loss=...)`` or ``m.fit(..., epochs=...)``: Keras' API."""
    func = call.func
    if not isinstance(func, cst.Attribute) or dotted(func.value) is None:
        return False
    keywords = {a.keyword.value for a in call.args if a.keyword is not None}
    if func.attr.value == "compile":
        return bool(keywords & {"optimizer", "loss"})
    return func.attr.value == "fit" and "epochs" in keywords


def _first_statement(owner):
    """The first statement of a loop's or function's body (after a docstring)."""
    body = owner.body
    if not isinstance(body, cst.IndentedBlock) or not body.body:
        return None
    statements = list(body.body)
    first = statements[0]
    if (
        isinstance(owner, cst.FunctionDef)
        and len(statements) > 1
        and isinstance(first, cst.SimpleStatementLine)
        and isinstance(first.body[0], cst.Expr)
        and isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    ):
        return statements[1]
    return first


def _statement_of(ctx, node):
    for parent in ctx.ancestors_of(node):
        if isinstance(parent, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            return parent
    return node


def _own_body(loop: Union[cst.For, cst.While, cst.FunctionDef]):
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
        isinstance(c.func, cst.Attribute)
        and c.func.attr.value in methods
        and dotted(c.func.value) == name
        for c in calls
    )


def _locals_of(func: cst.FunctionDef) -> set:
    names = {
        p.name.value
        for p in [*func.params.params, *func.params.posonly_params, *func.params.kwonly_params]
    }
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
        line = ctx.line_ref(ctx.position(item.node).start.line)
        if item.kind == "tf1":
            if item is not tf1[0]:
                continue
            counts: Dict[str, int] = {}
            for i in tf1:
                counts[i.detail] = counts.get(i.detail, 0) + 1
            bits = [
                f"{n} {kind}{'s' if n > 1 else ''}" if n > 1 else f"a {kind}"
                for kind, n in counts.items()
            ]
            parts.append(f"a TF1 graph ({', '.join(bits)}; {line})")
        else:
            parts.append(f"{item.label} at {line}")
    return ", ".join(parts)
