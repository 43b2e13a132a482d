"""The one fix TFP102 offers: the plainest 2-D correlation becomes ``tf.nn.conv2d``.

Only a VALID, stride-1, single-channel window sum over two parameters,
filling a zero-initialised output the function returns, with nothing else
in the function that could run code, is rewritten (unsafe: float32, eager
TensorFlow, a new import).
"""

from __future__ import annotations

from typing import Optional

from tflint_perf.analysis.arrays import shape_axis
from tflint_perf.analysis.convolution import Convolution, ConvOp, Shape
from tflint_perf.analysis.semantic import BindingKind, SemanticModel
from tflint_perf.analysis.steps import import_insertion_line, name_is_free, tensorflow_alias
from tflint_perf.engine import cst
from tflint_perf.engine.rule import UNSAFE, Edit, Fix
from tflint_perf.engine.walk import descendants


def conv2d_fix(ctx, conv: Convolution) -> Optional[Fix]:
    if (
        conv.op is not ConvOp.CONV
        or conv.shape is not Shape.WINDOW_SUM
        or conv.stride != "1"
        or conv.padding != "VALID"
        or conv.depthwise
        or len(conv.loops) != 2
        or len(conv.spatial) != 2
        or conv.inner is None
    ):
        return None
    found = _plain_nest(ctx, conv)
    if found is None:
        return None
    func, out = found
    init = _zero_init_only(ctx, func, conv, out)
    if init is None:
        return None
    edits = _conv2d_edits(ctx, conv, out, init)
    if edits is None:
        return None
    return Fix(edits, UNSAFE, "Replace the loops with tf.nn.conv2d (VALID, stride 1)")


def _plain_nest(ctx, conv: Convolution):
    """(function, output name) for ``out[i, j] = np.sum(image[i:i + kh, j:j + kw] *
    kernel)`` alone in two loops sized to the valid output, else None."""
    block = ctx.parent(conv.outer)
    func = ctx.parent(block) if block is not None else None
    if not isinstance(func, cst.FunctionDef) or block is not func.body:
        return None
    params = {p.name.value for p in func.params.params}
    inner = conv.inner
    assert inner is not None
    if conv.image not in params or conv.kernel not in params:
        return None
    if (
        len(conv.outer.body.body) != 1
        or len(inner.body.body) != 1
        or inner.body.body[0] is not conv.statement
    ):
        return None
    stmt = conv.statement.body  # type: ignore[union-attr]
    if len(stmt) != 1 or not isinstance(stmt[0], cst.Assign) or len(stmt[0].targets) != 1:
        return None
    target = stmt[0].targets[0].target
    i, j = conv.outer.target.value, inner.target.value  # type: ignore[attr-defined]
    if not (
        isinstance(target, cst.Subscript)
        and isinstance(target.value, cst.Name)
        and [ctx.code(e.slice) for e in target.slice] == [i, j]
    ):
        return None
    window = _window_of(stmt[0].value)
    if window is None:
        return None
    dims = _Dims(ctx)
    h_extent, w_extent = window
    if dims.of(h_extent) != (conv.kernel, 0) or dims.of(w_extent) != (conv.kernel, 1):
        return None
    for loop, axis in ((conv.outer, 0), (inner, 1)):
        args = loop.iter.args  # type: ignore[attr-defined]
        bound = args[0].value if len(args) == 1 else None
        if bound is None or not dims.is_valid_size(bound, conv.image, conv.kernel, axis):
            return None
    return func, target.value.value


def _zero_init_only(ctx, func, conv: Convolution, out: str):
    """The ``out = np.zeros(...)`` line right before the nest when the rest of the
    function is call-free assignments, the nest and ``return out``."""
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
        elif any(isinstance(n, cst.Call) for n in [assign.value, *descendants(assign.value)]):
            return None
    if (
        init is None
        or body[index - 1] is not init
        or not isinstance(init.body[0], cst.Assign)
        or not _is_zero_init(ctx, init.body[0], conv.outer, conv.inner)
    ):
        return None
    return init


def _conv2d_edits(ctx, conv: Convolution, out: str, init):
    """Replace the init line and the nest with one ``tf.nn.conv2d`` (and import
    TensorFlow when the module does not)."""
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
        Edit(delete.line, delete.column, delete.end_line, delete.end_column, insert.content)
    )
    return tuple(edits)


class _Dims:
    """``X.shape[k]`` and names bound to it (``kh, kw = kernel.shape``), through the
    semantic model."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)

    def _direct(self, expr):
        axis = shape_axis(expr)
        return None if axis is None else (self.ctx.code(axis[0]), axis[1])

    def of(self, expr):
        if not isinstance(expr, cst.Name):
            return self._direct(expr)
        found = self.sem.lookup_name(expr)
        if len(found) != 1:
            return None
        binding = found[0]
        if binding.plain:
            return self._direct(binding.value)
        source = binding.source
        if (
            binding.kind is BindingKind.ASSIGNMENT
            and isinstance(source, cst.Attribute)
            and source.attr.value == "shape"
            and len(binding.path) == 1
        ):
            return self.ctx.code(source.value), binding.path[0]  # kh, kw = kernel.shape
        return None

    def is_valid_size(self, expr, image: str, kernel: str, axis: int) -> bool:
        """``H - kh + 1`` with H the image's and kh the kernel's size along ``axis``."""
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
        sl = element.slice
        if not isinstance(sl, cst.Slice):
            return None
        upper = sl.upper
        if not (isinstance(upper, cst.BinaryOperation) and isinstance(upper.operator, cst.Add)):
            return None
        if not (isinstance(upper.left, cst.Name) and isinstance(sl.lower, cst.Name)):
            return None
        if upper.left.value != sl.lower.value:
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
