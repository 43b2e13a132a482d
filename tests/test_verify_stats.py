"""The pieces of --verify's measurement that need no worker: verdicts from per-pair ratios,
long loops cut the same in both variants, the working copy's layout."""

import ast
import os

import pytest

from tflint_perf.verify import loops, stats, workcopy
from tflint_perf.verify.verdicts import INCONCLUSIVE, NO_SPEEDUP, VERIFIED, timing_verdict


def _raw(baseline, fixed):
    return {
        "baseline_times": baseline,
        "fixed_times": fixed,
        "repeats": len(baseline),
        "equal": True,
        "first_call_s": None,
        "load_average": [1.5, 1.6],
        "timed_for_s": 3.0,
    }


def test_the_interval_of_the_median_is_distribution_free():
    assert stats.interval([5, 1, 4, 2, 3, 7, 6]) == (1, 7)  # n = 7: the extremes (99%)
    values = list(range(1, 42))  # n = 41: the 14th and 28th values
    assert stats.interval(values) == (14, 28)
    assert stats.median([3, 1, 2]) == 2


def test_a_few_spoiled_pairs_do_not_move_the_verdict():
    """A burst of load hits 5 of 41 pairs: their ratios drop to about 1, the verdict stays."""
    baseline = [0.070] * 36 + [0.070] * 5
    fixed = [0.010] * 36 + [0.065] * 5
    v = timing_verdict(_raw(baseline, fixed), "CPU")
    assert v["status"] == VERIFIED and v["speedup"] == pytest.approx(7.0)
    assert v["interval"][0] > 6 and "load average 1.50 -> 1.60" in v["reason"]


@pytest.mark.parametrize(
    "fixed, status, words",
    [
        ([0.0099] * 41, NO_SPEEDUP, "no speedup worth the name here: 1.01x"),
        ([0.0120] * 41, NO_SPEEDUP, "the fix is slower here"),
        ([0.0080] * 20 + [0.0120] * 21, INCONCLUSIVE, "the timings do not decide"),
    ],
)
def test_no_speedup_and_inconclusive_are_told_apart(fixed, status, words):
    v = timing_verdict(_raw([0.010] * 41, fixed), "CPU")
    assert v["status"] == status and words in v["reason"], v


def test_no_verdict_mentions_a_first_call_unless_measured_in_fresh_workers():
    v = timing_verdict(_raw([0.010] * 41, [0.0099] * 41), "CPU")
    assert v["first_call_s"] is None and "first call" not in v["reason"]


# -- long loops -----------------------------------------------------------------
BODY = """\
total = 0
for epoch in range(1000):
    for i in range(50):
        total += slow(i)
done = [v for v in range(3)]
"""


def _limited(source, limits=None):
    body, lines = loops.instrument(ast.parse(source).body)
    limiter = loops.LoopLimiter(lines, limits)
    code = compile(ast.Module(body=body, type_ignores=[]), "<m>", "exec")
    return code, limiter


def test_long_loops_are_cut_by_a_warm_calibration_and_replayed_exactly(monkeypatch):
    monkeypatch.setattr(loops, "RUN_S", 0.05)
    code, limiter = _limited(BODY)

    def slow(i):
        import time

        time.sleep(0.002)
        return i

    runs = []

    def run():
        namespace = {"slow": slow, loops.NAME: limiter}
        limiter.reset()
        exec(code, namespace)
        runs.append(namespace["total"])

    limiter.calibrate(run)
    assert limiter.limits and limiter.cut  # the outer loop was cut
    run()
    run()
    assert runs[-1] == runs[-2]  # every later run does the same iterations
    assert "ran its first" in limiter.describe() and "line 2" in limiter.describe()


def test_loops_with_the_same_header_are_counted_apart():
    source = "for i in range(n):\n    a(i)\nfor i in range(n):\n    b(i)\n"
    _, lines = loops.instrument(ast.parse(source).body)
    assert sorted(lines.values()) == [1, 3]


def test_cutting_that_breaks_the_code_falls_back_to_full_runs(monkeypatch):
    monkeypatch.setattr(loops, "RUN_S", 0.0)
    source = "seen = []\nfor i in range(20):\n    seen.append(i)\nfor j in range(20):\n    seen[19 - j]\n"
    code, limiter = _limited(source)

    def run():
        limiter.reset()
        exec(code, {loops.NAME: limiter})

    limiter.calibrate(run)  # the second loop reads what the first would have filled
    assert limiter.limits == {} and limiter.describe() == ""
    run()  # and the code runs whole


# -- the working copy ----------------------------------------------------------------
def test_the_working_copy_copies_the_folder_skips_repositories_and_links_what_is_large(
    tmp_path, monkeypatch
):
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "HEAD").write_text("ref\n")
    (project / "data").mkdir()
    (project / "data" / "small.csv").write_text("1,2\n")
    (project / "big.bin").write_bytes(b"x" * 2048)
    script = project / "train.py"
    script.write_text("print(1)\n")
    monkeypatch.setattr(workcopy, "LARGE_FILE", 1024)
    copy = workcopy.make(str(tmp_path / "tmp"), str(script))
    cwd = copy.cwd
    assert copy.script == os.path.join(cwd, "train.py") and os.path.isfile(copy.script)
    assert open(os.path.join(cwd, "data", "small.csv")).read() == "1,2\n"
    assert not os.path.exists(os.path.join(cwd, ".git"))
    assert os.path.islink(os.path.join(cwd, "big.bin"))  # readable, never writable
    assert "linked, not copied" in copy.note
    env = copy.environment({"HOME": "/root", "KERAS_HOME": "/data/keras"})
    assert env["HOME"] == copy.home and "KERAS_HOME" not in env and env["TMPDIR"] == copy.tmpdir


class _SeededWorker:
    """What Measurement needs of a worker, with the seed of the last run kept."""

    rtol, atol = 1e-4, 1e-5

    def __init__(self) -> None:
        self.value = 0

    def seed(self, framework: bool = True, value: int = 0) -> None:
        self.value = value

    def peak_reset(self) -> None:
        pass

    def peak(self):
        return None


class _NoState:
    def restore(self) -> None:
        pass

    def values(self) -> dict:
        return {}


@pytest.mark.parametrize(
    "fixed, draws_move, judged",
    [
        (1.15, True, "random"),  # within twice what another seed moves (0.1): up to random draws
        (1.5, True, "mismatch"),  # further than that: a difference of the fix's own
        (1.15, False, "mismatch"),  # a rule whose variant keeps the draws: compared exactly
    ],
)
def test_a_variant_that_moves_random_draws_is_judged_by_the_seeds_spread(fixed, draws_move, judged):
    from tflint_perf.verify.measure import Measurement

    worker = _SeededWorker()
    # the original's result depends on the seed: 1.0 under seed 0, 1.1 under seed 1
    measurement = Measurement(
        worker,
        lambda: (0.0, 1.0 + 0.1 * worker.value),
        lambda: (0.0, fixed),
        _NoState(),
        draws_move=draws_move,
    )
    b = {"returned": 1.0, "variables": {}}
    f = {"returned": fixed, "variables": {}}
    result: dict = {}
    timed = measurement.judge(result, b, f, b, f)
    if judged == "random":
        assert timed and result["equal"] is None
        assert "differ from the original's by at most 0.15" in result["random_draws"]
        assert "under another seed by 0.1" in result["random_draws"]
    else:
        assert not timed and result["equal"] is False and "random_draws" not in result
        if draws_move:
            assert (
                "more than the original's results move under another seed (0.1)"
                in (result["equal_note"])
            )


class _TimingWorker(_SeededWorker):
    repeats, timeout, budget = 7, 400.0, 30.0


def test_the_budget_buys_extra_pairs_after_the_minimum_even_when_pairs_are_slow(monkeypatch):
    """Runs of 3 s (a clock of our own): the seven required pairs take 42 s, longer than the
    budget itself, and an ambiguous speedup still gets the budget's worth of extra pairs (slow
    code is where seven pairs, whose interval is their whole range, decide least)."""
    import types

    from tflint_perf.verify import measure

    clock = {"now": 0.0, "baseline": 0}
    monkeypatch.setattr(measure, "time", types.SimpleNamespace(perf_counter=lambda: clock["now"]))

    def baseline():
        clock["now"] += 3.0
        clock["baseline"] += 1
        return (3.0 if clock["baseline"] % 2 else 3.3), 0.0  # ratios 1.0 and 1.1: ambiguous

    def fixed():
        clock["now"] += 3.0
        return 3.0, 0.0

    timed = measure.Measurement(_TimingWorker(), baseline, fixed, _NoState()).timed_pairs()
    ratios = stats.ratios(timed["baseline_times"], timed["fixed_times"])
    assert stats.decide(ratios)[0] == stats.AMBIGUOUS
    assert timed["repeats"] == 13  # 7 required (42 s), then 30 s more: 6 pairs of 6 s, one over
