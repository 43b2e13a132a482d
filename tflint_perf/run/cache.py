"""A content-hash cache of findings, one small JSON file per linted file.

An entry is found by a hash of the *salt*, the file's absolute path and its
kind (the file's lint; its second pass in a tree; the project index's
exports of the module, with no findings: ``run/project.py``) and is used
only when the hash of the file's bytes matches the one stored in it, so
editing a file overwrites its entry instead of piling up new ones. The
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
checkout (a fork's pull request), and reading it must not run code. Nor may
a planted entry hide findings or inject false ones, so an entry is used only
when

- its MAC checks: a keyed BLAKE2b of its key and findings under a random
  key kept per user, outside any repository (``user_key``), which a
  checkout cannot supply: an entry this user's runs did not write is a miss;
- every finding in it is plausible for the file: a known code, positions
  inside the file, text without control characters (no terminal escapes).

A file that is not a valid entry (corrupt, truncated, another version's,
someone else's, planted) is a miss, never an error. Writes go to a temporary
file renamed into place, so concurrent runs and worker processes never see
half an entry. Once a day a run that writes also removes the entries of
files that no longer exist.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from tflint_perf import __version__
from tflint_perf.engine.rule import Edit, Finding, Fix

try:  # the builtin module: hashlib would load OpenSSL first (12 ms per run)
    from _blake2 import blake2b as _hash
except ImportError:  # pragma: no cover
    from hashlib import blake2b as _hash

DEFAULT_DIR_NAME = ".tflint-perf-cache"
ENV_VAR = "TFLINT_PERF_CACHE_DIR"
FORMAT = 4
KEY_BYTES = 32
PRUNE_STAMP = "pruned"
PRUNE_SECONDS = 24 * 3600
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


# -- the per-user key --------------------------------------------------------
def key_path() -> Path:
    """Where this user's cache key lives: the user's cache folder, never a project."""
    if sys.platform == "win32":  # pragma: no cover
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tflint-perf" / "key"


def user_key() -> bytes:
    """This user's random cache key, created on first use (mode 0600); raises
    OSError when it can be neither read nor created."""
    path = key_path()
    try:
        key = path.read_bytes()
        if len(key) == KEY_BYTES:
            return key
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    from tflint_perf.run.writeback import write_atomically

    temp = path.with_name(f"key.{os.getpid()}.new")
    write_atomically(str(temp), os.urandom(KEY_BYTES), mode=0o600)
    try:
        os.link(temp, path)  # never replaces a key another run just made
    except FileExistsError:
        pass
    except OSError:  # pragma: no cover - no hard links here: last writer wins
        os.replace(temp, path)
    finally:
        try:
            os.unlink(temp)
        except OSError:
            pass
    key = path.read_bytes()
    if len(key) != KEY_BYTES:
        raise OSError(f"{path} is not a tflint-perf cache key")
    return key


def _mac(key: bytes, entry_key: str, findings: str) -> str:
    return _hash(f"{entry_key}\0{findings}".encode(), key=key).hexdigest()


# -- what an entry may hold ------------------------------------------------------
_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
# Control characters but tab and newline (and, in code, \r and \f): never
# written to a terminal from a cache entry.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROL_IN_CODE = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")


def known_codes() -> frozenset:
    """TFP000 and each rule's code (``rules/tfpNNN_*.py`` or a package
    ``rules/tfpNNN_*/``), without importing the rules (a cached run never
    loads LibCST)."""
    codes = {"TFP000"}
    for folder in _package_dirs()[1:]:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        codes.update(n[:6].upper() for n in names if re.match(r"tfp\d{3}_\w+(?:\.py)?\Z", n))
    return frozenset(codes)


def _printable(value, code: bool = False) -> bool:
    if isinstance(value, str):
        return not (_CONTROL_IN_CODE if code else _CONTROL).search(value)
    if isinstance(value, (list, tuple)):
        return all(_printable(v, code) for v in value)
    if isinstance(value, dict):
        return all(_printable(k) and _printable(v) for k, v in value.items())
    return value is None or isinstance(value, (int, float, bool))


def plausible(f: Finding, lines: Sequence[bytes], codes: frozenset) -> bool:
    """Whether ``f`` could have come from linting a file with these ``lines``:
    a known code, a span inside the file, printable text."""
    count = len(lines)
    if f.code not in codes or not _NAME.match(f.name):
        return False
    if not (1 <= f.line <= f.end_line <= count + 1) or f.column < 1 or f.end_column < 1:
        return False
    # bytes per line bound its characters (a notebook's cell lines sit in longer JSON lines)
    widest = max((len(line) for line in lines), default=0) + 1
    if max(f.column, f.end_column) > widest:
        return False
    if not (_printable(f.message) and _printable(f.detail) and _printable(f.extra)):
        return False
    if f.fix is not None:
        if not _printable(f.fix.message) or f.fix.safety not in ("safe", "unsafe"):
            return False
        for e in f.fix.edits:
            if not (1 <= e.line <= e.end_line and e.column >= 0 and e.end_column >= 0):
                return False
            if not _printable(e.content, code=True):
                return False
    return True


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
        self._touched = False
        self._codes: Optional[frozenset] = None
        self.problem: Optional[str] = None  # why this run cannot use the cache
        try:
            self.key: Optional[bytes] = user_key()
        except OSError as exc:
            self.key = None
            self.problem = f"cannot keep the cache key in {key_path()}: {exc.strerror or exc}"
        self.writable = True  # until prepare() or a write says otherwise

    # -- keys --------------------------------------------------------------
    def _entry(self, absolute: str, kind: str = "") -> str:
        """The entry's file: one per file and kind, so an edit overwrites its entry."""
        suffix = f"\0{kind}" if kind else ""
        name = _hash(f"{self.salt}\0{absolute}{suffix}".encode()).hexdigest()
        return f"{self._bucket_prefix}{name[:32]}.json"  # strings: pathlib is slow per file

    def entry_key(self, absolute: str, data: bytes, variant: str = "", kind: str = "") -> str:
        """Everything an entry depends on: the linter's code and settings (the
        salt), the file's path and its bytes, the kind of entry and what else
        its content was computed from (``variant``: for a pass over a tree,
        the file's package; for a second pass, the facts of the other modules
        it read). The one place that says what makes an entry valid."""
        text = f"{self.salt}\0{absolute}\0{self.content_hash(data)}\0{kind}\0{variant}"
        return _hash(text.encode()).hexdigest()

    @staticmethod
    def content_hash(data: bytes) -> str:
        return _hash(data).hexdigest()

    # -- reading -----------------------------------------------------------
    def get(
        self, path: str, data: bytes, variant: str = "", kind: str = ""
    ) -> Optional[List[Finding]]:
        """The cached findings for ``path`` with contents ``data``, or None."""
        entry = self.get_entry(path, data, variant, kind)
        return entry[0] if entry is not None else None

    def get_entry(
        self, path: str, data: bytes, variant: str = "", kind: str = ""
    ) -> Optional[Tuple[List[Finding], dict]]:
        """(findings, extra) for ``path`` with contents ``data``, or None.

        ``kind`` names another entry of the same file: ``second``, the result
        of its second pass with the project's facts (``run/project.py``);
        ``exports``, what the project index computed of it (no findings).
        ``variant``: see ``entry_key``. ``extra`` is data the runner stored
        with the findings."""
        if self.key is None:
            return None
        absolute = os.path.abspath(path)
        try:
            with open(self._entry(absolute, kind), "rb", buffering=0) as handle:
                entry = json.loads(handle.readall())
            key = self.entry_key(absolute, data, variant, kind)
            if entry["format"] != FORMAT or entry["path"] != absolute or entry["key"] != key:
                return None
            text = entry["findings"]
            if not isinstance(text, str) or entry["mac"] != _mac(self.key, key, text):
                return None  # not written by this user's runs
            payload = json.loads(text)
            findings = [_finding_from_json(path, item) for item in payload["findings"]]
            extra = payload["extra"]
            if not isinstance(extra, dict):
                return None
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            return None  # missing, corrupt, foreign or stale: a miss
        if findings:
            if self._codes is None:
                self._codes = known_codes()
            lines = data.splitlines()
            if not all(plausible(f, lines, self._codes) for f in findings):
                return None
        if not self._touched:  # mark the bucket as in use (see prune)
            self._touched = True
            try:
                os.utime(self.bucket)
            except OSError:
                pass
        return findings, extra

    # -- writing -----------------------------------------------------------
    def prepare(self) -> Optional[str]:
        """Create the folders; None, or why the cache cannot be written."""
        if self.problem:
            self.writable = False
            return self.problem
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

    def put(
        self,
        path: str,
        data: bytes,
        findings: Sequence[Finding],
        extra: Optional[dict] = None,
        variant: str = "",
        kind: str = "",
    ) -> Optional[str]:
        """Store the findings (and ``extra``); on the first failed write, why
        (then no more writes)."""
        if not self.writable or self.key is None:
            return None
        absolute = os.path.abspath(path)
        key = self.entry_key(absolute, data, variant, kind)
        try:
            payload = {"findings": [_finding_to_json(f) for f in findings], "extra": extra or {}}
            text = json.dumps(payload, separators=(",", ":"))
        except (TypeError, ValueError):
            return None  # a finding carries something JSON cannot hold: do not cache it
        entry = {
            "format": FORMAT,
            "path": absolute,
            "key": key,
            "findings": text,
            "mac": _mac(self.key, key, text),
        }
        try:
            _write_atomic(Path(self._entry(absolute, kind)), json.dumps(entry).encode())
        except OSError as exc:
            self.writable = False  # full disk, read-only checkout: lint on, uncached
            return f"cannot write the cache in {self.directory}: {exc.strerror or exc}"
        return None

    # -- pruning -----------------------------------------------------------
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

    def prune_missing(self, now: Optional[float] = None) -> int:
        """At most once a day: remove the entries of files that no longer
        exist (moved, deleted). The number removed."""
        stamp = self.bucket / PRUNE_STAMP
        now = time.time() if now is None else now
        try:
            if now - stamp.stat().st_mtime < PRUNE_SECONDS:
                return 0
        except FileNotFoundError:
            pass
        except OSError:
            return 0
        removed = 0
        try:
            entries = [e for e in os.scandir(self.bucket) if e.name.endswith(".json")]
            for item in entries:
                try:
                    with open(item.path, "rb") as handle:
                        path = json.loads(handle.read())["path"]
                    gone = not isinstance(path, str) or not os.path.exists(path)
                except (OSError, ValueError, KeyError, TypeError):
                    gone = True  # not an entry: nothing to keep
                if gone:
                    os.unlink(item.path)
                    removed += 1
            _write_atomic(stamp, b"")
            os.utime(stamp, (now, now))
        except OSError:
            pass  # another run pruned it, or the folder is read-only
        return removed


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
