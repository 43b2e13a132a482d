"""Blurring a grayscale image with a hand-written correlation."""

import numpy as np


def gaussian_kernel(size=5, sigma=1.0):
    ax = np.arange(size) - size // 2
    g = np.exp(-(ax**2) / (2 * sigma**2))
    kernel = np.outer(g, g)
    return kernel / kernel.sum()


def blur(image, kernel):
    kh, kw = kernel.shape
    h, w = image.shape
    out = np.zeros((h - kh + 1, w - kw + 1))
    for i in range(h - kh + 1):
        for j in range(w - kw + 1):
            out[i, j] = np.sum(image[i:i + kh, j:j + kw] * kernel)
    return out


if __name__ == "__main__":
    image = np.random.default_rng(0).random((256, 256))
    print(blur(image, gaussian_kernel()).shape)
