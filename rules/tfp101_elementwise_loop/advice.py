"""What a TFP101 finding says: a headline (at most 100 characters), a detail, and the
whole-array code ``--verify`` times.

Built by pure functions of the loop's facts and the vectoriser: every code
snippet in backticks parses, and the advice's code (after the headline's
``: ``, and on the detail's ``Instead:`` lines) reads no name bound only by
the loop. Where no whole-array form with the loop's meaning can be derived,
the advice names the NumPy/TensorFlow function to use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional

from tflint_perf.analysis.api import arraymath as am
from tflint_perf.analysis.array_functions import FunctionKind
from tflint_perf.analysis.body_flow import skip_test
from tflint_perf.analysis.elementwise import LoopFacts, SinkKind, first_match, value_nodes
from tflint_perf.analysis.vectorise import Plan, Vectoriser, atom
from tflint_perf.engine import cst

from .elements import Op, OpKind, Verdict
from .segments import Segments
from .windows import Window, WindowKind

LIMIT = 100  # characters in a headline
WHY = "Each iteration runs small ops from Python; one op on whole arrays does them all at once."


@dataclass
class Message:
    headline: str
    detail: str
    whole_array: Optional[dict] = None  # Finding.extra["whole_array"]: what --verify times


@dataclass
class _Parts:
    found: List[str]  # ways to say what was found, longest first
    advice: List[str]  # ways to say the replacement, most concrete first
    notes: List[str] = field(default_factory=list)


def headline(found: List[str], advice: List[str]) -> str:
    """The first ``found: advice`` that fits the limit (the most concrete advice first,
    then the longest way to say what was found)."""
    for a in advice:
        for f in found:
            text = f"{f}: {a}"
            if len(text) <= LIMIT:
                return text
    return "Loop does array work one element at a time: use whole-array ops (see below)"


def code(text: str) -> str:
    return f"`{text}`"


def _unit(facts: LoopFacts) -> str:
    walk = facts.walk
    if walk.var in walk.whole or walk.var in walk.elements:
        return "row"
    return "element"


def _what(facts: LoopFacts, roots) -> List[str]:
    """Ways to name what one iteration works on, most specific first: ``each row of
    `table```, ``each `logits[i]```, ``each element``."""
    walk = facts.walk
    out = []
    if walk.var in walk.whole or walk.var in walk.elements:
        tensor = _tensor(facts)
        if tensor:
            out.append(f"each row of `{tensor}`")
    else:
        seed = _seed(facts, roots)
        if seed is not None:
            spelled = " ".join(facts.ctx.code(seed).split())
            if len(spelled) <= 30:
                out.append(f"each `{spelled}`")
        if walk.tensor:
            out.append(f"each element of `{walk.tensor}`")
    out.append(f"each {_unit(facts)}")
    return out


def _seed(facts: LoopFacts, roots) -> Optional[cst.Subscript]:
    """The first element read (``a[0, i]``) in ``roots`` or the names they read."""
    todo = [r for r in roots if r is not None]
    seen: set = set()
    while todo:
        root = todo.pop(0)
        for node in value_nodes(root):
            if isinstance(node, cst.Subscript) and any(
                facts.reads(e.slice) & facts.index for e in node.slice
            ):
                return node
            if isinstance(node, cst.Name) and node.value in facts.derived:
                if node.value not in seen and len(seen) < 8:
                    seen.add(node.value)
                    todo.append(facts.derived[node.value])
    return None


def _tensor(facts: LoopFacts) -> Optional[str]:
    """The code of the array the loop walks, when the header names one."""
    walk = facts.walk
    if walk.tensor:
        return walk.tensor
    if walk.whole:
        return next(iter(walk.whole.values()))
    return None


def _whole_of(tensor: Optional[str]) -> str:
    return f"the whole of `{tensor}`" if tensor else "whole arrays"


def _evidence(facts: LoopFacts) -> str:
    walk = facts.walk
    if walk.tensor:
        return f"One iteration per {_unit(facts)} of `{walk.tensor}`.\n{WHY}"
    return f"One iteration per element.\n{WHY}"


def _whole_array(ctx, plan: Optional[Plan]) -> Optional[dict]:
    """The statements and the edits that put them in place of the loop."""
    if plan is None:
        return None
    start = ctx.position(plan.first).start
    end = ctx.position(plan.last).end
    indent = " " * start.column
    text = ("\n" + indent).join(plan.statements)
    if end.column == 0:  # a block ends at the start of the next line
        text += "\n"
    edit = {
        "line": start.line,
        "column": start.column,
        "end_line": end.line,
        "end_column": end.column,
        "content": text,
    }
    return {"code": "\n".join(plan.statements), "edits": [edit]}


def _detail(facts: LoopFacts, plan: Optional[Plan], notes: List[str], lead: str) -> str:
    lines = [lead]
    if plan is not None:
        if len(plan.statements) == 1:
            lines.append(f"Instead: {code(plan.statements[0])}")
        else:
            lines.append("Instead:")
            lines.extend(f"  {code(s)}" for s in plan.statements)
        lines.extend(f"Assumes {a}." for a in dict.fromkeys(plan.assumptions))
    lines.extend(notes)
    return "\n".join(lines)


# -- per-element math ------------------------------------------------------------
def for_verdict(facts: LoopFacts, found: Verdict) -> Message:
    vec = Vectoriser(facts)
    plan = vec.plan()
    parts = _parts(facts, vec, found, plan)
    if facts.random:
        parts.notes.append(
            "The loop draws random numbers per iteration: draw them for all iterations in "
            "one call (a `size` argument)."
        )
    text = headline(parts.found, parts.advice)
    detail = _detail(facts, plan, parts.notes, _evidence(facts))
    return Message(text, detail, _whole_array(facts.ctx, plan))


def _parts(facts: LoopFacts, vec: Vectoriser, found: Verdict, plan: Optional[Plan]) -> _Parts:
    op, sink = found.op, found.sink
    ctx = facts.ctx
    short = plan.statements[0] if plan is not None and len(plan.statements) == 1 else None
    use = [f"use {code(short)}"] if short else []
    kind = op.kind
    if kind is OpKind.SCATTER:
        return _Parts(
            _found(facts, f"writes `{ctx.code(sink.target)}`", "writes elements", "one at a time"),
            use + ["assign all at once with fancy indexing"],
        )
    if kind is OpKind.SCATTER_ADD:
        return _Parts(
            _found(
                facts, f"adds into `{ctx.code(sink.target)}`", "adds into elements", "per element"
            ),
            use + ["use `np.add.at` (or `np.bincount` with weights)"],
            [
                "Repeated indices add up with `np.add.at`; an augmented assignment with fancy "
                "indexing adds once per distinct index."
            ],
        )
    if kind is OpKind.COUNT:
        cond = vec.expression(sink.test) if sink.test is not None and not sink.nested else None
        if cond:
            cond = f"~{atom(cond)}" if sink.negated else cond
            use.append(f"use `{vec.lib('count_nonzero')}({cond})`")
        return _Parts(
            _found(facts, "counts matching elements", "counts matches", "one at a time"),
            use + ["count once with `np.count_nonzero` on whole arrays"],
        )
    if kind is OpKind.MASK:
        return _mask(facts, vec, found, use)
    if kind is OpKind.HELPER:
        return _helper(facts, vec, found)
    if kind is OpKind.SETOP:
        return _setop(facts, op)
    if kind is OpKind.LOOKUP:
        tensor = _tensor(facts)
        return _Parts(
            _found(facts, f"maps elements through the dict `{op.code}`", "maps elements", ""),
            [
                f"use `np.unique({tensor}, return_inverse=True)`",
                "use `np.unique` with `return_inverse=True`",
            ],
            ["Or index a lookup array with the whole array."],
        )
    if kind is OpKind.GATHER:
        gathered = vec.expression(op.node)
        advice = [f"use {code(gathered)}"] if gathered else []
        return _Parts(
            _found(facts, f"gathers `{ctx.code(op.node)}`", "gathers elements", "one at a time"),
            advice + use + ["gather all at once with fancy indexing (`tf.gather` for tensors)"],
        )
    return _math(facts, vec, found, use)


def _found(facts: LoopFacts, does: str, short: str, how: str) -> List[str]:
    """Ways to say what was found, longest first: ``Loop over `i` <does> <how>`` then
    shorter forms."""
    var = facts.walk.var
    tail = f" {how}" if how else ""
    return [
        f"Loop over `{var}` {does}{tail}",
        f"Loop over `{var}` {short}{tail}",
        f"Loop over `{var}` {short}",
    ]


def _op_text(facts: LoopFacts, op: Op) -> List[str]:
    """Ways to name the op, most specific first (each parses as Python)."""
    ctx = facts.ctx
    if op.kind in (OpKind.ARITH, OpKind.COMPARE):
        spelled = " ".join(ctx.code(op.node).split())
        general = "arithmetic" if op.kind is OpKind.ARITH else "a comparison"
        return [f"`{spelled}`", general] if len(spelled) <= 30 else [general]
    if op.method and isinstance(op.node, cst.Call):
        spelled = " ".join(ctx.code(op.node).split())
        return [f"`{spelled}`", f"`{op.code}`"] if len(spelled) <= 30 else [f"`{op.code}`"]
    return [f"`{op.code}`"]


def _math(facts: LoopFacts, vec: Vectoriser, found: Verdict, use: List[str]) -> _Parts:
    op, sink = found.op, found.sink
    var = facts.walk.var
    unit = _unit(facts)
    names = _op_text(facts, op)
    whole = vec.expression(sink.value) if sink.value is not None else None
    advice = []
    value_first = sink.kind in (SinkKind.STORE, SinkKind.APPEND, SinkKind.ELEMENT)
    if whole and value_first:
        advice.append(f"use {code(whole)}")
    advice += use
    cond = first_match(facts.ctx, op.node)
    notes = []
    if cond is not None:
        test = vec.expression(cond)
        if test:
            advice.append(f"use `np.argmax({test}, axis=1)`")
        advice.append("find every first match at once with `np.argmax` along `axis=1`")
        notes.append(
            "`np.argmax` gives 0 for a row without a match: check with `np.any(..., axis=1)`."
        )
    advice.extend(_named_advice(facts, op, _tensor(facts)))
    whats = _what(facts, [op.node, sink.value, sink.test])
    found_text = [f"Loop over `{var}` applies {n} to {w}" for n in names for w in whats]
    found_text += [f"Loop over `{var}` applies {n} per {unit}" for n in names]
    found_text.append(f"Loop over `{var}` does math per {unit}")
    found_text.append(f"Per-{unit} loop over `{var}`")
    return _Parts(found_text, advice, notes)


def _named_advice(facts: LoopFacts, op: Op, tensor: Optional[str]) -> List[str]:
    """Advice that names the function instead of writing the whole-array code."""
    array_op = op.array_op
    spelled = op.code
    whole = _whole_of(tensor)
    if facts.shifted and op.kind in (OpKind.ARITH, OpKind.CALL, OpKind.COMPARE, OpKind.METHOD):
        return ["compute it on shifted slices of the whole array (or `np.diff`)"]
    if op.kind is OpKind.MATH:
        name = op.code.rsplit(".", 1)[-1]
        return [f"use `np.{name}` on {whole}", f"use `np.{name}` on whole arrays"]
    if op.kind is OpKind.BUILTIN:
        return [f"use `{am.BUILTIN_MATH[op.code]}` on {whole}"]
    if array_op is am.ArrayOp.REDUCTION:
        return [
            f"reduce all rows at once along an axis (`axis=1`) of {whole}",
            "reduce along an axis (`axis=1`)",
        ]
    if array_op is am.ArrayOp.ELEMENTWISE:
        return [
            f"apply `{spelled}` to {whole} (it is element-wise)",
            f"apply `{spelled}` to whole arrays",
        ]
    if op.kind is OpKind.PLUMBING:
        return [
            f"call `{spelled}` once on {whole} (rows stay the first axis)",
            f"call `{spelled}` once on the whole array",
        ]
    if op.kind is OpKind.ARITH:
        return [f"broadcast it over {whole}", "broadcast it over whole arrays"]
    if op.kind is OpKind.COMPARE:
        return [
            f"compare {whole} (`np.where` or a boolean mask)",
            "compare whole arrays (`np.where` or a boolean mask)",
        ]
    return [
        f"call `{spelled}` once on {whole} or use `tf.vectorized_map`",
        "call it once on the whole array or use `tf.vectorized_map`",
    ]


def _mask(facts: LoopFacts, vec: Vectoriser, found: Verdict, use: List[str]) -> _Parts:
    sink = found.sink
    verb = {SinkKind.APPEND: "collects", SinkKind.REDUCE: "accumulates"}.get(sink.kind, "stores")
    if facts.random and not facts.known_seed:
        return _Parts(
            _found(facts, "draws random numbers and stores them", "draws", "one at a time"),
            ["draw them all in one call and select with a boolean mask"],
        )
    select = found.op.node if isinstance(found.op.node, cst.IfExp) else None
    test = sink.test if select is None else select.test
    verb = verb if select is None else "selects"
    cond = vec.expression(test)
    if cond and select is None and skip_test(facts.ctx.parent(test)) is not None:
        cond = f"~{atom(cond)}"  # ``if test: continue``: the rows kept are where it is false
    advice = list(use)
    if cond:
        advice.append(f"use a boolean mask (`{cond}`) or `np.where`")
    advice.append("use a boolean mask or `np.where` on whole arrays")
    whats = _what(facts, [test])
    found_text = [f"Loop over `{facts.walk.var}` tests {w} and {verb} a value" for w in whats]
    return _Parts(found_text + _found(facts, f"tests and {verb}", f"tests and {verb}", ""), advice)


def _helper(facts: LoopFacts, vec: Vectoriser, found: Verdict) -> _Parts:
    op = found.op
    tensor = _tensor(facts)
    name = op.code
    unit = _unit(facts)
    found_text = [
        f"Loop over `{facts.walk.var}` calls `{name}` on {w}" for w in _what(facts, [op.node])
    ]
    found_text += _found(facts, f"calls `{name}`", f"calls `{name}`", f"per {unit}")
    if op.helper is FunctionKind.ELEMENTWISE:
        whole = vec.expression(op.node)
        advice = [f"call it once: `{whole}`"] if whole else []
        advice.append(f"call `{name}` once on {_whole_of(tensor)} (it is element-wise)")
        advice.append(f"call `{name}` once on whole arrays")
        return _Parts(found_text, advice)
    return _Parts(
        found_text,
        (
            [f"rewrite `{name}` to take all rows of `{tensor}` at once (broadcasting)"]
            if tensor
            else []
        )
        + [f"rewrite `{name}` to take all rows at once"],
        [
            f"`{name}` computes with arrays and numbers only: written over a batch axis "
            "(broadcasting, `axis=1` reductions), one call does every row."
        ],
    )


def _setop(facts: LoopFacts, op: Op) -> _Parts:
    arrays = sorted(set(facts.walk.whole.values()))
    rows = " and ".join(f"`{a}`" for a in arrays) or "arrays"
    advice = []
    if len(arrays) == 2:
        a, b = arrays
        advice.append(f"use `({a}[:, :, None] == {b}[:, None, :]).any(axis=-1)`")
    advice.append("compare all rows at once by broadcasting equality")
    return _Parts(
        _found(
            facts, f"matches rows of {rows} as sets with `{op.code}`", "matches rows as sets", ""
        ),
        advice,
        ["Its sum along `axis=1` counts the matches per row (rows of distinct values)."],
    )


# -- windows and segments ----------------------------------------------------------
def for_window(facts: LoopFacts, found: Window) -> Message:
    var = facts.walk.var
    base, size = found.base, found.size
    view = "np.lib.stride_tricks.sliding_window_view"
    if found.kind is WindowKind.COPIED:
        whole = f"{view}({base}, {size}, axis=0)"
        text = headline(
            [
                f"Loop over `{var}` copies the window `{facts.ctx.code(found.window)}` per position",
                f"Loop over `{var}` copies windows of `{base}` one at a time",
            ],
            [f"use `{whole}`", f"use `{view}`"],
        )
        return Message(text, _detail(facts, None, [f"Instead: `{whole}`"], _evidence(facts)))
    name = found.reduction
    notes = [f"Window sums are differences of `np.cumsum({atom(base)})`."]
    if size:
        notes.append(f"Or: `{view}({base}, {size}).{name}(axis=-1)`")
    text = headline(
        [
            f"Loop over `{var}` takes the {name} of a moving window of `{base}` per position",
            f"Loop over `{var}` takes a moving {name} one position at a time",
        ],
        [f"use a cumulative sum (`np.cumsum({base})`)", "use a cumulative sum (`np.cumsum`)"],
    )
    return Message(text, _detail(facts, None, notes, _evidence(facts)))


def for_segments(ctx, node: cst.For, found: Segments) -> Message:
    text = headline(
        [
            f"Loop over `{found.var}` masks and reduces once per class value of `{found.values}`",
            f"Loop over `{found.var}` reduces once per class value",
        ],
        [
            "use one segment reduction (`tf.math.unsorted_segment_mean`)",
            "use one segment reduction",
        ],
    )
    detail = "\n".join(
        [
            f"The loop makes one pass over the data per distinct value of `{found.values}`.",
            "With the ids from `tf.unique` (or `np.unique(..., return_inverse=True)`), "
            "`tf.math.unsorted_segment_sum` or `tf.math.unsorted_segment_mean`",
            "(or `np.bincount` with `weights`) compute every class in one pass.",
        ]
    )
    return Message(text, detail)
