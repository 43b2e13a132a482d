"""TFP404's verification-only rewrite (samples batched) and its verdict: timed,
not compared, said so."""

import sys
import textwrap
from io import StringIO
from pathlib import Path

import pytest

from tflint_perf.engine.fixes import apply_edits
from tflint_perf.engine.rule import Finding
from tflint_perf.engine.verification import Rewrite
from tflint_perf.rules import all_rules
from tflint_perf.verify.options import VerifyOptions
from tflint_perf.verify.rewrites import Source, Unsupported, rewrite
from tflint_perf.verify.session import verify

pytest.importorskip("numpy")

BATCH = Rewrite.BATCH_SAMPLES


def _rewritten(text: str, line: int, end_line: int = 0) -> str:
    text = textwrap.dedent(text)
    edits = rewrite(BATCH, Source(text), line, end_line or line)
    return apply_edits(text, edits)


PER_SAMPLE = """\
    def learn(model, batch):
        for state, target in batch:
            if state is not None:
                model.fit(state, target, epochs=1, verbose=0)
        return model
"""


def test_fit_per_sample_is_collected_and_called_once_after_the_loop():
    assert _rewritten(PER_SAMPLE, 4) == textwrap.dedent(
        """\
        def learn(model, batch):
            __tfp_samples = ([], [])
            for state, target in batch:
                if state is not None:
                    __tfp_samples[0].append(state); __tfp_samples[1].append(target)
            if __tfp_samples[0]:
                model.fit(__import__('numpy').concatenate(__tfp_samples[0]), __import__('numpy').concatenate(__tfp_samples[1]), epochs=1, verbose=0)
            return model
        """
    )


def test_keyword_samples_and_train_on_batch():
    text = """\
        for i in range(n):
            net.train_on_batch(x=xs[i:i + 1], y=ys[i:i + 1])
    """
    out = _rewritten(text, 2)
    assert "__tfp_samples[0].append(xs[i:i + 1]); __tfp_samples[1].append(ys[i:i + 1])" in out
    assert "    net.train_on_batch(__import__('numpy').concatenate(__tfp_samples[0])," in out


def test_online_fit_becomes_the_same_step_with_train_on_batch():
    text = """\
        while not done:
            critic.fit(obs, q, epochs=1, verbose=0, sample_weight=w)
            obs, done = env.step(act(obs))
    """
    edits = rewrite(BATCH, Source(textwrap.dedent(text)), 2, 2, {"variant": "train_on_batch"})
    out = apply_edits(textwrap.dedent(text), edits)
    assert out.splitlines()[1] == "    critic.train_on_batch(obs, q, sample_weight=w)"


@pytest.mark.parametrize(
    "call, why",
    [
        ("critic.fit(obs, q, epochs=3)", "`epochs=`"),
        ("critic.fit(obs, q, callbacks=[log])", "`callbacks=`"),
        ("critic.train_on_batch(obs, q)", "already `train_on_batch`"),
    ],
)
def test_online_calls_train_on_batch_lacks_are_not_rewritten(call, why):
    text = f"while True:\n    {call}\n"
    with pytest.raises(Unsupported, match=why):
        rewrite(BATCH, Source(text), 2, 2, {"variant": "train_on_batch"})


def test_batch_size_one_on_a_later_line_of_the_call():
    text = "model.fit(x, y,\n          epochs=80, batch_size=1)\n"
    assert _rewritten(text, 2) == "model.fit(x, y,\n          epochs=80, batch_size=32)\n"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("model.fit(x, y, batch_size=1, epochs=3)\n", "model.fit(x, y, batch_size=32, epochs=3)\n"),
        ("p = model.predict(x, batch_size=one)\n", "p = model.predict(x, batch_size=32)\n"),
    ],
)
def test_a_batch_of_one_becomes_keras_default(text, expected):
    assert _rewritten(text, 1) == expected


@pytest.mark.parametrize(
    "text, line, why",
    [
        ("history = []\nfor s in b:\n    history.append(model.fit(s, t))\n", 3, "result is used"),
        ("model.fit(s, t)\n", 1, "not in a loop"),
        ("def f(m, b):\n    for s, t in b:\n        m.fit(s, t)\n        return 1\n", 3, "early"),
        ("for s, t in b:\n    m.fit([s, s], t)\n", 2, "several inputs"),
        ("for s, t in b:\n    m.fit(s, t, **kw)\n", 2, "as `x, y`"),
        ("for s, t in b:\n    agent.replay(s, t)\n", 2, "through a helper"),
        ("ds = ds.shuffle(9).batch(1).repeat()\n", 1, "32 times the samples"),
    ],
)
def test_what_is_not_rewritten_says_why(text, line, why):
    with pytest.raises(Unsupported, match=why):
        rewrite(BATCH, Source(text), line, line)


SLOW_PER_SAMPLE = """\
    import numpy as np


    class Net:
        def __init__(self):
            self.w = np.zeros(8)

        def fit(self, x, y, epochs=1, verbose=0):
            for _ in range(200):  # a fixed cost per call, as Keras' setup
                np.tanh(x @ self.w)
            self.w = self.w + (y - x @ self.w).mean() * 0.01


    net = Net()
    xs = np.ones((60, 1, 8))
    ys = np.ones((60, 1))
    for x, y in zip(xs, ys):
        net.fit(x, y, epochs=1, verbose=0)
    print(net.w.sum())
"""


def test_the_batched_variant_is_timed_and_the_verdict_says_nothing_was_compared(tmp_path):
    path = tmp_path / "replay.py"
    path.write_text(textwrap.dedent(SLOW_PER_SAMPLE))
    finding = Finding(str(path), 18, 5, 18, 12, "TFP404", "one-sample-per-step", "m", None)
    options = VerifyOptions(
        root=tmp_path, python=sys.executable, tf_module=None, timeout=60, memory_limit=1 << 30
    )
    rules = {rule.code: rule for rule in all_rules()}
    verify([(str(path), path.read_text(), [finding])], options, rules, stderr=StringIO())
    v = finding.extra["verify"]
    assert v["equal"] is None and v["speedup"] is not None, v  # timed, not compared
    assert "results not compared: batching changes the training by design" in v["reason"], v
    assert "net.fit(__import__('numpy').concatenate(__tfp_samples[0])" in v["diff"]
    assert Path(path).read_text() == textwrap.dedent(SLOW_PER_SAMPLE)  # never written
