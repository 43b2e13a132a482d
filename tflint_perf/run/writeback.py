"""Writing a fixed file back: all or nothing, and never over someone's edit.

- The new text goes to a temporary file in the same folder, which is then
  renamed over the original: a run that fails half-way (disk full, killed)
  leaves the original whole, never a truncated file.
- The temporary file gets the original's permission bits (and, where we
  may, its owner) before the rename.
- A read-only file (no write permission bit) is refused, even for root: its
  owner said it is not to be changed.
- A file whose bytes changed since they were read (an editor saved it while
  we linted) is not overwritten.
- A symbolic link named on the command line is written through: its target
  is replaced, the link stays a link.
- A file with hard links (more than one name) is rewritten in place, so
  every name sees the fix; renaming would leave the other names with the old
  text. Should that write fail half-way, the original bytes are written back.
"""

from __future__ import annotations

import os
import stat
import tempfile
from typing import Callable, Optional

TEMP_SUFFIX = ".tflint-perf.tmp"


class WriteError(Exception):
    """Why a fixed file was not written (one line, no path)."""


def replace_text(path: str, text: str, encoding: str, original: bytes) -> None:
    """Replace ``path``'s content, read as ``original``, by ``text``; or raise WriteError."""
    target = os.path.realpath(path)
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError as exc:
        raise WriteError(f"the fixed text cannot be encoded as {encoding}: {exc.reason}") from None
    try:
        info = os.stat(target)
    except OSError as exc:
        raise WriteError(f"cannot write: {exc.strerror or exc}") from None
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise WriteError("the file is read-only")
    if not os.access(target, os.W_OK):
        raise WriteError("cannot write: Permission denied")
    try:
        if info.st_nlink > 1:
            _rewrite_in_place(target, data, original)
        else:
            _swap(target, data, info, original)
    except OSError as exc:
        raise WriteError(f"cannot write: {exc.strerror or exc}") from None


def _rewrite_in_place(target: str, data: bytes, original: bytes) -> None:
    """Overwrite the file's own bytes (same inode: every hard link sees them)."""
    with open(target, "r+b") as handle:
        if handle.read() != original:
            raise WriteError("the file changed on disk while it was being fixed")
        try:
            _overwrite(handle, data)
        except BaseException:
            _overwrite(handle, original)  # as it was (it fitted before)
            raise


def _overwrite(handle, data: bytes) -> None:
    handle.seek(0)
    handle.write(data)
    handle.truncate()
    handle.flush()
    os.fsync(handle.fileno())


def _swap(target: str, data: bytes, info: os.stat_result, original: bytes) -> None:
    def check(temp: str) -> None:
        _keep_owner(temp, info)
        if _current(target) != original:
            raise WriteError("the file changed on disk while it was being fixed")

    write_atomically(target, data, stat.S_IMODE(info.st_mode), durable=True, before_rename=check)


def write_atomically(
    target: str,
    data: bytes,
    mode: int = 0o644,
    durable: bool = False,
    before_rename: Optional[Callable[[str], None]] = None,
) -> None:
    """Write ``data`` to a temporary file beside ``target`` and rename it over
    ``target``: readers see the old file or the new one, never a part. On any
    failure the temporary file is removed and ``target`` is left as it was.
    ``durable``: on disk (fsync) before the rename."""
    folder, name = os.path.split(target)
    fd, temp = tempfile.mkstemp(prefix=f".{name}.", suffix=TEMP_SUFFIX, dir=folder or ".")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(temp, mode)
        if before_rename is not None:
            before_rename(temp)
        os.replace(temp, target)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def _current(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _keep_owner(temp: str, info: os.stat_result) -> None:
    if not hasattr(os, "chown"):  # pragma: no cover - Windows
        return
    mine = os.stat(temp)
    if (mine.st_uid, mine.st_gid) == (info.st_uid, info.st_gid):
        return
    try:
        os.chown(temp, info.st_uid, info.st_gid)
    except OSError:
        pass  # only root may give a file away; the mode is what matters
