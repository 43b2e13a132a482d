"""tf.data by name: what starts a pipeline, what each step does, what work per
element is worth threads, and what consumes a pipeline.

Read by ``analysis/datasets.py`` (pipeline facts), ``dataset_work.py``
(what a mapped function does) and ``dataset_use.py`` (where a pipeline
goes). Names are canonical (``tensorflow.data.X``, ``keras.X``).
"""

from __future__ import annotations

import enum
from typing import Dict

from tflint_perf.analysis.api.facts import each, words


class Source(enum.Enum):
    """How a constructor starts a pipeline."""

    MEMORY = "memory"  # slices of values already in memory, ranges, counters
    FILES = "files"  # reads a record/text file per element (and usually decodes it)
    FILE_NAMES = "file names"  # ``list_files``: names only; whatever maps them reads them
    GENERATOR = "generator"  # Python code per element (``from_generator``)
    COMBINED = "combined"  # zip/sample/choose of other pipelines: their work is its work
    KERAS_FILES = "keras files"  # ``*_dataset_from_directory``: read, batched and prefetched
    TFDS = "tfds"  # ``tfds.load``: a dataset, a list of them, or a dict by split
    TFDS_BUILDER = "tfds builder"  # ``tfds.builder(...)``: ``as_dataset()`` gives the splits


_DATASET = "tensorflow.data.Dataset."
SOURCES: Dict[str, Source] = {
    **{name: Source.MEMORY for name in each("from_tensor_slices from_tensors range", _DATASET)},
    **{name: Source.MEMORY for name in each("counter random load", _DATASET)},
    "tensorflow.data.experimental.load": Source.MEMORY,
    **{
        name: Source.COMBINED
        for name in each("zip sample_from_datasets choose_from_datasets", _DATASET)
    },
    **{
        name: Source.COMBINED
        for name in each(
            "sample_from_datasets choose_from_datasets", "tensorflow.data.experimental."
        )
    },
    _DATASET + "list_files": Source.FILE_NAMES,
    _DATASET + "from_generator": Source.GENERATOR,
    **{
        name: Source.FILES
        for name in each(
            """TFRecordDataset TextLineDataset FixedLengthRecordDataset experimental.CsvDataset
            experimental.SqlDataset""",
            "tensorflow.data.",
        )
    },
    **{
        f"keras.{module}.{kind}_dataset_from_directory": Source.KERAS_FILES
        for module in ("utils", "preprocessing")
        for kind in ("image", "text", "audio")
    },
    "tensorflow_datasets.load": Source.TFDS,
    "tensorflow_datasets.public_api.load": Source.TFDS,
    "tensorflow_datasets.builder": Source.TFDS_BUILDER,
    "tensorflow_datasets.public_api.builder": Source.TFDS_BUILDER,
}
# Functions that read files when a pipeline maps them over names
# (``interleave(tf.data.TFRecordDataset)``); the ``make_*`` readers batch themselves.
FILE_READERS = frozenset(
    [name for name, source in SOURCES.items() if source is Source.FILES]
    + list(
        each(
            "make_csv_dataset make_batched_features_dataset",
            "tensorflow.data.experimental.",
        )
    )
)
DATASET_TYPE = "tensorflow.data.Dataset"  # a parameter annotated with it holds a pipeline


class Role(enum.Enum):
    """What one method of a pipeline does to it."""

    BATCH = "batch"  # groups elements: a later map runs once per batch
    UNBATCH = "unbatch"
    PREFETCH = "prefetch"
    CACHE = "cache"
    MAP = "map"  # runs a function per element and transforms it
    FILTER = "filter"  # runs a function per element to keep or drop it
    TAKE = "take"
    REPEAT = "repeat"
    CONCATENATE = "concatenate"
    APPLY = "apply"  # ``ds.apply(transformation)``
    SAME = "same"  # reorders, drops or configures: the element work stays as it was


STEPS: Dict[str, Role] = {
    **{m: Role.BATCH for m in words("batch padded_batch ragged_batch sparse_batch rebatch")},
    "bucket_by_sequence_length": Role.BATCH,
    "group_by_window": Role.BATCH,  # its reduce function batches each window
    "unbatch": Role.UNBATCH,
    "prefetch": Role.PREFETCH,
    "cache": Role.CACHE,
    **{m: Role.MAP for m in words("map interleave flat_map parallel_interleave")},
    "map_with_legacy_function": Role.MAP,
    "filter": Role.FILTER,
    "take": Role.TAKE,
    "repeat": Role.REPEAT,
    "concatenate": Role.CONCATENATE,
    "apply": Role.APPLY,
    **{
        m: Role.SAME
        for m in words(
            """shuffle skip shard with_options enumerate snapshot ignore_errors scan unique
            take_while rejection_resample assert_cardinality"""
        )
    },
}
# The steps that take ``num_parallel_calls``, and how many positional arguments
# reach it: ``map(f, n)``, ``interleave(f, cycle_length, block_length, n)``.
PARALLEL_POSITION = {"map": 2, "map_with_legacy_function": 2, "interleave": 4}
# ``ds.with_options(o)``: ``o.experimental_optimization.map_parallelization = True`` has
# tf.data run the pipeline's stateless maps in parallel (TF 2.7+ also by default).
OPTIONS_STEP = "with_options"
MAP_PARALLELIZATION = ("experimental_optimization", "map_parallelization")
# Keywords only a parallel step takes (``num_threads``: ``tf.contrib.data`` before TF 1.4).
PARALLEL_KEYWORDS = words("num_parallel_calls deterministic num_threads")
# Steps that map one element to one element: a function returning a dataset there
# builds a dataset of datasets (window tricks), no element work of its own.
ONE_TO_ONE_STEPS = words("map map_with_legacy_function filter")
# Steps after which the number of elements is not bounded by the one before.
UNCOUNTED_STEPS = words("flat_map interleave rebatch")
# ``ds.apply(tf.data.experimental.X(...))``: what X does (by its last name).
APPLY_ROLES: Dict[str, Role] = {
    **{
        m: Role.BATCH
        for m in words(
            "dense_to_ragged_batch dense_to_sparse_batch bucket_by_sequence_length group_by_window"
        )
    },
    "map_and_batch": Role.BATCH,  # also maps: its function is read
    "parallel_interleave": Role.MAP,
    "prefetch_to_device": Role.PREFETCH,
    **{
        m: Role.SAME
        for m in words(
            "ignore_errors shuffle_and_repeat assert_cardinality enumerate_dataset unique scan"
        )
    },
}
APPLY_FUNCTIONS = frozenset({"map_and_batch", "parallel_interleave"})  # take a map function
# Fused steps that compute their batches ahead of the consumer on a thread and
# buffer of their own: as good as a final prefetch.
RUNS_AHEAD = frozenset({"map_and_batch"})
# Methods that give a dataset of datasets or windows: a function returning one
# builds nested datasets (no element work of its own).
NESTED_DATASET_METHODS = words("batch padded_batch window flat_map unbatch take skip map zip")
# In a method chain, these make it a chain on a dataset (``ds_.unbatch().window(...)``).
NESTING_METHODS = words("window unbatch flat_map")

# -- per-element work -----------------------------------------------------------
# Work per element worth overlapping with training or running on several threads
# (canonical prefixes): reading, decoding, parsing, image/audio/signal and string
# processing, Python code.
WORK_PREFIXES = tuple(
    each(
        """io.decode_ io.parse_ io.read_file io.gfile. image. audio. signal. strings.
        py_function numpy_function py_func read_file decode_ parse_
        string_split substr regex_replace""",  # the last: TF1's names of strings.*
        "tensorflow.",
    )
) + ("tensorflow_text.",)
# Under those prefixes, but a cast, a format or a hash: no work worth a thread.
CHEAP_WORK = frozenset(
    each(
        """image.convert_image_dtype strings.as_string strings.to_number strings.length
        strings.join strings.format strings.to_hash_bucket strings.to_hash_bucket_fast
        strings.to_hash_bucket_strong""",
        "tensorflow.",
    )
)
# Python per element: holds the GIL, so threads gain little, and its side effects
# interleave when run in parallel.
PYTHON_CALLS = frozenset(each("py_function numpy_function py_func", "tensorflow."))
# Draw from a stateful random generator (results change when elements are processed
# in another order); ``stateless_*`` names are excluded where they are read.
RANDOM_PREFIXES = tuple(each("random. random_ image.random_", "tensorflow."))
STATEFUL_CALLS = frozenset(each("nn.dropout multinomial", "tensorflow."))
# Methods that assign a variable (a side effect a parallel map would reorder).
ASSIGN_METHODS = words("assign assign_add assign_sub")
# How messages order the work they name: reads, decoding, Python, images (shown text).
WORK_RANKS = (
    ("file reads", "read_file", "gfile"),
    ("decode", "parse"),
    ("py_function", "numpy_function", "py_func"),
    ("tf.image.", "tf.audio.", "tf.signal."),
)
# Objects that tokenise text when called (or through ``.tokenize(...)``): string
# kernels loop over a batch's strings on one thread, so even a batched map pays.
TOKENIZER_CLASSES = frozenset(
    {"keras.layers.TextVectorization", "keras.layers.experimental.preprocessing.TextVectorization"}
)
TOKENIZER_PREFIXES = ("keras_nlp.tokenizers.", "keras_hub.tokenizers.", "tensorflow_text.")
TOKENIZER_MODEL_PREFIXES = ("keras_nlp.models.", "keras_hub.models.")  # ``...Tokenizer`` classes
# Keras preprocessing layers whose work per element is an affine map or a cast: in a
# map function they cost no more than the arithmetic they stand for. Any other
# layer or model called per element (augmentation, resizing, lookups) is real work.
CHEAP_LAYERS = frozenset(
    each(
        "Rescaling Normalization Activation Reshape Flatten Permute Identity Lambda",
        "keras.layers.",
    )
) | frozenset(each("Rescaling Normalization", "keras.layers.experimental.preprocessing."))

# -- consumers ------------------------------------------------------------------------
# Keras methods that iterate the data they are given (a dataset, a generator, arrays).
KERAS_DATA_METHODS = words(
    "fit evaluate predict fit_generator evaluate_generator predict_generator"
)
KERAS_TRAIN_METHODS = words("fit fit_generator")
# Where Keras is handed batches made elsewhere, one per step: the methods that take only
# generators and Sequences, and the keywords that count the steps of one (arrays need
# neither: Keras batches an array itself, whatever size its maker gave it).
KERAS_GENERATOR_METHODS = words("fit_generator evaluate_generator predict_generator")
STEP_COUNT_KEYWORDS = words("steps steps_per_epoch validation_steps")
# Keras' own makers of batches (``TimeseriesGenerator``, ``ImageDataGenerator().flow*``):
# what they make is read a batch per step.
KERAS_BATCH_MAKERS = "keras.preprocessing."
# Where those methods take data besides their first positional argument.
DATA_KEYWORDS = words("x validation_data generator")
# Keywords only Keras' ``fit``/``evaluate``/``predict`` take (scikit-learn,
# XGBoost, LightGBM and keras-rl ``fit`` do not): evidence that an object of
# unknown kind is a Keras model.
KERAS_ONLY_KEYWORDS = words(
    "epochs batch_size validation_data validation_split steps_per_epoch initial_epoch"
)
# Method names only TensorFlow/Keras objects have: evidence of a training or
# inference step even when the receiver is unknown (a model or optimizer passed in).
STEP_METHODS = words("train_on_batch test_on_batch predict_on_batch apply_gradients")
# Keywords through which an Estimator (``train``/``evaluate``/``predict``,
# ``TrainSpec``, ``EvalSpec``, contrib's ``Experiment``) takes the function it
# calls for its data: what that function returns is read batch after batch.
INPUT_FN_KEYWORDS = words("input_fn train_input_fn eval_input_fn")
TF1_ITERATOR_FUNCTIONS = frozenset(
    each("make_one_shot_iterator make_initializable_iterator", "tensorflow.data.")
)
TF1_ITERATOR_METHODS = words("make_one_shot_iterator make_initializable_iterator")
# ``iterator.make_initializer(ds)`` (an iterator ``from_structure``): ``ds`` is what it reads.
TF1_ITERATOR_TAKERS = words("make_initializer")
# Builtins (and tqdm) that hand over the elements of the iterable they are given.
ITERABLE_WRAPPERS = words("enumerate list tqdm sorted reversed zip")
LOOP_WRAPPERS = words("enumerate tqdm")  # ``for i, x in enumerate(ds)``: the loop walks ds
ITERATOR_METHODS = words("as_numpy_iterator __iter__")  # an iterator over the pipeline
# Looking at a pipeline without producing its elements (or producing one to show).
LOOK_METHODS = words("cardinality element_spec output_shapes output_types")
LOOK_CALLS = words("print display len type repr str isinstance")

# -- display ---------------------------------------------------------------------------
# Methods of matplotlib figures and axes. Their receivers are usually of unknown
# kind (``fig, ax = plt.subplots()`` unpacks a tuple the table cannot type), so the
# method name is the evidence that a loop draws for a person.
DISPLAY_METHODS = words(
    "imshow plot savefig subplot add_subplot set_title set_axis_off hist legend"
)
# Shown to a person by the table, but how training loops log their progress.
LOG_CALLS = frozenset({"print"})
# Calls that pace a loop for a viewer or write an image for one.
VIEWER_CALLS = frozenset({"time.sleep", "tensorflow.summary.image"})
