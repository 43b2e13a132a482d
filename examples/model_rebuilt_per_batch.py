"""Batch scoring that rebuilds the model for every batch (TFP202).

`build_scorer()` creates layers and variables each time; build it once
before the loop and reuse it for every batch.
"""

import numpy as np
import tensorflow as tf


def build_scorer():
    tf.keras.utils.set_random_seed(0)  # reproducible scores
    return tf.keras.Sequential(
        [tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(1)]
    )


def score_batches(batches):
    scores = []
    for batch in batches:
        scorer = build_scorer()
        scores.append(scorer.predict_on_batch(batch))
    return np.concatenate(scores)


def main():
    batches = np.random.default_rng(0).normal(size=(8, 64, 8)).astype("float32")
    print("scored", len(score_batches(batches)), "rows")


if __name__ == "__main__":
    main()
