"""Inputs for `tensorflow_similarity.samplers.utils.select_examples` (a --verify input factory).

An embedding-sized dataset as the samplers pass it: 10,000 rows of 64 floats, labels of 10
classes, at most 200 examples drawn per class.
"""

import numpy as np


def select_examples_inputs():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(10000, 64)).astype("float32")
    y = rng.integers(0, 10, 10000)
    return [x, y], {"num_examples_per_class": 200}
