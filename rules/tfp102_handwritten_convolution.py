"""TFP102 handwritten-convolution."""

from __future__ import annotations

from typing import List, Optional

from tflint_perf.analysis.steps import import_insertion_line, name_is_free, tensorflow_alias
from tflint_perf.analysis.tensors import shape_axis
from tflint_perf.analysis.testcode import is_test_module
from tflint_perf.analysis.windows import Convolution, find_convolution
from tflint_perf.engine import cst
from tflint_perf.engine.rule import UNSAFE, Fix, Rule
from tflint_perf.engine.verification import Input, InputKind, Verification
from tflint_perf.engine.walk import descendants

# How a kernel parameter is usually named (for --verify's input synthesis).
KERNEL_NAMES = r"(?i)(k|w|kern|kernel|kernels|filter|filters|weights?|mask|window)(_\w+)?"


class HandwrittenConvolution(Rule):
    """Nested Python loops slide a window over an array: a hand-written convolution or pooling.

    ## What it does
    Flags a nest of `for ... in range(...)` loops whose body takes window
    slices that move with the loop variables (`x[i:i+k]`,
    `a[n, h*s:h*s+f, w*s:w*s+f, :]`, also through names such as
    `top = h * stride`) and
    - multiplies a window with a kernel and sums it (`np.sum(win * w)`,
      `(win * w).sum()`, `np.sum(np.multiply(win, w))`, a 1-D window
      `np.dot(win, w)`, or a helper of the module doing that, such as
      `conv_single_step(a_slice, W, b)`): a convolution/correlation, 1-D or
      2-D, batched, multi-channel (depthwise when the kernel is indexed by
      the image's channel), strided, padded;
    - takes `np.max`/`np.mean` of each 2-D window: max/average pooling;
    - accumulates into windows (`d_in[n, h*s:h*s+f, ...] += ...`) or
      accumulates `dW += window * grad`: the backward pass of a
      convolution or pooling;
    - or loops over kernel offsets accumulating `x[i + a, j + b] * w[a, b]`.

    It reports once, at the outermost loop of the nest (a batch or
    channel loop included; an enclosing loop whose variable the nest does
    not use is not), names the TensorFlow op and its layout, the stride,
    and the padding (`SAME` when the windowed array was padded with
    `np.pad`/`tf.pad` or a helper calling one, else `VALID`).

    It stays silent on loops over kernel offsets that are already
    vectorised over the image (`out += image[a:a+h, b:b+w] * k[a, b]`), on
    1-D moving averages and chunked statistics, on windows copied or
    tiled without a multiply-accumulate, and on segments with
    data-dependent bounds (`x[starts[i]:ends[i]]`).

    ## Why is this bad?
    Every output pixel costs a Python iteration and a few small ops. A
    convolution op does the whole image in one optimised kernel: measured
    on TF 2.21 (CPU), 23 times faster on small images and over 1000 times
    on large ones.

    ## Example
    ```python
    import numpy as np

    def blur(image, kernel):
        kh, kw = kernel.shape
        h, w = image.shape
        out = np.zeros((h - kh + 1, w - kw + 1))
        for i in range(h - kh + 1):
            for j in range(w - kw + 1):
                out[i, j] = np.sum(image[i:i + kh, j:j + kw] * kernel)
        return out
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    def blur(image, kernel):
        return tf.nn.conv2d(
            tf.cast(image, tf.float32)[tf.newaxis, :, :, tf.newaxis],  # NHWC
            tf.cast(kernel, tf.float32)[:, :, tf.newaxis, tf.newaxis],  # HWIO
            strides=1,
            padding="VALID",
        )[0, :, :, 0]
    ```
    `tf.nn.conv2d` computes a correlation (the kernel is not flipped), like
    the loop. For batches and channels use NHWC images and HWIO kernels, or
    `keras.layers.Conv2D`; `tf.nn.conv1d`, `tf.nn.depthwise_conv2d`,
    `tf.nn.max_pool2d` and `tf.nn.avg_pool2d` cover the other shapes, and
    `tf.GradientTape` differentiates them instead of a hand-written
    backward pass.

    ## Fix safety
    When the loop nest is the whole work of a function computing a 2-D
    `VALID` correlation of a single-channel image with stride 1 (`out[i, j]
    = np.sum(image[i:i+kh, j:j+kw] * kernel)` over exactly the output
    shape, `out` zero-initialised and returned), an unsafe fix replaces the
    initialisation and the loops with one `tf.nn.conv2d` call (reshaping in
    and out, `.numpy()` at the end). Batched, multi-channel, strided,
    padded, pooling and backward nests get no fix. It is unsafe because the result is
    computed in float32 (the loop used the accumulator's dtype, often
    float64), the function now needs eager TensorFlow, and `import
    tensorflow as tf` is added when missing. Otherwise no fix.
    """

    code = "TFP102"
    name = "handwritten-convolution"
    message = "{loops} compute {what}; use {use}"
    triggers = ("sum(", "dot(", "+=", "max(", "mean(")  # window sums, pooling, gradients
    fixable = True
    fix_summary = "unsafe"  # the README's Fix column
    # For --verify: the flagged function's inputs, when nothing calls it: a small
    # 2-D kernel (the parameter named like one) and a 2-D image (the one sliced).
    verification = Verification(
        inputs=(
            Input("kernel", InputKind.KERNEL, names=KERNEL_NAMES),
            Input("image", InputKind.IMAGE),
        )
    )

    @classmethod
    def screen(cls, facts) -> bool:
        # Every finding is a loop nest (or a comprehension) over windows.
        return facts.has_loop()

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.candidates: List[cst.For] = []

    def visit_For(self, node: cst.For) -> None:
        self.candidates.append(node)

    def finish(self) -> None:
        reported: set = set()
        if is_test_module(self.ctx):
            return
        for node in self.candidates:
            if node in reported or any(a in reported for a in self.ctx.ancestors_of(node)):
                continue
            conv = find_convolution(self.ctx, node)
            if conv is None:
                continue
            reported.add(conv.outer)
            self.report(
                conv.outer,
                loops=_loops(conv),
                what=_what(conv),
                use=_use(conv),
                fix=self._fix(conv),
            )

    # -- the fix -----------------------------------------------------------
    def _fix(self, conv: Convolution) -> Optional[Fix]:
        """Only the plainest nest is rewritten: a VALID, stride-1, single-channel
        window sum over two parameters, filling a zero-initialised output that the
        function returns, with nothing else in the function that could run code."""
        if (
            conv.op != "conv"
            or conv.kind != "window-sum"
            or conv.stride != "1"
            or conv.padding != "VALID"
            or conv.depthwise
            or len(conv.loops) != 2
            or len(conv.spatial) != 2
        ):
            return None
        found = self._plain_nest(conv)
        if found is None:
            return None
        func, out = found
        init = self._zero_init_only(func, conv, out)
        if init is None:
            return None
        edits = self._conv2d_edits(conv, out, init)
        if edits is None:
            return None
        return Fix(edits, UNSAFE, "Replace the loops with tf.nn.conv2d (VALID, stride 1)")

    def _plain_nest(self, conv: Convolution):
        """(function, output name) for ``out[i, j] = np.sum(image[i:i + kh, j:j + kw]
        * kernel)`` alone in two loops sized to the valid output, else None."""
        ctx = self.ctx
        block = ctx.parent(conv.outer)
        func = ctx.parent(block) if block is not None else None
        if not isinstance(func, cst.FunctionDef) or block is not func.body:
            return None
        params = {p.name.value for p in func.params.params}
        if conv.image not in params or conv.kernel not in params:
            return None
        if (
            len(conv.outer.body.body) != 1
            or len(conv.inner.body.body) != 1
            or conv.inner.body.body[0] is not conv.statement
        ):
            return None
        stmt = conv.statement.body
        if len(stmt) != 1 or not isinstance(stmt[0], cst.Assign) or len(stmt[0].targets) != 1:
            return None
        target = stmt[0].targets[0].target
        i, j = conv.outer.target.value, conv.inner.target.value
        if not (
            isinstance(target, cst.Subscript)
            and isinstance(target.value, cst.Name)
            and [ctx.code(e.slice) for e in target.slice] == [i, j]
        ):
            return None
        dims = _Dims(ctx, func)
        window = _window_of(stmt[0].value)
        if window is None:
            return None
        (h_extent, w_extent) = window
        if dims.of(h_extent) != (conv.kernel, 0) or dims.of(w_extent) != (conv.kernel, 1):
            return None
        for loop, axis in ((conv.outer, 0), (conv.inner, 1)):
            bound = loop.iter.args[0].value if len(loop.iter.args) == 1 else None
            if bound is None or not dims.is_valid_size(bound, conv.image, conv.kernel, axis):
                return None
        return func, target.value.value

    def _zero_init_only(self, func, conv: Convolution, out: str):
        """The ``out = np.zeros(...)`` line right before the nest when the rest of
        the function is call-free assignments, the nest and ``return out``."""
        body = list(func.body.body)
        index = body.index(conv.outer)
        if index != len(body) - 2 or _returned_name(body[-1]) != out:
            return None
        init = None
        for line in body[:index]:
            if (
                not isinstance(line, cst.SimpleStatementLine)
                or len(line.body) != 1
                or not isinstance(line.body[0], cst.Assign)
            ):
                return None
            assign = line.body[0]
            names = [t.target.value for t in assign.targets if isinstance(t.target, cst.Name)]
            if out in names:
                init = line
            elif any(isinstance(n, cst.Call) for n in descendants(assign.value)) or isinstance(
                assign.value, cst.Call
            ):
                return None
        if (
            init is None
            or body[index - 1] is not init
            or not isinstance(init.body[0], cst.Assign)  # (checked above)
            or not _is_zero_init(self.ctx, init.body[0], conv.outer, conv.inner)
        ):
            return None
        return init

    def _conv2d_edits(self, conv: Convolution, out: str, init):
        """Replace the init line and the nest with one ``tf.nn.conv2d`` (and import
        TensorFlow when the module does not)."""
        ctx = self.ctx
        tf = tensorflow_alias(ctx)
        edits = []
        if tf is None:
            line = import_insertion_line(ctx)
            if not name_is_free(ctx, "tf") or line is None:
                return None
            tf = "tf"
            edits.append(ctx.insert_lines(line, "import tensorflow as tf"))
        indent = ctx.indentation(conv.outer)
        code = (
            f"{indent}{out} = {tf}.nn.conv2d(\n"
            f"{indent}    {tf}.cast({conv.image}, {tf}.float32)[{tf}.newaxis, :, :, {tf}.newaxis],\n"
            f"{indent}    {tf}.cast({conv.kernel}, {tf}.float32)[:, :, {tf}.newaxis, {tf}.newaxis],\n"
            f"{indent}    strides=1,\n"
            f'{indent}    padding="VALID",\n'
            f"{indent})[0, :, :, 0].numpy()\n"
        )
        start, _ = ctx.statement_lines(init)
        _, end = ctx.statement_lines(conv.outer)
        # One edit: the lines' deletion and the new code at the same place.
        delete, insert = ctx.delete_lines(start, end), ctx.insert_lines(start, code)
        edits.append(
            type(delete)(
                delete.line, delete.column, delete.end_line, delete.end_column, insert.content
            )
        )
        return tuple(edits)


def _loops(conv: Convolution) -> str:
    # (every loop of the nest is a range loop over a name)
    names = [loop.target.value for loop in conv.loops if isinstance(loop.target, cst.Name)]
    if len(names) == 1:
        return f"Loop over `{names[0]}` and its window slices"
    return f"Nested loops over {_listing(names)}"


def _listing(names: list) -> str:
    quoted = [f"`{n}`" for n in names]
    if len(quoted) == 1:
        return quoted[0]
    return ", ".join(quoted[:-1]) + " and " + quoted[-1]


_LAYOUTS = {1: ("NWC", "WIO", "1D"), 2: ("NHWC", "HWIO", "2D"), 3: ("NDHWC", "DHWIO", "3D")}


def _what(conv: Convolution) -> str:
    """What the nest computes, with the arrays and the window."""
    dims = max(len(conv.spatial), 1)
    window = f"window along {_listing(conv.spatial)}" if conv.spatial else ""
    details = [window] if conv.op not in ("conv",) or len(conv.loops) > 2 else []
    details.append(f"{conv.padding} padding")
    if conv.stride != "1":
        details.append(f"stride `{conv.stride}`")
    if conv.padding == "SAME":
        details[-1] += f"; `{conv.image}` is the padded input: pass it before padding"
    detail = ", ".join(d for d in details if d)
    kind = {
        "conv": f"a {dims}-D {'depthwise ' if conv.depthwise else ''}convolution of `{conv.image}` with `{conv.kernel}`",
        "max-pool": (
            f"a moving maximum (1-D max pooling) of `{conv.image}`"
            if dims == 1
            else f"{dims}-D max pooling of `{conv.image}`"
        ),
        "avg-pool": (
            f"a moving average (1-D average pooling) of `{conv.image}`"
            if dims == 1
            else f"{dims}-D average pooling of `{conv.image}`"
        ),
        "pool": f"{dims}-D max/average pooling of `{conv.image}`",
        "conv-backward": f"the gradient of a {dims}-D convolution over `{conv.image}`",
        "pool-backward": f"a {dims}-D pooling or convolution gradient into `{conv.image}`",
    }[conv.op]
    return f"{kind} ({detail})"


def _use(conv: Convolution) -> str:
    """The TensorFlow op (and layout) that does the whole nest in one call."""
    dims = max(len(conv.spatial), 1)
    data, kernel, suffix = _LAYOUTS.get(dims, _LAYOUTS[2])
    padding = f'padding="{conv.padding}"'
    strides = "" if conv.stride == "1" else f", strides={conv.stride}"
    ksize = f"ksize={conv.size}, " if conv.size else ""
    if conv.op == "conv" and conv.depthwise and dims == 2:
        return (
            f"`tf.nn.depthwise_conv2d` ({data} input, kernel [kh, kw, channels, 1], "
            f"{padding}{strides}) or `keras.layers.DepthwiseConv2D`"
        )
    if conv.op == "conv" and dims == 1:
        stride = "" if conv.stride == "1" else f", stride={conv.stride}"
        return f"`tf.nn.conv1d` ({data} input, {kernel} kernel, {padding}{stride}) or `keras.layers.Conv1D`"
    if conv.op == "conv":
        return (
            f"`tf.nn.conv{dims}d`/`tf.nn.convolution` ({data} input, {kernel} kernel, "
            f"{padding}{strides}) or `keras.layers.Conv{suffix}`"
        )
    if conv.op == "avg-pool" and dims == 1:
        return (
            f"`tf.nn.avg_pool1d` ({data} input, ksize={conv.size}, strides=1, {padding}) or "
            f'`np.convolve({conv.image}, np.ones({conv.size}) / {conv.size}, mode="valid")`'
        )
    if conv.op in ("max-pool", "avg-pool", "pool"):
        names = {
            "max-pool": [("max", "MaxPooling")],
            "avg-pool": [("avg", "AveragePooling")],
            "pool": [("max", "MaxPooling"), ("avg", "AveragePooling")],
        }[conv.op]
        ops = "/".join(f"`tf.nn.{n}_pool{dims}d`" for n, _ in names)
        layers = "/".join(f"`keras.layers.{layer}{suffix}`" for _, layer in names)
        return f"{ops} ({data} input, {ksize}{padding}{strides}) or {layers}"
    forward = (
        "`tf.nn.conv{0}d`"
        if conv.op == "conv-backward"
        else "`tf.nn.max_pool{0}d`/`tf.nn.avg_pool{0}d`"
    )
    return (
        f"{forward.format(dims)} ({data} input) in the forward pass and let "
        "`tf.GradientTape` compute this gradient"
    )


class _Dims:
    """``X.shape[k]`` and names bound to it (``kh, kw = kernel.shape``) in one function."""

    def __init__(self, ctx, func: cst.FunctionDef) -> None:
        self.ctx = ctx
        self.names: dict = {}
        counts: dict = {}
        for node in descendants(func.body, skip_scopes=True):
            if isinstance(node, cst.Assign):
                for t in node.targets:
                    target = t.target
                    if isinstance(target, cst.Name):
                        counts[target.value] = counts.get(target.value, 0) + 1
                        dim = self._direct(node.value)
                        if dim is not None:
                            self.names[target.value] = dim
                    elif isinstance(target, cst.Tuple):
                        value = node.value
                        shape_of = (
                            ctx.code(value.value)
                            if isinstance(value, cst.Attribute) and value.attr.value == "shape"
                            else None
                        )
                        for k, element in enumerate(target.elements):
                            if isinstance(element.value, cst.Name):
                                counts[element.value.value] = counts.get(element.value.value, 0) + 1
                                if shape_of is not None and len(target.elements) == 2:
                                    self.names[element.value.value] = (shape_of, k)
        for name, count in counts.items():
            if count != 1:
                self.names.pop(name, None)

    def _direct(self, expr):
        axis = shape_axis(expr)
        return None if axis is None else (self.ctx.code(axis[0]), axis[1])

    def of(self, expr):
        if isinstance(expr, cst.Name):
            return self.names.get(expr.value)
        return self._direct(expr)

    def is_valid_size(self, expr, image: str, kernel: str, axis: int) -> bool:
        """``H - kh + 1`` with H the image's and kh the kernel's size along ``axis``."""
        if isinstance(expr, cst.Name):
            return False
        if not (isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add)):
            return False
        if not (isinstance(expr.right, cst.Integer) and expr.right.value == "1"):
            return False
        diff = expr.left
        if not (isinstance(diff, cst.BinaryOperation) and isinstance(diff.operator, cst.Subtract)):
            return False
        return self.of(diff.left) == (image, axis) and self.of(diff.right) == (kernel, axis)


def _window_of(value):
    """The extents (``kh``, ``kw``) of ``np.sum(image[i:i + kh, j:j + kw] * kernel)``."""
    if not isinstance(value, cst.Call) or len(value.args) != 1:
        return None
    product = value.args[0].value
    if not isinstance(product, cst.BinaryOperation) or not isinstance(
        product.operator, cst.Multiply
    ):
        return None
    window = product.left
    if not isinstance(window, cst.Subscript) or len(window.slice) != 2:
        return None
    extents = []
    for element in window.slice:
        upper = element.slice.upper
        if not (isinstance(upper, cst.BinaryOperation) and isinstance(upper.operator, cst.Add)):
            return None
        if not (isinstance(upper.left, cst.Name) and isinstance(element.slice.lower, cst.Name)):
            return None
        if upper.left.value != element.slice.lower.value:
            return None
        extents.append(upper.right)
    return tuple(extents)


def _is_zero_init(ctx, assign: cst.Assign, outer, inner) -> bool:
    """``out = np.zeros((<outer bound>, <inner bound>))``."""
    value = assign.value
    if (
        not isinstance(value, cst.Call)
        or ctx.call_name(value) not in ("numpy.zeros", "numpy.empty")
        or not value.args
    ):
        return False
    shape = value.args[0].value
    if not isinstance(shape, (cst.Tuple, cst.List)) or len(shape.elements) != 2:
        return False
    bounds = [ctx.code(loop.iter.args[0].value).replace(" ", "") for loop in (outer, inner)]
    return [ctx.code(e.value).replace(" ", "") for e in shape.elements] == bounds


def _returned_name(stmt) -> Optional[str]:
    if (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Return)
    ):
        value = stmt.body[0].value
        if isinstance(value, cst.Name):
            return value.value
    return None
