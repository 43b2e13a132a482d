"""Training on a tf.data pipeline that is batched but never prefetched."""

import numpy as np
import tensorflow as tf


def make_dataset(features, labels, batch_size=64):
    ds = tf.data.Dataset.from_tensor_slices((features, labels))
    ds = ds.shuffle(len(features), seed=0)
    ds = ds.map(lambda x, y: (x * 2.0 - 1.0, y))
    ds = ds.batch(batch_size)
    return ds


def main():
    tf.keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    features = rng.random((1024, 16), dtype=np.float32)
    labels = (features.sum(axis=1) > 8.0).astype("float32")

    model = tf.keras.Sequential(
        [
            tf.keras.Input(shape=(16,)),
            tf.keras.layers.Dense(32, activation="relu"),
            tf.keras.layers.Dense(1, activation="sigmoid"),
        ]
    )
    model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])

    train_ds = make_dataset(features, labels)
    history = model.fit(train_ds, epochs=2, verbose=0)
    print("final loss:", round(float(history.history["loss"][-1]), 4))


if __name__ == "__main__":
    main()
