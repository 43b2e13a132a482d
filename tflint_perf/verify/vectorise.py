"""The ``stack-to-vector`` rewrite: per-row results stacked into a tensor -> one expression.

``acc = []; for r in X: acc.append(f(r)); Y = tf.stack(acc)`` (or the same
with ``for i in range(len(X))`` and ``X[i]``, a ``while i < len(X)`` loop
with an index counter, or ``tf.stack([f(X[i]) for i in range(n)])``) becomes
``Y = F(X)``: one reduction along the row axes, an elementwise expression on
the whole tensor, or ``tf.vectorized_map``. A loop that does not cover
every row of ``X`` is not rewritten.
"""

from __future__ import annotations

import ast
import copy
import re
from typing import TYPE_CHECKING, List, Optional, Tuple

from tflint_perf.engine.rule import Edit
from tflint_perf.verify.source import Source, Substitute, Unsupported, dotted, last_line, uses

if TYPE_CHECKING:  # annotations only: typing.TypeGuard is 3.10+
    from typing_extensions import TypeGuard

_REDUCTIONS = {
    "reduce_sum",
    "reduce_mean",
    "reduce_max",
    "reduce_min",
    "reduce_prod",
    "reduce_any",
    "reduce_all",
    "reduce_logsumexp",
    "reduce_std",
    "reduce_variance",
    "sum",
    "mean",
    "max",
    "min",
    "prod",
    "std",
    "var",
    "norm",
    "amax",
    "amin",
}
_ELEMENTWISE = {
    "exp",
    "log",
    "log1p",
    "sqrt",
    "rsqrt",
    "square",
    "abs",
    "sin",
    "cos",
    "tanh",
    "sigmoid",
    "relu",
    "relu6",
    "elu",
    "selu",
    "softplus",
    "negative",
    "sign",
    "floor",
    "ceil",
    "round",
    "cast",
    "clip_by_value",
    "maximum",
    "minimum",
    "pow",
    "multiply",
    "add",
    "subtract",
    "divide",
    "where",
    "erf",
    "expm1",
}
_STACKS = {"stack", "convert_to_tensor", "array", "asarray", "constant"}


def _reduction(element: ast.AST, tensor_src: str) -> Optional[str]:
    """A reduction of the row, or of an elementwise expression of it (``reduce_sum(row * key)``):
    one reduction over all rows, along the row axes (other operands broadcast against a row)."""
    if not (
        isinstance(element, ast.Call)
        and len(element.args) == 1
        and uses(element.args[0], "__el")
        and (isinstance(element.args[0], ast.Name) or _elementwise(element.args[0]))
    ):
        return None
    keywords = {k.arg: k for k in element.keywords}
    if dotted(element.func).rsplit(".", 1)[-1] not in _REDUCTIONS or {
        "keepdims",
        "keep_dims",
    } & set(keywords):
        return None
    axis = keywords.get("axis")
    if axis is None or (isinstance(axis.value, ast.Constant) and axis.value.value is None):
        new_axis = f"tuple(range(1, len({tensor_src}.shape)))"
    elif isinstance(axis.value, ast.Constant) and isinstance(axis.value.value, int):
        value = axis.value.value
        new_axis = str(value + 1 if value >= 0 else value)
    else:
        raise Unsupported("the reduction's axis is not a literal")
    rest = [ast.unparse(k) for k in element.keywords if k.arg != "axis"]
    first = tensor_src
    if not isinstance(element.args[0], ast.Name):
        whole = ast.parse(tensor_src, mode="eval").body
        first = ast.unparse(
            Substitute(lambda n: isinstance(n, ast.Name) and n.id == "__el", whole).visit(
                element.args[0]
            )
        )
    return f"{ast.unparse(element.func)}({', '.join([first, f'axis={new_axis}', *rest])})"


def _vectorise(element: ast.AST, tensor_src: str, tf: Optional[str]) -> str:
    """One expression over the whole tensor equal to stacking ``element`` per row."""
    if not re.match(r"^[\w.]+$", tensor_src):
        tensor_src = f"({tensor_src})"
    reduced = _reduction(element, tensor_src)
    if reduced is not None:
        return reduced
    if _elementwise(element):
        text = ast.unparse(element)
        return ast.unparse(
            Substitute(
                lambda n: isinstance(n, ast.Name) and n.id == "__el",
                ast.parse(tensor_src, mode="eval").body,
            ).visit(ast.parse(text, mode="eval").body)
        )
    if tf is None:
        raise Unsupported(
            "the per-row expression is neither a reduction nor elementwise, and tensorflow is not imported as a name"
        )
    body = ast.unparse(element).replace("__el", "__tfp_row")
    return f"{tf}.vectorized_map(lambda __tfp_row: {body}, {tensor_src})"


def _elementwise(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.BinOp):
        return _elementwise(node.left) and _elementwise(node.right)
    if isinstance(node, ast.UnaryOp):
        return _elementwise(node.operand)
    if isinstance(node, ast.Call):
        short = dotted(node.func).rsplit(".", 1)[-1]
        return (
            short in _ELEMENTWISE
            and all(_elementwise(a) for a in node.args)
            and all(
                _elementwise(k.value) or isinstance(k.value, ast.Attribute) for k in node.keywords
            )
        )
    if isinstance(node, ast.Attribute):  # tf.float32
        return not uses(node, "__el")
    return False


_ROW_COUNTS = {"len"}  # len(X)


def _row_count_of(expr: ast.AST) -> Optional[str]:
    """The ``ast.dump`` of X when ``expr`` is the number of rows of X (``len(X)``, ``X.shape[0]``, ``tf.shape(X)[0]``)."""
    if isinstance(expr, ast.Call) and dotted(expr.func) == "int" and len(expr.args) == 1:
        return _row_count_of(expr.args[0])
    if isinstance(expr, ast.Call) and dotted(expr.func) in _ROW_COUNTS and len(expr.args) == 1:
        return ast.dump(expr.args[0])
    if (
        isinstance(expr, ast.Subscript)
        and isinstance(expr.slice, ast.Constant)
        and expr.slice.value == 0
    ):
        shape = expr.value
        if isinstance(shape, ast.Attribute) and shape.attr == "shape":
            return ast.dump(shape.value)
        if (
            isinstance(shape, ast.Call)
            and dotted(shape.func).rsplit(".", 1)[-1] == "shape"
            and len(shape.args) == 1
        ):
            return ast.dump(shape.args[0])
    return None


def _scope_of(src: Source, node: ast.AST) -> ast.AST:
    while node in src.parents and not isinstance(
        node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
    ):
        node = src.parents[node]
    return node


def _covers_rows(src: Source, bound: ast.AST, tensor: ast.AST, where: ast.AST) -> None:
    """Raise unless ``bound`` is the row count of ``tensor`` (directly, or a name bound once to it)."""
    want = ast.dump(tensor)
    if _row_count_of(bound) == want:
        return
    if isinstance(bound, ast.Name):
        scope = _scope_of(src, where)
        values = [
            node.value
            for node in ast.walk(scope)
            if isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == bound.id for t in node.targets)
        ]
        stores = [
            n
            for n in ast.walk(scope)
            if isinstance(n, ast.Name) and n.id == bound.id and isinstance(n.ctx, ast.Store)
        ]
        if len(values) == 1 and len(stores) == 1 and _row_count_of(values[0]) == want:
            return
    raise Unsupported(
        f"the loop's bound `{ast.unparse(bound)}` is not the number of rows of `{ast.unparse(tensor)}`"
    )


def _indexed_tensor(target: str, expr: ast.AST):
    """(element expression in ``__el``, X) when every use of ``target`` in ``expr`` is ``X[target]``."""

    def is_index(n: ast.AST) -> TypeGuard[ast.Subscript]:
        return (
            isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Name) and n.slice.id == target
        )

    tensors = {ast.dump(n.value): n.value for n in ast.walk(expr) if is_index(n)}
    if len(tensors) != 1:
        raise Unsupported("the loop index is not used as X[i] for exactly one tensor X")
    ((dumped, tensor),) = tensors.items()
    element = Substitute(
        lambda n: is_index(n) and ast.dump(n.value) == dumped, ast.Name("__el", ast.Load())
    ).visit(copy.deepcopy(expr))
    if uses(element, target):
        raise Unsupported("the loop index is used other than as X[i]")
    return element, tensor


def _is_range(iterator: ast.AST) -> TypeGuard[ast.Call]:
    return isinstance(iterator, ast.Call) and dotted(iterator.func).rsplit(".", 1)[-1] == "range"


def _element_expression(src: Source, target: ast.AST, iterator: ast.AST, expr: ast.AST, where):
    """(expression of one element in the name ``__el``, the iterated tensor expression)."""
    if not isinstance(target, ast.Name):
        raise Unsupported("the loop target is not a single name")
    if not _is_range(iterator):  # for row in X: the element is the row
        element = Substitute(
            lambda n: isinstance(n, ast.Name) and n.id == target.id, ast.Name("__el", ast.Load())
        ).visit(copy.deepcopy(expr))
        return element, iterator
    element, tensor = _indexed_tensor(target.id, expr)
    if len(iterator.args) != 1:
        raise Unsupported("the range has a start or a step: not every row is visited once")
    _covers_rows(src, iterator.args[0], tensor, where)
    return element, tensor


def _stack_call(call: Optional[ast.AST], acc: Optional[str] = None) -> bool:
    """``tf.stack(acc)`` / ``np.array(acc)`` ... along axis 0 (``acc`` a name, or any single argument)."""
    if not (
        isinstance(call, ast.Call)
        and dotted(call.func).rsplit(".", 1)[-1] in _STACKS
        and len(call.args) == 1
        and all(k.arg in ("axis", "dtype") for k in call.keywords)
    ):
        return False
    for keyword in call.keywords:
        if keyword.arg == "axis" and not (
            isinstance(keyword.value, ast.Constant) and keyword.value.value == 0
        ):
            raise Unsupported("the results are stacked along an axis other than 0")
    arg = call.args[0]
    return acc is None or (isinstance(arg, ast.Name) and arg.id == acc)


def _comprehension_at(src: Source, line: int, end_line: int):
    """(the stacking call, its comprehension) at the finding, or None."""
    kinds = (ast.ListComp, ast.GeneratorExp)
    for node in ast.walk(src.tree):
        if isinstance(node, kinds) and node.lineno <= end_line and line <= last_line(node):
            parent = src.parents.get(node)
            if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node:
                if _stack_call(parent):
                    return parent, node
                raise Unsupported(
                    f"`{dotted(parent.func)}(...)` does not stack the comprehension's rows"
                )
    return None


def _rewrite_comprehension(src: Source, call: ast.Call, comp) -> List[Edit]:
    if len(comp.generators) != 1:
        raise Unsupported("the comprehension has more than one `for`")
    gen = comp.generators[0]
    if gen.ifs or gen.is_async:
        raise Unsupported("the comprehension filters rows (`if`) or is async")
    element, tensor = _element_expression(src, gen.target, gen.iter, comp.elt, call)
    vector = _vectorise(element, src.segment(tensor), src.tf_alias())
    return [src.span_edit(call, call, vector)]


def _append_of(stmt: ast.stmt) -> Optional[Tuple[str, ast.expr]]:
    """(the list's name, the appended value) of ``name.append(value)``."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "append"
        and isinstance(call.func.value, ast.Name)
        and len(call.args) == 1
        and not call.keywords
    ):
        return call.func.value.id, call.args[0]
    return None


def _loop_at(src: Source, line: int, end_line: int):
    kinds = (ast.For, ast.While)
    loops = [
        n for n in ast.walk(src.tree) if isinstance(n, kinds) and n.lineno <= line <= last_line(n)
    ]
    if loops:
        return max(loops, key=lambda n: n.lineno)
    # the finding may sit on the statement that stacks the results, just after the loop
    for node in ast.walk(src.tree):
        if isinstance(node, kinds) and line <= node.lineno <= end_line:
            return node
    for stmt in ast.walk(src.tree):
        if isinstance(stmt, ast.stmt) and stmt.lineno == line:
            block = src.block_of(stmt)
            index = block.index(stmt) if block is not None else 0
            if index > 0 and isinstance(block[index - 1], kinds):
                return block[index - 1]
    raise Unsupported("no loop or comprehension at the finding")


def _while_counter(src: Source, loop: ast.While, block: list):
    """(index name, bound) of ``i = 0 ... while i < bound: ...; i += 1``."""
    test = loop.test
    if not (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Lt)
    ):
        raise Unsupported("the while loop's test is not `i < bound`")
    name = test.left.id
    step = loop.body[-1] if len(loop.body) == 2 else None
    if not (
        isinstance(step, ast.AugAssign)
        and isinstance(step.target, ast.Name)
        and step.target.id == name
        and isinstance(step.op, ast.Add)
        and isinstance(step.value, ast.Constant)
        and step.value.value == 1
    ):
        raise Unsupported("the while loop's body is not an append followed by `i += 1`")
    before = block[: block.index(loop)]
    inits = [s for s in before if name in {n.id for n in _stores(s)}]
    init = inits[-1] if inits else None
    if not (
        isinstance(init, ast.Assign)
        and isinstance(init.value, ast.Constant)
        and init.value.value == 0
        and not isinstance(init.value.value, bool)
    ):
        raise Unsupported(f"`{name}` does not start at 0 just before the loop")
    return name, test.comparators[0]


def _stores(stmt: ast.AST):
    return [n for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]


def _rewrite_loop(src: Source, loop) -> List[Edit]:
    block = src.block_of(loop)
    index = block.index(loop) if block is not None else -1
    if isinstance(loop, ast.While):
        name, bound = _while_counter(src, loop, block)
        if any(uses(s, name) for s in block[index + 1 :]):
            raise Unsupported(f"`{name}` is read after the loop")
        target = ast.Name(name, ast.Store())
        iterator = ast.Call(ast.Name("range", ast.Load()), [bound], [])
    else:
        if len(loop.body) != 1:
            raise Unsupported("the loop body is not a single append")
        target, iterator = loop.target, loop.iter
    if loop.orelse:
        raise Unsupported("the loop has an else")
    appended = _append_of(loop.body[0])
    if appended is None:
        raise Unsupported("the loop body is not `results.append(...)`")
    acc, value = appended
    if index < 0 or index + 1 >= len(block):
        raise Unsupported("nothing stacks the loop's results")
    consumer = block[index + 1]
    if not (
        (isinstance(consumer, ast.Assign) and len(consumer.targets) == 1)
        or isinstance(consumer, ast.Return)
    ) or not _stack_call(consumer.value, acc):
        raise Unsupported(f"the statement after the loop does not stack `{acc}` into a tensor")
    element, tensor = _element_expression(src, target, iterator, value, loop)
    if uses(element, acc):
        raise Unsupported("the per-row expression uses the results list")
    vector = _vectorise(element, src.segment(tensor), src.tf_alias())
    if isinstance(consumer, ast.Return):
        return [src.span_edit(loop, consumer, f"return {vector}")]
    return [src.span_edit(loop, consumer, f"{src.segment(consumer.targets[0])} = {vector}")]


def stack_to_vector(src: Source, line: int, end_line: int) -> List[Edit]:
    """The edits of the vectorised variant of the per-row loop or comprehension at the finding."""
    found = _comprehension_at(src, line, end_line)
    if found is not None:
        return _rewrite_comprehension(src, *found)
    return _rewrite_loop(src, _loop_at(src, line, end_line))
