"""Reading TFRecords with a parse-and-resize map that runs on one thread."""

import os
import tempfile

import numpy as np
import tensorflow as tf

FEATURES = {
    "image": tf.io.FixedLenFeature([], tf.string),
    "label": tf.io.FixedLenFeature([], tf.int64),
}


def write_records(path, count=256):
    rng = np.random.default_rng(0)
    with tf.io.TFRecordWriter(path) as writer:
        for index in range(count):
            image = rng.integers(0, 255, size=(48, 48, 3), dtype=np.uint8)
            example = tf.train.Example(
                features=tf.train.Features(
                    feature={
                        "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[tf.io.encode_png(image).numpy()])),
                        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[index % 10])),
                    }
                )
            )
            writer.write(example.SerializeToString())


def parse_example(serialized):
    example = tf.io.parse_single_example(serialized, FEATURES)
    image = tf.io.decode_png(example["image"], channels=3)
    image = tf.image.resize(image, (32, 32)) / 255.0
    return image, example["label"]


def checksum(path):
    ds = tf.data.TFRecordDataset([path])
    ds = ds.map(parse_example)
    ds = ds.batch(32).prefetch(tf.data.AUTOTUNE)
    total = 0.0
    count = 0
    for images, labels in ds:
        total += float(tf.reduce_sum(images)) + float(tf.reduce_sum(labels))
        count += int(images.shape[0])
    return count, total


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "train.tfrecord")
        write_records(path)
        count, total = checksum(path)
        print("examples:", count, "checksum:", round(total, 2))


if __name__ == "__main__":
    main()
