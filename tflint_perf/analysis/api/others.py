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
    names("gc.collect", Api(Kind.SCALAR)),
    names("joblib.load pickle.load pickle.loads dill.load cloudpickle.load", OTHER_MODEL),
    # scikit-learn's data helpers return tuples of arrays (``X, y = make_moons(...)``).
    {"sklearn.model_selection.train_test_split": Api(Kind.LIST, returns_tuple=4)},
)
PREFIXES = (
    ("sklearn.datasets.make_", Api(Kind.LIST, returns_tuple=2)),  # X, y = make_moons(...)
    ("matplotlib.", Api(Kind.FIGURE, Effect.DISPLAY)),
    ("PIL.", Api(Kind.UNKNOWN, Effect.DISPLAY)),
    ("IPython.", DISPLAY),
    ("seaborn.", Api(Kind.FIGURE, Effect.DISPLAY)),
    ("plotly.", Api(Kind.FIGURE, Effect.DISPLAY)),
    ("time.sleep", DISPLAY),
)
