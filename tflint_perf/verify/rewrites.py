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
    # a reduction of the row, or of an elementwise expression of it (``reduce_sum(row * key)``):
    # one reduction over all rows, along the row axes (other operands broadcast against a row)
    if isinstance(element, ast.Call) and element.args and _uses(element.args[0], "__el") and (
        isinstance(element.args[0], ast.Name) or _elementwise(element.args[0])
    ):
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
            first = tensor_src
            if not isinstance(element.args[0], ast.Name):
                whole = ast.parse(tensor_src, mode="eval").body
                first = ast.unparse(_Substitute(lambda n: isinstance(n, ast.Name) and n.id == "__el", whole).visit(element.args[0]))
            args = ", ".join([first, f"axis={new_axis}", *rest])
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


# -- loop-level helpers (TFP202, TFP103) ------------------------------------
def _statement_at(src: Source, line: int, end_line: int):
    """(statement, its loop) for the innermost statement holding the finding, directly in a loop body."""
    best = None
    compound = (ast.For, ast.While, ast.If, ast.With, ast.Try, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    for node in ast.walk(src.tree):
        if isinstance(node, ast.stmt) and not isinstance(node, compound):
            if node.lineno <= line and end_line <= node.end_lineno and (best is None or node.lineno >= best.lineno):
                best = node
    if best is None:
        raise Unsupported("no simple statement at the finding")
    loop = src.parents.get(best)
    if not isinstance(loop, (ast.For, ast.While)) or best not in loop.body:
        raise Unsupported("the flagged statement is not directly in a loop body (it sits in a branch or block)")
    return best, loop


def _stored(nodes) -> set:
    names = set()
    for root in nodes:
        for node in ast.walk(root):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                names.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def _read(nodes, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for root in nodes for n in ast.walk(root))


def _own_lines(src: Source, stmt: ast.stmt) -> bool:
    """Whether the statement fills its lines alone (no ``;`` neighbours)."""
    first = src.lines[stmt.lineno - 1][: src.col(stmt.lineno, stmt.col_offset)]
    last = src.lines[stmt.end_lineno - 1][src.col(stmt.end_lineno, stmt.end_col_offset):]
    return not first.strip() and (not last.strip() or last.strip().startswith("#"))


def _indent(src: Source, line: int) -> str:
    text = src.lines[line - 1]
    return text[: len(text) - len(text.lstrip())]


def _after(src: Source, node: ast.AST, text: str) -> Edit:
    """Insert ``text`` as new lines after the node's last line."""
    line = src.lines[node.end_lineno - 1].rstrip("\r\n")
    return Edit(node.end_lineno, len(line), node.end_lineno, len(line), "\n" + text)


def rewrite_tfp202(src: Source, line: int, end_line: int) -> List[Edit]:
    """Hoist a loop-invariant ``name = build(...)`` out of the loop: ``m = build(); for b in bs: m(b)``."""
    stmt, loop = _statement_at(src, line, end_line)
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        raise Unsupported("the rebuilt object is not bound by `name = ...`")
    name = stmt.targets[0].id
    loop_names = _stored([loop.target] if isinstance(loop, ast.For) else []) | _stored(loop.body)
    used = {n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name)}
    if used & loop_names:
        raise Unsupported(f"the construction uses {', '.join(sorted(used & loop_names))}, which the loop changes")
    if any(name in _stored([s]) for s in loop.body if s is not stmt) or (isinstance(loop, ast.For) and name in _stored([loop.target])):
        raise Unsupported(f"`{name}` is bound again elsewhere in the loop")
    index = loop.body.index(stmt)
    if _read(loop.body[:index], name) or (isinstance(loop, ast.While) and _read([loop.test], name)):
        raise Unsupported(f"the loop reads `{name}` before rebuilding it")
    if not _own_lines(src, stmt):
        raise Unsupported("the statement shares its line with another")
    inner, outer = _indent(src, stmt.lineno), _indent(src, loop.lineno)
    text = "".join(src.lines[stmt.lineno - 1: stmt.end_lineno])
    hoisted = "".join(outer + t[len(inner):] if t.startswith(inner) else t for t in text.splitlines(keepends=True))
    if not hoisted.endswith("\n"):
        hoisted += "\n"
    first = min([loop.lineno] + [d.lineno for d in getattr(loop, "decorator_list", [])])
    return [
        Edit(first, 0, first, 0, hoisted),
        Edit(stmt.lineno, 0, stmt.end_lineno + 1, 0, ""),
    ]


_CONCATS = {"concat", "concatenate"}


def rewrite_tfp103(src: Source, line: int, end_line: int) -> List[Edit]:
    """``acc = concat([acc, piece])`` per iteration -> append pieces to a list, concatenate once after the loop."""
    stmt, loop = _statement_at(src, line, end_line)
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        raise Unsupported("the grown tensor is not bound by `name = ...`")
    name = stmt.targets[0].id
    call = stmt.value
    if not (isinstance(call, ast.Call) and _dotted(call.func).rsplit(".", 1)[-1] in _CONCATS and call.args
            and isinstance(call.args[0], (ast.List, ast.Tuple)) and len(call.args[0].elts) == 2):
        raise Unsupported("the statement is not `x = concat([x, piece], axis)`")
    grown, piece = call.args[0].elts
    if not (isinstance(grown, ast.Name) and grown.id == name) or _uses(piece, name):
        raise Unsupported("the statement does not append one piece to the grown tensor")
    axis = call.args[1:] + [k.value for k in call.keywords if k.arg == "axis"]
    if len(call.args) > 2 or any(k.arg not in ("axis",) for k in call.keywords) or len(axis) > 1:
        raise Unsupported("the concatenation takes arguments other than the pieces and the axis")
    if axis and not (isinstance(axis[0], ast.Constant) or (isinstance(axis[0], ast.UnaryOp) and isinstance(axis[0].operand, ast.Constant))):
        raise Unsupported("the axis is not a literal")
    others = [s for s in loop.body if s is not stmt]
    if name in _stored(others) or _read(others, name) or (isinstance(loop, ast.While) and _read([loop.test], name)):
        raise Unsupported(f"the loop uses `{name}` other than to grow it")
    if isinstance(loop, ast.For) and name in _stored([loop.target]):
        raise Unsupported(f"`{name}` is the loop variable")
    if loop.orelse or any(isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom)) for n in ast.walk(loop)):
        raise Unsupported("the loop can leave its function early (return/yield) or has an else")
    if not _own_lines(src, stmt):
        raise Unsupported("the statement shares its line with another")
    parts = "__tfp_parts"
    outer = _indent(src, loop.lineno)
    axis_text = f", axis={src.segment(axis[0])}" if axis else ""
    first = min([loop.lineno] + [d.lineno for d in getattr(loop, "decorator_list", [])])
    return [
        Edit(first, 0, first, 0, f"{outer}{parts} = [{name}]\n"),
        src.span_edit(stmt, stmt, f"{parts}.append({src.segment(piece)})"),
        _after(src, loop, f"{outer}{name} = {src.segment(call.func)}({parts}{axis_text})"),
    ]


REWRITES: Dict[str, Callable[[Source, int, int], List[Edit]]] = {
    "TFP101": rewrite_tfp101,
    "TFP103": rewrite_tfp103,
    "TFP202": rewrite_tfp202,
    "TFP403": rewrite_tfp403,
}


def rewrite(code: str, src: Source, line: int, end_line: int) -> Optional[List[Edit]]:
    """The rewrite's edits; None when the rule has no rewrite; Unsupported when this case has none."""
    function = REWRITES.get(code)
    if function is None:
        return None
    return function(src, line, end_line)
