"""TFP102 handwritten-convolution."""

from __future__ import annotations

from typing import List

from tflint_perf.engine import cst
from tflint_perf.engine.rule import Rule
from tflint_perf.engine.verification import Input, InputKind, Verification

# How a kernel parameter is usually named (for --verify's input synthesis).
KERNEL_NAMES = r"(?i)(k|w|kern|kernel|kernels|filter|filters|weights?|mask|window)(_\w+)?"


class HandwrittenConvolution(Rule):
    """Nested Python loops slide a window over an array: a hand-written convolution or pooling.

    ## What it does
    Flags a nest of `for ... in range(...)` loops, in any order and depth
    (batch, channels, rows, columns, kernel offsets; a loop's body may be
    moved into a function of the module it calls with no arguments, `for y
    in ...: row()`), whose body reads
    *windows* of an array, defined by the index arithmetic:
    - a slice that one loop variable moves and whose width does not change
      (`x[i:i+k]`, `a[n, h*s:h*s+f, w*s:w*s+f, :]`, also through names such
      as `top = h * stride`, `x[r*n:(r+1)*n]`), or
    - an index combining two loop variables, a position and an offset
      (`img[i - a, j - b]`, `img[i + a][j + b]`, `x[y*s + a]`),

    and
    - multiplies a window with a kernel and sums it (`np.sum(win * w)`,
      `(win * w).sum(axis=...)`, through a name such as `prod = win * w`,
      `np.tensordot`/`np.einsum`, a 1-D window `np.dot(win, w)`, `acc +=
      x[i + a, j + b] * w[a, b]` or `out[i, j] += ...` over the offsets, or a
      function of the module doing that, such as `conv_single_step(a_slice,
      W, b)`): a convolution/correlation, 1-D, 2-D or 3-D, batched,
      multi-channel (depthwise when the kernel is indexed by the image's
      channel), strided, padded;
    - takes `np.max`/`np.mean` (or the methods, or `max` of a list of
      window values) of each window: max/average pooling, also 1-D moving
      averages and maxima;
    - accumulates into windows (`d_in[n, h*s:h*s+f, ...] += ...`) or
      accumulates `dW += window * grad`: the backward pass of a
      convolution or pooling;
    - or reads a neighbourhood written out by hand (`img[r - 1, c] *
      k[0][1] + img[r, c - 1] * k[1][0] + ...`).

    It reports once, at the outermost loop of the nest (a batch or
    channel loop included; an enclosing loop whose variable the nest does
    not use is not), names the TensorFlow op and its layout, the stride,
    and the padding (`SAME` when the windowed array was padded with
    `np.pad`/`tf.pad` or a function calling one, else `VALID`). TFP101
    never reports these nests.

    It stays silent on loops over kernel offsets that are already
    vectorised over the image (`out += image[a:a+h, b:b+w] * k[a, b]`), on
    chunked statistics and 1-D gradients, on windows copied or tiled without
    a multiply-accumulate, on segments with data-dependent bounds
    (`x[starts[i]:ends[i]]`), on windows whose width changes (a growing
    prefix), on nested Python lists, and on a handful of positions.

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
    message = "{loops} compute {what}: use {use}"
    triggers = ("sum(", "dot(", "+=", "max(", "mean(", "einsum(", "+ ")
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
        if not self.candidates:
            return
        # The model is loaded here, not at import (see TFP101).
        from tflint_perf.analysis.convolution import Convolutions, find_convolution
        from tflint_perf.analysis.testcode import is_test_module
        from tflint_perf.engine.reasons import Reason

        from .fix import conv2d_fix
        from .message import describe

        if is_test_module(self.ctx):
            for node in self.candidates:
                self.silent(node, Reason.TEST_CODE)
            return
        found: list = []
        taken: set = set()
        for node in self.candidates:
            if node in taken or any(a in taken for a in self.ctx.ancestors_of(node)):
                continue
            conv = find_convolution(self.ctx, node)
            if conv is None:
                rejected = self.ctx.shared(Convolutions).rejected.get(node)
                reason, why = rejected or (
                    Reason.NOT_WORK,
                    "no window multiplied, pooled or accumulated",
                )
                self.silent(node, reason, why)
                continue
            if conv.outer in taken:  # the nest in a function, found again from a loop calling it
                continue
            taken.add(conv.outer)
            found.append(conv)
        # A nest that goes on in a function its loop calls covers that function's loops.
        inner = {loop: conv for conv in found for loop in conv.loops[1:]}
        for conv in found:
            if conv.outer in inner:
                line = self.ctx.position(inner[conv.outer].outer).start.line
                self.silent(conv.outer, Reason.COVERED, f"part of the nest at line {line}")
                continue
            headline, detail = describe(conv)
            self.report(conv.outer, message=headline, detail=detail, fix=conv2d_fix(self.ctx, conv))
