"""A training step that draws noise: compiled by tf.function it draws other numbers, so its
results are judged against how far another seed moves the original's (TFP201)."""

import numpy as np
import tensorflow as tf

x = np.random.default_rng(0).normal(size=(512, 8)).astype("float32")
y = (x.sum(axis=1) > 0).astype("int32")
data = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(512).batch(32)
model = tf.keras.Sequential(
    [
        tf.keras.layers.Dense(16, activation="relu"),
        tf.keras.layers.Dense(16, activation="relu"),
        tf.keras.layers.Dense(2),
    ]
)
optimizer = tf.keras.optimizers.SGD(0.1)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

for epoch in range(2):
    for images, labels in data:
        with tf.GradientTape() as tape:
            noisy = images + tf.random.normal(tf.shape(images), stddev=0.1)
            loss = loss_fn(labels, model(noisy, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
