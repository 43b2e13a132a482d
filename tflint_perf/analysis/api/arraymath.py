"""Array math: what a NumPy / TensorFlow / ``keras.ops`` function does to its operand.

The loop rules (TFP101, TFP102, TFP103) and the vectoriser ask one question
of a call on array data: is it element-wise (the same op on a whole array
gives every element's result), a reduction (an ``axis=`` gives every row's
result), a shape-only op, a set operation, a search for the first match, a
solve or decomposition of one matrix, a way to join arrays, or not array math
at all (I/O, images, strings, random state, control flow)? ``op(qualname)``
and ``method_op(name)`` answer from the tables below.

Functions of the three array roots are looked up by their last name
(``numpy.exp``, ``tensorflow.math.exp`` and ``keras.ops.exp`` are one
element-wise op); exact names come first.
"""

from __future__ import annotations

import enum
import re
from typing import Dict, Optional

from tflint_perf.analysis.api.facts import each, words


class ArrayOp(enum.Enum):
    ELEMENTWISE = "element-wise"  # exp(x): the whole array at once gives each element's value
    REDUCTION = "reduction"  # sum(x): with axis= gives each row's value
    SHAPE = "shape"  # reshape, stack, zeros: converts or re-shapes, no math
    SET = "set"  # intersect1d, isin: rows matched as sets
    FIRST_MATCH = "first match"  # where(cond) / nonzero: the indices where a test holds
    SOLVE = "solve"  # solve, inv, eig: one matrix per call (a stack is another op)
    JOIN = "join"  # concatenate, vstack: glue arrays
    COUNTER = "counter"  # arange, linspace: a range of numbers
    PRODUCT = "product"  # dot, matmul, outer, tensordot, einsum
    OTHER_MATH = "math"  # array math none of the above describes (a batch axis is usual)
    NOT_MATH = "not math"  # I/O, images, strings, random state, control flow, ...


# Roots whose lower-case functions are array math (looked up by last name).
ROOTS = ("numpy.", "tensorflow.", "keras.ops.")

_BY_NAME: Dict[str, ArrayOp] = {}
for _name in each(
    """exp log log1p log2 log10 expm1 exp2 sqrt rsqrt cbrt abs absolute fabs square sin cos tan
    tanh sinh cosh arctan arcsin arccos arctan2 atan atan2 asin acos sigmoid maximum minimum clip
    clip_by_value cast round rint floor ceil trunc sign power pow float_power multiply add
    subtract divide true_divide truediv floordiv floor_divide mod remainder relu relu6 elu selu
    gelu softplus softsign swish negative reciprocal erf erfc isnan isinf isfinite logical_not
    logical_and logical_or logical_xor greater greater_equal less less_equal equal not_equal
    heaviside nan_to_num deg2rad rad2deg hypot"""
):
    _BY_NAME[_name] = ArrayOp.ELEMENTWISE
for _name in each(
    """sum mean max min std var prod argmax argmin norm any all amax amin nansum nanmean nanmax
    nanmin nanstd nanvar average median percentile quantile count_nonzero logsumexp ptp
    reduce_logsumexp reduce_sum reduce_mean reduce_max reduce_min reduce_prod reduce_std
    reduce_variance reduce_any reduce_all reduce_euclidean_norm cumsum cumprod"""
):
    _BY_NAME[_name] = ArrayOp.REDUCTION
for _name in each(
    """array asarray asanyarray ascontiguousarray convert_to_tensor constant copy identity shape
    rank size reshape expand_dims squeeze gather gather_nd stack zeros ones zeros_like ones_like
    full fill eye pad transpose tile repeat broadcast_to slice ndim empty empty_like full_like
    flatten ravel moveaxis swapaxes rollaxis flip fliplr flipud roll"""
):
    _BY_NAME[_name] = ArrayOp.SHAPE
for _name in each("intersect1d isin in1d"):
    _BY_NAME[_name] = ArrayOp.SET
for _name in each("where nonzero argwhere flatnonzero"):
    _BY_NAME[_name] = ArrayOp.FIRST_MATCH
for _name in each("concatenate concat vstack hstack row_stack column_stack dstack append"):
    _BY_NAME[_name] = ArrayOp.JOIN
for _name in each("arange range linspace"):
    _BY_NAME[_name] = ArrayOp.COUNTER
for _name in each("dot vdot inner outer matmul tensordot einsum kron cross"):
    _BY_NAME[_name] = ArrayOp.PRODUCT

# Exact names that the last-name lookup gets wrong.
_EXACT: Dict[str, ArrayOp] = {
    # A solve or decomposition per row takes a matrix built per row: batching it
    # means a stack of matrices, not one op.
    **{
        name: ArrayOp.SOLVE
        for name in each(
            """linalg.solve linalg.inv linalg.pinv linalg.lstsq linalg.eig linalg.eigh linalg.svd
            linalg.cholesky linalg.det linalg.slogdet linalg.qr""",
            "numpy.",
        )
    },
    "numpy.linalg.norm": ArrayOp.REDUCTION,
    "tensorflow.norm": ArrayOp.REDUCTION,
    "tensorflow.linalg.norm": ArrayOp.REDUCTION,
    "numpy.unique": ArrayOp.NOT_MATH,
    "tensorflow.unique": ArrayOp.NOT_MATH,
    "numpy.histogram": ArrayOp.NOT_MATH,
    "numpy.union1d": ArrayOp.NOT_MATH,
    "numpy.setdiff1d": ArrayOp.NOT_MATH,
    "numpy.setxor1d": ArrayOp.NOT_MATH,
    "tensorflow.boolean_mask": ArrayOp.NOT_MATH,  # a data-dependent size
}

# Families whose functions are not array math a loop can batch: I/O, logging,
# images (decoding, per-image augmentation), strings, datasets, control flow,
# framework state, Python callbacks, data-dependent sizes.
_NOT_MATH_FAMILIES = tuple(
    each(
        """tensorflow.io. tensorflow.summary. tensorflow.image. tensorflow.strings.
        tensorflow.data. tensorflow.debugging. tensorflow.config. tensorflow.saved_model.
        tensorflow.train. tensorflow.distribute. tensorflow.nest. tensorflow.lookup.
        tensorflow.sparse. tensorflow.ragged. tensorflow.experimental. tensorflow.audio.
        tensorflow.signal. tensorflow.keras. tensorflow.compat. tensorflow.python.
        tensorflow.random. tensorflow.errors. tensorflow.dtypes. tensorflow.estimator.
        numpy.testing. numpy.lib. numpy.char. numpy.random."""
    )
)
_NOT_MATH = words(
    """print py_function numpy_function py_func map_fn vectorized_map while_loop cond case
    switch_case Variable function GradientTape TensorArray SparseTensor RaggedTensor device
    name_scope control_dependencies assert_equal Session get_variable trainable_variables
    save savez savez_compressed savetxt load loadtxt genfromtxt fromfile set_printoptions
    get_static_value is_tensor executing_eagerly"""
)

# Methods of arrays and tensors: math on the values, or only their layout.
_MATH_METHODS: Dict[str, ArrayOp] = {
    **{m: ArrayOp.REDUCTION for m in each("sum mean max min std var prod argmax argmin any all")},
    **{m: ArrayOp.REDUCTION for m in each("cumsum cumprod ptp")},
    "dot": ArrayOp.PRODUCT,
    "clip": ArrayOp.ELEMENTWISE,
    "round": ArrayOp.ELEMENTWISE,
    "astype": ArrayOp.SHAPE,
    **{m: ArrayOp.SHAPE for m in each("numpy reshape flatten ravel squeeze transpose copy item")},
}

# Python's builtins on numbers and their NumPy forms on whole arrays.
BUILTIN_MATH: Dict[str, str] = {
    "abs": "np.abs",
    "max": "np.maximum",
    "min": "np.minimum",
    "round": "np.round",
    "pow": "np.power",
    "sum": "np.sum",
    "float": "",  # a conversion: the same values
    "int": "",
}
# Builtins a numeric loop body may call without leaving array math.
NUMERIC_BUILTINS = words("len range float int abs min max round zip enumerate bool sum pow")
# Builtins that wrap an iterable without changing what it walks.
ITERABLE_WRAPPERS = words("list reversed sorted iter tqdm trange")
# Python's math module: element-wise on one number.
MATH_MODULE = "math."


def op(qualname: Optional[str], positional: int = 1) -> Optional[ArrayOp]:
    """What the array function ``qualname`` does; None when it is not one."""
    if not qualname:
        return None
    if qualname.startswith(MATH_MODULE):
        return ArrayOp.ELEMENTWISE
    if not qualname.startswith(ROOTS):
        return None
    exact = _EXACT.get(qualname)
    if exact is not None:
        return exact
    if qualname.startswith(_NOT_MATH_FAMILIES):
        return ArrayOp.NOT_MATH
    last = qualname.rsplit(".", 1)[-1]
    if last in _NOT_MATH or last[:1].isupper():
        return ArrayOp.NOT_MATH
    found = _BY_NAME.get(last)
    if found is ArrayOp.FIRST_MATCH and last == "where" and positional == 3:
        return ArrayOp.ELEMENTWISE  # np.where(c, a, b)
    return found or ArrayOp.OTHER_MATH


def method_op(name: str) -> Optional[ArrayOp]:
    """What ``x.name(...)`` does on an array or tensor; None when not known."""
    return _MATH_METHODS.get(name)


def is_random_draw(qualname: Optional[str]) -> bool:
    """``np.random.normal(...)``: a new value per call (not the generator's state)."""
    if not qualname or not qualname.startswith("numpy.random."):
        return False
    return qualname.rsplit(".", 1)[-1] not in _RANDOM_STATE


_RANDOM_STATE = words(
    "seed shuffle permutation set_state get_state RandomState default_rng Generator"
)
# Draws that make a whole array per call when given a shape or ``size=``.
SHAPED_DRAWS = words("randn rand random random_sample standard_normal sample")
# Where the size argument of other draws sits (``choice(a, size)``: 1).
DRAW_SIZE_POSITION = {"choice": 1, "permutation": 99, "shuffle": 99}

# -- what holds an array (analysis/arrays.py) -----------------------------------
# Methods whose result is an array whatever they are called on: Keras
# ``model.predict(x)``, ``t.numpy()`` of a TF or PyTorch tensor, scikit-learn
# ``scaler.fit_transform(x)`` (the receiver is often a parameter of unknown kind).
ARRAY_RESULT_METHODS = words("predict predict_on_batch predict_proba numpy fit_transform")
# A pandas frame's or series' NumPy array.
ARRAY_ATTRIBUTES = words("values")
# Array methods whose result is not an array.
NOT_ARRAY_METHODS = words("item tolist")
# Functions that return the distinct values of an array (one per class).
DISTINCT_VALUES = words("unique")
# Methods of an array that return one of the same shape.
SHAPE_KEEPING_METHODS = words("astype copy clip round")
# ``sess.run(t)``: one fetch gives one array.
SESSION_RUNS = words("run")
# ``t.eval(feed_dict=...)``: a TF1 tensor evaluated in the default session is
# one array. The keyword is the evidence where the tensor's value is not shown
# (no other library's ``eval`` takes a ``feed_dict``).
TENSOR_EVALS = words("eval")
TENSOR_EVAL_KEYWORDS = words("feed_dict")
# A TF1 session is often a parameter or attribute named as one (name guess: the
# value of ``self.sess`` is set in a method the file may not show).
SESSION_NAMES = ("sess", "session")
GENERATORS = frozenset(
    {"numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.Generator"}
)
# Methods of a NumPy random generator that do not return an array.
GENERATOR_STATE = words("shuffle spawn bit_generator seed get_state set_state bytes")
# Reading these of a name uses it as an array.
SHAPE_ATTRIBUTES = words("shape ndim")
SHAPE_FUNCTIONS = frozenset({"tensorflow.shape", "numpy.shape"})  # the sizes, one per axis
SHAPE_OF = SHAPE_FUNCTIONS | {"tensorflow.rank", "numpy.ndim"}
# Code that checks what a name holds: it may hold something else.
TYPE_CHECKS = words("isinstance hasattr type")
ARRAY_ANNOTATIONS = frozenset({"tensorflow.Tensor", "numpy.ndarray", "numpy.array"})
# A project's own alias of an array type is named like one (``FloatTensor``).
ARRAY_ANNOTATION_SUFFIXES = ("Tensor", "NDArray", "ndarray")
# ``keras.datasets.<name>.load_data()`` whose inputs are ragged lists of token ids.
RAGGED = words("imdb reuters")
# Calls that make an array from the data they are given (its rows are the data's).
FROM_DATA = words("array asarray asanyarray constant convert_to_tensor")
# A comprehension handed whole to one of these is a list of work items (a pool's
# map) or text (``" ".join``, a tokenizer's ``decode`` of token ids), not array math.
WORK_LIST_CONSUMERS = words("map imap imap_unordered starmap map_async join decode")
# Conversions of one element to a Python value: a comprehension of them builds a
# Python list (token ids for a tokenizer, indices for Python code), not an array.
PYTHON_SCALARS = words("int float str bool")
# Name guess: a container named like these, indexed by an element, decodes ids into
# text (``id_to_word[i]``): the loop builds words, not numbers.
VOCABULARY_NAMES = ("word", "vocab", "token", "char", "inverse", "reverse", "idx2", "id2", "index2")
# Name guess: rows named like token-id sequences (IMDB and Reuters reviews are
# ragged lists): ``out[i, seq] = 1`` is multi-hot encoding, not a scatter of values.
SEQUENCE_NAMES = re.compile(r"seq|token|word|sentence|review|text|doc|ids$|indices", re.I)
# Name guess: a loop over the channels of an image has a handful of iterations
# (3 or 4) whatever the code spells as its bound.
CHANNEL_NAMES = ("channel",)
# Calls that make a new array of a given size (not from data).
CONSTRUCTORS = words("zeros ones empty full eye identity arange range linspace fill")
# Where each constructor takes what sets its length (positions, keywords): an
# element passed there makes results of different lengths per element.
_SIZE_ANY = tuple(range(3))
SIZE_ARGUMENTS: Dict[str, tuple] = {
    "arange": (*_SIZE_ANY, "start", "stop", "step", "limit", "delta"),
    "range": (*_SIZE_ANY, "start", "limit", "delta"),
    "linspace": (2, "num"),
    "zeros": (0, "shape"),
    "ones": (0, "shape"),
    "empty": (0, "shape"),
    "full": (0, "shape", "dims"),
    "fill": (0, "dims"),
    "eye": (0, 1, "N", "M", "num_rows", "num_columns"),
    "identity": (0, "n"),
}
