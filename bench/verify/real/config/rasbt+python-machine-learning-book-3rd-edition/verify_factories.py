"""Inputs for `NeuralNetMLP._onehot(y, n_classes)` of ch12/neuralnet.py (a --verify input factory).

MNIST's training labels as the book's `fit` passes them: 55,000 integer labels of 10 classes.
"""

import numpy as np


def onehot_inputs():
    rng = np.random.default_rng(0)
    return [rng.integers(0, 10, 55000), 10], {}
