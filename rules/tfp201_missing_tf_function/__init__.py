"""TFP201 missing-tf-function: one detector per kind of step.

- ``inline``: a ``with tf.GradientTape()`` block and its update in a loop body;
- ``step_functions``: a function or method holding a step, called in a loop
  (or an RL agent's method an environment loop elsewhere calls);
- ``agent_train``: TF-Agents' ``agent.train`` in a loop, never wrapped.
"""

from __future__ import annotations

from tflint_perf.analysis.api import Kind
from tflint_perf.analysis.summaries import Summaries, graph_code_at
from tflint_perf.analysis.tapes import TapeSteps
from tflint_perf.analysis.testcode import in_test_code
from tflint_perf.engine import cst
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.rule import Rule
from tflint_perf.engine.verification import Verification

from .agent_train import AgentTrain
from .common import Facts
from .imported import ImportedSteps
from .inline import InlineSteps
from .step_functions import StepFunctions


class MissingTfFunction(Rule):
    """A training step that runs eagerly although it runs in a loop.

    ## What it does
    Flags a training step (a `tf.GradientTape` whose gradients are applied
    with `apply_gradients`, `assign_sub`, `assign_add`, `assign` or
    `minimize`, followed from `tape.gradient(...)` through the names it is
    assigned to, also inside a function of the module they are handed to,
    `update_weights(grads, model.weights)`) that runs eagerly on every
    iteration of a loop:

    - written inline: a `with tf.GradientTape() as tape:` block in the body of
      a `for`/`while` loop over batches, steps or episodes, with the update in
      the same iteration, at module level or in a function (reported at the
      `with`, once per `with`);
    - a step function or method (the tape is not inside a loop of its own)
      run by a loop of the same module, directly or through helpers:
      `step(x)`, `self.train_step(b)` from another method (or a subclass's
      override of it), `agent.learn(b)` where `agent = Agent()` is a class
      of the module, or a function passed as an argument and called in the
      loop (reported at the `def`; the detail names the calls that lead to
      the loop). A Keras `train_step` is compiled by
      `fit()`, not when a loop calls it by hand. A function that returns
      `tape.gradient(...)` counts when the loop applies what it returns;
    - a method of a reinforcement-learning agent class (one with at least
      two of: agent methods such as `choose_action`, `act`, `remember`,
      `store_transition`, `learn`, `replay`; an `epsilon`, `gamma` or replay
      `memory` attribute; a `gym` import) that nothing in its module calls
      (or only another such method, `step()` calling `self.learn()`):
      the environment loop that calls it once per step or episode is in
      another module (`main.py`), so it is reported at the `def` without a
      loop. Not for Keras, TensorFlow or TF-Agents subclasses (their
      framework calls them), nor for a `train_step`/`test_step` of a class
      with a base the linter cannot read (it may be a Keras model);
    - a step function or method of another module of the linted tree
      (`from pkg.model import train_step`), called here in a loop: reported
      at the call, with the advice to decorate it where it is defined (no
      fix: it belongs in the other module). Silent when that module
      compiles it, already reports it, or this one rebinds the name
      (`train_step = tf.function(train_step)`);
    - TensorFlow 1.x eager: `loss, grads = grad_fn(x)` from
      `tfe.implicit_value_and_gradients` and `apply_gradients(grads)` in a
      loop (reported at the call);
    - TF-Agents' `agent.train(experience)` called in a loop although
      `agent.train` was never wrapped with `common.function`/`tf.function`
      (reported at the call).

    A function that itself loops over the data (an epoch function) is not the
    step: its inner tape is. Stays silent when the step is compiled
    (`@tf.function`, `tf.function(step)` anywhere, called only from a
    `tf.function`, handed to `strategy.run`), after
    `tf.config.run_functions_eagerly(True)`, in TF1 graph code (not a
    loop that graph code cannot reach: all of it in the other arm of an
    `if`, or under `if mode == "graph"` while the loop is under
    `if mode == "custom"`), in test
    code (a test module, by its path and test framework, or a `TestCase`;
    the name of a method is no evidence), when the loops around it run a
    handful of times in all (at most 16: `range(16)`, or a name bound to a
    small literal, `range(1, EPOCHS + 1)` with `EPOCHS = 5`: tracing would
    cost more than it saves), and in methods of a framework class that
    nothing in the module calls.

    ## Why is this bad?
    Eagerly, every operation of the step is dispatched from Python one by
    one. Compiled with `tf.function`, the step is traced once into a graph
    that runs without Python overhead and with its operations fused: on TF
    2.21 on a 2-core CPU a small training step ran 3-12x faster.

    ## Example
    ```python
    import tensorflow as tf

    for x, y in dataset:
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))

    for x, y in dataset:
        train_step(x, y)
    ```

    ## Fix safety
    For a step function the fix adds `@tf.function` above the `def` (in
    TensorFlow 1.x eager code `@tfe.defun` or `@tf.contrib.eager.defun`, and
    `import tensorflow as tf` when the module has no TensorFlow import). It
    is safe only when tracing cannot change what the step does (an agent
    method that takes arguments is never safe: its callers, in another
    module, may pass Python numbers that retrace it): no
    variables, layers, models or optimizers created on a call (a retrace
    with a new model or optimizer raises), no Python state changed anywhere
    in the step's call tree (a Python `t += 1` in a hand-written Adam's
    method is frozen at its traced value), no `print`, no Python control
    flow, no call that passes a Python number that changes between calls,
    and every call the step makes read and shown harmless: a call the
    linter cannot resolve (not a function of the module, not a TensorFlow,
    Keras or NumPy API it knows, not a model, layer or loss) makes the fix
    unsafe, and the detail names it. Otherwise the fix is unsafe and the
    detail names the hazard. With `.numpy()`, `.item()`, `float()` of a tensor or
    NumPy calls (they fail in a graph) there is no fix.

    For an inline step the unsafe fix moves the block, from the `with` to the
    update, into a `@tf.function` function defined before the loop's
    module-level statement and calls it in its place. It is offered only
    when the block reads nothing but the loop's batch variables (or tensors
    computed from them earlier in the iteration) and module-level objects
    the loop does not reassign, and has no Python side effects (`print`,
    `.numpy()`, list appends, counters); otherwise the message says what
    blocks it. For `agent.train` the unsafe fix wraps it once before the
    loop.
    """

    code = "TFP201"
    name = "missing-tf-function"
    message = "`{func}()` is a training step that runs eagerly in a loop: compile it"
    # ("torch": to say, for ``tflint-perf why``, that a PyTorch step is not one.)
    triggers = ("GradientTape", "tf_agents", "implicit_", "gradients_function", "torch")
    fixable = True
    fix_summary = "safe / unsafe"  # the README's Fix column
    # For --verify: the step is timed at its call site, eager against the fix.
    # A compiled step draws its random numbers (dropout, sampling) from other seeds.
    verification = Verification(moves_random_draws=True)
    reads_project = True  # a step function of another module of the tree, called in a loop here

    def finish(self) -> None:
        ctx = self.ctx
        if not ctx.imports.uses_tensorflow:
            if ctx.project is not None and ctx.project.forced:
                ImportedSteps(Facts(self)).check()  # a loop here, the step elsewhere
            return
        steps = ctx.shared(TapeSteps)
        graphed: set = set()
        if ctx.shared(Summaries).graph_mode and not _eager_on(ctx):
            # Graph code runs steps as a graph; not a step in the other branch of an
            # ``if`` from all of it (``if eager: <tape loop> else: <session>``).
            nodes = [*(s.node for s in steps.steps), *steps.not_steps]
            graphed = {n for n in nodes if graph_code_at(ctx, n)}
            for node in graphed:
                self.silent(node, Reason.COMPILED, "TF1 graph code: sessions run it as a graph")
            if len(graphed) == len(nodes):
                return
        facts = Facts(self)
        inline, functions = InlineSteps(facts), StepFunctions(facts)
        done = set()
        for step in steps.steps:
            if step.node in graphed:
                continue
            if in_test_code(ctx, step.node):
                self.silent(step.node, Reason.TEST_CODE)
            elif step.loop is not None:
                inline.check(step)
            elif step.scope is not None and step.scope not in done:
                done.add(step.scope)
                functions.check(step.scope, step)
        for tape in steps.not_steps:
            if tape in graphed:
                continue
            self.silent(tape, Reason.NOT_WORK, "its gradients are never applied by an update")
        ImportedSteps(facts).check()
        if ctx.imports.imports_any("tf_agents"):
            AgentTrain(facts).check()
        if ctx.recording:
            self._other_libraries(facts)

    def _other_libraries(self, facts: Facts) -> None:
        """Loops that update a model or optimizer of another library (PyTorch's
        ``optimizer.step()``): a training step, but not TensorFlow's."""
        for call in self.ctx.nodes(cst.Call):
            func = call.func
            if isinstance(func, cst.Attribute) and facts.sem.loops_around(call):
                if facts.values.kind(func.value) is Kind.OTHER_MODEL:
                    self.silent(call, Reason.OTHER_LIBRARY, "another library's training step")


def _eager_on(ctx) -> bool:
    """TensorFlow 1.x with eager execution switched on."""
    return any(
        (ctx.call_name(c) or "").endswith("enable_eager_execution") for c in ctx.nodes(cst.Call)
    )
