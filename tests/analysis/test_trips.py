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
        ("for i in range(data.shape[0]):", Size.DATA, 100),  # np.zeros((100, 3)): 100 rows
        ("for row in data:", Size.DATA, 100),
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
    ctx = context("import numpy as np\nx = np.zeros(90)\ny = [f(v) for v in x if g(v)]\n")
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


@pytest.mark.parametrize(
    "header, size, count",
    [
        # arrays the source makes with literal sizes or from literal rows
        ("for q in np.zeros(10):", Size.TINY, 10),
        ("for i in range(arms.shape[0]):", Size.TINY, 10),
        ("for i in range(grid.shape[-1]):", Size.TINY, 3),
        ("for row in np.random.rand(5, 2):", Size.TINY, 5),
        ('for row in np.random.rand(5, 2).astype("float32"):', Size.TINY, 5),  # same shape
        ('for row in data.astype("float32"):', Size.UNKNOWN, None),  # rows not known
        ("for row in np.array([[1, 2], [3, 4]]) * 3:", Size.TINY, 2),
        ("for p in model.predict(np.array([[0.1], [0.2]])):", Size.TINY, 2),
        ("for k in np.arange(5):", Size.TINY, 5),
        ("for k in np.linspace(0.0, 1.0, 40):", Size.DATA, 40),
        # counts bound to names, and linspace's num= (its default, 50, is never assumed)
        ("for k in np.linspace(0, 1, n_imgs):", Size.TINY, 5),
        ("for k in np.linspace(0, 1, num=n_imgs):", Size.TINY, 5),
        (f"for k in np.linspace(0, 1, {TINY + 1}):", Size.DATA, TINY + 1),
        ("for k in np.arange(0, n_imgs):", Size.TINY, 5),
        ("for k in np.arange(0.0, 1.0, 0.25):", Size.TINY, 4),
        ("for k in np.linspace(0, 1):", Size.DATA, None),
        (f"for i in range(np.zeros({TINY + 1}).shape[0]):", Size.DATA, TINY + 1),
        # an array's dimensions are a handful, whatever its shape
        ("for axis in range(data.ndim):", Size.TINY, None),
        ("for axis in range(len(data.shape)):", Size.TINY, None),
    ],
)
def test_arrays_of_literal_sizes_and_dimensions(header, size, count):
    source = f"""
        import numpy as np
        data = np.load("x.npy")
        arms = np.zeros(10)
        grid = np.ones((4, 4, 3))
        n_imgs = 5
        {header}
            work()
        """
    found = estimate(source)
    assert (found.size, found.count) == (size, count), found.why


def test_loops_over_columns_are_told_apart_from_loops_over_rows():
    ctx = context(
        """
        import numpy as np
        rows, cols = np.shape(table)
        for c in range(cols):
            pass
        for j in range(table.shape[1]):
            pass
        for i in range(table.shape[0]):
            pass
        for r in range(rows):
            pass
        """
    )
    trips = ctx.shared(Trips)
    assert [trips.over_columns(loop) for loop in ctx.nodes(cst.For)] == [True, True, False, False]


@pytest.mark.parametrize(
    "body, size, count",
    [
        ("return (a, b), [c]", Size.TINY, 2),  # every return a literal: the most of them
        ("if a:|    return [a]|return [a, b, c]", Size.TINY, 3),
        ("if a:|    return [a]|return data", Size.UNKNOWN, None),  # one return is the data
        ("yield from data|return []", Size.UNKNOWN, None),  # a generator: its yields count
        ("pass", Size.UNKNOWN, None),  # returns nothing it shows
    ],
)
def test_a_call_of_a_function_whose_returns_are_literals(body, size, count):
    body = body.replace("|", "\n" + " " * 12)  # "|": a new line in the function
    source = f"""
        import numpy as np
        data = np.zeros((100, 3))
        def parts(a, b, c):
            {body}
        for p in parts(1, 2, 3):
            work()
        """
    found = estimate(source)
    assert (found.size, found.count) == (size, count), found.why


@pytest.mark.parametrize(
    "assign, size, count",
    [
        ("a, b = (f(r) for r in rows)", Size.TINY, 2),
        ("[a, b, c] = [f(r) for r in rows]", Size.TINY, 3),
        ("a, *rest = (f(r) for r in rows)", Size.UNKNOWN, None),  # a star takes any number
        ("pair = (f(r) for r in rows)", Size.UNKNOWN, None),
    ],
)
def test_a_comprehension_unpacked_into_names_runs_once_per_name(assign, size, count):
    ctx = context(f"rows = load()\n{assign}\n")
    loop = next(iter(ctx.nodes(cst.GeneratorExp) or ctx.nodes(cst.ListComp)))
    found = ctx.shared(Trips).of(loop)
    assert (found.size, found.count) == (size, count), found.why


@pytest.mark.parametrize(
    "guard, step, size, count",
    [
        ("if i > 10: continue", "i += 1", Size.TINY, 11),
        ("if i >= 10: break", "i = i + 1", Size.TINY, 10),
        (f"if i >= {TINY + 1}: break", "i += 1", Size.DATA, TINY + 1),  # just past a handful
        ("if i > 10: continue", "i += 2", Size.DATA, None),  # not one per iteration
        ("if i > 10: continue", "pass", Size.DATA, None),  # never counted up
        ("if i > 10: print(i)", "i += 1", Size.DATA, None),  # does not end the work
        ("if i < 10: continue", "i += 1", Size.DATA, None),  # skips the first ten instead
    ],
)
def test_a_counter_that_ends_the_work_caps_what_follows_it(guard, step, size, count):
    ctx = context(f"i = 0\nfor row in range(1000):\n    {guard}\n    {step}\n    work(row)\n")
    found = ctx.shared(Trips).repeats(name(ctx, "work"))
    assert found.size is size
    if count is not None:
        assert found.count == count, found.why


def test_a_counter_after_the_work_caps_nothing():
    ctx = context(
        "i = 0\nfor row in range(1000):\n    work(row)\n    if i > 10: break\n    i += 1\n"
    )
    assert ctx.shared(Trips).repeats(name(ctx, "work")).size is Size.DATA


@pytest.mark.parametrize(
    "source, size",
    [
        # A default no call here replaces: the one value the source shows.
        ("def show(items=('a', 'b', 'c')):\n    for x in items:\n        work(x)\n", Size.TINY),
        # Every call passes a small array; once, or again and again.
        ("def f(x):\n    for r in x:\n        work(r)\n\nf(np.zeros((4, 2)))\n", Size.TINY),
        (
            "def f(x):\n    for r in x:\n        work(r)\n\nfor _ in range(500):\n"
            "    f(np.zeros((4, 2)))\n",
            Size.DATA,  # the rows of an array, whatever their number per call
        ),
        ("results = []\nfor r in results:\n    work(r)\n", Size.UNKNOWN),  # a list to fill
        # A method only ever called as ``self.draw(...)``: what those calls pass.
        (
            "class R:\n    def draw(self, k):\n        for i in range(k):\n            work(i)\n"
            "    def step(self):\n        return self.draw(8)\n",
            Size.TINY,
        ),
        # ... not when a base class may call it too, nor when it is handed on.
        (
            "class R(Base):\n    def draw(self, k):\n        for i in range(k):\n"
            "            work(i)\n    def step(self):\n        return self.draw(8)\n",
            Size.UNKNOWN,
        ),
        (
            "class R:\n    def draw(self, k):\n        for i in range(k):\n            work(i)\n"
            "    def step(self):\n        run(self.draw)\n        return self.draw(8)\n",
            Size.UNKNOWN,
        ),
        # A two-input model's prediction has the rows of its inputs, not two.
        (
            "q = model.predict([np.zeros((1, 3)), np.zeros((1, 1))])\nfor r in q:\n    work(r)\n",
            Size.TINY,
        ),
        (
            "q = model.predict([states, actions])\nfor r in q:\n    work(r)\n",
            Size.UNKNOWN,
        ),
    ],
)
def test_what_callers_pass_and_defaults_bound_a_loop(source, size):
    assert estimate("import numpy as np\n" + source).size is size


@pytest.mark.parametrize(
    "body, size, count",
    [
        # Every iteration indexes a literal list of three: at most three iterations.
        ("    w = WEIGHTS[i]\n    work(w)\n", Size.TINY, 3),
        ("    work(WEIGHTS[i] * outputs[i])\n", Size.TINY, 3),
        ("    work(self.weights[i])\n", Size.TINY, 3),
        # Read on some iterations only, or past a statement that may leave: no bound
        # (``range(len(outputs))`` stays data-sized).
        ("    if i < 3:\n        work(WEIGHTS[i])\n", Size.DATA, None),
        ("    work(WEIGHTS[i] if i < 3 else 0)\n", Size.DATA, None),
        ("    if done(i):\n        continue\n    work(WEIGHTS[i])\n", Size.TINY, 3),
        ("    return\n    work(WEIGHTS[i])\n", Size.DATA, None),
        # The index changed in the body, or another index: no bound.
        ("    i = i + 1\n    work(WEIGHTS[i])\n", Size.DATA, None),
        ("    work(WEIGHTS[i - 1])\n", Size.DATA, None),
        # A list of seventeen is no handful: the header's estimate stands.
        ("    work(MANY[i])\n", Size.DATA, None),
    ],
)
def test_a_loop_indexing_a_literal_list_runs_at_most_its_length(body, size, count):
    source = (
        "WEIGHTS = [1.0, 0.5, 0.25]\n"
        f"MANY = [{', '.join(['1'] * 17)}]\n"
        "class Loss:\n"
        "    def __init__(self):\n"
        "        self.weights = WEIGHTS\n"
        "    def __call__(self, outputs):\n"
        "        for i in range(len(outputs)):\n"
        + "".join("        " + line + "\n" for line in body.splitlines())
    )
    found = estimate(source)
    assert (found.size, found.count) == (size, count), found.why


@pytest.mark.parametrize(
    "header, size, count",
    [
        ("for x in [0] * 100:", Size.DATA, 100),  # a list repeated: 100 items, not one
        ("for x in 3 * [1, 2]:", Size.TINY, 6),
        ("for x in np.array([[1, 1], [1, -1]]) * 3:", Size.TINY, 2),  # array math: 2 rows
    ],
)
def test_a_repeated_list_has_its_items_times_the_count(header, size, count):
    found = estimate(f"import numpy as np\n{header}\n    work(x)\n")
    assert (found.size, found.count) == (size, count), found.why


@pytest.mark.parametrize(
    "wait, paced",
    [
        ('answer = input("more? ")', True),
        ("cv2.waitKey(0)", True),  # until a key
        ("cv2.waitKey()", True),
        ("key = cv2.waitKey(0) & 0xFF", True),
        ("plt.waitforbuttonpress()", True),
        ("cv2.waitKey(1)", False),  # a millisecond: a video loop
        ("cv2.waitKey(delay)", False),  # a delay not known to be 0
        ("if verbose:\n                cv2.waitKey(0)", False),  # on some iterations only
    ],
)
def test_a_loop_that_waits_for_a_person_is_paced(wait, paced):
    source = f"""
        import cv2
        import matplotlib.pyplot as plt
        for path in paths:
            show(path)
            {wait}
        """
    found = estimate(source)
    assert found.paced is paced
    assert found.tiny is paced


@pytest.mark.parametrize(
    "fill, call, tiny",
    [
        ("if levels is None:\n        levels = [3, 4, 5]", "", True),
        ("if levels is None:\n        levels = [3, 4, 5]", "f(levels=list(range(40)))", False),
        ("if levels is None:\n        levels = [3, 4, 5]", "f()", True),  # the fill again
        ("if levels is not None:\n        levels = [3, 4, 5]", "", False),  # the other test
        ("levels = [3, 4, 5]", "", True),  # an assignment that always runs: the literal
        ("if verbose:\n        levels = [3, 4, 5]", "", False),  # not the None test
    ],
)
def test_a_none_default_the_function_fills_in(fill, call, tiny):
    source = f"""
def f(levels=None, verbose=False):
    {fill}
    for level in levels:
        work(level)
{call}
"""
    assert estimate(source).tiny is tiny


@pytest.mark.parametrize(
    "header, tiny",
    [
        ("for k in np.arange(self.k):", True),  # as range(self.k): the default, 5
        ("for k in range(self.k):", True),
        ("for k in np.arange(self.n):", False),  # the default is 50
    ],
)
def test_counts_from_the_defaults_of_a_class_its_super_call_names(header, tiny):
    source = f"""
import numpy as np
class Base:
    pass
class Experts(Base):
    def __init__(self, k=5, n=50):
        super(Experts, self).__init__()
        self.k = k
        self.n = n
    def step(self):
        {header}
            work(k)
"""
    assert estimate(source).tiny is tiny


@pytest.mark.parametrize(
    "rows, size",
    [(TINY, Size.TINY), (TINY + 1, Size.DATA), ("n", Size.DATA)],
)
def test_rows_a_reader_batch_has_are_its_argument(rows, size):
    source = f"""
from tensorflow.examples.tutorials.mnist import input_data
mnist = input_data.read_data_sets("d")
n = int(input())
images, labels = mnist.train.next_batch({rows})
for image in images:
    print(image * 2)
"""
    found = estimate(source)
    assert found.size is size
    assert found.count == (rows if isinstance(rows, int) else None)
