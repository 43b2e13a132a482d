"""What TFP403 says: a headline (at most 100 characters) and a detail."""

from __future__ import annotations

from typing import Tuple

from tflint_perf.analysis.exports import defined_in
from tflint_perf.engine import cst
from tflint_perf.engine.headline import clip_code
from tflint_perf.engine.names import dotted

from .receiver import CALL, Inference
from .sites import Shape, Site

LIMIT = 100
_COST = {
    "predict": "each `predict` call sets up a whole prediction loop (data adapter, callbacks)",
    "predict_on_batch": "each call pays a fixed per-call cost for one sample",
    CALL: "each call pays a fixed per-call cost for one sample",
}


def message(
    ctx, call: cst.Call, at: cst.Call, inference: Inference, site: Site, graph_mode: bool
) -> Tuple[str, str]:
    """``call``: the inference; ``at``: the reported call (where the sample is made)."""
    method = inference.method
    model = dotted(inference.model) or "model"
    spelled = f"`{clip_code(dotted(at.func) or method, 40)}()`"
    direct = (
        f"`{clip_code(model, 30)}.predict_on_batch(x)`"
        if graph_mode
        else f"`{clip_code(model, 30)}(x, training=False)`"
    )
    cost = _COST.get(method, _COST["predict"])
    arg = f"`{clip_code(ctx.code(site.sample), 50)}`"
    lines = [f"The input {arg} is one sample{_chain(ctx, site, at, call)}; {cost}."]
    if inference.external is not None:
        where = f"{defined_in(ctx, inference.external)}, line {inference.external.get('line')}"
        made = "makes it one sample and " if inference.made_inside else ""
        lines = [
            f"`{clip_code(dotted(call.func) or method, 40)}()` ({where}) {made}runs Keras inference "
            f"on {arg}{_chain(ctx, site, at, call)}; {cost}."
        ]
        direct = "the model directly there, `model(x, training=False)`,"
    if site.shape is Shape.ELSEWHERE:
        assert site.agent is not None
        head = f"{spelled} on one sample per environment step: call {direct} instead"
        lines = [
            f"The input {arg} is one observation. Nothing in this module calls this method of "
            f"agent `{site.agent.name.value}`, so the environment loop in another module runs it "
            f"once per step; {cost}.",
            "Steps that depend on the previous action cannot be batched; calling the model "
            "directly avoids the per-call set-up.",
        ]
    elif site.shape is Shape.INVARIANT:
        head = f"{spelled} on the same input in every loop iteration: call it once before the loop"
        lines = [f"The input {arg} does not change in the loop, so neither does the prediction."]
    elif site.shape is Shape.SEQUENTIAL:
        head = f"{spelled} on one sample per loop step: call {direct} instead"
        lines.append(
            f"Each input depends on the previous prediction ({_why(ctx, site)}), so the loop cannot "
            "be batched, but calling the model directly avoids the per-call set-up."
        )
    elif site.shape is Shape.UNCLEAR:
        head = f"{spelled} on one sample per loop step: batch the inputs, or call {direct}"
        lines.append(
            f"If the inputs are independent, collect them and call `{method}` once on the batch; "
            f"if each depends on the previous prediction, call {direct} instead."
        )
    elif method == CALL:
        head = f"{spelled} on one sample per loop iteration: call it once on the stacked batch"
    else:
        head = f"{spelled} on one sample per loop iteration: call it once on the whole batch"
        if not graph_mode:
            lines.append(
                f"Collect the samples and call `{method}` once, or the model directly, "
                f"`{model}(batch, training=False)`, when the batch fits in memory."
            )
    if inference.external is not None:
        head = _external_head(spelled, site.shape)
    if site.loop is not None and site.trips is not None:
        lines.append(f"Repeated by {_where(ctx, site)} ({_line(ctx, site.loop)}){_trips(site)}.")
    if site.handoff is not None:
        facts, handing = site.handoff
        loop = _first_loop_line(facts)
        lines.append(
            f"Repeated by the loop of {_spell(ctx, handing)} ({defined_in(ctx, facts)}, line {loop}), "
            "which calls it on each iteration."
        )
    if len(head) > LIMIT:
        head = _shorten(head)
    return head, "\n".join(lines)


def _external_head(spelled: str, shape: Shape) -> str:
    """A call of another module's function that runs ``predict`` on one sample."""
    if shape is Shape.SEQUENTIAL:
        return (
            f"{spelled} runs `predict` on one sample per loop step: call the model directly there"
        )
    if shape is Shape.UNCLEAR:
        return f"{spelled} runs `predict` on one sample per loop step: batch, or call the model directly"
    if shape is Shape.INVARIANT:
        return f"{spelled} runs `predict` on the same input in every loop iteration: call it once before"
    return f"{spelled} runs `predict` on one sample per loop iteration: call it once on the batch"


def _first_loop_line(facts: dict) -> object:
    looped = facts.get("calls_in_loop") or {}
    return min((info.get("line", 0) for info in looped.values()), default="?")


def _where(ctx, site: Site) -> str:
    loop = site.loop
    if isinstance(loop, cst.For):
        return f"the loop over `{clip_code(ctx.code(loop.target), 20)}`"
    if isinstance(loop, cst.While):
        return f"`while {clip_code(ctx.code(loop.test), 20)}`"
    if loop is not None and hasattr(loop, "for_in"):
        return f"the comprehension over `{clip_code(ctx.code(loop.for_in.target), 20)}`"
    return "the loop"


def _chain(ctx, site: Site, at: cst.Call, call: cst.Call) -> str:
    """How the input reaches the inference: the helpers between the loop, the
    reported call and the inference call."""
    path = list(site.path or (call,))
    k = path.index(at) if at in path else len(path) - 1
    before, after = path[:k], path[k + 1 :]
    text = ""
    if after:
        names = " -> ".join(_spell(ctx, c) for c in after)
        text += f", and {_spell(ctx, at)} runs {names} on it"
    if before:
        text += f", reached from the loop through {' -> '.join(_spell(ctx, c) for c in before)}"
    return text


def _spell(ctx, call: cst.Call) -> str:
    return f"`{clip_code(dotted(call.func) or ctx.code(call.func), 30)}()`"


def _why(ctx, site: Site) -> str:
    if site.handoff is not None:
        return "the loop that calls it feeds each result back into the next input"
    if site.stepper is not None:
        step = clip_code(ctx.code(site.stepper), 40)
        return f"it drives `{step}`"
    return f"`{site.feedback}` is built from it"


def _trips(site: Site) -> str:
    """How often the loop runs, as the end of a sentence."""
    estimate = site.trips
    assert estimate is not None
    if estimate.count is not None:
        return f": {estimate.count:,} iterations"
    if isinstance(site.loop, cst.While):
        return ", until it ends"
    return f": {estimate.why}" if estimate.why else ""


def _line(ctx, node) -> str:
    return ctx.line_ref(ctx.position(node).start.line)


def _shorten(head: str) -> str:
    """Fit a headline in the limit by shortening its quoted code."""
    original = head.split("`")
    parts = list(original)
    text = head
    for width in (24, 20, 12, 8):
        # the longest quoted code first: the advice keeps its words where it can
        # (each width clips the code as written, not an earlier clipping of it)
        for k in sorted(range(1, len(parts), 2), key=lambda k: -len(original[k])):
            parts[k] = clip_code(original[k], width)
            text = "`".join(parts)
            if len(text) <= LIMIT:
                return text
    return text[: LIMIT - 3] + "..."
