"""Run the original and the faster variant: equality first, then timing (worker side).

Order, per finding:

1. first call of each (seeded, from the captured state): tracing and
   compilation; a warm-up, not reported (the original's first call would
   also absorb the process's one-time costs). First calls are measured
   apart, each in its own fresh worker and in both orders, when asked
   (``first_call_only``); variables they create join the state;
2. two compared runs of each (seeded, each from the restored state): the
   original must agree with itself, then with the variant; compared are the
   values the code returns (or binds) and every captured variable after
   the run. When the original disagrees with itself, or nothing could be
   compared, nothing is timed: there is no speedup without equality
   (except for a variant that differs by design, ``by_design``: timed, not
   compared, and the verdict says so). A variant that draws random numbers
   from other seeds (``Verification.moves_random_draws``) and differs is
   timed when it differs by at most ``SPREAD_FACTOR`` times as much as
   another seed moves the original's own results;
3. one unseeded warm-up each (seeding clears TensorFlow's caches), then
   timed pairs alternating which variant goes first: at least ``repeats``,
   more for fast code until ``MIN_TIMED_S`` was timed; then, while the
   per-pair speedups do not decide (``stats.decide``), more pairs for up to
   ``budget`` seconds more (at most ``MAX_PAIRS``), within half the time limit.
   The machine's load average is recorded before and after.
"""

from __future__ import annotations

import sys
import time
from typing import Callable, Dict, Optional

from tflint_perf.verify import stats
from tflint_perf.verify.equality import Comparison
from tflint_perf.verify.state import State, unrestorable

MIN_TIMED_S = 1.0
MAX_PAIRS = 401  # while ambiguous, within the budget
STEADY_PAIRS = 41  # enough when the speedup is clear
# A variant whose results differ from the original's by at most this many times what
# another seed changes in the original's own results is judged equal up to random draws.
SPREAD_FACTOR = 2.0


class NotReached(Exception):
    """The measured run never executed the flagged lines: measuring it says nothing."""


class Measurement:
    def __init__(
        self,
        worker,
        run_b: Callable,
        run_f: Callable,
        state: State,
        namespace=None,
        limiter=None,
        reach=None,
        by_design: str = "",
        draws_move: bool = False,
    ):
        self.worker = worker
        # (file, first line, last line) of the finding: the first run must execute one of them
        self.reach = reach
        self.reached: Optional[bool] = None
        self.runs = {"baseline": run_b, "fixed": run_f}
        self.state = state
        self.namespace = namespace if namespace is not None else {}
        self.limiter = limiter  # loops.LoopLimiter: long loops cut after the same iterations
        self.peaks: Dict[str, Optional[int]] = {"baseline": None, "fixed": None}
        # Why the variant computes other values by design (Verification.differs_by_design):
        # then both run and are timed, and nothing is compared.
        self.by_design = by_design
        self.draws_move = draws_move  # Verification.moves_random_draws

    def one(self, which: str, seeded: bool = False, seed: int = 0):
        """(seconds, {"result": value, "variables": [...]}) for one run from the restored state."""
        self.state.restore()
        if self.limiter is not None:
            self.limiter.reset()
        self.worker.seed(framework=seeded, value=seed)
        self.worker.peak_reset()
        try:
            seconds, value = self.runs[which]()
        except Exception as exc:
            if which == "fixed":  # the variant failed, not the user's code: said apart
                try:
                    exc.__tfp_variant__ = True  # type: ignore[attr-defined]
                except AttributeError:
                    pass
            raise
        peak = self.worker.peak()
        if peak is not None:
            self.peaks[which] = max(self.peaks[which] or 0, peak)
        return seconds, {"returned": value, "variables": self.state.values()}

    def run(self, arguments=()) -> dict:
        from tflint_perf.verify.imports import SHORTEN

        SHORTEN["on"] = False  # the measured code trains as written
        try:
            return self._run(arguments)
        finally:
            SHORTEN["on"] = True

    def _first_baseline(self) -> None:
        """The original's first run; the first of all is traced: does it run the flagged lines?"""
        if self.reach is None or self.reached is not None:
            self.one("baseline", seeded=True)
            return
        path, first, last = self.reach
        hit: list = []

        def local(frame, event, arg):
            if event == "line" and first <= frame.f_lineno <= last:
                hit.append(frame.f_lineno)
            return None if hit else local

        def calls(frame, event, arg):
            return local if frame.f_code.co_filename == path and not hit else None

        previous = sys.gettrace()
        sys.settrace(calls)
        try:
            self.one("baseline", seeded=True)
        finally:
            sys.settrace(previous)
        self.reached = bool(hit)

    def _run(self, arguments) -> dict:
        only = getattr(self.worker, "first_call_only", None)
        if only:
            self.reach = None
        if self.limiter is not None and self.limiter.limits is None:
            # the original once, to count the long loops' iterations (given to first-call workers)
            self.limiter.calibrate(self._first_baseline)
        if only:  # a fresh worker for one first call: nothing else ran before it
            seconds, _ = self.one(only, seeded=True)
            return {"first_call_only": only, "seconds": seconds}
        self._first_baseline()
        if self.reached is False:
            self.state.restore()
            raise NotReached()
        self.one("fixed", seeded=True)
        created = self.state.capture()
        b1, f1, b2, f2 = [self.one(which, seeded=True)[1] for which in ("baseline", "fixed") * 2]
        result = {
            "limited": self.limiter.describe() if self.limiter is not None else "",
            "loop_limits": self.limiter.limits if self.limiter is not None else None,
            "tolerance": {"rtol": self.worker.rtol, "atol": self.worker.atol},
            "state_variables": len(self.state),
            "created_variables": created,
        }
        if self.by_design:
            result.update(equal=None, by_design=self.by_design)
        elif not self.judge(result, b1, f1, b2, f2, arguments):
            return result
        result.update(self.timed_pairs())
        return result

    def judge(self, result: dict, b1, f1, b2, f2, arguments=()) -> bool:
        """Equality into ``result``; False when the runs are not comparable (then nothing is timed)."""
        rtol, atol = self.worker.rtol, self.worker.atol
        determinism = Comparison(rtol, atol)
        if not determinism.equal(b1, b2):
            hints = unrestorable(self.namespace, arguments)
            result["equal"] = None
            result["unrestorable"] = True
            result["equal_note"] = (
                "state cannot be restored: the original gives different results on two runs "
                f"from the same captured state ({determinism.first_difference})"
                + (f"; {'; '.join(hints)}" if hints else "")
            )
            return False
        comparison = Comparison(rtol, atol)
        equal = comparison.equal(b1, f1) and comparison.equal(b2, f2)
        result["max_abs_diff"] = comparison.max_abs_diff
        if comparison.compared == 0:
            result["equal"] = None
            result["equal_note"] = "the flagged code produced no value that can be compared"
            return False
        result["equal"] = equal
        result["compared"] = comparison.compared
        if not equal:
            result["equal_note"] = comparison.first_difference
            spread = self.seed_spread(b1) if self.draws_move else None
            if spread is not None and comparison.max_abs_diff <= SPREAD_FACTOR * spread:
                result["equal"] = None
                result["random_draws"] = (
                    "the code draws random numbers and the fix draws others; its results differ "
                    f"from the original's by at most {comparison.max_abs_diff:.3g}, the "
                    f"original's from its own under another seed by {spread:.3g}"
                )
                return True
            if spread is not None:
                result["equal_note"] += (
                    f", more than the original's results move under another seed ({spread:.3g})"
                )
        return equal

    def seed_spread(self, reference) -> Optional[float]:
        """How far the original's results move when seeded otherwise (None: they do not).

        A fix that moves random draws (a step compiled by ``tf.function`` draws
        from other seeds) cannot give equal results; it is judged against the
        spread the draws themselves cause.
        """
        other = self.one("baseline", seeded=True, seed=1)[1]
        comparison = Comparison(self.worker.rtol, self.worker.atol)
        if comparison.equal(reference, other) or not comparison.max_abs_diff:
            return None
        return comparison.max_abs_diff

    def timed_pairs(self) -> dict:
        start = time.perf_counter()
        deadline = start + self.worker.timeout * 0.5
        budget = getattr(self.worker, "budget", 30.0)
        budget_end: Optional[float] = None  # the extra pairs' budget starts after the minimum
        load_before = stats.load_average()
        self.one("baseline")
        self.one("fixed")
        times: Dict[str, list] = {"baseline": [], "fixed": []}
        note, pairs = "", 0
        while True:
            order = ("baseline", "fixed") if pairs % 2 == 0 else ("fixed", "baseline")
            for which in order:
                times[which].append(self.one(which)[0])
            pairs += 1
            spent = sum(times["baseline"]) + sum(times["fixed"])
            now = time.perf_counter()
            if pairs >= self.worker.repeats and spent >= MIN_TIMED_S or pairs >= STEADY_PAIRS:
                if budget_end is None:
                    budget_end = now + budget
                decided = stats.decide(stats.ratios(times["baseline"], times["fixed"]))[0]
                if decided != stats.AMBIGUOUS or pairs >= MAX_PAIRS or now > budget_end:
                    break
            if now + spent / pairs > deadline:
                if pairs < self.worker.repeats:
                    note = f"only {pairs} timed pair(s) fit in half the time limit"
                break
        self.state.restore()
        return {
            "baseline_times": times["baseline"],
            "fixed_times": times["fixed"],
            "repeats": pairs,
            "timed_for_s": time.perf_counter() - start,
            "load_average": [load_before, stats.load_average()],
            "peak_memory_bytes": self.peaks if any(self.peaks.values()) else None,
            "note": note,
        }
