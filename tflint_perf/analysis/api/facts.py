"""Shorthands for writing the tables: ``names("a b c", Api(...))``."""

from __future__ import annotations

from typing import Dict, Iterable

from tflint_perf.analysis.api import Api


def names(spelled: str, facts: Api, prefix: str = "") -> Dict[str, Api]:
    """``{prefix + name: facts}`` for each whitespace-separated name."""
    return {prefix + name: facts for name in spelled.split()}


def merge(*tables: Dict[str, Api]) -> Dict[str, Api]:
    out: Dict[str, Api] = {}
    for table in tables:
        out.update(table)
    return out


def words(spelled: str) -> frozenset:
    return frozenset(spelled.split())


def each(spelled: str, prefix: str = "") -> Iterable[str]:
    return (prefix + name for name in spelled.split())
