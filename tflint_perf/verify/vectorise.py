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
import builtins
import copy
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, FrozenSet, List, Optional, Tuple

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
        try:
            return _rewrite_comprehension(src, *found)
        except Unsupported as stacked:
            try:
                return _whole_comprehension(src, *found)
            except Unsupported as whole:
                raise Unsupported(f"{whole} (and as stacked rows: {stacked})") from None
    listed = _list_comprehension_at(src, line, end_line)
    starts_here = [
        n for n in ast.walk(src.tree) if isinstance(n, (ast.For, ast.While)) and n.lineno == line
    ]
    if listed is not None and not starts_here:
        return _rewrite_list_comprehension(src, listed)
    loop = _loop_at(src, line, end_line)
    try:
        return _rewrite_loop(src, loop)
    except Unsupported as stacked:
        if not isinstance(loop, ast.For):
            raise
        try:
            return [
                src.span_edit(
                    loop, loop, _indented(src, loop, vectorise_loop(loop, _reads(src, loop)))
                )
            ]
        except Unsupported as whole:
            raise Unsupported(f"{whole} (and as a stacked loop: {stacked})") from None


def _indented(src: Source, stmt: ast.stmt, text: str) -> str:
    indent = src.lines[stmt.lineno - 1][: stmt.col_offset]
    return ("\n" + indent).join(text.splitlines())


def _reads(src: Source, loop: ast.stmt) -> LoopReads:
    np_ = src.module_alias("numpy")
    if np_ is None:
        raise Unsupported("numpy is not imported as a name in the module")
    return LoopReads(np_, frozenset(_read_after(src, loop)))


def _read_after(src: Source, node: ast.stmt) -> set:
    """Names read after ``node`` runs: later in its block, in enclosing blocks, and in loops around it."""
    names: set = set()

    def loads(root: ast.AST) -> set:
        return {
            n.id for n in ast.walk(root) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
        }

    current: ast.AST = node
    while True:
        block = src.block_of(current) if isinstance(current, ast.stmt) else None
        if block is not None:
            for stmt in block[block.index(current) + 1 :]:
                names |= loads(stmt)
        parent = src.parents.get(current)
        if parent is None or isinstance(
            parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
        ):
            return names
        if isinstance(parent, (ast.For, ast.While)):  # runs again: all of it reads after
            names |= loads(parent)
        current = parent


def _list_comprehension_at(src: Source, line: int, end_line: int) -> Optional[ast.ListComp]:
    """A list comprehension over rows at the finding that nothing stacks (``c = [f(x) for x in z]``)."""
    for node in ast.walk(src.tree):
        if isinstance(node, ast.ListComp) and node.lineno <= line <= last_line(node):
            return node
    return None


def _whole_comprehension(src: Source, call: ast.Call, comp) -> List[Edit]:
    """``np.asarray([f(r) for r in X])`` -> ``np.asarray(F(X))`` through the whole-array vectoriser."""
    value = _comprehension_value(src, comp)
    rest = [ast.unparse(k) for k in call.keywords]
    return [src.span_edit(call, call, f"{src.segment(call.func)}({', '.join([value, *rest])})")]


def _comprehension_value(src: Source, comp) -> str:
    if len(comp.generators) != 1 or comp.generators[0].ifs or comp.generators[0].is_async:
        raise Unsupported("the comprehension has more than one `for`, or filters rows")
    generator = comp.generators[0]
    np_ = src.module_alias("numpy")
    if np_ is None:
        raise Unsupported("numpy is not imported as a name in the module")
    space = _Loop(LoopReads(np_, frozenset()))
    _header(space, ast.For(generator.target, generator.iter, [], []))
    value = space.vec(comp.elt)
    if value.kind == _SAME:
        raise Unsupported("the comprehension's element does not change with the rows")
    return ast.unparse(space.whole(value))


def _rewrite_list_comprehension(src: Source, comp: ast.ListComp) -> List[Edit]:
    return [src.span_edit(comp, comp, f"list({_comprehension_value(src, comp)})")]


# -- whole-array rewrites of index loops: accumulation, element writes, appends ----------------
#
# The boundary (input: the loop and what the module around it says; output: the replacement
# source) is kept narrow so that the linter's own advice for elementwise loops can share it later.


@dataclass(frozen=True)
class LoopReads:
    """What rewriting a loop needs to know of the code around it."""

    np: str  # how the module names numpy
    read_after: FrozenSet[str]  # names read after the loop (its results must stay the same)


# kinds of whole-array values standing for a per-iteration value
_SAME, _INDEX, _ROWS, _VEC = "same", "index", "rows", "vector"
_MATH = {
    "exp": "exp",
    "log": "log",
    "log10": "log10",
    "log2": "log2",
    "sqrt": "sqrt",
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "tanh": "tanh",
    "floor": "floor",
    "ceil": "ceil",
    "fabs": "abs",
    "pow": "power",
    "exp2": "exp2",
    "expm1": "expm1",
    "log1p": "log1p",
}
_BUILTINS = {"abs": "abs", "max": "maximum", "min": "minimum", "pow": "power", "round": "round"}
_NP_ELEMENTWISE = _ELEMENTWISE | {
    "power",
    "exp2",
    "log2",
    "log10",
    "tan",
    "arctan",
    "arcsin",
    "arccos",
    "isnan",
    "isinf",
    "isfinite",
    "logical_and",
    "logical_or",
    "logical_not",
    "clip",
    "true_divide",
    "floor_divide",
    "mod",
    "remainder",
    "rint",
    "trunc",
    "fabs",
    "absolute",
    "heaviside",
    "equal",
    "not_equal",
    "greater",
    "less",
    "greater_equal",
    "less_equal",
    "asarray",
}
_ROW_REDUCTIONS = {
    "sum",
    "max",
    "min",
    "mean",
    "prod",
    "argmax",
    "argmin",
    "any",
    "all",
    "std",
    "var",
    "amax",
    "amin",
}


@dataclass(frozen=True)
class _Value:
    kind: str
    node: (
        ast.expr
    )  # _INDEX: the count n (the value is arange(n)); _ROWS: the array; else the expression


class _Loop:
    """One loop's index space and the whole-array form of each expression in its body."""

    def __init__(self, reads: LoopReads) -> None:
        self.np = reads.np
        self.env: Dict[str, _Value] = {}

    def np_call(self, name: str, *args: ast.expr, **keywords: ast.expr) -> ast.Call:
        func = ast.parse(f"{self.np}.{name}", mode="eval").body
        return ast.Call(func, list(args), [ast.keyword(k, v) for k, v in keywords.items()])

    def whole(self, value: _Value) -> ast.expr:
        """The array a value stands for."""
        if value.kind == _INDEX:
            return self.np_call("arange", value.node)
        if value.kind == _ROWS:
            return self.np_call("asarray", value.node)
        return value.node

    # -- expressions ------------------------------------------------------------------
    def vec(self, node: ast.expr) -> _Value:
        if isinstance(node, ast.Name):
            return self.env.get(node.id, _Value(_SAME, node))
        if isinstance(node, ast.Constant):
            return _Value(_SAME, node)
        if isinstance(node, ast.Subscript):
            return self._subscript(node)
        if isinstance(node, ast.BinOp):
            left, right = self.vec(node.left), self.vec(node.right)
            if left.kind == right.kind == _SAME:
                return _Value(_SAME, node)
            return _Value(_VEC, ast.BinOp(self.whole(left), node.op, self.whole(right)))
        if isinstance(node, ast.UnaryOp):
            operand = self.vec(node.operand)
            if operand.kind == _SAME:
                return _Value(_SAME, node)
            if isinstance(node.op, ast.Not):
                return _Value(_VEC, self.np_call("logical_not", self.whole(operand)))
            return _Value(_VEC, ast.UnaryOp(node.op, self.whole(operand)))
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left, right = self.vec(node.left), self.vec(node.comparators[0])
            if left.kind == right.kind == _SAME:
                return _Value(_SAME, node)
            if isinstance(node.ops[0], (ast.In, ast.NotIn, ast.Is, ast.IsNot)):
                raise Unsupported(f"`{ast.unparse(node)}` is not an elementwise comparison")
            return _Value(_VEC, ast.Compare(self.whole(left), node.ops, [self.whole(right)]))
        if isinstance(node, ast.IfExp):
            parts = [self.vec(n) for n in (node.test, node.body, node.orelse)]
            if all(p.kind == _SAME for p in parts):
                return _Value(_SAME, node)
            return _Value(_VEC, self.np_call("where", *map(self.whole, parts)))
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Attribute):
            inner = self.vec(node.value)
            if inner.kind == _SAME:
                return _Value(_SAME, node)
        if not self._depends(node):
            return _Value(_SAME, node)
        raise Unsupported(f"`{ast.unparse(node)}` has no whole-array form here")

    def _depends(self, node: ast.AST) -> bool:
        return any(isinstance(n, ast.Name) and n.id in self.env for n in ast.walk(node))

    def _index(self, array: ast.expr, components: List[ast.expr]):
        """The whole-array index of ``array[components]`` (None: no component depends on the loop)."""
        values = []
        for component in components:
            if isinstance(component, ast.Slice):
                if self._depends(component):
                    raise Unsupported(f"the slice `{ast.unparse(component)}` moves with the loop")
                values.append(_Value(_SAME, component))
            else:
                values.append(self.vec(component))
        moving = [v for v in values if v.kind != _SAME]
        if not moving:
            return None
        out: List[ast.expr] = []
        for value in values:
            if value.kind == _SAME:
                out.append(value.node)
            elif value.kind == _INDEX and len(moving) == 1:  # rows 0..n-1: a slice, or all rows
                rows = _row_count_of(value.node)
                whole = rows is not None and rows == ast.dump(array)
                out.append(ast.Slice(None, None if whole else value.node, None))
            else:  # several moving components: paired element by element (fancy indexing)
                out.append(self.whole(value))
        return out[0] if len(out) == 1 else ast.Tuple(out, ast.Load())

    def _subscript(self, node: ast.Subscript) -> _Value:
        components = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        base = self.vec(node.value)
        if base.kind == _SAME:
            index = self._index(node.value, components)
            if index is None:
                return _Value(_SAME, node)
            if isinstance(index, ast.Slice) and index.lower is index.upper is index.step is None:
                return _Value(_VEC, node.value)  # all of its rows: the array itself
            return _Value(_VEC, ast.Subscript(node.value, index, ast.Load()))
        if base.kind == _INDEX or self._depends(node.slice):
            raise Unsupported(f"`{ast.unparse(node)}` indexes with the loop twice")
        # a row's element k: column k of the whole array
        index = ast.Tuple([ast.Slice(None, None, None), *components], ast.Load())
        return _Value(_VEC, ast.Subscript(self.whole(base), index, ast.Load()))

    def _call(self, node: ast.Call) -> _Value:
        args = [self.vec(a) for a in node.args]
        keywords = [(k.arg, self.vec(k.value)) for k in node.keywords]
        if all(v.kind == _SAME for v in args) and all(v.kind == _SAME for _, v in keywords):
            return _Value(_SAME, node)
        if any(v.kind != _SAME for _, v in keywords) or any(k is None for k, _ in keywords):
            raise Unsupported(f"`{ast.unparse(node)}` passes a per-iteration value by keyword")
        name = dotted(node.func)
        whole = [self.whole(v) for v in args]
        kept = [ast.keyword(k, v.node) for k, v in keywords]
        head, _, short = name.rpartition(".")
        if head == "math" and short in _MATH and not kept:
            return _Value(_VEC, self.np_call(_MATH[short], *whole))
        if name in _BUILTINS and not kept and (name in ("abs", "round") or len(whole) == 2):
            return _Value(_VEC, self.np_call(_BUILTINS[name], *whole))
        if name in ("float", "int", "bool") and len(whole) == 1:
            cast = ast.Attribute(self.np_call("asarray", whole[0]), "astype", ast.Load())
            return _Value(_VEC, ast.Call(cast, [ast.Name(name, ast.Load())], []))
        if head == self.np and short in _ROW_REDUCTIONS and len(whole) == 1 and not kept:
            return _Value(_VEC, self._row_reduction(short, whole[0]))
        if (
            head == self.np
            and short in ("dot", "matmul")
            and len(args) == 2
            and args[1].kind == _SAME
        ):
            return _Value(_VEC, self.np_call(short, *whole))
        if head == self.np and short == "reshape" and len(args) == 2 and args[1].kind == _SAME:
            shape = args[1].node
            if not isinstance(shape, ast.Tuple) or "-1" in ast.unparse(shape):
                raise Unsupported(f"`{ast.unparse(node)}`: the new shape is not a literal tuple")
            return _Value(
                _VEC,
                self.np_call(
                    "reshape", whole[0], ast.Tuple([ast.Constant(-1), *shape.elts], ast.Load())
                ),
            )
        if head == self.np and short in _NP_ELEMENTWISE:
            return _Value(_VEC, ast.Call(node.func, whole, kept))
        if isinstance(node.func, ast.Attribute) and self.vec(node.func.value).kind != _SAME:
            return self._method(node, self.vec(node.func.value), whole)
        if isinstance(node.func, ast.Name) and not hasattr(builtins, node.func.id):
            # a function of the module's own: called once on the whole arrays (elementwise or not:
            # the values are compared before anything is timed)
            return _Value(_VEC, ast.Call(node.func, whole, kept))
        raise Unsupported(f"`{ast.unparse(node)}` has no whole-array form known here")

    def _row_reduction(self, short: str, array: ast.expr) -> ast.expr:
        """One reduction per row, over all of the row's elements (as the call on one row does)."""
        rows = ast.Call(
            ast.Attribute(array, "reshape", ast.Load()),
            [ast.Call(ast.Name("len", ast.Load()), [array], []), ast.Constant(-1)],
            [],
        )
        return self.np_call(short, rows, axis=ast.Constant(1))

    def _method(self, node: ast.Call, owner: _Value, whole: List[ast.expr]) -> _Value:
        method = node.func.attr  # type: ignore[attr-defined]
        array = self.whole(owner)
        if method in _ROW_REDUCTIONS and not whole and not node.keywords:
            return _Value(_VEC, self._row_reduction(method, array))
        if method in ("dot", "astype") and len(whole) == 1 and not node.keywords:
            return _Value(_VEC, ast.Call(ast.Attribute(array, method, ast.Load()), whole, []))
        raise Unsupported(f"`{ast.unparse(node)}` has no whole-array form known here")


def _header(space: _Loop, loop: ast.For) -> None:
    """What the loop's target names stand for."""
    target, iterator = loop.target, loop.iter
    call = iterator if isinstance(iterator, ast.Call) else None
    name = dotted(call.func) if call is not None else ""
    if name == "range" and isinstance(target, ast.Name) and call is not None:
        args = call.args
        if call.keywords or not 1 <= len(args) <= 3:
            raise Unsupported("the range takes keyword arguments")
        start = args[0] if len(args) > 1 else ast.Constant(0)
        step = args[2] if len(args) > 2 else ast.Constant(1)
        if not (_literal(start) == 0 and _literal(step) == 1):
            raise Unsupported("the range has a start or a step: not the rows 0..n-1")
        space.env[target.id] = _Value(_INDEX, args[-2] if len(args) == 3 else args[-1])
        return
    if name == "enumerate" and call is not None and len(call.args) == 1 and not call.keywords:
        if not (
            isinstance(target, ast.Tuple)
            and len(target.elts) == 2
            and all(isinstance(e, ast.Name) for e in target.elts)
        ):
            raise Unsupported("enumerate's target is not `index, row`")
        index, row = target.elts
        array = call.args[0]
        space.env[index.id] = _Value(_INDEX, ast.Call(ast.Name("len", ast.Load()), [array], []))  # type: ignore[attr-defined]
        space.env[row.id] = _Value(_ROWS, array)  # type: ignore[attr-defined]
        return
    if name == "zip" and call is not None and not call.keywords and isinstance(target, ast.Tuple):
        if len(target.elts) != len(call.args) or not all(
            isinstance(e, ast.Name) for e in target.elts
        ):
            raise Unsupported("zip's target does not name one row per array")
        for element, array in zip(target.elts, call.args):
            space.env[element.id] = _Value(_ROWS, array)  # type: ignore[attr-defined]
        return
    if isinstance(target, ast.Name) and name not in ("range", "enumerate", "zip"):
        space.env[target.id] = _Value(_ROWS, iterator)
        return
    raise Unsupported(
        "the loop's header is not `for i in range(n)`, `for row in X`, enumerate or zip"
    )


def _literal(node: ast.AST):
    return node.value if isinstance(node, ast.Constant) else None


def _statement(space: _Loop, stmt: ast.stmt, out: List[str], stored: set) -> None:
    """The whole-array form of one statement of the body, appended to ``out``."""
    if isinstance(stmt, ast.If):
        _branch(space, stmt, out, stored)
        return
    if (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
    ):
        name = stmt.targets[0].id
        value = stmt.value
        if (
            isinstance(value, ast.BinOp)
            and isinstance(value.left, ast.Name)
            and value.left.id == name
        ):
            _accumulate(space, name, value.op, value.right, out, stored)
            return
        if uses(value, name):
            raise Unsupported(f"`{name}` depends on its value in the iteration before")
        bound = space.vec(value)
        if bound.kind == _SAME and not isinstance(value, (ast.Constant, ast.Name, ast.Attribute)):
            raise Unsupported(
                f"`{name}` is computed anew in every iteration from values that do not change "
                "with the loop (a random draw?)"
            )
        space.env[name] = bound
        return
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        _accumulate(space, stmt.target.id, stmt.op, stmt.value, out, stored)
        return
    if isinstance(stmt, (ast.Assign, ast.AugAssign)):
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
        if isinstance(stmt, ast.Assign) and len(stmt.targets) != 1:
            raise Unsupported("a chained assignment")
        if isinstance(target, ast.Subscript):
            _write(space, target, stmt, out, stored)
            return
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        if (
            isinstance(call.func, ast.Attribute)
            and call.func.attr == "append"
            and isinstance(call.func.value, ast.Name)
            and len(call.args) == 1
            and not call.keywords
        ):
            owner = call.func.value.id
            element = space.vec(call.args[0])
            if element.kind == _SAME or owner in space.env or uses(call.args[0], owner):
                raise Unsupported(f"`{owner}.append(...)` is not one element per iteration")
            stored.add(owner)
            out.append(f"{owner}.extend(list({ast.unparse(space.whole(element))}))")
            return
    raise Unsupported(
        f"the loop body has `{ast.unparse(stmt).splitlines()[0]}`, which has no whole-array form here"
    )


def _accumulate(
    space: _Loop, name: str, op: ast.operator, value: ast.expr, out: List[str], stored: set
) -> None:
    reductions = {ast.Add: ("sum", "+="), ast.Sub: ("sum", "-="), ast.Mult: ("prod", "*=")}
    if type(op) not in reductions or name in space.env:
        raise Unsupported(f"`{name}` is not accumulated by +, - or *")
    if uses(value, name) or name in stored:
        raise Unsupported(f"`{name}` is read or written elsewhere in the loop")
    whole = space.vec(value)
    if whole.kind == _SAME:
        raise Unsupported(f"what is added to `{name}` does not change with the loop")
    stored.add(name)
    reduce, operator = reductions[type(op)]
    out.append(
        f"{name} {operator} {ast.unparse(space.np_call(reduce, space.whole(whole), axis=ast.Constant(0)))}"
    )


def _write(space: _Loop, target: ast.Subscript, stmt, out: List[str], stored: set) -> None:
    owner = target.value
    if space._depends(owner):
        raise Unsupported("the array written to changes with the loop")
    components = list(target.slice.elts) if isinstance(target.slice, ast.Tuple) else [target.slice]
    index = space._index(owner, components)
    if index is None:
        raise Unsupported("the loop writes the same element in every iteration")
    value = space.vec(stmt.value)
    owner_text = ast.unparse(owner)
    if any(
        owner_text == ast.unparse(n)
        for n in ast.walk(stmt.value)
        if isinstance(n, (ast.Name, ast.Attribute, ast.Subscript))
    ):
        raise Unsupported(f"`{owner_text}` is read in the iteration that writes it")
    stored.add(owner_text)
    whole = ast.unparse(space.whole(value))
    place = ast.unparse(ast.Subscript(owner, index, ast.Load()))
    if isinstance(stmt, ast.Assign):
        out.append(f"{place} = {whole}")
        return
    if isinstance(index, ast.Tuple):
        unique = not any(_fancy(e) for e in index.elts)
    else:
        unique = not _fancy(index)
    operators = {ast.Add: ("+=", "add"), ast.Sub: ("-=", "subtract"), ast.Mult: ("*=", "multiply")}
    if type(stmt.op) not in operators:
        raise Unsupported("an in-place update other than +, - or *")
    operator, ufunc = operators[type(stmt.op)]
    if unique:  # each element once: the update on the whole slice
        out.append(f"{place} {operator} {whole}")
    else:  # computed indices may repeat: ufunc.at adds up repeats, as the loop does
        out.append(f"{space.np}.{ufunc}.at({owner_text}, {ast.unparse(index)}, {whole})")


def _fancy(node: ast.expr) -> bool:
    return not isinstance(node, (ast.Slice, ast.Constant, ast.Name))


def _branch(space: _Loop, stmt: ast.If, out: List[str], stored: set) -> None:
    """``if c: x[i] = a else: x[i] = b`` -> ``x[...] = where(c, a, b)``; ``if c: acc += a`` likewise."""
    if len(stmt.body) != 1 or len(stmt.orelse) > 1:
        raise Unsupported("a branch of the loop body does more than one thing")
    test = stmt.test
    first, other = stmt.body[0], (stmt.orelse[0] if stmt.orelse else None)
    if (  # `x = x + v`: the same as `x += v`
        isinstance(first, ast.Assign)
        and len(first.targets) == 1
        and isinstance(first.targets[0], ast.Name)
        and isinstance(first.value, ast.BinOp)
        and isinstance(first.value.left, ast.Name)
        and first.value.left.id == first.targets[0].id
    ):
        first = ast.AugAssign(first.targets[0], first.value.op, first.value.right)
    if isinstance(first, ast.AugAssign) and isinstance(first.target, ast.Name) and other is None:
        value = ast.Call(
            ast.parse(f"{space.np}.where", mode="eval").body,
            [test, first.value, ast.Constant(0)],
            [],
        )
        _accumulate(space, first.target.id, first.op, value, out, stored)
        return
    if (
        isinstance(first, ast.Assign)
        and len(first.targets) == 1
        and isinstance(first.targets[0], ast.Subscript)
        and (
            other is None
            or (
                isinstance(other, ast.Assign)
                and ast.dump(other.targets[0]) == ast.dump(first.targets[0])
            )
        )
    ):
        orelse = other.value if other is not None else first.targets[0]
        if other is None:
            orelse = ast.Subscript(first.targets[0].value, first.targets[0].slice, ast.Load())
        value = ast.Call(
            ast.parse(f"{space.np}.where", mode="eval").body, [stmt.test, first.value, orelse], []
        )
        merged = ast.Assign([first.targets[0]], value)
        if other is None:  # the element keeps its value where the test fails: read before written
            _write_keeping(space, first.targets[0], merged, out, stored)
            return
        _write(space, first.targets[0], merged, out, stored)
        return
    raise Unsupported("a branch of the loop body that is not one element write or accumulation")


def _write_keeping(
    space: _Loop, target: ast.Subscript, stmt: ast.Assign, out: List[str], stored: set
) -> None:
    components = list(target.slice.elts) if isinstance(target.slice, ast.Tuple) else [target.slice]
    index = space._index(target.value, components)
    if index is None:
        raise Unsupported("the loop writes the same element in every iteration")
    value = space.whole(space.vec(stmt.value))
    stored.add(ast.unparse(target.value))
    out.append(
        f"{ast.unparse(ast.Subscript(target.value, index, ast.Load()))} = {ast.unparse(value)}"
    )


def vectorise_loop(loop: ast.For, reads: LoopReads) -> str:
    """The statements that replace ``loop``: the work of all iterations on whole arrays at once.

    Handles accumulation (``total += f(x[i])`` -> one reduction), element writes
    (``out[i] = f(x[i])``, ``onehot[y[i], i] = 1``, ``np.add.at`` for computed
    indices), appends (``rows.append(f(r))`` -> one ``extend``), and bodies that
    bind per-row values first (``x = points[i, 0]; y = points[i, 1]; err += (y - x) ** 2``)
    or choose by a test (``np.where``). Raises ``Unsupported`` naming what does not fit.
    """
    if loop.orelse:
        raise Unsupported("the loop has an else")
    space = _Loop(reads)
    _header(space, loop)
    out: List[str] = []
    stored: set = set()
    for stmt in loop.body:
        _statement(space, stmt, out, stored)
    bound = set(space.env) | {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    kept = sorted(bound & reads.read_after)
    if kept:
        raise Unsupported(f"`{kept[0]}`, which the loop binds, is read after it")
    if not out:
        raise Unsupported("the loop computes nothing that outlives it")
    return "\n".join(out)
