"""Guard rails for the code under review (worker side). Not a sandbox.

The worker runs the user's code in a *working copy*: a temporary folder
holding a copy of the script's folder (the current directory), a temporary
``HOME`` and ``TMPDIR``. ``Guard`` refuses, through Python's audit hooks
(PEP 578) and wrappers around TensorFlow's own file functions:

- network connections (``connect``, ``sendto``, name lookups, ``urllib``
  requests, listening sockets) other than loopback, and TensorFlow paths
  with a remote scheme (``gs://``, ``s3://``, ``http://``);
- writing, creating, renaming or deleting anything outside the working copy
  (``open`` for writing, ``os``/``shutil``/``pathlib`` entry points,
  ``tf.io.gfile``/``tf.compat.v1.gfile``, and the TensorFlow writers that
  take a path: summaries, checkpoints, SavedModel).

A write inside the working copy into a folder it lacks creates the folder
first (recorded in ``made``): the working copy holds the script's folder's
files, not the output folders the user made by hand or keeps out of git.

A refused action raises ``PermissionError`` in the code and is recorded:
the finding ends ``unverified`` with the action named, even when the code
caught the error. What is *not* covered: programs the code starts
(``subprocess``, ``os.system``: they run with the working copy as their
directory and the temporary ``HOME``, nothing more), and C/C++ code that
writes files or opens sockets on its own without passing a Python path.
"""

from __future__ import annotations

import errno
import os
import sys
from typing import Callable, List, Optional, Sequence, Tuple
from urllib.parse import urlsplit

# Writing beyond these stays harmless: the null device and shared memory.
_DEVICES = ("/dev/null", "/dev/shm", "/dev/stdout", "/dev/stderr", "/dev/tty")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}
_LOCAL_SCHEMES = {"", "file"}


class Refused(PermissionError):
    """An action the guard rails do not allow; the message names it."""


def is_loopback(host) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return True  # not an IP family (netlink, ...): nothing leaves the machine
    host = host.strip("[]").lower()
    if host == "::1" or host in _LOOPBACK_NAMES:
        return True
    return host.startswith("127.") or host.startswith("::ffff:127.")


def _text(path) -> Optional[str]:
    if isinstance(path, int):
        return None  # a file descriptor: opened (and checked) before
    try:
        return os.fsdecode(os.fspath(path))
    except TypeError:
        return None


def _remote(path: str) -> bool:
    return "://" in path and urlsplit(path).scheme.lower() not in _LOCAL_SCHEMES


class Guard:
    """Refuse network and writes outside ``roots``; remember what was refused."""

    def __init__(self, roots: Sequence[str]) -> None:
        self.roots = [os.path.realpath(r) for r in roots]
        self.refused: List[str] = []
        self.made: List[str] = []
        self.active = False
        self._busy = False

    # -- the rules ----------------------------------------------------------
    def inside(self, path: str, dir_fd: Optional[int] = None) -> bool:
        if dir_fd is not None and dir_fd >= 0 and not os.path.isabs(path):  # -100: AT_FDCWD
            try:
                path = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), path)
            except OSError:
                return False
        real = os.path.realpath(path)
        if any(real == d or real.startswith(d + "/") for d in _DEVICES):
            return True
        return any(real == r or real.startswith(r + os.sep) for r in self.roots)

    def refuse(self, action: str) -> None:
        self.refused.append(action)
        raise Refused(errno.EACCES, f"tflint-perf --verify refused {action} (guard rails)")

    def check_write(self, path, what: str, dir_fd: Optional[int] = None) -> None:
        text = _text(path)
        if text is None:
            return
        if _remote(text):
            self.refuse(f"{what} `{text}` (network)")
        if not self.inside(text, dir_fd):
            self.refuse(f"{what} `{text}` (outside the working copy)")

    def make_parent(self, path) -> None:
        """Create the missing folder of a file about to be written inside the working copy."""
        text = _text(path)
        if text is None:
            return
        folder = os.path.dirname(os.path.abspath(text))
        if os.path.isdir(folder) or not self.inside(folder):
            return
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError:
            return  # the open then fails as it would have
        self.made.append(os.path.relpath(folder))

    def check_remote(self, path, what: str) -> None:
        text = _text(path)
        if text is not None and _remote(text):
            self.refuse(f"{what} `{text}` (network)")

    def check_address(self, address, what: str) -> None:
        if isinstance(address, tuple) and address and not is_loopback(address[0]):
            port = f":{address[1]}" if len(address) > 1 else ""
            self.refuse(f"{what} {address[0]}{port} (network)")

    # -- the audit hook -------------------------------------------------------
    def install(self) -> None:
        self.active = True
        sys.addaudithook(self._hook)

    def _hook(self, event: str, args: tuple) -> None:
        handler = _EVENTS.get(event)
        if handler is None or not self.active or self._busy:
            return
        self._busy = True
        try:
            handler(self, args)
        finally:
            self._busy = False


def _open(guard: Guard, args) -> None:
    path, mode, flags = (tuple(args) + (None, None, None))[:3]
    if isinstance(mode, str):
        writes = any(c in mode for c in "wax+")
    else:
        writes = isinstance(flags, int) and bool(flags & _WRITE_FLAGS)
    if writes:
        guard.check_write(path, "writing")
        guard.make_parent(path)


def _one(what: str, index: int = 0, fd_index: Optional[int] = None):
    def handler(guard: Guard, args) -> None:
        dir_fd = args[fd_index] if fd_index is not None and len(args) > fd_index else None
        guard.check_write(args[index], what, dir_fd if isinstance(dir_fd, int) else None)

    return handler


def _mkdir(guard: Guard, args) -> None:
    path = _text(args[0])
    if path is not None and not _remote(path) and os.path.isdir(path):
        return  # makedirs(exist_ok=True) of a folder that is there: nothing changes
    _one("creating the folder", 0, 2)(guard, args)


def _rename(guard: Guard, args) -> None:
    guard.check_write(args[0], "moving")
    guard.check_write(args[1], "moving a file to")


def _connect(what: str):
    def handler(guard: Guard, args) -> None:
        guard.check_address(args[1] if len(args) > 1 else None, what)

    return handler


def _lookup(guard: Guard, args) -> None:
    if not args or is_loopback(args[0]):
        return
    host = args[0].decode("ascii", "replace") if isinstance(args[0], bytes) else args[0]
    if len(args) > 1 and args[1] not in (None, 0, "", b""):  # getaddrinfo(host, port): a connection
        guard.refuse(f"connecting to {host}:{args[1]} (network)")
    guard.refuse(f"looking up the network address of {host!r} (network)")


def _request(guard: Guard, args) -> None:
    url = str(args[0]) if args else ""
    parts = urlsplit(url)
    if parts.scheme.lower() not in _LOCAL_SCHEMES and not is_loopback(parts.hostname):
        guard.refuse(f"downloading {url} (network)")


_EVENTS: dict = {
    "open": _open,
    "os.remove": _one("deleting", 0, 1),
    "os.rmdir": _one("deleting the folder", 0, 1),
    "os.mkdir": _mkdir,
    "os.rename": _rename,
    "os.truncate": _one("truncating"),
    "os.chmod": _one("changing the mode of", 0, 2),
    "os.chown": _one("changing the owner of", 0, 3),
    "os.utime": _one("changing the times of", 0, 3),
    "os.symlink": _one("creating a link at", 1, 2),
    "os.link": _one("creating a link at", 1, 3),
    "os.setxattr": _one("changing attributes of"),
    "os.removexattr": _one("changing attributes of"),
    "shutil.rmtree": _one("deleting the folder"),
    "shutil.copyfile": _one("copying a file to", 1),
    "shutil.copytree": _one("copying a folder to", 1),
    "shutil.move": _rename,
    "socket.connect": _connect("connecting to"),
    "socket.sendto": _connect("sending to"),
    "socket.sendmsg": _connect("sending to"),
    "socket.bind": _connect("listening on"),
    "socket.getaddrinfo": _lookup,
    "socket.gethostbyname": _lookup,
    "socket.gethostbyname_ex": _lookup,
    "urllib.Request": _request,
}


# -- TensorFlow's own file functions (C++ underneath: no audit events) --------

# name in tf.io.gfile / tf.compat.v1.gfile -> (what, indexes of written paths)
_GFILE_WRITES = {
    "copy": ("copying a file to", (1,)),
    "Copy": ("copying a file to", (1,)),
    "makedirs": ("creating the folder", (0,)),
    "MakeDirs": ("creating the folder", (0,)),
    "mkdir": ("creating the folder", (0,)),
    "MkDir": ("creating the folder", (0,)),
    "remove": ("deleting", (0,)),
    "Remove": ("deleting", (0,)),
    "rename": ("moving", (0, 1)),
    "Rename": ("moving", (0, 1)),
    "rmtree": ("deleting the folder", (0,)),
    "DeleteRecursively": ("deleting the folder", (0,)),
}
_GFILE_READS = (
    "exists",
    "Exists",
    "glob",
    "Glob",
    "isdir",
    "IsDirectory",
    "listdir",
    "ListDirectory",
    "stat",
    "Stat",
    "walk",
    "Walk",
)
_GFILE_CLASSES = ("GFile", "Open", "FastGFile")
# TensorFlow writers that take a path (module path, attribute, argument index, what).
_TF_WRITERS: Tuple[Tuple[str, str, int, str], ...] = (
    ("summary", "create_file_writer", 0, "writing summaries to"),
    ("saved_model", "save", 1, "saving a SavedModel to"),
    ("compat.v1.summary", "FileWriter", 0, "writing summaries to"),
)
_TF_METHODS: Tuple[Tuple[str, str, int, str], ...] = (
    ("train.Checkpoint", "save", 0, "saving a checkpoint to"),
    ("train.Checkpoint", "write", 0, "saving a checkpoint to"),
    ("train.CheckpointManager", "__init__", 1, "saving checkpoints to"),
    ("compat.v1.train.Saver", "save", 1, "saving a checkpoint to"),
)


def _resolve(root, dotted: str):
    for part in dotted.split("."):
        root = getattr(root, part, None)
        if root is None:
            return None
    return root


def _argument(args, kwargs, index: int, names=("name", "path", "logdir", "export_dir")):
    if len(args) > index:
        return args[index]
    for key in names + (
        "file_prefix",
        "directory",
        "save_path",
        "dst",
        "new_name",
        "newpath",
        "filepath",
    ):
        if key in kwargs:
            return kwargs[key]
    return None


def _checked(original: Callable, check: Callable) -> Callable:
    import functools

    @functools.wraps(original)
    def guarded(*args, **kwargs):
        check(args, kwargs)
        return original(*args, **kwargs)

    guarded.__tfp_guarded__ = True  # type: ignore[attr-defined]
    return guarded


def guard_tensorflow(guard: Guard, tf) -> None:
    """Wrap TensorFlow's file functions and path-taking writers (they bypass Python's audit events)."""
    for dotted in ("io.gfile", "compat.v1.gfile", "compat.v1.io.gfile"):
        namespace = _resolve(tf, dotted)
        if namespace is None:
            continue
        for name, (what, indexes) in _GFILE_WRITES.items():
            wrap(namespace, name, write_check(guard, what, indexes))
        for name in _GFILE_READS:
            wrap(namespace, name, _remote_check(guard, "reading"))
        for name in _GFILE_CLASSES:
            original = getattr(namespace, name, None)
            if isinstance(original, type) and not getattr(original, "__tfp_guarded__", False):
                setattr(namespace, name, _guarded_file_class(guard, original))
    for dotted, name, index, what in _TF_WRITERS:
        namespace = _resolve(tf, dotted)
        if namespace is not None:
            wrap(namespace, name, write_check(guard, what, (index,)))
    for dotted, name, index, what in _TF_METHODS:
        cls = _resolve(tf, dotted)
        if isinstance(cls, type):
            check = write_check(guard, what, (index + 1,))  # after self
            wrap(cls, name, check)


def wrap(owner, name: str, check: Callable) -> None:
    original = getattr(owner, name, None)
    if (
        original is None
        or getattr(original, "__tfp_guarded__", False)
        or isinstance(original, type)
    ):
        return
    try:
        setattr(owner, name, _checked(original, check))
    except (AttributeError, TypeError):
        pass


def write_check(guard: Guard, what: str, indexes) -> Callable:
    def check(args, kwargs) -> None:
        for index in indexes:
            path = _argument(args, kwargs, index)
            if path is None:
                continue
            text = _text(path)
            if text is None:
                continue
            if what == "creating the folder" and not _remote(text) and os.path.isdir(text):
                continue
            guard.check_write(text, what)

    return check


def _remote_check(guard: Guard, what: str) -> Callable:
    def check(args, kwargs) -> None:
        path = _argument(args, kwargs, 0, ("path", "top", "pattern", "filename", "dirname"))
        if path is not None:
            guard.check_remote(path, what)

    return check


def _guarded_file_class(guard: Guard, original: type) -> type:
    def __init__(self, name, mode="r", *args, **kwargs):
        text = _text(name)
        if text is not None:
            if any(c in str(mode) for c in "wa+"):
                guard.check_write(text, "writing")
            else:
                guard.check_remote(text, "reading")
        original.__init__(self, name, mode, *args, **kwargs)

    return type(original.__name__, (original,), {"__init__": __init__, "__tfp_guarded__": True})
