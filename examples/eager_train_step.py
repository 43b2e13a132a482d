"""A custom training loop whose step runs eagerly (TFP201).

Every batch dispatches the forward pass, the gradient and the optimizer
update op by op from Python; `@tf.function` on `train_step` compiles it once.
"""

import numpy as np
import tensorflow as tf


def make_data(n=512, features=16):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, features)).astype("float32")
    y = (x @ rng.normal(size=(features, 1)) + 0.1).astype("float32")
    return tf.data.Dataset.from_tensor_slices((x, y)).shuffle(n, seed=0).batch(32)


model = tf.keras.Sequential(
    [tf.keras.Input(shape=(16,)), tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(1)]
)
optimizer = tf.keras.optimizers.Adam(1e-2)
loss_fn = tf.keras.losses.MeanSquaredError()


def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def main():
    dataset = make_data()
    for epoch in range(3):
        total = 0.0
        for x, y in dataset:
            total += float(train_step(x, y))
        print(f"epoch {epoch}: loss {total / 16:.4f}")


if __name__ == "__main__":
    main()
