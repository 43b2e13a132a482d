"""Hand measurements of findings in bench/verify/real, to check --verify's verdicts by other means.

``python bench/verify/real/handcheck.py --corpus DIR [--json OUT]`` (in the benchmark's environment, with
``TF_USE_LEGACY_KERAS=1``). Each case re-creates by hand, without tflint-perf, the code a
finding's verdict measured: the same shapes (the synthetic data's, or the synthesised inputs'),
the original and the faster variant written out, timed alternately in one process (median of
per-pair ratios). A verdict is contradicted when its speedup and the hand ratio differ by more
than 2x, or when one says faster (> 1.05x) and the other does not.
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import statistics
import time
from pathlib import Path

import numpy as np

CONFIG = Path(__file__).resolve().parent / "config"


def pairs(original, faster, rounds: int = 15) -> float:
    """Median ratio of alternating timed runs (after one warm-up each)."""
    original(), faster()
    ratios = []
    for k in range(rounds):
        order = (original, faster) if k % 2 == 0 else (faster, original)
        seconds = {}
        for run in order:
            start = time.perf_counter()
            run()
            seconds[run] = time.perf_counter() - start
        ratios.append(seconds[original] / seconds[faster])
    return statistics.median(ratios)


# -- TFP101 ------------------------------------------------------------------------
def onehot():
    """neuralnet.py:61: one-hot written element by element (55,000 labels of 10 classes, as the
    benchmark's factory gives)."""
    y = np.random.default_rng(0).integers(0, 10, 55000)

    def loop():
        out = np.zeros((10, y.shape[0]))
        for idx, val in enumerate(y.astype(int)):
            out[val, idx] = 1.0
        return out.T

    def whole():
        out = np.zeros((10, y.shape[0]))
        labels = y.astype(int)
        out[labels, np.arange(len(labels))] = 1.0
        return out.T

    return pairs(loop, whole, rounds=7)


def linear_error():
    """linear_regression.py:16: squared error accumulated per point (256x32 synthesised points)."""
    points = np.random.default_rng(0).standard_normal((256, 32))
    b, w = 0.7, 1.3

    def loop():
        total = 0
        for i in range(0, len(points)):
            x, y = points[i, 0], points[i, 1]
            total += (y - (w * x + b)) ** 2
        return total / float(len(points))

    def whole():
        return np.sum((points[:, 1] - (w * points[:, 0] + b)) ** 2) / float(len(points))

    return pairs(loop, whole)


def linear_gradient():
    """linear_regression.py:30: two gradients accumulated per point."""
    points = np.random.default_rng(1).standard_normal((256, 32))
    b, w, n = 0.7, 1.3, 256.0

    def loop():
        gb = gw = 0
        for i in range(0, len(points)):
            x, y = points[i, 0], points[i, 1]
            gb += (2 / n) * ((w * x + b) - y)
            gw += (2 / n) * x * ((w * x + b) - y)
        return gb, gw

    def whole():
        x, y = points[:, 0], points[:, 1]
        return np.sum(2 / n * (w * x + b - y)), np.sum(2 / n * x * (w * x + b - y))

    return pairs(loop, whole)


def sigmoid_list():
    """t81_558_class_10_2_lstm.ipynb:167: `[1 / (1 + math.exp(-v)) for v in x]` on the notebook's list."""
    x = [v / 10 for v in range(-100, 100)]

    def loop():
        y = []
        for item in x:
            y.append(1 / (1 + math.exp(-item)))
        return y

    def whole():
        y = []
        y.extend(list(1 / (1 + np.exp(-np.asarray(x)))))
        return y

    return pairs(loop, whole, rounds=41)


def count_matches():
    """klab-10-2-X1:105: matching predictions counted one by one (10,000 MNIST test labels,
    uint8 as the synthetic MNIST gives them, against the int64 argmax of the predictions),
    against the rewrite the verdict measured (`ele += np.count_nonzero(truth == predicted)`)."""
    rng = np.random.default_rng(2)
    truth = rng.integers(0, 10, 10000).astype(np.uint8)
    predicted = rng.integers(0, 10, 10000)

    def loop():
        ele = 0
        for one in range(len(truth)):
            if truth[one] == predicted[one]:
                ele = ele + 1
        return ele

    def whole():
        ele = 0
        ele += np.count_nonzero(truth == predicted)
        return ele

    return pairs(loop, whole)


def evaluate_map(corpus):
    """keras-yolo3 utils.py:89: the whole `evaluate(model, generator)` the verdict times, on the
    benchmark's factory inputs (config/: a YOLOv3-shaped model with fixed weights, 4 random
    images), against the same function with `scores` collected in a list and joined once per
    class (written here by hand, applied to the function's source read from the corpus)."""
    import importlib
    import sys
    import textwrap

    repo = f"{corpus}/src/experiencor+keras-yolo3"
    sys.path[:0] = [repo, str(CONFIG / "experiencor+keras-yolo3")]
    utils = importlib.import_module("utils.utils")
    factories = importlib.import_module("verify_factories")
    source = textwrap.dedent(inspect.getsource(utils.evaluate))
    edits = [
        ("scores          = np.zeros((0,))", "scores          = np.zeros((0,)); parts = []"),
        ("scores = np.append(scores, d[4])", "parts.append(d[4])"),
        (
            "        # no annotations -> AP for this class",
            "        scores = np.concatenate([scores, np.asarray(parts, dtype=float)])\n"
            "        # no annotations -> AP for this class",
        ),
    ]
    for old, new in edits:
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    namespace = dict(vars(utils))
    exec(compile(source, "evaluate (by hand)", "exec"), namespace)
    (model, generator), _ = factories.evaluate_inputs()
    once = namespace["evaluate"]
    assert once(model, generator) == utils.evaluate(model, generator)
    return pairs(lambda: utils.evaluate(model, generator), lambda: once(model, generator), 9)


# -- TFP201 and TFP403 (TensorFlow) ----------------------------------------------------------
def mnist_step():
    """ch03 main.py:38: the Dense 256-128-10 MNIST step, eager against @tf.function (batch 32)."""
    import tensorflow as tf

    model = tf.keras.Sequential(
        [
            tf.keras.layers.Dense(256, activation="relu"),
            tf.keras.layers.Dense(128, activation="relu"),
            tf.keras.layers.Dense(10),
        ]
    )
    model.build(input_shape=(4, 784))
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)
    x = tf.random.uniform((32, 28, 28))
    y = tf.random.uniform((32,), 0, 10, dtype=tf.int32)

    def step(x, y):
        with tf.GradientTape() as tape:
            out = model(tf.reshape(x, (-1, 784)))
            loss = tf.reduce_sum(tf.square(out - tf.one_hot(y, depth=10))) / 32
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    compiled = tf.function(step)

    def eager():
        for _ in range(10):
            step(x, y).numpy()

    def graph():
        for _ in range(10):
            compiled(x, y).numpy()

    return pairs(eager, graph)


def linear_step():
    """ch13_part2.py:96: the one-weight linear model's step, eager against @tf.function."""
    import tensorflow as tf

    w, b = tf.Variable(0.0), tf.Variable(0.0)

    def train(inputs, outputs, learning_rate):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(outputs - (w * inputs + b)))
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(learning_rate * dw)
        b.assign_sub(learning_rate * db)

    compiled = tf.function(train)
    x, y = tf.constant([[0.5]]), tf.constant([1.0])
    return pairs(lambda: train(x, y, 0.001), lambda: compiled(x, y, 0.001), rounds=41)


def forecast_predict():
    """C4_W2_Lab_2_single_layer_NN.ipynb:581: `model.predict(window[np.newaxis])` per time step
    (a Dense(1) on 20-value windows) against `model(window, training=False)`, 4 steps."""
    import tensorflow as tf

    model = tf.keras.Sequential([tf.keras.Input((20,)), tf.keras.layers.Dense(1)])
    series = np.random.default_rng(4).standard_normal(1461).astype("float32")

    def predict():
        return [model.predict(series[t : t + 20][np.newaxis], verbose=0) for t in range(4)]

    def call():
        return [model(series[t : t + 20][np.newaxis], training=False).numpy() for t in range(4)]

    return pairs(predict, call, rounds=7)


def agent_action():
    """cartpole main.py:78: `self.model.predict(state)[0]` of the DQN agent (4-32-32-2 MLP)."""
    import tensorflow as tf

    model = tf.keras.Sequential(
        [
            tf.keras.Input((4,)),
            tf.keras.layers.Dense(32, activation="relu"),
            tf.keras.layers.Dense(32, activation="relu"),
            tf.keras.layers.Dense(2),
        ]
    )
    state = np.random.default_rng(5).standard_normal((1, 4))
    return pairs(
        lambda: np.argmax(model.predict(state, verbose=0)[0]),
        lambda: np.argmax(model(state, training=False).numpy()[0]),
        rounds=15,
    )


CASES = {
    "dragen1860/Deep-Learning-with-TensorFlow-book ch02-回归问题/linear_regression.py:16 TFP101": linear_error,
    "dragen1860/Deep-Learning-with-TensorFlow-book ch02-回归问题/linear_regression.py:30 TFP101": linear_gradient,
    "rasbt/python-machine-learning-book-3rd-edition ch12/neuralnet.py:61 TFP101": onehot,
    "jeffheaton/t81_558_deep_learning t81_558_class_10_2_lstm.ipynb:167 TFP101": sigmoid_list,
    "hunkim/DeepLearningZeroToAll keras/klab-10-2-X1-mnist_conv_model_with_ensemble.py:105 TFP101": count_matches,
    "experiencor/keras-yolo3 utils/utils.py:89 TFP103": evaluate_map,
    "dragen1860/Deep-Learning-with-TensorFlow-book ch03-分类问题/main.py:38 TFP201": mnist_step,
    "rasbt/python-machine-learning-book-3rd-edition ch13/ch13_part2.py:96 TFP201": linear_step,
    "https-deeplearning-ai/tensorflow-1-public C4/W2/.../C4_W2_Lab_2_single_layer_NN.ipynb:581 TFP403": forecast_predict,
    "rasbt/python-machine-learning-book-3rd-edition ch18/cartpole/main.py:78 TFP403": agent_action,
}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write {case: hand ratio} here")
    parser.add_argument(
        "--corpus", help="the built development corpus, for cases that run its code"
    )
    args = parser.parse_args(argv)
    results = {}
    for name, case in CASES.items():
        if "corpus" in inspect.signature(case).parameters:
            if not args.corpus:
                print(f"{'skipped':>9}  {name} (needs --corpus)", flush=True)
                continue
            ratio = case(args.corpus)
        else:
            ratio = case()
        results[name] = ratio
        print(f"{ratio:8.2f}x  {name}", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
