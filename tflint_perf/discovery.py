"""Which files to lint: walk directories, honour excludes."""

from __future__ import annotations

import os
from typing import Iterator, List, Sequence

from tflint_perf.config import Settings

SUFFIXES = (".py", ".ipynb")
# Never walked into: tool state, environments, build output.
DEFAULT_SKIPPED_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", ".bzr", ".venv", "venv", ".env", "env", ".tox",
        ".nox", "__pycache__", "build", "dist", "node_modules", "site-packages",
        ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tflint-perf-cache",
        ".eggs", ".ipynb_checkpoints", "_build", "buck-out", ".direnv",
    }
)


class MissingPathError(Exception):
    pass


def _is_virtualenv(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "pyvenv.cfg"))


def iter_files(paths: Sequence[str], settings: Settings, force_exclude: bool = False) -> Iterator[str]:
    for path in paths:
        if os.path.isdir(path):
            yield from _walk(path, settings)
        elif os.path.isfile(path):
            if not (force_exclude and settings.is_excluded(path)):
                yield path
        else:
            raise MissingPathError(f"{path}: No such file or directory")


def _walk(top: str, settings: Settings) -> Iterator[str]:
    for directory, dirs, files in os.walk(top):
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in DEFAULT_SKIPPED_DIRS
            and not d.endswith(".egg-info")
            and not _is_virtualenv(os.path.join(directory, d))
            and not settings.is_excluded(os.path.join(directory, d))
        )
        for name in sorted(files):
            if name.endswith(SUFFIXES):
                full = os.path.join(directory, name)
                if full.startswith("./"):
                    full = full[2:]
                if not settings.is_excluded(full):
                    yield full


def collect(paths: Sequence[str], settings: Settings, force_exclude: bool = False) -> List[str]:
    """All files to lint, each once, in a stable order."""
    seen = set()
    out = []
    for path in iter_files(paths, settings, force_exclude):
        key = os.path.abspath(path)
        if key not in seen:
            seen.add(key)
            out.append(path)
    return out
