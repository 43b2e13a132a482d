"""``--diff-base REF``: keep only findings on lines added or changed since REF.

The comparison is the one a pull request shows: the working tree against the
merge base of REF and HEAD (REF itself when they share no history), from
``git diff --unified=0``. Untracked files (not ignored) count as wholly new;
a renamed file counts only for the lines changed in it. A module finding is
kept when one of its lines (``line``..``end_line``) was added or changed; a
notebook finding is kept when any line of its cell's source was (cells are
the unit of change in a notebook).
"""

from __future__ import annotations

import codecs
import os
import re
import subprocess
from typing import Dict, Iterable, List, Optional, Sequence, Set

from tflint_perf.engine.rule import Finding
from tflint_perf.run.config import ConfigError

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
ALL = None  # marker in Changes.lines: every line is new


def _git(root: str, *args: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(
            ["git", "-C", root, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
    except OSError as exc:
        raise ConfigError(f"--diff-base needs git: {exc.strerror or exc}") from None


def _key(path: str) -> str:
    return os.path.normcase(os.path.realpath(os.path.abspath(path)))


def _unquote(path: str) -> str:
    """A path as git prints it, quoted C-style when it has odd characters."""
    if path.startswith('"') and path.endswith('"'):
        raw = codecs.escape_decode(path[1:-1].encode("utf-8"))[0]
        return raw.decode("utf-8", "surrogateescape")
    return path


def repo_root(path: str) -> str:
    directory = path if os.path.isdir(path) else (os.path.dirname(path) or ".")
    proc = _git(directory, "rev-parse", "--show-toplevel")
    if proc.returncode != 0:
        raise ConfigError(f"--diff-base: {path} is not inside a git repository")
    return proc.stdout.decode("utf-8", "surrogateescape").strip()


def parse_diff(text: str) -> Dict[str, Set[int]]:
    """Added/changed line numbers (new side) per path, from a ``-U0`` diff."""
    out: Dict[str, Set[int]] = {}
    current: Optional[Set[int]] = None
    for line in text.splitlines():
        if line.startswith("+++ "):
            target = line[4:].rstrip("\t")
            if target == "/dev/null":
                current = None
            else:
                target = _unquote(target)
                current = out.setdefault(target[2:] if target.startswith("b/") else target, set())
        elif line.startswith("@@") and current is not None:
            match = _HUNK.match(line)
            if match:
                start, count = int(match.group(1)), int(match.group(2) or 1)
                current.update(range(start, start + count))
    return out


class Changes:
    """What changed since the base, per file."""

    def __init__(self, ref: str) -> None:
        self.ref = ref
        self.lines: Dict[str, Optional[Set[int]]] = {}  # file key -> lines (None: all)
        self.roots: List[str] = []

    def add_repo(self, root: str) -> None:
        if root in self.roots:
            return
        self.roots.append(root)
        base = self._base(root)
        proc = _git(
            root,
            "-c",
            "core.quotepath=off",
            "diff",
            "--unified=0",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--find-renames",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            "--no-relative",
            base,
            "--",
        )
        if proc.returncode != 0:
            message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise ConfigError(
                f"--diff-base: git diff failed: {message[-1] if message else proc.returncode}"
            )
        for rel, lines in parse_diff(proc.stdout.decode("utf-8", "surrogateescape")).items():
            self.lines[_key(os.path.join(root, rel))] = lines
        untracked = _git(root, "ls-files", "--others", "--exclude-standard", "-z")
        for rel in untracked.stdout.decode("utf-8", "surrogateescape").split("\0"):
            if rel:
                self.lines[_key(os.path.join(root, rel))] = ALL

    def _base(self, root: str) -> str:
        """What the working tree is compared with: the merge base of REF and
        HEAD (REF without common history); for ``HEAD`` in a repository with
        no commit yet (pre-commit's hook on the first commit), the empty tree."""
        ref = self.ref
        exists = _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
        if not ref.startswith("-") and exists.returncode == 0:
            merge_base = _git(root, "merge-base", ref, "HEAD")
            if merge_base.returncode == 0 and merge_base.stdout.strip():
                return merge_base.stdout.decode().strip()
            return ref
        if ref in ("HEAD", "@") and _git(root, "symbolic-ref", "--quiet", "HEAD").returncode == 0:
            # An unborn branch: everything staged or present is new.
            empty = subprocess.run(
                ["git", "-C", root, "hash-object", "-t", "tree", "--stdin"],
                input=b"",
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
            if empty.returncode == 0:
                return empty.stdout.decode().strip()
        raise ConfigError(
            f"--diff-base: unknown git revision '{ref}' in {root}"
            " (in CI, fetch it first: actions/checkout with fetch-depth: 0)"
        )

    def touches(self, path: str) -> bool:
        """Whether the file changed at all (unchanged files need no linting)."""
        return _key(path) in self.lines

    def keeps(self, finding: Finding, cell_spans=None) -> bool:
        key = _key(finding.path)
        if key not in self.lines:
            return False
        lines = self.lines[key]
        if lines is ALL:
            return True
        first, last = finding.line, max(finding.end_line, finding.line)
        cell = finding.extra.get("cell")
        if cell is not None and cell_spans is not None:
            first, last = cell_spans(finding.path).get(cell, (first, last))
        return any(n in lines for n in range(first, last + 1))

    def filter(self, findings: Iterable[Finding]) -> List[Finding]:
        from tflint_perf.run.notebooks import cell_file_spans, load_file

        spans: Dict[str, dict] = {}

        def cell_spans(path: str) -> dict:
            if path not in spans:
                notebook = load_file(path)
                spans[path] = cell_file_spans(notebook) if notebook is not None else {}
            return spans[path]

        return [f for f in findings if self.keeps(f, cell_spans)]


def changes_since(ref: str, paths: Sequence[str]) -> Changes:
    """The changes since ``ref`` in the repositories holding ``paths``;
    ConfigError (exit 2) for a path outside git or an unknown ``ref``."""
    if paths == ["-"] or "-" in paths:
        raise ConfigError("--diff-base needs files; it cannot read stdin")
    changes = Changes(ref)
    for path in paths:
        if os.path.exists(path):
            changes.add_repo(repo_root(path))
    return changes
