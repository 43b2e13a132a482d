"""A loop's trip count as rules see it: a handful, data-sized, or unknown.

``trips.py`` estimates it; this module holds what an estimate is.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Optional

from tflint_perf.engine.headline import clip_code

TINY = 16  # at most this many iterations: a handful


class Size(enum.Enum):
    TINY = "tiny"
    UNKNOWN = "unknown"
    DATA = "data-sized"


@dataclass(frozen=True)
class Estimate:
    size: Size
    count: Optional[int] = None  # the number of iterations, when the source spells it
    why: str = ""  # what the estimate rests on, for messages and ``tflint-perf why``
    # A person paces the loop (it waits on ``input()``): tiny however many iterations it has,
    # and so is all that runs inside it.
    paced: bool = False

    @property
    def tiny(self) -> bool:
        return self.size is Size.TINY


UNKNOWN = Estimate(Size.UNKNOWN)


def article(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def counted(count: int, why: str) -> Estimate:
    size = Size.TINY if count <= TINY else Size.DATA
    return Estimate(size, count, why)


def times(a: Estimate, b: Estimate) -> Estimate:
    if Size.DATA in (a.size, b.size):
        return a if a.size is Size.DATA else b
    if a.count is None or b.count is None:
        return UNKNOWN
    return counted(a.count * b.count, f"{a.why} x {b.why}")


def clip(text: str, width: int = 40) -> str:
    """Code quoted in a reason, short and still Python (``engine/headline.clip_code``)."""
    return clip_code(text, width)


class Spelled:
    """An expression's code as an estimate's reason shows it (``clip``), made
    when a reason is written: most expressions asked about end in no reason,
    and generating code costs more than the rest of the question."""

    __slots__ = ("_ctx", "_node", "_text")

    def __init__(self, ctx, node) -> None:
        self._ctx = ctx
        self._node = node
        self._text: Optional[str] = None

    def __str__(self) -> str:
        if self._text is None:
            self._text = clip(self._ctx.code(self._node))
        return self._text

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)
