"""Notebook functions see the globals of the cells that call them.

A function defined in a notebook cell reads a global where it is called,
and notebooks rebind the same names cell after cell (``model``, ``X``,
``history``). When the module's top level is the only code that calls the
function (never handed on, never called from another function), the
values it can see are those reaching its calls, not every binding of the
name in the file. Scripts keep every binding: another module may import
the function and call it once the whole module has run.
"""

from __future__ import annotations

import re
from typing import List, Optional

from tflint_perf.engine import cst
from tflint_perf.engine.cells import PERCENT_MARKER

_CELL_LINE = re.compile(PERCENT_MARKER.pattern, re.M)


def in_cells(ctx) -> bool:
    """A notebook, or a script of ``# %%`` cells (a notebook's code as a script)."""
    return ctx.cells is not None or _CELL_LINE.search(ctx.source) is not None


class _Known(dict):
    """``module_calls``'s answers, one per file (``ctx.shared``)."""

    def __init__(self, ctx) -> None:
        super().__init__()


def module_calls(sem, func: cst.FunctionDef) -> Optional[List[cst.Call]]:
    """The calls of ``func`` when they all are at the module's top level (None
    otherwise, or when it is never called)."""
    ctx = sem.ctx
    known = ctx.shared(_Known)
    if func in known:
        return known[func]
    known[func] = None  # while this is worked out (a call in a call)
    found = [b for b in sem.definitions(func.name.value) if b.statement is func]
    calls: Optional[List[cst.Call]] = [] if len(found) == 1 else None
    for read in sem.references(found[0]) if calls is not None else ():
        call = ctx.parent(read)
        if not (isinstance(call, cst.Call) and call.func is read):
            calls = None  # handed on: whoever gets it may call it any time
        elif calls is not None and sem.function_of(call) is None:
            calls.append(call)
        else:
            calls = None
        if calls is None:
            break
    known[func] = calls or None
    return known[func]
