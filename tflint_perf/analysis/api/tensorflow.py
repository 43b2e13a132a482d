"""TensorFlow: core ops, tf.data, TF1 graphs and sessions, tf.function."""

from __future__ import annotations

from tflint_perf.analysis.api import Api, Effect, Kind
from tflint_perf.analysis.api.facts import merge, names

E = Effect
TENSOR = Api(Kind.TENSOR)
TENSOR_PAIR = Api(Kind.LIST, returns_tuple=2)
# Creating a tensor in eager mode starts the runtime (measured for each name
# and family marked so: tests/test_runtime_init.py).
RUNS = E.INITS_RUNTIME
EAGER_TENSOR = Api(Kind.TENSOR, RUNS)
EAGER_PAIR = Api(Kind.LIST, RUNS, returns_tuple=2)
# Creating the devices starts the runtime even with eager execution off.
DEVICES = RUNS | E.INITS_DEVICES
LIST = Api(Kind.LIST)
NOTHING = Api(Kind.NONE)
OTHER = Api(Kind.UNKNOWN)
IO_DATASET = Api(Kind.DATASET, E.IO)

FUNCTIONS = merge(
    # TF1's MNIST loader: ``mnist.train.images``, ``mnist.test.labels`` are arrays.
    names(
        """examples.tutorials.mnist.input_data.read_data_sets
        contrib.learn.python.learn.datasets.mnist.read_data_sets""",
        Api(Kind.ARRAY_RECORD),
        "tensorflow.",
    ),
    # -- results that are not one tensor --------------------------------------
    names("split unstack meshgrid dynamic_partition identity_n", LIST, "tensorflow."),
    names("unique unique_with_counts", TENSOR_PAIR, "tensorflow."),
    names("nn.moments math.top_k nn.top_k", EAGER_PAIR, "tensorflow."),
    names("linalg.eigh linalg.eig linalg.qr", EAGER_PAIR, "tensorflow."),
    {"tensorflow.linalg.svd": Api(Kind.LIST, RUNS, returns_tuple=3)},
    names(
        """trainable_variables global_variables local_variables all_variables
        model_variables moving_average_variables get_collection get_collection_ref""",
        Api(Kind.LIST, elements=Kind.VARIABLE),
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
    # -- tensors that start the runtime (the rest of ``tensorflow.``: ARRAY_ROOTS) --
    names(
        """constant zeros ones fill range eye convert_to_tensor zeros_like ones_like cast
        reshape matmul add subtract multiply divide reduce_sum reduce_mean reduce_max
        reduce_min concat stack transpose expand_dims squeeze tile gather where one_hot
        linspace sqrt exp square abs identity""",
        EAGER_TENSOR,
        "tensorflow.",
    ),
    names(
        "random_normal random_uniform truncated_normal",
        Api(Kind.TENSOR, E.RANDOM | RUNS),
        "tensorflow.",
    ),
    # Objects of tensor families that are no tensor and start nothing (measured).
    names(
        """random.Generator random.Algorithm signal.inverse_stft_window_fn
        image.ResizeMethod""",
        OTHER,
        "tensorflow.",
    ),
    {"tensorflow.nn.RNNCell": Api(Kind.LAYER, E.BUILDS)},
    # TF1's tf.contrib.rnn re-exports the cells of tf.nn.rnn_cell (beside functions).
    names(
        """BasicLSTMCell LSTMCell GRUCell BasicRNNCell MultiRNNCell DropoutWrapper
        ResidualWrapper LSTMBlockCell GRUBlockCell LayerNormBasicLSTMCell""",
        Api(Kind.LAYER, E.BUILDS),
        "tensorflow.contrib.rnn.",
    ),
    # -- devices and the runtime --------------------------------------------------
    names(
        "config.list_logical_devices config.experimental.list_logical_devices",
        Api(Kind.UNKNOWN, DEVICES),
        "tensorflow.",
    ),
    # Listing physical devices starts the CUDA driver, not the runtime (measured).
    names(
        "config.list_physical_devices config.experimental.list_physical_devices",
        Api(Kind.UNKNOWN, E.STARTS_CUDA),
        "tensorflow.",
    ),
    names(
        """distribute.MirroredStrategy distribute.MultiWorkerMirroredStrategy
        distribute.experimental.CentralStorageStrategy
        distribute.experimental.MultiWorkerMirroredStrategy""",
        Api(Kind.STRATEGY, DEVICES),
        "tensorflow.",
    ),
    {"tensorflow.distribute.OneDeviceStrategy": Api(Kind.STRATEGY, RUNS)},
    names(
        """distribute.TPUStrategy distribute.experimental.TPUStrategy
        distribute.experimental.ParameterServerStrategy distribute.ParameterServerStrategy
        distribute.get_strategy""",
        Api(Kind.STRATEGY),
        "tensorflow.",
    ),
    {"tensorflow.summary.create_file_writer": Api(Kind.UNKNOWN, E.IO | RUNS)},
    # -- variables, functions, tapes -------------------------------------------
    {
        "tensorflow.Variable": Api(Kind.VARIABLE, E.BUILDS | RUNS),
        "tensorflow.get_variable": Api(Kind.VARIABLE, E.BUILDS | E.GRAPH_GROWTH),
        "tensorflow.function": Api(Kind.TF_FUNCTION, E.BUILDS),
        "tensorflow.GradientTape": Api(Kind.TAPE),
        "tensorflow.gradients": Api(Kind.LIST, E.GRADIENTS | E.GRAPH_GROWTH),
    },
    # -- TF1 graphs and sessions ----------------------------------------------
    # A session creates its GPU devices; the eager runtime stays configurable
    # (measured: set_inter_op_parallelism_threads works after ``Session()``).
    names(
        """Session InteractiveSession train.MonitoredSession train.MonitoredTrainingSession
        train.SingularMonitoredSession""",
        Api(Kind.SESSION, E.SESSION_DEVICES),
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
        Api(Kind.DATASET, RUNS),
        "tensorflow.data.Dataset.",
    ),
    names("TFRecordDataset TextLineDataset", Api(Kind.DATASET, E.IO | RUNS), "tensorflow.data."),
    names(
        """FixedLengthRecordDataset experimental.CsvDataset
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
    ("tensorflow.image.random_", Api(Kind.TENSOR, E.RANDOM | RUNS)),
    ("tensorflow.image.decode_", Api(Kind.TENSOR, E.DECODE | RUNS)),
    ("tensorflow.image.encode_", Api(Kind.TENSOR, E.DECODE | RUNS)),
    ("tensorflow.image.", EAGER_TENSOR),
    ("tensorflow.random.experimental.", OTHER),
    ("tensorflow.random.set_", NOTHING),
    ("tensorflow.random.", Api(Kind.TENSOR, E.RANDOM | RUNS)),
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
    ("tensorflow.strings.", EAGER_TENSOR),
    ("tensorflow.math.", EAGER_TENSOR),
    ("tensorflow.linalg.", EAGER_TENSOR),
    ("tensorflow.nn.rnn_cell.", Api(Kind.LAYER, E.BUILDS)),
    ("tensorflow.nn.", EAGER_TENSOR),
    ("tensorflow.signal.", EAGER_TENSOR),
    ("tensorflow.layers.", Api(Kind.GRAPH_OP, E.GRAPH_GROWTH)),
    ("tensorflow.losses.", Api(Kind.GRAPH_OP)),
)

# -- the runtime's configuration (TFP301, TFP303) ------------------------------
# Calls that configure devices or thread pools, which only work before the
# runtime starts, with the RuntimeError TensorFlow raises afterwards.
DEVICE_CONFIGURATION = {
    "tensorflow.config.experimental.set_memory_growth": (
        "Physical devices cannot be modified after being initialized"
    ),
    "tensorflow.config.set_visible_devices": (
        "Visible devices cannot be modified after being initialized"
    ),
    "tensorflow.config.experimental.set_visible_devices": (
        "Visible devices cannot be modified after being initialized"
    ),
    "tensorflow.config.set_logical_device_configuration": (
        "Virtual devices cannot be modified after being initialized"
    ),
    "tensorflow.config.experimental.set_virtual_device_configuration": (
        "Virtual devices cannot be modified after being initialized"
    ),
    "tensorflow.config.experimental.set_logical_device_configuration": (
        "Virtual devices cannot be modified after being initialized"
    ),
    "tensorflow.config.threading.set_intra_op_parallelism_threads": (
        "Intra op parallelism cannot be modified after initialization."
    ),
    "tensorflow.config.threading.set_inter_op_parallelism_threads": (
        "Inter op parallelism cannot be modified after initialization."
    ),
}
# Private, but test suites call it to start over with a fresh runtime.
RUNTIME_RESETS = frozenset({"tensorflow.python.eager.context._reset_context"})
# GPU environment variables, read once: by the CUDA driver when it starts
# (listing physical devices starts it), or by TensorFlow when it creates its
# GPU devices (the runtime starting, or a TF1 session).
CUDA_DRIVER_VARIABLES = frozenset({"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER"})
GPU_RUNTIME_VARIABLES = frozenset(
    {"TF_FORCE_GPU_ALLOW_GROWTH", "TF_GPU_ALLOCATOR", "TF_GPU_THREAD_MODE"}
)
# Methods of a distribution strategy: ``run`` calls the function it is given
# on every replica, one distributed step per call.
STRATEGY_METHODS = merge(
    names("run experimental_run_v2", Api(Kind.UNKNOWN, E.REPLICA_STEP)),
    names("scope", Api(Kind.UNKNOWN)),
    names(
        "reduce gather experimental_distribute_dataset distribute_datasets_from_function",
        Api(Kind.UNKNOWN),
    ),
)
# The decorator that compiles a function to a graph.
TF_FUNCTION = "tensorflow.function"
# Parameter annotations that say what a value is.
TYPE_ANNOTATIONS = {"tensorflow.Tensor": Kind.TENSOR, "numpy.ndarray": Kind.ARRAY}
# np.where(c) gives a tuple of index arrays; np.where(c, a, b) one array.
WHERE = "numpy.where"
