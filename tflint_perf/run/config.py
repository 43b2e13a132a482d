"""Settings from ``[tool.tflint-perf]`` in pyproject.toml and the command line."""

from __future__ import annotations

import functools
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Pattern, Sequence

from tflint_perf.engine.rule import SYNTAX_CODE


def _toml():
    """tomllib, imported when a file may hold our table (4 ms otherwise lost at startup)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    return tomllib


TABLE = "tflint-perf"
KNOWN_KEYS = {
    "select",
    "extend-select",
    "ignore",
    "exclude",
    "extend-exclude",
    "per-file-ignores",
    "verify",
    "cache-dir",
}


class ConfigError(Exception):
    """Bad configuration or options: reported in one line, exit code 2."""


def known_codes() -> List[str]:
    from tflint_perf.rules import all_rules

    return [SYNTAX_CODE] + [r.code for r in all_rules()]


def validate_codes(codes: Sequence[str], where: str) -> List[str]:
    """Upper-cased codes or prefixes; an unknown one is an error naming it."""
    if not codes:
        return []  # without loading the rules (and LibCST with them)
    known = known_codes()
    out = []
    for raw in codes:
        if not isinstance(raw, str):
            raise ConfigError(f"{where}: expected rule codes, got {raw!r}")
        code = raw.strip().upper()
        if code == "ALL":
            code = "TFP"
        if not code or not any(k.startswith(code) for k in known):
            raise ConfigError(f"{where}: unknown rule code or prefix '{raw}'")
        out.append(code)
    return out


def _string_list(value, where: str) -> List[str]:
    """A list of strings; one string is read as a list of one (``select = "TFP1"``)."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: expected a string or a list of strings, got {value!r}")
    return value


def refuse_conflicts(selected: Sequence[str], ignored: Sequence[str], where: str) -> None:
    """The same code or prefix both selected and ignored in one place is a mistake."""
    both = sorted(set(selected) & set(ignored))
    if both:
        raise ConfigError(f"{where}: '{both[0]}' is both selected and ignored")


@functools.lru_cache(maxsize=None)
def _glob(pattern: str) -> Pattern:
    """A pattern as a regex: ``*`` (any text, ``/`` too, as in fnmatch and
    ruff), ``?``, ``[...]``, and ``**/`` matching zero or more folders
    (``tests/**/*.py`` matches ``tests/x.py``, as in ruff and gitignore)."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i) and (i == 0 or pattern[i - 1] == "/"):
            out.append("(?:.*/)?")
            i += 3
            continue
        char = pattern[i]
        end = pattern.find("]", i + 2) if char == "[" else -1
        if char == "*":
            out.append(".*")
        elif char == "?":
            out.append(".")
        elif end > 0:
            body = pattern[i + 1 : end]
            out.append(
                "[" + ("^" + body[1:] if body[0] == "!" else body).replace("\\", "\\\\") + "]"
            )
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    try:
        return re.compile("".join(out) + r"\Z", re.DOTALL)
    except re.error:  # a class like [z-a]: the pattern is taken literally
        return re.compile(re.escape(pattern) + r"\Z")


def _relative(path: str, root: Path) -> Optional[str]:
    """``path`` relative to ``root`` with ``/`` separators, or None outside it."""
    absolute = os.path.abspath(path)
    for candidate in (absolute, os.path.realpath(absolute)):
        try:
            return Path(candidate).relative_to(root).as_posix()
        except ValueError:
            continue
    return None


def path_matches(path: str, patterns: Sequence[str], root: Path) -> bool:
    """Whether a pattern matches ``path``, relative to ``root`` (the folder of
    the configuration file), never its absolute path (a project under a folder
    named like a pattern stays linted).

    A pattern without ``/`` matches any folder or file name in that relative
    path; one with ``/`` matches the relative path or a folder it lies in. A
    file outside ``root`` is matched by its name only."""
    if not patterns:
        return False
    relative = _relative(path, root)
    parts = relative.split("/") if relative is not None else [os.path.basename(path)]
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        if "/" not in pattern:
            if any(_glob(pattern).match(p) for p in parts):
                return True
        elif relative is not None:
            prefixes = ("/".join(parts[:k]) for k in range(1, len(parts) + 1))
            if any(_glob(pattern.lstrip("/")).match(p) for p in prefixes):
                return True
    return False


@dataclass
class Settings:
    root: Path = field(default_factory=Path.cwd)
    config_path: Optional[Path] = None
    select: List[str] = field(default_factory=lambda: ["TFP"])
    ignore: List[str] = field(default_factory=list)
    exclude: List[str] = field(default_factory=list)
    per_file_ignores: Dict[str, List[str]] = field(default_factory=dict)
    verify: dict = field(default_factory=dict)
    cache_dir: Optional[str] = None  # relative to root; not part of the fingerprint

    def is_enabled(self, code: str, extra_ignores: Sequence[str] = ()) -> bool:
        """The most specific matching prefix decides; ignore wins a tie.
        ``extra_ignores`` (a file's per-file ignores) always turn a code off."""
        if any(code.startswith(prefix) for prefix in extra_ignores):
            return False
        best_len, enabled = -1, False
        for prefix in self.select:
            if code.startswith(prefix) and len(prefix) > best_len:
                best_len, enabled = len(prefix), True
        for prefix in self.ignore:
            if code.startswith(prefix) and len(prefix) >= best_len:
                best_len, enabled = len(prefix), False
        return enabled

    def file_ignores(self, path: str) -> List[str]:
        out: List[str] = []
        for pattern, codes in self.per_file_ignores.items():
            if path_matches(path, [pattern], self.root):
                out.extend(codes)
        return out

    def rules_for(self, path: str) -> list:
        from tflint_perf.rules import all_rules

        extra = self.file_ignores(path)
        return [r for r in all_rules() if self.is_enabled(r.code, extra)]

    def reports_syntax_errors(self, path: str) -> bool:
        return self.is_enabled(SYNTAX_CODE, self.file_ignores(path))

    def is_excluded(self, path: str) -> bool:
        return path_matches(path, self.exclude, self.root)

    def fingerprint(self) -> str:
        """A stable text of everything that changes which findings a file gets."""
        # root: per-file-ignores patterns are matched relative to it.
        return repr(
            (
                sorted(self.select),
                sorted(self.ignore),
                sorted(self.per_file_ignores.items()),
                str(self.root),
            )
        )


def find_config(start: Path) -> Optional[Path]:
    """The nearest pyproject.toml with a [tool.tflint-perf] table, upward from ``start``."""
    start = start.resolve()
    directory = start if start.is_dir() else start.parent
    for candidate in [directory, *directory.parents]:
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file():
            try:
                data = pyproject.read_bytes()
            except OSError:
                continue  # unreadable (another user's folder): not ours to judge
            if TABLE.encode() not in data:
                continue  # cannot hold [tool.tflint-perf]: skip parsing it
            table = parse_toml(pyproject, data).get("tool", {})
            if isinstance(table, dict) and TABLE in table:
                return pyproject
    return None


def parse_toml(path: Path, data: bytes) -> dict:
    """The TOML document, or a ConfigError naming the file, line and column."""
    tomllib = _toml()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: not UTF-8 ({exc.reason})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
    where = re.search(r"\s*\(at (?:line (\d+), column (\d+)|end of document)\)$", message)
    if where is None:
        raise ConfigError(f"{path}: invalid TOML: {message}")
    reason = message[: where.start()]
    if where.group(1):
        line, column = int(where.group(1)), int(where.group(2))
    else:  # an unterminated string or array: where it starts
        line, column = _opened_at(text, message)
    raise ConfigError(f"{path}:{line}:{column}: invalid TOML: {reason}")


def _opened_at(text: str, message: str):
    """For an error "at end of document": the line and column of the shortest
    prefix of ``text`` that fails with the same message (where the
    unterminated construct opens)."""
    tomllib = _toml()

    def same(prefix: str) -> bool:
        try:
            tomllib.loads(prefix)
        except tomllib.TOMLDecodeError as exc:
            return str(exc) == message
        return False

    lines = text.splitlines(keepends=True)
    before = ""
    for number, line in enumerate(lines, 1):
        if same(before + line):
            column = next((c for c in range(1, len(line) + 1) if same(before + line[:c])), 1)
            return number, column
        before += line
    return max(len(lines), 1), 1


def load_table(path: Path) -> dict:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from None
    data = parse_toml(path, raw)
    if "tool" in data and TABLE in data["tool"]:
        table = data["tool"][TABLE]
    elif path.name == "pyproject.toml":
        table = {}
    else:
        table = data  # a dedicated file: the keys at top level
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.{TABLE}] must be a table")
    return table


def _codes_of(table: dict, key: str, where: str) -> List[str]:
    if key not in table:
        return []
    return validate_codes(_string_list(table[key], f"{where}: {key}"), f"{where}: {key}")


def _read_selection(table: dict, where: str, settings: Settings) -> None:
    selected = _codes_of(table, "select", where)
    extended = _codes_of(table, "extend-select", where)
    settings.ignore = _codes_of(table, "ignore", where)
    refuse_conflicts(selected + extended, settings.ignore, where)
    if "select" in table:
        settings.select = selected
    settings.select += extended


def settings_from_table(table: dict, path: Optional[Path]) -> Settings:
    where = str(path) if path else "configuration"
    unknown = sorted(set(table) - KNOWN_KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key '{unknown[0]}' in [tool.{TABLE}]")
    settings = Settings(
        root=path.parent.resolve() if path else Path.cwd().resolve(), config_path=path
    )
    _read_selection(table, where, settings)
    settings.exclude = _string_list(table.get("exclude", []), f"{where}: exclude")
    settings.exclude += _string_list(table.get("extend-exclude", []), f"{where}: extend-exclude")
    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError(f"{where}: per-file-ignores must be a table of pattern = [codes]")
    for pattern, codes in pfi.items():
        settings.per_file_ignores[pattern] = validate_codes(
            _string_list(codes, f"{where}: per-file-ignores"),
            f"{where}: per-file-ignores.{pattern}",
        )
    verify = table.get("verify", {})
    if not isinstance(verify, dict):
        raise ConfigError(f"{where}: verify must be a table")
    settings.verify = verify
    if "cache-dir" in table:
        if not isinstance(table["cache-dir"], str) or not table["cache-dir"]:
            raise ConfigError(f"{where}: cache-dir must be a path")
        settings.cache_dir = table["cache-dir"]
    return settings


def load_settings(config_file: Optional[str], paths: Sequence[str]) -> Settings:
    if config_file:
        path = Path(config_file)
        return settings_from_table(load_table(path), path)
    start = Path(paths[0]) if paths and paths[0] != "-" else Path.cwd()
    if not start.exists():
        start = Path.cwd()
    found = find_config(start)
    if found is None:
        return Settings(root=Path.cwd().resolve())
    return settings_from_table(load_table(found), found)
