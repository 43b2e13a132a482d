"""TFP202 rebuilt-in-loop: one detector per kind of rebuild.

- ``per_batch``: a model, layer, variable or tf.function built on every
  iteration of a step loop (hoist it), a model rebuilt to load weights, and a
  layer built inside ``call()`` on every forward pass;
- ``searches``: a new Keras model trained per iteration (search,
  cross-validation, trial functions) without ``clear_session()``;
- ``graph_growth``: TF1 ops created where the graph runs, helpers that do it
  per call, whole TF1 graphs rebuilt per iteration or per trial.
"""

from __future__ import annotations

from typing import List, Optional

from tflint_perf.analysis.reach import Reach
from tflint_perf.analysis.semantic import BindingKind
from tflint_perf.analysis.testcode import in_test_framework
from tflint_perf.engine import cst
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.rule import Rule
from tflint_perf.engine.verification import Rewrite, Verification

from .common import Built, Facts, Item, Loop
from .graph_growth import GraphGrowth
from .per_batch import PerBatch
from .searches import Searches


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
    message = "Rebuilt on every iteration of this loop: build it once"
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
        "Layer",
    )

    @classmethod
    def screen(cls, facts) -> bool:
        # Every rebuild this rule reports happens inside a loop of the module, or in
        # a layer's call() (a class).
        return facts.has_loop() or "def call" in facts.source

    fixable = True
    fix_summary = "safe / unsafe"  # the README's Fix column
    # For --verify: without a fix, timed against the construction hoisted out of
    # the loop (a verification-only rewrite).
    verification = Verification(rewrite=Rewrite.HOIST)

    def finish(self) -> None:
        ctx = self.ctx
        facts = Facts(self)
        reach: Reach = ctx.shared(Reach)
        per_batch, searches, growth = PerBatch(facts), Searches(facts), GraphGrowth(facts)
        loops: List[Loop] = [*ctx.nodes(cst.For), *ctx.nodes(cst.While)]
        loops.sort(key=lambda n: ctx.span(n)[0])
        for loop in loops:
            items = _outermost([_item(facts, reach, n) for n in facts.own_body(loop)], ctx)
            items += searches.library_models(loop, items)
            grows = facts.graph_mode and growth.check_loop(loop, items)
            if not items:
                continue
            clears = facts.clears(loop)
            judged = searches.check_loop(loop, items, clears)
            rest = [i for i in items if i not in judged]
            per_batch.check_loop(loop, rest, clears)
            if not grows:
                growth.check_rebuilt(loop, rest)
        if facts.graph_mode:
            growth.check_helpers()
        searches.check_trials()
        per_batch.check_forward_passes()
        if ctx.recording:  # for ``tflint-perf why``: what is built outside any loop
            for call in ctx.nodes(cst.Call):
                if not facts.sem.loops_around(call) and facts.item(call) is not None:
                    self.silent(call, Reason.RUNS_ONCE, "built once, in no loop")

    def report(self, node, message=None, fix=None, detail="", **fields) -> None:
        """Test code (a test module, a ``TestCase``) builds models on purpose."""
        if in_test_framework(self.ctx, node):
            self.silent(node, Reason.TEST_CODE, "test code builds what it tests")
            return
        super().report(node, message=message, fix=fix, detail=detail, **fields)


def _outermost(found: List[Optional[Item]], ctx) -> List[Item]:
    """The constructions not inside another (the layers of ``Sequential([...])``
    are part of the model)."""
    items = [i for i in found if i is not None]
    return [i for i in items if not any(o is not i and ctx.contains(o.node, i.node) for o in items)]


def _item(facts: Facts, reach: Reach, node) -> Optional[Item]:
    """What ``node`` builds: a construction call, or a ``@tf.function`` def."""
    if isinstance(node, cst.Call):
        return facts.item(node)
    if isinstance(node, cst.FunctionDef) and reach.wrapper(node) in node.decorators:
        bound = [b for b in facts.sem.bindings_of(node) if b.kind is BindingKind.FUNCTION]
        label = f"`{node.name.value}()`"
        return Item(Built.FUNCTION, node, label, bound[0] if bound else None)
    return None
