"""Shape 2: ``batch_size=1`` where Keras iterates a whole array or a generator.

``model.fit(x_train, y_train, batch_size=1)``, ``evaluate``/``predict``
alike, and a data producer given ``batch_size=1`` whose result Keras
iterates (``gen.flow_from_dataframe(df, batch_size=1)`` fed to
``predict``): one sample per step over the whole data.
"""

from __future__ import annotations

from typing import Iterator, Optional

from tflint_perf.analysis.api import Kind, tfdata
from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.dataset_use import DatasetUse, UseKind, keras_data_args
from tflint_perf.analysis.datasets import Pipelines
from tflint_perf.analysis.samples import batch_of_one
from tflint_perf.analysis.testcode import in_test_code
from tflint_perf.analysis.trips import Trips
from tflint_perf.engine import cst
from tflint_perf.engine.headline import fit_headline
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.walk import descendants
from tflint_perf.rules.tfp404_one_sample_per_step.stateful import stateful_model
from tflint_perf.rules.tfp404_one_sample_per_step.verdicts import (
    Report,
    Silent,
    Verdict,
    clip,
)

_NOT_ARRAYS = (Kind.DATASET, Kind.ITERATOR)  # Keras ignores batch_size for them


class BatchSizeOne:
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.uses: DatasetUse = ctx.shared(DatasetUse)
        self.pipelines: Pipelines = ctx.shared(Pipelines)
        self.trips: Trips = ctx.shared(Trips)

    def verdicts(self) -> Iterator[Verdict]:
        for arg in self.ctx.nodes(cst.Arg):
            if arg.keyword is None or arg.keyword.value != "batch_size":
                continue
            call = self.ctx.parent(arg)
            if not isinstance(call, cst.Call) or self.trips.number(arg.value) != 1:
                continue
            verdict = self._judge(call, arg)
            if verdict is not None:
                yield verdict

    def _judge(self, call: cst.Call, arg: cst.Arg) -> Optional[Verdict]:
        func = call.func
        if self.pipelines.step(call) is not None or tfdata.SOURCES.get(
            self.ctx.call_name(call) or ""
        ):
            return None  # a pipeline's batch: the dataset detector reads it
        if isinstance(func, cst.Attribute) and func.attr.value in tfdata.KERAS_DATA_METHODS:
            # batch_size is a Keras keyword: a data method given it is a Keras call
            # unless the value model knows the receiver is another library's model.
            return self._keras(call, arg) if self.uses.keras_call(call) else None
        return self._producer(call, arg)

    def _keras(self, call: cst.Call, arg: cst.Arg) -> Verdict:
        assert isinstance(call.func, cst.Attribute)  # (checked by the caller)
        if in_test_code(self.ctx, call):
            return Silent(arg, Reason.TEST_CODE)
        data = keras_data_args(call)
        if not data or self._not_array(data[0]):
            return Silent(arg, Reason.NOT_DATA, "a dataset or generator: Keras ignores batch_size")
        one = batch_of_one(self.ctx, data[0], self.uses.sem.value_of)
        if one is not None:
            return Silent(arg, Reason.NOT_DATA, f"one sample (`{clip(self.ctx.code(one))}`)")
        if stateful_model(self.ctx, call.func.value):
            return Silent(arg, Reason.DELIBERATE, "a stateful RNN fixes its batch size")
        rows = self.trips.iterable(data[0])
        if rows.tiny:  # a handful of steps per epoch, whatever the batch size
            return Silent(arg, Reason.TINY_LOOP, f"the data has {rows.why}")
        method = call.func.attr.value
        receiver = clip(self.ctx.code(call.func.value), 24)
        shown = clip(self.ctx.code(data[0]), 24)
        verb = "trains" if method.startswith("fit") else "runs"
        headline = fit_headline(
            f"`{receiver}.{method}({shown}, ..., batch_size=1)` {verb} one sample per step: "
            "use a larger batch",
            f"`{method}(..., batch_size=1)` {verb} one sample per step: use a larger batch (32)",
        )
        return Report(arg, headline, _detail(method))

    def _makes_batches(self, call: cst.Call) -> bool:
        """``call`` makes batches one at a time: a Keras maker of batches (itself, or a method of
        one), or a generator function of the module."""
        makers = [call]
        if isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name):
            receiver = self.uses.sem.value_of(call.func.value)
            if isinstance(receiver, cst.Call):
                makers.append(receiver)
        if any((self.ctx.call_name(c) or "").startswith(tfdata.KERAS_BATCH_MAKERS) for c in makers):
            return True
        return any(
            isinstance(node, cst.Yield)
            for func in self.ctx.shared(CallGraph).resolve(call)
            for node in descendants(func.body, skip_scopes=True)
        )

    def _not_array(self, data: cst.BaseExpression) -> bool:
        return self.uses.values.kind(data) in _NOT_ARRAYS or bool(self.pipelines.datasets(data))

    def _producer(self, call: cst.Call, arg: cst.Arg) -> Verdict:
        """``flow_from_dataframe(..., batch_size=1)`` whose result Keras iterates."""
        fed = [u for u in self.uses.uses(call) if u.kind is UseKind.FIT]
        if not fed:  # a model builder, a batch printed or peeked at, a TF1 feed
            return Silent(arg, Reason.NOT_DATA, "does not reach the data Keras iterates")
        consumer = fed[0].site
        assert isinstance(consumer, cst.Call) and isinstance(consumer.func, cst.Attribute)
        if in_test_code(self.ctx, call):
            return Silent(arg, Reason.TEST_CODE)
        if not self.uses.keras_call(consumer) and (
            self.uses.values.kind(consumer.func.value) is not Kind.UNKNOWN
        ):
            return Silent(arg, Reason.OTHER_LIBRARY, "not fed to a Keras model")
        if not (self._makes_batches(call) or _iterated_by_batches(consumer)):
            return Silent(
                arg,
                Reason.UNSAFE_TO_TELL,
                "it may make an array of one sample, which Keras batches itself: nothing "
                "says it makes batches one at a time (a Keras batch maker, a generator "
                "function, a `*_generator` method, `steps=`)",
            )
        if stateful_model(self.ctx, consumer.func.value):
            return Silent(arg, Reason.DELIBERATE, "a stateful RNN fixes its batch size")
        producer = clip(self.ctx.code(call.func), 30)
        method = consumer.func.attr.value
        line = self.ctx.line_ref(self.ctx.position(consumer).start.line)
        headline = fit_headline(
            f"`{producer}(batch_size=1)` feeds `{method}()` one sample per step: use a larger batch",
            f"`batch_size=1` feeds `{method}()` one sample per step: use a larger batch (32)",
        )
        detail = f"`{method}()` at {line} iterates what it produces.\n" + _detail(method)
        return Report(call, headline, detail)


def _iterated_by_batches(consumer: cst.Call) -> bool:
    """Keras reads what it is given batch by batch, as made: a generator method, or a step count."""
    assert isinstance(consumer.func, cst.Attribute)
    if consumer.func.attr.value in tfdata.KERAS_GENERATOR_METHODS:
        return True
    return any(
        a.keyword is not None and a.keyword.value in tfdata.STEP_COUNT_KEYWORDS
        for a in consumer.args
    )


def _detail(method: str) -> str:
    what = "training step" if method.startswith("fit") else "step"
    lines = [
        f"With `batch_size=1` every {what} handles one sample and pays the per-step "
        "overhead (launching the ops, callbacks, bookkeeping) once per sample; a batch of "
        "32 or more amortises it and keeps the device busy.",
    ]
    if method.startswith("fit"):
        lines.append(
            "Training results change by design (fewer updates, on averaged gradients): "
            "adjust the learning rate or the epochs if needed."
        )
    return "\n".join(lines)
