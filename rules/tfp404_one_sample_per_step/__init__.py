"""TFP404 one-sample-per-step: training and inference one sample at a time."""

from __future__ import annotations

import ast
from typing import ClassVar

from tflint_perf.analysis.api import tfdata
from tflint_perf.engine import cst
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.rule import Rule
from tflint_perf.engine.verification import Rewrite, Verification
from tflint_perf.rules.tfp404_one_sample_per_step.batch_size import BatchSizeOne
from tflint_perf.rules.tfp404_one_sample_per_step.dataset_batch import DatasetBatchOne
from tflint_perf.rules.tfp404_one_sample_per_step.per_sample import PerSample
from tflint_perf.rules.tfp404_one_sample_per_step.verdicts import Report, Silent

DETECTORS = (PerSample, BatchSizeOne, DatasetBatchOne)
# What the screen looks for besides a loop: ``batch_size=`` (BatchSizeOne) and
# what consumes a dataset (DatasetBatchOne, through ``DatasetUse.consumptions``).
_KEYWORDS = frozenset({"batch_size"}) | tfdata.INPUT_FN_KEYWORDS
_CONSUMERS = tfdata.KERAS_DATA_METHODS | tfdata.TF1_ITERATOR_METHODS


class OneSamplePerStep(Rule):
    """Training (or inference) on one sample per step: `fit` per sample, `batch_size=1`.

    ## What it does
    Flags three shapes of the same trap:

    - a Keras training call on one sample per loop iteration:
      `model.fit(state, target, epochs=1)` for each transition of a replay
      minibatch, `train_on_batch(x[None], y[None])` over rows, directly or
      through a function of the module (`agent.learn(s, t)` whose summary
      trains on its parameter), or in a loop's body moved into a function of
      its own that reads the sample from names it shares with the loop
      (`analysis/shared_state.py`). One sample means: made a batch of one
      (`x.reshape(1, -1)`, `x[None]`, `x[i:i + 1]`, `[x]`), a row of an array
      (`X[i]`, `for x in X`), or a sample whose prediction the loop reads at
      `[0]` (`target_f = model.predict(state); target_f[0][action] = ...`).
      When each sample comes from the step before it (an environment loop
      that trains on the newest transition), batching is impossible and the
      advice is `train_on_batch` instead of `fit`. A `fit` on one sample in a
      method of a reinforcement-learning agent class that nothing in its
      module calls (`analysis/agent_classes.py`: the environment loop is in
      another file) is reported too, with that advice. Samples drawn from a
      collection into a one-row buffer (`x[0] = xs[random_index]`) are
      independent: stack them;
    - `batch_size=1` on `fit`/`evaluate`/`predict` over an array, or on a
      producer Keras iterates (`flow_from_dataframe(..., batch_size=1)` fed to
      `predict`);
    - `Dataset.batch(1)` on a pipeline that feeds training or inference (`fit`,
      a loop whose body runs steps, an iterator read by one).

    Silent for `fit` on the same data in a loop (`fit(x, y, epochs=1)` once per
    epoch on the whole dataset, one fit per fold or per setting), for a new
    model built in each iteration (each trains once on its own data), for
    `train_on_batch` in an online loop (already the light call), for loops of a
    handful of iterations (`analysis/trips.py`), for `fit(x, y, batch_size=1)`
    on data of a handful of rows (at most 16), for `predict(x, batch_size=1)`
    on one sample, for stateful RNNs (`stateful=True` fixes the batch size),
    for a `batch_size=1` value that does not reach Keras' data (a model builder,
    a batch printed or peeked at), for a pipeline only looked at (`take(1)`, a
    loop that breaks after the first element), for a `batch(1)` followed by
    a real batching step (it only adds an axis), for scikit-learn and other
    libraries' `fit`, and in test code.

    ## Why is this bad?
    Every step pays a fixed overhead: launching the ops, the optimizer update,
    callbacks and bookkeeping. With one sample per step that overhead dominates;
    each `fit` call also builds a data adapter, callbacks and a training loop,
    milliseconds for a microsecond of work. The TensorFlow guides name it:
    "too small a batch size increases overhead". Batching changes the results
    by design (one update on an averaged gradient instead of one per sample),
    usually for the better; keep the learning rate in step with the batch size.

    ## Example
    ```python
    for state, action, reward, next_state, done in minibatch:
        target = model.predict(state, verbose=0)
        target[0][action] = reward
        model.fit(state, target, epochs=1, verbose=0)
    ```

    ## Use instead
    ```python
    states = np.vstack([t[0] for t in minibatch])
    actions = np.array([t[1] for t in minibatch])
    rewards = np.array([t[2] for t in minibatch])
    targets = model.predict(states, verbose=0)
    targets[np.arange(len(minibatch)), actions] = rewards
    model.train_on_batch(states, targets)
    ```
    Where each update must come before the next sample (online learning), call
    `model.train_on_batch(x, y)` instead of `fit`.

    ## Measured by --verify
    There is no fix. `--verify` times the code against a batched variant (a
    training call in the loop collects its samples and runs once on them
    stacked after the loop; `batch_size=1` becomes 32) and
    says that the results were not compared: batching trains differently by
    design. A training call reached through a helper, and `.batch(1)` (a
    pipeline is timed by its first batches: 32 times the samples in the
    batched variant), are not measured (said).
    """

    code = "TFP404"
    name = "one-sample-per-step"
    message = "Training or inference on one sample per step"
    triggers = ("fit", "batch_size", "batch(", "train_on_batch")
    fixable = False
    #: For --verify: the samples batched (a verification-only rewrite) and both
    #: variants timed; batching changes the training itself (fewer, larger
    #: updates), so nothing is compared and the verdict says so.
    verification: ClassVar[Verification] = Verification(
        rewrite=Rewrite.BATCH_SAMPLES,
        differs_by_design="batching changes the training by design (one optimizer step per"
        " batch of 32 instead of one per sample)",
    )

    @classmethod
    def screen(cls, facts) -> bool:
        # A training call per sample runs in a loop of the module (or in a function
        # one of its loops runs); batch_size=1 is a keyword; a dataset batched by
        # one reaches a workload through a consumer: a loop, a Keras data method (`fit`
        # also in an agent method whose loop is elsewhere),
        # an input_fn= keyword, a TF1 iterator (a method, or a function imported
        # by its name) or iter().
        if facts.has_loop():
            return True
        if any(node.arg in _KEYWORDS for node in facts.nodes(ast.keyword)):
            return True
        if any(node.attr in _CONSUMERS for node in facts.nodes(ast.Attribute)):
            return True
        if any(node.name.rsplit(".", 1)[-1] in _CONSUMERS for node in facts.nodes(ast.alias)):
            return True
        return any(node.id == "iter" for node in facts.nodes(ast.Name))

    def finish(self) -> None:
        reported = set()  # the calls reported: one finding per call, the first detector's
        for detector in DETECTORS:
            for verdict in detector(self.ctx).verdicts():
                call = self._call_of(verdict.node)
                if isinstance(verdict, Report) and call in reported:
                    self.silent(verdict.node, Reason.COVERED, "the same call is reported already")
                elif isinstance(verdict, Report):
                    reported.add(call)
                    self.report(
                        verdict.node,
                        message=verdict.headline,
                        detail=verdict.detail,
                        extra=verdict.extra,
                    )
                elif isinstance(verdict, Silent):
                    self.silent(verdict.node, verdict.reason, verdict.detail)

    def _call_of(self, node):
        """The call a finding is about: its own node, or the call of its keyword or method."""
        for _ in range(2):
            if isinstance(node, cst.Call):
                return node
            node = self.ctx.parent(node)
        return node
