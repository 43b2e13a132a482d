"""Which expressions hold an array or tensor a loop can walk, and how many rows.

``Arrays(ctx)`` (``ctx.shared(Arrays)``) reads the value kinds of
``values.py`` and adds what the loop rules need beyond them:

- a parameter, or a name no binding of the module shows, that its scope
  uses as an array (``x.shape``, ``x.ndim``, ``tf.shape(x)``, an
  annotation such as ``np.ndarray`` or a project alias ``FloatTensor``),
  unless the scope checks what it holds (``isinstance(x, ...)``);
- results the API table leaves open: ``model.predict(x)`` and the other
  methods of ``api.arraymath.ARRAY_RESULT_METHODS`` on any receiver, one
  fetch of ``sess.run``, a draw of a NumPy generator (``rng.normal(...)``),
  a pandas ``.values``, a boolean mask ``x[y == k]``, element ``k`` of a
  tuple of arrays (``data[0]`` of ``data = load_data()``), a function of the
  module whose every ``return`` is one of these;
- the inputs of ``keras.datasets.imdb/reuters.load_data()`` are *not*
  arrays a loop can batch: ragged lists of token ids.

``rows_of(size)`` names the array whose row count a loop bound is
(``len(x)``, ``x.shape[0]``, ``tf.shape(x)[0]``, ``n`` of ``n, d = x.shape``).
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set

from tflint_perf.analysis import api
from tflint_perf.analysis.api import Kind, keras
from tflint_perf.analysis.api import arraymath as am
from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.one_sample import several_outputs
from tflint_perf.analysis.semantic import Binding, BindingKind, Scope, SemanticModel
from tflint_perf.analysis.values import Values
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.nodes import is_true

_ARRAY_KINDS = (Kind.TENSOR, Kind.ARRAY, Kind.VARIABLE)
_DEPTH = 8
_PENDING = object()
_WALK_WRAPPERS = {"zip", "enumerate", *am.ITERABLE_WRAPPERS}


class Arrays:
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self.values: Values = ctx.shared(Values)
        self._cache: Dict[cst.CSTNode, object] = {}
        self._used: Optional[Dict[object, Set[str]]] = None  # scope -> names used as arrays
        self._checked: Dict[object, Set[str]] = {}  # scope -> names isinstance-checked
        self._listed: Optional[Set[str]] = None

    # -- the question ------------------------------------------------------------
    def is_array(self, expr: Optional[cst.CSTNode], depth: int = 0) -> bool:
        """``expr`` evaluates to one array or tensor, as far as the file shows."""
        if expr is None or depth > _DEPTH:
            return False
        known = self._cache.get(expr)
        if known is _PENDING:
            return False
        if isinstance(known, bool):
            return known
        self._cache[expr] = _PENDING
        found = self._is_array(expr, depth + 1)
        self._cache[expr] = found
        return found

    def _is_array(self, expr: cst.CSTNode, depth: int) -> bool:
        if self.ragged(expr) or self.element_of_data(expr) or self._keyed(expr):
            return False
        kind = self.values.kind(expr)
        if kind in _ARRAY_KINDS:
            return True
        if kind is not Kind.UNKNOWN:
            return False
        if isinstance(expr, cst.Name):
            return self._name(expr, depth)
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in am.ARRAY_ATTRIBUTES:
                return True  # a pandas frame's or series' NumPy array
            if expr.attr.value == "T":
                return self.is_array(expr.value, depth)
            return False
        if isinstance(expr, cst.Call):
            return self._call(expr, depth)
        if isinstance(expr, cst.Subscript):
            return self._subscript(expr, depth)
        if isinstance(expr, cst.BinaryOperation):
            return self.is_array(expr.left, depth) or self.is_array(expr.right, depth)
        if isinstance(expr, cst.UnaryOperation):
            return self.is_array(expr.expression, depth)
        return False

    def values_of(self, name: cst.Name, depth: int = 0) -> List[Binding]:
        """The bindings giving ``name`` its value where it is read: an object changed in
        place (``x[i] = v``, ``x.append(v)``, ``x += v``) is the one bound before."""
        out: List[Binding] = []
        for binding in self.sem.lookup_name(name):
            if binding.kind is BindingKind.DELETION:
                continue
            if binding.kind in (BindingKind.MUTATION, BindingKind.AUGMENTED):
                node = binding.node
                if depth < 3 and isinstance(node, cst.Name) and node is not name:
                    out += [b for b in self.values_of(node, depth + 1) if b not in out]
                continue
            if binding not in out:
                out.append(binding)
        return out

    def _name(self, name: cst.Name, depth: int) -> bool:
        found = self.values_of(name)
        if not found:
            return self.used_as_array(name)
        if all(b.kind is BindingKind.PARAMETER for b in found):
            return self.used_as_array(name) or all(self._passed(b, depth) for b in found)
        if all(b.plain for b in found):
            return all(self.is_array(b.value, depth) for b in found)
        if all(b.plain or b.kind is BindingKind.PARAMETER for b in found):
            # ``if x.ndim < 4: x = np.array([x])``: the parameter as passed, or rebound
            passed = self.used_as_array(name) or all(
                self._passed(b, depth) for b in found if b.kind is BindingKind.PARAMETER
            )
            return passed and all(self.is_array(b.value, depth) for b in found if b.plain)
        if len(found) == 1 and found[0].kind is BindingKind.ASSIGNMENT and found[0].source:
            fetched = self._fetched(found[0])
            if fetched is not None:  # a fetch among others: only a tensor the module built
                return self.values.kind(fetched) in _ARRAY_KINDS + (Kind.GRAPH_OP,)
            level = self._tuple_level(name)
            if level is not None and self._array_level(*level):
                return True
            return self.values.kind(name) in _ARRAY_KINDS  # an item a function returns
        return False

    def _fetched(self, binding: Binding) -> Optional[cst.BaseExpression]:
        """The fetch a name unpacked from ``sess.run([a, b, c])`` gets: ``c`` for the
        third name (``sess.run`` returns one value per fetch, in order)."""
        source = binding.source
        if len(binding.path) != 1 or not isinstance(source, cst.Call) or not source.args:
            return None
        func = source.func
        if not (
            isinstance(func, cst.Attribute)
            and func.attr.value in am.SESSION_RUNS
            and self._session(func.value)
        ):
            return None
        fetches = source.args[0].value
        if not isinstance(fetches, (cst.List, cst.Tuple)):
            return None
        elements = fetches.elements
        index = binding.path[0]
        if any(isinstance(e, cst.StarredElement) for e in elements) or not (
            isinstance(index, int) and 0 <= index < len(elements)
        ):
            return None
        return elements[index].value

    def _one_fetch(self, fetch: cst.BaseExpression, depth: int) -> bool:
        """What ``sess.run`` returns for one fetch is an array: a graph tensor kept on
        an object (``self.q``) or a name holding an array or tensor; not a list of them
        (``tf.gradients``, ``trainable_variables``)."""
        if self.values.kind(fetch) is Kind.LIST:
            return False
        if isinstance(fetch, cst.Attribute):
            # a graph tensor is not iterable: one the module loops over is a list
            return dotted(fetch) not in self._listed_attributes()
        return isinstance(fetch, cst.Name) and self.is_array(fetch, depth)

    def _listed_attributes(self) -> Set[str]:
        """Attributes the module loops over (``for g in self.grads``, ``zip(self.grads,
        ...)``) or takes the ``len()`` of: a graph tensor allows neither, so these hold
        lists of tensors, not one."""
        if self._listed is None:
            found: Set[str] = set()
            for node in [*self.ctx.nodes(cst.For), *self.ctx.nodes(cst.CompFor)]:
                iterable = node.iter
                while isinstance(iterable, cst.Call) and dotted(iterable.func) in _WALK_WRAPPERS:
                    for arg in iterable.args[1:]:
                        found.add(dotted(arg.value) or "")
                    if not iterable.args:
                        break
                    iterable = iterable.args[0].value
                found.add(dotted(iterable) or "")
            for call in self.ctx.nodes(cst.Call):
                if dotted(call.func) == "len" and len(call.args) == 1:
                    found.add(dotted(call.args[0].value) or "")
            self._listed = {name for name in found if "." in name}
        return self._listed

    def _passed(self, binding: Binding, depth: int) -> bool:
        """A parameter every call of its function in the module passes an array."""
        func = binding.scope.function
        if func is None:
            return False
        graph = self.ctx.shared(CallGraph)
        callers = graph.callers(func)
        if not callers:
            return False
        for call in callers:
            arg = graph.argument(call, func, binding.name)
            if arg is None or not self.is_array(arg, depth):
                return False
        return True

    def _call(self, call: cst.Call, depth: int) -> bool:
        func = call.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in am.ARRAY_RESULT_METHODS:
                return True
            if method in am.SESSION_RUNS and self._session(func.value) and call.args:
                return self._one_fetch(call.args[0].value, depth)
            if method in am.TENSOR_EVALS and (
                self.values.kind(func.value) in (Kind.TENSOR, Kind.GRAPH_OP)
                or any(
                    a.keyword is not None and a.keyword.value in am.TENSOR_EVAL_KEYWORDS
                    for a in call.args
                )
            ):
                return True
            if am.method_op(method) is not None and method not in am.NOT_ARRAY_METHODS:
                return self.is_array(func.value, depth)
            if self._generator(func.value) and method not in am.GENERATOR_STATE:
                return True
        # a function or method of the project: what its every return holds
        targets = self.ctx.shared(CallGraph).resolve(call)
        if not targets:
            return False
        for target in targets:
            returns = self.values.returns(target)
            if not returns or not all(self.is_array(r.value, depth) for r in returns):
                return False
        return True

    def _subscript(self, expr: cst.Subscript, depth: int) -> bool:
        if len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
            index = expr.slice[0].slice.value
            if isinstance(index, cst.Comparison):
                return True  # x[y == k]: only arrays take a boolean mask
            if isinstance(index, cst.Integer):
                found = self._tuple_level(expr)
                if found is not None and self._array_level(*found):
                    return True  # train[0] of train, test = load_data()
        return self.is_array(expr.value, depth)

    def _tuple_level(self, expr, depth: int = 0):
        """(the call returning tuples, how many tuple levels down ``expr`` is): ``w`` of
        ``w, v = np.linalg.eig(a)`` is (eig, 1); ``train[0]`` of ``train, test =
        load_data()`` is (load_data, 2)."""
        if depth > 4:
            return None
        if isinstance(expr, cst.Call):
            return expr, 0
        if isinstance(expr, cst.Subscript):
            index = expr.slice[0].slice if len(expr.slice) == 1 else None
            if isinstance(index, cst.Index) and isinstance(index.value, cst.Integer):
                inner = self._tuple_level(expr.value, depth + 1)
                return (inner[0], inner[1] + 1) if inner is not None else None
            return None
        if isinstance(expr, cst.Name):
            found = self.sem.lookup_name(expr)
            if len(found) != 1:
                return None
            binding = found[0]
            if binding.plain:
                return self._tuple_level(binding.value, depth + 1)
            if binding.kind is BindingKind.ASSIGNMENT and isinstance(binding.source, cst.Call):
                return binding.source, len(binding.path)
        return None

    def _array_level(self, source, level: int) -> bool:
        if self.ctx.call_name(source) == "tensorflow_datasets.load":
            depth = _tfds_depth(source)
            return bool(depth) and level == depth
        facts = api.call(self.ctx.call_name(source))
        if facts is None or not facts.returns_tuple:
            return False
        return level == (2 if facts.nested else 1)

    def spectrum(self, expr) -> bool:
        """Eigenvalues or singular values unpacked from a decomposition: one value per
        feature, not per sample (``values, vectors = np.linalg.eigh(cov)``)."""
        found = self._tuple_level(expr) if isinstance(expr, cst.Name) else None
        return (
            found is not None
            and found[1] == 1
            and am.op(self.ctx.call_name(found[0])) is am.ArrayOp.SOLVE
        )

    # -- evidence from use ---------------------------------------------------------
    def used_as_array(self, name: cst.Name) -> bool:
        """The scope reading ``name`` takes its shape (``x.shape``, ``tf.shape(x)``) or
        annotates it as an array, and never checks what it holds."""
        if self._used is None:
            self._index_uses()
        assert self._used is not None
        scope: Optional[Scope] = self.sem.scope_of(name)
        while scope is not None:
            if name.value in self._checked.get(scope, ()):
                return False
            if name.value in self._used.get(scope, ()):
                return name.value not in self.ctx.imports.aliases
            if scope.bindings.get(name.value):
                return False  # bound here, used as an array nowhere here
            scope = scope.parent
        return False

    def _index_uses(self) -> None:
        used: Dict[object, Set[str]] = {}
        ctx = self.ctx
        for node in ctx.nodes(cst.Attribute):
            if node.attr.value in am.SHAPE_ATTRIBUTES and isinstance(node.value, cst.Name):
                used.setdefault(self.sem.scope_of(node), set()).add(node.value.value)
        for call in ctx.nodes(cst.Call):
            if not call.args or not isinstance(call.args[0].value, cst.Name):
                continue
            first = call.args[0].value.value
            if isinstance(call.func, cst.Name) and call.func.value in am.TYPE_CHECKS:
                self._checked.setdefault(self.sem.scope_of(call), set()).add(first)
            elif ctx.call_name(call) in am.SHAPE_OF:
                used.setdefault(self.sem.scope_of(call), set()).add(first)
        for param in ctx.nodes(cst.Param):
            if param.annotation is not None and self._array_annotation(param.annotation.annotation):
                used.setdefault(self.sem.scope_of(param.name), set()).add(param.name.value)
        for node in ctx.nodes(cst.AnnAssign):
            if node.value is None and isinstance(node.target, cst.Name):
                if self._array_annotation(node.annotation.annotation):
                    used.setdefault(self.sem.scope_of(node), set()).add(node.target.value)
        self._used = used

    def _array_annotation(self, annotation) -> bool:
        """``tf.Tensor``, ``np.ndarray``, ``npt.NDArray[...]``, or a project's own alias
        named like one (``FloatTensor``)."""
        if isinstance(annotation, cst.Subscript):
            annotation = annotation.value
        if self.ctx.qualname(annotation) in am.ARRAY_ANNOTATIONS:
            return True
        spelled = dotted(annotation)
        return spelled is not None and spelled.endswith(am.ARRAY_ANNOTATION_SUFFIXES)

    # -- receivers -----------------------------------------------------------------
    def _session(self, expr) -> bool:
        """A TF1 session: by its value, or named as one (``sess``, ``self.session``)."""
        if self.values.kind(expr) is Kind.SESSION:
            return True
        spelled = dotted(expr)
        return spelled is not None and spelled.rsplit(".", 1)[-1].lower().endswith(am.SESSION_NAMES)

    def _generator(self, expr, depth: int = 0) -> bool:
        """``np.random.default_rng(...)``, or a name bound only to one."""
        if isinstance(expr, cst.Call):
            return self.ctx.call_name(expr) in am.GENERATORS
        if isinstance(expr, cst.Name) and depth < 3:
            found = self.sem.lookup_name(expr)
            return bool(found) and all(
                b.plain and self._generator(b.value, depth + 1) for b in found
            )
        return False

    # -- more facts ----------------------------------------------------------------
    def ragged(self, expr, depth: int = 0) -> bool:
        """The reviews of ``(x, y), _ = imdb.load_data()`` (or reuters): token-id lists
        of different lengths, not an array a loop can batch; also a parameter every
        caller passes them, a slice of them, and a review a loop takes from them."""
        if depth > 4:
            return False
        if isinstance(expr, cst.Subscript):
            return self.ragged(expr.value, depth + 1)
        if not isinstance(expr, cst.Name):
            return False
        found = self.sem.lookup_name(expr)
        if not found:
            return False
        binding = found[0]
        if binding.kind is BindingKind.PARAMETER and len(found) == 1:
            func = binding.scope.function
            graph = self.ctx.shared(CallGraph)
            callers = graph.callers(func) if func is not None else []
            return bool(callers) and all(
                self.ragged(graph.argument(c, func, binding.name), depth + 1) for c in callers
            )
        if binding.kind is BindingKind.LOOP_TARGET and binding.source is not None:
            source, path = binding.source, list(binding.path)
            while isinstance(source, cst.Call) and isinstance(source.func, cst.Name):
                name = source.func.value
                args = [a.value for a in source.args if a.keyword is None]
                if name not in ("enumerate", "zip", "list", "sorted", "reversed") or not args:
                    break
                if name == "enumerate":
                    if not path or path[0] != 1:
                        return False  # the counter
                    source, path = args[0], path[1:]
                elif name == "zip":
                    if not path or path[0] >= len(args):
                        return False
                    source, path = args[path[0]], path[1:]
                else:
                    source = args[0]
            return self.ragged(source, depth + 1)
        if binding.plain:
            return self.ragged(binding.value, depth + 1)
        if len(found) != 1 or binding.kind is not BindingKind.ASSIGNMENT:
            return False
        loaded = binding.source
        if not isinstance(loaded, cst.Call) or binding.path[-1:] != (0,):
            return False
        parts = (self.ctx.call_name(loaded) or "").split(".")
        return parts[:2] == ["keras", "datasets"] and len(parts) == 4 and parts[2] in am.RAGGED

    def model_output(self, expr, depth: int = 0) -> bool:
        """What calling a Keras model or layer returns (``outputs = self.vgg(x)``), or a
        slice of it: a list of tensors for a multi-output model, a batch otherwise;
        walking it walks outputs or a batch, not rows of data."""
        if depth > 3:
            return False
        if isinstance(expr, cst.Subscript):
            return self.model_output(expr.value, depth + 1)
        if isinstance(expr, cst.Name):
            value = self.sem.value_of(expr)
            return value is not None and self.model_output(value, depth + 1)
        if isinstance(expr, cst.Call):
            if self.values.kind(expr.func) in (Kind.KERAS_MODEL, Kind.LAYER):
                return True
            # ``model.predict(x)`` of a model built with several outputs: a list of them
            func = expr.func
            return (
                isinstance(func, cst.Attribute)
                and func.attr.value in keras.INFERENCE_METHODS
                and several_outputs(self.ctx, expr)
            )
        return False

    def _keyed(self, expr) -> bool:
        """``outputs["style"]`` (an entry of a dict by its key), or a name bound only
        to such entries."""
        if _keyed(expr):
            return True
        if not isinstance(expr, cst.Name):
            return False
        found = self.values_of(expr)
        return bool(found) and all(b.plain and _keyed(b.value) for b in found)

    def list_of_arrays(self, name: cst.Name) -> bool:
        """A Python list the code fills with arrays (``alphas.append(alpha)``)."""
        for binding in self.sem.lookup_name(name):
            value = binding.value
            if (
                binding.kind is BindingKind.MUTATION
                and isinstance(value, cst.Call)
                and isinstance(value.func, cst.Attribute)
                and value.func.attr.value == "append"
                and value.args
                and self.is_array(value.args[0].value)
            ):
                return True
        return False

    def element_of_data(self, expr) -> bool:
        """An element a loop takes from a dataset or an iterator: a tensor, a tuple,
        a dict or a nested dataset (``window()``), one per step of the pipeline."""
        if not isinstance(expr, cst.Name):
            return False
        return any(
            b.kind is BindingKind.LOOP_TARGET
            and b.source is not None
            and self.values.kind(b.source) in (Kind.DATASET, Kind.ITERATOR)
            for b in self.sem.lookup_name(expr)
        )

    def is_dict(self, expr) -> bool:
        """A dict, by its value kind (``{...}``, ``dict(...)``, a name bound to one)."""
        return self.values.kind(expr) is Kind.DICT

    def is_counter(self, expr, depth: int = 0) -> bool:
        """``np.arange(...)`` / ``tf.range(...)`` (or a name bound only to one): iterating
        it counts, like ``range``."""
        if isinstance(expr, cst.Call):
            return am.op(self.ctx.call_name(expr)) is am.ArrayOp.COUNTER
        if isinstance(expr, cst.Name) and depth < 3:
            found = self.sem.lookup_name(expr)
            return bool(found) and all(
                b.plain and self.is_counter(b.value, depth + 1) for b in found
            )
        return False

    def rows_of(self, size, depth: int = 0) -> Optional[cst.BaseExpression]:
        """The array whose row count ``size`` is (``len(x)``, ``x.shape[0]``,
        ``tf.shape(x)[0]``, ``x.size``, one of these plus or minus a number, or a
        name bound once to one; ``n`` of ``n, d = x.shape``)."""
        if depth > 3:
            return None
        if isinstance(size, cst.BinaryOperation) and isinstance(
            size.operator, (cst.Subtract, cst.Add)
        ):
            return self.rows_of(size.left, depth + 1)
        if isinstance(size, cst.Attribute) and size.attr.value == "size":
            return size.value if self.is_array(size.value) else None
        if isinstance(size, cst.Name):
            found = self.sem.lookup_name(size)
            if len(found) != 1:
                return None
            binding = found[0]
            if binding.plain:
                return self.rows_of(binding.value, depth + 1)
            source = binding.source
            if (
                binding.kind is BindingKind.ASSIGNMENT
                and binding.path == (0,)
                and isinstance(source, cst.Attribute)
                and source.attr.value == "shape"
            ):
                return source.value  # n, d = x.shape
            return None
        if isinstance(size, cst.Call) and isinstance(size.func, cst.Name):
            if size.func.value == "len" and len(size.args) == 1:
                inner = size.args[0].value
                return inner if self.is_array(inner) else None
            return None
        if (
            isinstance(size, cst.Subscript)
            and len(size.slice) == 1
            and isinstance(size.slice[0].slice, cst.Index)
        ):
            base = size.value
            if isinstance(base, cst.Attribute) and base.attr.value == "shape":
                if isinstance(base.value, (cst.Name, cst.Attribute, cst.Subscript)):
                    return base.value
            if isinstance(base, cst.Call) and self.ctx.call_name(base) in am.SHAPE_OF:
                return base.args[0].value if base.args else None
        return None


def _keyed(expr) -> bool:
    """``outputs["style"]``: an entry of a dict (or a frame's column) by its key, not
    rows of an array."""
    if not isinstance(expr, cst.Subscript) or len(expr.slice) != 1:
        return False
    index = expr.slice[0].slice
    return isinstance(index, cst.Index) and isinstance(
        index.value, (cst.SimpleString, cst.ConcatenatedString)
    )


def _tfds_depth(call: cst.Call) -> int:
    """``(x, y), info = tfds.load(..., batch_size=-1, as_supervised=True, with_info=True)``:
    whole splits as arrays; how deep the tuples around them go (0: a dataset)."""
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
        if is_true(value):
            depth += 1
    return depth


def shape_axis(expr) -> Optional[tuple]:
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
