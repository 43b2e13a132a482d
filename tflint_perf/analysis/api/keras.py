"""Keras (2 and 3, ``tf.keras``, ``tf_keras``: all canonical ``keras.``)."""

from __future__ import annotations

from tflint_perf.analysis.api import Api, Effect, Kind
from tflint_perf.analysis.api.facts import merge, names

E = Effect
MODEL = Api(Kind.KERAS_MODEL, E.BUILDS)
LOADED_MODEL = Api(Kind.KERAS_MODEL, E.BUILDS | E.IO)
# Building, compiling or running a model starts the TensorFlow runtime
# (measured for each entry marked so: tests/test_runtime_init.py).
RUNS = E.INITS_RUNTIME
# ``(x_train, y_train), (x_test, y_test) = keras.datasets.X.load_data()``
LOAD_DATA = Api(Kind.LIST, E.DOWNLOAD | E.IO, returns_tuple=2, nested=True)

FUNCTIONS = merge(
    names("Sequential Model models.Sequential models.Model", MODEL, "keras."),
    names(
        "models.load_model saving.load_model",
        Api(Kind.KERAS_MODEL, E.BUILDS | E.IO | RUNS),
        "keras.",
    ),
    names(
        "models.model_from_json models.model_from_yaml models.model_from_config",
        LOADED_MODEL,
        "keras.",
    ),
    {"keras.models.clone_model": MODEL},
    names("Input layers.Input", Api(Kind.TENSOR), "keras."),
    names("backend.clear_session utils.clear_session", Api(Kind.NONE, E.RESETS), "keras."),
    names(
        "utils.to_categorical preprocessing.sequence.pad_sequences utils.pad_sequences",
        Api(Kind.ARRAY),
        "keras.",
    ),
    names(
        """utils.image_dataset_from_directory utils.text_dataset_from_directory
        utils.timeseries_dataset_from_array utils.audio_dataset_from_directory
        preprocessing.image_dataset_from_directory preprocessing.text_dataset_from_directory
        preprocessing.timeseries_dataset_from_array""",
        Api(Kind.DATASET, E.IO),
        "keras.",
    ),
    names("utils.get_file", Api(Kind.STRING, E.DOWNLOAD | E.IO), "keras."),
    names(
        """backend.get_session backend.set_session""",
        Api(Kind.SESSION),
        "keras.",
    ),
    names("backend.function", Api(Kind.TF_FUNCTION, E.BUILDS), "keras."),
)

# Capitalised names in these families are classes of that kind; lower-case
# names are functions (``keras.losses.mse``: a tensor).
CLASS_FAMILIES = (
    ("keras.applications.", Api(Kind.KERAS_MODEL, E.BUILDS | RUNS)),  # built with its input
    ("keras.layers.", Api(Kind.LAYER, E.BUILDS)),
    ("keras.optimizers.", Api(Kind.OPTIMIZER, E.BUILDS)),
    ("keras.losses.", Api(Kind.LOSS)),
    ("keras.metrics.", Api(Kind.METRIC)),
    ("keras.callbacks.", Api(Kind.CALLBACK)),
)

PREFIXES = (
    ("keras.datasets.", LOAD_DATA),
    ("keras.ops.", Api(Kind.TENSOR)),
    ("keras.backend.", Api(Kind.TENSOR)),
    ("keras.activations.", Api(Kind.TENSOR)),
    ("keras.losses.", Api(Kind.TENSOR)),
    ("keras.metrics.", Api(Kind.TENSOR)),
    ("keras.utils.", Api(Kind.UNKNOWN)),
    ("keras.preprocessing.image.", Api(Kind.UNKNOWN)),
)

# The methods of a Keras model.
MODEL_METHODS = merge(
    names("predict predict_on_batch", Api(Kind.ARRAY, E.INFERENCE | RUNS)),
    names("predict_classes predict_proba", Api(Kind.ARRAY, E.INFERENCE)),
    {
        "__call__": Api(Kind.TENSOR, E.INFERENCE | RUNS),
        "predict_generator": Api(Kind.ARRAY, E.INFERENCE),
    },
    names("fit", Api(Kind.HISTORY, E.TRAINING | RUNS)),
    names("fit_generator", Api(Kind.HISTORY, E.TRAINING)),
    names("train_on_batch", Api(Kind.UNKNOWN, E.TRAINING | RUNS)),
    names("evaluate test_on_batch", Api(Kind.UNKNOWN, E.INFERENCE | RUNS)),
    names("evaluate_generator", Api(Kind.UNKNOWN, E.INFERENCE)),
    names("compile build", Api(Kind.NONE, RUNS)),
    names("summary", Api(Kind.NONE)),
    names("save save_weights", Api(Kind.NONE, E.IO)),
    names("load_weights", Api(Kind.NONE, E.IO)),
    names("set_weights reset_states", Api(Kind.NONE, E.UPDATE)),
    names("get_weights", Api(Kind.LIST)),
    names("get_layer", Api(Kind.LAYER)),
)
LAYER_METHODS = merge(
    # A TF1 RNN cell's first state: new ops, a tuple of state tensors (one per layer or part).
    {"__call__": Api(Kind.TENSOR), "zero_state": Api(Kind.LIST, E.GRAPH_GROWTH)},
    names("get_weights", Api(Kind.LIST)),
    names("set_weights", Api(Kind.NONE, E.UPDATE)),
)
OPTIMIZER_METHODS = names(
    "apply_gradients minimize apply", Api(Kind.UNKNOWN, E.UPDATE | E.GRAPH_GROWTH)
)

# Methods that run Keras inference on a model (predict_classes/predict_proba:
# Sequential before TF 2.6).
INFERENCE_METHODS = frozenset({"predict", "predict_on_batch", "predict_classes", "predict_proba"})
# Inference methods only Keras models have (scikit-learn has predict and predict_proba).
KERAS_ONLY_INFERENCE = frozenset({"predict_on_batch", "predict_classes"})
# Keywords only Keras' predict takes (scikit-learn's takes just X): evidence of a Keras model.
KERAS_PREDICT_KEYWORDS = frozenset(
    {
        "verbose",
        "batch_size",
        "steps",
        "callbacks",
        "max_queue_size",
        "workers",
        "use_multiprocessing",
    }
)
# Calls that change a model's weights or graph: its predictions differ afterwards.
MODEL_CHANGING_METHODS = frozenset(
    {
        "fit",
        "fit_generator",
        "train_on_batch",
        "apply_gradients",
        "minimize",
        "set_weights",
        "load_weights",
        "compile",
    }
)
CALLBACK_BASE = "keras.callbacks.Callback"

# Models built as they are constructed, which starts the runtime (measured):
# a Sequential given its input (an ``Input`` layer or an input-shape keyword),
# and a functional Model (its layers ran on ``Input``s before).
SEQUENTIAL = frozenset({"keras.Sequential", "keras.models.Sequential"})
FUNCTIONAL = frozenset({"keras.Model", "keras.models.Model"})
INPUT_LAYERS = frozenset({"keras.Input", "keras.layers.Input", "keras.layers.InputLayer"})
INPUT_KEYWORDS = frozenset({"input_shape", "input_dim", "batch_input_shape", "batch_shape"})

# Keras callback hooks run once per batch or once per epoch.
PER_BATCH_HOOKS = frozenset(
    """on_batch_begin on_batch_end on_train_batch_begin on_train_batch_end
    on_test_batch_begin on_test_batch_end on_predict_batch_begin on_predict_batch_end""".split()
)
PER_EPOCH_HOOKS = frozenset({"on_epoch_begin", "on_epoch_end"})
# Model methods that run a whole epoch (or more) per call, not one step.
EPOCH_METHODS = frozenset({"fit", "fit_generator", "evaluate", "evaluate_generator"})
# Method names only a Keras model has: evidence of a model where the
# receiver's value is not known (a parameter whose callers live elsewhere).
KERAS_ONLY_METHODS = frozenset({"train_on_batch", "test_on_batch", "predict_on_batch"})
# A name guess: a step function imported from another module
# (``from model import train_step``) is known only by its name until the
# project index resolves imports; the name is the evidence, so only calls
# that resolve to nothing in the module are read this way.
STEP_FUNCTION_NAME = (
    r"^(?:[a-z0-9]+_)*(?:train|training|test|eval|evaluate|evaluation|val|valid|validation|"
    r"predict|prediction|infer|inference)_?steps?(?:_fn|_func|_function)?$"
)

# Making a Keras model: its classes (subclassed too) and the functions that
# return one; ``keras.applications.<Model>`` builds one of the zoo.
MODEL_CLASSES = SEQUENTIAL | FUNCTIONAL
MODEL_FACTORIES = frozenset(
    {
        "keras.models.load_model",
        "keras.saving.load_model",
        "keras.models.clone_model",
        "keras.models.model_from_json",
    }
)
APPLICATIONS = "keras.applications."
# Keras on a TF1 graph: a session made or handed to Keras, a placeholder
# (with the switches to graph mode, ``analysis/steps.py``'s TF1_GRAPH_MODE).
TF1_SESSION_CALLS = frozenset(
    {
        "tensorflow.Session",
        "tensorflow.InteractiveSession",
        "tensorflow.ConfigProto",
        "tensorflow.placeholder",
        "keras.backend.set_session",
        "keras.backend.get_session",
    }
)
# A class of the module deriving from one of these is a model or a layer
# (``analysis/values.py``: what its instances are).
MODEL_BASES = frozenset({"keras.Model", "keras.models.Model", "keras.Sequential"})
LAYER_BASES = frozenset({"keras.layers.Layer", "keras.Layer"})
# Modules whose ``__call__`` is their forward pass without being Keras layers
# (``tf.Module``, Sonnet 2's ``snt.Module``): a layer built there is rebuilt per pass.
MODULE_BASES = frozenset({"tensorflow.Module", "sonnet.Module"})
