"""TensorFlow: core ops, tf.data, TF1 graphs and sessions, tf.function."""

from __future__ import annotations

from tflint_perf.analysis.api import Api, Effect, Kind
from tflint_perf.analysis.api.facts import merge, names

E = Effect
TENSOR = Api(Kind.TENSOR)
TENSOR_PAIR = Api(Kind.LIST, returns_tuple=2)
LIST = Api(Kind.LIST)
NOTHING = Api(Kind.NONE)
OTHER = Api(Kind.UNKNOWN)
IO_DATASET = Api(Kind.DATASET, E.IO)

FUNCTIONS = merge(
    # -- results that are not one tensor --------------------------------------
    names("split unstack meshgrid dynamic_partition identity_n", LIST, "tensorflow."),
    names("unique unique_with_counts nn.moments math.top_k nn.top_k", TENSOR_PAIR, "tensorflow."),
    names("linalg.eigh linalg.eig linalg.qr", TENSOR_PAIR, "tensorflow."),
    {"tensorflow.linalg.svd": Api(Kind.LIST, returns_tuple=3)},
    names(
        """trainable_variables global_variables local_variables all_variables
        model_variables moving_average_variables get_collection get_collection_ref""",
        LIST,
        "tensorflow.",
    ),
    names(
        """shape TensorShape TensorSpec as_dtype DType device name_scope Module get_logger
        print custom_gradient SparseTensor RaggedTensor IndexedSlices while_loop cond case
        switch_case control_dependencies TensorArray get_static_value is_tensor
        executing_eagerly""",
        OTHER,
        "tensorflow.",
    ),
    names("map_fn vectorized_map", TENSOR, "tensorflow."),
    names("py_function numpy_function py_func", Api(Kind.TENSOR, E.PYTHON), "tensorflow."),
    names(
        """io.parse_single_example io.parse_example io.parse_sequence_example
        io.parse_single_sequence_example parse_single_example parse_example""",
        Api(Kind.DICT, E.DECODE),
        "tensorflow.",
    ),
    names("io.decode_csv decode_csv", Api(Kind.LIST, E.DECODE), "tensorflow."),
    names("io.read_file read_file", Api(Kind.TENSOR, E.IO), "tensorflow."),
    # -- variables, functions, tapes -------------------------------------------
    {
        "tensorflow.Variable": Api(Kind.VARIABLE, E.BUILDS),
        "tensorflow.get_variable": Api(Kind.VARIABLE, E.BUILDS | E.GRAPH_GROWTH),
        "tensorflow.function": Api(Kind.TF_FUNCTION, E.BUILDS),
        "tensorflow.GradientTape": Api(Kind.TAPE),
        "tensorflow.gradients": Api(Kind.LIST, E.GRADIENTS | E.GRAPH_GROWTH),
    },
    # -- TF1 graphs and sessions ----------------------------------------------
    names(
        """Session InteractiveSession train.MonitoredSession train.MonitoredTrainingSession
        train.SingularMonitoredSession""",
        Api(Kind.SESSION, E.INITS_RUNTIME),
        "tensorflow.",
    ),
    {
        "tensorflow.Graph": Api(Kind.GRAPH, E.BUILDS),
        "tensorflow.get_default_graph": Api(Kind.GRAPH),
        "tensorflow.get_default_session": Api(Kind.SESSION),
        "tensorflow.placeholder": Api(Kind.GRAPH_OP, E.GRAPH_GROWTH),
        "tensorflow.train.Saver": Api(Kind.UNKNOWN, E.BUILDS | E.GRAPH_GROWTH),
        "tensorflow.reset_default_graph": Api(Kind.NONE, E.RESETS),
        "tensorflow.disable_eager_execution": NOTHING,
        # graph bookkeeping that adds no op to the graph
        "tensorflow.set_random_seed": NOTHING,
        "tensorflow.get_variable_scope": OTHER,
        "tensorflow.variable_scope": OTHER,
        "tensorflow.make_template": OTHER,
        "tensorflow.disable_v2_behavior": NOTHING,
    },
    names(
        """global_variables_initializer initialize_all_variables local_variables_initializer
        variables_initializer tables_initializer assign assign_add assign_sub group
        summary.merge_all summary.merge""",
        Api(Kind.GRAPH_OP, E.GRAPH_GROWTH),
        "tensorflow.",
    ),
    names(
        """train.GradientDescentOptimizer train.AdamOptimizer train.RMSPropOptimizer
        train.MomentumOptimizer train.AdagradOptimizer train.AdadeltaOptimizer
        train.FtrlOptimizer train.ProximalAdagradOptimizer""",
        Api(Kind.OPTIMIZER, E.BUILDS),
        "tensorflow.",
    ),
    # -- tf.data ---------------------------------------------------------------
    names(
        """from_tensor_slices from_tensors from_generator range zip list_files
        sample_from_datasets choose_from_datasets load counter random""",
        Api(Kind.DATASET),
        "tensorflow.data.Dataset.",
    ),
    names(
        """TFRecordDataset TextLineDataset FixedLengthRecordDataset experimental.CsvDataset
        experimental.SqlDataset experimental.make_csv_dataset experimental.make_batched_features_dataset
        experimental.make_tf_record_dataset""",
        IO_DATASET,
        "tensorflow.data.",
    ),
    names(
        "experimental.sample_from_datasets experimental.choose_from_datasets",
        Api(Kind.DATASET),
        "tensorflow.data.",
    ),
    {
        "tensorflow.data.Options": OTHER,
        "tensorflow.data.AUTOTUNE": Api(Kind.SCALAR),
        "tensorflow.data.make_one_shot_iterator": Api(Kind.ITERATOR),
        "tensorflow.data.make_initializable_iterator": Api(Kind.ITERATOR),
        "tensorflow.data.experimental.AUTOTUNE": Api(Kind.SCALAR),
        "tensorflow_datasets.load": Api(Kind.DATASET, E.IO | E.DOWNLOAD),
        "tensorflow_datasets.as_numpy": Api(Kind.ITERATOR),
    },
)

# Families, longest prefix first; a name not listed above takes its family's facts.
PREFIXES = (
    ("tensorflow.data.experimental.", OTHER),
    ("tensorflow.data.", OTHER),
    ("tensorflow.io.gfile.", Api(Kind.UNKNOWN, E.IO)),
    ("tensorflow.io.decode_", Api(Kind.TENSOR, E.DECODE)),
    ("tensorflow.io.parse_", Api(Kind.DICT, E.DECODE)),
    ("tensorflow.image.random_", Api(Kind.TENSOR, E.RANDOM)),
    ("tensorflow.image.decode_", Api(Kind.TENSOR, E.DECODE)),
    ("tensorflow.image.encode_", Api(Kind.TENSOR, E.DECODE)),
    ("tensorflow.image.", TENSOR),
    ("tensorflow.random.experimental.", OTHER),
    ("tensorflow.random.set_", NOTHING),
    ("tensorflow.random.", Api(Kind.TENSOR, E.RANDOM)),
    ("tensorflow.summary.", Api(Kind.UNKNOWN, E.IO)),
    ("tensorflow.config.", OTHER),
    ("tensorflow.train.", OTHER),
    ("tensorflow.saved_model.", Api(Kind.UNKNOWN, E.IO)),
    ("tensorflow.distribute.", OTHER),
    ("tensorflow.estimator.", OTHER),
    ("tensorflow.feature_column.", OTHER),
    ("tensorflow.nest.", OTHER),
    ("tensorflow.python.", OTHER),
    ("tensorflow.autograph.", OTHER),
    ("tensorflow.test.", OTHER),
    ("tensorflow.lookup.", OTHER),
    ("tensorflow.sparse.", OTHER),
    ("tensorflow.ragged.", OTHER),
    ("tensorflow.experimental.", OTHER),
    ("tensorflow.debugging.", OTHER),
    ("tensorflow.errors.", OTHER),
    ("tensorflow.dtypes.", OTHER),
    ("tensorflow.types.", OTHER),
    ("tensorflow.tpu.", OTHER),
    ("tensorflow.queue.", OTHER),
    ("tensorflow.contrib.", OTHER),
    ("tensorflow.logging.", NOTHING),
    ("tensorflow.app.", OTHER),
    ("tensorflow.compat.", OTHER),  # compat.as_str ... (v1/v2 are canonicalised away)
    ("tensorflow.python_io.", OTHER),
    ("tensorflow.sysconfig.", OTHER),
    ("tensorflow.version.", OTHER),
    ("tensorflow.flags.", OTHER),
    ("tensorflow.gfile.", Api(Kind.UNKNOWN, E.IO)),
    ("tensorflow.strings.", TENSOR),
    ("tensorflow.math.", TENSOR),
    ("tensorflow.linalg.", TENSOR),
    ("tensorflow.nn.rnn_cell.", Api(Kind.LAYER, E.BUILDS)),
    ("tensorflow.nn.", TENSOR),
    ("tensorflow.signal.", TENSOR),
    ("tensorflow.layers.", Api(Kind.GRAPH_OP, E.GRAPH_GROWTH)),
    ("tensorflow.losses.", Api(Kind.GRAPH_OP)),
)
