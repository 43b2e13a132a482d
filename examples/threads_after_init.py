"""A batch job that caps TensorFlow's CPU threads after it has started.

The job shares its machine, so it limits TensorFlow to two threads per op,
but only after loading its data: creating the first tensor initialised the
runtime and its thread pools, so TensorFlow raises RuntimeError (TFP301).
Set the thread counts first, before any TensorFlow op runs.
"""

import numpy as np
import tensorflow as tf


def main():
    features = tf.constant(np.random.default_rng(0).normal(size=(512, 64)), tf.float32)
    tf.config.threading.set_intra_op_parallelism_threads(2)
    gram = tf.matmul(features, features, transpose_a=True)
    print("trace of the Gram matrix:", float(tf.linalg.trace(gram)))


if __name__ == "__main__":
    main()
