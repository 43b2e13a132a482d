"""TFP101 elementwise-loop."""

from __future__ import annotations

from typing import List, Optional

import libcst as cst

from tflint_perf.loops import enumerate_call, range_call
from tflint_perf.rule import Rule
from tflint_perf.tensors import TENSOR_ROOTS, TensorNames, find_convolution
from tflint_perf.testcode import is_test_file
from tflint_perf.walk import children, descendants

# TF/NumPy calls that are not math on the element: conversions, shape
# plumbing. Allowed in the loop, but they do not make it a finding.
_PLUMBING = frozenset(
    {
        "array", "asarray", "asanyarray", "ascontiguousarray", "convert_to_tensor", "constant", "copy",
        "identity", "shape", "rank", "size", "reshape", "expand_dims", "squeeze", "gather", "gather_nd",
        "stack", "concat", "concatenate", "zeros", "ones", "zeros_like", "ones_like", "full", "fill", "eye",
        "arange", "range", "linspace", "pad", "transpose", "tile", "repeat", "broadcast_to", "slice",
        "len", "ndim", "empty", "empty_like", "full_like", "get_static_value", "is_tensor",
    }
)
# TF/NumPy namespaces whose calls make a loop something other than math:
# randomness (per-element draws differ from one batched draw), I/O,
# logging, images (decoding, per-image augmentation), Python callbacks.
_BLOCKING_PREFIXES = (
    "tensorflow.random.", "numpy.random.", "tensorflow.io.", "tensorflow.summary.", "tensorflow.image.",
    "tensorflow.strings.", "tensorflow.data.", "tensorflow.debugging.", "tensorflow.config.",
    "tensorflow.saved_model.", "tensorflow.train.", "tensorflow.distribute.", "tensorflow.nest.",
    "tensorflow.lookup.", "tensorflow.sparse.", "tensorflow.ragged.", "tensorflow.experimental.",
    "tensorflow.audio.", "tensorflow.signal.", "numpy.testing.", "numpy.lib.", "numpy.char.",
)
_BLOCKING = frozenset(
    {
        "tensorflow.print", "tensorflow.py_function", "tensorflow.numpy_function", "tensorflow.map_fn",
        "tensorflow.vectorized_map", "tensorflow.while_loop", "tensorflow.cond", "tensorflow.case",
        "tensorflow.switch_case", "tensorflow.Variable", "tensorflow.function", "tensorflow.GradientTape",
        "tensorflow.TensorArray", "tensorflow.SparseTensor", "tensorflow.RaggedTensor",
        "tensorflow.device", "tensorflow.name_scope", "tensorflow.control_dependencies",
        "numpy.save", "numpy.savez", "numpy.savetxt", "numpy.load", "numpy.loadtxt", "numpy.fromfile",
        "numpy.unique", "numpy.nonzero", "numpy.argwhere", "numpy.flatnonzero", "numpy.where",
        "tensorflow.where", "tensorflow.boolean_mask", "tensorflow.unique", "numpy.histogram",
        "tensorflow.py_func", "tensorflow.assert_equal",
    }
)
# Builtins a vectorisable body may call.
_BUILTINS = frozenset({"len", "range", "float", "int", "abs", "min", "max", "round", "zip", "enumerate", "bool"})
# Array/tensor methods that are math on the element.
_MATH_METHODS = frozenset(
    {"sum", "mean", "max", "min", "std", "var", "prod", "dot", "argmax", "argmin", "cumsum", "clip", "round", "astype"}
)
# Array/tensor methods allowed on the element without being math.
_PLAIN_METHODS = frozenset({"numpy", "reshape", "flatten", "ravel", "squeeze", "transpose", "copy"})
_REDUCTIONS = frozenset(
    {
        "sum", "mean", "max", "min", "std", "var", "prod", "argmax", "argmin", "norm", "any", "all",
        "amax", "amin", "nansum", "nanmean", "nanmax", "nanmin", "average", "median", "count_nonzero",
        "logsumexp", "reduce_logsumexp", "reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
        "reduce_prod", "reduce_std", "reduce_variance", "reduce_any", "reduce_all", "reduce_euclidean_norm",
    }
)
_ELEMENTWISE = frozenset(
    {
        "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "abs", "square", "sin", "cos", "tan", "tanh", "sigmoid",
        "maximum", "minimum", "clip", "clip_by_value", "cast", "round", "floor", "ceil", "sign", "power", "pow",
        "multiply", "add", "subtract", "divide", "truediv", "relu", "softplus", "negative", "reciprocal",
        "exp2", "log2", "log10", "arctan", "arcsin", "arccos", "erf", "isnan", "isfinite", "logical_not",
    }
)
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power, cst.MatrixMultiply, cst.Modulo)
_BLOCKING_STATEMENTS = (
    cst.Return, cst.Break, cst.Continue, cst.Raise, cst.Yield, cst.Await, cst.Global, cst.Nonlocal,
    cst.With, cst.Try, cst.TryStar, cst.Del, cst.Assert, cst.FunctionDef, cst.ClassDef, cst.Lambda,
)


class _Loop:
    """What a loop walks: its variable, element names and indexed elements."""

    def __init__(self, node, var: str, tensor: str, unit: str) -> None:
        self.node = node
        self.var = var  # loop variable, for the message
        self.tensor = tensor  # code of the tensor walked
        self.unit = unit  # "row" or "element"
        self.element_names: set = set()  # names bound to one element
        self.index: Optional[str] = None  # index variable (x[i] is an element)
        self.math_node: Optional[cst.Call] = None  # the call applying math, once found


class ElementwiseLoop(Rule):
    """A Python loop applies TensorFlow/NumPy math to a tensor one element or row at a time.

    ## What it does
    Flags a `for`/`while` loop or list comprehension that walks a tensor or
    NumPy array element by element or row by row (`for i in
    range(x.shape[0])`, `range(len(x))`, `range(tf.shape(x)[0])`, a
    `while i < n` counter, `for row in x`) and applies TensorFlow or NumPy
    math to each element, collecting the results (`append`, item
    assignment, `+=`, or the comprehension itself).

    It stays silent on loops over Python lists, datasets and layers, on
    small literal ranges, on chunked loops (`range(0, n, batch)`), on
    bodies that do no TensorFlow/NumPy math on the element, and on bodies
    that call anything else (a model, a Python function, random or I/O
    ops), which one vectorised op cannot replace.

    ## Why is this bad?
    Each iteration dispatches one small op from Python: the interpreter
    and op-launch overhead dominate and the hardware works on one row at a
    time. One op along an axis does the same work in a single kernel;
    measured on TF 2.21 (CPU) the vectorised form is 40 to 380 times
    faster.

    ## Example
    ```python
    import tensorflow as tf

    scores = tf.random.normal([1000, 64])
    totals = []
    for i in range(scores.shape[0]):
        totals.append(tf.reduce_sum(scores[i]))
    totals = tf.stack(totals)
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    scores = tf.random.normal([1000, 64])
    totals = tf.reduce_sum(scores, axis=1)
    ```
    Use an axis reduction for per-row reductions, broadcasting for
    element-wise arithmetic, and `tf.vectorized_map` (or `tf.map_fn`)
    when the body is more than a simple op.
    """

    code = "TFP101"
    name = "elementwise-loop"
    message = "Loop over `{var}` applies {op} to {what} one at a time; {suggestion}"
    triggers = ("for ", "while ")
    fixable = False
    # For --verify: what the flagged code takes as input. "iterated" is the
    # tensor/array the loop walks (rank >= 1; rows are its first axis unless
    # the loop indexes another one).
    verify_roles = {"iterated": "tensor"}

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.candidates: List[cst.CSTNode] = []

    def visit_For(self, node: cst.For) -> None:
        self.candidates.append(node)

    def visit_While(self, node: cst.While) -> None:
        self.candidates.append(node)

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self.candidates.append(node)

    # -- analysis -------------------------------------------------------
    def finish(self) -> None:
        if not self.candidates or is_test_file(self.ctx.path):
            return
        self.tensors = self.ctx.shared(TensorNames)
        flagged: set = set()
        convolutions = {c for c in self.candidates if isinstance(c, cst.For) and find_convolution(self.ctx, c)}
        for node in self.candidates:
            if any(a in flagged or a in convolutions for a in self.ctx.ancestors_of(node)) or node in convolutions:
                continue
            loop = self._loop(node)
            if loop is None or "channel" in f"{loop.var} {loop.tensor}".lower():
                continue  # a handful of channels: not worth a finding
            op = self._collected_math(loop)
            if op is None:
                continue
            flagged.add(node)
            self.report(
                node,
                var=loop.var,
                op=f"`{op}`",
                what=f"each row `{loop.var}` of `{loop.tensor}`" if loop.element_names else f"each `{loop.tensor}[{loop.index}]`",
                suggestion=self._suggestion(op, loop),
            )

    def _loop(self, node) -> Optional[_Loop]:
        scope = self.tensors.scope_of(node)
        if isinstance(node, cst.For):
            if node.asynchronous is not None or node.orelse is not None:
                return None
            return self._for_like(node, node.target, node.iter, scope)
        if isinstance(node, cst.ListComp):
            comp = node.for_in
            if comp.inner_for_in is not None or comp.asynchronous is not None:
                return None
            return self._for_like(node, comp.target, comp.iter, scope)
        return self._while(node, scope)

    def _for_like(self, node, target, iterable, scope) -> Optional[_Loop]:
        rng = range_call(iterable)
        if rng is not None:
            size = _range_size(rng)
            if size is None or not isinstance(target, cst.Name):
                return None
            tensor = self.tensors.tensor_of_size(size, scope)
            if tensor is None:
                return None
            loop = _Loop(node, target.value, tensor, "element")
            loop.index = target.value
            return loop
        enum = enumerate_call(iterable)
        if enum is not None:
            if len(enum.args) != 1 or not isinstance(target, cst.Tuple) or len(target.elements) != 2:
                return None
            index, element = (e.value for e in target.elements)
            if not (isinstance(index, cst.Name) and isinstance(element, cst.Name)):
                return None
            if not self.tensors.is_tensor_expr(enum.args[0].value, scope):
                return None
            loop = _Loop(node, element.value, self.ctx.code(enum.args[0].value), "row")
            loop.element_names.add(element.value)
            loop.index = index.value
            return loop
        if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "zip":
            if not isinstance(target, cst.Tuple) or len(target.elements) != len(iterable.args):
                return None
            loop = None
            for element, arg in zip(target.elements, iterable.args):
                if isinstance(element.value, cst.Name) and arg.star == "" and self.tensors.is_tensor_expr(arg.value, scope):
                    if loop is None:
                        loop = _Loop(node, element.value.value, self.ctx.code(arg.value), "row")
                    loop.element_names.add(element.value.value)
            return loop
        if self.tensors.is_counter(iterable, scope):
            return None  # for k in np.arange(n): a counting loop over scalars, like range
        if isinstance(target, cst.Name) and self.tensors.is_tensor_expr(iterable, scope):
            loop = _Loop(node, target.value, self.ctx.code(iterable), "row")
            loop.element_names.add(target.value)
            return loop
        return None

    def _while(self, node: cst.While, scope) -> Optional[_Loop]:
        """``while i < n:`` with ``i += 1`` in the body and ``n`` a size of a tensor."""
        test = node.test
        if node.orelse is not None or not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
            return None
        comp = test.comparisons[0]
        if not isinstance(comp.operator, cst.LessThan) or not isinstance(test.left, cst.Name):
            return None
        var = test.left.value
        steps = [
            s
            for line in node.body.body
            if isinstance(line, cst.SimpleStatementLine)
            for s in line.body
            if isinstance(s, cst.AugAssign)
            and isinstance(s.target, cst.Name)
            and s.target.value == var
            and isinstance(s.operator, cst.AddAssign)
            and isinstance(s.value, cst.Integer)
            and s.value.value == "1"
        ]
        if len(steps) != 1:
            return None
        tensor = self.tensors.tensor_of_size(comp.comparator, scope)
        if tensor is None:
            return None
        loop = _Loop(node, var, tensor, "element")
        loop.index = var
        return loop

    # -- the body ---------------------------------------------------------
    def _body(self, loop: _Loop):
        node = loop.node
        if isinstance(node, cst.ListComp):
            return [node.elt, *(i.test for i in node.for_in.ifs)]
        return [node.body]

    def _collected_math(self, loop: _Loop) -> Optional[str]:
        """The op applied to the element whose result is collected, if any (and nothing blocks)."""
        scope = self.tensors.scope_of(loop.node)
        parts = self._body(loop)
        nodes = [n for part in parts for n in [part, *descendants(part, skip_scopes=False)]]
        for n in nodes:
            if isinstance(n, _BLOCKING_STATEMENTS):
                return None
            if loop.index is not None and isinstance(n, cst.SubscriptElement) and not _bare_index(n, loop.index):
                if loop.index in _names(n):
                    return None  # x[i + 1], x[i:i + k]: shifts and windows, not one element
            if isinstance(n, (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp, cst.Set, cst.Dict)):
                return None  # Python containers per element: not one op
            if isinstance(n, cst.Call) and not self._allowed_call(n, loop, scope):
                return None
        derived = set(loop.element_names)  # names holding (something computed from) an element
        math_derived: set = set()
        assigns = [n for n in nodes if isinstance(n, cst.Assign) and len(n.targets) == 1 and isinstance(n.targets[0].target, cst.Name)]
        for _ in range(3):
            for a in assigns:
                name = a.targets[0].target.value
                if self._uses_element(a.value, loop, derived, scope):
                    derived.add(name)
                    if self._math_op(a.value, loop, derived, scope) or _reads(a.value, math_derived):
                        math_derived.add(name)
        if isinstance(loop.node, cst.ListComp):
            return self._math_op(loop.node.elt, loop, derived, scope)
        for value in self._collected_values(nodes, derived):
            op = self._math_op(value, loop, derived, scope)
            if op:
                return op
            names = _reads(value, math_derived)
            if names:
                return self._op_of_name(assigns, names, loop, derived, scope)
        return None

    def _op_of_name(self, assigns, names, loop, derived, scope) -> Optional[str]:
        for a in assigns:
            if a.targets[0].target.value in names:
                op = self._math_op(a.value, loop, derived, scope)
                if op:
                    return op
        return None

    def _collected_values(self, nodes, derived):
        for n in nodes:
            if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value == "append":
                if len(n.args) == 1 and not _reads(n.func.value, derived):
                    yield n.args[0].value
            elif isinstance(n, cst.Assign):
                for t in n.targets:
                    target = t.target
                    if isinstance(target, cst.Subscript):
                        yield n.value
                    elif isinstance(target, cst.Name) and isinstance(n.value, cst.BinaryOperation) and (
                        isinstance(n.value.operator, (cst.Add, cst.Subtract))
                        and isinstance(n.value.left, cst.Name)
                        and n.value.left.value == target.value
                    ):
                        yield n.value.right
            elif isinstance(n, cst.AugAssign) and isinstance(n.operator, (cst.AddAssign, cst.SubtractAssign)):
                if not (isinstance(n.target, cst.Name) and n.target.value in derived):
                    yield n.value

    def _allowed_call(self, call: cst.Call, loop: _Loop, scope) -> bool:
        qual = self.ctx.call_name(call)
        if qual is not None:
            if not qual.startswith(TENSOR_ROOTS):
                return False
            return not (qual in _BLOCKING or qual.startswith(_BLOCKING_PREFIXES))
        func = call.func
        if isinstance(func, cst.Name):
            return func.value in _BUILTINS
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method == "append":
                return True
            if method in _MATH_METHODS or method in _PLAIN_METHODS:
                return self._is_elementish(func.value, loop, scope)
        return False

    def _is_elementish(self, expr, loop: _Loop, scope) -> bool:
        """A tensor, or an element of the walked tensor."""
        if isinstance(expr, cst.Name) and expr.value in loop.element_names:
            return True
        return self.tensors.is_tensor_expr(expr, scope) or self._uses_element(expr, loop, loop.element_names, scope)

    def _is_seed(self, node, loop: _Loop, scope) -> bool:
        """``x[i]``, ``x[i, :]``, ``x[:, i]``: one element of a tensor by the loop index."""
        if loop.index is None or not isinstance(node, cst.Subscript):
            return False
        index_hits = [
            e for e in node.slice if isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Name) and e.slice.value.value == loop.index
        ]
        return len(index_hits) == 1 and self.tensors.is_tensor_expr(node.value, scope)

    def _uses_element(self, expr, loop: _Loop, derived, scope) -> bool:
        """Whether ``expr`` reads an element (not only as an index)."""
        stack = [expr]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Name) and node.value in derived:
                return True
            if self._is_seed(node, loop, scope):
                return True
            if isinstance(node, cst.Subscript):
                stack.append(node.value)  # indices do not carry element values
                continue
            if isinstance(node, cst.Attribute):
                if node.attr.value in ("shape", "ndim", "dtype"):
                    continue
                stack.append(node.value)
                continue
            stack.extend(children(node))
        return False

    def _math_op(self, expr, loop: _Loop, derived, scope) -> Optional[str]:
        """The TF/NumPy math applied to an element inside ``expr``, spelled as in the source."""
        nodes = list(value_nodes(expr))
        # Named ops first, operators second: `np.exp(x[i]) * 2` reports `np.exp`.
        nodes.sort(key=lambda n: not isinstance(n, cst.Call))
        for node in nodes:
            if isinstance(node, cst.Call):
                qual = self.ctx.call_name(node)
                if qual is not None and qual.startswith(TENSOR_ROOTS):
                    if qual.rsplit(".", 1)[-1] in _PLUMBING:
                        continue
                    if any(self._uses_element(a.value, loop, derived, scope) for a in node.args if a.keyword is None):
                        loop.math_node = node
                        return self.ctx.code(node.func)
                elif isinstance(node.func, cst.Attribute) and node.func.attr.value in _MATH_METHODS:
                    if self._uses_element(node.func.value, loop, derived, scope):
                        loop.math_node = node
                        return "." + node.func.attr.value + "()"
            elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _ARITHMETIC):
                left = self._uses_element(node.left, loop, derived, scope)
                right = self._uses_element(node.right, loop, derived, scope)
                if left or right:
                    return self.ctx.code(node.operator).strip()
        return None

    def _whole_operand(self, loop: _Loop) -> Optional[str]:
        """The reduced operand over all rows: ``queries * key`` for ``tf.reduce_sum(queries[i] * key)``."""
        call = loop.math_node
        if call is None:
            return None
        if isinstance(call.func, cst.Attribute) and self.ctx.call_name(call) is None:
            operand = call.func.value
        elif call.args and call.args[0].keyword is None:
            operand = call.args[0].value
        else:
            return None
        new = _replace_element(operand, loop)
        return self.ctx.module.code_for_node(new) if new is not None else None

    def _suggestion(self, op: str, loop: _Loop) -> str:
        tensor = loop.tensor
        name = op.rsplit(".", 1)[-1].strip("`()")
        if name in _REDUCTIONS:
            operand = self._whole_operand(loop)
            if op.startswith("."):
                receiver = operand or tensor
                parsed = cst.parse_expression(receiver)
                if not (isinstance(parsed, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or parsed.lpar):
                    receiver = f"({receiver})"
                call = f"{receiver}.{name}(axis=1)"
            else:
                call = f"{op}({operand or tensor}, axis=1)"
            return f"reduce along an axis over all rows at once instead (e.g. `{call}`)"
        if name in _ELEMENTWISE:
            return f"apply `{op}` to the whole of `{tensor}` at once (it works element-wise) instead"
        if not op[:1].isalpha() and not op.startswith("."):
            return f"apply `{op}` to the whole of `{tensor}` at once (broadcasting) instead"
        return (
            f"call `{op}` once on the whole of `{tensor}` (most TF/NumPy ops take a batch axis), "
            "or use `tf.vectorized_map`/`tf.map_fn` when the body is more than one op"
        )


def _replace_element(expr, loop):
    """``expr`` with the loop's element (``row`` / ``x[i]``) replaced by the whole tensor."""
    whole = cst.parse_expression(loop.tensor)
    hits = []
    for node in value_nodes(expr):
        if isinstance(node, cst.Name) and node.value in loop.element_names:
            hits.append(node)
        elif (
            isinstance(node, cst.Subscript)
            and loop.index is not None
            and len(node.slice) == 1
            and _bare_index(node.slice[0], loop.index)
        ):
            hits.append(node)
    names = _names(expr)
    if len(hits) != 1 or (loop.index is not None and isinstance(hits[0], cst.Name)):
        return None
    if loop.index in names and not isinstance(hits[0], cst.Subscript):
        return None
    new = expr.deep_replace(hits[0], whole)
    if loop.index is not None and loop.index in _names(new):
        return None
    return new


def _bare_index(element: cst.SubscriptElement, name: str) -> bool:
    return isinstance(element.slice, cst.Index) and isinstance(element.slice.value, cst.Name) and element.slice.value.value == name


def _names(node) -> set:
    return {n.value for n in [node, *descendants(node)] if isinstance(n, cst.Name)}


def _range_size(call: cst.Call):
    """``n`` for ``range(n)`` / ``range(0, n)``; None with a step or another start."""
    args = call.args
    if any(a.keyword is not None or a.star for a in args):
        return None
    if len(args) == 1:
        return args[0].value
    if len(args) == 2 and isinstance(args[0].value, cst.Integer) and args[0].value.value == "0":
        return args[1].value
    return None


def value_nodes(expr):
    """``expr`` and the nodes below it, without the indices of subscripts
    (``x[start:end]`` computes with ``x``'s values, not ``start``'s)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, cst.Subscript):
            stack.append(node.value)
        else:
            stack.extend(reversed(children(node)))


def _reads(expr, names: set) -> set:
    if not names:
        return set()
    found = set()
    for node in value_nodes(expr):
        if isinstance(node, cst.Name) and node.value in names:
            found.add(node.value)
    return found
