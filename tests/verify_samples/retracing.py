import tensorflow as tf


@tf.function
def scaled(x, factor):
    return tf.reduce_sum(x * factor)


x = tf.ones((16, 16))
outs = [scaled(x, k) for k in range(20)]
