"""How often code in a loop runs: every iteration, or now and then."""

import pytest

from tests.analysis.snippets import context, find
from tflint_perf.analysis.cadence import RARE_INTERVAL, every_n, once_per_run, rare_guard
from tflint_perf.engine import cst


def in_loop(*lines: str):
    """``work()`` in a loop of many steps, under ``lines`` ("|" marks one indent)."""
    body = "\n".join("    " + line.replace("|", "    ") for line in lines)
    ctx = context(f"import tensorflow as tf\nlast = 0\nfor step in range(100000):\n{body}\n")
    return ctx, find(ctx, cst.Call, "work()")


@pytest.mark.parametrize(
    "lines, rare",
    [
        ((f"if step % {RARE_INTERVAL} == 0:", "|work()"), True),  # the limit: rare
        ((f"if step % {RARE_INTERVAL - 1} == 0:", "|work()"), False),  # just under it
        (("if not step % 500:", "|work()"), True),
        (("if step - last >= every:", "|last = step", "|work()"), True),  # a throttle
        (("if step - last >= every:", "|last = 0", "|work()"), False),  # not reset to now
        (("if step >= last + every:", "|last = step", "|work()"), True),  # the mark plus
        (("if step >= every + last:", "|last = step", "|work()"), True),
        (("if step >= last + every:", "|every = step", "|work()"), True),  # either term
        (("if step >= last + every:", "|last = step + 1", "|work()"), False),  # not now
        (("if first or step - last > every:", "|last = step", "|work()"), True),  # one of
        (("if first or step > 10:", "|last = step", "|work()"), False),  # no interval
        (("try:", "|train()", "except tf.errors.OutOfRangeError:", "|work()"), True),
        (("try:", "|train()", "except StopIteration:", "|work()"), True),
        (("try:", "|train()", "except ValueError:", "|work()"), False),
        (("if step > 10:", "|work()"), False),
        (("if step % 500:", "|pass", "else:", "|work()"), False),  # the other iterations
        (("work()",), False),
    ],
)
def test_rare_guards(lines, rare):
    ctx, call = in_loop(*lines)
    assert (rare_guard(ctx, call) is not None) is rare


def test_every_n_gives_small_intervals_too():
    ctx, call = in_loop("if step % 10 == 0:", "|work()")
    assert every_n(ctx, call) == ("if step % 10 == 0", 10)
    assert rare_guard(ctx, call) is None


@pytest.mark.parametrize(
    "test, every",
    [
        ("step % 500 == 0 and step > 0", 500),  # the period with another condition
        ("0 == step % 500", 500),
        ("step % 500 != 0", None),  # the other 499 iterations
        ("step % 500", None),
    ],
)
def test_where_the_period_sits_in_the_test(test, every):
    ctx, call = in_loop(f"if {test}:", "|work()")
    found = every_n(ctx, call)
    assert (found[1] if found else None) == every


@pytest.mark.parametrize(
    "lines, every, rare",
    [
        (("count += 1", "if count > 500:", "|count = 0", "|work()"), 500, True),
        (
            ("count += 1", f"if count >= {RARE_INTERVAL}:", "|work()", "|count = 0"),
            RARE_INTERVAL,
            True,
        ),
        (
            ("count += 1", f"if count == {RARE_INTERVAL - 1}:", "|count = 0", "|work()"),
            RARE_INTERVAL - 1,
            False,
        ),
        (
            ("count += 1", "if count > last:", "|count = 0", "|work()"),
            None,
            False,
        ),  # last = 0: no period
        (
            ("count += 1", "if count > 500:", "|count = step", "|work()"),
            None,
            False,
        ),  # not back to a number
        (("count += 1", "if count > 500:", "|work()"), None, False),  # never reset
        (("count += 1", "if count > n:", "|count = 0", "|work()"), None, False),  # n unknown
    ],
)
def test_a_step_counter_reset_in_its_block_gives_the_period(lines, every, rare):
    ctx, call = in_loop(*lines)
    found = every_n(ctx, call)
    assert (found[1] if found else None) == every
    assert (rare_guard(ctx, call) is not None) is rare


@pytest.mark.parametrize(
    "header, lines, once",
    [
        # the last iteration: a block that leaves the loop, or one under a test that ends it
        ("for step in range(100000):", ("if done:", "|work()", "|break"), True),
        ("for step in range(100000):", ("if done:", "|work()", "|return step"), True),
        ("for step in range(100000):", ("if done:", "|work()", "if done:", "|break"), True),
        (
            "for step in range(100000):",
            ("if done and step > 3:", "|work()", "if done:", "|break"),
            True,
        ),
        (
            "for step in range(100000):",
            ("if done or step > 3:", "|work()", "if done:", "|break"),
            False,
        ),
        ("while not done:", ("if done:", "|work()"), True),
        ("while not done:", ("if done:", "|for i in range(n):", "||work()"), True),
        ("while not done:", ("if finished:", "|work()"), False),
        ("for step in range(100000):", ("if done:", "|work()"), False),  # no exit on done
        (
            "for step in range(100000):",
            ("if done:", "|for i in range(n):", "||work()", "||break"),
            False,
        ),  # that break leaves the inner loop
        # the first iteration: the loop's own count at 0
        ("for step in range(100000):", ("if step == 0:", "|work()"), True),
        ("for step in range(0, 100000):", ("if 0 == step:", "|work()"), True),
        ("for step, x in enumerate(xs):", ("if step == 0:", "|work()"), True),
        ("for step in range(1, 100000):", ("if step == 0:", "|work()"), False),
        ("for step in range(100000):", ("if other == 0:", "|work()"), False),
        ("for step in range(100000):", ("if step == 0:", "|pass", "else:", "|work()"), False),
        # one key of a mapping, which never repeats, against a value fixed before the loop
        ("for key, v in other.items():", ("if key == xs[-1]:", "|work()"), True),
        ("for k, (key, v) in enumerate(other.items()):", ("if key is n:", "|work()"), True),
        ("for key in other.keys():", ("if n == key:", "|work()"), True),
        ("for key, v in other.items():", ("if v == n:", "|work()"), False),  # values repeat
        ("for key in xs:", ("if key == n:", "|work()"), False),  # a list's items may repeat
        ("for key, v in other.items():", ("last = v", "if key == last:", "|work()"), False),
    ],
)
def test_code_that_runs_once_per_run_of_its_loop(header, lines, once):
    body = "\n".join("    " + line.replace("|", "    ") for line in lines)
    ctx = context(
        f"def f(xs, n, done, finished, other):\n  {header}\n{body}\n".replace("\n    ", "\n      ")
    )
    loop = ctx.nodes(cst.For)[0] if header.startswith("for") else ctx.nodes(cst.While)[0]
    assert once_per_run(ctx, find(ctx, cst.Call, "work()"), loop) is once


@pytest.mark.parametrize(
    "lines, periodic",
    [
        (("if step % 17 == 0:", "|work()"), True),  # past a handful
        (("if step % 16 == 0:", "|work()"), False),  # every 16th: a handful apart
        (("if step % every == 0:", "|work()"), True),  # a period the source does not give
        (("save = step % every == 0 or step == 0", "if save:", "|work()"), True),
        (("save = step % every == 0", "flag = save", "if flag:", "|work()"), True),
        (("save = step > 10", "if save:", "|work()"), False),
        (("if step - last >= every:", "|last = step", "|work()"), True),
        (("if step % every == 0:", "|for k in sorted(work()):", "||pass"), True),  # its iterable
        (("if step % every == 0:", "|for k in range(3):", "||work()"), False),  # another loop's
        (("work()",), False),
    ],
)
def test_now_and_then(lines, periodic):
    from tflint_perf.analysis.cadence import now_and_then

    ctx, call = in_loop(*lines)
    assert (now_and_then(ctx, call) is not None) is periodic
