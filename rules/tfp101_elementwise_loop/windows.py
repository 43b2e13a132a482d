"""The detector for sliding windows: copied one by one, or reduced as a moving sum/mean.

``out[i] = x[i:i + k]`` copies every window (``sliding_window_view`` builds
them all); ``avg[t] = x[max(0, t - k):t + 1].mean()`` reduces a window that
moves with the index (a cumulative sum gives every window sum). Windows
multiplied with a kernel are a convolution: TFP102's.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Optional

from tflint_perf.analysis.elementwise import LoopFacts, SinkKind, value_nodes
from tflint_perf.engine import cst

from .elements import collects_element, op_of

_WINDOW_REDUCTIONS = ("sum", "mean")


class WindowKind(enum.Enum):
    COPIED = "copied"
    RUNNING = "running"


@dataclass(frozen=True)
class Window:
    kind: WindowKind
    window: cst.Subscript
    base: str  # code of the windowed array
    size: Optional[str]  # code of the window's width, when the slice spells it
    reduction: str = ""  # "sum" or "mean" for a running window


def window_finding(facts: LoopFacts) -> Optional[Window]:
    """A window copied per position, or reduced per position; None otherwise."""
    if not facts.windows or not facts.walk.index or facts.gathers:
        return None
    ctx = facts.ctx
    running = _running(facts)
    if running is not None:
        window, name = running
        size = _window_size(ctx, window, facts.index)
        return Window(WindowKind.RUNNING, window, ctx.code(window.value), size, name)
    copied = False
    for sink in facts.sinks:
        if not collects_element(facts, sink):
            continue
        if sink.kind is not SinkKind.STORE or op_of(facts, sink.value, 0) is not None:
            return None  # reduced or multiplied (TFP102's), or copied into a list
        copied = copied or any(n in facts.windows for n in value_nodes(sink.value))
    window = facts.windows[0]
    size = _window_size(ctx, window, facts.index)
    if not copied or size is None:
        return None
    return Window(WindowKind.COPIED, window, ctx.code(window.value), size)


def _running(facts: LoopFacts):
    """(window, "sum"/"mean") for ``avg[t] = x[max(0, t - k):t + 1].mean()``: a sum or
    mean of a window that moves with the index, stored or appended per position."""
    found = None
    for sink in facts.sinks:
        if not collects_element(facts, sink):
            continue
        if sink.kind not in (SinkKind.STORE, SinkKind.APPEND) or sink.test is not None:
            return None
        reduced = _window_reduction(facts, sink.value)
        if reduced is None:
            return None
        found = found or reduced
    return found


def _window_reduction(facts: LoopFacts, value):
    """(window, "sum"/"mean") when ``value`` reduces one of the loop's windows and reads
    no other element (``float(x[s:i + 1].sum()) / (i - s + 1)``); None otherwise."""
    if value is None:
        return None
    found = None
    for node in value_nodes(value):
        if isinstance(node, cst.Subscript) and node not in facts.windows:
            if facts.uses_element(node):
                return None  # weights or another series: TFP102's (a convolution)
        if not isinstance(node, cst.Call):
            continue
        func = node.func
        qual = facts.ctx.call_name(node) or ""
        if qual in ("numpy.sum", "numpy.mean") and len(node.args) == 1:
            operand, name = node.args[0].value, qual.rsplit(".", 1)[-1]
        elif isinstance(func, cst.Attribute) and func.attr.value in _WINDOW_REDUCTIONS:
            operand, name = func.value, func.attr.value  # x[s:t].mean()
            if node.args:
                return None
        else:
            continue
        if operand in facts.windows:
            found = found or (operand, name)
    return found


def _window_size(ctx, window: cst.Subscript, index: set) -> Optional[str]:
    """``k`` of ``x[i:i + k]`` / ``x[i - k:i]``."""
    for element in window.slice:
        sl = element.slice
        if not isinstance(sl, cst.Slice) or sl.lower is None or sl.upper is None:
            continue
        lower, upper = sl.lower, sl.upper
        if isinstance(lower, cst.Name) and lower.value in index:
            if isinstance(upper, cst.BinaryOperation) and isinstance(upper.operator, cst.Add):
                if isinstance(upper.left, cst.Name) and upper.left.value == lower.value:
                    return ctx.code(upper.right)
        if isinstance(upper, cst.Name) and upper.value in index:
            if isinstance(lower, cst.BinaryOperation) and isinstance(lower.operator, cst.Subtract):
                if isinstance(lower.left, cst.Name) and lower.left.value == upper.value:
                    return ctx.code(lower.right)
    return None
