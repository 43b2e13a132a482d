"""What a loop does with the elements of an array, one at a time.

A loop *walks* an array when its header goes over the array's rows (``for
row in x``, ``enumerate(x)``, ``zip(x, y)``, ``sorted(x)``) or over indices
(``range(len(x))``, ``range(x.shape[0])``, ``range(n)``, ``while i < n``).
The body then *reads elements* (``x[i]``, ``x[0, i]``, ``row``, and names
computed from them) and *collects* results: ``out.append(v)``, ``out[i] =
v``, ``acc += v``, ``n += 1`` under a test, ``out[idx[i]] += v``.

``LoopFacts`` records, in one pass over the body, what is read, what is
collected, and whatever makes the loop something other than independent
work per element: a recurrence (a value carried from one iteration to the
next, an array read at a shifted index where it is written), I/O, object
state, calls the file does not show to be array math.
"""

from __future__ import annotations

from typing import Dict, List, Optional

from tflint_perf.analysis.loops import SMALL_TRIP_COUNT, enumerate_call, range_call, small_count
from tflint_perf.analysis.tensors import TENSOR_ROOTS
from tflint_perf.engine import cst
from tflint_perf.engine.nodes import node_types
from tflint_perf.engine.walk import children, descendants

# Calls that wrap an iterable without changing what it walks.
_WRAPPERS = frozenset({"tqdm", "trange", "list", "reversed", "sorted", "iter"})
_PLAIN_METHODS = frozenset(
    {"numpy", "reshape", "flatten", "ravel", "squeeze", "transpose", "copy", "astype", "item"}
)


class Walk:
    """What a loop header walks."""

    def __init__(self, node) -> None:
        self.node = node
        self.var = ""  # the loop variable named in messages
        self.tensor: Optional[str] = None  # code of the array walked, if one is
        self.index: set = set()  # index variables (``x[i]`` is an element)
        self.elements: set = set()  # names bound to elements or rows
        self.sized = False  # the trip count is a size of a known array
        self.size: Optional[cst.BaseExpression] = None  # the range bound, if a range
        self.whole: Dict[str, str] = {}  # element name -> code of the array it comes from
        self.counter: Optional[str] = None  # for k in np.arange(n): k
        self.step: Optional[cst.AugAssign] = None  # the `i += 1` of a while loop
        self.opaque: set = set()  # names the header binds to things not shown to be arrays
        self.gather: set = set()  # of those, the ones that may index arrays (for i in idxs)


def unwrap(ctx, expr):
    """``tqdm(range(n))`` -> ``range(n)``; ``sorted(x, reverse=True)`` -> ``x``."""
    while isinstance(expr, cst.Call) and expr.args and expr.args[0].keyword is None:
        func = expr.func
        name = func.value if isinstance(func, cst.Name) else None
        qual = ctx.call_name(expr) or ""
        if name in _WRAPPERS or qual.split(".")[0] == "tqdm":
            expr = expr.args[0].value
        else:
            break
    return expr


def walk_of(ctx, tensors, node) -> Optional[Walk]:
    """The walk of a ``for``, ``while`` or comprehension, or None."""
    scope = tensors.scope_of(node)
    if isinstance(node, cst.For):
        if node.asynchronous is not None or node.orelse is not None:
            return None
        target, iterable = node.target, node.iter
    elif isinstance(node, (cst.ListComp, cst.GeneratorExp)):
        comp = node.for_in
        if comp.inner_for_in is not None or comp.asynchronous is not None:
            return None
        target, iterable = comp.target, comp.iter
    else:
        return _while(ctx, tensors, node, scope)
    walk = Walk(node)
    if not _bind(ctx, tensors, walk, target, iterable, scope):
        return None
    if not walk.index and not walk.elements:
        return None
    names = [n.value for n in [target, *descendants(target)] if isinstance(n, cst.Name)]
    elements = [n for n in names if n in walk.elements]
    walk.var = (elements or names or [""])[0]
    return walk


def _few_counts(call) -> bool:
    """``np.arange(5)``, ``np.linspace(0, 1, 10)``: a handful of values."""
    if not isinstance(call, cst.Call):
        return False
    numbers = []
    for arg in call.args:
        value = arg.value
        sign = 1.0
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
            value, sign = value.expression, -1.0
        if not isinstance(value, (cst.Integer, cst.Float)) or arg.keyword is not None:
            return False
        numbers.append(sign * float(value.value))
    func = call.func.attr.value if isinstance(call.func, cst.Attribute) else ""
    if func == "linspace":
        return len(numbers) >= 3 and numbers[2] < SMALL_TRIP_COUNT
    if len(numbers) == 1:
        numbers = [0.0, numbers[0]]
    step = numbers[2] if len(numbers) > 2 else 1.0
    return bool(numbers) and step != 0 and (numbers[1] - numbers[0]) / step < SMALL_TRIP_COUNT


def _reorders(ctx, expr) -> bool:
    """``sorted(x)`` / ``reversed(x)``: the elements in another order."""
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.args:
        if expr.func.value in ("sorted", "reversed"):
            return True
        if expr.func.value not in _WRAPPERS:
            return False
        expr = expr.args[0].value
    return False


def _bind(ctx, tensors, walk: Walk, target, original, scope) -> bool:
    """Record what ``target`` gets from ``original``; False if it is not array work."""
    iterable = unwrap(ctx, original)
    rng = range_call(iterable)
    if rng is not None:
        return _bind_range(ctx, tensors, walk, target, rng, scope)
    enum = enumerate_call(iterable)
    if enum is not None:
        if (
            len(enum.args) != 1
            or not isinstance(target, cst.Tuple)
            or len(target.elements) != 2
            or not isinstance(target.elements[0].value, cst.Name)
        ):
            return False
        walk.index.add(target.elements[0].value.value)
        return _bind(
            ctx, tensors, walk, target.elements[1].value, unwrap(ctx, enum.args[0].value), scope
        )
    if (
        isinstance(iterable, cst.Call)
        and isinstance(iterable.func, cst.Name)
        and iterable.func.value == "zip"
    ):
        return _bind_zip(ctx, tensors, walk, target, iterable, scope)
    if tensors.is_counter(iterable, scope):
        if not isinstance(target, cst.Name) or _few_counts(iterable):
            return False
        walk.sized = True
        walk.elements.add(target.value)  # np.arange(...): values (an index if used as one)
        walk.tensor = walk.tensor or ctx.code(iterable)
        if not _reorders(ctx, original):
            walk.whole[target.value] = ctx.code(iterable)
        walk.counter = target.value
        return True
    if not tensors.is_tensor_expr(iterable, scope):
        return _bind_indices(ctx, walk, target, original)
    if tensors.few_rows(iterable, scope):
        return False
    names = [n.value for n in [target, *descendants(target)] if isinstance(n, cst.Name)]
    if not names or not isinstance(target, (cst.Name, cst.Tuple)):
        return False
    walk.elements.update(names)
    walk.tensor = walk.tensor or ctx.code(iterable)
    if isinstance(target, cst.Name) and not _reorders(ctx, original):
        walk.whole[target.value] = ctx.code(iterable)
    walk.sized = True
    return True


def _bind_indices(ctx, walk, target, original) -> bool:
    """``for idx in idxs`` over something not shown to be an array: usable only as
    indices into arrays (``x[idx]``), a gather; any other use of it blocks (see
    ``LoopFacts``)."""
    iterable = unwrap(ctx, original)
    if not isinstance(target, cst.Name) or not isinstance(
        iterable, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)
    ):
        return False
    if range_call(iterable) is not None or _reorders(ctx, original):
        return False
    walk.index.add(target.value)
    walk.opaque.add(target.value)
    walk.gather.add(target.value)
    walk.whole[target.value] = ctx.code(iterable)
    return True


def _bind_zip(ctx, tensors, walk, target, call, scope) -> bool:
    args = [a for a in call.args if a.keyword is None and not a.star]
    if len(args) != len(call.args) or not args:
        return False
    if isinstance(target, cst.Name):
        if not all(tensors.is_tensor_expr(unwrap(ctx, a.value), scope) for a in args):
            return False
        walk.elements.add(target.value)  # for row in zip(a, b): row[0], row[1]
        walk.tensor = walk.tensor or ctx.code(args[0].value)
        walk.sized = True
        return True
    if not isinstance(target, cst.Tuple) or len(target.elements) != len(args):
        return False
    found = False
    for element, arg in zip(target.elements, args):
        if _bind(ctx, tensors, walk, element.value, arg.value, scope):
            found = True
        else:
            walk.opaque |= names_in(element.value)  # zip(specs, arrays): specs are objects
    return found and bool(walk.elements or walk.gather)


def _bind_range(ctx, tensors, walk, target, rng, scope) -> bool:
    if not isinstance(target, cst.Name):
        return False
    size = range_size(rng)
    if size is None or small_count(ctx, size):
        return False
    walk.index.add(target.value)
    walk.size = size
    tensor = tensors.tensor_of_size(size, scope)
    if tensor is not None:
        if tensors.few_rows(cst.parse_expression(tensor), scope):
            return False
        walk.tensor = walk.tensor or tensor
        walk.sized = True
    return True


def range_size(call: cst.Call):
    """The trip-count bound of ``range(n)``, ``range(a, n)``, ``range(n - 1, -1, -1)``;
    None for other steps (chunks) and keyword or starred arguments."""
    args = call.args
    if any(a.keyword is not None or a.star for a in args) or not args:
        return None
    if len(args) == 1:
        return args[0].value
    if len(args) == 2:
        return args[1].value
    step = args[2].value
    if isinstance(step, cst.Integer) and step.value == "1":
        return args[1].value
    if (
        isinstance(step, cst.UnaryOperation)
        and isinstance(step.operator, cst.Minus)
        and isinstance(step.expression, cst.Integer)
        and step.expression.value == "1"
    ):
        return args[0].value
    return None


def _while(ctx, tensors, node: cst.While, scope) -> Optional[Walk]:
    """``while i < n:`` with one ``i += 1`` in the body."""
    test = node.test
    if (
        node.orelse is not None
        or not isinstance(test, cst.Comparison)
        or len(test.comparisons) != 1
    ):
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
    if len(steps) != 1 or small_count(ctx, comp.comparator):
        return None
    walk = Walk(node)
    walk.var = var
    walk.index.add(var)
    walk.size = comp.comparator
    walk.step = steps[0]
    tensor = tensors.tensor_of_size(comp.comparator, scope)
    if tensor is not None:
        walk.tensor = tensor
        walk.sized = True
    return walk


# -- the body ----------------------------------------------------------------


class Sink:
    """Where the body puts a result: ``kind`` is append, store, scatter,
    scatter-add, reduce, count or element (the comprehension's element)."""

    def __init__(self, kind: str, node, value, target=None, test=None) -> None:
        self.kind = kind
        self.node = node  # the statement or expression
        self.value = value  # the value collected (None for a count)
        self.target = target  # the subscript or name written
        self.test = test  # the enclosing `if` test, if any


def body_parts(node) -> list:
    if isinstance(node, (cst.ListComp, cst.GeneratorExp)):
        return [node.elt, *(i.test for i in node.for_in.ifs)]
    return [node.body]


def body_nodes(node) -> list:
    return [n for part in body_parts(node) for n in [part, *descendants(part, skip_scopes=True)]]


def names_in(node) -> set:
    return {n.value for n in [node, *descendants(node)] if isinstance(n, cst.Name)}


def value_nodes(expr):
    """``expr`` and the nodes below it, without subscript indices and attribute names."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, cst.Subscript):
            stack.append(node.value)
        elif isinstance(node, cst.Attribute):
            stack.append(node.value)
        else:
            stack.extend(reversed(children(node)))


_BLOCKING_STATEMENTS = node_types(
    "Return",
    "Break",
    "Raise",
    "Yield",
    "Await",
    "Global",
    "Nonlocal",
    "With",
    "Try",
    "TryStar",
    "Del",
    "Assert",
    "FunctionDef",
    "ClassDef",
    "Lambda",
    "FormattedString",
    "ListComp",
    "GeneratorExp",
    "SetComp",
    "DictComp",
    "Set",
    "Dict",
)
# NumPy/TF calls that make a loop something other than math: I/O, logging,
# images (decoding, per-image augmentation), control flow, Python callbacks,
# data-dependent sizes.
_BLOCKING_PREFIXES = (
    "tensorflow.random.",
    "tensorflow.io.",
    "tensorflow.summary.",
    "tensorflow.image.",
    "tensorflow.strings.",
    "tensorflow.data.",
    "tensorflow.debugging.",
    "tensorflow.config.",
    "tensorflow.saved_model.",
    "tensorflow.train.",
    "tensorflow.distribute.",
    "tensorflow.nest.",
    "tensorflow.lookup.",
    "tensorflow.sparse.",
    "tensorflow.ragged.",
    "tensorflow.experimental.",
    "tensorflow.audio.",
    "tensorflow.signal.",
    "tensorflow.keras.",
    "keras.",
    "numpy.testing.",
    "numpy.lib.",
    "numpy.char.",
)
_BLOCKING = frozenset(
    {
        "tensorflow.print",
        "tensorflow.py_function",
        "tensorflow.numpy_function",
        "tensorflow.map_fn",
        "tensorflow.vectorized_map",
        "tensorflow.while_loop",
        "tensorflow.cond",
        "tensorflow.case",
        "tensorflow.switch_case",
        "tensorflow.Variable",
        "tensorflow.function",
        "tensorflow.GradientTape",
        "tensorflow.TensorArray",
        "tensorflow.SparseTensor",
        "tensorflow.RaggedTensor",
        "tensorflow.device",
        "tensorflow.name_scope",
        "tensorflow.control_dependencies",
        "tensorflow.py_func",
        "tensorflow.assert_equal",
        "tensorflow.Session",
        "tensorflow.get_variable",
        "tensorflow.trainable_variables",
        "numpy.save",
        "numpy.savez",
        "numpy.savetxt",
        "numpy.load",
        "numpy.loadtxt",
        "numpy.genfromtxt",
        "numpy.fromfile",
        "numpy.unique",
        "numpy.nonzero",
        "numpy.argwhere",
        "numpy.flatnonzero",
        "numpy.where",
        "tensorflow.where",
        "tensorflow.boolean_mask",
        "tensorflow.unique",
        "numpy.histogram",
        "numpy.union1d",
        "numpy.setdiff1d",
        "numpy.setxor1d",
        "numpy.random.seed",
        "numpy.random.shuffle",
        "numpy.random.permutation",
        "numpy.random.set_state",
        "numpy.random.get_state",
        "numpy.random.RandomState",
        "numpy.random.default_rng",
        "numpy.set_printoptions",
        # a solve or decomposition per row takes a matrix built per row: batching it
        # means a stack of matrices, not one op
        "numpy.linalg.solve",
        "numpy.linalg.inv",
        "numpy.linalg.pinv",
        "numpy.linalg.lstsq",
        "numpy.linalg.eig",
        "numpy.linalg.eigh",
        "numpy.linalg.svd",
        "numpy.linalg.cholesky",
        "numpy.linalg.det",
        "numpy.linalg.slogdet",
    }
)
_FIRST_MATCH = frozenset({"numpy.where", "numpy.nonzero", "numpy.argwhere", "numpy.flatnonzero"})


SET_OPS = frozenset({"numpy.intersect1d", "numpy.isin", "numpy.in1d"})


def _counted(ctx, call) -> bool:
    outer = ctx.parent(ctx.parent(call))
    return isinstance(outer, cst.Call) and (
        (isinstance(outer.func, cst.Name) and outer.func.value == "len")
        or ctx.call_name(outer) in ("numpy.size", "numpy.sum", "numpy.count_nonzero")
    )


def first_match(ctx, call) -> Optional[cst.BaseExpression]:
    """The condition of ``np.min(np.where(cond))`` (the first index where it holds)."""
    if not isinstance(call, cst.Call) or len(call.args) != 1:
        return None
    qual = ctx.call_name(call)
    func = call.func
    if not (
        qual in ("numpy.min", "numpy.amin") or (isinstance(func, cst.Name) and func.value == "min")
    ):
        return None
    inner = call.args[0].value
    if isinstance(inner, cst.Subscript):
        inner = inner.value  # np.where(cond)[0]
    if (
        isinstance(inner, cst.Call)
        and ctx.call_name(inner) in _FIRST_MATCH
        and len(inner.args) == 1
    ):
        return inner.args[0].value
    return None


BUILTINS = frozenset(
    {
        "len",
        "range",
        "float",
        "int",
        "abs",
        "min",
        "max",
        "round",
        "zip",
        "enumerate",
        "bool",
        "sum",
        "pow",
    }
)
# Array/tensor methods that are math on the element.
MATH_METHODS = frozenset(
    {
        "sum",
        "mean",
        "max",
        "min",
        "std",
        "var",
        "prod",
        "dot",
        "argmax",
        "argmin",
        "cumsum",
        "clip",
        "round",
        "any",
        "all",
    }
)


class LoopFacts:
    """One pass over a loop body: elements read, results collected, blockers."""

    def __init__(self, ctx, tensors, helpers, walk: Walk, scope) -> None:
        self.ctx = ctx
        self.tensors = tensors
        self.helpers = helpers
        self.walk = walk
        self.scope = scope
        self.nodes = body_nodes(walk.node)
        self.index = set(walk.index)
        self.elements = set(walk.elements)
        self.derived: Dict[str, cst.BaseExpression] = {}  # name -> the value it was bound to
        self.sinks: List[Sink] = []
        self.windows: List[cst.Subscript] = []  # x[i:i + k] read by the loop index
        self.known_seed = False  # an element of an array the file shows to be one was read
        self.random = False  # NumPy draws per iteration
        self.shifted = False  # x[i + 1] read: a stencil (or a recurrence, checked apart)
        self.gathers: List[cst.Subscript] = []  # x[idx[i]], probs[i, y[i]]
        self.lookups: List[cst.Subscript] = []  # mapping[v] with mapping a dict
        self.why_not: Optional[str] = None  # set when the loop is not element work
        self._resolving: set = set()  # derived names being followed (uses_element)
        self._nested_loops()
        self._use_counter()
        if self.why_not is None:
            self._blockers()
        if self.why_not is None:
            _Flow(self).run()
            self._scan_sinks()

    def _scan_sinks(self) -> None:
        """Read every collected value once, so seeds, windows and gathers are known;
        a store into a known array by the loop index (``out[i] = ...``) shows array work too."""
        for sink in self.sinks:
            for part in (sink.value, sink.test):
                if part is not None:
                    self.uses_element(part)
                    for node in [part, *descendants(part)]:
                        if isinstance(node, cst.Subscript):
                            self.is_seed(node)  # every window and gather, not just the first
            target = sink.target
            if isinstance(target, cst.Subscript):
                self.index_uses_element(target)
                if any(
                    _bare_any(e, self.index) for e in target.slice
                ) and self.tensors.is_tensor_expr(target.value, self.scope):
                    self.known_seed = True

    def _nested_loops(self) -> None:
        """Inner ``for`` loops over ranges or over elements add index/element names."""
        for n in self.nodes:
            if isinstance(n, cst.While):
                self.why_not = "while"
            elif isinstance(n, cst.For):
                if not isinstance(n.target, cst.Name) or n.orelse is not None:
                    self.why_not = "inner loop"
                    continue
                inner = unwrap(self.ctx, n.iter)
                rng = range_call(inner)
                if rng is not None and range_size(rng) is not None:
                    self.index.add(n.target.value)
                elif isinstance(inner, cst.Name) and inner.value in self.elements:
                    self.elements.add(n.target.value)  # for v in row
                else:
                    self.why_not = "inner loop"

    def _use_counter(self) -> None:
        """``for k in np.arange(n)``: an index when used as one, else values."""
        counter = self.walk.counter
        if counter is None:
            return
        for n in self.nodes:
            if isinstance(n, cst.SubscriptElement) and _bare(n, counter):
                self.elements.discard(counter)
                self.index.add(counter)
                return

    # -- what stops it ----------------------------------------------------
    def _blockers(self) -> None:
        if self._column_loop():
            self.why_not = "per-column, vectorised body"  # diff = X - M[k]; R[:, k] * diff
            return
        if self._work_list():
            self.why_not = "work list"  # pool.map(f, [...]), " ".join([...])
            return
        index_uses = self._index_only_uses()
        for n in self.nodes:
            if isinstance(n, cst.Comparison) and self._compares_index_to_array(n):
                self.why_not = "per-class mask"  # np.sum(labels == k): vectorised per class
                return
            if (
                isinstance(n, cst.Name)
                and n.value in self.walk.opaque
                and n not in index_uses
                and not self._set_op_argument(n)
            ):
                self.why_not = "Python objects"  # for spec, obs in zip(specs, obs): spec.dtype
                return
            if isinstance(n, cst.Subscript) and self._keyed_by_walked_value(n):
                self.why_not = "lookup by key"  # for ch in text: codes[ch]
                return
            if isinstance(n, cst.AssignTarget) and _tiles(n.target, self.index):
                self.why_not = "tiling"  # grid[:, i * size:(i + 1) * size] = image: a mosaic
                return
            if _stringly(n):
                self.why_not = "strings"  # "%dk" % v, word != b"<pad>": text, not numbers
                return
            if isinstance(n, cst.AugAssign) and _list_valued(n.value):
                self.why_not = "Python list"  # inputs += [word] * n
                return
            if isinstance(n, cst.Subscript) and _decodes(self, n):
                self.why_not = "vocabulary decoding"  # id_to_word[i] for i in ids
                return
            if isinstance(n, _BLOCKING_STATEMENTS):
                self.why_not = type(n).__name__
            elif isinstance(n, cst.Call) and not self._allowed_call(n):
                self.why_not = "call " + self.ctx.code(n.func)
            elif isinstance(n, cst.ComparisonTarget) and isinstance(
                n.operator, (cst.In, cst.NotIn)
            ):
                self.why_not = "membership"  # Python containers
            elif isinstance(n, (cst.AssignTarget, cst.AugAssign)) and isinstance(
                n.target, cst.Attribute
            ):
                self.why_not = "object state"
            if self.why_not is not None:
                return

    def _column_loop(self) -> bool:
        """A loop over the columns of an array (``R[:, k]``: clusters, classes,
        features) whose body also computes with a whole array (``X - M[k]``): each
        iteration is already vectorised over the rows."""
        columns = any(
            isinstance(n, cst.Subscript)
            and len(n.slice) >= 2
            and _full_slice(n.slice[0])
            and any(_bare_any(e, self.index) for e in n.slice[1:])
            for n in self.nodes
        )
        if not columns:
            return False
        for n in self.nodes:
            if (
                isinstance(n, cst.Name)
                and n.value not in self.index | self.elements
                and _whole_read(self.ctx, n)
                and not isinstance(self.ctx.parent(n), cst.Call)  # f(...) is a call, not data
                and self.tensors.is_tensor_expr(n, self.scope)
            ):
                return True
        return False

    def _work_list(self) -> bool:
        """A comprehension handed whole to ``pool.map``/``map`` (work items) or to
        ``str.join`` (text)."""
        node = self.walk.node
        if not isinstance(node, (cst.ListComp, cst.GeneratorExp)):
            return False
        arg = self.ctx.parent(node)
        call = self.ctx.parent(arg) if isinstance(arg, cst.Arg) else arg
        if not isinstance(call, cst.Call):
            return False
        func = call.func
        name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
        return name in ("map", "imap", "imap_unordered", "starmap", "map_async", "join")

    def _index_only_uses(self) -> set:
        """Name nodes used as a plain subscript index (``target[action]``, ``x[int(i)]``)."""
        found = set()
        for n in self.nodes:
            if isinstance(n, cst.Subscript):
                for e in n.slice:
                    name = index_name(e)
                    if name is not None:
                        found.add(name)
        return found

    def _set_op_argument(self, name: cst.Name) -> bool:
        """``np.intersect1d(truth, approx)``: a row of a zipped partner, matched as a set."""
        arg = self.ctx.parent(name)
        call = self.ctx.parent(arg) if isinstance(arg, cst.Arg) else None
        if isinstance(call, cst.Call) and self.ctx.call_name(call) in SET_OPS:
            self.elements.add(name.value)
            return True
        return False

    def _keyed_by_walked_value(self, sub: cst.Subscript) -> bool:
        """A value walked from a list used to index something not shown to be an array."""
        hits = [e for e in sub.slice if _bare_any(e, self.walk.gather)]
        if not hits:
            return False
        if self.tensors.is_tensor_expr(sub.value, self.scope):
            return False
        return len(hits) < 2 or len(sub.slice) < 2  # m[i, j] for i, j in zip(...): an array

    def _compares_index_to_array(self, comparison: cst.Comparison) -> bool:
        operands = [comparison.left, *(c.comparator for c in comparison.comparisons)]
        index = [o for o in operands if isinstance(o, cst.Name) and o.value in self.index]
        arrays = [
            o
            for o in operands
            if not isinstance(o, cst.Subscript) and self.tensors.is_tensor_expr(o, self.scope)
        ]
        return bool(index and arrays)

    def _allowed_call(self, call: cst.Call) -> bool:
        qual = self.ctx.call_name(call)
        if qual in _FIRST_MATCH and first_match(self.ctx, self.ctx.parent(self.ctx.parent(call))):
            return True  # np.min(np.where(row >= t)): the first hit, one value per row
        if qual == "numpy.intersect1d":
            return _counted(self.ctx, call)  # len(np.intersect1d(a, b)): an overlap count
        if qual is not None:
            if qual.startswith("numpy.random.") and qual not in _BLOCKING:
                self.random = True
                return True
            if qual.startswith("math."):
                return True
            if not qual.startswith(TENSOR_ROOTS):
                return False
            return not (qual in _BLOCKING or qual.startswith(_BLOCKING_PREFIXES))
        func = call.func
        if isinstance(func, cst.Name):
            if func.value in BUILTINS:
                return True
            return self.helpers.kind(self.tensors.function_def(call, self.scope)) is not None
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method == "append":
                return True
            if method in MATH_METHODS or method in _PLAIN_METHODS:
                return True
        return False

    # -- what reads an element ----------------------------------------------
    def uses_element(self, expr, draws: bool = True, depth: int = 0) -> bool:
        """Whether ``expr``'s value depends on an element (not only on indices); with
        ``draws=False`` a random draw (or a name computed only from draws) does not count."""
        stack = [expr]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Name):
                if node.value in self.elements:
                    return True
                if node.value in self.derived:
                    if draws or depth > 3 or node.value in self._resolving:
                        return True
                    self._resolving.add(node.value)
                    try:
                        if self.uses_element(self.derived[node.value], False, depth + 1):
                            return True
                    finally:
                        self._resolving.discard(node.value)
            elif isinstance(node, cst.Subscript):
                if self.is_seed(node):
                    return True
                stack.append(node.value)
            elif isinstance(node, cst.Attribute):
                if node.attr.value not in ("shape", "ndim", "dtype", "size"):
                    stack.append(node.value)
            elif isinstance(node, cst.Call) and self._is_draw(node):
                if draws and not _vector_draw(node):
                    return True  # a random draw is a new value per iteration
                stack.extend(a.value for a in node.args)
            else:
                stack.extend(children(node))
        return False

    def _is_draw(self, call: cst.Call) -> bool:
        qual = self.ctx.call_name(call) or ""
        return qual.startswith("numpy.random.") and qual not in _BLOCKING

    def is_seed(self, sub: cst.Subscript) -> bool:
        """``x[i]``, ``x[0, i]``, ``x[i, :]``, ``x[i + 1]``, ``x[i:i + k]`` of an array,
        ``row[0]`` of an element."""
        hits = [e for e in sub.slice if self.index & _element_names(e)]
        base = sub.value
        if isinstance(base, cst.Name) and (
            base.value in self.elements or base.value in self.derived
        ):
            return True
        if not hits:
            if self.index_uses_element(sub) and self._array_base(base, len(sub.slice)):
                self.gathers.append(sub)  # x[idx[i]]
                return True
            if (
                isinstance(base, cst.Name)
                and self.index_uses_element(sub)
                and self.tensors.is_dict_name(base.value, self.scope)
            ):
                self.lookups.append(sub)  # codes[v]: a Python dict per element
                return True
            return False
        window = any(isinstance(e.slice, cst.Slice) for e in hits)
        if not self._array_base(base, len(sub.slice)) and not (
            window and isinstance(base, cst.Name)
        ):
            return False  # (a window of a list is copied the same way as one of an array)
        for e in hits:
            if isinstance(e.slice, cst.Slice):
                self.windows.append(sub)
            elif not _bare_any(e, self.index):
                self.shifted = True  # x[i + 1]
        gathered = [e for e in hits if _bare_any(e, self.walk.gather)]
        if gathered:
            self.gathers.append(sub)  # x[idx] for idx in idxs
            if len(gathered) >= 2:
                self.known_seed = True  # m[i, j] for i, j in zip(users, items): an array
        if any(
            isinstance(e.slice, cst.Index)
            and not _bare_any(e, self.index)
            and self.uses_element(e.slice.value)
            for e in sub.slice
        ):
            self.gathers.append(sub)  # probs[i, y[i]]
        return True

    def _array_base(self, base, width: int) -> bool:
        code = self.ctx.code(base)
        if isinstance(base, cst.Name) and (
            base.value in self.elements or base.value in self.derived
        ):
            return True
        if self.tensors.is_tensor_expr(base, self.scope):
            self.known_seed = True
            return True
        if code == self.walk.tensor:
            return True
        if isinstance(base, cst.Subscript):
            return self._array_base(base.value, 1)  # x[i][j]
        # probs[i, y[i]]: only arrays take a tuple index (not lists; .loc is pandas).
        return width >= 2 and not (
            isinstance(base, cst.Attribute) and base.attr.value in ("loc", "iloc", "at", "iat")
        )

    def index_uses_element(self, sub: cst.Subscript) -> bool:
        """``out[y[i]]`` / ``onehot[val, idx]``: an index computed from element values
        (``y[i]`` counts even when ``y`` may be a list: it indexes all the same); a
        random index (``x[np.random.choice(n)]``) picks a row, it reads no data."""
        return any(
            isinstance(e.slice, cst.Index)
            and (
                self.uses_element(e.slice.value, draws=False)
                or self._indexed_by_loop(e.slice.value)
            )
            for e in sub.slice
        )

    def array_target(self, sub: cst.Subscript) -> bool:
        """A write into an array (not a dict): a known array, or an element row."""
        base = sub.value
        if isinstance(base, cst.Name) and (
            base.value in self.elements or base.value in self.derived
        ):
            return True
        return self.tensors.is_tensor_expr(base, self.scope)

    def _indexed_by_loop(self, expr) -> bool:
        """``idx[i]`` with ``i`` a true loop index (not a value walked from a list)."""
        return (
            isinstance(expr, cst.Subscript)
            and isinstance(expr.value, cst.Name)
            and any(_bare_any(e, self.index - self.walk.gather) for e in expr.slice)
        )


class _Flow:
    """The body's statements in order: derived names, sinks, carried values."""

    def __init__(self, facts: LoopFacts) -> None:
        self.facts = facts
        self.assigned = _assigned_names(facts)  # names the body writes
        self.carried: set = set()  # read before written in an iteration
        self.reads_of: Dict[str, list] = {}  # carried candidates -> statements reading them
        self.writes_of: Dict[str, list] = {}

    def run(self) -> None:
        facts = self.facts
        node = facts.walk.node
        if isinstance(node, (cst.ListComp, cst.GeneratorExp)):
            test = node.for_in.ifs[0].test if node.for_in.ifs else None
            facts.sinks.append(Sink("element", node, node.elt, test=test))
        else:
            self._suite(node.body.body, set(facts.index | facts.elements), None)
        self._recurrences()

    def _suite(self, statements, written: set, test) -> set:
        for stmt in statements:
            written = self._statement(stmt, written, test)
        return written

    def _statement(self, stmt, written: set, test) -> set:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                written = self._simple(small, written, test)
            return written
        if isinstance(stmt, cst.If):
            self._reads(stmt.test, written, stmt)
            inner = stmt.test if test is None else test
            then = self._suite(stmt.body.body, set(written), inner)
            other = set(written)
            if stmt.orelse is not None:
                if isinstance(stmt.orelse, cst.If):
                    other = self._statement(stmt.orelse, set(written), inner)
                else:
                    other = self._suite(stmt.orelse.body.body, set(written), inner)
            return written | (then & other)
        if isinstance(stmt, cst.For):
            self._reads(stmt.iter, written, stmt)
            return written | self._suite(stmt.body.body, set(written) | names_in(stmt.target), test)
        return written

    def _simple(self, small, written: set, test) -> set:
        facts = self.facts
        if isinstance(small, cst.Assign):
            self._reads(small.value, written, small)
            for target in small.targets:
                written = self._bind(target.target, small.value, small, written, test)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self._reads(small.value, written, small)
            written = self._bind(small.target, small.value, small, written, test)
        elif isinstance(small, cst.AugAssign):
            self._reads(small.value, written, small)
            self._reads(small.target, written, small)
            self._aug(small, test)
            if isinstance(small.target, cst.Name):
                written = written | {small.target.value}
        elif isinstance(small, cst.Expr):
            self._reads(small.value, written, small)
            call = small.value
            if (
                isinstance(call, cst.Call)
                and isinstance(call.func, cst.Attribute)
                and call.func.attr.value == "append"
                and len(call.args) == 1
            ):
                facts.sinks.append(Sink("append", small, call.args[0].value, call.func.value, test))
        return written

    def _bind(self, target, value, stmt, written: set, test) -> set:
        facts = self.facts
        if isinstance(target, cst.Name) and _self_update(target.value, value):
            aug = cst.AugAssign(target, cst.AddAssign(), value.right)  # n = n + 1
            self._aug(aug, test, stmt)
            return written | {target.value}
        if isinstance(target, cst.Name):
            if facts.uses_element(value):
                facts.derived[target.value] = value
            else:
                facts.derived.pop(target.value, None)
            self.writes_of.setdefault(target.value, []).append(stmt)
            return written | {target.value}
        if isinstance(target, (cst.Tuple, cst.List)):
            parts = _unpacked(value, len(target.elements))
            for element, part in zip(target.elements, parts):
                written = self._bind(element.value, part, stmt, written, test)
            return written
        if isinstance(target, cst.Subscript):
            scatter = facts.index_uses_element(target) and facts.array_target(target)
            facts.sinks.append(Sink("scatter" if scatter else "store", stmt, value, target, test))
        return written

    def _aug(self, stmt: cst.AugAssign, test, node=None) -> None:
        facts = self.facts
        target = stmt.target
        node = node or stmt
        if isinstance(target, cst.Subscript):
            scatter = facts.index_uses_element(target) and facts.array_target(target)
            kind = "scatter-add" if scatter else "store-add"
            if (
                not scatter
                and facts.index
                and not set(names_in(target)) & facts.index
                and isinstance(stmt.operator, (cst.AddAssign, cst.SubtractAssign))
            ):
                kind = "reduce"  # `total[j] += x[t, j]` over t: one cell accumulates
            facts.sinks.append(Sink(kind, node, stmt.value, target, test))
            return
        if not isinstance(target, cst.Name):
            return
        self.writes_of.setdefault(target.value, []).append(node)
        if target.value in facts.derived or target.value in facts.index:
            return  # an element updated in place, or the while counter
        if _is_one(stmt.value) and isinstance(stmt.operator, cst.AddAssign):
            facts.sinks.append(Sink("count", node, None, target, test))
        elif isinstance(stmt.operator, (cst.AddAssign, cst.SubtractAssign)):
            facts.sinks.append(Sink("reduce", node, stmt.value, target, test))

    def _reads(self, expr, written: set, stmt) -> None:
        for name in names_in(expr):
            if name in self.assigned and name not in written:
                self.carried.add(name)
                self.reads_of.setdefault(name, []).append(stmt)

    def _recurrences(self) -> None:
        """A value carried to the next iteration that is not a plain accumulator."""
        facts = self.facts
        for name in self.carried:
            writes = self.writes_of.get(name, [])
            if name in facts.index and isinstance(facts.walk.node, cst.While):
                continue  # the while counter
            if all(_accumulates(w, name) for w in writes) and all(
                r in writes for r in self.reads_of.get(name, [])
            ):
                continue  # acc += v, n = n + 1: a reduction, not a recurrence
            if all(_re_view(w, name) for w in writes):
                continue  # mv = mv.reshape(d, 1)
            facts.why_not = "recurrence on " + name
            return
        written: Dict[str, set] = {}
        for sink in facts.sinks:
            if sink.target is not None and isinstance(sink.target, cst.Subscript):
                base = facts.ctx.code(sink.target.value)
                written.setdefault(base, set()).add(_index_code(facts.ctx, sink.target))
        for n in facts.nodes:
            if isinstance(n, cst.Subscript):
                base = facts.ctx.code(n.value)
                if base in written and _index_code(facts.ctx, n) not in written[base]:
                    facts.why_not = "recurrence on " + base  # y[t] = a * y[t - 1]
                    return
            elif isinstance(n, cst.Name) and n.value in written and _whole_read(facts.ctx, n):
                facts.why_not = "recurrence on " + n.value  # h = W.T.dot(x); W[:, k] += ...
                return


# Draws that make a whole array per call (``size=``, a shape), not one value.
_SHAPED_DRAWS = frozenset({"randn", "rand", "random", "random_sample", "standard_normal", "sample"})
_SIZE_POSITION = {"choice": 1, "permutation": 99, "shuffle": 99}


def _vector_draw(call: cst.Call) -> bool:
    """``np.random.randn(100, 3)``, ``np.random.choice(x, size=n)``,
    ``np.random.normal(0, 1, n)``: one array per call."""
    if any(a.keyword is not None and a.keyword.value in ("size", "shape") for a in call.args):
        return True
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else ""
    positional = [a for a in call.args if a.keyword is None]
    if name in _SHAPED_DRAWS:
        return bool(positional)
    return len(positional) > _SIZE_POSITION.get(name, 2)


def _whole_read(ctx, name: cst.Name) -> bool:
    """``W`` read as a whole (``W.T.dot(x)``, ``f(W)``), not ``W[i]`` nor ``W.shape``."""
    parent = ctx.parent(name)
    if isinstance(parent, cst.Subscript) and parent.value is name:
        return False
    if isinstance(parent, cst.Attribute):
        return parent.value is name and parent.attr.value not in ("shape", "ndim", "dtype", "size")
    return not isinstance(parent, (cst.AssignTarget, cst.Param, cst.Arg)) or (
        isinstance(parent, cst.Arg) and parent.value is name
    )


def index_name(element: cst.SubscriptElement) -> Optional[cst.Name]:
    """``i`` of a subscript element ``i`` or ``int(i)``."""
    if not isinstance(element.slice, cst.Index):
        return None
    value = element.slice.value
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value == "int"
        and len(value.args) == 1
    ):
        value = value.args[0].value
    return value if isinstance(value, cst.Name) else None


def _bare(element: cst.SubscriptElement, name: str) -> bool:
    found = index_name(element)
    return found is not None and found.value == name


_DECODING = ("word", "vocab", "token", "char", "inverse", "reverse", "idx2", "id2", "index2")


def _full_slice(element: cst.SubscriptElement) -> bool:
    sl = element.slice
    return isinstance(sl, cst.Slice) and sl.lower is None and sl.upper is None


def _decodes(facts, sub: cst.Subscript) -> bool:
    """``id_to_word[v]`` / ``inverse_map[token]``: an element used as a key into a
    dict named as a vocabulary: decoding ids into text."""
    base = sub.value
    if not isinstance(base, cst.Name) or facts.tensors.is_tensor_expr(base, facts.scope):
        return False
    name = base.value.lower()
    return any(word in name for word in _DECODING) and any(
        isinstance(e.slice, cst.Index) and facts.uses_element(e.slice.value) for e in sub.slice
    )


def _stringly(node) -> bool:
    """String formatting (``"%d" % v``) or a comparison with a string literal."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo):
        return isinstance(node.left, (cst.SimpleString, cst.ConcatenatedString))
    if isinstance(node, cst.Comparison):
        operands = [node.left, *(c.comparator for c in node.comparisons)]
        return any(isinstance(o, (cst.SimpleString, cst.ConcatenatedString)) for o in operands)
    return False


def _list_valued(expr) -> bool:
    """``[word] * n`` / ``[0] + seq``: a Python list being built."""
    if isinstance(expr, (cst.List, cst.ListComp)):
        return True
    return isinstance(expr, cst.BinaryOperation) and (
        _list_valued(expr.left) or _list_valued(expr.right)
    )


def _tiles(target, index: set) -> bool:
    """A store into a block that moves with the loop index (``out[i * k:(i + 1) * k]``)."""
    return isinstance(target, cst.Subscript) and any(
        isinstance(e.slice, cst.Slice) and names_in(e.slice) & index for e in target.slice
    )


def _bare_any(element: cst.SubscriptElement, names: set) -> bool:
    return any(_bare(element, n) for n in names)


def _element_names(element: cst.SubscriptElement) -> set:
    """Names a subscript element uses as a position (``i``, ``i + 1``, ``i:i + k``)."""
    sl = element.slice
    if isinstance(sl, cst.Index):
        value = sl.value
        named = index_name(element)
        if named is not None:
            return {named.value}
        if isinstance(value, cst.BinaryOperation) and isinstance(
            value.operator, (cst.Add, cst.Subtract)
        ):
            return names_in(value)
        return set()
    return names_in(sl)


def _assigned_names(facts) -> set:
    names = set()
    for n in facts.nodes:
        if isinstance(n, cst.AssignTarget):
            names |= _target_names(n.target)
        elif isinstance(n, (cst.AugAssign, cst.AnnAssign)):
            names |= _target_names(n.target)
    return names


def _target_names(target) -> set:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        out = set()
        for element in target.elements:
            out |= _target_names(element.value)
        return out
    return set()


def _self_update(name: str, value) -> bool:
    """``n = n + v`` with v free of n."""
    return (
        isinstance(value, cst.BinaryOperation)
        and isinstance(value.operator, cst.Add)
        and isinstance(value.left, cst.Name)
        and value.left.value == name
        and name not in names_in(value.right)
    )


def _unpacked(value, count: int) -> list:
    """What each of ``count`` unpacked names gets: ``a, b = x, y`` or ``a, b = row``."""
    if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == count:
        return [e.value for e in value.elements]
    return [
        cst.Subscript(value, [cst.SubscriptElement(cst.Index(cst.Integer(str(k))))])
        for k in range(count)
    ]


def _is_one(expr) -> bool:
    return isinstance(expr, cst.Integer) and expr.value == "1"


def _accumulates(stmt, name: str) -> bool:
    """``acc += v`` / ``acc = acc + v`` / ``best = max(best, v)`` with v free of acc."""
    if isinstance(stmt, cst.AugAssign):
        return name not in names_in(stmt.value)
    if not isinstance(stmt, cst.Assign):
        return False
    value = stmt.value
    if isinstance(value, cst.BinaryOperation) and isinstance(
        value.operator, (cst.Add, cst.Subtract, cst.Multiply)
    ):
        for own, other in ((value.left, value.right), (value.right, value.left)):
            if isinstance(own, cst.Name) and own.value == name and name not in names_in(other):
                return True
    if isinstance(value, cst.Call) and len(value.args) == 2:
        func = value.func
        fname = (
            func.value
            if isinstance(func, cst.Name)
            else (func.attr.value if isinstance(func, cst.Attribute) else "")
        )
        if fname in ("max", "min", "maximum", "minimum"):
            args = [a.value for a in value.args]
            return (
                any(isinstance(a, cst.Name) and a.value == name for a in args)
                and sum(name in names_in(a) for a in args) == 1
            )
    return False


def _re_view(stmt, name: str) -> bool:
    """``mv = mv.reshape(d, 1)``: the same values seen differently, not a new value."""
    if not isinstance(stmt, cst.Assign):
        return False
    value = stmt.value
    if isinstance(value, cst.Tuple):
        values = [e.value for e in value.elements]
        targets = stmt.targets[0].target
        if isinstance(targets, cst.Tuple) and len(targets.elements) == len(values):
            for t, v in zip(targets.elements, values):
                if isinstance(t.value, cst.Name) and t.value.value == name:
                    value = v
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
        if value.func.attr.value not in _PLAIN_METHODS:
            return False
        if any(name in names_in(a.value) for a in value.args):
            return False
        value = value.func.value
    return isinstance(value, cst.Name) and value.value == name


def _index_code(ctx, sub: cst.Subscript) -> str:
    return ", ".join(ctx.code(e.slice).strip() for e in sub.slice)


# -- the module's own functions -------------------------------------------


class Helpers:
    """Which functions of the module are plain array math (``ctx.shared(Helpers)``):
    "elementwise" when built only from element-wise ops (so calling it on a whole
    array does the loop's work), "numeric" when it computes with arrays and
    numbers only (loops, reductions) but needs rewriting to take all rows."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self._kinds: dict = {}

    def kind(self, func) -> Optional[str]:
        if func is None:
            return None
        if func not in self._kinds:
            self._kinds[func] = None  # recursion guard
            self._kinds[func] = self._kind(func)
        return self._kinds[func]

    def _kind(self, func: cst.FunctionDef) -> Optional[str]:
        if func.asynchronous is not None or not func.params.params:
            return None
        if isinstance(self.ctx.parent(self.ctx.parent(func)), cst.ClassDef):
            return None
        elementwise = True
        for n in descendants(func.body, skip_scopes=True):
            if isinstance(n, _NOT_ELEMENTWISE):
                elementwise = False
            elif isinstance(n, _BLOCKING_STATEMENTS) and not isinstance(n, cst.Return):
                return None
            elif isinstance(n, (cst.AssignTarget, cst.AugAssign)) and isinstance(
                n.target, cst.Attribute
            ):
                return None
            elif isinstance(n, cst.Call):
                call_kind = self._call_kind(n)
                if call_kind is None:
                    return None
                elementwise = elementwise and call_kind == "elementwise"
        return "elementwise" if elementwise else "numeric"

    def _call_kind(self, call: cst.Call) -> Optional[str]:
        qual = self.ctx.call_name(call)
        if qual is not None:
            if qual.startswith("math."):
                return "elementwise"
            if (
                not qual.startswith(TENSOR_ROOTS)
                or qual in _BLOCKING
                or qual.startswith(_BLOCKING_PREFIXES)
            ):
                return None
            if qual.startswith("numpy.random."):
                return None
            return "elementwise" if qual.rsplit(".", 1)[-1] in ELEMENTWISE else "numeric"
        func = call.func
        if isinstance(func, cst.Name):
            if func.value in BUILTINS:
                return "numeric"
            inner = [d for d in self.ctx.nodes(cst.FunctionDef) if d.name.value == func.value]
            return self.kind(inner[0]) if len(inner) == 1 else None
        if isinstance(func, cst.Attribute) and (
            func.attr.value in MATH_METHODS
            or func.attr.value in _PLAIN_METHODS
            or func.attr.value == "append"
        ):
            return "numeric"
        return None


_NOT_ELEMENTWISE = node_types(
    "ListComp", "GeneratorExp", "For", "While", "If", "IfExp", "List", "Subscript"
)
ELEMENTWISE = frozenset(
    {
        "exp",
        "log",
        "log1p",
        "log2",
        "log10",
        "expm1",
        "exp2",
        "sqrt",
        "rsqrt",
        "abs",
        "absolute",
        "fabs",
        "square",
        "sin",
        "cos",
        "tan",
        "tanh",
        "sinh",
        "cosh",
        "arctan",
        "arcsin",
        "arccos",
        "atan",
        "asin",
        "acos",
        "sigmoid",
        "maximum",
        "minimum",
        "clip",
        "clip_by_value",
        "cast",
        "round",
        "floor",
        "ceil",
        "sign",
        "power",
        "pow",
        "multiply",
        "add",
        "subtract",
        "divide",
        "true_divide",
        "truediv",
        "relu",
        "softplus",
        "negative",
        "reciprocal",
        "erf",
        "isnan",
        "isfinite",
        "logical_not",
        "logical_and",
        "logical_or",
        "greater",
        "less",
        "equal",
        "heaviside",
    }
)
