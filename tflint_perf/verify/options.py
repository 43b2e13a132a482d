"""Options of ``--verify`` and the ``[tool.tflint-perf.verify]`` table.

``config.py`` accepts any ``verify`` table; its contents are validated
here, when ``--verify`` is used::

    [tool.tflint-perf.verify]
    timeout = 120          # seconds per finding's run (as --verify-timeout)
    size = 256             # synthesised input size (as --verify-size)
    repeats = 7            # timed pairs after warm-up
    rtol = 1e-4            # numpy.allclose tolerances for the equality check
    atol = 1e-5
    memory = 8192          # MiB the flagged code may allocate (as --verify-memory; 0: no limit)
    budget = 30            # seconds of extra timed pairs while the speedup is ambiguous
    first_calls = false    # also time each variant's first call, in fresh workers (slow)

    [tool.tflint-perf.verify.inputs]
    # target function (module:function) = input factory (module:function)
    "examples.filters:blur" = "tests.verify_inputs:blur_inputs"
"""

from __future__ import annotations

import math
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Optional

from tflint_perf.run.config import ConfigError

DEFAULT_TIMEOUT = 120.0
DEFAULT_SIZE = 256
DEFAULT_REPEATS = 7
DEFAULT_RTOL = 1e-4
DEFAULT_ATOL = 1e-5
DEFAULT_BUDGET = 30.0

_TARGET = re.compile(r"^[\w./\\-]+:[A-Za-z_]\w*$")
_FACTORY = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
_KEYS = {
    "timeout",
    "size",
    "repeats",
    "rtol",
    "atol",
    "inputs",
    "memory",
    "budget",
    "first_calls",
}


def physical_memory() -> int:
    """Bytes of RAM (0 when unknown): the default memory limit of a worker."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 0


@dataclass
class VerifyOptions:
    timeout: float = DEFAULT_TIMEOUT
    size: int = DEFAULT_SIZE
    repeats: int = DEFAULT_REPEATS
    rtol: float = DEFAULT_RTOL
    atol: float = DEFAULT_ATOL
    budget: float = DEFAULT_BUDGET
    first_calls: bool = False
    # normalised target ("pkg/mod:function", no .py) -> factory "module:function"
    inputs: Dict[str, str] = field(default_factory=dict)
    root: Path = field(default_factory=Path.cwd)
    python: str = sys.executable
    # The module the workers import as TensorFlow; None runs without it
    # (used by the tests to exercise the machinery with plain Python).
    tf_module: Optional[str] = "tensorflow"
    progress: bool = False
    # Bytes the worker's heap may grow to (RLIMIT_DATA): code that allocates
    # without end gets a MemoryError instead of the machine's OOM killer.
    memory_limit: int = field(default_factory=physical_memory)

    def __setattr__(self, name: str, value) -> None:
        # However it is set (--verify-timeout, the table, code), a timeout is
        # a finite number of seconds: inf overflowed and nan never fired.
        if name == "timeout":
            value = finite_seconds(value, "--verify-timeout / verify.timeout")
        super().__setattr__(name, value)

    def factory_for(self, path: str, function: str) -> Optional[str]:
        try:
            rel = Path(path).resolve().relative_to(self.root.resolve())
        except ValueError:
            rel = Path(path)
        key = normalise_target(f"{rel.as_posix()}:{function}")
        return self.inputs.get(key)


def finite_seconds(value, where: str) -> float:
    """``value`` as positive finite seconds, or a one-line ConfigError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{where} must be a number of seconds, got {value!r}")
    if not math.isfinite(value) or value <= 0:
        raise ConfigError(f"{where} must be a finite number of seconds above 0, got {value!r}")
    return float(value)


def normalise_target(target: str) -> str:
    module, _, function = target.rpartition(":")
    module = module.replace("\\", "/")
    if module.endswith(".py"):
        module = module[:-3]
    elif "/" not in module:
        module = module.replace(".", "/")
    return f"{module.strip('/')}:{function}"


def _number(table: dict, key: str, kind, where: str, positive: bool = True):
    value = table[key]
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or (kind is int and not isinstance(value, int))
    ):
        raise ConfigError(
            f"{where}: verify.{key} must be {'an integer' if kind is int else 'a number'}, got {value!r}"
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{where}: verify.{key} must be a finite number, got {value!r}")
    if positive and value <= 0:
        raise ConfigError(f"{where}: verify.{key} must be positive, got {value!r}")
    return kind(value)


def options_from_table(table: dict, root: Path, where: str = "configuration") -> VerifyOptions:
    """Validate ``[tool.tflint-perf.verify]``; a bad entry is a one-line ConfigError."""
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: verify must be a table")
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key '{unknown[0]}' in [tool.tflint-perf.verify]")
    options = VerifyOptions(root=root)
    if "timeout" in table:
        options.timeout = _number(table, "timeout", float, where)
    if "size" in table:
        options.size = _number(table, "size", int, where)
    if "repeats" in table:
        options.repeats = _number(table, "repeats", int, where)
    for key in ("rtol", "atol"):
        if key in table:
            setattr(options, key, _number(table, key, float, where, positive=False))
            if getattr(options, key) < 0:
                raise ConfigError(f"{where}: verify.{key} must not be negative")
    if "budget" in table:
        options.budget = _number(table, "budget", float, where, positive=False)
        if options.budget < 0:
            raise ConfigError(f"{where}: verify.budget must not be negative")
    if "first_calls" in table:
        if not isinstance(table["first_calls"], bool):
            raise ConfigError(f"{where}: verify.first_calls must be true or false")
        options.first_calls = table["first_calls"]
    if "memory" in table:
        memory = _number(table, "memory", int, where, positive=False)
        if memory < 0:
            raise ConfigError(f"{where}: verify.memory must not be negative")
        options.memory_limit = memory * 2**20
    inputs = table.get("inputs", {})
    if not isinstance(inputs, dict):
        raise ConfigError(
            f'{where}: verify.inputs must be a table of "module:function" = "module:factory"'
        )
    for target, factory in inputs.items():
        if not _TARGET.match(target):
            raise ConfigError(f"{where}: verify.inputs: '{target}' is not module:function")
        if not isinstance(factory, str) or not _FACTORY.match(factory):
            raise ConfigError(
                f'{where}: verify.inputs."{target}": expected "module:function", got {factory!r}'
            )
        options.inputs[normalise_target(target)] = factory
    return options
