"""Does tf.data run a serial ``map`` in parallel by itself? ``python bench/tfdata_map_parallelization.py``

TensorFlow 2.7 and later apply the ``map_parallelization`` optimisation by
default: a *stateless* map runs in parallel without ``num_parallel_calls``.
For three maps (decode and resize; the same with a stateful random flip; a
``TextVectorization`` layer) this times one pass over the pipeline, best of
three, with default options, with the optimisation turned off, and with
``num_parallel_calls=AUTOTUNE``. Needs TensorFlow; nothing here is a test.
"""

import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def best_pass(ds) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in ds:
            pass
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    image = tf.cast(tf.random.uniform([256, 256, 3], 0, 255), tf.uint8)
    jpegs = tf.data.Dataset.from_tensors(tf.io.encode_jpeg(image)).repeat(300)
    rng = np.random.default_rng(0)
    texts = tf.data.Dataset.from_tensor_slices(
        [" ".join(f"w{j}" for j in rng.integers(0, 5000, 300)) for _ in range(3000)]
    )
    vectorize = tf.keras.layers.TextVectorization(max_tokens=5000)
    vectorize.adapt(texts.batch(256))

    def decode(record):
        return tf.image.resize(tf.io.decode_jpeg(record), (224, 224))

    def random_flip(record):
        return tf.image.random_flip_left_right(decode(record))

    off = tf.data.Options()
    off.experimental_optimization.map_parallelization = False
    print(f"TensorFlow {tf.__version__}, {os.cpu_count()} cores; seconds per pass (best of 3)")
    print(f"{'map':<20} {'default':>8} {'off':>8} {'parallel':>9}")
    for name, base, fn in [
        ("decode+resize", jpegs, decode),
        ("random flip", jpegs, random_flip),
        ("TextVectorization", texts, vectorize),
    ]:
        default = best_pass(base.map(fn))
        serial = best_pass(base.map(fn).with_options(off))
        parallel = best_pass(base.map(fn, num_parallel_calls=tf.data.AUTOTUNE))
        print(f"{name:<20} {default:>8.2f} {serial:>8.2f} {parallel:>9.2f}")


if __name__ == "__main__":
    main()
