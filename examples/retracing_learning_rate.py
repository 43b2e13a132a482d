"""A custom training loop that feeds a decaying learning rate as a Python float.

Every step passes a new Python float to the `tf.function`, so every step
traces a new graph (TFP203). Wrapping it in `tf.constant(...)` traces once.
"""

import time

import numpy as np
import tensorflow as tf

STEPS = 40
BASE_LR = 0.1

weights = tf.Variable(tf.zeros((8, 1)))


@tf.function
def train_step(x, y, lr):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.matmul(x, weights) - y))
    grad = tape.gradient(loss, weights)
    weights.assign_sub(lr * grad)
    return loss


def train(x, y):
    for step in range(STEPS):
        loss = train_step(x, y, BASE_LR / (1 + step))
    return loss


def main():
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(64, 8)), tf.float32)
    y = tf.constant(rng.normal(size=(64, 1)), tf.float32)
    start = time.perf_counter()
    loss = train(x, y)
    elapsed = time.perf_counter() - start
    traces = train_step.experimental_get_tracing_count()
    print(f"loss {float(loss):.6f}  traces {traces}  {elapsed:.2f} s")


if __name__ == "__main__":
    main()
