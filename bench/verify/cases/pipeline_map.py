"""Pipelines timed on their own: a serial map of Python work built in a function
(TFP402: iterated as fast as it makes elements), and a pipeline with no final
prefetch (TFP401: each element followed by a stand-in step)."""

import numpy as np
import tensorflow as tf


def load(index):
    rows = np.random.default_rng(int(index)).standard_normal((96, 96)).astype(np.float32)
    return (rows @ rows.T).mean(axis=0)


def parse(index):
    return tf.reshape(tf.py_function(load, [index], tf.float32), [96])


def make(count):
    return tf.data.Dataset.range(count).map(parse).batch(8)


model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
model.compile("sgd", "mse")
train = make(512)
labelled = train.map(lambda x: (x, tf.reduce_sum(x, axis=1)), num_parallel_calls=4)
model.fit(labelled, epochs=2, verbose=0)
