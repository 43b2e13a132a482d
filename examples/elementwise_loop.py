"""Scoring a batch of embeddings one row at a time."""

import numpy as np
import tensorflow as tf


def cosine_scores(queries, key):
    queries = tf.math.l2_normalize(tf.convert_to_tensor(queries, tf.float32), axis=1)
    key = tf.math.l2_normalize(tf.convert_to_tensor(key, tf.float32), axis=0)
    scores = []
    for i in range(queries.shape[0]):
        scores.append(tf.reduce_sum(queries[i] * key))  # one tiny op per row
    return tf.stack(scores)  # tf.linalg.matvec(queries, key) does it at once


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    print(cosine_scores(rng.normal(size=(1000, 64)), rng.normal(size=64))[:5])
