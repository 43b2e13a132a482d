"""Training on image files through a tf.data pipeline that is batched but never prefetched."""

import os
import tempfile

import numpy as np
import tensorflow as tf


def write_images(folder, count=512):
    rng = np.random.default_rng(0)
    paths, labels = [], []
    for index in range(count):
        image = rng.integers(0, 255, size=(64, 64, 3), dtype=np.uint8)
        path = os.path.join(folder, f"{index}.png")
        tf.io.write_file(path, tf.io.encode_png(image))
        paths.append(path)
        labels.append(float(image.mean() > 127))
    return paths, labels


def load_image(path, label):
    image = tf.io.decode_png(tf.io.read_file(path), channels=3)
    return tf.image.resize(image, (32, 32)) / 255.0, label


def make_dataset(paths, labels, batch_size=32):
    ds = tf.data.Dataset.from_tensor_slices((paths, labels))
    ds = ds.shuffle(len(paths), seed=0)
    ds = ds.map(load_image, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.batch(batch_size)
    return ds


def main():
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential(
        [
            tf.keras.Input(shape=(32, 32, 3)),
            tf.keras.layers.Conv2D(8, 3, activation="relu"),
            tf.keras.layers.GlobalAveragePooling2D(),
            tf.keras.layers.Dense(1, activation="sigmoid"),
        ]
    )
    model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    with tempfile.TemporaryDirectory() as folder:
        paths, labels = write_images(folder)
        train_ds = make_dataset(paths, labels)
        history = model.fit(train_ds, epochs=2, verbose=0)
    print("final loss:", round(float(history.history["loss"][-1]), 4))


if __name__ == "__main__":
    main()
