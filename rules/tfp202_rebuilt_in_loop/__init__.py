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

from tflint_perf.analysis.api.steps import FORWARD_METHODS
from tflint_perf.analysis.reach import Reach
from tflint_perf.analysis.semantic import BindingKind
from tflint_perf.analysis.testcode import in_test_code, is_test_module
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
    Flags three kinds of rebuild (one detector each):

    - **Per-batch construction**: a loop that does per-batch work (a tape,
      inference, an update, `.numpy()`) and builds, on every iteration, a
      Keras model (`Sequential`, `Model`, a subclass, `clone_model`,
      `load_model`, a function of the module that returns one), a layer or
      a `tf.Variable` it uses there, or a `tf.function` (`tf.function(...)`,
      a decorated `def`, a factory of the module that returns one) that it
      then calls, although nothing it is built from changes between
      iterations; a model rebuilt only to `load_weights` into it. One
      finding per loop, at the first thing rebuilt, names all of them.
      Also a Keras layer constructed inside a layer's or model's `call()`,
      or a `tf.Module`'s (a Sonnet module's) `__call__` (or a function it
      runs, or hands to another to run: `batch_apply(self._torso, x)`,
      `tf.map_fn(fn, xs)`), so on every forward pass: build it in
      `__init__` or `build`. Not a layer built on the first call only
      (`if not hasattr(self, "dense"):`, or `if not self._built:
      self._wire()` with a method that sets `self._built`) nor one built in
      `build()` (Keras runs it once, also when `call()` runs it lazily). A
      loop that wires a functional model (`x = Block()(x)` from a
      `keras.Input`) builds it once: nothing runs there, so it is no step
      loop.
    - **Searches over models**: a new Keras model trained on every iteration
      (a hyper-parameter search, cross-validation folds, a library factory
      whose result gets `compile(optimizer=...)`/`fit(..., epochs=...)`, or
      a trial function of the module, one that builds and trains a model,
      called per iteration directly or through one helper) while nothing
      resets Keras (`keras.backend.clear_session()` in the loop, in a loop
      around it or in the function around it): every model keeps adding to
      Keras' global state. Not for models kept in a list on purpose (an
      ensemble), nor for fewer than three trials.
    - **TF1 graph growth** (in a module that builds graphs: a session, a
      placeholder, eager execution off): ops created on every iteration of a
      loop that runs the graph (`sess.run(tf.add(x, y))`, `tf.nn.softmax`
      per test batch, `v.assign(i)` per epoch, a `Saver()` per checkpoint,
      an RNN cell's `zero_state(...)` per validation, `sess.run(G(z,
      reuse=True))` with a `G` the linter cannot read), one finding per
      statement; a function that creates ops and runs the graph
      on every call (`tf.assign` target-network copies, `tf.gradients`, a
      helper computing an accuracy), run by a loop through any helpers,
      methods or callables, or an agent's `learn()` an environment loop in
      another module runs every step (reported at its heaviest op); a
      function that builds a whole network (placeholders, variables) in the
      default graph, called once per trial of at least three; a whole TF1
      graph (`tf.Graph()`, a session, placeholders) rebuilt on every
      iteration although nothing it is built from changes. Construction is
      not growth: a loop of a handful of iterations (all loops around it
      together, in a function no hot loop runs) or over layers that builds
      one set of ops per item (an initializer built after the item's new
      variables included; the same op on every iteration is still
      reported, and so is an op a loop over steps, `range(a, b)`, builds from
      values a run returned: `v.assign(norms)` bakes new constants into the
      graph on every step), a loop that builds a graph without running it, a loop that
      only runs ops built before it (a Keras model's or layer's
      `set_weights`/`reset_states` reuse the assign ops Keras cached), ops
      built now and then, in the loop or in a helper it calls (`if step % 1000
      == 0`, the period a name, a class constant or a command-line option's
      default: `% args.decay_steps`; a step counter reset in its block, `if tau > max_tau: ...; tau =
      0`, a throttle that resets its mark, an `except` for the end of the
      data) unless the loop's known count still makes 100 copies (`% 100` in
      100,000 steps) or, the count unknown, the period is under 1,000 steps,
      a loop whose only graph run is on one iteration (`if key == last` over
      a mapping's keys), a helper whose ops are built on one branch and whose
      graph runs on another (given a tensor it builds, given a number it
      runs), ops built on the first call only and kept (`if self.op is
      None:`, `if key not in cache:`), and functions that build in a
      `tf.Graph()` of their own or reset the default graph.

    Loops of a handful of iterations (at most 16, `Trips`) are silent for
    per-batch construction; so is test code (a test module, a `TestCase`).

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
        # a layer's forward method (``call``, ``__call__``).
        return facts.has_loop() or any(f"def {m}" in facts.source for m in FORWARD_METHODS)

    fixable = True
    fix_summary = "safe / unsafe"  # the README's Fix column
    # For --verify: without a fix, timed against the construction hoisted out of
    # the loop (a verification-only rewrite).
    verification = Verification(rewrite=Rewrite.HOIST)

    def finish(self) -> None:
        ctx = self.ctx
        if is_test_module(ctx) and not ctx.recording:
            return  # test code builds what it tests (``report`` says so when asked)
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

    def report(self, node, message=None, fix=None, detail="", extra=None, **fields) -> None:
        """Test code (a test module, a ``TestCase``) builds models on purpose."""
        if in_test_code(self.ctx, node):
            self.silent(node, Reason.TEST_CODE, "test code builds what it tests")
            return
        super().report(node, message=message, fix=fix, detail=detail, extra=extra, **fields)


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
