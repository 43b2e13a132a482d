"""The speedup and how sure it is, from per-pair ratios (used by the worker and the judge).

Each timed pair runs the original and the variant back to back (the order
alternates), so load that hits a pair hits both of its runs and largely
cancels in the pair's ratio. The speedup is the median of the pair ratios;
its confidence interval is the distribution-free one for a median (order
statistics of the binomial(n, 1/2) distribution, at least 95%), so a few
pairs spoiled by a burst of load do not move it.

The verdict is an equivalence decision with a margin (``MARGIN``: a 5%
gain is the least worth reporting):

- ``faster``: the whole interval lies above the margin;
- ``not-faster``: the whole interval lies below it (no gain worth the name,
  or slower);
- ``ambiguous``: the interval straddles it. The worker then times more
  pairs, up to its budget; what is still ambiguous is reported so.

Two runs on the same machine agree unless the true speedup sits at the
margin or the machine's load changes the code's behaviour, not just its
speed.
"""

from __future__ import annotations

import math
import os
from typing import List, Optional, Sequence, Tuple

MARGIN = 1.05
FASTER, NOT_FASTER, AMBIGUOUS = "faster", "not-faster", "ambiguous"
CONFIDENCE = 0.95


def ratios(baseline: Sequence[float], fixed: Sequence[float]) -> List[float]:
    return [b / f if f > 0 else math.inf for b, f in zip(baseline, fixed)]


def median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    n = len(ordered)
    if not n:
        return math.nan
    mid = n // 2
    return ordered[mid] if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def _rank(n: int) -> int:
    """The largest k with P(Binomial(n, 1/2) < k) <= (1 - CONFIDENCE) / 2 (at least 1)."""
    tail, k, below = (1 - CONFIDENCE) / 2, 0, 0.0
    while k < n:
        step = math.comb(n, k) / 2**n
        if below + step > tail:
            break
        below += step
        k += 1
    return max(k, 1)


def interval(values: Sequence[float]) -> Tuple[float, float]:
    """A distribution-free confidence interval (>= 95%) of the median of ``values``."""
    ordered = sorted(values)
    n = len(ordered)
    if not n:
        return math.nan, math.nan
    k = _rank(n)
    return ordered[k - 1], ordered[n - k]


def decide(pair_ratios: Sequence[float]) -> Tuple[str, float, float, float]:
    """(FASTER / NOT_FASTER / AMBIGUOUS, median, interval low, interval high)."""
    low, high = interval(pair_ratios)
    middle = median(pair_ratios)
    if low > MARGIN:
        return FASTER, middle, low, high
    if high < MARGIN:
        return NOT_FASTER, middle, low, high
    return AMBIGUOUS, middle, low, high


def load_average() -> Optional[float]:
    """The machine's 1-minute load average (None where there is none)."""
    try:
        return round(os.getloadavg()[0], 2)
    except (OSError, AttributeError):
        return None
