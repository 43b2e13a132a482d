"""Which files to lint: walk directories, honour excludes."""

from __future__ import annotations

import os
from typing import Iterator, List, Optional, Sequence, Tuple

from tflint_perf.run.config import Settings
from tflint_perf.run.gitignore import GitIgnore

SUFFIXES = (".py", ".ipynb")
# Never walked into: tool state, environments, build output.
DEFAULT_SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".bzr",
        ".venv",
        "venv",
        ".env",
        "env",
        ".tox",
        ".nox",
        "__pycache__",
        "build",
        "dist",
        "node_modules",
        "site-packages",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tflint-perf-cache",
        ".eggs",
        ".ipynb_checkpoints",
        "_build",
        "buck-out",
        ".direnv",
    }
)


# Named on the command line, a file is linted when it has one of these
# suffixes or a python shebang (pre-commit passes such scripts as Python).
NAMED_SUFFIXES = (".py", ".pyi", ".pyw", ".ipynb")


class PathError(Exception):
    """A path on the command line that cannot be linted (one line, exit 2)."""


def _is_virtualenv(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "pyvenv.cfg"))


def _has_python_shebang(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            first = handle.readline(256)
    except OSError:
        return False
    return first.startswith(b"#!") and b"python" in first


def _named_file(path: str) -> None:
    """Refuse, in one line, a named path that is not a Python file to read."""
    if os.path.isdir(path) or os.path.isfile(path):
        if os.path.isfile(path) and not (
            path.lower().endswith(NAMED_SUFFIXES) or _has_python_shebang(path)
        ):
            raise PathError(f"{path}: not a Python file (.py, .pyi, .pyw, .ipynb or a shebang)")
        return
    if os.path.lexists(path) and not os.path.exists(path):
        raise PathError(f"{path}: broken symbolic link")
    if os.path.exists(path):
        raise PathError(f"{path}: not a regular file or directory")
    raise PathError(f"{path}: No such file or directory")


def iter_files(
    paths: Sequence[str],
    settings: Settings,
    force_exclude: bool = False,
    respect_gitignore: bool = True,
) -> Iterator[Tuple[str, str]]:
    """(path to report, identity) of every file to lint; the identity is its
    real path, so one file reached twice (through a link) is linted once.

    A path named on the command line is linted whatever ``exclude`` and
    ``.gitignore`` say, unless ``force_exclude`` (pre-commit names every
    staged file); what a walk meets is skipped when they match it."""
    ignore = GitIgnore() if respect_gitignore else None
    for path in paths:
        _named_file(path)
        if os.path.isdir(path):
            yield from _walk(path, settings, ignore)
        elif not (force_exclude and _excluded_file(path, settings, ignore)):
            yield path, os.path.realpath(path)


def _excluded_file(path: str, settings: Settings, ignore: Optional[GitIgnore]) -> bool:
    return settings.is_excluded(path) or (ignore is not None and ignore.ignored(path))


def _walk(top: str, settings: Settings, ignore: Optional[GitIgnore]) -> Iterator[Tuple[str, str]]:
    """Files under ``top``, each folder's files (sorted) before its subfolders.

    Symbolic links: a link to a folder is not walked, and a link to a file
    is followed only when the file lies inside ``top`` (so --fix never
    writes outside the tree it was given); FIFOs, sockets and devices are
    skipped.
    """
    real_top = os.path.realpath(top)
    stack = [top]
    while stack:
        directory = stack.pop()
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue  # unreadable folder: nothing we can lint in it
        subdirs = []
        for entry in entries:
            full = entry.path[2:] if entry.path.startswith("./") else entry.path
            if entry.is_dir(follow_symlinks=False):
                if _walks_into(entry, full, settings, ignore):
                    subdirs.append(entry.path)
            elif (
                entry.name.endswith(SUFFIXES)
                and not settings.is_excluded(full)
                and not (ignore is not None and ignore.ignored_entry(entry.path, False))
            ):
                identity = _file_identity(entry, real_top, top)
                if identity is not None:
                    yield full, identity
        stack.extend(reversed(subdirs))


def _walks_into(
    entry: os.DirEntry, full: str, settings: Settings, ignore: Optional[GitIgnore]
) -> bool:
    name = entry.name
    return not (
        name in DEFAULT_SKIPPED_DIRS
        or name.endswith(".egg-info")
        or _is_virtualenv(entry.path)
        or settings.is_excluded(full)
        or (ignore is not None and ignore.ignored_entry(entry.path, True))
    )


def _file_identity(entry: os.DirEntry, real_top: str, top: str) -> Optional[str]:
    """The real path of a file to lint, or None to skip this entry."""
    if not entry.is_symlink():
        if not entry.is_file(follow_symlinks=False):
            return None  # FIFO, socket, device: reading could block forever
        return os.path.join(real_top, os.path.relpath(entry.path, top))
    target = os.path.realpath(entry.path)
    inside = os.path.commonpath([target, real_top]) == real_top
    return target if inside and os.path.isfile(target) else None


def collect(
    paths: Sequence[str],
    settings: Settings,
    force_exclude: bool = False,
    respect_gitignore: bool = True,
) -> List[str]:
    """All files to lint, each once, in a stable order."""
    seen = set()
    out = []
    for path, identity in iter_files(paths, settings, force_exclude, respect_gitignore):
        if identity not in seen:
            seen.add(identity)
            out.append(path)
    return out
