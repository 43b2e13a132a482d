"""A finding in a method, on a dataset that --verify synthesises (no download), after a
training run that --verify cuts to one epoch."""

import numpy as np
import tensorflow as tf

(x_train, y_train), _ = tf.keras.datasets.mnist.load_data()


class Agent:
    def __init__(self):
        self.model = tf.keras.Sequential(
            [tf.keras.Input((784,)), tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(10)]
        )
        self.epsilon = 0.5

    def act_all(self, states):
        actions = []
        for s in states:
            q = self.model.predict(s[None], verbose=0)[0]
            actions.append(int(np.argmax(q)))
        self.epsilon *= 0.99
        return actions


agent = Agent()
agent.model.compile(
    optimizer="adam", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
)
agent.model.fit(x_train[:512].reshape(512, 784) / 255.0, y_train[:512], epochs=50, verbose=0)
print(agent.act_all(x_train[:64].reshape(64, 784).astype("float32") / 255.0))
