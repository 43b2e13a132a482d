"""The one vectoriser: a per-element loop in, the whole-array statements out (or None)."""

import pytest

from tests.analysis.snippets import context
from tflint_perf.analysis.elementwise import LoopFacts
from tflint_perf.analysis.vectorise import Vectoriser
from tflint_perf.analysis.walks import walk_of
from tflint_perf.engine import cst


def plan(source, nth=0):
    """The statements replacing the ``nth`` loop (comprehensions after statements)."""
    ctx = context(source)
    loops = [n for t in (cst.For, cst.While, cst.ListComp) for n in ctx.nodes(t)]
    facts = LoopFacts(ctx, walk_of(ctx, loops[nth]))
    assert facts.blocker is None, facts.blocker
    found = Vectoriser(facts).plan()
    return None if found is None else found.statements


@pytest.mark.parametrize(
    "body, expected",
    [
        # the DQN target update of issue 22: fancy indexing, an axis reduction per row
        (
            "for i in range(batch_size):\n"
            "    target[i][action[i]] = reward[i] + gamma * np.amax(target_next[i])",
            "target[np.arange(batch_size), action] = reward + gamma * np.amax(target_next, axis=1)",
        ),
        # the same through a row alias written through
        (
            "for i in range(batch_size):\n"
            "    t = target[i]\n"
            "    t[action[i]] = reward[i] + gamma * np.max(target_next[i])",
            "target[np.arange(batch_size), action] = reward + gamma * np.max(target_next, axis=1)",
        ),
        # terminal transitions: an if/else pair into one element is np.where
        (
            "for i in range(batch_size):\n"
            "    if done[i]:\n"
            "        target[i, action[i]] = reward[i]\n"
            "    else:\n"
            "        target[i, action[i]] = reward[i] + gamma * np.amax(target_next[i])",
            "target[np.arange(batch_size), action] = np.where(done, reward, reward + gamma * "
            "np.amax(target_next, axis=1))",
        ),
        # terminal transitions appended to one list: np.where keeps the list's order
        (
            "done = np.zeros(32, bool)\nreward = np.ones(32)\nq_next = np.ones((32, 4))\ny = []\n"
            "for i in range(len(done)):\n"
            "    if done[i]:\n"
            "        y.append(reward[i])\n"
            "    else:\n"
            "        y.append(reward[i] + gamma * np.max(q_next[i]))",
            "y.extend(np.where(done, reward, reward + gamma * np.max(q_next, axis=1)))",
        ),
        ("for i in range(len(x)):\n    out[i] = np.exp(x[i]) * 2", "out[:] = np.exp(x) * 2"),
        (
            "for i in range(2, len(x)):\n    out[i] = abs(x[i])",
            "out[2:len(x)] = np.abs(x[2:len(x)])",
        ),
        ("for i in range(len(x)):\n    total += x[i] ** 2", "total += np.sum(x ** 2, axis=0)"),
        (
            "for i in range(len(x)):\n    if x[i] > 0:\n        n += 1",
            "n += np.count_nonzero(x > 0)",
        ),
        (
            "for i in range(len(x)):\n    sums[idx[i]] += x[i]",
            "np.add.at(sums, idx, x)",
        ),
        ("for i in range(len(x)):\n    out[i] = np.dot(emb[i], q)", "out[:] = np.dot(emb, q)"),
        ("for i in range(len(x)):\n    out[i] = np.dot(q, emb[i])", "out[:] = np.dot(emb, q.T)"),
        (
            "for i in range(len(x)):\n    out[i] = np.reshape(x[i], (28, 28, 1))",
            "out[:] = np.reshape(x, (-1, 28, 28, 1))",
        ),
        (
            "for i in range(len(x)):\n    out[i] = x[i] if x[i] > 0 else 0.0",
            "out[:] = np.where(x > 0, x, 0.0)",
        ),
        (
            "i = 0\nwhile i < len(x):\n    out[i] = np.log1p(x[i])\n    i += 1",
            "out[:] = np.log1p(x)",
        ),
        # the results stacked after the loop: the stacking statement is replaced too
        (
            "rows = []\nfor r in x:\n    rows.append(np.linalg.norm(r - c))\nnorms = np.array(rows)",
            "norms = np.linalg.norm(x - c, axis=1)",
        ),
        # a shifted index is an array of indices
        (
            "for i in range(1, len(x)):\n    out[i] = x[i] - x[i - 1]",
            "out[1:len(x)] = x[1:len(x)] - x[np.arange(1, len(x)) - 1]",
        ),
        # several results of one loop: one statement each, in order
        (
            "for i in range(len(x)):\n    a[i] = x[i] + 1\n    b[i] = a[i] * 2",
            "a[:] = x + 1\nb[:] = a * 2",
        ),
    ],
)
def test_loops_become_whole_array_statements(body, expected):
    source = (
        "import numpy as np\n"
        "x = np.zeros((100, 8))\nemb = np.zeros((100, 8))\nout = np.zeros(100)\n"
        "target = np.zeros((32, 4))\ntarget_next = np.zeros((32, 4))\n"
        "a = np.zeros(100)\nb = np.zeros(100)\nsums = np.zeros((5, 8))\n"
        "total = 0.0\nn = 0\n" + body + "\n"
    )
    assert "\n".join(plan(source) or []) == expected


def test_a_comprehension_stacked_by_a_call_is_replaced_with_the_call():
    source = """
        import numpy as np
        x = np.zeros((50, 3))
        m = np.zeros((50, 4))
        y = np.array([np.outer(x[i], m[i]) for i in range(len(x))])
        """
    assert plan(source) == ["x[:, :, None] * m[:, None, :]"]


def test_a_list_that_may_be_python_becomes_an_array_before_arithmetic():
    # 2 * reward would repeat a list: the whole-array form converts it first
    source = """
        import numpy as np
        def f(q, reward, n):
            out = np.zeros(n)
            for i in range(n):
                out[i] = 2 * reward[i] + q[i, 0]
            return out
        """
    assert plan(source) == ["out[:] = 2 * np.asarray(reward) + q[:, 0]"]


@pytest.mark.parametrize(
    "body",
    [
        "for i in range(len(x)):\n    out[i] = np.sum(x[i], keepdims=True)",  # keeps a row axis
        "for i in range(len(x) - 3):\n    out[i] = x[i:i + 3].sum()",  # a window
        "for i in range(len(x)):\n    out[i] = pair_sum(x[i])",  # a helper that is not element-wise
        "for i in range(len(x)):\n    out[i] = codes[x[i]]",  # a dict per element
        "for i in range(len(x)):\n    out[i] = x[i] + 1\n    k = 2",  # more than results
        "for i in range(len(x)):\n    out[i] = np.sum(x == x[i])",  # each element against all
    ],
)
def test_no_whole_array_form_when_the_meaning_would_change(body):
    source = (
        "import numpy as np\nx = np.zeros(100)\nout = np.zeros(100)\ncodes = {1: 2}\n"
        "def pair_sum(v):\n    return v[0] + v[1]\n" + body + "\n"
    )
    ctx = context(source)
    loop = ctx.nodes(cst.For)[0]
    facts = LoopFacts(ctx, walk_of(ctx, loop))
    assert facts.blocker is None
    assert Vectoriser(facts).plan() is None


def test_a_name_the_loop_computes_and_reads_after_it_keeps_the_loop():
    source = """
        import numpy as np
        x = np.zeros(100)
        out = np.zeros(100)
        for i in range(len(x)):
            d = x[i] * 2
            out[i] = d + 1
        print(d)
        """
    assert plan(source) is None


def test_a_reduction_of_a_row_covers_every_axis_but_the_first_when_the_shape_is_known():
    source = """
        import numpy as np
        v = np.zeros((500, 3, 3))
        totals = np.zeros(500)
        for i in range(v.shape[0]):
            totals[i] = np.sum(v[i])
        """
    assert plan(source) == ["totals[:] = np.sum(v, axis=(1, 2))"]
