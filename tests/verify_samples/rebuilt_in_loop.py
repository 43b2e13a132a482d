import tensorflow as tf

sizes = []
for trial in range(15):
    model = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(16), tf.keras.layers.Dense(1)])
    sizes.append(model.count_params())
