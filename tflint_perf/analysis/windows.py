"""Loop nests that slide a window over an array: hand-written convolution,
correlation and pooling, forward and backward.

Shared by the loop rules: TFP102 reports these nests, TFP101 stays silent
on them (a convolution is not an element-wise loop).

A nest is a chain of ``for v in range(...)`` loops, each holding the next
(plus simple statements). Its windows are subscripts whose slices start and
end at a loop variable (``x[i:i + k]``, ``x[h * s:h * s + f, w * s:w * s + f, :]``,
also through names such as ``vert_start = h * stride``). What the nest
does with a window decides the kind:

- ``conv``: a product of the window with something that does not slide,
  summed (``np.sum(win * w)``, ``(win * w).sum()``, ``np.sum(np.multiply(win, w))``),
  or the window handed to a helper of the module that sums such a product
  (``conv_single_step(a_slice, W, b)``);
- ``max-pool`` / ``avg-pool``: ``np.max(win)`` / ``np.mean(win)`` (or the methods);
- ``conv-backward``: ``dW += win * g`` (a gradient accumulated from windows);
- ``pool-backward``: ``d_in[window] += ...`` with no such product;
- ``conv`` by offsets: two more loops over the kernel offsets accumulating
  ``x[i + a, j + b] * w[a, b]``.
"""

from __future__ import annotations

from typing import Dict, List, Optional

from tflint_perf.analysis.loops import range_call, small_literal
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.nodes import node_types
from tflint_perf.engine.walk import descendants

SCOPES = node_types("FunctionDef", "Lambda")
_SUMS = frozenset(
    {
        "numpy.sum",
        "tensorflow.reduce_sum",
        "tensorflow.math.reduce_sum",
        "keras.ops.sum",
    }
)
_MAXES = frozenset({"numpy.max", "numpy.amax", "tensorflow.reduce_max", "keras.ops.max"})
_MEANS = frozenset({"numpy.mean", "numpy.average", "tensorflow.reduce_mean", "keras.ops.mean"})
# A 1-D window dotted with a kernel is a multiply-accumulate too.
_DOTS = frozenset({"numpy.dot", "numpy.inner", "numpy.vdot"})
_MULTIPLY = frozenset({"numpy.multiply", "tensorflow.multiply", "tensorflow.math.multiply"})
_PADS = frozenset({"numpy.pad", "tensorflow.pad"})
# Position arithmetic allowed in a window bound.
_BOUND_NODES = node_types(
    "Name",
    "Subscript",
    "SubscriptElement",
    "Index",
    "Call",
    "Arg",
    "Integer",
    "BinaryOperation",
    "UnaryOperation",
    "Attribute",
    "Add",
    "Subtract",
    "Multiply",
    "FloorDivide",
    "Minus",
    "LeftParen",
    "RightParen",
)


class Convolution:
    """A loop nest recognised as a hand-written convolution or pooling."""

    def __init__(self, outer, inner, image, kernel, kind, padding, stride, statement) -> None:
        self.outer = outer  # the For reported (outermost loop of the nest)
        self.inner = inner  # the For over the second spatial index (None in 1-D)
        self.image = image  # code of the windowed array
        self.kernel = kernel  # code of the kernel ("" for pooling)
        self.kind = kind  # how it was found: "window-sum", "helper", "offset-loops", ...
        self.padding = padding  # "VALID" or "SAME"
        self.stride = stride  # code of the stride, "1" when none
        self.statement = statement  # the statement doing the work
        self.op = "conv"  # conv, max-pool, avg-pool, conv-backward, pool-backward
        self.spatial: List[str] = []  # loop variables the window slides along
        self.loops: List[cst.For] = []  # the nest, outermost first
        self.depthwise = False  # the kernel is indexed by the image's channel
        self.size = ""  # code of the window size along the spatial axes, when known


def _loop_var(loop) -> Optional[str]:
    if (
        isinstance(loop, cst.For)
        and isinstance(loop.target, cst.Name)
        and range_call(loop.iter) is not None
    ):
        return loop.target.value
    return None


def _has_loop(node) -> bool:
    return any(isinstance(n, (cst.For, cst.While)) for n in descendants(node, skip_scopes=True))


def _single_inner_for(loop) -> Optional[cst.For]:
    """The only loop among ``loop``'s statements (others: no loops inside)."""
    fors = [s for s in loop.body.body if isinstance(s, cst.For)]
    others = [s for s in loop.body.body if not isinstance(s, (cst.For, cst.SimpleStatementLine))]
    if len(fors) == 1 and not any(_has_loop(s) for s in others):
        return fors[0]
    return None


def _chain(outer) -> List[cst.For]:
    """``outer`` and the range loops nested one in another below it."""
    loops = []
    loop = outer
    while loop is not None and _loop_var(loop) is not None:
        loops.append(loop)
        loop = _single_inner_for(loop)
    return loops


def _names_in(node) -> set:
    return {n.value for n in [node, *descendants(node)] if isinstance(n, cst.Name)}


def _statements(loops) -> list:
    """The nest's statements below the loop headers (nested scopes skipped)."""
    inner = loops[-1]
    found = [n for n in descendants(inner.body, skip_scopes=True)]
    for loop in loops[:-1]:
        for stmt in loop.body.body:
            if isinstance(stmt, cst.SimpleStatementLine):
                found.extend([stmt, *descendants(stmt)])
    return found


def _positions(nodes, loop_vars: set) -> Dict[str, cst.BaseExpression]:
    """Names holding a position along one loop variable (``vert_start = h * stride``)."""
    assigns = [
        n
        for n in nodes
        if isinstance(n, cst.Assign)
        and len(n.targets) == 1
        and isinstance(n.targets[0].target, cst.Name)
    ]
    positions: Dict[str, cst.BaseExpression] = {}
    for _ in range(3):
        for a in assigns:
            target = a.targets[0].target
            assert isinstance(target, cst.Name)  # the assignments kept above
            name = target.value
            if name in positions or name in loop_vars:
                continue
            if _is_bound(a.value) and _vars_of(a.value, positions, loop_vars):
                positions[name] = a.value
    return positions


def _is_bound(expr) -> bool:
    """Position arithmetic: names, numbers, + - * //, sizes (``k.shape[0]``, ``len(w)``)."""
    for n in [expr, *descendants(expr)]:
        if not isinstance(n, _BOUND_NODES):
            return False
        if isinstance(n, cst.Subscript) and not (
            isinstance(n.value, cst.Attribute)
            and n.value.attr.value == "shape"
            and all(
                isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Integer)
                for e in n.slice
            )
        ):
            return False  # x[starts[i]:ends[i]]: segments, not windows
        if isinstance(n, cst.Call) and not (
            isinstance(n.func, cst.Name) and n.func.value in ("len", "int")
        ):
            return False
    return True


def _vars_of(expr, positions, loop_vars: set) -> set:
    """The loop variables a position expression depends on."""
    found = set()
    for name in _names_in(expr):
        if name in loop_vars:
            found.add(name)
        elif name in positions:
            found |= _vars_of(positions[name], positions, loop_vars)
    return found


def _expand(expr, positions):
    """``expr`` with position names replaced by what they hold (one level)."""
    while isinstance(expr, cst.Name) and expr.value in positions:
        expr = positions[expr.value]
    return expr


class _Nest:
    """The windows of one loop nest."""

    def __init__(self, ctx, loops) -> None:
        self.ctx = ctx
        self.loops = loops
        # _chain keeps only range loops over a name: one variable per loop
        self.vars = [v for v in map(_loop_var, loops) if v is not None]
        self.nodes = _statements(loops)
        self.positions = _positions(self.nodes, set(self.vars))
        self.window_names: Dict[str, cst.Subscript] = {}
        for n in self.nodes:
            if (
                isinstance(n, cst.Assign)
                and len(n.targets) == 1
                and isinstance(n.targets[0].target, cst.Name)
                and isinstance(n.value, cst.Subscript)  # what slides() accepts
                and self.slides(n.value)
            ):
                self.window_names[n.targets[0].target.value] = n.value

    def slide_var(self, element: cst.SubscriptElement) -> Optional[str]:
        """The loop variable a slice ``lo:hi`` slides along, if it is a window."""
        sl = element.slice
        if not isinstance(sl, cst.Slice) or sl.lower is None or sl.upper is None:
            return None
        if sl.step is not None or not (_is_bound(sl.lower) and _is_bound(sl.upper)):
            return None
        lower = _vars_of(sl.lower, self.positions, set(self.vars))
        upper = _vars_of(sl.upper, self.positions, set(self.vars))
        if len(lower) == 1 and lower == upper:
            return next(iter(lower))
        return None

    def slides(self, expr) -> List[str]:
        """The loop variables a window subscript slides along ([] if not a window)."""
        if not isinstance(expr, cst.Subscript):
            return []
        found = []
        for element in expr.slice:
            var = self.slide_var(element)
            if var is not None:
                found.append(var)
            elif not self._plain_index(element):
                return []
        return found if len(set(found)) == len(found) else []

    def _plain_index(self, element) -> bool:
        sl = element.slice
        if isinstance(sl, cst.Slice):
            return sl.lower is None and sl.upper is None and sl.step is None
        value = sl.value
        if isinstance(value, (cst.Integer, cst.Ellipsis)):
            return True
        return isinstance(value, cst.Name) and value.value in self.vars

    def window_of(self, expr) -> Optional[cst.Subscript]:
        """The window ``expr`` is (a window subscript or a name bound to one)."""
        if isinstance(expr, cst.Name) and expr.value in self.window_names:
            return self.window_names[expr.value]
        if self.slides(expr):
            return expr
        return None


class Convolutions:
    """``find_convolution`` once per loop, for every rule (``ctx.shared(Convolutions)``)."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self._found: dict = {}

    def of(self, loop) -> Optional[Convolution]:
        if loop not in self._found:
            self._found[loop] = _find(self.ctx, loop)
        return self._found[loop]


def find_convolution(ctx, outer: cst.CSTNode) -> Optional[Convolution]:
    """If ``outer`` starts a loop nest that convolves or pools, describe it."""
    return ctx.shared(Convolutions).of(outer)


def _find(ctx, outer) -> Optional[Convolution]:
    loops = _chain(outer)
    if not loops:
        return None
    if len(loops) == 1 and not any(
        isinstance(n, cst.Slice) for n in descendants(outer.body, skip_scopes=True)
    ):
        return None  # one loop and no window slice: nothing slides
    nest = _Nest(ctx, loops)
    found = _classify(ctx, nest) or _offset_loops(ctx, nest) or _unrolled(ctx, nest)
    if found is None:
        return None
    conv, window = found
    used = _names_in_all(nest, conv)
    # Loops outside the work (an epoch loop around it) are not part of the nest.
    while len(nest.loops) > 1 and nest.vars[0] not in used:
        nest.loops, nest.vars = nest.loops[1:], nest.vars[1:]
    conv.outer = nest.loops[0]
    conv.loops = nest.loops
    if conv.inner is None and len(conv.spatial) > 1:
        conv.inner = next(
            (lp for lp, v in zip(nest.loops, nest.vars) if v == conv.spatial[1]), None
        )
    if window is not None:
        conv.stride = _stride(ctx, nest, window)
        conv.size = _size(ctx, nest, window)
    conv.padding = _padding(ctx, conv.outer, conv.image)
    if len(conv.spatial) < 2 and not _moving_window(ctx, conv):
        return None
    return conv


def _moving_window(ctx, conv) -> bool:
    """A 1-D nest worth reporting: a convolution, or a pooling whose window moves
    one step at a time (a moving average/maximum); chunked statistics
    (``x[i * n:(i + 1) * n]``) and 1-D gradients are not."""
    if conv.op == "conv":
        return True
    if conv.op not in ("max-pool", "avg-pool") or conv.stride != "1" or not conv.size:
        return False
    return not small_literal(ctx, conv.outer.iter)


def _names_in_all(nest: _Nest, conv) -> set:
    names = set()
    for n in nest.nodes:
        if isinstance(n, cst.Name):
            names.add(n.value)
    for loop in nest.loops:
        names |= _names_in(loop.iter)
    return names


def _classify(ctx, nest: _Nest):
    """What the nest does with its windows: a gradient written into windows first,
    then a forward convolution, pooling, or a convolution gradient ``dW += win * g``."""
    pools, grads = [], []
    forward = None
    for node in nest.nodes:
        if isinstance(node, cst.Call) and forward is None:
            forward = _conv_call(ctx, nest, node)
            found = _pool_call(ctx, nest, node)
            if found is not None:
                pools.append(found)
        elif isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.AddAssign):
            found = _backward(ctx, nest, node)
            if found is not None:
                grads.append(found)
    into_window = [f for f in grads if f[0].op == "pool-backward"]
    from_window = [f for f in grads if f[0].op == "conv-backward"]
    if into_window:
        return (from_window or into_window)[0]
    if forward is not None:
        return forward
    if pools:
        if len({f[0].op for f in pools}) > 1:
            pools[0][0].op = "pool"  # `if mode == "max": ... else: ...`
        return pools[0]
    if from_window and len(nest.loops) >= 3:
        return from_window[0]
    return None  # `out += image[a:a + h, b:b + w] * k[a, b]`: offsets, already vectorised


def _make(ctx, node, nest, window, kernel, kind, op):
    spatial = nest.slides(window)
    conv = Convolution(
        None,
        None,
        ctx.code(window.value),
        ctx.code(kernel) if kernel is not None else "",
        kind,
        "VALID",
        "1",
        _statement_of(ctx, node),
    )
    conv.op = op
    conv.spatial = [v for v in nest.vars if v in spatial]
    if kernel is not None:
        channels = {
            e.slice.value.value
            for e in window.slice
            if isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Name)
        }
        conv.depthwise = bool(channels & _names_in(kernel) - {nest.vars[0]})
    return conv, window


def _conv_call(ctx, nest, call):
    """``np.sum(win * w)``, ``(win * w).sum()``, ``helper(win, w, ...)``."""
    qual = ctx.call_name(call)
    product = None
    if qual in _SUMS and len(call.args) == 1:
        product = call.args[0].value
    elif (
        qual is None
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "sum"
        and not call.args
    ):
        product = call.func.value
    if product is not None:
        for window, kernel in _factors(ctx, nest, product):
            return _make(ctx, call, nest, window, kernel, "window-sum", "conv")
        return None
    if qual in _DOTS and len(call.args) == 2:
        a, b = (arg.value for arg in call.args)
        for window, kernel in ((a, b), (b, a)):
            window = nest.window_of(window)
            if window is not None and len(nest.slides(window)) == 1 and not _slid_by(nest, kernel):
                return _make(ctx, call, nest, window, kernel, "window-sum", "conv")
        return None
    helper = _helper_def(ctx, call)
    if helper is not None and _sums_a_product(ctx, helper):
        args = [a.value for a in call.args if a.keyword is None and not a.star]
        windows = [a for a in args if nest.window_of(a) is not None]
        others = [a for a in args if nest.window_of(a) is None]
        if len(windows) == 1 and others:
            return _make(ctx, call, nest, nest.window_of(windows[0]), others[0], "helper", "conv")
    return None


def _factors(ctx, nest, product):
    """(window, other factor) pairs of a product ``a * b`` / ``np.multiply(a, b)``."""
    pairs = []
    if isinstance(product, cst.BinaryOperation) and isinstance(product.operator, cst.Multiply):
        pairs = [(product.left, product.right), (product.right, product.left)]
    elif isinstance(product, cst.Call) and ctx.call_name(product) in _MULTIPLY:
        if len(product.args) == 2:
            a, b = (arg.value for arg in product.args)
            pairs = [(a, b), (b, a)]
    for a, b in pairs:
        window = nest.window_of(a)
        if window is not None and nest.window_of(b) is None and not _slid_by(nest, b):
            yield window, b


def _slid_by(nest, expr) -> bool:
    """Whether ``expr`` itself moves with a spatial loop (it is not a kernel)."""
    return any(
        nest.slide_var(e)
        for n in [expr, *descendants(expr)]
        if isinstance(n, cst.Subscript)
        for e in n.slice
    )


def _pool_call(ctx, nest, call):
    """``np.max(win)`` / ``np.mean(win)`` / ``win.max()`` over a whole window."""
    qual = ctx.call_name(call)
    operand = None
    if qual in _MAXES or qual in _MEANS:
        if len(call.args) == 1 and call.args[0].keyword is None:
            operand = call.args[0].value
        op = "max-pool" if qual in _MAXES else "avg-pool"
    elif (
        qual is None
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value in ("max", "mean")
        and not call.args
    ):
        operand = call.func.value
        op = "max-pool" if call.func.attr.value == "max" else "avg-pool"
    window = nest.window_of(operand) if operand is not None else None
    if window is None:
        return None
    return _make(ctx, call, nest, window, None, "pool", op)


def _backward(ctx, nest, node: cst.AugAssign):
    """``dW += win * g`` (convolution gradient) or ``d_in[window] += g`` (pooling or input gradient)."""
    for window, factor in _factors(ctx, nest, node.value):
        return _make(ctx, node, nest, window, factor, "backward", "conv-backward")
    target = nest.window_of(node.target)
    if target is not None and isinstance(node.target, cst.Subscript):
        return _make(ctx, node, nest, target, None, "backward", "pool-backward")
    return None


def _helper_def(ctx, call: cst.Call) -> Optional[cst.FunctionDef]:
    if not isinstance(call.func, cst.Name):
        return None
    name = call.func.value
    defs = [
        d
        for d in ctx.nodes(cst.FunctionDef)
        if d.name.value == name and not isinstance(ctx.parent(ctx.parent(d)), cst.ClassDef)
    ]
    return defs[0] if len(defs) == 1 else None


def _sums_a_product(ctx, func: cst.FunctionDef) -> bool:
    """The helper sums a product of two of its parameters (``np.sum(a * w) + b``)."""
    params = {p.name.value for p in func.params.params}
    products: set[str] = set()  # names holding the product
    nodes = list(descendants(func.body, skip_scopes=True))

    def is_product(expr) -> bool:
        for n in [expr, *descendants(expr)]:
            if isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.Multiply):
                operands: tuple[cst.BaseExpression, ...] = (n.left, n.right)
            elif isinstance(n, cst.Call) and ctx.call_name(n) in _MULTIPLY and len(n.args) == 2:
                operands = tuple(a.value for a in n.args)
            else:
                continue
            if all(isinstance(o, cst.Name) and o.value in params for o in operands):
                return True
        return False

    for n in nodes:
        if isinstance(n, cst.Assign) and len(n.targets) == 1:
            target = n.targets[0].target
            if isinstance(target, cst.Name) and (
                is_product(n.value) or _names_in(n.value) & products
            ):
                products.add(target.value)
    for n in nodes:
        if isinstance(n, cst.Call) and ctx.call_name(n) in _SUMS and len(n.args) >= 1:
            arg = n.args[0].value
            if is_product(arg) or (isinstance(arg, cst.Name) and arg.value in products):
                return True
    return False


def _stride(ctx, nest, window) -> str:
    """The step between windows along each spatial variable (``"1"``, ``"s"``, ``"(sh, sw)"``)."""
    strides = []
    for element in window.slice:
        var = nest.slide_var(element)
        if var is None:
            continue
        loop = nest.loops[nest.vars.index(var)]
        strides.append(_stride_of(ctx, _expand(element.slice.lower, nest.positions), var, loop))
    return _one_or_tuple(strides) or "1"


def _size(ctx, nest, window) -> str:
    """The window's extent: ``f`` for ``x[h * s:h * s + f]`` ("" when not plain)."""
    sizes = []
    for element in window.slice:
        if nest.slide_var(element) is None:
            continue
        lower = element.slice.lower
        upper = _expand(element.slice.upper, nest.positions)
        if not (isinstance(upper, cst.BinaryOperation) and isinstance(upper.operator, cst.Add)):
            return ""
        start = upper.left
        if not (
            ctx.code(start) == ctx.code(lower)
            or ctx.code(_expand(start, nest.positions)) == ctx.code(_expand(lower, nest.positions))
        ):
            return ""
        sizes.append(ctx.code(upper.right))
    return _one_or_tuple(sizes)


def _one_or_tuple(codes: list) -> str:
    if not codes:
        return ""
    if len(set(codes)) == 1:
        return codes[0]
    return f"({', '.join(codes)})"


def _stride_of(ctx, lower, var: str, loop) -> str:
    """``h * s`` -> ``s``; ``i`` over ``range(0, n, s)`` -> ``s``; otherwise 1."""
    if isinstance(lower, cst.BinaryOperation) and isinstance(
        lower.operator, (cst.Add, cst.Subtract)
    ):
        if var in _names_in(lower.left):
            lower = lower.left  # i * s - pad
    if isinstance(lower, cst.BinaryOperation) and isinstance(lower.operator, cst.Multiply):
        if isinstance(lower.left, cst.Name) and lower.left.value == var:
            return ctx.code(lower.right)
        if isinstance(lower.right, cst.Name) and lower.right.value == var:
            return ctx.code(lower.left)
    args = loop.iter.args
    if isinstance(lower, cst.Name) and lower.value == var and len(args) == 3:
        return ctx.code(args[2].value)
    return "1"


def _unrolled(ctx, nest: _Nest):
    """A neighbourhood written out by hand: ``c = c + img[x - 1, y - 1] * k[0][0] + ...``
    (a convolution) or ``pixels.append(img[x + 1, y])`` ... ``max(pixels)`` (max pooling)."""
    if len(nest.vars) < 2:
        return None
    reads: Dict[str, dict] = {}  # image -> offsets -> subscripts read there
    for n in nest.nodes:
        found = _neighbour(ctx, nest, n) if isinstance(n, cst.Subscript) else None
        if found is not None:
            image, offsets = found
            reads.setdefault(image, {}).setdefault(offsets, []).append(n)
    for image, by_offset in reads.items():
        if len(by_offset) < 3:
            continue
        subs = [sub for group in by_offset.values() for sub in group]
        found = _unrolled_kind(ctx, nest, subs, by_offset)
        if found is not None:
            op, kernel, statement, spatial = found
            conv = Convolution(None, None, image, kernel, "unrolled", "VALID", "1", statement)
            conv.op = op
            conv.spatial = [v for v in nest.vars if v in spatial]
            steps = [_range_step(ctx, nest.loops[nest.vars.index(v)]) for v in conv.spatial]
            conv.stride = _one_or_tuple(steps)
            if op == "max-pool":
                spans = [
                    max(o[k] for o in by_offset) - min(o[k] for o in by_offset) + 1 for k in (1, 3)
                ]
                conv.size = _one_or_tuple([str(x) for x in spans])
            return conv, None
    return None


def _neighbour(ctx, nest, sub):
    """``img[x + 1, y - 1]`` / ``img[x][y]``: (image, (x, 1, y, -1)) for two loop variables."""
    indices = _indices(sub)
    if indices is None or len(indices) < 2:
        return None
    found = []
    for index in indices:
        offset = _offset_of(index, nest.vars)
        if offset is not None:
            found.append(offset)
    if len(found) != 2 or found[0][0] == found[1][0]:
        return None
    (v1, o1), (v2, o2) = found
    return ctx.code(_base(sub)), (v1, o1, v2, o2)


def _offset_of(expr, loop_vars):
    """``x`` -> (x, 0); ``x + 1`` -> (x, 1); ``x - 1`` -> (x, -1)."""
    if isinstance(expr, cst.Name) and expr.value in loop_vars:
        return expr.value, 0
    if (
        isinstance(expr, cst.BinaryOperation)
        and isinstance(expr.operator, (cst.Add, cst.Subtract))
        and isinstance(expr.left, cst.Name)
        and expr.left.value in loop_vars
        and isinstance(expr.right, cst.Integer)
    ):
        value = int(expr.right.value, 0)
        return expr.left.value, value if isinstance(expr.operator, cst.Add) else -value
    return None


def _unrolled_kind(ctx, nest, subs, by_offset):
    spatial = {next(iter(by_offset))[0], next(iter(by_offset))[2]}
    products = []
    collected = 0
    for sub in subs:
        parent = ctx.parent(sub)
        if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Multiply):
            other = parent.right if parent.left is sub else parent.left
            if not (_names_in(other) & set(nest.vars)):
                products.append((parent, other))
        elif isinstance(parent, (cst.Arg, cst.Element)):
            collected += 1
    if len(products) >= 3:
        parent, other = products[0]
        return "conv", ctx.code(_base(other)), _statement_of(ctx, parent), spatial
    reduces = any(
        isinstance(n, cst.Call)
        and (
            (isinstance(n.func, cst.Name) and n.func.value == "max")
            or ctx.call_name(n) in _MAXES
            or (isinstance(n.func, cst.Attribute) and n.func.attr.value in ("sort", "max"))
        )
        for n in nest.nodes
    )
    if collected >= 3 and reduces:
        return "max-pool", None, _statement_of(ctx, subs[0]), spatial
    return None


def _range_step(ctx, loop) -> str:
    args = loop.iter.args
    return ctx.code(args[2].value) if len(args) == 3 else "1"


def _offset_loops(ctx, nest: _Nest):
    """``for a ...: for b ...: acc += x[i + a, j + b] * w[a, b]``."""
    if len(nest.loops) < 4:
        return None
    for start in range(len(nest.loops) - 3):
        i, j, a, b = nest.vars[start : start + 4]
        if len({i, j, a, b}) != 4:
            continue
        found = _offset_mac(ctx, nest.loops[start + 3], i, j, a, b)
        if found is not None:
            conv = Convolution(
                None, nest.loops[start + 1], *found[:2], "offset-loops", "VALID", "1", found[2]
            )
            conv.spatial = [i, j]
            return conv, None
    return None


def _offset_mac(
    ctx, b_loop, i, j, a, b
) -> Optional[tuple[str, str, Optional[cst.SimpleStatementLine]]]:
    for node in descendants(b_loop.body, skip_scopes=True):
        if not (isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.AddAssign)):
            continue
        if not (
            isinstance(node.value, cst.BinaryOperation)
            and isinstance(node.value.operator, cst.Multiply)
        ):
            continue
        factors = [node.value.left, node.value.right]
        for x, w in (factors, factors[::-1]):
            xi, wi = _indices(x), _indices(w)
            if xi is None or wi is None or len(xi) < 2 or len(wi) < 2:
                continue
            if (
                _offset_index(xi[0], i, a)
                and _offset_index(xi[1], j, b)
                and _names_in(wi[0]) == {a}
                and _names_in(wi[1]) == {b}
            ):
                return ctx.code(_base(x)), ctx.code(_base(w)), _statement_of(ctx, node)
    return None


def _indices(expr):
    """``x[p, q]`` or ``x[p][q]``: the index expressions."""
    if isinstance(expr, cst.Subscript):
        if len(expr.slice) >= 2 and all(isinstance(e.slice, cst.Index) for e in expr.slice):
            return [e.slice.value for e in expr.slice]
        if (
            len(expr.slice) == 1
            and isinstance(expr.slice[0].slice, cst.Index)
            and isinstance(expr.value, cst.Subscript)
            and len(expr.value.slice) == 1
            and isinstance(expr.value.slice[0].slice, cst.Index)
        ):
            return [expr.value.slice[0].slice.value, expr.slice[0].slice.value]
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


def _padding(ctx, outer, image_code: str) -> str:
    """ "SAME" when the windowed array was padded first (``np.pad``/``tf.pad``,
    or a helper of the module that calls one), else "VALID"."""
    scope = ctx.module
    for parent in ctx.ancestors_of(outer):
        if isinstance(parent, SCOPES):
            scope = parent
            break
    assigns: Dict[Optional[str], list] = {}
    for node in descendants(scope, skip_scopes=True):
        if isinstance(node, cst.Assign):
            for t in node.targets:
                name = dotted(t.target)
                if name is not None:
                    assigns.setdefault(name, []).append(node.value)
    name = image_code
    for _ in range(3):
        values = assigns.get(name, [])
        if len(values) != 1:
            return "VALID"
        value = values[0]
        if isinstance(value, cst.Call) and (
            ctx.call_name(value) in _PADS or _helper_pads(ctx, value)
        ):
            return "SAME"
        if isinstance(value, cst.Subscript):
            name = dotted(value.value)  # a_prev_pad = A_prev_pad[i]
            continue
        return "VALID"
    return "VALID"


def _helper_pads(ctx, call) -> bool:
    helper = _helper_def(ctx, call)
    if helper is None:
        return False
    return any(
        isinstance(n, cst.Call) and ctx.call_name(n) in _PADS
        for n in descendants(helper.body, skip_scopes=True)
    )
