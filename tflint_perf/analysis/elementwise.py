"""What a loop body does with the elements of the array its header walks.

The body *reads elements* (``x[i]``, ``x[0, i]``, ``row``, and names computed
from them) and *collects* results: ``out.append(v)``, ``out[i] = v``, ``acc
+= v``, ``n += 1`` under a test, ``out[idx[i]] += v``. ``LoopFacts`` records,
in one pass over the body, what is read and what is collected, and whatever
makes the loop something other than independent work per element (a
``Blocker``): a recurrence (a value carried from one iteration to the next,
an array read at a shifted index where it is written), I/O, object state,
calls the file does not show to be array math, text, Python containers.

Names and their values come from the semantic model (``semantic.py``); what
a call does to array data from ``api.arraymath``; the module's own functions
from ``array_functions.py``; which reads are elements from ``element_reads.py``;
the results collected from ``body_flow.py``.
"""

from __future__ import annotations

import enum
from typing import List, Optional, Set

from tflint_perf.analysis.api import Kind
from tflint_perf.analysis.api import arraymath as am
from tflint_perf.analysis.array_functions import ArrayFunctions
from tflint_perf.analysis.arrays import Arrays
from tflint_perf.analysis.body_flow import BodyFlow, one_item
from tflint_perf.analysis.element_reads import ElementReads, bare, bare_any, index_name
from tflint_perf.analysis.semantic import BindingKind, SemanticModel
from tflint_perf.analysis.walks import (
    Walk,
    builtin_call,
    range_bounds,
    unwrap,
    walks_distinct_values,
)
from tflint_perf.engine import cst
from tflint_perf.engine.nodes import is_none_test, node_types
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.walk import descendants


class Blocker(enum.Enum):
    """Why a loop is not independent work per element; ``reason`` for ``tflint-perf why``."""

    INNER_LOOP = ("an inner loop over something else", Reason.UNRESOLVED)
    COLUMNS = ("a loop over columns whose body is already vectorised", Reason.ALREADY_DONE)
    PER_CLASS = ("a mask per class value, already vectorised", Reason.ALREADY_DONE)
    WORK_LIST = ("work items handed to a pool or joined as text", Reason.NOT_DATA)
    OBJECTS = ("Python objects walked beside the arrays", Reason.NOT_DATA)
    LOOKUP = ("values used as keys into a container", Reason.NOT_DATA)
    TILING = (
        "stores into blocks that move with the index (a mosaic, an overlap-add)",
        Reason.NOT_WORK,
    )
    TEXT = ("string formatting or comparisons with strings", Reason.NOT_DATA)
    PYTHON_LIST = ("a Python list being built", Reason.NOT_DATA)
    RAGGED = (
        "rows whose lengths differ (a Python list of arrays, a mask per row)",
        Reason.NOT_DATA,
    )
    DECODING = ("ids decoded through a vocabulary", Reason.NOT_DATA)
    CONTROL = ("control flow that stops or leaves the loop", Reason.SEQUENTIAL)
    STATEMENT = ("a statement the rule does not follow", Reason.UNRESOLVED)
    CALL = ("a call the file does not show to be array math", Reason.UNRESOLVED)
    MEMBERSHIP = ("membership tests on Python containers", Reason.NOT_DATA)
    OPTIONAL = ("elements tested for None: Python values, not numbers", Reason.NOT_DATA)
    OBJECT_STATE = ("object state changed per element", Reason.SEQUENTIAL)
    RECURRENCE = ("a value carried to the next iteration", Reason.SEQUENTIAL)

    def __init__(self, text: str, reason: Reason) -> None:
        self.text = text
        self.reason = reason


_CONTROL = node_types(
    "Return",
    "Break",
    "Raise",
    "Yield",
    "Await",
)
_OTHER_STATEMENTS = node_types(
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


class SinkKind(enum.Enum):
    APPEND = "append"  # out.append(v)
    STORE = "store"  # out[i] = v
    STORE_ADD = "store-add"  # out[i] += v
    SCATTER = "scatter"  # out[y[i]] = v
    SCATTER_ADD = "scatter-add"  # out[y[i]] += v
    REDUCE = "reduce"  # acc += v, total[j] += x[t, j]
    COUNT = "count"  # n += 1 under a test
    ELEMENT = "element"  # a comprehension's element


class Sink:
    """Where the body puts a result."""

    def __init__(self, kind: SinkKind, node, value, target=None, test=None) -> None:
        self.kind = kind
        self.node = node  # the statement or expression
        self.value = value  # the value collected (None for a count)
        self.target = target  # the subscript or name written
        self.test = test  # the enclosing `if` test, if any
        self.negated = False  # in the `else` of that test
        self.nested = False  # under more than one test


def body_parts(node) -> list:
    if isinstance(node, (cst.ListComp, cst.GeneratorExp)):
        return [node.elt, *(i.test for i in node.for_in.ifs)]
    return [node.body]


def value_nodes(expr):
    """``expr`` and the nodes below it, without subscript indices and attribute names."""
    from tflint_perf.engine.walk import children

    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (cst.Subscript, cst.Attribute)):
            stack.append(node.value)
        else:
            stack.extend(reversed(children(node)))


class LoopFacts(ElementReads):
    """One pass over a loop body: elements read, results collected, blockers."""

    def __init__(self, ctx, walk: Walk) -> None:
        self.ctx = ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self.arrays: Arrays = ctx.shared(Arrays)
        self.functions: ArrayFunctions = ctx.shared(ArrayFunctions)
        self.walk = walk
        self.nodes = [n for part in body_parts(walk.node) for n in [part, *descendants(part, True)]]
        super().__init__(set(walk.index), set(walk.elements))
        self.sinks: List[Sink] = []
        self.blocker: Optional[Blocker] = None  # set when the loop is not element work
        self.blocked_at: Optional[cst.CSTNode] = None  # the node that blocks
        self._nested_loops()
        self._use_counter()
        if self.blocker is None:
            self._blockers()
        if self.blocker is None:
            BodyFlow(self).run()
            self._scan_sinks()
        if self.blocker is None:
            self._ragged_results()

    def block(self, blocker: Blocker, node=None) -> None:
        if self.blocker is None:
            self.blocker = blocker
            self.blocked_at = node

    def reads(self, node) -> Set[str]:
        return set(self.sem.reads(node))

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
                if any(bare_any(e, self.index) for e in target.slice) and self.arrays.is_array(
                    target.value
                ):
                    self.known_seed = True

    def _ragged_results(self) -> None:
        """``out.append(y[k][y[k, :, 1] > t])``: each row filtered by its own mask keeps
        a different number of values; ``[np.arange(n) for n in sizes]``: each element
        sets the length of what is made. The results do not stack into one array."""
        for sink in self.sinks:
            if sink.kind not in (SinkKind.APPEND, SinkKind.ELEMENT) or sink.value is None:
                continue
            value = sink.value
            if isinstance(value, cst.Name) and value.value in self.derived:
                value = self.derived[value.value]
            sized = self._sized_by_element(value)
            if sized is not None:
                self.block(Blocker.RAGGED, sized)
                return
            if isinstance(value, cst.Subscript) and any(
                isinstance(e.slice, cst.Index)
                and isinstance(e.slice.value, cst.Comparison)
                and self.uses_element(e.slice.value)
                for e in value.slice
            ):
                self.block(Blocker.RAGGED, value)
                return

    def _sized_by_element(self, value) -> Optional[cst.Call]:
        """A constructor in ``value`` whose length comes from an element."""
        for node in value_nodes(value):
            if not isinstance(node, cst.Call):
                continue
            qual = self.ctx.call_name(node) or ""
            if not qual.startswith(am.ROOTS) and qual != "range":
                continue
            where = am.SIZE_ARGUMENTS.get(qual.rsplit(".", 1)[-1], ())
            for k, arg in enumerate(node.args):
                key = arg.keyword.value if arg.keyword is not None else k
                if key in where and self.uses_element(arg.value):
                    return node
        return None

    def _nested_loops(self) -> None:
        """Inner ``for`` loops over ranges or over elements add index/element names."""
        for n in self.nodes:
            if isinstance(n, cst.While):
                self.block(Blocker.INNER_LOOP, n)
            elif isinstance(n, cst.For):
                if not isinstance(n.target, cst.Name) or n.orelse is not None:
                    self.block(Blocker.INNER_LOOP, n)
                    continue
                inner = unwrap(self.ctx, n.iter)
                rng = builtin_call(inner, "range")
                if rng is not None and range_bounds(rng) is not None:
                    self.index.add(n.target.value)
                elif isinstance(inner, cst.Name) and inner.value in self.elements:
                    self.elements.add(n.target.value)  # for v in row
                else:
                    self.block(Blocker.INNER_LOOP, n)

    def _use_counter(self) -> None:
        """``for k in np.arange(n)``: an index when used as one, else values."""
        counter = self.walk.counter
        if counter is None:
            return
        for n in self.nodes:
            if isinstance(n, cst.SubscriptElement) and bare(n, counter):
                self.elements.discard(counter)
                self.index.add(counter)
                return

    # -- what stops it ----------------------------------------------------
    def _blockers(self) -> None:
        if self._column_loop():
            self.block(Blocker.COLUMNS)  # diff = X - M[k]; R[:, k] * diff
            return
        if self._work_list():
            self.block(Blocker.WORK_LIST)  # pool.map(f, [...]), " ".join([...])
            return
        if self._python_scalars():
            self.block(Blocker.PYTHON_LIST)  # [int(i) for i in ids if i != 0]
            return
        index_uses = self._index_only_uses()
        for n in self.nodes:
            found = self._blocker_at(n, index_uses)
            if found is not None:
                self.block(found, n)
                return

    def _blocker_at(self, n, index_uses) -> Optional[Blocker]:
        if isinstance(n, cst.Comparison) and self._compares_index_to_array(n):
            return Blocker.PER_CLASS  # np.sum(labels == k): vectorised per class
        if (
            isinstance(n, cst.Name)
            and n.value in self.walk.opaque
            and n not in index_uses
            and not self._set_op_argument(n)
            and not self._number_beside_arrays(n)
        ):
            return Blocker.OBJECTS  # for spec, obs in zip(specs, obs): spec.dtype
        if isinstance(n, cst.Subscript) and self._keyed(n):
            return Blocker.LOOKUP  # for ch in text: codes[ch]
        if isinstance(n, (cst.AssignTarget, cst.AugAssign)) and self._tiles(n.target):
            return Blocker.TILING  # grid[:, i * size:(i + 1) * size] = image; overlap-add
        if _stringly(n):
            return Blocker.TEXT  # "%dk" % v, word != b"<pad>": text, not numbers
        if isinstance(n, cst.AugAssign) and _list_valued(n.value) and not one_item(n):
            return Blocker.PYTHON_LIST  # inputs += [word] * n (``xs += [v]`` appends)
        if isinstance(n, cst.BinaryOperation) and _list_valued(n):
            return Blocker.PYTHON_LIST  # seq + [0] * (n - len(seq)): list padding
        if isinstance(n, cst.Subscript) and self._decodes(n):
            return Blocker.DECODING  # id_to_word[i] for i in ids
        if isinstance(n, cst.Subscript) and self._list_of_arrays(n):
            return Blocker.RAGGED  # alphas[n][0] with alphas = [] appended per sequence
        if isinstance(n, _CONTROL):
            return Blocker.CONTROL
        if isinstance(n, _OTHER_STATEMENTS):
            return Blocker.STATEMENT
        if isinstance(n, cst.Call) and not self._allowed_call(n):
            return Blocker.CALL
        if isinstance(n, cst.ComparisonTarget) and isinstance(n.operator, (cst.In, cst.NotIn)):
            return Blocker.MEMBERSHIP  # Python containers
        if isinstance(n, cst.Comparison) and self._none_test_of_element(n):
            return Blocker.OPTIONAL  # -1 if d is None else d: no array holds None
        if isinstance(n, (cst.AssignTarget, cst.AugAssign)) and self._object_state(n.target):
            return Blocker.OBJECT_STATE
        return None

    def _none_test_of_element(self, test: cst.Comparison) -> bool:
        """``d is None`` / ``shape[i] is not None`` on an element (or a value made
        from one): numeric arrays never hold None, so these are Python values."""
        return is_none_test(test) and self.uses_element(test.left)

    def _object_state(self, target) -> bool:
        """``self.x = v``, or ``self.w[1:] += v`` while the body calls a method of the
        same object (which may read it: an online update, not independent rows)."""
        if isinstance(target, cst.Attribute):
            return True
        base = target
        while isinstance(base, cst.Subscript):
            base = base.value
        if not isinstance(base, cst.Attribute) or base is target:
            return False
        owner = self.ctx.code(base.value)
        return any(
            isinstance(n, cst.Call)
            and isinstance(n.func, cst.Attribute)
            and self.ctx.code(n.func.value) == owner
            for n in self.nodes
        )

    def _column_loop(self) -> bool:
        """A loop over the columns of an array (``R[:, k]``: clusters, classes,
        features) whose body also computes with a whole array (``X - M[k]``): each
        iteration is already vectorised over the rows."""
        columns = any(
            isinstance(n, cst.Subscript)
            and len(n.slice) >= 2
            and _full_slice(n.slice[0])
            and any(bare_any(e, self.index) for e in n.slice[1:])
            for n in self.nodes
        )
        if not columns:
            return False
        # The sum the loop accumulates over the columns is not such an array
        # (``cam = cam + w[k] * out[:, :, k]``: one contraction over the column axis).
        accumulated = {
            b.name
            for b in self.sem.bindings_in(self.walk.node)
            if b.kind in (BindingKind.ASSIGNMENT, BindingKind.AUGMENTED)
        }
        return any(
            isinstance(n, cst.Name)
            and n.value not in self.index | self.elements | accumulated
            and whole_read(self.ctx, n)
            and not isinstance(self.ctx.parent(n), cst.Call)  # f(...) is a call, not data
            and self.arrays.is_array(n)
            for n in self.nodes
        )

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
        return name in am.WORK_LIST_CONSUMERS

    def _python_scalars(self) -> bool:
        """A comprehension whose element is one walked element made a Python number
        (``[int(i) for i in ids if i != pad]``): a Python list is what it builds."""
        node = self.walk.node
        if not isinstance(node, (cst.ListComp, cst.GeneratorExp)):
            return False
        elt = node.elt
        return (
            isinstance(elt, cst.Call)
            and isinstance(elt.func, cst.Name)
            and elt.func.value in am.PYTHON_SCALARS
            and len(elt.args) == 1
            and isinstance(elt.args[0].value, cst.Name)
            and elt.args[0].value.value in self.elements | self.index
        )

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
        if isinstance(call, cst.Call) and am.op(self.ctx.call_name(call)) is am.ArrayOp.SET:
            self.elements.add(name.value)
            return True
        return False

    def _number_beside_arrays(self, name: cst.Name) -> bool:
        """``r + g * nv - v for r, nv, v in zip(rewards, next_values, values)``: an item of a
        list zipped with arrays, used as a number in arithmetic (``np.asarray(rewards)``)."""
        parent = self.ctx.parent(name)
        number = (
            isinstance(parent, cst.BinaryOperation)
            and not isinstance(parent.operator, cst.MatrixMultiply)
        ) or (isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Minus))
        if number:
            self.elements.add(name.value)
            return True
        return False

    def _keyed(self, sub: cst.Subscript) -> bool:
        """A value walked from a list used to index something not shown to be an array,
        or an index read per element from a Python dict (``x[where[k]["row"]]``)."""
        reads = [d for e in sub.slice if isinstance(e.slice, cst.Index) for d in descendants(e)]
        if any(isinstance(d, cst.Subscript) and self.arrays.is_dict(d.value) for d in reads):
            return True
        hits = [e for e in sub.slice if bare_any(e, self.walk.gather)]
        if not hits or self.arrays.is_array(sub.value):
            return False
        return len(hits) < 2 or len(sub.slice) < 2  # m[i, j] for i, j in zip(...): an array

    def _compares_index_to_array(self, comparison: cst.Comparison) -> bool:
        operands = [comparison.left, *(c.comparator for c in comparison.comparisons)]
        per_class = set(self.index)
        if walks_distinct_values(self.ctx, self.walk):
            per_class.add(self.walk.var)  # for label in np.unique(y): y == label
        index = [o for o in operands if isinstance(o, cst.Name) and o.value in per_class]
        arrays = [
            o for o in operands if not isinstance(o, cst.Subscript) and self.arrays.is_array(o)
        ]
        return bool(index and arrays)

    def _tiles(self, target) -> bool:
        """A store into a block that moves with the loop index (``out[i * k:(i + 1) * k]``,
        or ``out[r * h:r * h + h]`` with ``r = i // cols``)."""
        if not isinstance(target, cst.Subscript):
            return False
        moving = set(self.index)
        # Names the body computes from the index by arithmetic (``r = k // cols``), not from
        # data read at it (``c = labels[k]``: a gathered value), a few steps deep.
        made = [
            b
            for b in self.sem.bindings_in(self.walk.node)
            if b.value is not None
            and b.plain
            and not any(isinstance(n, cst.Subscript) for n in [b.value, *descendants(b.value)])
        ]
        for _ in range(3):
            moving |= {b.name for b in made if self.reads(b.value) & moving}
        return any(
            isinstance(e.slice, cst.Slice) and self.reads(e.slice) & moving for e in target.slice
        )

    def _list_of_arrays(self, sub: cst.Subscript) -> bool:
        """``alphas[n][0]``: an array taken from a Python list by the loop index, then
        indexed: per-item arrays whose lengths may differ (no whole array to index)."""
        inner = sub.value
        if not isinstance(inner, cst.Subscript) or not isinstance(inner.value, cst.Name):
            return False
        if not any(bare_any(e, self.index) for e in inner.slice):
            return False
        return self.arrays.values.kind(inner.value) is Kind.LIST and (
            self.arrays.list_of_arrays(inner.value)
        )

    def _decodes(self, sub: cst.Subscript) -> bool:
        """``id_to_word[v]`` / ``inverse_map[token]``: an element used as a key into a
        container named as a vocabulary: decoding ids into text."""
        base = sub.value
        if not isinstance(base, (cst.Name, cst.Attribute)) or self.arrays.is_array(base):
            return False
        name = (base.value if isinstance(base, cst.Name) else base.attr.value).lower()
        return any(word in name for word in am.VOCABULARY_NAMES) and any(
            isinstance(e.slice, cst.Index) and self.uses_element(e.slice.value) for e in sub.slice
        )

    def _allowed_call(self, call: cst.Call) -> bool:
        qual = self.ctx.call_name(call)
        op = am.op(qual, len(call.args))
        if op is am.ArrayOp.FIRST_MATCH and first_match(
            self.ctx, self.ctx.parent(self.ctx.parent(call))
        ):
            return True  # np.min(np.where(row >= t)): the first hit, one value per row
        if op is am.ArrayOp.SET and qual == "numpy.intersect1d":
            return counted(self.ctx, call)  # len(np.intersect1d(a, b)): an overlap count
        if qual is not None:
            if am.is_random_draw(qual):
                self.random = True
                return True
            if op is None:  # a function of another module of the tree
                return self.functions.kind_of_call(call) is not None
            return op not in (
                am.ArrayOp.NOT_MATH,
                am.ArrayOp.FIRST_MATCH,
                am.ArrayOp.SOLVE,
            )
        func = call.func
        if isinstance(func, cst.Name) and func.value in am.NUMERIC_BUILTINS:
            return True
        if self.functions.kind_of_call(call) is not None:
            return True
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            return method == "append" or am.method_op(method) is not None
        return False

    def is_draw(self, call: cst.Call) -> bool:
        return am.is_random_draw(self.ctx.call_name(call))


def counted(ctx, call) -> bool:
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
        and am.op(ctx.call_name(inner), len(inner.args)) is am.ArrayOp.FIRST_MATCH
        and len(inner.args) == 1
    ):
        return inner.args[0].value
    return None


def whole_read(ctx, name: cst.Name) -> bool:
    """``W`` read as a whole (``W.T.dot(x)``, ``f(W)``), not ``W[i]`` nor ``W.shape``."""
    parent = ctx.parent(name)
    if isinstance(parent, cst.Subscript) and parent.value is name:
        return False
    if isinstance(parent, cst.Attribute):
        return parent.value is name and parent.attr.value not in ("shape", "ndim", "dtype", "size")
    return not isinstance(parent, (cst.AssignTarget, cst.Param, cst.Arg)) or (
        isinstance(parent, cst.Arg) and parent.value is name
    )


def _full_slice(element: cst.SubscriptElement) -> bool:
    sl = element.slice
    return isinstance(sl, cst.Slice) and sl.lower is None and sl.upper is None


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
