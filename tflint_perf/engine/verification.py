"""The contract between a rule and ``--verify``: what verifying a finding needs.

A rule declares it as the class attribute ``verification`` (default:
``Verification()``, a speedup measured against the finding's own fix).
``tflint_perf.verify`` reads only this; it holds no table keyed by rule
code, so adding a rule never means editing ``verify/``::

    class ElementwiseLoop(Rule):
        verification = Verification(
            inputs=(Input("iterated", InputKind.ROWS),),
            rewrite=Rewrite.STACK_TO_VECTOR,
        )

The vocabulary (input kinds, rewrites, observations) is closed: each word is
implemented once in ``verify/``; a new word is a new capability there, a new
rule that uses existing words is not.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Optional, Tuple


class Purpose(str, Enum):
    """What a finding claims, and so what verifying it means."""

    SPEEDUP = "speedup"  # the fix computes the same values faster: compare, then time
    FAILURE = "failure"  # the flagged code makes TensorFlow fail or ignore a setting: observe


class Timing(str, Enum):
    WARM = "warm"  # steady state: definitions (and tf.function caches) kept between timed runs
    COLD = "cold"  # every timed run from fresh definitions: the cost is tracing itself


class InputKind(str, Enum):
    """The array a parameter gets when nothing calls the flagged function (``size`` = --verify-size)."""

    ROWS = "rows"  # size x 32: a batch of rows for a per-row loop
    IMAGE = "image"  # side x side, side = 2 * sqrt(size): a single-channel image
    KERNEL = "kernel"  # 3 x 3: a small filter
    VECTOR = "vector"  # size
    SCALAR = "scalar"  # a Python float, for each parameter used only in arithmetic (a coefficient)


class Rewrite(str, Enum):
    """Verification-only rewrites (measured, never written) for findings without a fix."""

    STACK_TO_VECTOR = "stack-to-vector"  # per-row results stacked -> one expression on the tensor
    CONCAT_ONCE = "concat-once"  # x = concat([x, piece]) per iteration -> one concat after the loop
    HOIST = "hoist"  # a loop-invariant `name = build(...)` moved before the loop
    PREDICT_AS_CALL = "predict-as-call"  # model.predict(x) -> model(x, training=False).numpy()
    # fit per sample in a loop -> one fit on the stacked samples; batch_size=1 -> 32
    BATCH_SAMPLES = "batch-samples"


class Iterate(str, Enum):
    """How the dataset a flagged pipeline builds is timed on its own (``Verification.iterate``)."""

    ALONE = "alone"  # as fast as it makes its elements: the pipeline's own rate
    WITH_STEP = "with-step"  # each element followed by a stand-in step (what prefetching overlaps)


class Observe(str, Enum):
    """How a failure finding shows when the module runs (``Purpose.FAILURE``)."""

    CONFIG_CALL = "config-call"  # a tf.config call at the finding raises RuntimeError
    VISIBLE_GPUS = "visible-gpus"  # TensorFlow sees more GPUs than CUDA_VISIBLE_DEVICES allows


@dataclass(frozen=True)
class Input:
    """One parameter of the flagged function, by the role it plays for the rule.

    The parameter is the one named like ``names`` (a regular expression,
    matched in full) when given, else one that a loop at the finding
    iterates over or indexes. Roles are matched in the order declared.
    """

    role: str
    kind: InputKind
    names: str = ""


@dataclass(frozen=True)
class Verification:
    purpose: Purpose = Purpose.SPEEDUP
    inputs: Tuple[Input, ...] = ()
    rewrite: Optional[Rewrite] = None  # measured when the finding carries no fix
    timing: Timing = Timing.WARM
    needs_gpu: bool = False  # nothing to observe or time without a GPU
    observe: Optional[Observe] = None  # FAILURE: what shows the failure
    # Why no variant can be measured at all (the fix changes what is computed
    # by design): --verify says so instead of timing anything.
    unmeasurable: str = ""
    # Why the faster variant computes other values by design (batching changes
    # the training): both are timed, nothing is compared, and the verdict says so;
    # except for a finding whose variant computes the same (Finding.extra
    # "comparable": true), compared as usual.
    differs_by_design: str = ""
    # The variant draws random numbers from other seeds (a step compiled by
    # tf.function): results that differ are judged against how far another seed
    # moves the original's own results.
    moves_random_draws: bool = False
    # The flagged method call builds a tf.data pipeline: the dataset each variant builds is
    # iterated on its own, so, not the code around it (building is lazy; training drowns it).
    iterate: Optional[Iterate] = None
