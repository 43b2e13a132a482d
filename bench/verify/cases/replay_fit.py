"""TFP404: a replay minibatch trained one transition per `fit` call, and an online
critic updated by `fit` on each new observation (a synthetic environment)."""

import numpy as np
import tensorflow as tf

rng = np.random.default_rng(0)
net = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(16), tf.keras.layers.Dense(2)])
net.compile(optimizer="sgd", loss="mse")
transitions = [(rng.normal(size=(1, 4)), int(rng.integers(2)), float(rng.normal())) for _ in range(48)]


def replay(model, minibatch):
    for state, action, reward in minibatch:
        target = model.predict(state, verbose=0)
        target[0][action] = reward
        model.fit(state, target, epochs=1, verbose=0)
    return model.get_weights()


def online(model, steps):
    obs = np.zeros((1, 4))
    for _ in range(steps):
        target = np.tanh(obs[:, :2])
        model.fit(obs, target, epochs=1, verbose=0)
        after = np.tanh(obs[0] + model(obs).numpy().sum())
        obs = after.reshape(1, -1)
    return model.get_weights()


weights = replay(net, transitions)
after = online(net, 40)
print(len(weights), len(after))
