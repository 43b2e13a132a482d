"""Which expressions hold a tensor or a NumPy array, without running anything.

Evidence, per scope (a function, or the module):

- a name whose every binding in the scope is a tensor-producing expression:
  a ``tf.``/``np.``/``keras.ops`` call that returns one tensor (not a list,
  tuple, dataset, shape or dtype), arithmetic on a tensor, a slice of one,
  ``.numpy()``/``.reshape()``/``.astype()`` of one;
  also Keras ``model.predict(x)``, ``t.numpy()``, ``sess.run(t)``, a call
  of the module's own function whose every ``return`` is an array, a
  boolean-mask subscript ``x[y == k]``, and names unpacked from a tuple of
  arrays (``w, v = np.linalg.eig(a)``, ``(x, y), _ = mnist.load_data()``);
- a parameter (or a name bound in no visible scope) that the scope uses as
  an array: ``x.shape``, ``x.ndim``, ``tf.shape(x)``, or an annotation
  ``tf.Tensor`` / ``np.ndarray``; or a parameter of a plain function that
  every call in the file passes an array.

A name with any other kind of binding (a loop target, an unpacking of
anything else, a call to anything else) is not a tensor: precision over
recall.

Also here: sizes of tensors (``x.shape[0]``, ``len(x)``, ``tf.shape(x)[0]``).
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple, cast

from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.nodes import node_types
from tflint_perf.engine.walk import descendants

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
# Methods of a tensor/array that return a tensor/array.
_TENSOR_METHODS = frozenset(
    {
        "numpy",
        "reshape",
        "astype",
        "transpose",
        "copy",
        "squeeze",
        "flatten",
        "ravel",
        "swapaxes",
        "clip",
        "round",
    }
)
_SPECTRA = frozenset(
    {"numpy.linalg.eig", "numpy.linalg.eigh", "numpy.linalg.svd", "tensorflow.linalg.eigh"}
)
_FROM_LITERAL = frozenset(
    {"numpy.array", "numpy.asarray", "tensorflow.constant", "tensorflow.convert_to_tensor"}
)
_COUNTERS = frozenset({"numpy.arange", "tensorflow.range", "numpy.linspace", "keras.ops.arange"})
_GENERATORS = frozenset(
    {"numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.Generator"}
)
# Methods of a NumPy random generator that do not return an array.
_GENERATOR_NON_ARRAY = frozenset(
    {"shuffle", "spawn", "bit_generator", "seed", "get_state", "set_state", "bytes"}
)
ARRAY_ATTRS = frozenset({"shape", "ndim"})
_ARRAY_ANNOTATIONS = frozenset({"tensorflow.Tensor", "numpy.ndarray", "numpy.array"})

SCOPES = cast("tuple[type[cst.FunctionDef], type[cst.Lambda]]", node_types("FunctionDef", "Lambda"))
_IN_PROGRESS = object()

# Calls returning a tuple of arrays, and how deep the tuples nest
# (``(x_train, y_train), (x_test, y_test) = mnist.load_data()``: 2).
_ARRAY_TUPLES = {
    "numpy.linalg.eig": 1,
    "numpy.linalg.eigh": 1,
    "numpy.linalg.svd": 1,
    "numpy.linalg.qr": 1,
    "numpy.histogram": 1,
    "numpy.meshgrid": 1,
    "numpy.split": 1,
    "numpy.array_split": 1,
    "numpy.where": 1,
    "numpy.nonzero": 1,
    "tensorflow.linalg.eigh": 1,
    "tensorflow.linalg.svd": 1,
    "tensorflow.linalg.qr": 1,
    "tensorflow.nn.moments": 1,
    "tensorflow.meshgrid": 1,
    "tensorflow.split": 1,
    "tensorflow.unstack": 1,
    "tensorflow.math.top_k": 1,
    "tensorflow.nn.top_k": 1,
}
# Methods that return an array whatever they are called on: Keras
# ``model.predict(x)``, ``t.numpy()`` of a TF or PyTorch tensor, scikit-learn
# ``scaler.fit_transform(x)``.
_ARRAY_METHODS = frozenset(
    {"predict", "predict_on_batch", "predict_proba", "numpy", "fit_transform"}
)
# Receivers of ``.run(fetch)`` that are TF1 sessions (one fetch: one array).
_SESSION_NAMES = ("sess", "session")


class _Unpacked:
    """A name bound by unpacking ``value`` (``level`` tuples deep)."""

    def __init__(self, value, level: int) -> None:
        self.value = value
        self.level = level


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


class TensorNames:
    """Per-file knowledge of which names hold tensors/arrays (``ctx.shared(TensorNames)``)."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self._bindings: Dict[cst.CSTNode, Dict[str, list]] = {}
        self._params: Dict[cst.CSTNode, dict] = {}
        self._array_uses: Dict[cst.CSTNode, set] = {}
        self._polymorphic: Dict[cst.CSTNode, set] = {}
        self._defs: Dict[cst.CSTNode, dict] = {}
        self._binders: Dict[cst.CSTNode, dict] = {}
        self._indexed = False  # every scope's tables built (on the first query)
        self._tops: dict = {}  # scope -> its body's statements -> position
        self._attributes: dict = {}  # (class, attribute) -> holds an array
        self._cache: dict = {}
        self._returns: dict = {}  # FunctionDef -> whether it returns one array
        self._evaluating: list = []  # (name, scope) keys being decided, innermost last
        self._calls: Optional[dict] = None  # function name -> calls by that name

    # -- scopes ---------------------------------------------------------
    def scope_of(self, node: cst.CSTNode) -> cst.CSTNode:
        for parent in self.ctx.ancestors_of(node):
            if isinstance(parent, SCOPES):
                return parent
        return self.ctx.module

    def _outer_scope(self, scope: cst.CSTNode) -> Optional[cst.CSTNode]:
        if scope is self.ctx.module:
            return None
        return self.scope_of(scope)

    def _index(self, scope: cst.CSTNode) -> None:
        if scope in self._bindings:
            return
        if not self._indexed:
            self._indexed = True
            self._index_all()
            if scope in self._bindings:
                return
        self._new_scope(scope)

    def _new_scope(self, scope) -> None:
        params: dict = {}
        uses: set = set()
        if isinstance(scope, SCOPES):
            for param in _all_params(scope.params):
                params[param.name.value] = param
                ann = param.annotation
                if ann is not None and self._array_annotation(ann.annotation):
                    uses.add(param.name.value)
        self._bindings[scope] = {}
        self._params[scope] = params
        self._array_uses[scope] = uses
        self._polymorphic[scope] = set()
        self._defs[scope] = {}
        self._binders[scope] = {}

    def _owner(self, node):
        """The scope a node's bindings belong to; None inside a class body."""
        for parent in self.ctx.ancestors_of(node):
            if isinstance(parent, cst.ClassDef):
                return None
            if isinstance(parent, SCOPES):
                return parent
        return self.ctx.module

    def _ragged_dataset(self, value) -> bool:
        """``keras.datasets.imdb.load_data()`` (or reuters): its inputs are object
        arrays of token-id lists of different lengths; its labels are arrays."""
        if not isinstance(value, cst.Call):
            return False
        qual = (self.ctx.call_name(value) or "").split(".")
        return qual[:2] == ["keras", "datasets"] and len(qual) == 4 and qual[2] in _RAGGED_DATASETS

    def _index_all(self) -> None:
        """Every scope's bindings and array uses, from the walk's per-type node lists
        (one pass over the binding nodes, not a walk per scope)."""
        ctx = self.ctx

        def scope_for(node):
            scope = self._owner(node)
            if scope is not None and scope not in self._bindings:
                self._new_scope(scope)
            return scope

        def bind(scope, target, value, level=0, position=0):
            if scope is None:
                return
            if isinstance(target, cst.Name):
                bound = _Unpacked(value, level) if level and value is not None else value
                if level == 2 and position == 0 and self._ragged_dataset(value):
                    bound = None  # the reviews of (x, y) = imdb.load_data(): ragged lists
                self._bindings[scope].setdefault(target.value, []).append(bound)
                self._binders[scope].setdefault(target.value, []).append(target)
            elif isinstance(target, (cst.Tuple, cst.List)):
                for position, element in enumerate(target.elements):
                    if isinstance(element, cst.StarredElement):
                        bind(scope, element.value, None)
                    else:
                        bind(scope, element.value, value, level + 1, position)

        for node in ctx.nodes(cst.Assign):
            scope = scope_for(node)
            for t in node.targets:
                bind(scope, t.target, node.value)
        for node in ctx.nodes(cst.AnnAssign):
            scope = scope_for(node)
            if node.value is not None:
                bind(scope, node.target, node.value)
            elif (
                scope is not None
                and isinstance(node.target, cst.Name)
                and self.ctx.qualname(node.annotation.annotation) in _ARRAY_ANNOTATIONS
            ):
                self._array_uses[scope].add(node.target.value)
        for node in ctx.nodes(cst.AugAssign):
            bind(scope_for(node), node.target, node)  # x += ... keeps the kind of x
        for node_type in (cst.For, cst.CompFor):
            for node in ctx.nodes(node_type):
                bind(scope_for(node), node.target, None)
        for node in ctx.nodes(cst.AsName):
            bind(scope_for(node), node.name, None)
        for node in ctx.nodes(cst.NamedExpr):
            bind(scope_for(node), node.target, node.value)
        for def_type in (cst.FunctionDef, cst.ClassDef):
            for node in ctx.nodes(def_type):
                scope = scope_for(node)
                bind(scope, node.name, None)
                if scope is not None and def_type is cst.FunctionDef:
                    self._defs[scope][node.name.value] = node
        self._index_imports(bind, scope_for)
        self._index_uses(scope_for)

    def _index_imports(self, bind, scope_for) -> None:
        for node_type in (cst.Import, cst.ImportFrom):
            for node in self.ctx.nodes(node_type):
                if isinstance(node.names, cst.ImportStar):
                    continue
                scope = scope_for(node)
                for alias in node.names:
                    local = alias.asname.name if alias.asname is not None else alias.name
                    if isinstance(local, cst.Name):
                        bind(scope, local, None)

    def _index_uses(self, scope_for) -> None:
        """``x.shape``, ``tf.shape(x)``: x is used as an array; ``isinstance(x, ...)``:
        the code checks what x holds."""
        for node in self.ctx.nodes(cst.Attribute):
            if node.attr.value in ARRAY_ATTRS and isinstance(node.value, cst.Name):
                scope = scope_for(node)
                if scope is not None:
                    self._array_uses[scope].add(node.value.value)
        for node in self.ctx.nodes(cst.Call):
            if not node.args or not isinstance(node.args[0].value, cst.Name):
                continue
            func = node.func
            last = (
                func.attr.value
                if isinstance(func, cst.Attribute)
                else (func.value if isinstance(func, cst.Name) else "")
            )
            if last in ("isinstance", "hasattr", "type") and isinstance(func, cst.Name):
                scope = scope_for(node)
                if scope is not None:
                    self._polymorphic[scope].add(node.args[0].value.value)
            elif last in ("shape", "rank", "ndim") and self.ctx.call_name(node) in (
                "tensorflow.shape",
                "numpy.shape",
                "tensorflow.rank",
                "numpy.ndim",
            ):
                scope = scope_for(node)
                if scope is not None:
                    self._array_uses[scope].add(node.args[0].value.value)

    def _array_annotation(self, annotation) -> bool:
        """``tf.Tensor``, ``np.ndarray``, ``npt.NDArray[...]``, or a project's own alias
        named like one (``FloatTensor``, ``IntTensor``)."""
        if isinstance(annotation, cst.Subscript):
            annotation = annotation.value
        if self.ctx.qualname(annotation) in _ARRAY_ANNOTATIONS:
            return True
        name = dotted(annotation)
        return name is not None and name.rsplit(".", 1)[-1].endswith(
            ("Tensor", "NDArray", "ndarray")
        )

    # -- queries --------------------------------------------------------
    def is_tensor_name(self, name: str, scope: cst.CSTNode) -> bool:
        key = (name, scope)
        cached = self._cache.get(key)
        if cached is _IN_PROGRESS:
            # `x = x + y`: x's own earlier value; the other bindings decide.
            return bool(self._evaluating) and self._evaluating[-1] == key
        if cached is not None:
            return cached
        self._cache[key] = _IN_PROGRESS
        self._evaluating.append(key)
        try:
            result = self._is_tensor_name(name, scope)
        finally:
            self._evaluating.pop()
        self._cache[key] = result
        return result

    def _is_tensor_name(self, name: str, scope: cst.CSTNode) -> bool:
        self._index(scope)
        values = self._bindings[scope].get(name)
        if values:
            return all(self._is_tensor_binding(v, name, scope) for v in values)
        if name in self._params[scope]:
            if name in self._polymorphic[scope] or name in ("self", "cls"):
                return False
            return name in self._array_uses[scope] or self._param_from_calls(name, scope)
        outer = self._outer_scope(scope)
        if outer is None:
            return False
        # A free name: the outer binding decides, or array use here.
        if (
            name in self._array_uses[scope]
            and name not in self.ctx.imports.aliases
            and name not in self._polymorphic[scope]
        ):
            self._index(outer)
            if not self._bindings[outer].get(name) or self.is_tensor_name(name, outer):
                return True
            return False
        return self.is_tensor_name(name, outer)

    def _reaching(self, use: cst.Name, scope):
        """The binding of the top-level statement (of the module or function) nearest
        before the use, when the name has several: scripts, notebooks and long
        functions reuse names (``scores = f(x)`` then ``scores = np.concatenate(...)``)."""
        if not isinstance(scope, (cst.Module, cst.FunctionDef)):
            return None
        self._index(scope)
        values = self._bindings[scope].get(use.value)
        if not values or len(values) < 2:
            return None
        at = self._top(use, scope)
        if at is None:
            return None
        best = None
        for value, binder in zip(values, self._binders[scope][use.value]):
            top = self._top(binder, scope)
            if top is None or top == at:
                return None  # bound in the same statement (a loop): order unknown
            if isinstance(value, cst.AugAssign):
                continue  # x += y keeps what x was
            if top < at and (best is None or top > best[0]):
                best = (top, value)
        return best[1] if best is not None else None

    def _top(self, node, scope) -> Optional[int]:
        """Position of the statement of ``scope``'s own body that holds ``node``."""
        tops = self._tops.get(scope)
        if tops is None:
            body = scope.body if isinstance(scope, cst.Module) else scope.body.body
            tops = self._tops[scope] = {stmt: k for k, stmt in enumerate(body)}
        if node in tops:
            return tops[node]
        for parent in self.ctx.ancestors_of(node):
            if parent in tops:
                return tops[parent]
        return None

    def is_dict_name(self, name: str, scope) -> bool:
        """A name bound (in its scope) only to dicts: ``{...}``, ``dict(...)``."""
        self._index(scope)
        values = self._bindings[scope].get(name, [])
        return bool(values) and all(
            isinstance(v, (cst.Dict, cst.DictComp))
            or (isinstance(v, cst.Call) and isinstance(v.func, cst.Name) and v.func.value == "dict")
            for v in values
        )

    def _is_tensor_binding(self, value, name: str, scope) -> bool:
        if value is None:
            return False
        if isinstance(value, cst.AugAssign):
            return True  # x += y keeps x's kind; decided by the other bindings
        if isinstance(value, _Unpacked):
            return self._tuple_depth(value.value, scope) == value.level
        return self.is_tensor_expr(value, scope)

    def _tuple_depth(self, expr, scope, depth: int = 0) -> int:
        """How many tuple levels hold arrays: 1 for ``np.linalg.eig(a)``, 2 for
        ``mnist.load_data()``; 0 when unknown."""
        if depth > 3:
            return 0
        if isinstance(expr, cst.Call):
            qual = self.ctx.call_name(expr) or ""
            if qual.startswith("keras.datasets.") and qual.endswith(".load_data"):
                return 2
            if qual.startswith("sklearn.datasets.make_") or qual == (
                "sklearn.model_selection.train_test_split"
            ):
                return 1  # X, y = make_moons(...); x_tr, x_te, y_tr, y_te = train_test_split(...)
            if qual == "numpy.where" and len(expr.args) != 1:
                return 0  # np.where(c, a, b) is one array
            if qual == "tensorflow_datasets.load":
                return _tfds_depth(expr)
            return _ARRAY_TUPLES.get(qual, 0)
        if isinstance(expr, cst.Subscript) and _integer_index(expr):
            return max(self._tuple_depth(expr.value, scope, depth + 1) - 1, 0)
        if isinstance(expr, cst.Name):
            self._index(scope)
            values = self._bindings[scope].get(expr.value)
            if not values:
                return 0
            depths = set()
            for v in values:
                if isinstance(v, _Unpacked):
                    depths.add(self._tuple_depth(v.value, scope, depth + 1) - v.level)
                elif v is None or isinstance(v, cst.AugAssign):
                    depths.add(0)
                else:
                    depths.add(self._tuple_depth(v, scope, depth + 1))
            return depths.pop() if len(depths) == 1 and min(depths) > 0 else 0
        return 0

    # -- functions of this module ----------------------------------------
    def _lookup_def(self, name: str, scope) -> Optional[cst.FunctionDef]:
        """The ``def`` a name refers to, when it is bound once, to a function."""
        while scope is not None:
            self._index(scope)
            values = self._bindings[scope].get(name)
            if values:
                return self._defs[scope].get(name) if len(values) == 1 else None
            scope = self._outer_scope(scope)
        return None

    def function_def(self, call: cst.Call, scope=None) -> Optional[cst.FunctionDef]:
        """The module's own function a call calls (``helper(x)``), if known."""
        if not isinstance(call.func, cst.Name):
            return None
        if scope is None:
            scope = self.scope_of(call)
        return self._lookup_def(call.func.value, scope)

    def _returns_array(self, func: cst.FunctionDef) -> bool:
        """Every ``return`` of ``func`` returns one array (and there is one)."""
        if func in self._returns:
            return bool(self._returns[func])
        self._returns[func] = False  # recursion guard
        returns = [
            n
            for n in descendants(func.body, skip_scopes=True)
            if isinstance(n, (cst.Return, cst.Yield))
        ]
        result = bool(returns) and all(
            isinstance(r, cst.Return) and r.value is not None and self.is_tensor_expr(r.value, func)
            for r in returns
        )
        self._returns[func] = result
        return result

    def _calls_to(self, name: str) -> list:
        if self._calls is None:
            self._calls = {}
            for call in self.ctx.nodes(cst.Call):
                if isinstance(call.func, cst.Name):
                    self._calls.setdefault(call.func.value, []).append(call)
        return self._calls.get(name, [])

    def _param_from_calls(self, name: str, scope) -> bool:
        """A parameter every call of the function (in this file) passes an array."""
        if not isinstance(scope, cst.FunctionDef):
            return False
        if isinstance(self.ctx.parent(self.ctx.parent(scope)), cst.ClassDef):
            return False  # a method: its calls go through objects
        positional = [p.name.value for p in (*scope.params.posonly_params, *scope.params.params)]
        calls = self._calls_to(scope.name.value)
        if not calls:
            return False
        for call in calls:
            arg = _argument(call, name, positional)
            if arg is None or not self.is_tensor_expr(arg, self.scope_of(call)):
                return False
        return True

    def is_counter(self, expr: cst.BaseExpression, scope: cst.CSTNode) -> bool:
        """``np.arange(...)``/``tf.range(...)`` (or a name bound only to one): iterating it
        is a counting loop, like ``range``."""
        if isinstance(expr, cst.Call):
            return self.ctx.call_name(expr) in _COUNTERS
        if isinstance(expr, cst.Name):
            self._index(scope)
            values = self._bindings[scope].get(expr.value, [])
            return bool(values) and all(
                isinstance(v, cst.Call) and self.ctx.call_name(v) in _COUNTERS for v in values
            )
        return False

    def is_tensor_expr(self, expr: cst.BaseExpression, scope: Optional[cst.CSTNode] = None) -> bool:
        """``expr`` evaluates to one tensor or array (as far as the file tells)."""
        if scope is None:
            scope = self.scope_of(expr)
        if isinstance(expr, cst.Name):
            reaching = self._reaching(expr, scope)
            if reaching is not None:
                return self._is_tensor_binding(reaching, expr.value, scope)
            return self.is_tensor_name(expr.value, scope)
        if isinstance(expr, cst.Call):
            return self._is_tensor_call(expr, scope)
        if isinstance(expr, cst.Attribute):
            if expr.attr.value == "values":
                return True  # a pandas frame's or series' NumPy array
            if expr.attr.value == "T":
                return self.is_tensor_expr(expr.value, scope)
            return self._is_tensor_attribute(expr)
        if isinstance(expr, cst.Subscript):
            if _mask_index(expr):
                return True  # x[y == k]: only arrays take a boolean mask
            if _integer_index(expr) and self._tuple_depth(expr.value, scope) == 1:
                return True  # train_data[0] of (train_data, test_data) = mnist.load_data()
            return self.is_tensor_expr(expr.value, scope)
        if isinstance(expr, cst.BinaryOperation):
            return self.is_tensor_expr(expr.left, scope) or self.is_tensor_expr(expr.right, scope)
        if isinstance(expr, cst.UnaryOperation):
            return self.is_tensor_expr(expr.expression, scope)
        return False

    def _is_tensor_attribute(self, expr: cst.Attribute) -> bool:
        """``self.means`` where every ``self.means = ...`` of the class assigns an array."""
        if not (isinstance(expr.value, cst.Name) and expr.value.value == "self"):
            return False
        cls = next((a for a in self.ctx.ancestors_of(expr) if isinstance(a, cst.ClassDef)), None)
        if cls is None:
            return False
        key = (cls, expr.attr.value)
        if key in self._attributes:
            return self._attributes[key]
        self._attributes[key] = False  # recursion guard
        values = [
            (a.value, self.scope_of(a))
            for a in self.ctx.nodes(cst.Assign)
            if any(
                isinstance(t.target, cst.Attribute)
                and isinstance(t.target.value, cst.Name)
                and t.target.value.value == "self"
                and t.target.attr.value == expr.attr.value
                for t in a.targets
            )
            and any(p is cls for p in self.ctx.ancestors_of(a))
        ]
        result = bool(values) and all(self.is_tensor_expr(v, sc) for v, sc in values)
        self._attributes[key] = result
        return result

    def _is_tensor_call(self, call: cst.Call, scope) -> bool:
        if is_tensor_call_name(self.ctx.call_name(call), len(call.args)):
            return True
        func = call.func
        if isinstance(func, cst.Name):
            func_def = self._lookup_def(func.value, scope)
            return func_def is not None and self._returns_array(func_def)
        if not isinstance(func, cst.Attribute):
            return False
        method = func.attr.value
        if method in _ARRAY_METHODS:
            return True
        if method in _TENSOR_METHODS:
            return self.is_tensor_expr(func.value, scope)
        if method == "run" and _is_session(func.value) and call.args:
            fetch = call.args[0].value  # one fetch (not a list of them): one array
            return isinstance(fetch, cst.Attribute) or (
                isinstance(fetch, cst.Name) and self.is_tensor_name(fetch.value, scope)
            )
        if method not in _GENERATOR_NON_ARRAY:
            return self._is_generator(func.value, scope)
        return False

    def few_rows(self, expr, scope, depth: int = 0) -> bool:
        """An array built from a short literal (``np.array([[1, 2], [3, 4]])``), or a
        model's predictions for one: a handful of rows, not data."""
        if depth > 3:
            return False
        if isinstance(expr, cst.BinaryOperation):  # np.array([[1, 1], [1, -1]]) * 3
            for own, other in ((expr.left, expr.right), (expr.right, expr.left)):
                if isinstance(other, (cst.Integer, cst.Float)):
                    return self.few_rows(own, scope, depth + 1)
            return False
        if isinstance(expr, cst.Call):
            args = [a.value for a in expr.args if a.keyword is None]
            if self.ctx.call_name(expr) in _FROM_LITERAL and args:
                return isinstance(args[0], (cst.List, cst.Tuple)) and len(args[0].elements) < 20
            func = expr.func
            if isinstance(func, cst.Attribute) and func.attr.value in _ARRAY_METHODS and args:
                return self.few_rows(args[0], scope, depth + 1)  # model.predict(x_small)
            return False
        if isinstance(expr, cst.Name):
            self._index(scope)
            values = self._bindings[scope].get(expr.value, [])
            reaching = self._reaching(expr, scope)
            if reaching is not None:
                values = [reaching]
            return bool(values) and all(self._few_rows_binding(v, scope, depth) for v in values)
        return False

    def _few_rows_binding(self, value, scope, depth: int) -> bool:
        if isinstance(value, _Unpacked):
            # eigenvalues, singular values: one per feature, not per sample
            return isinstance(value.value, cst.Call) and self.ctx.call_name(value.value) in _SPECTRA
        return isinstance(value, cst.BaseExpression) and self.few_rows(value, scope, depth + 1)

    def _is_generator(self, expr, scope, depth: int = 0) -> bool:
        """``np.random.default_rng(...)`` / ``RandomState(...)``, or a name bound only to one."""
        if isinstance(expr, cst.Call):
            return self.ctx.call_name(expr) in _GENERATORS
        if isinstance(expr, cst.Name) and depth < 3:
            self._index(scope)
            values = self._bindings[scope].get(expr.value)
            if values:
                return all(
                    v is not None
                    and not isinstance(v, cst.AugAssign)
                    and self._is_generator(v, scope, depth + 1)
                    for v in values
                )
            outer = self._outer_scope(scope)
            if outer is not None and expr.value not in self._params[scope]:
                return self._is_generator(expr, outer, depth + 1)
        return False

    def tensor_of_size(
        self, expr: cst.BaseExpression, scope: cst.CSTNode, depth: int = 0
    ) -> Optional[str]:
        """For a size of one dimension of a tensor (``x.shape[0]``, ``len(x)``,
        ``tf.shape(x)[0]``, ``x.size``, a name bound once to one, or one of
        these minus a constant): the tensor's code."""
        if isinstance(expr, cst.BinaryOperation) and isinstance(
            expr.operator, (cst.Subtract, cst.Add)
        ):
            return self.tensor_of_size(expr.left, scope, depth)  # len(x) - window
        if (
            isinstance(expr, cst.Attribute)
            and expr.attr.value == "size"
            and self.is_tensor_expr(expr.value, scope)
        ):
            return self.ctx.code(expr.value)
        if isinstance(expr, cst.Name) and depth < 2:
            self._index(scope)
            values = self._bindings[scope].get(expr.value)
            if values is not None and len(values) == 1 and isinstance(values[0], _Unpacked):
                shape = values[0].value
                if (
                    values[0].level == 1
                    and isinstance(shape, cst.Attribute)
                    and shape.attr.value == "shape"
                ):
                    return self.ctx.code(shape.value)  # n, d = x.shape
                return None
            if values is not None and len(values) == 1 and values[0] is not None:
                return self.tensor_of_size(values[0], scope, depth + 1)
            return None
        if (
            isinstance(expr, cst.Call)
            and isinstance(expr.func, cst.Name)
            and expr.func.value == "len"
        ):
            if len(expr.args) == 1 and self.is_tensor_expr(expr.args[0].value, scope):
                return self.ctx.code(expr.args[0].value)
            return None
        if (
            isinstance(expr, cst.Subscript)
            and len(expr.slice) == 1
            and isinstance(expr.slice[0].slice, cst.Index)
        ):
            base = expr.value
            if isinstance(base, cst.Attribute) and base.attr.value == "shape":
                if isinstance(base.value, (cst.Name, cst.Attribute, cst.Subscript)):
                    return self.ctx.code(base.value)
            if (
                isinstance(base, cst.Call)
                and self.ctx.call_name(base) in ("tensorflow.shape", "numpy.shape")
                and base.args
            ):
                return self.ctx.code(base.args[0].value)
        return None


def _tfds_depth(call: cst.Call) -> int:
    """``(x, y), info = tfds.load(..., batch_size=-1, as_supervised=True, with_info=True)``:
    whole splits as arrays; how deep the tuples around them go."""
    kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    batch = kw.get("batch_size")
    if not (
        isinstance(batch, cst.UnaryOperation)
        and isinstance(batch.expression, cst.Integer)
        and batch.expression.value == "1"
    ):
        return 0
    depth = 1 if isinstance(kw.get("split"), (cst.List, cst.Tuple)) else 0
    for flag in ("as_supervised", "with_info"):
        value = kw.get(flag)
        if isinstance(value, cst.Name) and value.value == "True":
            depth += 1
    return depth


_RAGGED_DATASETS = frozenset({"imdb", "reuters"})


def shape_axis(expr) -> Optional[Tuple[cst.BaseExpression, int]]:
    """``x.shape[k]`` with a literal ``k``: (``x``, ``k``); else None."""
    if (
        isinstance(expr, cst.Subscript)
        and isinstance(expr.value, cst.Attribute)
        and expr.value.attr.value == "shape"
        and len(expr.slice) == 1
        and isinstance(expr.slice[0].slice, cst.Index)
        and isinstance(expr.slice[0].slice.value, cst.Integer)
    ):
        return expr.value.value, int(expr.slice[0].slice.value.value)
    return None


def _integer_index(expr: cst.Subscript) -> bool:
    return (
        len(expr.slice) == 1
        and isinstance(expr.slice[0].slice, cst.Index)
        and isinstance(expr.slice[0].slice.value, cst.Integer)
    )


def _mask_index(expr: cst.Subscript) -> bool:
    return (
        len(expr.slice) == 1
        and isinstance(expr.slice[0].slice, cst.Index)
        and isinstance(expr.slice[0].slice.value, cst.Comparison)
    )


def _is_session(expr) -> bool:
    """``sess`` / ``self.session``: a TF1 session by its usual name."""
    name = dotted(expr)
    return name is not None and name.rsplit(".", 1)[-1].lower().endswith(_SESSION_NAMES)


def _argument(call: cst.Call, name: str, positional: list):
    """The expression ``call`` passes for parameter ``name``, if plain."""
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is not None:
            if arg.keyword.value == name:
                return arg.value
        elif index < len(positional) and positional[index] == name:
            return arg.value
    return None


def _all_params(params: cst.Parameters) -> List[cst.Param]:
    out = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            out.append(star)
    return out
