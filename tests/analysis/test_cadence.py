"""How often code in a loop runs: every iteration, or now and then."""

import pytest

from tests.analysis.snippets import context, find
from tflint_perf.analysis.cadence import RARE_INTERVAL, every_n, rare_guard
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
