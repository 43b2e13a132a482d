"""What a loop header walks: the rows or elements of an array, or indices into one.

A loop *walks* an array when its header goes over the array's rows (``for
row in x``, ``enumerate(x)``, ``zip(x, y)``, ``sorted(x)``) or over indices
(``range(len(x))``, ``range(x.shape[0])``, ``range(n)``, ``while i < n``,
``for k in np.arange(n)``). ``walk_of(ctx, loop)`` says what it binds: index
names, element names (and the array each walks), the array the trip count
is a size of. Loops over anything else (a list, a dataset, files) walk
nothing here; how many iterations a loop makes is ``trips.py``'s question.
"""

from __future__ import annotations

from typing import Dict, Optional, Set

from tflint_perf.analysis.api import arraymath as am
from tflint_perf.analysis.arrays import Arrays
from tflint_perf.analysis.trips import Trips
from tflint_perf.engine import cst


class Walk:
    """What a loop header walks."""

    def __init__(self, node) -> None:
        self.node = node
        self.var = ""  # the loop variable named in messages
        self.tensor: Optional[str] = None  # code of the array walked, if one is
        self.index: Set[str] = set()  # index variables (``x[i]`` is an element)
        self.elements: Set[str] = set()  # names bound to elements or rows
        self.sized = False  # the trip count is a size of a known array
        self.size: Optional[cst.BaseExpression] = None  # the range bound, if a range
        self.start: Optional[cst.BaseExpression] = None  # the range start, if not 0
        self.whole: Dict[str, str] = {}  # element name -> code of the array it comes from
        self.counter: Optional[str] = None  # for k in np.arange(n): k
        self.step: Optional[cst.AugAssign] = None  # the `i += 1` of a while loop
        self.opaque: Set[str] = set()  # names bound to things not shown to be arrays
        self.gather: Set[str] = set()  # of those, the ones that may index arrays (for i in idxs)
        self.reordered = False  # sorted()/reversed(): the elements in another order


def unwrap(ctx, expr):
    """``tqdm(range(n))`` -> ``range(n)``; ``sorted(x, reverse=True)`` -> ``x``."""
    while isinstance(expr, cst.Call) and expr.args and expr.args[0].keyword is None:
        func = expr.func
        name = func.value if isinstance(func, cst.Name) else None
        qual = ctx.call_name(expr) or ""
        if name in am.ITERABLE_WRAPPERS or qual.split(".")[0] in am.ITERABLE_WRAPPERS:
            expr = expr.args[0].value
        else:
            break
    return expr


def builtin_call(expr, name: str) -> Optional[cst.Call]:
    """``expr`` when it calls the builtin ``name`` (``range(...)``, ``enumerate(...)``)."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == name:
        return expr
    return None


def walk_of(ctx, node) -> Optional[Walk]:
    """The walk of a ``for``, ``while`` or comprehension, or None."""
    if isinstance(node, cst.For):
        if node.asynchronous is not None or node.orelse is not None:
            return None
        target, iterable = node.target, node.iter
    elif isinstance(node, (cst.ListComp, cst.GeneratorExp)):
        comp = node.for_in
        if comp.inner_for_in is not None or comp.asynchronous is not None:
            return None
        target, iterable = comp.target, comp.iter
    elif isinstance(node, cst.While):
        return _while(ctx, node)
    else:
        return None
    walk = Walk(node)
    if not _Binder(ctx, walk).bind(target, iterable):
        return None
    if not walk.index and not walk.elements:
        return None
    names = _target_names(target)
    elements = [n for n in names if n in walk.elements]
    walk.var = (elements or names or [""])[0]
    return walk


def _target_names(target) -> list:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _target_names(e.value)]
    return []


def _reorders(expr) -> bool:
    """``sorted(x)`` / ``reversed(x)``: the elements in another order."""
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.args:
        if expr.func.value in ("sorted", "reversed"):
            return True
        if expr.func.value not in am.ITERABLE_WRAPPERS:
            return False
        expr = expr.args[0].value
    return False


class _Binder:
    """Records what each name of a loop target gets from the iterable."""

    def __init__(self, ctx, walk: Walk) -> None:
        self.ctx = ctx
        self.walk = walk
        self.arrays: Arrays = ctx.shared(Arrays)
        self.trips: Trips = ctx.shared(Trips)

    def bind(self, target, original) -> bool:
        """False if the header is not array work."""
        ctx, walk = self.ctx, self.walk
        iterable = unwrap(ctx, original)
        if _reorders(original):
            walk.reordered = True
        rng = builtin_call(iterable, "range")
        if rng is not None:
            return self._range(target, rng)
        enum = builtin_call(iterable, "enumerate")
        if enum is not None:
            if (
                len(enum.args) != 1
                or not isinstance(target, cst.Tuple)
                or len(target.elements) != 2
                or not isinstance(target.elements[0].value, cst.Name)
            ):
                return False
            walk.index.add(target.elements[0].value.value)
            return self.bind(target.elements[1].value, enum.args[0].value)
        zipped = builtin_call(iterable, "zip")
        if zipped is not None:
            return self._zip(target, zipped)
        if self.arrays.is_counter(iterable):
            if not isinstance(target, cst.Name) or self.trips.iterable(iterable).tiny:
                return False
            walk.sized = True
            walk.elements.add(target.value)  # np.arange(...): values (an index if used as one)
            walk.tensor = walk.tensor or ctx.code(iterable)
            if not _reorders(original):
                walk.whole[target.value] = ctx.code(iterable)
            walk.counter = target.value
            return True
        if self.arrays.ragged(iterable):
            return False  # token-id lists of different lengths
        if self.arrays.spectrum(iterable):
            return False  # eigenvalues: one per feature, not per sample
        if self.arrays.model_output(iterable):
            return False  # a model's outputs (or its batch), not rows of data
        if not self.arrays.is_array(iterable):
            return self._indices(target, original)
        if self.trips.iterable(iterable).tiny:
            return False
        names = _target_names(target)
        if not names or not isinstance(target, (cst.Name, cst.Tuple)):
            return False
        walk.elements.update(names)
        walk.tensor = walk.tensor or ctx.code(iterable)
        if isinstance(target, cst.Name) and not _reorders(original):
            walk.whole[target.value] = ctx.code(iterable)
        walk.sized = True
        return True

    def _indices(self, target, original) -> bool:
        """``for idx in idxs`` over something not shown to be an array: usable only as
        indices into arrays (``x[idx]``), a gather; any other use of it blocks (see
        ``LoopFacts``)."""
        walk = self.walk
        iterable = unwrap(self.ctx, original)
        if not isinstance(target, cst.Name) or not isinstance(
            iterable, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)
        ):
            return False
        if builtin_call(iterable, "range") is not None or _reorders(original):
            return False
        walk.index.add(target.value)
        walk.opaque.add(target.value)
        walk.gather.add(target.value)
        walk.whole[target.value] = self.ctx.code(iterable)
        return True

    def _zip(self, target, call) -> bool:
        walk = self.walk
        args = [a for a in call.args if a.keyword is None and not a.star]
        if len(args) != len(call.args) or not args:
            return False
        if isinstance(target, cst.Name):
            if not all(self.arrays.is_array(unwrap(self.ctx, a.value)) for a in args):
                return False
            walk.elements.add(target.value)  # for row in zip(a, b): row[0], row[1]
            walk.tensor = walk.tensor or self.ctx.code(args[0].value)
            walk.sized = True
            return True
        if not isinstance(target, cst.Tuple) or len(target.elements) != len(args):
            return False
        found = False
        for element, arg in zip(target.elements, args):
            if self.bind(element.value, arg.value):
                found = True
            else:
                walk.opaque.update(_target_names(element.value))  # zip(specs, arrays)
        return found and bool(walk.elements or walk.gather)

    def _range(self, target, rng: cst.Call) -> bool:
        walk = self.walk
        if not isinstance(target, cst.Name):
            return False
        bounds = range_bounds(rng)
        if bounds is None:
            return False
        walk.start, walk.size = bounds
        walk.index.add(target.value)
        array = self.arrays.rows_of(walk.size)
        if array is not None:
            if self.trips.iterable(array).tiny:
                return False
            walk.tensor = walk.tensor or self.ctx.code(array)
            walk.sized = True
        return True


def range_bounds(call: cst.Call):
    """(start or None, stop) of ``range(n)``, ``range(a, n)``, ``range(n - 1, -1, -1)``
    (then ``(None, n)``: every index once); None for other steps (chunks) and keyword
    or starred arguments."""
    args = call.args
    if any(a.keyword is not None or a.star for a in args) or not args:
        return None
    if len(args) == 1:
        return None, args[0].value
    if len(args) == 2:
        return args[0].value, args[1].value
    step = args[2].value
    if isinstance(step, cst.Integer) and step.value == "1":
        return args[0].value, args[1].value
    if (
        isinstance(step, cst.UnaryOperation)
        and isinstance(step.operator, cst.Minus)
        and isinstance(step.expression, cst.Integer)
        and step.expression.value == "1"
    ):
        return None, args[0].value  # reversed: from n - 1 down to 0 (the stop is -1)
    return None


def _while(ctx, node: cst.While) -> Optional[Walk]:
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
    if len(steps) != 1:
        return None
    walk = Walk(node)
    walk.var = var
    walk.index.add(var)
    walk.size = comp.comparator
    walk.step = steps[0]
    array = ctx.shared(Arrays).rows_of(comp.comparator)
    if array is not None:
        walk.tensor = ctx.code(array)
        walk.sized = True
    return walk


def walks_distinct_values(ctx, walk: Walk) -> bool:
    """The loop walks the distinct values of something (``np.unique(y)``,
    ``set(labels)``, ``sorted(set(labels))``): one iteration per class."""
    node = walk.node
    it = unwrap(ctx, node.iter) if isinstance(node, cst.For) else None
    for _ in range(2):
        if not isinstance(it, cst.Call):
            return False
        qual = ctx.call_name(it) or ""
        if qual.startswith(am.ROOTS) and qual.rsplit(".", 1)[-1] in am.DISTINCT_VALUES:
            return True
        name = it.func.value if isinstance(it.func, cst.Name) else None
        if name == "set":
            return True
        if name != "sorted" or not it.args:
            return False
        it = it.args[0].value  # sorted(set(labels))
    return False
