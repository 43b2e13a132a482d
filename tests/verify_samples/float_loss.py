import tensorflow as tf

w = tf.Variable(tf.ones((32, 32)))
losses = []
for step in range(50):
    loss = tf.reduce_sum(tf.matmul(w, w))
    losses.append(float(loss))
