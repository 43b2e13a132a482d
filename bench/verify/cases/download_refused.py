import numpy as np
import tensorflow as tf

path = tf.keras.utils.get_file(
    "flower_photos",
    "https://storage.googleapis.com/download.tensorflow.org/example_images/flower_photos.tgz",
    untar=True,
)
x = tf.random.normal((64, 8))
rows = []
for i in range(len(x)):
    rows.append(tf.reduce_sum(x[i] * x[i]))
y = tf.stack(rows)
