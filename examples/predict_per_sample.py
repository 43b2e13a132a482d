"""Scoring a test set by calling Keras predict once per sample."""

import numpy as np
from tensorflow import keras


def build_model():
    return keras.Sequential(
        [
            keras.Input(shape=(20,)),
            keras.layers.Dense(32, activation="relu"),
            keras.layers.Dense(3, activation="softmax"),
        ]
    )


def predict_classes(model, x_test):
    predicted = []
    for i in range(len(x_test)):
        probabilities = model.predict(x_test[i : i + 1], verbose=0)
        predicted.append(int(np.argmax(probabilities[0])))
    return np.array(predicted)


def main():
    rng = np.random.default_rng(0)
    x_test = rng.random((4, 20), dtype=np.float32)
    keras.utils.set_random_seed(0)
    model = build_model()
    print("class counts:", np.bincount(predict_classes(model, x_test), minlength=3).tolist())


if __name__ == "__main__":
    main()
