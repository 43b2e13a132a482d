"""A Python float that changes every step is passed to a tf.function (TFP203)."""

import tensorflow as tf


@tf.function
def scaled_norm(x, factor):
    return tf.reduce_sum(tf.square(x)) * factor


def run(x):
    total = 0.0
    for step in range(20):  # more than a handful: each new value traces again
        total += scaled_norm(x, 1.0 / (1 + step))
    return total


if __name__ == "__main__":
    print(float(run(tf.ones((16, 16)))))
