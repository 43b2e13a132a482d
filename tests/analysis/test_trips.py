"""The trip-count estimate: tiny, unknown or data-sized, and its boundary."""

import pytest

from tests.analysis.snippets import context, name
from tflint_perf.analysis.trips import TINY, Size, Trips
from tflint_perf.engine import cst


def estimate(source, nth=0):
    ctx = context(source)
    loops = [n for n in ctx.nodes(cst.For)] + [n for n in ctx.nodes(cst.While)]
    loops += [n for t in (cst.ListComp, cst.GeneratorExp) for n in ctx.nodes(t)]
    return ctx.shared(Trips).of(loops[nth])


@pytest.mark.parametrize(
    "header, size, count",
    [
        (f"for i in range({TINY}):", Size.TINY, TINY),  # the limit: still tiny
        (f"for i in range({TINY + 1}):", Size.DATA, TINY + 1),  # just past it
        ("for i in range(2, 10, 2):", Size.TINY, 4),
        ("for c in ['a', 'b', 'c']:", Size.TINY, 3),
        ("for i in range(N_LAYERS):", Size.TINY, 4),
        ("for i in range(len(SCALES)):", Size.TINY, 3),
        ("for i in range(EPOCHS):", Size.DATA, 100),
        ("for i in range(n):", Size.UNKNOWN, None),
        ("for i in range(len(data)):", Size.DATA, None),
        ("for i in range(data.shape[0]):", Size.DATA, None),
        ("for row in data:", Size.DATA, None),
        ("for batch in ds:", Size.DATA, None),
        ("for batch in ds.take(3):", Size.TINY, 3),
        ("for i, s in enumerate(SCALES):", Size.TINY, 3),
        ("for a, b in zip(SCALES, data):", Size.TINY, 3),
        ("while not done:", Size.DATA, None),
        ("while i < 5:", Size.TINY, 5),
    ],
)
def test_loop_headers(header, size, count):
    source = f"""
        import numpy as np
        import tensorflow as tf
        N_LAYERS = 4
        EPOCHS = 100
        SCALES = [1, 2, 4]
        data = np.zeros((100, 3))
        ds = tf.data.Dataset.range(10)
        i = 0
        {header}
            work()
        """
    found = estimate(source)
    assert (found.size, found.count) == (size, count), found.why


def test_nested_loops_multiply_and_a_data_loop_wins():
    ctx = context(
        """
        for a in range(4):
            for b in range(5):
                work()
        for row in rows_of_data():
            for k in range(2):
                other()
        """
    )
    trips = ctx.shared(Trips)
    four_by_five = trips.repeats(name(ctx, "work"))
    assert (four_by_five.size, four_by_five.count) == (Size.DATA, 20)
    assert trips.repeats(name(ctx, "other")).size is Size.UNKNOWN


def test_comprehensions_count_and_repeat_their_element_not_their_first_iterable():
    ctx = context("import numpy as np\nx = np.zeros(9)\ny = [f(v) for v in x if g(v)]\n")
    trips = ctx.shared(Trips)
    assert trips.repeats(name(ctx, "f")).size is Size.DATA
    assert trips.repeats(name(ctx, "g")).size is Size.DATA
    assert [type(n).__name__ for n in trips.loops_around(name(ctx, "x", 1))] == []


def test_a_literal_slice_of_an_array_is_counted():
    assert (
        estimate("import numpy as np\nx = np.zeros(9)\nfor row in x[:3]:\n    f(row)\n").count == 3
    )
    assert (
        estimate("import numpy as np\nx = np.zeros(9)\nfor row in x[2:40]:\n    f(row)\n").size
        is Size.DATA
    )
