"""The one table of API facts, keyed by canonical qualified name.

What a TensorFlow, Keras, NumPy (or other) call returns, what it costs and
what it does to the process, and the methods of each kind of value. Rules
and analysis keep no lists of API names of their own: they ask here.

- ``call(qualname)``: the facts of a function or class by canonical name
  (``tensorflow.data.Dataset.from_tensor_slices``); exact names first, then
  the longest matching family prefix (``tensorflow.math.``).
- ``method(kind, name)``: the facts of ``x.name(...)`` on a value of that
  kind (``Kind.DATASET``, ``"map"``); methods every kind of array shares
  are listed under ``Kind.TENSOR`` and ``Kind.ARRAY``.
- the vocabularies in ``vocab`` (sets of method or attribute names with
  one meaning, such as the Keras inference methods).

Names are canonical (``tensorflow.keras.X`` and ``tf_keras.X`` are
``keras.X``; ``tensorflow.compat.v1.X`` is ``tensorflow.X``): see
``tflint_perf.engine.names.canonical``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from tflint_perf.engine.names import register_star_exports


class Kind(enum.Enum):
    """What a value is, as far as the rules care."""

    UNKNOWN = "unknown"
    TENSOR = "tensor"  # a TensorFlow (or keras.ops) tensor
    ARRAY = "array"  # a NumPy array
    SCALAR = "scalar"  # a Python (or NumPy) number or bool
    STRING = "string"
    LIST = "list"  # a Python list or tuple (of anything)
    DICT = "dict"
    ARRAY_STORE = "array store"  # named arrays read by key (``h5py.File``): each one an array
    # A loader's record of arrays read as attributes (``load_iris().target``,
    # ``read_data_sets(d).train.images``): see ``RECORD_FIELDS``.
    ARRAY_RECORD = "array record"
    DATASET = "dataset"  # a tf.data pipeline
    ITERATOR = "iterator"  # an iterator over a pipeline
    KERAS_MODEL = "keras model"
    LAYER = "layer"
    OPTIMIZER = "optimizer"
    LOSS = "loss"
    METRIC = "metric"
    CALLBACK = "callback"
    VARIABLE = "variable"
    TF_FUNCTION = "tf.function"
    GRAPH = "graph"  # a TF1 graph
    GRAPH_OP = "graph op"  # a TF1 graph tensor or op (built, not run)
    STRATEGY = "distribution strategy"  # tf.distribute
    SESSION = "session"
    TAPE = "gradient tape"
    GRADIENT_FUNCTION = "gradient function"  # TF 1.x eager: its calls return gradients
    HISTORY = "history"
    OTHER_MODEL = "other model"  # scikit-learn, XGBoost ... (their own predict)
    FIGURE = "figure"
    NONE = "none"


class Effect(enum.Flag):
    """What a call costs or does, beyond computing its result."""

    NONE = 0
    INFERENCE = enum.auto()  # runs a model forward for predictions
    TRAINING = enum.auto()  # runs training steps (fit, train_on_batch)
    UPDATE = enum.auto()  # applies gradients / assigns variables
    GRADIENTS = enum.auto()  # computes gradients
    BUILDS = enum.auto()  # constructs something expensive (model, layer, optimizer, function)
    GRAPH_GROWTH = enum.auto()  # adds ops to the default TF1 graph
    RUNS_GRAPH = enum.auto()  # executes a TF1 graph (session.run)
    REPLICA_STEP = enum.auto()  # runs a function on every replica (strategy.run): one step
    # Starts the TensorFlow runtime in eager mode: devices, thread pools and the GPU
    # environment are fixed afterwards (each entry measured: tests/test_runtime_init.py).
    INITS_RUNTIME = enum.auto()
    INITS_DEVICES = enum.auto()  # starts it even with eager execution off (TF1 graph code)
    SESSION_DEVICES = (
        enum.auto()
    )  # a TF1 session: creates its GPU devices (reads the GPU variables)
    STARTS_CUDA = enum.auto()  # starts the CUDA driver, which reads CUDA_VISIBLE_DEVICES
    IO = enum.auto()  # reads or writes files
    DECODE = enum.auto()  # decodes or parses data
    RANDOM = enum.auto()  # draws random numbers (stateful)
    DISPLAY = enum.auto()  # shows something to a person
    PYTHON = enum.auto()  # runs Python code per element (py_function)
    DOWNLOAD = enum.auto()  # fetches data over the network
    RESETS = enum.auto()  # resets framework state (clear_session, reset_default_graph)
    CHILD_PROCESS = enum.auto()  # starts another process (subprocess, multiprocessing, os.system)

    # Flag's own | and & make each result through EnumType.__call__ (three Python
    # calls); the analyses combine effects millions of times over a corpus. The
    # same member, from the map Flag keeps of them, when it is there.
    def __or__(self, other):
        if type(other) is type(self):
            found = self._value2member_map_.get(self._value_ | other._value_)
            if found is not None:
                return found
        return enum.Flag.__or__(self, other)

    def __and__(self, other):
        if type(other) is type(self):
            found = self._value2member_map_.get(self._value_ & other._value_)
            if found is not None:
                return found
        return enum.Flag.__and__(self, other)


@dataclass(frozen=True)
class Api:
    returns: Kind = Kind.UNKNOWN
    effects: Effect = Effect.NONE
    # A tuple or list of this many values (``np.linalg.eig``: 2), nesting
    # kept: ``((x, y), (x, y))`` of ``load_data`` is ``returns_tuple=2`` with
    # ``nested=True``.
    returns_tuple: int = 0
    nested: bool = False
    # What a returned list holds, when the API says (a model's variables).
    elements: Kind = Kind.UNKNOWN
    # The argument (by position) saying how many rows each array it returns has
    # (``mnist.train.next_batch(50)``: 50 images and 50 labels).
    rows_arg: Optional[int] = None


def call(qualname: Optional[str]) -> Optional[Api]:
    """The facts of the function or class ``qualname`` names, if known."""
    if not qualname:
        return None
    try:
        return _calls[qualname]
    except KeyError:
        found = _calls[qualname] = _call(qualname)
        return found


# qualname -> its facts: the tables are fixed, and the prefix scans cost more
# than the rest of a lookup (a module asks about the same names many times).
_calls: Dict[str, Optional[Api]] = {}


def _call(qualname: str) -> Optional[Api]:
    from tflint_perf.analysis.api import tables

    found = tables.FUNCTIONS.get(qualname)
    if found is not None:
        return found
    last = qualname.rsplit(".", 1)[-1]
    if last[:1].isupper():
        for prefix, facts in tables.CLASS_FAMILIES:
            if qualname.startswith(prefix):
                return facts
    if qualname in tables.SCALAR_TYPES:
        return _SCALAR
    for prefix, facts in tables.PREFIXES:
        if qualname.startswith(prefix):
            return facts
    if last[:1].islower():
        for root, kind in tables.ARRAY_ROOTS:
            if qualname.startswith(root):
                return Api(kind)
    return None


_SCALAR = Api(Kind.SCALAR)


def method(kind: Kind, name: str) -> Optional[Api]:
    """The facts of the method ``name`` of a value of ``kind``."""
    from tflint_perf.analysis.api import tables

    return tables.METHODS.get(kind, {}).get(name)


def returns(qualname: Optional[str]) -> Kind:
    facts = call(qualname)
    return facts.returns if facts is not None else Kind.UNKNOWN


def effects(qualname: Optional[str]) -> Effect:
    facts = call(qualname)
    return facts.effects if facts is not None else Effect.NONE


def method_effects(kind: Kind, name: str) -> Effect:
    facts = method(kind, name)
    return facts.effects if facts is not None else Effect.NONE


PrefixTable = Tuple[Tuple[str, Api], ...]
FunctionTable = Dict[str, Api]


def star_export(module: str, name: str) -> Optional[str]:
    """What ``name`` is after ``from module import *`` when the table knows it there:
    an entry of the table, or a class of the family ``module`` is (``Dense`` of
    ``keras.layers``), unless the table files that name elsewhere (``Model`` is
    ``keras.Model``, not a layer)."""
    from tflint_perf.analysis.api import tables

    qual = f"{module}.{name}"
    if qual in tables.FUNCTIONS:
        return qual
    root = module.split(".", 1)[0]
    if not name[:1].isupper() or f"{root}.{name}" in tables.FUNCTIONS:
        return None
    if any(prefix == module + "." for prefix, _ in tables.CLASS_FAMILIES):
        return qual
    return None


register_star_exports(star_export)
