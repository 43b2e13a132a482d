"""A training script that turns on GPU memory growth too late."""

import numpy as np
import tensorflow as tf


def build_model():
    return tf.keras.Sequential(
        [
            tf.keras.layers.Dense(64, activation="relu", input_shape=(32,)),
            tf.keras.layers.Dense(1),
        ]
    )


def main():
    model = build_model()
    model.compile(optimizer="adam", loss="mse")

    # Too late: build_model() already started the runtime.
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)

    x = np.random.rand(256, 32).astype("float32")
    y = np.random.rand(256, 1).astype("float32")
    model.fit(x, y, epochs=1, verbose=0)


if __name__ == "__main__":
    main()
