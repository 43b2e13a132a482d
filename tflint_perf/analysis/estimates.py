"""A loop's trip count as rules see it: a handful, data-sized, or unknown.

``trips.py`` estimates it; this module holds what an estimate is.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Optional

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
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."
