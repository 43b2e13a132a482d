"""Which TensorFlow/NumPy calls return one tensor (the TF1 graph analysis asks).

Only ``analysis/tf1_graphs.py`` reads this; what a value holds in general is
``values.py``'s question (and ``arrays.py``'s for the loop rules). The lists below
are to move into ``analysis/api/`` with the port of the TF1 graph rule.
"""

from __future__ import annotations

import re
from typing import Optional

TENSOR_ROOTS = ("tensorflow.", "numpy.", "keras.ops.")

# Calls under these prefixes do not return one tensor.
_NOT_TENSOR_PREFIXES = (
    "tensorflow.data.",
    "tensorflow.io.gfile.",
    "tensorflow.config.",
    "tensorflow.summary.",
    "tensorflow.train.",
    "tensorflow.saved_model.",
    "tensorflow.distribute.",
    "tensorflow.estimator.",
    "tensorflow.feature_column.",
    "tensorflow.nest.",
    "tensorflow.autograph.",
    "tensorflow.test.",
    "tensorflow.lookup.",
    "tensorflow.sparse.",
    "tensorflow.ragged.",
    "tensorflow.experimental.",
    "tensorflow.debugging.",
    "tensorflow.errors.",
    "tensorflow.dtypes.",
    "tensorflow.types.",
    "tensorflow.random.experimental.",
    "tensorflow.tpu.",
    "tensorflow.queue.",
    "tensorflow.keras.",
    "numpy.testing.",
    "numpy.lib.",
    "numpy.typing.",
    "numpy.char.",
)
_NOT_TENSOR = frozenset(
    {
        # list / tuple results
        "tensorflow.split",
        "tensorflow.unstack",
        "tensorflow.meshgrid",
        "tensorflow.unique",
        "tensorflow.unique_with_counts",
        "tensorflow.nn.moments",
        "tensorflow.math.top_k",
        "tensorflow.nn.top_k",
        "tensorflow.linalg.eigh",
        "tensorflow.linalg.eig",
        "tensorflow.linalg.svd",
        "tensorflow.linalg.qr",
        "tensorflow.gradients",
        "tensorflow.custom_gradient",
        "tensorflow.dynamic_partition",
        "tensorflow.trainable_variables",
        "tensorflow.global_variables",
        "tensorflow.local_variables",
        "tensorflow.all_variables",
        "tensorflow.model_variables",
        "tensorflow.moving_average_variables",
        "tensorflow.get_collection",
        "tensorflow.get_collection_ref",
        "tensorflow.get_variable",
        "tensorflow.get_default_graph",
        "tensorflow.identity_n",
        "numpy.split",
        "numpy.array_split",
        "numpy.hsplit",
        "numpy.vsplit",
        "numpy.dsplit",
        "numpy.meshgrid",
        "numpy.unique",
        "numpy.where",
        "numpy.nonzero",
        "numpy.histogram",
        "numpy.histogram2d",
        "numpy.histogramdd",
        "numpy.ndindex",
        "numpy.ndenumerate",
        "numpy.nditer",
        "numpy.load",
        "numpy.broadcast_arrays",
        "numpy.gradient",
        "numpy.linalg.svd",
        "numpy.linalg.eig",
        "numpy.linalg.eigh",
        "numpy.linalg.qr",
        "numpy.linalg.slogdet",
        "numpy.linalg.lstsq",
        "numpy.shape",
        "numpy.ndim",
        "numpy.size",
        "numpy.isscalar",
        "numpy.issubdtype",
        "numpy.allclose",
        "numpy.array_equal",
        "numpy.vectorize",
        "numpy.frompyfunc",
        "numpy.dtype",
        "numpy.finfo",
        "numpy.iinfo",
        "numpy.errstate",
        "numpy.printoptions",
        "numpy.set_printoptions",
        "numpy.save",
        "numpy.savez",
        "numpy.savez_compressed",
        "numpy.savetxt",
        "numpy.random.RandomState",
        "numpy.random.default_rng",
        "numpy.random.seed",
        "numpy.random.get_state",
        "numpy.random.set_state",
        "numpy.random.shuffle",
        "numpy.random.Generator",
        "numpy.atleast_1d",
        "numpy.atleast_2d",
        "numpy.atleast_3d",
        # not tensors at all
        "tensorflow.shape",
        "tensorflow.TensorShape",
        "tensorflow.TensorSpec",
        "tensorflow.as_dtype",
        "tensorflow.Graph",
        "tensorflow.Session",
        "tensorflow.device",
        "tensorflow.name_scope",
        "tensorflow.GradientTape",
        "tensorflow.Module",
        "tensorflow.get_logger",
        "tensorflow.print",
        "tensorflow.py_function",
        "tensorflow.numpy_function",
        "tensorflow.function",
        "tensorflow.SparseTensor",
        "tensorflow.RaggedTensor",
        "tensorflow.IndexedSlices",
        "tensorflow.while_loop",
        "tensorflow.cond",
        "tensorflow.case",
        "tensorflow.switch_case",
        "tensorflow.map_fn",
        "tensorflow.vectorized_map",
        "tensorflow.control_dependencies",
        "tensorflow.TensorArray",
        "tensorflow.DType",
        "tensorflow.Variable",
        "tensorflow.get_static_value",
        "tensorflow.is_tensor",
        "tensorflow.executing_eagerly",
        # dicts and tuples of tensors
        "tensorflow.io.parse_single_example",
        "tensorflow.io.parse_example",
        "tensorflow.io.parse_sequence_example",
        "tensorflow.io.parse_single_sequence_example",
        "tensorflow.io.decode_csv",
        "tensorflow.parse_single_example",
        "tensorflow.parse_example",
        "tensorflow.decode_csv",
    }
)
_SCALAR_TYPE = re.compile(
    r"^numpy\.(u?int\d*|float\d*|complex\d*|bool_?|str_|bytes_|object_|intp|uintp|half|single|double|longdouble)$"
)


def is_tensor_call_name(qual: Optional[str], args: int = 1) -> bool:
    """A TF/NumPy/keras.ops function that returns one tensor or array."""
    if qual is None or not qual.startswith(TENSOR_ROOTS):
        return False
    if qual == "numpy.where":
        return args == 3
    if qual in _NOT_TENSOR or qual.startswith(_NOT_TENSOR_PREFIXES) or _SCALAR_TYPE.match(qual):
        return False
    if ".nest." in qual:
        return False  # tensorflow.python.util.nest.flatten: lists
    last = qual.rsplit(".", 1)[-1]
    return not last[:1].isupper() or last in {"Tensor"}
