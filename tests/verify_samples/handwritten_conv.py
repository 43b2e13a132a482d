import tensorflow as tf


def blur(image, kernel):
    kh, kw = kernel.shape
    rows = []
    for i in range(image.shape[0] - kh + 1):
        row = []
        for j in range(image.shape[1] - kw + 1):
            row.append(tf.reduce_sum(image[i:i + kh, j:j + kw] * kernel))
        rows.append(tf.stack(row))
    return tf.stack(rows)
