"""The rules: one module per rule, each defining one ``Rule`` subclass.

A module named ``tfpNNN_<name>.py`` is found automatically; nothing to
register by hand.
"""

from __future__ import annotations

import importlib
import pkgutil

_cache: list = []


def all_rules() -> list:
    """Every rule class, sorted by code."""
    if not _cache:
        from tflint_perf.engine.rule import Rule

        found = []
        for info in pkgutil.iter_modules(__path__):
            if not info.name.startswith("tfp"):
                continue
            module = importlib.import_module(f"{__name__}.{info.name}")
            for value in vars(module).values():
                # type(value), not isinstance(): the latter would load the
                # lazily imported LibCST module that every rule module holds.
                if (
                    issubclass(type(value), type)
                    and issubclass(value, Rule)
                    and value is not Rule
                    and value.code
                ):
                    if value.__module__ == module.__name__:
                        found.append(value)
        _cache.extend(sorted(found, key=lambda r: r.code))
    return list(_cache)


def rule_by_code(code: str):
    for rule in all_rules():
        if rule.code == code.upper():
            return rule
    return None
