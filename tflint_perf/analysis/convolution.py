"""Loop nests that convolve or pool: what a nest does with its windows (``windows.py``).

- a window multiplied with a *kernel* (a factor that does not move with the
  window) and summed: ``np.sum(win * w)``, ``(win * w).sum(axis=...)``, through
  names (``prod = win * w; out[i] = prod.sum()``), ``np.dot``/``np.inner``/
  ``np.vdot`` of a 1-D window, ``np.tensordot``/``np.einsum``, or a function of
  the module that sums a product of its parameters: a convolution;
- offsets accumulated, in any loop order: ``acc += x[i + a, j + b] * w[a, b]``
  (or into the output, ``out[i, j] += ...``): a convolution;
- ``np.max``/``np.mean`` (or the methods, or ``max`` of a list of window
  values, or ``m = max(m, x[i + a])``): max or average pooling;
- ``dW += win * g``: a convolution's gradient; ``d_in[window] += ...``: a
  pooling (or input) gradient;
- a neighbourhood written out by hand (``img[r - 1, c] * k[0][1] + ...``).

A 1-D nest counts when it convolves, or pools a window moving one step at a
time (a moving average or maximum); 1-D gradients and chunked statistics do
not. The loops of the nest are the ones the work uses (an epoch loop around
it is not part of it).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from tflint_perf.analysis.api import arraymath as am
from tflint_perf.analysis.arrays import Arrays
from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.semantic import SemanticModel
from tflint_perf.analysis.trips import Trips
from tflint_perf.analysis.windows import Nest, base_of, chain
from tflint_perf.engine import cst
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.walk import descendants


class ConvOp(enum.Enum):
    CONV = "conv"
    MAX_POOL = "max-pool"
    AVG_POOL = "avg-pool"
    POOL = "pool"  # max or average, by a parameter
    CONV_BACKWARD = "conv-backward"
    POOL_BACKWARD = "pool-backward"


class Shape(enum.Enum):
    """How the work was found."""

    WINDOW_SUM = "window-sum"  # a window slice times a kernel, summed
    HELPER = "helper"  # a window handed to a function summing a product
    OFFSETS = "offsets"  # offsets accumulated: x[i + a] * w[a]
    UNROLLED = "unrolled"  # a neighbourhood written out
    POOL = "pool"
    BACKWARD = "backward"


_SUMS = ("sum", "reduce_sum")
_MAXES = ("max", "amax", "reduce_max")
_MEANS = ("mean", "average", "reduce_mean")
_DOTS = ("dot", "inner", "vdot")  # of a 1-D window
_CONTRACTIONS = ("tensordot", "einsum")
_PADS = frozenset({"numpy.pad", "tensorflow.pad"})


@dataclass
class Convolution:
    outer: cst.For  # the loop reported (outermost loop of the nest)
    image: str  # code of the windowed array
    kernel: str  # code of the kernel ("" for pooling)
    shape: Shape
    op: ConvOp
    statement: Optional[cst.CSTNode]  # the statement doing the work
    spatial: List[str] = field(default_factory=list)  # loop variables the window moves along
    loops: List[cst.For] = field(default_factory=list)  # the nest, outermost first
    inner: Optional[cst.For] = None  # the loop over the second spatial variable
    depthwise: bool = False  # the kernel is indexed by the image's channel
    padding: str = "VALID"  # "SAME" when the windowed array was padded first
    stride: str = "1"  # code of the step between windows
    size: str = ""  # code of the window's extent along the spatial axes, when known


class Convolutions:
    """``find_convolution`` once per loop, for every rule (``ctx.shared(Convolutions)``)."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self._found: Dict[cst.CSTNode, Optional[Convolution]] = {}
        # loop -> why a nest that looked like one is not reported (for ``tflint-perf why``)
        self.rejected: Dict[cst.CSTNode, Tuple[Reason, str]] = {}

    def of(self, loop) -> Optional[Convolution]:
        if loop not in self._found:
            self._found[loop] = _find(self.ctx, loop, self.rejected)
        return self._found[loop]


def find_convolution(ctx, outer: cst.CSTNode) -> Optional[Convolution]:
    """If ``outer`` starts a loop nest that convolves or pools, describe it."""
    return ctx.shared(Convolutions).of(outer)


def _find(ctx, outer, rejected) -> Optional[Convolution]:
    loops = chain(outer, ctx)
    if not loops:
        return None
    nest = Nest(ctx, loops)
    classifier = _Classifier(ctx, nest)
    found = classifier.run()
    if found is None:
        if classifier.lists:
            rejected[outer] = (Reason.NOT_DATA, "nested Python lists, not arrays")
        return None
    conv, window = found
    used = {n.value for n in nest.nodes if isinstance(n, cst.Name)}
    for loop in nest.loops:
        used |= set(nest.sem.reads(loop.iter))
    while len(nest.loops) > 1 and nest.vars[0] not in used:
        nest.loops, nest.vars = nest.loops[1:], nest.vars[1:]  # an epoch loop around it
    conv.outer = nest.loops[0]
    conv.loops = nest.loops
    conv.spatial = [v for v in nest.vars if v in conv.spatial]
    if len(conv.spatial) > 1:
        conv.inner = nest.loop_of(conv.spatial[1])
    if window is not None:
        conv.stride = (
            _one_or_tuple(
                [
                    nest.step(e.slice.lower, v)  # type: ignore[attr-defined]
                    for e in window.slice
                    for v in [nest.slide_var(e)]
                    if v
                ]
            )
            or "1"
        )
        conv.size = _one_or_tuple([nest.width(e) for e in window.slice if nest.slide_var(e)])
    conv.padding = _padding(ctx, conv.outer, conv.image)
    if len(conv.spatial) < 2 and not _moving_window(ctx, conv):
        if ctx.shared(Trips).of(conv.outer).tiny:
            rejected[outer] = (Reason.TINY_LOOP, "a handful of window positions")
        else:
            rejected[outer] = (Reason.NOT_WORK, "a 1-D gradient or chunked statistics")
        return None
    return conv


def _moving_window(ctx, conv: Convolution) -> bool:
    """A 1-D nest worth reporting: a convolution, or a pooling whose window moves one
    step at a time over data (a moving average or maximum)."""
    if conv.op is ConvOp.CONV:
        return True
    if conv.op not in (ConvOp.MAX_POOL, ConvOp.AVG_POOL) or conv.stride != "1" or not conv.size:
        return False
    return not ctx.shared(Trips).of(conv.outer).tiny


class _Classifier:
    def __init__(self, ctx, nest: Nest) -> None:
        self.ctx = ctx
        self.nest = nest
        self.arrays: Arrays = ctx.shared(Arrays)
        self.lists = False  # offsets accumulated over lists of lists (plain Python)

    def run(self) -> Optional[Tuple[Convolution, Optional[cst.Subscript]]]:
        return self._windows() or self._offsets() or self._unrolled()

    def _make(self, node, window, kernel, shape: Shape, op: ConvOp):
        nest = self.nest
        conv = Convolution(
            nest.loops[0],
            self.ctx.code(window.value),
            self.ctx.code(kernel) if kernel is not None else "",
            shape,
            op,
            _statement_of(self.ctx, node),
            spatial=nest.slides(window),
        )
        if kernel is not None:
            channels = {
                e.slice.value.value
                for e in window.slice
                if isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Name)
            }
            conv.depthwise = bool(channels & set(self.nest.sem.reads(kernel)) - {nest.vars[0]})
        return conv, window

    # -- windows moved by slices ---------------------------------------------------
    def _windows(self):
        """A gradient written into windows first, then a forward convolution, pooling,
        or a convolution gradient ``dW += win * g``."""
        pools, grads = [], []
        forward = None
        for node in self.nest.nodes:
            if isinstance(node, cst.Call) and forward is None:
                forward = self._conv_call(node)
                pooled = self._pool_call(node)
                if pooled is not None:
                    pools.append(pooled)
            elif isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.AddAssign):
                grad = self._backward(node)
                if grad is not None:
                    grads.append(grad)
        into = [g for g in grads if g[0].op is ConvOp.POOL_BACKWARD]
        out_of = [g for g in grads if g[0].op is ConvOp.CONV_BACKWARD]
        if into:
            return (out_of or into)[0]
        if forward is not None:
            return forward
        if pools:
            if len({p[0].op for p in pools}) > 1:
                pools[0][0].op = ConvOp.POOL  # `if mode == "max": ... else: ...`
            return pools[0]
        if out_of and len(self.nest.loops) >= 3:
            return out_of[0]
        return None  # `out += image[a:a + h, b:b + w] * k[a, b]`: offsets, already vectorised

    def _conv_call(self, call: cst.Call):
        qual = self.ctx.call_name(call) or ""
        last = qual.rsplit(".", 1)[-1]
        op = am.op(qual, len(call.args)) if qual else None
        func = call.func
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        operand = None
        if op is am.ArrayOp.REDUCTION and last in _SUMS and len(positional) == 1:
            operand = positional[0]
        elif not qual and isinstance(func, cst.Attribute) and func.attr.value == "sum":
            if not positional:
                operand = func.value  # (win * w).sum(), .sum(axis=(0, 1))
        if operand is not None:
            for window, kernel in self._factors(operand):
                return self._make(call, window, kernel, Shape.WINDOW_SUM, ConvOp.CONV)
            return None
        if op is am.ArrayOp.PRODUCT and last in _DOTS + _CONTRACTIONS:
            operands = [p for p in positional if not isinstance(p, cst.SimpleString)]
            if len(operands) == 2:
                a, b = operands
                for window, kernel in ((a, b), (b, a)):
                    window = self.nest.window_of(window)
                    if window is None or self._moves(kernel):
                        continue
                    if last in _DOTS and len(self.nest.slides(window)) != 1:
                        continue  # a 2-D window times a matrix: a product, not a correlation
                    return self._make(call, window, kernel, Shape.WINDOW_SUM, ConvOp.CONV)
            return None
        return self._helper(call)

    def _helper(self, call: cst.Call):
        """``conv_single_step(a_slice, W, b)``: a window handed to a function of the
        module that sums a product of two of its parameters."""
        targets = self.ctx.shared(CallGraph).resolve(call)
        if len(targets) != 1 or not _sums_a_product(self.ctx, targets[0]):
            return None
        args = [a.value for a in call.args if a.keyword is None and not a.star]
        windows = [a for a in args if self.nest.window_of(a) is not None]
        others = [a for a in args if self.nest.window_of(a) is None]
        if len(windows) == 1 and others:
            window = self.nest.window_of(windows[0])
            return self._make(call, window, others[0], Shape.HELPER, ConvOp.CONV)
        return None

    def _factors(self, product, depth: int = 0):
        """(window, other factor) pairs of ``a * b`` / ``np.multiply(a, b)``, also
        through a name the nest binds to one."""
        if isinstance(product, cst.Name) and depth < 3:
            value = self.nest.bound_in_nest(product)
            if value is not None:
                yield from self._factors(value, depth + 1)
            return
        pairs: List[tuple] = []
        if isinstance(product, cst.BinaryOperation) and isinstance(product.operator, cst.Multiply):
            pairs = [(product.left, product.right), (product.right, product.left)]
        elif isinstance(product, cst.Call) and (self.ctx.call_name(product) or "").endswith(
            ".multiply"
        ):
            if len(product.args) == 2:
                a, b = (arg.value for arg in product.args)
                pairs = [(a, b), (b, a)]
        for a, b in pairs:
            window = self.nest.window_of(a)
            if window is not None and self.nest.window_of(b) is None and not self._moves(b):
                yield window, b

    def _moves(self, expr) -> bool:
        """Whether ``expr`` itself moves with a window (it is not a kernel)."""
        return any(
            self.nest.slide_var(e)
            for n in [expr, *descendants(expr)]
            if isinstance(n, cst.Subscript)
            for e in n.slice
        )

    def _pool_call(self, call: cst.Call):
        """``np.max(win)`` / ``np.mean(win)`` / ``win.max()`` over a whole window."""
        qual = self.ctx.call_name(call) or ""
        last = qual.rsplit(".", 1)[-1]
        positional = [a.value for a in call.args if a.keyword is None]
        operand, name = None, ""
        if am.op(qual) is am.ArrayOp.REDUCTION and last in _MAXES + _MEANS and len(positional) == 1:
            operand, name = positional[0], last
        elif not qual and isinstance(call.func, cst.Attribute) and not positional:
            if call.func.attr.value in ("max", "mean"):
                operand, name = call.func.value, call.func.attr.value
        window = self.nest.window_of(operand) if operand is not None else None
        if window is None:
            return None
        op = ConvOp.MAX_POOL if name in _MAXES else ConvOp.AVG_POOL
        return self._make(call, window, None, Shape.POOL, op)

    def _backward(self, node: cst.AugAssign):
        """``dW += win * g`` (a convolution gradient) or ``d_in[window] += g``."""
        for window, factor in self._factors(node.value):
            return self._make(node, window, factor, Shape.BACKWARD, ConvOp.CONV_BACKWARD)
        target = self.nest.window_of(node.target)
        if target is not None:
            return self._make(node, target, None, Shape.BACKWARD, ConvOp.POOL_BACKWARD)
        return None

    # -- windows moved by offsets ----------------------------------------------------
    def _offsets(self):
        """``acc += x[i + a, j + b] * w[a, b]`` in any loop order: the image indexed by
        positions plus offsets, the kernel by the offsets alone."""
        nest = self.nest
        for node in nest.nodes:
            product = _accumulated(node)
            if product is None:
                continue
            for image, kernel in ((product.left, product.right), (product.right, product.left)):
                pairs = nest.offsets(image)
                if not pairs or not isinstance(kernel, cst.Subscript):
                    continue
                kernel_vars = set(nest.sem.reads(kernel)) & set(nest.vars)
                # the offset indexes the kernel too: x[i + a] * w[a] (whatever the loop order)
                pairs = [(p, o) if o in kernel_vars else (o, p) for p, o in pairs]
                positions = {p for p, _ in pairs}
                offsets = {o for _, o in pairs}
                if not kernel_vars & offsets or kernel_vars & positions:
                    continue
                if not (
                    self.arrays.is_array(base_of(image))
                    or self.arrays.is_array(base_of(kernel))
                    or len(image.slice) >= 2  # only arrays take a tuple index: x[i + a, j + b]
                ):
                    self.lists = True
                    continue  # lists of lists: plain Python, not array code
                conv = Convolution(
                    nest.loops[0],
                    self.ctx.code(base_of(image)),
                    self.ctx.code(base_of(kernel)),
                    Shape.OFFSETS,
                    ConvOp.CONV,
                    _statement_of(self.ctx, node),
                    spatial=sorted(positions, key=nest.vars.index),
                )
                conv.stride = _one_or_tuple([self._offset_step(image, p) for p in conv.spatial])
                return conv, None
        return None

    def _offset_step(self, image, var: str) -> str:
        for element in _index_nodes(image):
            if var in self.nest.vars_in(self.nest.poly(element.value)):
                return self.nest.step(element.value, var)
        return "1"

    # -- a neighbourhood written out ------------------------------------------------
    def _unrolled(self):
        """``c = img[x - 1, y - 1] * k[0][0] + ...`` (a convolution) or
        ``pixels = [img[x, y], img[x + 1, y], ...]`` ... ``max(pixels)`` (max pooling)."""
        nest = self.nest
        if len(nest.vars) < 2:
            return None
        reads: Dict[str, Dict[tuple, list]] = {}
        for n in nest.nodes:
            found = self._neighbour(n) if isinstance(n, cst.Subscript) else None
            if found is not None:
                image, offsets = found
                reads.setdefault(image, {}).setdefault(offsets, []).append(n)
        for image, by_offset in reads.items():
            if len(by_offset) < 3:
                continue
            subs = [sub for group in by_offset.values() for sub in group]
            if not (self.arrays.is_array(base_of(subs[0])) or any(len(s.slice) >= 2 for s in subs)):
                continue  # lists of lists (only arrays take a tuple index: img[x, y])
            found = self._unrolled_kind(subs, by_offset)
            if found is None:
                continue
            op, kernel, statement = found
            first = next(iter(by_offset))
            spatial = [v for v in nest.vars if v in (first[0], first[2])]
            conv = Convolution(
                nest.loops[0], image, kernel, Shape.UNROLLED, op, statement, spatial=spatial
            )
            steps = [_range_step(self.ctx, nest.loop_of(v)) for v in spatial]
            conv.stride = _one_or_tuple(steps) or "1"
            if op is ConvOp.MAX_POOL:
                spans = [
                    max(o[k] for o in by_offset) - min(o[k] for o in by_offset) + 1 for k in (1, 3)
                ]
                conv.size = _one_or_tuple([str(x) for x in spans])
            return conv, None
        return None

    def _neighbour(self, sub: cst.Subscript):
        """``img[x + 1, y - 1]`` / ``img[x][y]``: (image, (x, 1, y, -1)) for two loop
        variables each shifted by a number."""
        elements = _index_nodes(sub)
        if len(elements) < 2:
            return None
        found = []
        for element in elements:
            used = self.nest.vars_in(self.nest.poly(element.value))
            if len(used) == 1:
                var = next(iter(used))
                shift = self.nest.shift(element.value, var)
                if shift is not None:
                    found.append((var, shift))
        if len(found) != 2 or found[0][0] == found[1][0]:
            return None
        (v1, o1), (v2, o2) = found
        return self.ctx.code(base_of(sub)), (v1, o1, v2, o2)

    def _unrolled_kind(self, subs, by_offset):
        ctx, nest = self.ctx, self.nest
        products = []
        collected = 0
        for sub in subs:
            parent = ctx.parent(sub)
            if isinstance(parent, cst.BinaryOperation) and isinstance(
                parent.operator, cst.Multiply
            ):
                other = parent.right if parent.left is sub else parent.left
                if not set(nest.sem.reads(other)) & set(nest.vars):
                    products.append((parent, other))
            elif isinstance(parent, (cst.Arg, cst.Element)):
                collected += 1
        if len(products) >= 3:
            parent, other = products[0]
            return ConvOp.CONV, ctx.code(base_of(other)), _statement_of(ctx, parent)
        reduces = any(
            isinstance(n, cst.Call)
            and (
                (isinstance(n.func, cst.Name) and n.func.value == "max")
                or (ctx.call_name(n) or "").rsplit(".", 1)[-1] in _MAXES
                or (isinstance(n.func, cst.Attribute) and n.func.attr.value in ("sort", "max"))
            )
            for n in nest.nodes
        )
        if collected >= 3 and reduces:
            return ConvOp.MAX_POOL, "", _statement_of(ctx, subs[0])
        return None


def _accumulated(node) -> Optional[cst.BinaryOperation]:
    """The product of ``t += a * b`` or ``acc = acc + a * b``."""
    value = None
    if isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.AddAssign):
        value = node.value
    elif isinstance(node, cst.Assign) and len(node.targets) == 1:
        target = node.targets[0].target
        rhs = node.value
        if (
            isinstance(target, cst.Name)
            and isinstance(rhs, cst.BinaryOperation)
            and isinstance(rhs.operator, cst.Add)
            and isinstance(rhs.left, cst.Name)
            and rhs.left.value == target.value
        ):
            value = rhs.right
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Multiply):
        return value
    return None


def _index_nodes(sub) -> List[cst.Index]:
    """The index elements of ``x[p, q]`` or ``x[p][q]`` (slices skipped)."""
    out: List[cst.Index] = []
    while isinstance(sub, cst.Subscript):
        out = [e.slice for e in sub.slice if isinstance(e.slice, cst.Index)] + out
        sub = sub.value
    return out


def _sums_a_product(ctx, func: cst.FunctionDef) -> bool:
    """The function sums a product of two of its parameters (``np.sum(a * w) + b``),
    directly or through a name."""
    params = {p.name.value for p in func.params.params}
    for n in descendants(func.body, skip_scopes=True):
        if isinstance(n, cst.Call) and n.args:
            last = (ctx.call_name(n) or "").rsplit(".", 1)[-1]
            if last in _SUMS and _is_product(ctx, params, n.args[0].value):
                return True
    return False


def _is_product(ctx, params, expr, depth: int = 0) -> bool:
    """``a * w`` of two of ``params`` in ``expr`` (or in the value of a name it is).
    (Not a local function: calling itself, it would hold the tree in a cycle.)"""
    if isinstance(expr, cst.Name) and depth < 3:
        value = ctx.shared(SemanticModel).value_of(expr)
        return value is not None and _is_product(ctx, params, value, depth + 1)
    for n in [expr, *descendants(expr)]:
        operands: tuple = ()
        if isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.Multiply):
            operands = (n.left, n.right)
        elif isinstance(n, cst.Call) and (ctx.call_name(n) or "").endswith(".multiply"):
            operands = tuple(a.value for a in n.args)
        if len(operands) == 2 and all(
            isinstance(o, cst.Name) and o.value in params for o in operands
        ):
            return True
    return False


def _statement_of(ctx, node):
    for parent in [node, *ctx.ancestors_of(node)]:
        if isinstance(parent, cst.SimpleStatementLine):
            return parent
    return None


def _range_step(ctx, loop) -> str:
    args = loop.iter.args
    return ctx.code(args[2].value) if len(args) == 3 else "1"


def _one_or_tuple(codes: list) -> str:
    if not codes:
        return ""
    if len(set(codes)) == 1:
        return codes[0]
    return f"({', '.join(codes)})"


def _padding(ctx, outer, image_code: str) -> str:
    """ "SAME" when the windowed array was padded first (``np.pad``/``tf.pad``, or a
    function of the module calling one), else "VALID"."""
    sem = ctx.shared(SemanticModel)
    try:
        expr = cst.parse_expression(image_code)
    except Exception:  # noqa: BLE001 - not an expression
        return "VALID"
    names = [n for n in descendants(outer) if isinstance(n, (cst.Name, cst.Attribute))]
    node = next((n for n in names if ctx.code(n) == ctx.code(expr)), None)
    for _ in range(3):
        if node is None:
            return "VALID"
        found = sem.lookup_name(node)
        if len(found) != 1 or not found[0].plain:
            return "VALID"
        value = found[0].value
        if isinstance(value, cst.Call) and (
            ctx.call_name(value) in _PADS or _calls_a_pad(ctx, value)
        ):
            return "SAME"
        if isinstance(value, cst.Subscript) and isinstance(value.value, (cst.Name, cst.Attribute)):
            node = value.value  # a_prev_pad = A_prev_pad[i]
            continue
        return "VALID"
    return "VALID"


def _calls_a_pad(ctx, call: cst.Call) -> bool:
    for target in ctx.shared(CallGraph).resolve(call):
        if any(
            isinstance(n, cst.Call) and ctx.call_name(n) in _PADS
            for n in descendants(target.body, skip_scopes=True)
        ):
            return True
    return False
