"""Verification-only rewrites for findings that carry no automatic fix.

A rewrite is keyed by rule code and written against the finding's source
range (its line span). It returns the text edits of the faster variant, or
raises ``Unsupported`` naming why this occurrence is not rewritten. These
rewrites are measured and compared, never applied to the user's files.

Analysis uses the standard ``ast`` module: the verify planner only needs
statement boundaries and a few expression shapes, and must stay cheap.
"""

from __future__ import annotations

import ast
import re
from typing import Callable, Dict, List, Optional

from tflint_perf.rule import Edit


class Unsupported(Exception):
    """This occurrence has no verification rewrite (the message says why)."""


class Source:
    """A module's text with its ``ast`` and character (not byte) columns."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.tree = ast.parse(text)
        self.parents: Dict[ast.AST, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node

    def col(self, line: int, byte_col: int) -> int:
        raw = self.lines[line - 1].encode("utf-8")[:byte_col]
        return len(raw.decode("utf-8", errors="replace"))

    def segment(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.text, node) or ""

    def span_edit(self, first: ast.AST, last: ast.AST, content: str) -> Edit:
        return Edit(
            first.lineno,
            self.col(first.lineno, first.col_offset),
            last.end_lineno,
            self.col(last.end_lineno, last.end_col_offset),
            content,
        )

    def tf_alias(self) -> Optional[str]:
        for node in self.tree.body:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == "tensorflow":
                        return alias.asname or "tensorflow"
        return None

    def block_of(self, stmt: ast.stmt):
        parent = self.parents.get(stmt)
        for name in ("body", "orelse", "finalbody"):
            block = getattr(parent, name, None)
            if isinstance(block, list) and stmt in block:
                return block
        for handler in getattr(parent, "handlers", []) or []:
            if stmt in handler.body:
                return handler.body
        return None


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


_REDUCTIONS = {
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any", "reduce_all",
    "reduce_logsumexp", "reduce_std", "reduce_variance", "sum", "mean", "max", "min", "prod", "std", "var",
    "norm", "amax", "amin",
}
_ELEMENTWISE = {
    "exp", "log", "log1p", "sqrt", "rsqrt", "square", "abs", "sin", "cos", "tanh", "sigmoid", "relu",
    "relu6", "elu", "selu", "softplus", "negative", "sign", "floor", "ceil", "round", "cast", "clip_by_value",
    "maximum", "minimum", "pow", "multiply", "add", "subtract", "divide", "where", "erf", "expm1",
}
_STACKS = {"stack", "convert_to_tensor", "array", "asarray", "constant"}


def _uses(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


class _Substitute(ast.NodeTransformer):
    def __init__(self, match: Callable[[ast.AST], bool], replacement: ast.AST) -> None:
        self.match, self.replacement = match, replacement

    def visit(self, node):
        if self.match(node):
            return self.replacement
        return super().visit(node)


def _element_expression(loop: ast.For, expr: ast.AST):
    """(expression of one element as a function of the name ``__el``, iterated tensor expression)."""
    target = loop.target
    if not isinstance(target, ast.Name):
        raise Unsupported("the loop target is not a single name")
    iterator = loop.iter
    func = _dotted(iterator.func) if isinstance(iterator, ast.Call) else ""
    if func.rsplit(".", 1)[-1] != "range":
        # for row in X: element = row
        substituted = _Substitute(lambda n: isinstance(n, ast.Name) and n.id == target.id, ast.Name("__el", ast.Load()))
        return substituted.visit(expr), iterator
    # for i in range(...): every use of i must be X[i] for one X
    tensors = set()
    for node in ast.walk(expr):
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name) and node.slice.id == target.id:
            tensors.add(ast.dump(node.value))
    if len(tensors) != 1:
        raise Unsupported("the loop index is not used as X[i] for exactly one tensor X")
    dumped = tensors.pop()
    tensor = next(
        n.value for n in ast.walk(expr)
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Name) and n.slice.id == target.id and ast.dump(n.value) == dumped
    )
    substituted = _Substitute(
        lambda n: isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Name) and n.slice.id == target.id
        and ast.dump(n.value) == dumped,
        ast.Name("__el", ast.Load()),
    ).visit(expr)
    if _uses(substituted, target.id):
        raise Unsupported("the loop index is used other than as X[i]")
    return substituted, tensor


def _vectorise(element: ast.AST, tensor_src: str, tf: Optional[str]) -> str:
    """One expression over the whole tensor equal to stacking ``element`` per row."""
    if not re.match(r"^[\w.]+$", tensor_src):
        tensor_src = f"({tensor_src})"
    if isinstance(element, ast.Call) and element.args and isinstance(element.args[0], ast.Name) and element.args[0].id == "__el":
        short = _dotted(element.func).rsplit(".", 1)[-1]
        keywords = {k.arg: k for k in element.keywords}
        if short in _REDUCTIONS and not ({"keepdims", "keep_dims"} & set(keywords)) and len(element.args) == 1:
            axis = keywords.get("axis")
            if axis is None or (isinstance(axis.value, ast.Constant) and axis.value.value is None):
                new_axis = f"tuple(range(1, len({tensor_src}.shape)))"
            elif isinstance(axis.value, ast.Constant) and isinstance(axis.value.value, int):
                value = axis.value.value
                new_axis = str(value + 1 if value >= 0 else value)
            else:
                raise Unsupported("the reduction's axis is not a literal")
            rest = [ast.unparse(k) for k in element.keywords if k.arg != "axis"]
            args = ", ".join([tensor_src, f"axis={new_axis}", *rest])
            return f"{ast.unparse(element.func)}({args})"
    if _elementwise(element):
        text = ast.unparse(element)
        return ast.unparse(_Substitute(lambda n: isinstance(n, ast.Name) and n.id == "__el", ast.parse(tensor_src, mode="eval").body).visit(ast.parse(text, mode="eval").body))
    if tf is None:
        raise Unsupported("the per-row expression is neither a reduction nor elementwise, and tensorflow is not imported as a name")
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
        short = _dotted(node.func).rsplit(".", 1)[-1]
        return short in _ELEMENTWISE and all(_elementwise(a) for a in node.args) and all(
            _elementwise(k.value) or isinstance(k.value, ast.Attribute) for k in node.keywords
        )
    if isinstance(node, ast.Attribute):  # tf.float32
        return not _uses(node, "__el")
    return False


def _loop_at(src: Source, line: int, end_line: int) -> ast.For:
    loops = [n for n in ast.walk(src.tree) if isinstance(n, ast.For) and n.lineno <= line <= n.end_lineno]
    if loops:
        return max(loops, key=lambda n: n.lineno)
    # the finding may sit on the statement that stacks the results, just after the loop
    for node in ast.walk(src.tree):
        if isinstance(node, ast.For) and line <= node.lineno <= end_line:
            return node
    for stmt in ast.walk(src.tree):
        if isinstance(stmt, ast.stmt) and stmt.lineno == line:
            block = src.block_of(stmt)
            if block is not None and block.index(stmt) > 0 and isinstance(block[block.index(stmt) - 1], ast.For):
                return block[block.index(stmt) - 1]
    raise Unsupported("no for loop at the finding")


def rewrite_tfp101(src: Source, line: int, end_line: int) -> List[Edit]:
    """``acc = []; for r in X: acc.append(f(r)); Y = tf.stack(acc)`` -> ``Y = F(X)``."""
    loop = _loop_at(src, line, end_line)
    if loop.orelse or len(loop.body) != 1:
        raise Unsupported("the loop body is not a single append")
    stmt = loop.body[0]
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if not (
        isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append"
        and isinstance(call.func.value, ast.Name) and len(call.args) == 1 and not call.keywords
    ):
        raise Unsupported("the loop body is not `results.append(...)`")
    acc = call.func.value.id
    block = src.block_of(loop)
    index = block.index(loop) if block is not None else -1
    if index < 0 or index + 1 >= len(block):
        raise Unsupported("nothing stacks the loop's results")
    consumer = block[index + 1]
    if not (
        (isinstance(consumer, ast.Assign) and len(consumer.targets) == 1 or isinstance(consumer, ast.Return))
        and isinstance(consumer.value, ast.Call)
        and _dotted(consumer.value.func).rsplit(".", 1)[-1] in _STACKS and len(consumer.value.args) == 1
        and isinstance(consumer.value.args[0], ast.Name) and consumer.value.args[0].id == acc
        and all(k.arg in ("axis", "dtype") for k in consumer.value.keywords)
    ):
        raise Unsupported(f"the statement after the loop does not stack `{acc}` into a tensor")
    for keyword in consumer.value.keywords:
        if keyword.arg == "axis" and not (isinstance(keyword.value, ast.Constant) and keyword.value.value == 0):
            raise Unsupported("the results are stacked along an axis other than 0")
    element, tensor = _element_expression(loop, call.args[0])
    if _uses(element, acc):
        raise Unsupported("the per-row expression uses the results list")
    vector = _vectorise(element, src.segment(tensor), src.tf_alias())
    if isinstance(consumer, ast.Return):
        return [src.span_edit(loop, consumer, f"return {vector}")]
    target = src.segment(consumer.targets[0])
    return [src.span_edit(loop, consumer, f"{target} = {vector}")]


_PREDICT_ONLY = {"verbose", "batch_size", "steps", "callbacks"}


def rewrite_tfp403(src: Source, line: int, end_line: int) -> List[Edit]:
    """``model.predict(x)`` in a loop -> ``model(x, training=False).numpy()``."""
    edits = []
    for node in ast.walk(src.tree):
        if not (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "predict"
            and line <= node.lineno <= end_line
        ):
            continue
        args = list(node.args)
        keywords = [k for k in node.keywords if k.arg not in _PREDICT_ONLY]
        x_kw = [k for k in keywords if k.arg == "x"]
        if x_kw and not args:
            args, keywords = [x_kw[0].value], [k for k in keywords if k.arg != "x"]
        if len(args) != 1 or keywords or any(k.arg is None for k in node.keywords):
            raise Unsupported("predict() is called with arguments other than the input batch")
        model = src.segment(node.func.value)
        edits.append(src.span_edit(node, node, f"{model}({src.segment(args[0])}, training=False).numpy()"))
    if not edits:
        raise Unsupported("no `.predict(...)` call at the finding")
    return edits


REWRITES: Dict[str, Callable[[Source, int, int], List[Edit]]] = {
    "TFP101": rewrite_tfp101,
    "TFP403": rewrite_tfp403,
}


def rewrite(code: str, src: Source, line: int, end_line: int) -> Optional[List[Edit]]:
    """The rewrite's edits; None when the rule has no rewrite; Unsupported when this case has none."""
    function = REWRITES.get(code)
    if function is None:
        return None
    return function(src, line, end_line)
