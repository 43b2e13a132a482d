"""A module-level training loop over a dataset shuffled afresh on every pass: --verify keeps
one seeded order so that both variants train on the same batches (TFP201)."""

import numpy as np
import tensorflow as tf

x = np.random.default_rng(0).normal(size=(512, 8)).astype("float32")
y = (x.sum(axis=1) > 0).astype("int32")
data = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(512).batch(32)
model = tf.keras.Sequential(
    [
        tf.keras.layers.Dense(16, activation="relu"),
        tf.keras.layers.Dropout(0.5),
        tf.keras.layers.Dense(2),
    ]
)
optimizer = tf.keras.optimizers.SGD(0.1)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

for epoch in range(2):
    for images, labels in data:
        with tf.GradientTape() as tape:
            loss = loss_fn(labels, model(images, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
