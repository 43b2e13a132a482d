"""A hand-written 2-D correlation in NumPy (TFP102); nothing in the module calls it."""

import numpy as np


def smooth(image, kernel):
    kh, kw = kernel.shape
    h, w = image.shape
    out = np.zeros((h - kh + 1, w - kw + 1), dtype=image.dtype)
    for i in range(h - kh + 1):
        for j in range(w - kw + 1):
            out[i, j] = np.sum(image[i:i + kh, j:j + kw] * kernel)
    return out
