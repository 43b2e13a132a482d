"""A script that picks its GPU after asking TensorFlow which GPUs exist.

`tf.config.list_physical_devices("GPU")` starts the CUDA driver, which reads
`CUDA_VISIBLE_DEVICES` once: the assignment after it is silently ignored and
the process still sees (and reserves memory on) every GPU (TFP303).
"""

import os

import numpy as np
import tensorflow as tf


def main():
    print("GPUs found:", len(tf.config.list_physical_devices("GPU")))
    os.environ["CUDA_VISIBLE_DEVICES"] = "0"  # too late: the driver has started

    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x = np.ones((16, 4), "float32")
    model.fit(x, x[:, :1], epochs=1, verbose=0)
    print("visible GPUs:", len(tf.config.list_logical_devices("GPU")))


if __name__ == "__main__":
    main()
