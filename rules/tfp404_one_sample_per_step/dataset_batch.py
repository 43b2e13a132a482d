"""Shape 3: ``Dataset.batch(1)`` on a pipeline that feeds training or inference.

The pipeline's facts (``analysis/datasets.py``) give the size of its last
batching step; where it is consumed (``analysis/dataset_use.py``) says
whether a workload reads it: Keras ``fit``/``evaluate``/``predict``, a loop
whose body runs steps, an iterator read by such a loop. A pipeline only
looked at (``take(1)``, a loop that breaks after the first batch) is not.
"""

from __future__ import annotations

from typing import Dict, Iterator, List, Tuple

from tflint_perf.analysis.api.tfdata import Role
from tflint_perf.analysis.dataset_use import Consumption, DatasetUse, Use, UseKind
from tflint_perf.analysis.datasets import Pipeline, Pipelines
from tflint_perf.analysis.testcode import in_test_code
from tflint_perf.engine import cst
from tflint_perf.engine.headline import fit_headline
from tflint_perf.engine.reasons import Reason
from tflint_perf.rules.tfp404_one_sample_per_step.stateful import stateful_model
from tflint_perf.rules.tfp404_one_sample_per_step.verdicts import (
    Report,
    Silent,
    Verdict,
    clip,
)


class DatasetBatchOne:
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.uses: DatasetUse = ctx.shared(DatasetUse)
        self.pipelines: Pipelines = ctx.shared(Pipelines)

    def verdicts(self) -> Iterator[Verdict]:
        fed: Dict[cst.CSTNode, List[Tuple[Consumption, Pipeline]]] = {}
        for consumption in self.uses.consumptions():
            for pipeline in self.pipelines.datasets(consumption.data):
                if pipeline.batch_size == 1 and pipeline.batch_call is not None:
                    fed.setdefault(pipeline.batch_call, []).append((consumption, pipeline))
        for batch_call, consumers in fed.items():
            yield self._judge(batch_call, consumers)
        for call in self.ctx.nodes(cst.Call):
            step = self.pipelines.step(call)
            if step is not None and step.role is Role.BATCH and step.count == 1:
                if call not in fed:  # batch(1).batch(64), or never consumed as it is
                    why = "its batches do not reach a consumer as they are"
                    yield Silent(_anchor(call), Reason.NOT_DATA, why)

    def _judge(self, batch_call: cst.CSTNode, consumers) -> Verdict:
        anchor = _anchor(batch_call)
        if in_test_code(self.ctx, batch_call):
            return Silent(anchor, Reason.TEST_CODE)
        silent = Silent(anchor, Reason.DEMO, "only looked at, never trained on")
        for consumption, pipeline in consumers:
            if pipeline.tiny:
                silent = Silent(
                    anchor, Reason.DEMO, f"a handful of elements (at most {pipeline.limit})"
                )
                continue
            why = self.uses.trains(Use(consumption.kind, consumption.site))
            if why is None:
                continue
            site = consumption.site
            model = (
                site.func.value
                if isinstance(site, cst.Call) and isinstance(site.func, cst.Attribute)
                else None
            )
            if model is not None and stateful_model(self.ctx, model):
                silent = Silent(anchor, Reason.DELIBERATE, "a stateful RNN fixes its batch size")
                continue
            return self._report(anchor, consumption, why)
        return silent

    def _report(self, anchor, consumption: Consumption, why: str) -> Report:
        ctx = self.ctx
        line = ctx.line_ref(ctx.position(consumption.site).start.line)
        call = ctx.parent(ctx.parent(anchor)) if isinstance(anchor, cst.Name) else anchor
        size = call.args[0].value if isinstance(call, cst.Call) and call.args else None
        spelled = clip(ctx.code(size), 20) if size is not None else "1"
        shown = "`.batch(1)`" if spelled == "1" else f"`.batch({spelled})`, of 1,"
        site = consumption.site
        func = site.func if isinstance(site, cst.Call) else None
        if consumption.kind is UseKind.FIT and isinstance(func, cst.Attribute):
            whom = f"`{func.attr.value}()`"
        else:
            whom = "training"
        headline = fit_headline(
            f"{shown} feeds {whom} one element per step: batch more (e.g. 32)",
            f"`.batch(1)` feeds {whom} one element per step: batch more (e.g. 32)",
        )
        detail = "\n".join(
            [
                f"The pipeline is {why} ({line}): every step handles one element and pays "
                "the per-step overhead once per sample.",
                "Results change by design (fewer updates on averaged gradients). "
                "BatchNormalization with batch 1 acts as instance normalisation: keep "
                "`batch(1)` if the model relies on that (pix2pix, CycleGAN).",
            ]
        )
        return Report(anchor, headline, detail)


def _anchor(call: cst.CSTNode) -> cst.CSTNode:
    if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute):
        return call.func.attr
    return call
