"""An eager training step that also draws its noise from a module-level iterator (TFP201).

Every call advances `noise`: two runs from the same model and optimizer
state see different data, and an iterator's position cannot be captured
and restored, so --verify cannot compare the step with its fix.
"""

import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.SGD(0.01)
noise = iter(np.linspace(0.0, 1.0, 4000, dtype="float32").reshape(1000, 4))


def train_step(x, y):
    x = x + next(noise)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


if __name__ == "__main__":
    x = tf.ones((8, 4))
    y = tf.ones((8, 1))
    for _ in range(200):
        train_step(x, y)
