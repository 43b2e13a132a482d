"""A tf.data pipeline measured on its own (``Verification.iterate``; worker side).

Timing the statements that build a pipeline times nothing (building is
lazy), and timing the training that consumes it drowns the pipeline's share
in the training's. So the dataset the flagged expression builds is caught
as each variant builds it (the code after it does not run), and then the
two datasets are iterated, the same first elements of each:

- ``Iterate.ALONE``: as fast as the pipeline makes them (a parallel map);
- ``Iterate.WITH_STEP``: each element followed by a stand-in step, a sleep
  as long as the original takes to make one element. That is what a
  training loop gives a pipeline: time in which a prefetching pipeline can
  make the next element.

The verdict says which, with the element count (and the step's length).
"""

from __future__ import annotations

import ast
import time
from typing import Any, Dict, List

from tflint_perf.verify.measure import Measurement, NotReached
from tflint_perf.verify.state import State

NAME = "__tfp_pipeline__"
CALIBRATE_S = 0.5  # the original's elements are counted for this long (after one warm-up pass)
MAX_ELEMENTS = 64


class Captured(BaseException):
    """Raised out of the code under review once it built the dataset (a BaseException:
    its own ``except Exception`` must not swallow it)."""

    def __init__(self, dataset) -> None:
        super().__init__("dataset captured")
        self.dataset = dataset


class _Wrap(ast.NodeTransformer):
    """Wraps the outermost call that starts at ``(line, col)`` in ``__tfp_pipeline__(...)``."""

    def __init__(self, line: int, col: int) -> None:
        self.line, self.col, self.done = line, col, False

    def visit_Call(self, node: ast.Call):
        if not self.done and (node.lineno, node.col_offset) == (self.line, self.col):
            self.done = True
            wrapped = ast.Call(ast.Name(NAME, ast.Load()), [node], [])
            return ast.fix_missing_locations(ast.copy_location(wrapped, node))
        return self.generic_visit(node)


def wrap(nodes: List[ast.AST], where) -> None:
    """Wrap the pipeline's expression in ``nodes`` (changed in place; the planner checked
    that both variants have it)."""
    wrapper = _Wrap(*where)
    for node in nodes:
        wrapper.visit(node)


def install(worker, namespace: dict) -> None:
    dataset_type = worker.tf.data.Dataset

    def capture(value):
        if isinstance(value, dataset_type):
            raise Captured(value)
        return value

    namespace[NAME] = capture


def build(worker, which: str, run) -> Any:
    """The dataset one variant builds: ``run()`` runs its code until the wrapped expression."""
    worker.seed()
    try:
        run()
    except Captured as caught:
        return caught.dataset
    except Exception as exc:
        if which == "fixed":
            exc.__tfp_variant__ = True  # type: ignore[attr-defined]
        raise
    raise NotReached()


def measure(worker, datasets: Dict[str, Any], line: int, with_step: bool) -> dict:
    """Iterate both datasets; a Measurement's result plus what was timed."""
    from tflint_perf.verify.equality import Materialiser

    count, seconds = 0, 0.0
    for _ in range(2):  # the first pass warms up (tf.function tracing, file caches)
        count, start = 0, time.perf_counter()
        for _element in datasets["baseline"]:
            count += 1
            seconds = time.perf_counter() - start
            if count >= MAX_ELEMENTS or seconds >= CALIBRATE_S:
                break
    if not count:
        return {"status": "unverified", "reason": f"the dataset built at line {line} is empty"}
    step = seconds / count if with_step else 0.0
    materialise = Materialiser(worker.tf)

    def runner(dataset):
        def run():
            elements = []
            start = time.perf_counter()
            for element in dataset.take(count):
                elements.append(element)
                if step:
                    time.sleep(step)
            return time.perf_counter() - start, materialise(elements)

        return run

    result = Measurement(
        worker,
        runner(datasets["baseline"]),
        runner(datasets["fixed"]),
        State(worker.np, []),
    ).run()
    result["alone"] = (
        f"the dataset built at line {line} iterated alone: its first {count} element(s)"
    )
    if step:
        result["alone"] += (
            f", each followed by a stand-in step of {step * 1000:.1f} ms (a sleep as long as the "
            "original takes to make one element, where a training step would run)"
        )
    return result


def where(text: str, result: dict) -> str:
    """Where the measurement ran, and what was timed when it was the pipeline alone."""
    alone = result.get("alone")
    return f"{text}, {alone}" if alone else text
