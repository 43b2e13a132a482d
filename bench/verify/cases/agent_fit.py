"""An agent whose method predicts per sample, then fits its compiled model: the optimizer's
step count and slots are restored between runs with the model's weights (TFP403)."""

import numpy as np
import tensorflow as tf


class Agent:
    def __init__(self):
        self.model = tf.keras.Sequential(
            [tf.keras.layers.Dense(8, activation="relu"), tf.keras.layers.Dense(2)]
        )
        self.model.build((None, 4))
        self.model.compile(loss="mse", optimizer=tf.keras.optimizers.Adam(0.01))

    def learn(self, batch):
        states, targets = [], []
        for state in batch:
            q_values = self.model.predict(state[None], verbose=0)[0]
            states.append(state)
            targets.append(q_values * 0.9)
        self.model.fit(np.array(states), np.array(targets), epochs=1, verbose=0)


agent = Agent()
rng = np.random.default_rng(0)
for episode in range(3):
    agent.learn(rng.normal(size=(16, 4)).astype("float32"))
