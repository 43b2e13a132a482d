import tensorflow as tf

scores = tf.random.normal((512, 64))
row_totals = []
for row in scores:
    row_totals.append(tf.reduce_sum(row))
totals = tf.stack(row_totals)
