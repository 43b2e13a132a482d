"""Other libraries the rules need to tell apart, and Python's builtins."""

from __future__ import annotations

from tflint_perf.analysis.api import Api, Effect, Kind
from tflint_perf.analysis.api.facts import merge, names

# Libraries whose models have their own ``predict`` (not Keras inference).
OTHER_PREDICTOR_ROOTS = frozenset(
    """sklearn xgboost lightgbm catboost statsmodels torch prophet pmdarima keras_tuner
    joblib""".split()
)
# Libraries that load pickled estimators (scikit-learn models, mostly).
MODEL_LOADER_ROOTS = frozenset("joblib pickle dill cloudpickle skops".split())

DISPLAY = Api(Kind.NONE, Effect.DISPLAY)
# Calls that block until a person acts, and the positional index of a delay
# that, when given and not 0, makes them return on their own (None: none).
WAITS_FOR_A_PERSON = {
    "input": None,
    "cv2.waitKey": 0,  # waitKey(0) or waitKey(): until a key; waitKey(1): a video loop
    "matplotlib.pyplot.waitforbuttonpress": None,
    "matplotlib.pyplot.ginput": None,
}
OTHER_MODEL = Api(Kind.OTHER_MODEL)
# Capitalised names of these libraries are estimators with their own predict.
CLASS_FAMILIES = tuple((root + ".", OTHER_MODEL) for root in sorted(OTHER_PREDICTOR_ROOTS))
FUNCTIONS = merge(
    names("cv2.imshow cv2.waitKey IPython.display.display IPython.display.clear_output", DISPLAY),
    names("print input", DISPLAY),
    names("len int float round abs bool hash ord", Api(Kind.SCALAR)),
    names("str repr format", Api(Kind.STRING)),
    names("list tuple sorted reversed zip enumerate map filter range", Api(Kind.LIST)),
    names("dict", Api(Kind.DICT)),
    names("open", Api(Kind.UNKNOWN, Effect.IO)),
    names("h5py.File", Api(Kind.ARRAY_STORE, Effect.IO)),  # f["train_X"]: an array
    names("scipy.io.loadmat", Api(Kind.ARRAY_STORE, Effect.IO)),  # mat["X"]: an array
    names("gc.collect", Api(Kind.SCALAR)),
    names("joblib.load pickle.load pickle.loads dill.load cloudpickle.load", OTHER_MODEL),
    names(
        "os.system os.popen os.fork os.forkpty concurrent.futures.ProcessPoolExecutor",
        Api(Kind.UNKNOWN, Effect.CHILD_PROCESS),
    ),
    # ... but these only ask about processes
    names("multiprocessing.cpu_count", Api(Kind.SCALAR)),
    names(
        """multiprocessing.current_process multiprocessing.freeze_support
        multiprocessing.set_start_method multiprocessing.active_children""",
        Api(Kind.UNKNOWN),
    ),
    # scikit-learn's data helpers return tuples of arrays (``X, y = make_moons(...)``).
    {"sklearn.model_selection.train_test_split": Api(Kind.LIST, returns_tuple=4)},
    # ... and its bundled tables a Bunch of arrays (``iris.data``, ``iris.target``); not
    # ``load_files`` (lists of texts) nor the ``fetch_*`` downloads (some are texts).
    names(
        """load_iris load_digits load_wine load_breast_cancer load_diabetes load_boston
        load_linnerud""",
        Api(Kind.ARRAY_RECORD),
        "sklearn.datasets.",
    ),
)
# What the attributes of an ``ARRAY_RECORD`` hold: arrays, except these (a field not
# named here is an array: ``data``, ``target``, ``images``, ``labels``).
RECORD_FIELDS = {
    "train": Kind.ARRAY_RECORD,  # TF1 MNIST: ``mnist.train.images``
    "test": Kind.ARRAY_RECORD,
    "validation": Kind.ARRAY_RECORD,
    "num_examples": Kind.SCALAR,
    "epochs_completed": Kind.SCALAR,
    "DESCR": Kind.STRING,
    "filename": Kind.STRING,
    "feature_names": Kind.LIST,  # names, a few
    "target_names": Kind.LIST,
    "frame": Kind.UNKNOWN,
    "next_batch": Kind.UNKNOWN,  # a method (``tables.METHODS``)
    "keys": Kind.UNKNOWN,
}
PREFIXES = (
    ("sklearn.datasets.make_", Api(Kind.LIST, returns_tuple=2)),  # X, y = make_moons(...)
    ("subprocess.", Api(Kind.UNKNOWN, Effect.CHILD_PROCESS)),
    ("multiprocessing.", Api(Kind.UNKNOWN, Effect.CHILD_PROCESS)),
    ("os.exec", Api(Kind.NONE, Effect.CHILD_PROCESS)),
    ("os.spawn", Api(Kind.SCALAR, Effect.CHILD_PROCESS)),
    ("matplotlib.", Api(Kind.FIGURE, Effect.DISPLAY)),
    ("PIL.", Api(Kind.UNKNOWN, Effect.DISPLAY)),
    ("IPython.", DISPLAY),
    ("seaborn.", Api(Kind.FIGURE, Effect.DISPLAY)),
    ("plotly.", Api(Kind.FIGURE, Effect.DISPLAY)),
    ("time.sleep", DISPLAY),
)

# Builtins that iterate their argument: on a dataset they run its pipeline.
ITERATING_BUILTINS = frozenset("list tuple set sorted iter next enumerate zip".split())
# The process environment, and the calls that set one of its variables:
# ``setdefault(name, value)`` and ``putenv(name, value)``; ``update(...)``.
# Decorators that compile a Python function's loops to machine code (numba), or
# trace them once into one program (jax.jit): a loop inside does not pay Python's
# cost per element.
LOOP_COMPILERS = frozenset(
    "numba.jit numba.njit numba.cuda.jit numba.vectorize numba.guvectorize numba.stencil "
    "numba.generated_jit jax.jit".split()
)

ENVIRON = "os.environ"
ENV_SETTERS = frozenset({"os.environ.setdefault", "os.putenv"})
ENV_UPDATE = "os.environ.update"
# Bases whose subclasses' methods a framework calls itself (``fit`` calls
# ``train_step``, TF-Agents calls ``_train``): such a class is no RL agent
# driven by the user's own episode loop (``analysis/agent_classes.py``).
FRAMEWORK_BASE_PREFIXES = ("keras.", "tensorflow.", "tf_agents.", "torch.")
