"""Verification-only rewrites for findings that carry no automatic fix.

A rewrite is named by the rule's ``verification.rewrite`` (``Rewrite`` in
``tflint_perf.engine.verification``) and written against the finding's source
range (its line span). It returns the text edits of the faster variant, or
raises ``Unsupported`` naming why this occurrence is not rewritten. These
rewrites are measured and compared, never applied to the user's files.
"""

from __future__ import annotations

import ast
from typing import Callable, Dict, List, Optional

from tflint_perf.engine.rule import Edit
from tflint_perf.engine.verification import Rewrite
from tflint_perf.verify.source import (
    Located,
    Source,
    Unsupported,
    dotted,
    end_col,
    last_line,
    uses,
)
from tflint_perf.verify.vectorise import stack_to_vector

__all__ = ["Source", "Unsupported", "rewrite"]

_PREDICT_ONLY = {"verbose", "batch_size", "steps", "callbacks"}


def predict_as_call(src: Source, line: int, end_line: int) -> List[Edit]:
    """``model.predict(x)`` in a loop -> ``model(x, training=False).numpy()``."""
    edits = []
    for node in ast.walk(src.tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "predict"
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
        edits.append(
            src.span_edit(node, node, f"{model}({src.segment(args[0])}, training=False).numpy()")
        )
    if not edits:
        raise Unsupported("no `.predict(...)` call at the finding")
    return edits


# -- loop-level helpers (hoist, concat-once) -----------------------------------
def _statement_at(src: Source, line: int, end_line: int):
    """(statement, its loop) for the innermost statement holding the finding, directly in a loop body."""
    best = None
    compound = (
        ast.For,
        ast.While,
        ast.If,
        ast.With,
        ast.Try,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.ClassDef,
    )
    for node in ast.walk(src.tree):
        if isinstance(node, ast.stmt) and not isinstance(node, compound):
            if (
                node.lineno <= line
                and end_line <= last_line(node)
                and (best is None or node.lineno >= best.lineno)
            ):
                best = node
    if best is None:
        raise Unsupported("no simple statement at the finding")
    loop = src.parents.get(best)
    if not isinstance(loop, (ast.For, ast.While)) or best not in loop.body:
        raise Unsupported(
            "the flagged statement is not directly in a loop body (it sits in a branch or block)"
        )
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
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
        for root in nodes
        for n in ast.walk(root)
    )


def _own_lines(src: Source, stmt: ast.stmt) -> bool:
    """Whether the statement fills its lines alone (no ``;`` neighbours)."""
    first = src.lines[stmt.lineno - 1][: src.col(stmt.lineno, stmt.col_offset)]
    end = last_line(stmt)
    last = src.lines[end - 1][src.col(end, end_col(stmt)) :]
    return not first.strip() and (not last.strip() or last.strip().startswith("#"))


def _indent(src: Source, line: int) -> str:
    text = src.lines[line - 1]
    return text[: len(text) - len(text.lstrip())]


def _after(src: Source, node: Located, text: str) -> Edit:
    """Insert ``text`` as new lines after the node's last line."""
    end = last_line(node)
    line = src.lines[end - 1].rstrip("\r\n")
    return Edit(end, len(line), end, len(line), "\n" + text)


def hoist(src: Source, line: int, end_line: int) -> List[Edit]:
    """Hoist a loop-invariant ``name = build(...)`` out of the loop: ``m = build(); for b in bs: m(b)``."""
    stmt, loop = _statement_at(src, line, end_line)
    if not (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
    ):
        raise Unsupported("the rebuilt object is not bound by `name = ...`")
    name = stmt.targets[0].id
    loop_names = _stored([loop.target] if isinstance(loop, ast.For) else []) | _stored(loop.body)
    used = {n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name)}
    if used & loop_names:
        raise Unsupported(
            f"the construction uses {', '.join(sorted(used & loop_names))}, which the loop changes"
        )
    if any(name in _stored([s]) for s in loop.body if s is not stmt) or (
        isinstance(loop, ast.For) and name in _stored([loop.target])
    ):
        raise Unsupported(f"`{name}` is bound again elsewhere in the loop")
    index = loop.body.index(stmt)
    if _read(loop.body[:index], name) or (isinstance(loop, ast.While) and _read([loop.test], name)):
        raise Unsupported(f"the loop reads `{name}` before rebuilding it")
    if not _own_lines(src, stmt):
        raise Unsupported("the statement shares its line with another")
    inner, outer = _indent(src, stmt.lineno), _indent(src, loop.lineno)
    text = "".join(src.lines[stmt.lineno - 1 : stmt.end_lineno])
    hoisted = "".join(
        outer + t[len(inner) :] if t.startswith(inner) else t
        for t in text.splitlines(keepends=True)
    )
    if not hoisted.endswith("\n"):
        hoisted += "\n"
    first = min([loop.lineno] + [d.lineno for d in getattr(loop, "decorator_list", [])])
    return [
        Edit(first, 0, first, 0, hoisted),
        Edit(stmt.lineno, 0, last_line(stmt) + 1, 0, ""),
    ]


_CONCATS = {"concat", "concatenate"}


def _concat_parts(stmt: ast.stmt):
    """(name, call, piece, axis nodes) of ``name = concat([name, piece], axis)``."""
    if not (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
    ):
        raise Unsupported("the grown tensor is not bound by `name = ...`")
    name = stmt.targets[0].id
    call = stmt.value
    if not (
        isinstance(call, ast.Call)
        and dotted(call.func).rsplit(".", 1)[-1] in _CONCATS
        and call.args
        and isinstance(call.args[0], (ast.List, ast.Tuple))
        and len(call.args[0].elts) == 2
    ):
        raise Unsupported("the statement is not `x = concat([x, piece], axis)`")
    grown, piece = call.args[0].elts
    if not (isinstance(grown, ast.Name) and grown.id == name) or uses(piece, name):
        raise Unsupported("the statement does not append one piece to the grown tensor")
    axis = call.args[1:] + [k.value for k in call.keywords if k.arg == "axis"]
    if len(call.args) > 2 or any(k.arg not in ("axis",) for k in call.keywords) or len(axis) > 1:
        raise Unsupported("the concatenation takes arguments other than the pieces and the axis")
    if axis and not (
        isinstance(axis[0], ast.Constant)
        or (isinstance(axis[0], ast.UnaryOp) and isinstance(axis[0].operand, ast.Constant))
    ):
        raise Unsupported("the axis is not a literal")
    return name, call, piece, axis


def _grows_only(loop, stmt: ast.stmt, name: str) -> None:
    """Raise unless the loop does nothing else with ``name`` and always runs to its end."""
    others = [s for s in loop.body if s is not stmt]
    if (
        name in _stored(others)
        or _read(others, name)
        or (isinstance(loop, ast.While) and _read([loop.test], name))
    ):
        raise Unsupported(f"the loop uses `{name}` other than to grow it")
    if isinstance(loop, ast.For) and name in _stored([loop.target]):
        raise Unsupported(f"`{name}` is the loop variable")
    if loop.orelse or any(
        isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom)) for n in ast.walk(loop)
    ):
        raise Unsupported("the loop can leave its function early (return/yield) or has an else")


def concat_once(src: Source, line: int, end_line: int) -> List[Edit]:
    """``acc = concat([acc, piece])`` per iteration -> append pieces to a list, concatenate once after the loop."""
    stmt, loop = _statement_at(src, line, end_line)
    name, call, piece, axis = _concat_parts(stmt)
    _grows_only(loop, stmt, name)
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


REWRITES: Dict[Rewrite, Callable[[Source, int, int], List[Edit]]] = {
    Rewrite.CONCAT_ONCE: concat_once,
    Rewrite.HOIST: hoist,
    Rewrite.PREDICT_AS_CALL: predict_as_call,
}


def rewrite(
    kind: Rewrite, src: Source, line: int, end_line: int, extra: Optional[dict] = None
) -> List[Edit]:
    """The rewrite's edits; raises Unsupported when this occurrence has none. ``extra``:
    the finding's output keys (``whole_array``: the code the rule derived)."""
    if Rewrite(kind) is Rewrite.STACK_TO_VECTOR:
        return stack_to_vector(src, line, end_line, (extra or {}).get("whole_array"))
    return REWRITES[Rewrite(kind)](src, line, end_line)
