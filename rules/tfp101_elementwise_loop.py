"""TFP101 elementwise-loop."""

from __future__ import annotations

import functools
import re
from typing import List, Optional

from tflint_perf.analysis.display import displays
from tflint_perf.analysis.elementwise import (
    ELEMENTWISE,
    MATH_METHODS,
    SET_OPS,
    Helpers,
    LoopFacts,
    Sink,
    first_match,
    index_name,
    names_in,
    value_nodes,
    walk_of,
)
from tflint_perf.analysis.tensors import TENSOR_ROOTS, TensorNames
from tflint_perf.analysis.testcode import is_test_module
from tflint_perf.analysis.windows import find_convolution
from tflint_perf.engine import cst
from tflint_perf.engine.nodes import node_types
from tflint_perf.engine.rule import Rule
from tflint_perf.engine.verification import Input, InputKind, Rewrite, Verification
from tflint_perf.engine.walk import descendants

# TF/NumPy calls that only convert or re-shape: math only when nothing else is.
_PLUMBING = frozenset(
    {
        "array",
        "asarray",
        "asanyarray",
        "ascontiguousarray",
        "convert_to_tensor",
        "constant",
        "copy",
        "identity",
        "shape",
        "rank",
        "size",
        "reshape",
        "expand_dims",
        "squeeze",
        "gather",
        "gather_nd",
        "stack",
        "concat",
        "concatenate",
        "zeros",
        "ones",
        "zeros_like",
        "ones_like",
        "full",
        "fill",
        "eye",
        "arange",
        "range",
        "linspace",
        "pad",
        "transpose",
        "tile",
        "repeat",
        "broadcast_to",
        "slice",
        "len",
        "ndim",
        "empty",
        "empty_like",
        "full_like",
        "get_static_value",
        "is_tensor",
        "flatten",
        "ravel",
        "astype",
        "item",
    }
)
_REDUCTIONS = frozenset(
    {
        "sum",
        "mean",
        "max",
        "min",
        "std",
        "var",
        "prod",
        "argmax",
        "argmin",
        "norm",
        "any",
        "all",
        "amax",
        "amin",
        "nansum",
        "nanmean",
        "nanmax",
        "nanmin",
        "average",
        "median",
        "count_nonzero",
        "logsumexp",
        "reduce_logsumexp",
        "reduce_sum",
        "reduce_mean",
        "reduce_max",
        "reduce_min",
        "reduce_prod",
        "reduce_std",
        "reduce_variance",
        "reduce_any",
        "reduce_all",
        "reduce_euclidean_norm",
    }
)
_PLAIN_METHODS = frozenset({"reshape", "flatten", "ravel", "squeeze", "transpose", "astype"})
_BUILTIN_MATH = {
    "abs": "np.abs",
    "max": "np.maximum",
    "min": "np.minimum",
    "round": "np.round",
    "pow": "np.power",
    "sum": "np.sum",
}
_ARITHMETIC = node_types(
    "Add", "Subtract", "Multiply", "Divide", "FloorDivide", "Power", "MatrixMultiply", "Modulo"
)


class Op:
    """Math applied to an element: ``kind`` is helper, call, math, method,
    builtin, compare, arith, gather or plumbing."""

    def __init__(self, kind: str, code: str, node, helper: str = "") -> None:
        self.kind = kind
        self.code = code  # as spelled in the source: `np.exp`, `.sum()`, `*`, `>`
        self.node = node
        self.helper = helper  # "elementwise" / "numeric" for the module's functions


class ElementwiseLoop(Rule):
    """A Python loop applies TensorFlow/NumPy math to a tensor one element or row at a time.

    ## What it does
    Flags a `for`/`while` loop or comprehension that walks an array or
    tensor element by element or row by row (`for i in range(x.shape[0])`,
    `range(len(x))`, `range(n)` indexing known arrays, a `while i < n`
    counter, `for row in x`, `enumerate(x)`, `zip(x, y)`, `sorted(x)`,
    `for v in np.arange(...)`) and does per element what one vectorised
    op does on the whole array:
    - arithmetic, NumPy/TF math or `math.*` on each element or row
      (advice: broadcasting, or an axis reduction such as
      `np.max(x, axis=1)`, or shifted slices for stencils);
    - a comparison or an `if` on each element that picks or stores values
      (advice: `np.where(...)` or a boolean mask, written for this loop);
    - counting matches (`n += 1` under a test: `np.sum(a == b)`);
    - updates each element in place (`x[i, j] += y[i, j]`: `x + y`);
    - writes or adds at an index read from the data (`onehot[y[i], i] =
      1`, `sums[idx[i]] += v[i]`: fancy indexing, `np.add.at`), gathers
      (`p[i, y[i]]`: `p[np.arange(n), y]`);
    - calls a function of the module on each element (called once on the
      whole array when it is built from element-wise ops, else rewritten
      to broadcast);
    - copies sliding windows `x[i:i + k]` into a preallocated array
      (`sliding_window_view`), or sums/averages a window that moves with
      the index (`avg[t] = x[max(0, t - k):t + 1].mean()`: a cumulative
      sum);
    - gathers `x[idx]` for each index of a list (`x[idxs]`, `tf.gather`);
    - finds the first match per row (`np.min(np.where(row >= t))`:
      `np.argmax(..., axis=1)`), intersects rows as sets (broadcast
      equality), maps elements through a dict (`np.unique(...,
      return_inverse=True)`);
    - masks and reduces once per class value of the data (`for c in
      np.unique(y)` / `tf.unique(y)[0]`: a segment reduction).

    An array is what the file shows to be one: a NumPy/TF call,
    `model.predict(...)`, `.numpy()`, `sess.run(t)`, `.values`, a function
    of the module returning one, a tuple of arrays (`load_data()`,
    `np.linalg.eig`), `self.x` when the class only assigns arrays to it, a
    parameter used as an array, annotated as one (`np.ndarray`,
    `tf.Tensor`, an alias such as `FloatTensor`) or passed one by every
    call in the file; where a name is bound several times, the binding
    nearest before the use in the module or function body decides.

    It stays silent on loops over variables, layers, files, datasets and
    Python lists; on a handful of iterations (`range(<20)`, a name bound
    to a small number, a short literal array, eigenvalues of a covariance);
    on bookkeeping without math (`if done[i]: log(r[i]); r[i] = 0`), on
    windows appended to a list (dataset preparation); on recurrences (a value or
    an array element carried to the next iteration: discounted returns,
    AR series, RNN steps, SGD updates); on per-class loops whose body is
    already vectorised (`x[labels == k]`, `R[:, k]` next to `X - M[k]`); on chunked loops
    (`range(0, n, batch)`), tiling, random or I/O ops, plotting loops and
    calls the file does not show to be array math; on random picks
    (`x[np.random.choice(n)]`) and whole-array draws (`size=`); on online
    updates (an array read whole and written per step); on text (string
    formatting, comparisons with strings, vocabulary decoding, `join`),
    on multi-hot encoding of token-id sequences (`out[i, seq] = 1`, and the
    inputs of IMDB/Reuters `load_data()`: ragged lists),
    Python lists being built, work lists handed to `pool.map`, and a linear
    solve or decomposition per row; and on convolution and
    pooling nests, which TFP102 reports.

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
    element-wise arithmetic, `np.where`/`tf.where` or a boolean mask for
    per-element conditions, fancy indexing (`np.add.at` when indices
    repeat) for scatters and gathers, and `tf.vectorized_map` (or
    `tf.map_fn`) when the body is more than a simple op.
    """

    code = "TFP101"
    name = "elementwise-loop"
    message = "Loop over `{var}` applies {op} to {what} one at a time; {suggestion}"
    triggers = ("for ", "while ")
    fixable = False
    # For --verify: the tensor the loop walks gets a batch of rows when nothing
    # calls the function (parameters used only in arithmetic get a float); without
    # a fix the loop is timed against one vectorised expression (a verification-only
    # rewrite).
    verification = Verification(
        inputs=(Input("iterated", InputKind.ROWS), Input("coefficient", InputKind.SCALAR)),
        rewrite=Rewrite.STACK_TO_VECTOR,
    )

    @classmethod
    def screen(cls, facts) -> bool:
        # Every finding is a loop or a comprehension.
        return facts.has_loop()

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.candidates: List[cst.CSTNode] = []

    def visit_For(self, node: cst.For) -> None:
        self.candidates.append(node)

    def visit_While(self, node: cst.While) -> None:
        self.candidates.append(node)

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self.candidates.append(node)

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self.candidates.append(node)

    def finish(self) -> None:
        if not self.candidates or is_test_module(self.ctx):
            return
        tensors = self.ctx.shared(TensorNames)
        helpers = self.ctx.shared(Helpers)
        skipped = self._convolution_loops()
        flagged: dict = {}  # loop -> (message, the helper it calls per row)
        self._display: dict = {}
        for node in self.candidates:
            if node in skipped or any(a in flagged for a in self.ctx.ancestors_of(node)):
                continue
            segment = _segment_loop(self.ctx, tensors, node)
            if segment is not None:
                flagged[node] = (segment, None)
                continue
            walk = walk_of(self.ctx, tensors, node)
            if walk is None or "channel" in f"{walk.var} {walk.tensor}".lower():
                continue  # a handful of channels: not worth a finding
            facts = LoopFacts(self.ctx, tensors, helpers, walk, tensors.scope_of(node))
            if facts.why_not is not None:
                continue
            verdict = _Verdict(self.ctx, facts)
            message = verdict.message()
            if message is not None and not self._in_display_loop(node):
                flagged[node] = (message, verdict.helper)  # (not a few views being plotted)
        # A loop inside a helper that a flagged loop calls per row is part of that work.
        helpers_called = {h for _, h in flagged.values() if h is not None}
        for node, (message, _) in flagged.items():
            if not any(a in helpers_called for a in self.ctx.ancestors_of(node)):
                self.report(node, message=message)

    def _in_display_loop(self, node) -> bool:
        """Whether the loop right around this one (same function) draws a plot or an
        image on each iteration: the work is a few views being shown."""
        for parent in self.ctx.ancestors_of(node):
            if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return False
            if isinstance(parent, (cst.For, cst.While)):
                if parent not in self._display:
                    self._display[parent] = any(
                        displays(self.ctx, n)
                        for n in descendants(parent.body, skip_scopes=True)
                        if isinstance(n, cst.Call)
                    )
                return self._display[parent]
        return False

    def _convolution_loops(self) -> set:
        """Loops that are, contain or sit in a convolution/pooling nest (TFP102's)."""
        nests = [
            c for c in self.candidates if isinstance(c, cst.For) and find_convolution(self.ctx, c)
        ]
        if not nests:
            return set()
        inside: set[cst.CSTNode] = set(nests)
        for node in self.candidates:
            chain = list(self.ctx.ancestors_of(node))
            if any(a in inside for a in chain):
                inside.add(node)
        for nest in nests:
            inside.update(a for a in self.ctx.ancestors_of(nest) if a in self.candidates)
        return inside


# Names of token-id sequences (IMDB and Reuters reviews are ragged lists).
_SEQUENCE_NAME = re.compile(r"seq|token|word|sentence|review|text|doc|ids$|indices", re.I)
_UNIQUES = frozenset({"numpy.unique", "tensorflow.unique", "tensorflow.unique_with_counts"})
_SEGMENT_BLOCKERS = node_types(
    "Return", "Break", "Raise", "Yield", "With", "Try", "FunctionDef", "ClassDef"
)


def _segment_loop(ctx, tensors, node) -> Optional[str]:
    """``for c in np.unique(y)`` / ``tf.unique(y)[0]``: a mask ``y == c`` and a
    reduction per class value found in the data, accumulated; one segment
    reduction does every class."""
    if not isinstance(node, cst.For) or not isinstance(node.target, cst.Name):
        return None
    var = node.target.value
    masked = reduced = False
    for n in descendants(node.body, skip_scopes=True):
        if isinstance(n, _SEGMENT_BLOCKERS):
            return None
        if isinstance(n, cst.Call):
            qual = ctx.call_name(n) or ""
            if qual.startswith(TENSOR_ROOTS):
                reduced = reduced or qual.rsplit(".", 1)[-1] in _REDUCTIONS
            elif not (isinstance(n.func, cst.Name) and n.func.value in ("len", "float", "int")):
                if not (isinstance(n.func, cst.Attribute) and n.func.attr.value in MATH_METHODS):
                    return None
        if isinstance(n, cst.Comparison) and len(n.comparisons) == 1:
            sides = (n.left, n.comparisons[0].comparator)
            if isinstance(n.comparisons[0].operator, cst.Equal) and any(
                isinstance(x, cst.Name) and x.value == var for x in sides
            ):
                masked = True
    collected = any(isinstance(n, cst.AugAssign) for n in descendants(node.body)) or any(
        isinstance(n, cst.Call)
        and isinstance(n.func, cst.Attribute)
        and n.func.attr.value == "append"
        for n in descendants(node.body)
    )
    if not (masked and reduced and collected):
        return None
    values = _unique_source(ctx, tensors, node)
    if values is None:
        return None
    return (
        f"Loop over `{var}` masks and reduces once per class value of `{values}`; compute all "
        "classes at once with a segment reduction (`tf.math.unsorted_segment_mean`/`_sum` with "
        "the ids from `tf.unique`, or `np.bincount(ids, weights=...)` with "
        "`np.unique(..., return_inverse=True)`) instead"
    )


def _unique_source(ctx, tensors, node) -> Optional[str]:
    """``y`` when the loop walks the distinct values of ``y``."""
    iterable = node.iter
    if isinstance(iterable, cst.Name):
        scope = tensors.scope_of(node)
        bound = [
            a.value
            for a in ctx.nodes(cst.Assign)
            if tensors.scope_of(a) is scope
            and any(
                isinstance(t.target, cst.Name) and t.target.value == iterable.value
                for t in a.targets
            )
        ]
        if len(bound) != 1:
            return None
        iterable = bound[0]
    if isinstance(iterable, cst.Subscript):
        iterable = iterable.value  # tf.unique(y)[0]
    if (
        isinstance(iterable, cst.Call)
        and ctx.call_name(iterable) in _UNIQUES
        and iterable.args
        and all(a.keyword is None for a in iterable.args)
    ):
        return ctx.code(iterable.args[0].value)
    return None


class _Verdict:
    """Whether a loop's facts make a finding, and its message."""

    def __init__(self, ctx, facts: LoopFacts) -> None:
        self.ctx = ctx
        self.facts = facts
        self.walk = facts.walk
        self.helper = None  # the module function the loop calls per element, if any

    def message(self) -> Optional[str]:
        facts = self.facts
        if not (self.walk.sized or facts.known_seed):
            return None  # nothing shows the loop walks an array
        if facts.windows:
            return self._windows()
        found = self._best()
        if found is None:
            return None
        sink, op = found
        if op.kind == "helper":
            self.helper = facts.tensors.function_def(op.node, facts.scope)
        return _Advice(self, sink, op).text()

    def _best(self):
        """The collected result with the most telling op (see ``_RANK``)."""
        best = None
        for sink in self.facts.sinks:
            if not self._collects_element(sink):
                continue
            op = self._op_of_sink(sink)
            if op is None:
                continue
            rank = _RANK.index(op.kind)
            if best is None or rank < best[0]:
                best = (rank, sink, op)
        return best[1:] if best else None

    def _collects_element(self, sink: Sink) -> bool:
        facts = self.facts
        if sink.kind in ("append", "store", "store-add", "reduce", "element"):
            if sink.kind == "append" and facts.uses_element(sink.target):
                return False  # row.append(...): building a Python row
            if isinstance(sink.value, (cst.Tuple, cst.List)):
                return False  # (value, vector) pairs: Python records, not array math
            return facts.uses_element(sink.value) or (
                sink.test is not None and facts.uses_element(sink.test)
            )
        if sink.kind == "count":
            return sink.test is not None and facts.uses_element(sink.test)
        # Scatter, scatter-add: the index is an element. A whole row used as the
        # indices (multi-hot encoding of token-id sequences) is usually a ragged
        # Python list, which fancy indexing cannot take at once.
        return not self._row_as_indices(sink.target)

    def _row_as_indices(self, target) -> bool:
        """``out[i, seq] = 1`` or ``for j in seq: out[i, j] = 1`` with ``seq`` a row
        of the walked sequences, named as one (a scalar label ``out[y, i] = 1``
        is a real scatter)."""
        if not isinstance(target, cst.Subscript):
            return False
        rows = {e for e in self.walk.elements if _SEQUENCE_NAME.search(e)}
        for node in descendants(self.walk.node):
            if isinstance(node, cst.For) and isinstance(node.iter, cst.Name):
                if node.iter.value in rows and isinstance(node.target, cst.Name):
                    rows.add(node.target.value)
        return any(
            isinstance(e.slice, cst.Index)
            and isinstance(e.slice.value, cst.Name)
            and e.slice.value.value in rows
            for e in target.slice
        )

    def _op_of_sink(self, sink: Sink) -> Optional[Op]:
        if sink.kind in ("scatter", "scatter-add"):
            return Op(sink.kind, "", sink.node)
        if sink.kind == "count":
            return Op("count", "", sink.node)
        op = self.op_of(sink.value, depth=0)
        if op is None and sink.kind == "store-add" and isinstance(sink.node, cst.AugAssign):
            # `x[i, j] += y[i, j]`: the in-place operator is the element-wise math.
            symbol = self.ctx.code(sink.node.operator).strip().rstrip("=")
            if symbol in ("+", "-", "*", "/") and self.facts.uses_element(sink.value):
                op = Op("arith", symbol, sink.node)
        if sink.test is not None and self.facts.uses_element(sink.test):
            if op is None and self.op_of(sink.test, depth=0) is None:
                return None  # `if done[i]: log(x[i]); x[i] = 0`: bookkeeping, no math
            if op is None or op.kind not in ("helper",):
                return Op("mask", "", sink.test)
        return op

    # -- ops ----------------------------------------------------------------
    def op_of(self, expr, depth: int) -> Optional[Op]:
        """The math applied to element data in ``expr`` (or in the names it reads)."""
        if expr is None:
            return None
        best = None
        for node in value_nodes(expr):
            op = self._op_at(node)
            if op is not None and (best is None or _RANK.index(op.kind) < _RANK.index(best.kind)):
                best = op
        if best is not None or depth > 3:
            return best
        for name in names_in(expr):
            if name in self.facts.derived and self.facts.derived[name] is not expr:
                op = self.op_of(self.facts.derived[name], depth + 1)
                if op is not None and op.kind != "plumbing":
                    return op
        return None

    def _op_at(self, node) -> Optional[Op]:
        facts = self.facts
        uses = facts.uses_element
        if isinstance(node, cst.Call):
            return self._call_op(node)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _ARITHMETIC):
            if uses(node.left) or uses(node.right):
                return Op("arith", self.ctx.code(node.operator).strip(), node)
        if isinstance(node, cst.Comparison) and uses(node):
            return Op("compare", self.ctx.code(node.comparisons[0].operator).strip(), node)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            if uses(node.expression):
                return Op("arith", "-", node)
        if isinstance(node, cst.Subscript) and node in facts.gathers:
            return Op("gather", "", node)
        if isinstance(node, cst.Subscript) and node in facts.lookups:
            return Op("lookup", self.ctx.code(node.value), node)
        return None

    def _call_op(self, call: cst.Call) -> Optional[Op]:
        uses = self.facts.uses_element
        args_use = any(uses(a.value) for a in call.args if a.keyword is None)
        qual = self.ctx.call_name(call)
        func = call.func
        if qual in SET_OPS and args_use:
            return Op("setop", self.ctx.code(func), call)
        if qual is not None and qual.startswith(TENSOR_ROOTS) and args_use:
            last = qual.rsplit(".", 1)[-1]
            kind = "plumbing" if last in _PLUMBING else "call"
            return Op(kind, self.ctx.code(func), call)
        if qual is not None and qual.startswith("math.") and args_use:
            return Op("math", self.ctx.code(func), call)
        if isinstance(func, cst.Name) and args_use:
            if func.value in _BUILTIN_MATH:
                return Op("builtin", func.value, call)
            helper = self.facts.helpers.kind(
                self.facts.tensors.function_def(call, self.facts.scope)
            )
            if helper is not None:
                return Op("helper", func.value, call, helper)
        if isinstance(func, cst.Attribute) and uses(func.value):
            method = func.attr.value
            if method in MATH_METHODS:
                return Op("method", "." + method + "()", call)
            if method in _PLAIN_METHODS:
                return Op("plumbing", "." + method + "()", call)
        return None

    # -- sliding windows ------------------------------------------------------
    def _windows(self) -> Optional[str]:
        """``out.append(x[i:i + k])`` / ``out[i] = x[i:i + k]``: windows copied one by one."""
        facts = self.facts
        window = facts.windows[0]
        if not self.walk.index or facts.gathers:
            return None
        running = self._running()
        if running is not None:
            return running
        copied = False
        for sink in facts.sinks:
            if not self._collects_element(sink):
                continue
            if sink.kind != "store" or self.op_of(sink.value, 0) is not None:
                return None  # reduced or multiplied (TFP102's), or copied into a list
            copied = copied or any(n in facts.windows for n in value_nodes(sink.value))
        if not copied:
            return None
        size = _window_size(self.ctx, window, self.facts.index)
        if size is None:
            return None
        base = self.ctx.code(window.value)
        var = self.walk.var
        return (
            f"Loop over `{var}` copies the window `{self.ctx.code(window)}` one at a time; "
            f"build all windows at once with "
            f"`np.lib.stride_tricks.sliding_window_view({base}, {size}, axis=0)` instead"
        )

    def _running(self) -> Optional[str]:
        """``avg[t] = x[max(0, t - k):t + 1].mean()``: a sum or mean of a window that
        moves with the index, stored or appended per position (a running mean)."""
        facts = self.facts
        found = None
        for sink in facts.sinks:
            if not self._collects_element(sink):
                continue
            if sink.kind not in ("store", "append") or sink.test is not None:
                return None
            reduced = _window_reduction(self.ctx, facts, sink.value)
            if reduced is None:
                return None
            found = found or reduced
        if found is None:
            return None
        window, name = found
        base = self.ctx.code(window.value)
        size = _window_size(self.ctx, window, facts.index) or "k"
        return (
            f"Loop over `{self.walk.var}` takes the {name} of the window "
            f"`{self.ctx.code(window)}` one position at a time; compute every window at once "
            f"from a cumulative sum (`c = np.cumsum({base})`: window sums are differences of "
            f"`c`) or with `np.lib.stride_tricks.sliding_window_view({base}, {size}).{name}"
            "(axis=-1)` instead"
        )


_WINDOW_REDUCTIONS = frozenset({"sum", "mean"})


def _window_reduction(ctx, facts, value):
    """(window, "sum"/"mean") when ``value`` reduces one of the loop's windows and reads
    no other element (``float(x[s:i + 1].sum()) / (i - s + 1)``); None otherwise."""
    if value is None:
        return None
    found = None
    for node in value_nodes(value):
        if isinstance(node, cst.Subscript) and node not in facts.windows:
            if facts.uses_element(node):
                return None  # weights or another series: TFP102's (a convolution)
        if not isinstance(node, cst.Call):
            continue
        func = node.func
        qual = ctx.call_name(node) or ""
        if isinstance(func, cst.Attribute) and func.attr.value in _WINDOW_REDUCTIONS:
            operand, name = func.value, func.attr.value
            if node.args:
                return None
        elif qual in ("numpy.sum", "numpy.mean") and len(node.args) == 1:
            operand, name = node.args[0].value, qual.rsplit(".", 1)[-1]
        else:
            continue
        if operand in facts.windows:
            found = found or (operand, name)
    return found


# Most telling first: what the advice is built on.
_RANK = [
    "setop",
    "helper",
    "scatter-add",
    "scatter",
    "count",
    "mask",
    "call",
    "math",
    "method",
    "builtin",
    "gather",
    "lookup",
    "compare",
    "arith",
    "plumbing",
]


def _window_size(ctx, window: cst.Subscript, index: set) -> Optional[str]:
    """``k`` of ``x[i:i + k]`` / ``x[i - k:i]``."""
    for element in window.slice:
        sl = element.slice
        if not isinstance(sl, cst.Slice) or sl.lower is None or sl.upper is None:
            continue
        lower, upper = sl.lower, sl.upper
        if isinstance(lower, cst.Name) and lower.value in index:
            if isinstance(upper, cst.BinaryOperation) and isinstance(upper.operator, cst.Add):
                if isinstance(upper.left, cst.Name) and upper.left.value == lower.value:
                    return ctx.code(upper.right)
        if isinstance(upper, cst.Name) and upper.value in index:
            if isinstance(lower, cst.BinaryOperation) and isinstance(lower.operator, cst.Subtract):
                if isinstance(lower.left, cst.Name) and lower.left.value == upper.value:
                    return ctx.code(lower.right)
    return None


@functools.lru_cache(maxsize=None)
def _whole_transformer() -> type:
    """The transformer class, made on first use (its base class is LibCST's)."""

    class _Whole(cst.CSTTransformer):
        """The body's expression over whole arrays: ``x[i]`` -> ``x``, ``a[0, i]`` ->
        ``a[0, :]``, ``row`` -> the array walked, names bound in the body -> their value."""

        def __init__(self, facts: LoopFacts, depth: int = 0) -> None:
            super().__init__()
            self.facts = facts
            self.depth = depth
            self.failed = False

        def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript):
            facts = self.facts
            base = original.value
            if isinstance(base, cst.Name) and base.value in facts.walk.whole:
                whole = cst.parse_expression(facts.walk.whole[base.value])
                rows = cst.SubscriptElement(cst.Slice(lower=None, upper=None))
                return cst.Subscript(whole, [rows, *updated.slice])
            if any(
                isinstance(e.slice, cst.Index)
                and not (isinstance(e.slice.value, cst.Name) and e.slice.value.value in facts.index)
                and facts.uses_element(e.slice.value)
                for e in original.slice
            ):
                self.failed = True  # probs[i, y[i]] is not probs[:, y]
                return updated
            elements = []
            hit = False
            for element in updated.slice:
                sl = element.slice
                if (
                    isinstance(sl, cst.Index)
                    and isinstance(sl.value, cst.Name)
                    and sl.value.value in facts.index
                ):
                    elements.append(element.with_changes(slice=cst.Slice(lower=None, upper=None)))
                    hit = True
                else:
                    elements.append(element)
            if not hit:
                return updated
            if all(
                isinstance(e.slice, cst.Slice) and e.slice.lower is None and e.slice.upper is None
                for e in elements
            ):
                return _paren(updated.value)
            return updated.with_changes(
                slice=[e.with_changes(comma=cst.MaybeSentinel.DEFAULT) for e in elements]
            )

        def leave_IfExp(self, original: cst.IfExp, updated: cst.IfExp):
            """``a if cond else b`` -> ``np.where(cond, a, b)``."""
            args = [cst.Arg(_bare_expr(e)) for e in (updated.test, updated.body, updated.orelse)]
            return cst.Call(cst.parse_expression("np.where"), args)

        def leave_Call(self, original: cst.Call, updated: cst.Call):
            """Only element-wise calls keep their meaning on whole arrays."""
            if updated is original or self.failed:
                return updated
            facts = self.facts
            qual = facts.ctx.call_name(original)
            func = original.func
            if (
                isinstance(func, cst.Name)
                and func.value in ("float", "int")
                and len(updated.args) == 1
                and self.facts.tensors.function_def(original, facts.scope) is None
            ):
                return updated.args[0].value  # float(x[i]) -> x
            if qual is not None and qual.startswith(TENSOR_ROOTS):
                safe = qual.rsplit(".", 1)[-1] in ELEMENTWISE
            elif isinstance(func, cst.Name):
                helper = facts.tensors.function_def(original, facts.scope)
                safe = func.value == "abs" or facts.helpers.kind(helper) == "elementwise"
            else:
                safe = isinstance(func, cst.Attribute) and func.attr.value == "astype"
            if not safe:
                self.failed = True
            return updated

        def leave_Name(self, original: cst.Name, updated: cst.Name):
            facts = self.facts
            if original.value in facts.walk.whole:
                return _paren(cst.parse_expression(facts.walk.whole[original.value]))
            if original.value in facts.derived and self.depth < 3:
                inner = whole_code(facts, facts.derived[original.value], self.depth + 1)
                if inner is None:
                    self.failed = True
                    return updated
                return _paren(cst.parse_expression(inner))
            return updated

    return _Whole


def _bare_expr(expr):
    return expr.with_changes(lpar=[], rpar=[]) if getattr(expr, "lpar", None) else expr


def _paren(expr):
    if (
        isinstance(expr, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float))
        or expr.lpar
    ):
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _paren_code(code: str) -> str:
    parsed = cst.parse_expression(code)
    if isinstance(parsed, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or parsed.lpar:
        return code
    return f"({code})"


def whole_code(facts: LoopFacts, expr, depth: int = 0) -> Optional[str]:
    """``expr`` rewritten over whole arrays, or None when the loop index remains."""
    if expr is None or isinstance(expr, (cst.Tuple, cst.List)):
        return None
    transformer = _whole_transformer()(facts, depth)
    try:
        new = expr.visit(transformer)
    except Exception:  # a rewrite LibCST cannot print: no concrete advice
        return None
    if transformer.failed or names_in(new) & facts.index:
        return None
    if isinstance(new, cst.BaseExpression) and new.lpar:
        new = new.with_changes(lpar=[], rpar=[])
    code = cst.Module([]).code_for_node(new).strip()
    return code if "\n" not in code else None


class _Advice:
    """The message for one finding: what the loop does, and the whole-array form."""

    def __init__(self, verdict: _Verdict, sink: Sink, op: Op) -> None:
        self.ctx = verdict.ctx
        self.facts = verdict.facts
        self.walk = verdict.walk
        self.sink = sink
        self.op = op

    def text(self) -> str:
        var = self.walk.var
        kind = self.op.kind
        if kind == "setop":
            body = self._setop()
        elif self.walk.gather and kind not in ("gather", "scatter", "scatter-add"):
            body = self._gathered()
        elif kind == "lookup" and not self.walk.gather:
            body = self._lookup()
        elif kind in ("scatter", "scatter-add", "count", "mask", "gather"):
            body = getattr(self, "_" + kind.replace("-", "_"))()
        elif kind == "helper":
            body = self._helper()
        else:
            body = (
                f"applies {self._op_name()} to {self._what()} one at a time; {self._suggestion()}"
            )
        text = f"Loop over `{var}` {body}"
        if self.facts.random and "random" not in body:
            text += " (draw the random numbers for all iterations in one call, with `size=`)"
        return text

    # -- pieces ---------------------------------------------------------------
    def _tensor(self) -> str:
        return self.walk.tensor or self._seed_base() or "the array"

    def _seed_base(self) -> Optional[str]:
        seed = self._seed() or self._seed(deep=True)
        return self.ctx.code(seed.value) if seed is not None else None

    def _seed(self, deep: bool = False) -> Optional[cst.Subscript]:
        """The first element read (``a[0, i]``) in the op or the collected value, or
        (``deep``) in the values of the names they read (``d = x[i] - c; out[i] = d @ d``)."""
        roots = [r for r in (self.op.node, self.sink.value, self.sink.test) if r is not None]
        derived = self.facts.derived
        seen: set = set()
        while roots:
            root = roots.pop(0)
            for node in value_nodes(root):
                if isinstance(node, cst.Subscript) and any(
                    names_in(e.slice) & self.facts.index for e in node.slice
                ):
                    return node
                if deep and isinstance(node, cst.Name) and node.value in derived:
                    if node.value not in seen and len(seen) < 8:
                        seen.add(node.value)
                        roots.append(derived[node.value])
        return None

    def _what(self) -> str:
        var = self.walk.var
        if var in self.walk.whole or var in self.walk.elements:
            return f"each row `{var}` of `{self._tensor()}`"
        seed = self._seed()
        if seed is None and self.walk.tensor is None:
            seed = self._seed(deep=True)
        if seed is not None:
            return f"each `{self.ctx.code(seed)}`"
        return f"each element of `{self._tensor()}`"

    def _op_name(self) -> str:
        op = self.op
        if op.kind == "compare":
            return f"a comparison (`{op.code}`)"
        if op.kind == "gather":
            return "an index lookup"
        return f"`{op.code}`"

    def _whole(self, expr) -> Optional[str]:
        return whole_code(self.facts, expr)

    # -- suggestions by kind --------------------------------------------------
    def _suggestion(self) -> str:
        op = self.op
        tensor = self._tensor()
        name = op.code.rsplit(".", 1)[-1].strip("`()")
        cond = first_match(self.ctx, op.node)
        if cond is not None:
            whole = self._whole(cond)
            form = f"`np.argmax({whole}, axis=1)`" if whole else "`np.argmax(condition, axis=1)`"
            return f"find the first match in every row at once with {form} (check `.any(axis=1)` when a row may have none) instead"
        if op.kind in ("call", "method") and name in _REDUCTIONS:
            return self._reduction(name)
        if op.kind == "math":
            return f"use `np.{name}` on the whole of `{tensor}` at once instead"
        if op.kind == "builtin":
            np_name = _BUILTIN_MATH[op.code]
            return f"use `{np_name}` on the whole of `{tensor}` at once instead"
        if self.facts.shifted and op.kind in ("arith", "call", "compare", "method"):
            return (
                f"compute it once on shifted slices of the whole of `{tensor}` "
                "(`x[2:] - x[:-2]`, `np.diff`) instead"
            )
        whole = self._whole_value()
        if op.kind == "compare":
            if whole:
                return f"compute it on whole arrays at once (`{whole}`) instead"
            return f"compare the whole of `{tensor}` at once (`np.where` or a boolean mask picks the values) instead"
        if op.kind == "plumbing":
            return f"call `{op.code}` once on the whole of `{tensor}` (the rows stay the first axis) instead"
        if whole and self.sink.kind == "reduce":
            return f"compute it on whole arrays and sum once (`np.sum({whole})`) instead"
        if op.kind == "call" and name in ELEMENTWISE:
            return f"apply `{op.code}` to the whole of `{tensor}` at once (it works element-wise) instead"
        if op.kind == "arith":
            return f"apply `{op.code}` to the whole of `{tensor}` at once (broadcasting) instead"
        return (
            f"call `{op.code}` once on the whole of `{tensor}` (most TF/NumPy ops take a batch axis), "
            "or use `tf.vectorized_map`/`tf.map_fn` when the body is more than one op"
        )

    def _whole_value(self) -> Optional[str]:
        value = self.sink.value
        return self._whole(value) if value is not None else None

    def _reduction(self, name: str) -> str:
        op = self.op
        call = op.node
        if op.kind == "method":
            operand = call.func.value
        elif call.args and call.args[0].keyword is None:
            operand = call.args[0].value
        else:
            operand = None
        whole = self._whole(operand) if operand is not None else None
        receiver = whole or self.walk.tensor or self._seed_base()
        if receiver is None:
            receiver = "x"  # nothing names the array: a placeholder, not prose
        if op.kind == "method":
            form = f"{_paren_code(receiver)}.{name}(axis=1)"
        else:
            form = f"{op.code}({receiver}, axis=1)"
        return f"reduce along an axis over all rows at once instead (e.g. `{form}`)"

    def _setop(self) -> str:
        arrays = sorted(set(self.walk.whole.values())) or [self._tensor()]
        rows = " and ".join(f"`{a}`" for a in arrays)
        return (
            f"matches the values of each row of {rows} with `{self.op.code}` one row at a time; "
            "compare all rows at once by broadcasting (`(a[:, :, None] == b[:, None, :]).any(axis=-1)`, "
            "then `.sum(axis=1)` to count) instead"
        )

    def _lookup(self) -> str:
        tensor = self._tensor()
        return (
            f"maps each element of `{tensor}` through the dict `{self.op.code}` one at a time; "
            f"get integer codes for all elements at once with `np.unique({tensor}, "
            "return_inverse=True)` (or index a lookup array with the whole array) instead"
        )

    def _gathered(self) -> str:
        """``for i in idxs: f(x[i])``: gather the selection once, then one op on it."""
        op_name = self._op_name()
        subs = [
            g
            for g in self.facts.gathers
            if any(n is g for n in value_nodes(self.sink.value or self.sink.test))
        ]
        sub = next(iter(subs or self.facts.gathers), None)
        what = f"each `{self.ctx.code(sub)}`" if sub is not None else "each selected element"
        if sub is None:
            form = "the selected elements"
        else:
            self.op = Op("gather", "", sub)
            form = "`" + self._gather_form().split("`")[1] + "`"
        return (
            f"applies {op_name} to {what} one at a time; gather {form} once "
            "and apply it to the whole selection instead"
        )

    def _gather(self) -> str:
        return (
            f"gathers `{self.ctx.code(self.op.node)}` one element at a time; " + self._gather_form()
        )

    def _gather_form(self) -> str:
        node = self.op.node
        parts = []
        for element in node.slice:
            sl = element.slice
            name = index_name(element)
            if name is not None and name.value in self.walk.whole:
                parts.append(self.walk.whole[name.value])  # x[idx] for idx in idxs
            elif name is not None and name.value in self.facts.index:
                parts.append(f"np.arange(len({self._tensor()}))")
            else:
                whole = self._whole(sl.value) if isinstance(sl, cst.Index) else None
                parts.append(whole or ":")
        form = f"{self.ctx.code(node.value)}[{', '.join(parts)}]"
        tf_form = ""
        if len(parts) == 1:
            tf_form = f", or `tf.gather({self.ctx.code(node.value)}, {parts[0]})`"
        return f"gather all at once with fancy indexing (`{form}`{tf_form}) instead"

    def _helper(self) -> str:
        op = self.op
        what = self._what()
        tensor = self._tensor()
        if op.helper == "elementwise":
            call = self._whole(op.node)
            form = f"`{call}`" if call else f"`{op.code}` on the whole of `{tensor}`"
            return (
                f"calls `{op.code}` on {what} one at a time; `{op.code}` is built from "
                f"element-wise ops, so call {form} once instead"
            )
        return (
            f"calls `{op.code}` on {what} one at a time; rewrite `{op.code}` to take all rows of "
            f"`{tensor}` at once (broadcasting) and call it once instead"
        )

    def _mask(self) -> str:
        if self.facts.random and self._seed() is None:
            return (
                "draws random numbers and stores them one element at a time; draw them for all "
                "iterations in one call (`size=`) and select with a boolean mask instead"
            )
        test = self.sink.test
        cond = self._whole(test)
        seed = self._seed()
        tested = f"each `{self.ctx.code(seed)}`" if seed is not None else "each element"
        verb = {"append": "collects", "reduce": "accumulates"}.get(self.sink.kind, "stores")
        pair = self._where_pair()
        if cond and pair:
            form = f"np.where({cond}, {pair[0]}, {pair[1]})"
        elif cond:
            value = self._whole(self.sink.value)
            if self.sink.kind == "append" and value:
                form = f"a boolean mask (`{_paren_code(value)}[{cond}]`)"
            else:
                form = f"a boolean mask (`{cond}`)"
            return f"tests {tested} and {verb} a value one at a time; use {form} on whole arrays instead"
        else:
            form = "np.where(condition, a, b)"
        return (
            f"tests {tested} and {verb} a value one at a time; use a boolean mask or "
            f"`{form}` on whole arrays instead"
        )

    def _where_pair(self):
        """The two values an ``if``/``else`` stores into the same target, over whole arrays."""
        facts = self.facts
        target = self.sink.target
        if target is None:
            return None
        key = self.ctx.code(target)
        values = [
            s.value
            for s in facts.sinks
            if s.target is not None and self.ctx.code(s.target) == key and s.test is self.sink.test
        ]
        if len(values) != 2:
            return None
        wholes = [self._whole(v) for v in values]
        return tuple(wholes) if all(wholes) else None

    def _count(self) -> str:
        cond = self._whole(self.sink.test)
        form = f"`np.sum({cond})`" if cond else "`np.sum(condition)` on whole arrays"
        return f"counts matching elements one at a time; count them at once with {form} instead"

    def _scatter(self) -> str:
        target = self.sink.target
        whole_target = self._whole_index(target)
        value = self._whole(self.sink.value) if self.sink.value is not None else None
        form = f" (`{whole_target} = {value}`)" if whole_target and value else ""
        return (
            f"writes `{self.ctx.code(target)}` one element at a time; assign all at once with "
            f"fancy indexing{form} instead"
        )

    def _scatter_add(self) -> str:
        target = self.sink.target
        base = self.ctx.code(target.value)
        index = [
            self._whole(e.slice.value) if isinstance(e.slice, cst.Index) else None
            for e in target.slice
        ]
        value = self._whole(self.sink.value)
        if len(index) == 1 and index[0] and value:
            form = f"`np.add.at({base}, {index[0]}, {value})`"
        else:
            form = "`np.add.at` (or `np.bincount` with weights)"
        return (
            f"adds into `{self.ctx.code(target)}` one element at a time; use {form} instead "
            "(repeated indices add up, unlike `+=` with fancy indexing)"
        )

    def _whole_index(self, target: cst.Subscript) -> Optional[str]:
        """``onehot[val, idx]`` -> ``onehot[y, np.arange(len(y))]``."""
        parts = []
        for element in target.slice:
            sl = element.slice
            if not isinstance(sl, cst.Index):
                return None
            if isinstance(sl.value, cst.Name) and sl.value.value in self.facts.index:
                parts.append(f"np.arange(len({self._tensor()}))")
                continue
            whole = self._whole(sl.value)
            if whole is None:
                return None
            parts.append(whole)
        base = target.value
        if isinstance(base, cst.Name) and base.value in self.walk.whole:
            parts.insert(0, f"np.arange(len({self.walk.whole[base.value]}))")
            return f"{self.walk.whole[base.value]}[{', '.join(parts)}]"
        return f"{self.ctx.code(base)}[{', '.join(parts)}]"
