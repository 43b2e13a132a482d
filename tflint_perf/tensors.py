"""Which expressions hold a tensor or a NumPy array, without running anything.

Evidence, per scope (a function, or the module):

- a name whose every binding in the scope is a tensor-producing expression:
  a ``tf.``/``np.``/``keras.ops`` call that returns one tensor (not a list,
  tuple, dataset, shape or dtype), arithmetic on a tensor, a slice of one,
  ``.numpy()``/``.reshape()``/``.astype()`` of one;
- a parameter (or a name bound in no visible scope) that the scope uses as
  an array: ``x.shape``, ``x.ndim``, ``tf.shape(x)``, or an annotation
  ``tf.Tensor`` / ``np.ndarray``.

A name with any other kind of binding (a loop target, an unpacking, a
call to anything else) is not a tensor: precision over recall.

Also here: sizes of tensors (``x.shape[0]``, ``len(x)``, ``tf.shape(x)[0]``)
and the recognition of a loop nest that computes a 2-D convolution, shared
by the loop rules (TFP101 stays silent on what TFP102 reports).
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional

import libcst as cst

from tflint_perf.loops import range_call
from tflint_perf.names import dotted
from tflint_perf.walk import descendants

TENSOR_ROOTS = ("tensorflow.", "numpy.", "keras.ops.")

# Calls under these prefixes do not return one tensor.
_NOT_TENSOR_PREFIXES = (
    "tensorflow.data.", "tensorflow.io.gfile.", "tensorflow.config.", "tensorflow.summary.",
    "tensorflow.train.", "tensorflow.saved_model.", "tensorflow.distribute.", "tensorflow.estimator.",
    "tensorflow.feature_column.", "tensorflow.nest.", "tensorflow.autograph.", "tensorflow.test.",
    "tensorflow.lookup.", "tensorflow.sparse.", "tensorflow.ragged.", "tensorflow.experimental.",
    "tensorflow.debugging.", "tensorflow.errors.", "tensorflow.dtypes.", "tensorflow.types.",
    "tensorflow.random.experimental.", "tensorflow.tpu.", "tensorflow.queue.", "tensorflow.keras.",
    "numpy.testing.", "numpy.lib.", "numpy.typing.", "numpy.char.",
)
_NOT_TENSOR = frozenset(
    {
        # list / tuple results
        "tensorflow.split", "tensorflow.unstack", "tensorflow.meshgrid", "tensorflow.unique",
        "tensorflow.unique_with_counts", "tensorflow.nn.moments", "tensorflow.math.top_k",
        "tensorflow.nn.top_k", "tensorflow.linalg.eigh", "tensorflow.linalg.eig", "tensorflow.linalg.svd",
        "tensorflow.linalg.qr", "tensorflow.gradients", "tensorflow.custom_gradient",
        "numpy.split", "numpy.array_split", "numpy.hsplit", "numpy.vsplit", "numpy.dsplit",
        "numpy.meshgrid", "numpy.unique", "numpy.where", "numpy.nonzero", "numpy.histogram",
        "numpy.histogram2d", "numpy.histogramdd", "numpy.ndindex", "numpy.ndenumerate", "numpy.nditer",
        "numpy.load", "numpy.broadcast_arrays", "numpy.gradient", "numpy.linalg.svd", "numpy.linalg.eig",
        "numpy.linalg.eigh", "numpy.linalg.qr", "numpy.linalg.slogdet", "numpy.linalg.lstsq",
        "numpy.shape", "numpy.ndim", "numpy.size", "numpy.isscalar", "numpy.issubdtype",
        "numpy.allclose", "numpy.array_equal", "numpy.vectorize", "numpy.frompyfunc", "numpy.dtype",
        "numpy.finfo", "numpy.iinfo", "numpy.errstate", "numpy.printoptions", "numpy.set_printoptions",
        "numpy.save", "numpy.savez", "numpy.savez_compressed", "numpy.savetxt",
        "numpy.random.RandomState", "numpy.random.default_rng", "numpy.random.seed",
        "numpy.random.get_state", "numpy.random.set_state", "numpy.random.shuffle",
        "numpy.random.Generator", "numpy.atleast_1d", "numpy.atleast_2d", "numpy.atleast_3d",
        # not tensors at all
        "tensorflow.shape", "tensorflow.TensorShape", "tensorflow.TensorSpec", "tensorflow.as_dtype",
        "tensorflow.Graph", "tensorflow.Session", "tensorflow.device", "tensorflow.name_scope",
        "tensorflow.GradientTape", "tensorflow.Module", "tensorflow.get_logger", "tensorflow.print",
        "tensorflow.py_function", "tensorflow.numpy_function", "tensorflow.function",
        "tensorflow.SparseTensor", "tensorflow.RaggedTensor", "tensorflow.IndexedSlices",
        "tensorflow.while_loop", "tensorflow.cond", "tensorflow.case", "tensorflow.switch_case",
        "tensorflow.map_fn", "tensorflow.vectorized_map", "tensorflow.control_dependencies",
        "tensorflow.TensorArray", "tensorflow.DType", "tensorflow.Variable",
        "tensorflow.get_static_value", "tensorflow.is_tensor", "tensorflow.executing_eagerly",
        # dicts and tuples of tensors
        "tensorflow.io.parse_single_example", "tensorflow.io.parse_example", "tensorflow.io.parse_sequence_example",
        "tensorflow.io.parse_single_sequence_example", "tensorflow.io.decode_csv", "tensorflow.parse_single_example",
        "tensorflow.parse_example", "tensorflow.decode_csv",
    }
)
_SCALAR_TYPE = re.compile(r"^numpy\.(u?int\d*|float\d*|complex\d*|bool_?|str_|bytes_|object_|intp|uintp|half|single|double|longdouble)$")
# Methods of a tensor/array that return a tensor/array.
_TENSOR_METHODS = frozenset(
    {"numpy", "reshape", "astype", "transpose", "copy", "squeeze", "flatten", "ravel", "swapaxes", "clip", "round"}
)
_COUNTERS = frozenset({"numpy.arange", "tensorflow.range", "numpy.linspace", "keras.ops.arange"})
_GENERATORS = frozenset({"numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.Generator"})
# Methods of a NumPy random generator that do not return an array.
_GENERATOR_NON_ARRAY = frozenset({"shuffle", "spawn", "bit_generator", "seed", "get_state", "set_state", "bytes"})
ARRAY_ATTRS = frozenset({"shape", "ndim"})
_ARRAY_ANNOTATIONS = frozenset({"tensorflow.Tensor", "numpy.ndarray", "numpy.array"})

SCOPES = (cst.FunctionDef, cst.Lambda)


def is_tensor_call_name(qual: Optional[str]) -> bool:
    """A TF/NumPy/keras.ops function that returns one tensor or array."""
    if qual is None or not qual.startswith(TENSOR_ROOTS):
        return False
    if qual in _NOT_TENSOR or qual.startswith(_NOT_TENSOR_PREFIXES) or _SCALAR_TYPE.match(qual):
        return False
    last = qual.rsplit(".", 1)[-1]
    return not last[:1].isupper() or last in {"Tensor"}


def is_framework_call(ctx, call: cst.Call) -> bool:
    qual = ctx.call_name(call)
    return qual is not None and qual.startswith(TENSOR_ROOTS)


class TensorNames:
    """Per-file knowledge of which names hold tensors/arrays (``ctx.shared(TensorNames)``)."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self._bindings: Dict[cst.CSTNode, Dict[str, list]] = {}
        self._params: Dict[cst.CSTNode, dict] = {}
        self._array_uses: Dict[cst.CSTNode, set] = {}
        self._polymorphic: Dict[cst.CSTNode, set] = {}
        self._cache: dict = {}

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
        bindings: Dict[str, list] = {}
        params: dict = {}
        uses: set = set()
        polymorphic: set = set()
        if isinstance(scope, SCOPES):
            for param in _all_params(scope.params):
                params[param.name.value] = param
            root = scope.body
        else:
            root = scope

        def bind(target, value):
            if isinstance(target, cst.Name):
                bindings.setdefault(target.value, []).append(value)
            elif isinstance(target, (cst.Tuple, cst.List)):
                for element in target.elements:
                    inner = element.value.value if isinstance(element, cst.StarredElement) else element.value
                    bind(inner, None)

        for node in descendants(root, skip_scopes=True):
            if isinstance(node, cst.Assign):
                for t in node.targets:
                    bind(t.target, node.value)
            elif isinstance(node, cst.AnnAssign):
                if node.value is not None:
                    bind(node.target, node.value)
                elif isinstance(node.target, cst.Name) and self.ctx.qualname(node.annotation.annotation) in _ARRAY_ANNOTATIONS:
                    uses.add(node.target.value)
            elif isinstance(node, cst.AugAssign):
                bind(node.target, node)  # x += ... keeps the kind of x
            elif isinstance(node, (cst.For, cst.CompFor)):
                bind(node.target, None)
            elif isinstance(node, cst.AsName):
                bind(node.name, None)
            elif isinstance(node, cst.NamedExpr):
                bind(node.target, node.value)
            elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                bind(node.name, None)
            elif isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
                for alias in node.names:
                    local = alias.asname.name if alias.asname is not None else alias.name
                    if isinstance(local, cst.Name):
                        bind(local, None)
            elif isinstance(node, cst.Attribute) and node.attr.value in ARRAY_ATTRS and isinstance(node.value, cst.Name):
                uses.add(node.value.value)
            elif isinstance(node, cst.Call) and node.args and isinstance(node.args[0].value, cst.Name):
                if isinstance(node.func, cst.Name) and node.func.value in ("isinstance", "hasattr", "type"):
                    polymorphic.add(node.args[0].value.value)  # the code checks what it holds
                if self.ctx.call_name(node) in ("tensorflow.shape", "numpy.shape", "tensorflow.rank", "numpy.ndim"):
                    uses.add(node.args[0].value.value)
        for name, param in params.items():
            ann = param.annotation
            if ann is not None and self.ctx.qualname(ann.annotation) in _ARRAY_ANNOTATIONS:
                uses.add(name)
        self._bindings[scope] = bindings
        self._params[scope] = params
        self._array_uses[scope] = uses
        self._polymorphic[scope] = polymorphic

    # -- queries --------------------------------------------------------
    def is_tensor_name(self, name: str, scope: cst.CSTNode) -> bool:
        key = (name, scope)
        if key in self._cache:
            return self._cache[key]
        self._cache[key] = False  # recursion guard
        result = self._is_tensor_name(name, scope)
        self._cache[key] = result
        return result

    def _is_tensor_name(self, name: str, scope: cst.CSTNode) -> bool:
        self._index(scope)
        values = self._bindings[scope].get(name)
        if values:
            return all(self._is_tensor_binding(v, name, scope) for v in values)
        if name in self._params[scope]:
            return name in self._array_uses[scope] and name not in self._polymorphic[scope] and name not in ("self", "cls")
        outer = self._outer_scope(scope)
        if outer is None:
            return False
        # A free name: the outer binding decides, or array use here.
        if name in self._array_uses[scope] and name not in self.ctx.imports.aliases and name not in self._polymorphic[scope]:
            self._index(outer)
            if not self._bindings[outer].get(name) or self.is_tensor_name(name, outer):
                return True
            return False
        return self.is_tensor_name(name, outer)

    def _is_tensor_binding(self, value, name: str, scope) -> bool:
        if value is None:
            return False
        if isinstance(value, cst.AugAssign):
            return True  # x += y keeps x's kind; decided by the other bindings
        return self.is_tensor_expr(value, scope)

    def is_counter(self, expr: cst.BaseExpression, scope: cst.CSTNode) -> bool:
        """``np.arange(...)``/``tf.range(...)`` (or a name bound only to one): iterating it
        is a counting loop, like ``range``."""
        if isinstance(expr, cst.Call):
            return self.ctx.call_name(expr) in _COUNTERS
        if isinstance(expr, cst.Name):
            self._index(scope)
            values = self._bindings[scope].get(expr.value)
            return bool(values) and all(isinstance(v, cst.Call) and self.ctx.call_name(v) in _COUNTERS for v in values)
        return False

    def is_tensor_expr(self, expr: cst.BaseExpression, scope: Optional[cst.CSTNode] = None) -> bool:
        """``expr`` evaluates to one tensor or array (as far as the file tells)."""
        if scope is None:
            scope = self.scope_of(expr)
        if isinstance(expr, cst.Name):
            return self.is_tensor_name(expr.value, scope)
        if isinstance(expr, cst.Call):
            if is_tensor_call_name(self.ctx.call_name(expr)):
                return True
            func = expr.func
            if isinstance(func, cst.Attribute) and func.attr.value in _TENSOR_METHODS:
                return self.is_tensor_expr(func.value, scope)
            if isinstance(func, cst.Attribute) and func.attr.value not in _GENERATOR_NON_ARRAY:
                return self._is_generator(func.value, scope)
            return False
        if isinstance(expr, cst.Attribute):
            return expr.attr.value == "T" and self.is_tensor_expr(expr.value, scope)
        if isinstance(expr, cst.Subscript):
            return self.is_tensor_expr(expr.value, scope)
        if isinstance(expr, cst.BinaryOperation):
            return self.is_tensor_expr(expr.left, scope) or self.is_tensor_expr(expr.right, scope)
        if isinstance(expr, cst.UnaryOperation):
            return self.is_tensor_expr(expr.expression, scope)
        return False

    def _is_generator(self, expr, scope, depth: int = 0) -> bool:
        """``np.random.default_rng(...)`` / ``RandomState(...)``, or a name bound only to one."""
        if isinstance(expr, cst.Call):
            return self.ctx.call_name(expr) in _GENERATORS
        if isinstance(expr, cst.Name) and depth < 3:
            self._index(scope)
            values = self._bindings[scope].get(expr.value)
            if values:
                return all(v is not None and not isinstance(v, cst.AugAssign) and self._is_generator(v, scope, depth + 1) for v in values)
            outer = self._outer_scope(scope)
            if outer is not None and expr.value not in self._params[scope]:
                return self._is_generator(expr, outer, depth + 1)
        return False

    def tensor_of_size(self, expr: cst.BaseExpression, scope: cst.CSTNode, depth: int = 0) -> Optional[str]:
        """For a size of one dimension of a tensor (``x.shape[0]``, ``len(x)``,
        ``tf.shape(x)[0]``, or a name bound once to one): the tensor's code."""
        if isinstance(expr, cst.Name) and depth < 2:
            self._index(scope)
            values = self._bindings[scope].get(expr.value)
            if values is not None and len(values) == 1 and values[0] is not None:
                return self.tensor_of_size(values[0], scope, depth + 1)
            return self._size_from_unpacking(expr.value, scope)
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "len":
            if len(expr.args) == 1 and self.is_tensor_expr(expr.args[0].value, scope):
                return self.ctx.code(expr.args[0].value)
            return None
        if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
            base = expr.value
            if isinstance(base, cst.Attribute) and base.attr.value == "shape":
                if isinstance(base.value, (cst.Name, cst.Attribute, cst.Subscript)):
                    return self.ctx.code(base.value)
            if isinstance(base, cst.Call) and self.ctx.call_name(base) in ("tensorflow.shape", "numpy.shape") and base.args:
                return self.ctx.code(base.args[0].value)
        return None

    def _size_from_unpacking(self, name: str, scope) -> Optional[str]:
        """``n, d = x.shape``: ``n`` is a size of ``x``."""
        root = scope.body if isinstance(scope, SCOPES) else scope
        for node in descendants(root, skip_scopes=True):
            if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Tuple):
                names = [e.value.value for e in node.targets[0].target.elements if isinstance(e.value, cst.Name)]
                value = node.value
                if name in names and isinstance(value, cst.Attribute) and value.attr.value == "shape":
                    return self.ctx.code(value.value)
        return None


def _all_params(params: cst.Parameters) -> List[cst.Param]:
    out = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            out.append(star)
    return out


# -- convolution loop nests ------------------------------------------------


class Convolution:
    """A loop nest recognised as a hand-written 2-D convolution."""

    def __init__(self, outer, inner, image, kernel, kind, padding, stride, statement) -> None:
        self.outer = outer  # the For reported
        self.inner = inner  # the For over the second spatial index
        self.image = image  # code of the image expression
        self.kernel = kernel  # code of the kernel expression
        self.kind = kind  # "window-sum" or "offset-loops"
        self.padding = padding  # "VALID" or "SAME"
        self.stride = stride  # code of the stride, "1" when none
        self.statement = statement  # the multiply-accumulate statement


def _loop_var(loop) -> Optional[str]:
    if isinstance(loop, cst.For) and isinstance(loop.target, cst.Name) and range_call(loop.iter) is not None:
        return loop.target.value
    return None


def _single_inner_for(loop) -> Optional[cst.For]:
    """The only ``for`` statement of ``loop``'s body (other simple statements allowed)."""
    fors = [s for s in loop.body.body if isinstance(s, cst.For)]
    others = [s for s in loop.body.body if not isinstance(s, (cst.For, cst.SimpleStatementLine))]
    if len(fors) == 1 and not others:
        return fors[0]
    return None


def _names_in(node) -> set:
    return {n.value for n in [node, *descendants(node)] if isinstance(n, cst.Name)}


def _window_slice(element: cst.SubscriptElement, var: str):
    """``i:i+k`` / ``i*s:i*s+k``: (start code, stride code) when it starts at ``var``."""
    sl = element.slice
    if not isinstance(sl, cst.Slice) or sl.lower is None or sl.upper is None or sl.step is not None:
        return None
    lower, upper = sl.lower, sl.upper
    if isinstance(lower, cst.Name) and lower.value == var:
        stride = "1"
    elif isinstance(lower, cst.BinaryOperation) and isinstance(lower.operator, cst.Multiply) and (
        isinstance(lower.left, cst.Name) and lower.left.value == var and var not in _names_in(lower.right)
    ):
        stride = lower.right
    else:
        return None
    if not (isinstance(upper, cst.BinaryOperation) and isinstance(upper.operator, cst.Add)):
        return None
    if var not in _names_in(upper.left):
        return None
    return lower, stride


def _product_operands(expr):
    """Factors of a product ``a * b`` (one level, parentheses ignored)."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
        return [expr.left, expr.right]
    return None


def find_convolution(ctx, outer: cst.CSTNode) -> Optional[Convolution]:
    """If ``outer`` starts a loop nest computing a 2-D convolution, describe it."""
    i = _loop_var(outer)
    if i is None:
        return None
    inner = _single_inner_for(outer)
    j = _loop_var(inner) if inner is not None else None
    if j is None or j == i:
        return None
    found = _window_sum(ctx, inner, i, j) or _offset_loops(ctx, inner, i, j)
    if found is None:
        return None
    image, kernel, kind, stride, statement = found
    padding = _padding(ctx, outer, image)
    return Convolution(outer, inner, image, kernel, kind, padding, stride, statement)


_SUMS = frozenset({"numpy.sum", "tensorflow.reduce_sum", "tensorflow.math.reduce_sum", "keras.ops.sum", "numpy.einsum", "numpy.vdot"})


def _window_sum(ctx, inner, i, j):
    """``np.sum(img[i:i+k, j:j+k] * w)`` (or ``(patch * w).sum()``, ``patch = img[...]``)."""
    windows = {}  # name -> (image code, stride)
    for node in descendants(inner.body, skip_scopes=True):
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            window = _window(ctx, node.value, i, j)
            if window is not None:
                windows[node.targets[0].target.value] = window
    for node in descendants(inner.body, skip_scopes=True):
        product = None
        if isinstance(node, cst.Call) and ctx.call_name(node) in _SUMS and node.args:
            if ctx.call_name(node) in ("numpy.einsum",):
                continue
            if len(node.args) != 1:
                continue
            product = node.args[0].value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "sum" and not node.args:
            product = node.func.value
        factors = _product_operands(product) if product is not None else None
        if not factors:
            continue
        for a, b in (factors, factors[::-1]):
            window = _window(ctx, a, i, j)
            if window is None and isinstance(a, cst.Name):
                window = windows.get(a.value)
            if window is not None and not ({i, j} & _names_in(b)):
                image, stride = window
                return image, ctx.code(b), "window-sum", stride, _statement_of(ctx, node)
    return None


def _window(ctx, expr, i, j):
    """``img[i:i+k, j:j+k]`` (two spatial window slices, optional trailing ``:``)."""
    if not isinstance(expr, cst.Subscript) or len(expr.slice) < 2:
        return None
    first = _window_slice(expr.slice[0], i)
    second = _window_slice(expr.slice[1], j)
    if first is None or second is None:
        return None
    for rest in expr.slice[2:]:
        sl = rest.slice
        if not (isinstance(sl, cst.Slice) and sl.lower is None and sl.upper is None):
            return None
    sh, sw = (s if isinstance(s, str) else ctx.code(s) for s in (first[1], second[1]))
    stride = sh if sh == sw else f"({sh}, {sw})"
    return ctx.code(expr.value), stride


def _offset_loops(ctx, inner, i, j):
    """``for a ...: for b ...: acc += x[i + a, j + b] * w[a, b]``."""
    a_loop = _single_inner_for(inner)
    a = _loop_var(a_loop) if a_loop is not None else None
    b_loop = _single_inner_for(a_loop) if a is not None else None
    b = _loop_var(b_loop) if b_loop is not None else None
    if b is None or len({i, j, a, b}) != 4:
        return None
    for node in descendants(b_loop.body, skip_scopes=True):
        if not (isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.AddAssign)):
            continue
        factors = _product_operands(node.value)
        if not factors:
            continue
        for x, w in (factors, factors[::-1]):
            xi = _indices(x)
            wi = _indices(w)
            if xi is None or wi is None or len(xi) < 2 or len(wi) < 2:
                continue
            if _offset_index(xi[0], i, a) and _offset_index(xi[1], j, b) and _names_in(wi[0]) == {a} and _names_in(wi[1]) == {b}:
                return ctx.code(_base(x)), ctx.code(_base(w)), "offset-loops", "1", _statement_of(ctx, node)
    return None


def _indices(expr):
    """``x[p, q]`` or ``x[p][q]``: the index expressions."""
    if isinstance(expr, cst.Subscript):
        if len(expr.slice) >= 2 and all(isinstance(e.slice, cst.Index) for e in expr.slice):
            return [e.slice.value for e in expr.slice]
        if len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index) and isinstance(expr.value, cst.Subscript):
            inner = _indices_one(expr.value)
            if inner is not None:
                return [inner, expr.slice[0].slice.value]
    return None


def _indices_one(expr):
    if len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
        return expr.slice[0].slice.value
    return None


def _base(expr):
    while isinstance(expr, cst.Subscript):
        expr = expr.value
    return expr


def _offset_index(expr, outer, offset) -> bool:
    return (
        isinstance(expr, cst.BinaryOperation)
        and isinstance(expr.operator, (cst.Add, cst.Subtract))
        and _names_in(expr) == {outer, offset}
    )


def _statement_of(ctx, node):
    for parent in [node, *ctx.ancestors_of(node)]:
        if isinstance(parent, cst.SimpleStatementLine):
            return parent
    return None


_PADS = frozenset({"numpy.pad", "tensorflow.pad"})


def _padding(ctx, outer, image_code: str) -> str:
    """"SAME" when the image was padded first (``np.pad``/``tf.pad``), else "VALID"."""
    scope = ctx.module
    for parent in ctx.ancestors_of(outer):
        if isinstance(parent, SCOPES):
            scope = parent
            break
    for node in descendants(scope, skip_scopes=True):
        if isinstance(node, cst.Assign) and ctx.call_name(node.value) in _PADS:
            if any(dotted(t.target) == image_code for t in node.targets):
                return "SAME"
    return "VALID"
