"""Inputs for keras-yolo3's `utils.utils.evaluate(model, generator)` (a --verify input factory).

A YOLOv3-shaped model (three heads: 13x13, 26x26 and 52x52 cells of 3 boxes x 85 values for
a 416x416 input) with fixed random weights, and a data generator of random images and boxes
with the methods `evaluate` calls. The heads give a fixed pattern of logits that puts about
fifty boxes per image above the objectness threshold, as a partly trained detector does.
"""

import numpy as np
import tensorflow as tf

ANCHORS = [10, 13, 16, 30, 33, 23, 30, 61, 62, 45, 59, 119, 116, 90, 156, 198, 373, 326]


def _model():
    rng = np.random.default_rng(0)
    image = tf.keras.Input((416, 416, 3))
    heads = []
    for stride in (32, 16, 8):
        side = 416 // stride
        pooled = tf.keras.layers.AveragePooling2D(stride)(image)
        head = tf.keras.layers.Conv2D(255, 1)(pooled)
        # a fixed pattern per cell: objectness logits around -2.6, so ~0.5% of the boxes pass
        noise = rng.normal(0.0, 1.0, (side, side, 255)).astype("float32")
        noise[..., 4::85] -= 2.6
        heads.append(tf.keras.layers.Lambda(lambda t, n=noise: t * 0.0 + n)(head))
    return tf.keras.Model(image, heads)


class Generator:
    def __init__(self, images=4, seed=0):
        self.rng = np.random.default_rng(seed)
        self.images = [
            self.rng.integers(0, 256, (300, 400, 3), dtype=np.uint8) for _ in range(images)
        ]
        self.boxes = []
        for _ in range(images):
            corner = self.rng.uniform(0, 200, (6, 2))
            size = self.rng.uniform(20, 150, (6, 2))
            labels = self.rng.integers(0, 80, (6, 1))
            self.boxes.append(np.hstack([corner, corner + size, labels]))

    def size(self):
        return len(self.images)

    def num_classes(self):
        return 80

    def load_image(self, i):
        return self.images[i]

    def load_annotation(self, i):
        return self.boxes[i]

    def get_anchors(self):
        return ANCHORS


def evaluate_inputs():
    tf.random.set_seed(0)
    return [_model(), Generator()], {}
