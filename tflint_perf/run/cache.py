"""A content-hash cache of findings, one small JSON file per linted file.

An entry is found by a hash of the *salt* and the file's absolute path and is
used only when the SHA-256 of the file's bytes matches the one stored in it,
so editing a file overwrites its entry instead of piling up new ones. The
salt covers everything else that decides the findings:

- the tflint-perf version, the cache format, the Python version (syntax
  errors depend on it) and the installed LibCST;
- the source of tflint-perf itself and of every rule module (a rule edited
  in a checkout, or added by an upgrade, invalidates the cache);
- ``Settings.fingerprint()``: the selected and ignored codes, the
  per-file ignores and the project root they are relative to.

Entries of one salt live in one bucket folder; a bucket not used for a week
is removed when a new one is created, so configuration changes do not grow
the cache without bound. ``tflint-perf clean`` removes everything.

Entries are JSON, never pickle: a cache folder can come from an untrusted
checkout, and reading it must not run code. A file that is not a valid
entry (corrupt, truncated, another version's, someone else's) is a miss,
never an error. Writes go to a temporary file renamed into place, so
concurrent runs and worker processes never see half an entry.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import List, Optional, Sequence

from tflint_perf import __version__
from tflint_perf.engine.rule import Edit, Finding, Fix

try:  # the builtin module: hashlib would load OpenSSL first (12 ms per run)
    from _blake2 import blake2b as _hash
except ImportError:  # pragma: no cover
    from hashlib import blake2b as _hash

DEFAULT_DIR_NAME = ".tflint-perf-cache"
ENV_VAR = "TFLINT_PERF_CACHE_DIR"
FORMAT = 2
TAG_NAME = "CACHEDIR.TAG"
# https://bford.info/cachedir/ : backup tools skip folders holding this file.
TAG_TEXT = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by tflint-perf.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)
STALE_BUCKET_SECONDS = 7 * 24 * 3600


def _package_dirs() -> List[str]:
    import tflint_perf
    import tflint_perf.rules as rules  # registered cheaply by tflint_perf/__init__

    return [tflint_perf.__path__[0], *rules.__path__]


def _libcst_stamp() -> str:
    """Which LibCST is installed, without importing it (that takes 0.15 s).

    PathFinder searches sys.path itself: importlib.util.find_spec would read
    ``__spec__`` of the lazily registered module, which loads it."""
    from importlib.machinery import PathFinder

    try:
        spec = PathFinder.find_spec("libcst")
    except (ImportError, ValueError):
        return "none"
    if spec is None or not spec.origin:
        return "none"
    folder = os.path.dirname(spec.origin)
    for name in ("_version.py", "__init__.py"):
        try:
            with open(os.path.join(folder, name), "rb") as handle:
                return _hash(handle.read()).hexdigest()
        except OSError:
            continue
    return folder


def _source_files(folder: str) -> List[str]:
    """Every ``.py`` file under ``folder`` (subpackages too), relative, sorted."""
    found = []
    for base, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        rel = os.path.relpath(base, folder)
        found += [os.path.normpath(os.path.join(rel, n)) for n in names if n.endswith(".py")]
    return sorted(found)


def code_fingerprint() -> str:
    """A hash of the linter's own code: this package (all its subpackages)
    and every rule module."""
    digest = _hash()
    digest.update(
        f"{__version__}\0{FORMAT}\0{sys.implementation.name}{sys.version_info[:2]}\0".encode()
    )
    digest.update(_libcst_stamp().encode())
    for folder in _package_dirs():
        for name in _source_files(folder):
            try:
                with open(os.path.join(folder, name), "rb") as handle:
                    data = handle.read()
            except OSError:
                continue
            digest.update(f"\0{name}\0{len(data)}\0".encode())
            digest.update(data)
    return digest.hexdigest()


def default_directory(settings, cli_value: Optional[str] = None) -> Path:
    """``--cache-dir``, else $TFLINT_PERF_CACHE_DIR, else ``cache-dir`` from the
    configuration (relative to the project root), else ``.tflint-perf-cache``
    at the project root."""
    if cli_value:
        return Path(cli_value)
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    configured = getattr(settings, "cache_dir", None)
    if configured:
        return Path(settings.root) / configured
    return Path(settings.root) / DEFAULT_DIR_NAME


# -- (de)serialising findings ------------------------------------------------
def _finding_to_json(f: Finding) -> list:
    fix = None
    if f.fix is not None:
        fix = [
            f.fix.safety,
            f.fix.message,
            [[e.line, e.column, e.end_line, e.end_column, e.content] for e in f.fix.edits],
        ]
    return [
        f.line,
        f.column,
        f.end_line,
        f.end_column,
        f.code,
        f.name,
        f.message,
        fix,
        f.extra,
        f.detail,
    ]


def _finding_from_json(path: str, item: list) -> Finding:
    line, column, end_line, end_column, code, name, message, fix, extra, detail = item
    if fix is not None:
        safety, fix_message, edits = fix
        fix = Fix(
            edits=tuple(Edit(int(a), int(b), int(c), int(d), str(e)) for a, b, c, d, e in edits),
            safety=str(safety),
            message=str(fix_message),
        )
    if not isinstance(extra, dict):
        raise ValueError("extra must be an object")
    for value in (line, column, end_line, end_column):
        if not isinstance(value, int):
            raise ValueError("positions must be integers")
    return Finding(
        path,
        line,
        column,
        end_line,
        end_column,
        str(code),
        str(name),
        str(message),
        fix,
        extra,
        str(detail),
    )


class Cache:
    """Findings by file content; see the module docstring."""

    def __init__(self, directory, settings) -> None:
        self.directory = Path(directory)
        salt = _hash()
        salt.update(code_fingerprint().encode())
        salt.update(b"\0")
        salt.update(settings.fingerprint().encode())
        self.salt = salt.hexdigest()
        self.bucket = self.directory / self.salt[:24]
        self._bucket_prefix = os.path.join(str(self.bucket), "")
        self.writable = True
        self._touched = False

    # -- keys --------------------------------------------------------------
    def _entry(self, absolute: str) -> str:
        name = _hash(f"{self.salt}\0{absolute}".encode()).hexdigest()
        return f"{self._bucket_prefix}{name[:32]}.json"  # strings: pathlib is slow per file

    @staticmethod
    def content_hash(data: bytes) -> str:
        # SHA-256: with the CPU's SHA instructions (most x86 and ARM chips)
        # twice as fast as BLAKE2b, and a cached run hashes every file.
        return _hash(data).hexdigest()

    # -- reading -----------------------------------------------------------
    def get(self, path: str, data: bytes) -> Optional[List[Finding]]:
        """The cached findings for ``path`` with contents ``data``, or None."""
        absolute = os.path.abspath(path)
        try:
            with open(self._entry(absolute), "rb", buffering=0) as handle:
                entry = json.loads(handle.readall())
            if (
                entry["format"] != FORMAT
                or entry["salt"] != self.salt
                or entry["path"] != absolute
                or entry["content"] != self.content_hash(data)
            ):
                return None
            findings = [_finding_from_json(path, item) for item in entry["findings"]]
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            return None  # missing, corrupt, foreign or stale: a miss
        if not self._touched:  # mark the bucket as in use (see prune)
            self._touched = True
            try:
                os.utime(self.bucket)
            except OSError:
                pass
        return findings

    # -- writing -----------------------------------------------------------
    def prepare(self) -> Optional[str]:
        """Create the folders; None, or why the cache cannot be written."""
        try:
            new_bucket = not self.bucket.is_dir()
            self.bucket.mkdir(parents=True, exist_ok=True)
            ignore = self.directory / ".gitignore"
            if not ignore.exists():
                _write_atomic(ignore, b"# Created by tflint-perf.\n*\n")
            tag = self.directory / TAG_NAME
            if not tag.exists():
                _write_atomic(tag, TAG_TEXT.encode())
        except OSError as exc:
            self.writable = False
            return f"cannot write the cache in {self.directory}: {exc.strerror or exc}"
        if new_bucket:
            self._prune()
        return None

    def put(self, path: str, data: bytes, findings: Sequence[Finding]) -> None:
        if not self.writable:
            return
        absolute = os.path.abspath(path)
        entry = {
            "format": FORMAT,
            "salt": self.salt,
            "path": absolute,
            "content": self.content_hash(data),
            "findings": [_finding_to_json(f) for f in findings],
        }
        try:
            payload = json.dumps(entry, separators=(",", ":")).encode()
        except (TypeError, ValueError):
            return  # a finding carries something JSON cannot hold: do not cache it
        try:
            _write_atomic(Path(self._entry(absolute)), payload)
        except OSError:
            self.writable = False  # full disk, read-only checkout: lint on, uncached

    def _prune(self) -> None:
        """Remove other buckets that no run has used for a week."""
        import shutil

        cutoff = time.time() - STALE_BUCKET_SECONDS
        try:
            siblings = list(os.scandir(self.directory))
        except OSError:
            return
        for item in siblings:
            if item.name == self.bucket.name or not item.is_dir(follow_symlinks=False):
                continue
            try:
                if item.stat(follow_symlinks=False).st_mtime < cutoff:
                    shutil.rmtree(item.path, ignore_errors=True)
            except OSError:
                continue


def _write_atomic(target: Path, payload: bytes) -> None:
    """Concurrent runs and workers never see half an entry."""
    from tflint_perf.run.writeback import write_atomically

    write_atomically(str(target), payload)


def looks_like_cache(directory: Path) -> bool:
    """Whether ``directory`` is one of ours (safe to delete with ``clean``)."""
    tag = directory / TAG_NAME
    try:
        return tag.is_file() and "tflint-perf" in tag.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def clean(directory: Path) -> str:
    """Remove the cache folder; a message saying what happened.

    Refuses to delete a folder that does not carry tflint-perf's cache tag,
    so a mistyped ``--cache-dir`` cannot remove someone's files.
    """
    directory = Path(directory)
    if not directory.exists():
        return f"No cache at {directory}."
    if not directory.is_dir() or not looks_like_cache(directory):
        raise ValueError(
            f"{directory} is not a tflint-perf cache folder (no {TAG_NAME} from tflint-perf); not removed"
        )
    import shutil

    shutil.rmtree(directory)
    return f"Removed {directory}."
