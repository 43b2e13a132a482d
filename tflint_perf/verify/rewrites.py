"""Verification-only rewrites for findings that carry no automatic fix.

A rewrite is named by the rule's ``verification.rewrite`` (``Rewrite`` in
``tflint_perf.engine.verification``) and written against the finding's source
range (its line span). It returns the text edits of the faster variant, or
raises ``Unsupported`` naming why this occurrence is not rewritten. These
rewrites are measured and compared, never applied to the user's files.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

from tflint_perf.engine.rule import Edit
from tflint_perf.engine.verification import Rewrite
from tflint_perf.verify.source import (
    Located,
    Source,
    Unsupported,
    dotted,
    end_col,
    last_line,
)
from tflint_perf.verify.vectorise import stack_to_vector

__all__ = ["Source", "Unsupported", "rewrite"]

_PREDICT_ONLY = {"verbose", "batch_size", "steps", "callbacks"}


def predict_as_call(src: Source, line: int, end_line: int) -> List[Edit]:
    """``model.predict(x)`` (or ``predict_on_batch``) in a loop -> ``model(x, training=False).numpy()``."""
    edits = []
    for node in ast.walk(src.tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("predict", "predict_on_batch")
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
        raise Unsupported("no `.predict(...)` or `.predict_on_batch(...)` call at the finding")
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
_STACKERS = {"vstack", "hstack", "row_stack"}
_PARTS = "__tfp_parts"


@dataclass
class _Growth:
    """How one statement grows ``name``: the piece it adds, and the call that joins pieces."""

    stmt: ast.stmt
    piece: ast.expr
    join: str  # the joining call's source, with {parts} for the list of pieces
    first_piece: bool = False  # `if x.size == 0: x = p else: x = join(x, p)`: x starts as p
    flattens: bool = False  # np.append without an axis: no piece, no change (not even a flat x)


def _axis_text(src: Source, call: ast.Call, positional: int) -> Optional[str]:
    axis = call.args[positional:] + [k.value for k in call.keywords if k.arg == "axis"]
    if len(axis) > 1 or any(k.arg not in ("axis",) for k in call.keywords):
        raise Unsupported("the concatenation takes arguments other than the pieces and the axis")
    if not axis:
        return None
    node = axis[0]
    if not (
        isinstance(node, ast.Constant)
        or (isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant))
    ):
        raise Unsupported("the axis is not a literal")
    return src.segment(node)


def _growth_call(src: Source, call: ast.AST, name: str) -> Optional[Tuple[ast.expr, str]]:
    """(piece, join template) when ``call`` is ``concat([name, piece])`` in one of its spellings."""
    if not isinstance(call, ast.Call):
        return None
    func = src.segment(call.func)
    short = dotted(call.func).rsplit(".", 1)[-1]
    grown = lambda node: isinstance(node, ast.Name) and node.id == name  # noqa: E731
    if short in _CONCATS | _STACKERS and call.args:
        pair = call.args[0]
        if not (
            isinstance(pair, (ast.List, ast.Tuple)) and len(pair.elts) == 2 and grown(pair.elts[0])
        ):
            return None
        if short in _STACKERS:
            if len(call.args) > 1 or call.keywords:
                raise Unsupported("the stacking call takes more than the pieces")
            return pair.elts[1], f"{func}({{parts}})"
        axis = _axis_text(src, call, 1)
        return pair.elts[1], f"{func}({{parts}}" + (f", axis={axis})" if axis else ")")
    if (
        short == "append"
        and len(call.args) >= 2
        and grown(call.args[0])
        and isinstance(call.func, ast.Attribute)
    ):
        numpy = src.segment(call.func.value)
        axis = _axis_text(src, call, 2)
        if axis is not None:
            return call.args[1], f"{numpy}.concatenate({{parts}}, axis={axis})"
        # without an axis, np.append flattens both sides
        return call.args[1], f"{numpy}.concatenate([{numpy}.ravel(__p) for __p in {{parts}}])"
    return None


def _empty_test(test: ast.expr, name: str) -> bool:
    """``x.size == 0``, ``len(x) == 0``, ``x.shape[0] == 0``, ``x is None``, ``not x.size``..."""
    text = ast.unparse(test).replace(" ", "")
    return text in {
        f"{name}.size==0",
        f"len({name})==0",
        f"{name}.shape[0]==0",
        f"{name}isNone",
        f"not{name}.size",
        f"not{name}.any()",
        f"not{name}",
    }


def _growth(src: Source, stmt: ast.stmt, name: str) -> Optional[_Growth]:
    """How ``stmt`` grows ``name``, or None when it does not."""
    if (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and stmt.targets[0].id == name
    ):
        found = _growth_call(src, stmt.value, name)
        if found is not None:
            return _Growth(stmt, found[0], found[1], flattens="ravel" in found[1])
    if (
        isinstance(stmt, ast.If)
        and _empty_test(stmt.test, name)
        and len(stmt.body) == len(stmt.orelse) == 1
    ):
        first, other = stmt.body[0], stmt.orelse[0]
        grows = _growth(src, other, name)
        if (
            grows is not None
            and isinstance(first, ast.Assign)
            and len(first.targets) == 1
            and isinstance(first.targets[0], ast.Name)
            and first.targets[0].id == name
            and ast.dump(first.value) == ast.dump(grows.piece)
        ):
            return _Growth(stmt, grows.piece, grows.join, True, grows.flattens)
    return None


def _growths_in(src: Source, loop, name: str) -> List[_Growth]:
    """Every statement of ``loop`` that grows ``name``; raise if the loop uses it otherwise."""
    growths: List[_Growth] = []
    inside: set = set()
    for node in ast.walk(loop):  # breadth first: an `if` growth before the assignments in it
        if isinstance(node, ast.stmt) and node is not loop and id(node) not in inside:
            found = _growth(src, node, name)
            if found is not None:
                growths.append(found)
                inside |= {id(n) for n in ast.walk(found.stmt)}
    for node in ast.walk(loop):
        if isinstance(node, ast.Name) and node.id == name and id(node) not in inside:
            raise Unsupported(f"the loop uses `{name}` other than to grow it")
    if isinstance(loop, ast.For) and name in _stored([loop.target]):
        raise Unsupported(f"`{name}` is the loop variable")
    kinds = {g.first_piece for g in growths}
    if len(kinds) > 1 or len({g.join for g in growths}) > 1:
        raise Unsupported(f"`{name}` grows in more than one way")
    return growths


def _growth_loop(src: Source, stmt: ast.stmt, name: str):
    """The outermost loop around ``stmt`` in which ``name`` is only grown (by the same call)."""
    best, growths = None, None
    node = src.parents.get(stmt)
    while node is not None and not isinstance(
        node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)
    ):
        if isinstance(node, (ast.For, ast.While)):
            try:
                found = _growths_in(src, node, name)
            except Unsupported:
                if best is None:
                    raise
                break
            best, growths = node, found
        node = src.parents.get(node)
    if best is None or not growths:
        raise Unsupported("the growing statement is not in a loop")
    if best.orelse or any(
        isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom)) for n in ast.walk(best)
    ):
        raise Unsupported("the loop can leave its function early (return/yield) or has an else")
    return best, growths


def _grown_name(src: Source, line: int, end_line: int) -> Tuple[ast.stmt, str]:
    """The statement at the finding that grows a tensor, and the tensor's name."""
    candidates = []
    for node in ast.walk(src.tree):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.lineno <= end_line
            and line <= last_line(node)
            and _growth_call(src, node.value, node.targets[0].id) is not None
        ):
            candidates.append(node)
    if not candidates:
        raise Unsupported(
            "the statement is not `x = concat([x, piece], axis)` or `x = np.append(x, piece)`"
        )
    stmt = min(candidates, key=lambda n: abs(n.lineno - line))
    return stmt, stmt.targets[0].id  # type: ignore[attr-defined]


def concat_once(src: Source, line: int, end_line: int) -> List[Edit]:
    """``x = concat([x, piece])`` per iteration (also ``np.append``, ``vstack``, in a branch, or from
    an empty start) -> the pieces collected in a list, joined once after the loop."""
    stmt, name = _grown_name(src, line, end_line)
    grower = src.parents.get(stmt)
    if isinstance(grower, ast.If) and _growth(src, grower, name) is not None:
        stmt = grower
    loop, growths = _growth_loop(src, stmt, name)
    for growth in growths:
        if not _own_lines(src, growth.stmt):
            raise Unsupported("a growing statement shares its line with another")
    outer = _indent(src, loop.lineno)
    first = min([loop.lineno] + [d.lineno for d in getattr(loop, "decorator_list", [])])
    join = growths[0].join.format(parts=_PARTS)
    if growths[0].first_piece:
        start, after = f"{outer}{_PARTS} = []\n", f"{outer}if {_PARTS}:\n{outer}    {name} = {join}"
    elif growths[0].flattens:
        start = f"{outer}{_PARTS} = [{name}]\n"
        after = f"{outer}if len({_PARTS}) > 1:\n{outer}    {name} = {join}"
    else:
        start, after = f"{outer}{_PARTS} = [{name}]\n", f"{outer}{name} = {join}"
    edits = [Edit(first, 0, first, 0, start)]
    edits += [
        src.span_edit(g.stmt, g.stmt, f"{_PARTS}.append({src.segment(g.piece)})") for g in growths
    ]
    edits.append(_after(src, loop, after))
    return edits


# -- batching: one sample per step -----------------------------------------------------------
_BATCH = "32"  # Keras' default batch size: what `fit`/`predict` use without `batch_size`
_SAMPLES = "__tfp_samples"
_PER_SAMPLE_CALLS = ("fit", "train_on_batch")


def _calls_at(src: Source, line: int, end_line: int):
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Call) and line <= node.lineno <= end_line:
            yield node


def _batch_of_one(src: Source, line: int, end_line: int) -> Optional[List[Edit]]:
    """``batch_size=1`` (or a name holding 1) -> 32, on a call that gets the whole
    array (both variants see the same samples)."""
    for call in (n for n in ast.walk(src.tree) if isinstance(n, ast.Call)):
        for keyword in call.keywords:
            if keyword.arg == "batch_size" and line <= keyword.value.lineno <= end_line:
                return [src.span_edit(keyword.value, keyword.value, _BATCH)]
    for call in (n for n in ast.walk(src.tree) if isinstance(n, ast.Call)):
        if (
            isinstance(call.func, ast.Attribute)
            and call.func.attr == "batch"
            and call.args
            and line <= call.args[0].lineno <= end_line
        ):
            raise Unsupported(
                "a pipeline is timed by its first batches, so `.batch(32)` would be timed on "
                "32 times the samples of `.batch(1)`; the loop that consumes it is not measured"
            )
    return None


def _data_args(call: ast.Call) -> Tuple[ast.expr, ast.expr]:
    args = list(call.args[:2])
    named = {k.arg: k.value for k in call.keywords}
    for index, name in enumerate(("x", "y")):
        if len(args) == index and name in named:
            args.append(named[name])
    if len(args) != 2 or any(k.arg is None for k in call.keywords):
        raise Unsupported("the training call does not pass its samples as `x, y`")
    if any(isinstance(a, (ast.List, ast.Tuple, ast.Dict)) for a in args):
        raise Unsupported("the samples are several inputs (a list or dict): not stacked here")
    return args[0], args[1]


def _light_step(src: Source, call: ast.Call) -> List[Edit]:
    """``model.fit(x, y, epochs=1, verbose=0)`` on one sample -> ``model.train_on_batch(x, y)``:
    the same one optimizer step without fit's setup (online learning: samples cannot wait)."""
    if call.func.attr != "fit":  # type: ignore[attr-defined]
        raise Unsupported("the training call is already `train_on_batch`")
    x, y = _data_args(call)
    data = {id(x), id(y)}
    kept = []
    for k in call.keywords:
        if id(k.value) in data or k.arg in ("verbose", "batch_size", "shuffle"):
            continue
        if k.arg == "epochs" and isinstance(k.value, ast.Constant) and k.value.value == 1:
            continue
        if k.arg not in ("sample_weight", "class_weight"):
            raise Unsupported(f"`fit` is called with `{k.arg}=`, which `train_on_batch` lacks")
        kept.append(src.segment(k))
    model = src.segment(call.func.value)  # type: ignore[attr-defined]
    args = ", ".join([src.segment(x), src.segment(y)] + kept)
    return [src.span_edit(call, call, f"{model}.train_on_batch({args})")]


def batch_samples(
    src: Source, line: int, end_line: int, extra: Optional[dict] = None
) -> List[Edit]:
    """One sample per step made a batch. ``model.fit(x, y, ...)`` (or
    ``train_on_batch``) on one sample per iteration -> the samples collected in the loop
    and one call on them stacked after it; ``batch_size=1`` -> 32 (not ``.batch(1)``).
    The variant trains differently by design (fewer, larger steps): timed, not compared.
    ``extra["variant"] == "train_on_batch"`` (online learning): ``fit`` -> ``train_on_batch``."""
    calls = [
        c
        for c in _calls_at(src, line, end_line)
        if isinstance(c.func, ast.Attribute)
        and c.func.attr in _PER_SAMPLE_CALLS
        and c.func.end_lineno is not None
        and line <= c.func.end_lineno <= end_line
        and not any(k.arg == "batch_size" for k in c.keywords)
    ]
    if not calls:
        edits = _batch_of_one(src, line, end_line)
        if edits is None:
            raise Unsupported(
                "no `fit`/`train_on_batch` call, `batch_size=` or `.batch()` at the finding "
                "(a training call reached through a helper is not rewritten)"
            )
        return edits
    call = calls[0]
    stmt = src.parents.get(call)
    if not (isinstance(stmt, ast.Expr) and _own_lines(src, stmt)):
        raise Unsupported("the training call's result is used, or shares its line")
    if (extra or {}).get("variant") == "train_on_batch":
        return _light_step(src, call)
    loop = src.parents.get(stmt)
    while loop is not None and not isinstance(loop, (ast.For, ast.While)):
        if isinstance(loop, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            loop = None
            break
        loop = src.parents.get(loop)
    if loop is None:
        raise Unsupported("the training call is not in a loop of its own function")
    if loop.orelse or any(
        isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom)) for n in ast.walk(loop)
    ):
        raise Unsupported("the loop can leave its function early (return/yield) or has an else")
    x, y = _data_args(call)
    data = {id(x), id(y)}
    rest = [src.segment(k) for k in call.keywords if id(k.value) not in data]
    stack = "__import__('numpy').concatenate"
    model = src.segment(call.func.value)
    once = f"{model}.{call.func.attr}({stack}({_SAMPLES}[0]), {stack}({_SAMPLES}[1])"
    once += "".join(f", {r}" for r in rest) + ")"
    outer = _indent(src, loop.lineno)
    return [
        Edit(loop.lineno, 0, loop.lineno, 0, f"{outer}{_SAMPLES} = ([], [])\n"),
        src.span_edit(
            stmt,
            stmt,
            f"{_SAMPLES}[0].append({src.segment(x)}); {_SAMPLES}[1].append({src.segment(y)})",
        ),
        _after(src, loop, f"{outer}if {_SAMPLES}[0]:\n{outer}    {once}"),
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
    if Rewrite(kind) is Rewrite.BATCH_SAMPLES:
        return batch_samples(src, line, end_line, extra)
    return REWRITES[Rewrite(kind)](src, line, end_line)
