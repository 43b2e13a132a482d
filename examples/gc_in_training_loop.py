"""A Keras training loop that forces a garbage collection every few steps.

`gc.collect()` walks every Python object the TensorFlow process holds; in a
training loop it costs more than the steps themselves (TFP302).
"""

import gc
import time

import numpy as np
import tensorflow as tf

STEPS = 20  # more than a handful: the linter leaves a loop of a few steps alone


def train(model, x, y, steps=STEPS):
    for step in range(steps):
        loss = model.train_on_batch(x, y)
        if step % 5 == 0:
            gc.collect()
    return loss


def main():
    tf.keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 16)).astype("float32")
    y = rng.normal(size=(32, 1)).astype("float32")
    model = tf.keras.Sequential([tf.keras.Input((16,)), tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse")
    start = time.perf_counter()
    loss = train(model, x, y)
    elapsed = time.perf_counter() - start
    print(f"loss {float(loss):.6f}  {elapsed:.2f} s")


if __name__ == "__main__":
    main()
