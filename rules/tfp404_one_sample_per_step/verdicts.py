"""What a TFP404 detector decides at one node: a finding, or why it is silent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from tflint_perf.engine import cst
from tflint_perf.engine.reasons import Reason


@dataclass(frozen=True)
class Report:
    node: cst.CSTNode
    headline: str  # at most 100 characters
    detail: str
    extra: Optional[dict] = None  # the finding's output keys (what --verify measures)


@dataclass(frozen=True)
class Silent:
    node: cst.CSTNode
    reason: Reason
    detail: str = ""


Verdict = Union[Report, Silent]


def clip(text: str, width: int = 30) -> str:
    """Code shown in a message: one line, at most ``width`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."
