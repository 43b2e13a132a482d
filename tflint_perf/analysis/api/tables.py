"""The assembled tables read by ``tflint_perf.analysis.api``."""

from __future__ import annotations

from typing import Dict

from tflint_perf.analysis.api import Api, Effect, Kind, keras, numpy, others, steps, tensorflow
from tflint_perf.analysis.api.facts import merge, names

FUNCTIONS: Dict[str, Api] = merge(
    tensorflow.FUNCTIONS, keras.FUNCTIONS, numpy.FUNCTIONS, others.FUNCTIONS, steps.FUNCTIONS
)
PREFIXES = tuple(
    sorted(
        tensorflow.PREFIXES + keras.PREFIXES + numpy.PREFIXES + others.PREFIXES,
        key=lambda item: -len(item[0]),
    )
)

_SAME = Api(Kind.UNKNOWN)  # placeholder: "the receiver's own kind" (see values.py)
# Methods of arrays and tensors that return one of the same kind.
ARRAY_METHODS = names(
    """reshape astype transpose copy squeeze flatten ravel swapaxes clip round cumsum cumprod
    sum mean max min std var prod argmax argmin any all dot T conj""",
    _SAME,
)
METHODS: Dict[Kind, Dict[str, Api]] = {
    Kind.KERAS_MODEL: keras.MODEL_METHODS,
    Kind.LAYER: keras.LAYER_METHODS,
    Kind.OPTIMIZER: keras.OPTIMIZER_METHODS,
    Kind.TAPE: merge(
        names("gradient jacobian batch_jacobian", Api(Kind.LIST, Effect.GRADIENTS)),
        names("watch stop_recording reset", Api(Kind.NONE)),
    ),
    Kind.SESSION: merge(
        names("run", Api(Kind.UNKNOWN, Effect.RUNS_GRAPH)),
        names("close", Api(Kind.NONE)),
    ),
    # A dataset exists only once the runtime runs (creating one starts it:
    # measured with ``Dataset.range``), so its methods and its iteration are
    # where a pipeline made elsewhere (``tfds.load``, a helper) starts it too.
    Kind.DATASET: merge(
        names(
            """map filter flat_map interleave parallel_interleave map_with_legacy_function batch
            padded_batch ragged_batch sparse_batch bucket_by_sequence_length rebatch unbatch
            prefetch cache repeat shuffle take skip shard window apply concatenate zip
            with_options enumerate take_while scan unique ignore_errors shuffle_and_repeat
            assert_cardinality map_and_batch group_by_window rejection_resample
            snapshot""",
            Api(Kind.DATASET, Effect.INITS_RUNTIME),
        ),
        names(
            "as_numpy_iterator make_one_shot_iterator make_initializable_iterator __iter__",
            Api(Kind.ITERATOR, Effect.INITS_RUNTIME),
        ),
        names("reduce cardinality", Api(Kind.TENSOR, Effect.INITS_RUNTIME)),
        names("element_spec output_shapes output_types", Api(Kind.UNKNOWN)),
    ),
    Kind.ITERATOR: names("get_next next", Api(Kind.TENSOR)),
    # TF1: ``t.eval(feed_dict=...)``, ``op.run()`` run the graph in the default session.
    Kind.GRAPH_OP: names("eval run", Api(Kind.UNKNOWN, Effect.RUNS_GRAPH)),
    Kind.TENSOR: merge(
        ARRAY_METHODS,
        names("numpy", Api(Kind.ARRAY)),
        names("assign assign_add assign_sub", Api(Kind.NONE, Effect.UPDATE)),
        names("get_shape", Api(Kind.UNKNOWN)),
        names("eval", Api(Kind.UNKNOWN, Effect.RUNS_GRAPH)),  # TF1 graph tensors
    ),
    Kind.VARIABLE: merge(
        ARRAY_METHODS,
        names("numpy read_value value", Api(Kind.TENSOR)),
        names("assign assign_add assign_sub", Api(Kind.NONE, Effect.UPDATE)),
    ),
    Kind.ARRAY: merge(
        ARRAY_METHODS,
        names("tolist", Api(Kind.LIST)),
        names("item", Api(Kind.SCALAR)),
        names("fill sort put resize", Api(Kind.NONE)),
    ),
    Kind.STRATEGY: tensorflow.STRATEGY_METHODS,
    Kind.STRING: names("join format strip lower upper replace", Api(Kind.STRING)),
    # TF1's MNIST reader: ``images, labels = mnist.train.next_batch(50)``.
    Kind.ARRAY_RECORD: names("next_batch", Api(Kind.LIST, returns_tuple=2, rows_arg=0)),
    Kind.OTHER_MODEL: names(
        "predict predict_proba transform fit_transform decision_function", Api(Kind.ARRAY)
    ),
}
# Methods that return the receiver's own kind (an array method on an array, ...).
SAME_KIND = frozenset(ARRAY_METHODS)

SCALAR_TYPES = numpy.SCALAR_TYPES
CLASS_FAMILIES = keras.CLASS_FAMILIES + others.CLASS_FAMILIES
OTHER_PREDICTOR_ROOTS = others.OTHER_PREDICTOR_ROOTS
MODEL_LOADER_ROOTS = others.MODEL_LOADER_ROOTS
# Roots whose lower-case functions return one tensor/array unless listed
# otherwise: ``tf.reduce_sum``, ``np.stack``, ``keras.ops.sum``.
ARRAY_ROOTS = (("tensorflow.", Kind.TENSOR), ("numpy.", Kind.ARRAY), ("keras.ops.", Kind.TENSOR))
