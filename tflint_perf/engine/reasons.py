"""Why a rule stays silent: one enum of reasons, recorded at every exit.

A rule that looks at code and decides not to report calls
``self.silent(node, Reason.X, detail)``. Normal runs record nothing (no
cost); ``tflint-perf why FILE:LINE`` lints with recording on and prints,
for each rule, whether it reports at that line and, if not, the reasons of
the exits that touch it. Near-miss fixtures name the reason they expect
with an inline marker (``# ok: TFP101 tiny-loop``), checked by the tests.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Reason(enum.Enum):
    # Cost: the work does not repeat, or not enough to matter.
    TINY_LOOP = "tiny-loop"  # a handful of iterations (analysis/trips.py)
    RUNS_ONCE = "runs-once"  # not in a loop, and no loop runs it
    NOT_DATA = "not-data"  # the loop does not walk data of the kind the rule is about
    COVERED = "covered"  # the code around it is reported already (one finding per trap)
    OTHER_RULE = "other-rule"  # another rule reports this code (a convolution nest: TFP102)
    RARELY = "rarely"  # runs once per epoch, or every N steps: not on every step
    # Already right.
    COMPILED = "compiled"  # under tf.function (or another compiler)
    ALREADY_DONE = "already-done"  # the fix is there (prefetch, num_parallel_calls, ...)
    BATCHED = "batched"  # the call already gets a batch, not one sample
    # Deliberate.
    DISPLAY_ONLY = "display-only"  # the loop only shows each element to a person
    DEMO = "demo"  # looks at a few records (take(1), a peek)
    DELIBERATE = "deliberate"  # the code needs it (stateful RNN, a new model per fold)
    SEQUENTIAL = "sequential"  # each iteration needs the previous one
    TEST_CODE = "test-code"
    # Order: what must come first does.
    IN_TIME = "in-time"  # runs before what it must precede (configuring before the start)
    OTHER_BRANCH = "other-branch"  # the two are in different branches: no run reaches both
    # Unsure: silent rather than wrong.
    UNRESOLVED = "cannot-resolve"  # what a name holds or a call runs is not known
    OTHER_LIBRARY = "other-library"  # a look-alike API of another library
    NOT_WORK = "no-real-work"  # no work worth moving or parallelising
    UNSAFE_TO_TELL = "ambiguous"  # the evidence points both ways


@dataclass(frozen=True)
class Silence:
    """One recorded silent exit of a rule."""

    code: str
    line: int
    end_line: int
    reason: Reason
    detail: str = ""
