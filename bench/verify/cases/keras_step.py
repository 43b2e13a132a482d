"""A Keras model and optimizer stepped in an eager training step (TFP201)."""

import numpy as np
import tensorflow as tf

model = tf.keras.Sequential(
    [tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(1)]
)
optimizer = tf.keras.optimizers.Adam(1e-2)


def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(64, 8)), tf.float32)
    y = tf.constant(rng.normal(size=(64, 1)), tf.float32)
    for step in range(20):
        loss = train_step(x, y)
    print(float(loss))
