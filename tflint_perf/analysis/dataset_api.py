"""The ``tf.data`` API by name: what starts, transforms, batches and consumes a pipeline.

Canonical qualified names and method names read by ``DatasetFlow``, and how
the module spells ``AUTOTUNE`` for fixes.
"""

from __future__ import annotations

from typing import Optional

from tflint_perf.analysis.tf_version import TfStyle
from tflint_perf.engine import cst

# Constructors that start a pipeline (canonical qualified names).
SOURCES = frozenset(
    {
        "tensorflow.data.Dataset.from_tensor_slices",
        "tensorflow.data.Dataset.from_tensors",
        "tensorflow.data.Dataset.from_generator",
        "tensorflow.data.Dataset.range",
        "tensorflow.data.Dataset.zip",
        "tensorflow.data.Dataset.list_files",
        "tensorflow.data.Dataset.sample_from_datasets",
        "tensorflow.data.Dataset.choose_from_datasets",
        "tensorflow.data.Dataset.counter",
        "tensorflow.data.Dataset.random",
        "tensorflow.data.Dataset.load",
        "tensorflow.data.TFRecordDataset",
        "tensorflow.data.TextLineDataset",
        "tensorflow.data.FixedLengthRecordDataset",
        "tensorflow.data.experimental.CsvDataset",
        "tensorflow.data.experimental.SqlDataset",
        "tensorflow.data.experimental.sample_from_datasets",
        "tensorflow.data.experimental.choose_from_datasets",
        "tensorflow.data.experimental.load",
    }
)
TFDS_LOAD = frozenset({"tensorflow_datasets.load", "tensorflow_datasets.public_api.load"})
TFDS_BUILDER = frozenset({"tensorflow_datasets.builder", "tensorflow_datasets.public_api.builder"})
# Keras utilities that read and decode files into a batched dataset; they
# end it with prefetch(AUTOTUNE) themselves.
KERAS_FILE_DATASETS = frozenset(
    {
        f"keras.{module}.{kind}_dataset_from_directory"
        for module in ("utils", "preprocessing")
        for kind in ("image", "text", "audio")
    }
)
# Sources combining other datasets: they carry their inputs' work.
COMBINING_SOURCES = frozenset(
    {
        "tensorflow.data.Dataset.zip",
        "tensorflow.data.Dataset.sample_from_datasets",
        "tensorflow.data.Dataset.choose_from_datasets",
        "tensorflow.data.experimental.sample_from_datasets",
        "tensorflow.data.experimental.choose_from_datasets",
    }
)
# Steps that run a function per element (or per input element).
FUNCTION_STEPS = frozenset(
    {"map", "interleave", "flat_map", "parallel_interleave", "map_with_legacy_function", "filter"}
)
# Steps that transform elements (a filter only drops some).
MAPPING_STEPS = frozenset(
    {"map", "interleave", "flat_map", "parallel_interleave", "map_with_legacy_function"}
)
LIST_FILES = "tensorflow.data.Dataset.list_files"
FROM_GENERATOR = "tensorflow.data.Dataset.from_generator"
TF1_ITERATORS = frozenset(
    {
        "tensorflow.data.make_one_shot_iterator",
        "tensorflow.data.make_initializable_iterator",
    }
)
ITERATOR_METHODS = frozenset({"make_one_shot_iterator", "make_initializable_iterator"})
DATASET_TYPE = "tensorflow.data.Dataset"

BATCHING = frozenset(
    {
        "batch",
        "padded_batch",
        "ragged_batch",
        "sparse_batch",
        "bucket_by_sequence_length",
        "rebatch",
    }
)
# Methods that return a dataset with the same prefetch/batch state.
NEUTRAL = frozenset(
    {
        "map",
        "shuffle",
        "repeat",
        "filter",
        "cache",
        "take",
        "skip",
        "interleave",
        "flat_map",
        "with_options",
        "concatenate",
        "shard",
        "enumerate",
        "map_with_legacy_function",
        "snapshot",
        "ignore_errors",
        "scan",
        "unique",
        "take_while",
        "rejection_resample",
        "assert_cardinality",
        "parallel_interleave",
    }
)
# `ds.apply(tf.data.experimental.X(...))`.
APPLY_BATCHING = frozenset(
    {"map_and_batch", "dense_to_ragged_batch", "dense_to_sparse_batch", "bucket_by_sequence_length"}
)
APPLY_NEUTRAL = frozenset(
    {
        "ignore_errors",
        "shuffle_and_repeat",
        "assert_cardinality",
        "enumerate_dataset",
        "parallel_interleave",
        "unique",
        "scan",
    }
)
APPLY_PREFETCH = frozenset({"prefetch_to_device"})
APPLY_FUNCTION = frozenset({"map_and_batch", "parallel_interleave"})
DATASET_METHODS = BATCHING | NEUTRAL | {"prefetch", "apply", "unbatch"}

# A pipeline of at most this many elements (or batches) is a look, not a workload.
TINY = 16

FIT_METHODS = frozenset(
    {"fit", "evaluate", "predict", "fit_generator", "evaluate_generator", "predict_generator"}
)
FIT_DATA_KEYWORDS = frozenset({"x", "validation_data", "generator"})


def limit_after(limit: Optional[int], method: str, call: cst.Call) -> Optional[int]:
    """Upper bound on the elements after ``ds.<method>(...)``, from literal arguments."""
    count = int_arg(call)
    if method == "take" and count is not None and count >= 0:
        return count if limit is None else min(limit, count)
    if method == "repeat":
        return limit * count if limit is not None and count is not None else None
    if method == "batch" and limit is not None and count:
        return -(-limit // count)
    if method in ("unbatch", "flat_map", "interleave", "rebatch", "apply"):
        return None
    return limit


def int_arg(call: cst.Call) -> Optional[int]:
    if call.args and call.args[0].keyword is None and isinstance(call.args[0].value, cst.Integer):
        return int(call.args[0].value.evaluated_value)
    return None


def autotune_expr(ctx) -> Optional[str]:
    """``tf.data.AUTOTUNE`` spelled with the module's own TensorFlow alias.

    ``data.experimental.AUTOTUNE`` (which TF1 releases and TF 2.0-2.3 have
    too) when the file already spells it so, and in TF1-style code
    (``tf.compat.v1``, ``tf.Session``, ``tf.placeholder``, ``tf.contrib``).
    None when TensorFlow is not imported as a module.
    """
    alias = None
    for local, target in ctx.imports.aliases.items():
        if target in ("tensorflow", "tensorflow.compat.v2", "tensorflow.compat.v1"):
            if alias is None or target == "tensorflow":
                alias = (local, target)
    if alias is None:
        return None
    local, target = alias
    source = ctx.source
    old = "data.experimental.AUTOTUNE" in source and "data.AUTOTUNE" not in source.replace(
        "data.experimental.AUTOTUNE", ""
    )
    if old or ctx.shared(TfStyle).tf1:
        return f"{local}.data.experimental.AUTOTUNE"
    return f"{local}.data.AUTOTUNE"
