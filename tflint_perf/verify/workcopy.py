"""The working copy a worker runs in (linter side).

A temporary folder per worker::

    <tmp>/work/<folder>/   a copy of the script's folder: the current directory,
                           so relative reads find the files next to the script
                           and relative writes stay in the copy
    <tmp>/home/            HOME (``~/.keras``, ``~/.cache``, ... start empty)
    <tmp>/tmp/             TMPDIR

Files too large for the copy, and files beyond its budget, are symbolic
links to the originals: reading them works, writing through them is
refused by the guard rails (``guard``), which check the resolved path.
The whole temporary folder is removed when the worker ends.
"""

from __future__ import annotations

import os
import shutil
import site
from dataclasses import dataclass
from typing import Optional

MAX_FILES = 5000
MAX_BYTES = 256 * 2**20
LARGE_FILE = 32 * 2**20
_SKIP_DIRS = {
    ".git",
    ".hg",
    ".svn",
    "__pycache__",
    "node_modules",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".ipynb_checkpoints",
    "site-packages",
}


@dataclass
class WorkCopy:
    root: str  # the temporary folder: everything the code may write is under it
    cwd: str  # the copy of the script's folder
    script: str  # the script's path in the copy ("" without a script)
    home: str
    tmpdir: str
    note: str = ""  # what was linked instead of copied, when anything was

    def environment(self, env: dict) -> dict:
        env = dict(env)
        if "PYTHONUSERBASE" not in env:  # `pip install --user` packages stay importable
            env["PYTHONUSERBASE"] = site.getuserbase()
        env.update(
            HOME=self.home,
            TMPDIR=self.tmpdir,
            TEMP=self.tmpdir,
            TMP=self.tmpdir,
            PYTHONDONTWRITEBYTECODE="1",
            XDG_CACHE_HOME=os.path.join(self.home, ".cache"),
            XDG_CONFIG_HOME=os.path.join(self.home, ".config"),
            MPLCONFIGDIR=os.path.join(self.home, ".config", "matplotlib"),
        )
        for name in ("KERAS_HOME", "TFDS_DATA_DIR", "TFHUB_CACHE_DIR", "HF_HOME"):
            env.pop(name, None)
        return env


def _is_environment(folder: str) -> bool:
    return os.path.exists(os.path.join(folder, "pyvenv.cfg"))


class _Budget:
    def __init__(self) -> None:
        self.files = 0
        self.bytes = 0
        self.linked = 0


def _copy_tree(source: str, target: str, budget: _Budget) -> None:
    os.makedirs(target, exist_ok=True)
    try:
        entries = sorted(os.scandir(source), key=lambda e: e.name)
    except OSError:
        return
    folders = []
    for entry in entries:
        to = os.path.join(target, entry.name)
        try:
            if entry.is_symlink():
                os.symlink(os.readlink(entry.path), to)
            elif entry.is_dir():
                if entry.name not in _SKIP_DIRS and not _is_environment(entry.path):
                    folders.append((entry.path, to))
            elif entry.is_file():
                size = entry.stat().st_size
                budget.files += 1
                if size > LARGE_FILE or budget.bytes + size > MAX_BYTES or budget.files > MAX_FILES:
                    os.symlink(entry.path, to)
                    budget.linked += 1
                else:
                    shutil.copy2(entry.path, to)
                    budget.bytes += size
        except OSError:
            continue
    for source_dir, to in folders:
        if budget.files > MAX_FILES:
            try:
                os.symlink(source_dir, to)  # beyond the budget: readable, never writable
                budget.linked += 1
            except OSError:
                pass
            continue
        _copy_tree(source_dir, to, budget)


def make(tmp: str, script: Optional[str]) -> WorkCopy:
    """Lay out the working copy under ``tmp``; copy the script's folder when there is a script."""
    home, tmpdir = os.path.join(tmp, "home"), os.path.join(tmp, "tmp")
    os.makedirs(home, exist_ok=True)
    os.makedirs(tmpdir, exist_ok=True)
    work = os.path.join(tmp, "work")
    if not script:
        os.makedirs(work, exist_ok=True)
        return WorkCopy(tmp, work, "", home, tmpdir)
    folder = os.path.dirname(os.path.abspath(script))
    cwd = os.path.join(work, os.path.basename(folder) or "root")
    budget = _Budget()
    _copy_tree(folder, cwd, budget)
    note = ""
    if budget.linked:
        note = (
            f"{budget.linked} file(s) or folder(s) of the script's folder were linked, not copied "
            f"(over {LARGE_FILE >> 20} MiB each, or beyond {MAX_FILES} files / {MAX_BYTES >> 20} MiB): "
            "readable, not writable"
        )
    return WorkCopy(tmp, cwd, os.path.join(cwd, os.path.basename(script)), home, tmpdir, note)
