"""What ``.gitignore`` files and ``.git/info/exclude`` ignore, read as git reads them.

Inside a git work tree only (as ruff and git do): the ``.gitignore`` of each
folder from the repository's root down to the file, and the repository's
``info/exclude``. The last matching pattern decides, deeper files over
shallower ones; ``!`` re-includes; a pattern with a ``/`` before its end is
anchored to its file's folder, one without matches a name at any depth; a
trailing ``/`` matches folders only; ``**`` matches any number of folders.
A file in an ignored folder is ignored (git cannot re-include it either).
Like ruff, a tracked file is ignored when a pattern matches it (no git
command runs: this reads files only).
"""

from __future__ import annotations

import os
import re
from typing import Dict, List, Optional, Pattern, Tuple

# (regex over the path relative to the pattern's folder or over the name,
# anchored, negated, folders only)
_Rule = Tuple[Pattern, bool, bool, bool]


def _translate(glob: str) -> str:
    """A gitignore glob (no leading ``/``) as a regex over ``/``-separated paths."""
    out, i, n = [], 0, len(glob)
    while i < n:
        c = glob[i]
        if glob.startswith("**/", i) and (i == 0 or glob[i - 1] == "/"):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i) and i + 2 == n and (i == 0 or glob[i - 1] == "/"):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(glob[i + 1]))
            i += 2
        elif c == "[":
            end = glob.find("]", i + 2 if glob[i + 1 : i + 2] in ("!", "^", "]") else i + 1)
            if end < 0:
                out.append(re.escape(c))
                i += 1
                continue
            body = glob[i + 1 : end]
            if body[:1] in ("!", "^"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def parse(text: str) -> List[_Rule]:
    rules = []
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        stripped = line.rstrip(" ")
        if stripped.endswith("\\") and len(stripped) < len(line):
            stripped += " "  # "\ " keeps one trailing space
        line = stripped
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        elif line.startswith("\\!") or line.startswith("\\#"):
            line = line[1:]
        folders_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        try:
            regex = re.compile(_translate(line) + r"\Z", re.DOTALL)
        except re.error:
            continue  # git skips a pattern it cannot read; so do we
        rules.append((regex, anchored, negated, folders_only))
    return rules


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def _info_exclude(root: str) -> str:
    """``info/exclude`` of the repository at ``root`` (``.git`` a folder, or a
    worktree's ``gitdir:`` file pointing at one)."""
    dot_git = os.path.join(root, ".git")
    git_dir = dot_git
    if os.path.isfile(dot_git):
        first = _read(dot_git).strip()
        if not first.startswith("gitdir:"):
            return ""
        git_dir = os.path.join(root, first[len("gitdir:") :].strip())
        common = _read(os.path.join(git_dir, "commondir")).strip()
        if common:
            git_dir = os.path.join(git_dir, common)
    return _read(os.path.join(git_dir, "info", "exclude"))


class GitIgnore:
    """Answers "is this path ignored?", reading each folder's files once."""

    def __init__(self) -> None:
        self._roots: Dict[str, Optional[str]] = {}
        self._rules: Dict[str, List[_Rule]] = {}
        self._verdicts: Dict[str, bool] = {}  # folders already decided
        self._chains: Dict[str, List[Tuple[str, List[_Rule]]]] = {}

    def _root(self, folder: str) -> Optional[str]:
        """The work tree holding ``folder``, or None."""
        if folder not in self._roots:
            parent = os.path.dirname(folder)
            if os.path.lexists(os.path.join(folder, ".git")):
                self._roots[folder] = folder
            elif parent == folder:
                self._roots[folder] = None
            else:
                self._roots[folder] = self._root(parent)
        return self._roots[folder]

    def _folder_rules(self, folder: str, root: str) -> List[_Rule]:
        if folder not in self._rules:
            text = _read(os.path.join(folder, ".gitignore"))
            if folder == root:
                text = _info_exclude(root) + "\n" + text
            self._rules[folder] = parse(text)
        return self._rules[folder]

    def ignored(self, path: str, is_dir: bool = False) -> bool:
        """Whether git ignores ``path`` (or one of the folders it is in)."""
        path = os.path.abspath(path)
        folder = os.path.dirname(path)
        root = self._root(folder)
        if root is None or path == root:
            return False
        if folder != root and self._folder_ignored(folder, root):
            return True
        return self._matches(path, is_dir, root)

    def ignored_entry(self, path: str, is_dir: bool) -> bool:
        """Whether a pattern ignores ``path`` itself, met while walking a folder
        (whose own folders were not ignored, or the walk would not be here)."""
        path = os.path.abspath(path)
        root = self._root(os.path.dirname(path))
        return root is not None and self._matches(path, is_dir, root)

    def _folder_ignored(self, folder: str, root: str) -> bool:
        if folder not in self._verdicts:
            parent = os.path.dirname(folder)
            self._verdicts[folder] = (
                parent != root and self._folder_ignored(parent, root)
            ) or self._matches(folder, True, root)
        return self._verdicts[folder]

    def _chain(self, folder: str, root: str) -> List[Tuple[str, List[_Rule]]]:
        """The folders from ``root`` down to ``folder`` that have patterns, with them."""
        if folder not in self._chains:
            above = [] if folder == root else self._chain(os.path.dirname(folder), root)
            rules = self._folder_rules(folder, root)
            self._chains[folder] = above + [(folder, rules)] if rules else above
        return self._chains[folder]

    def _matches(self, path: str, is_dir: bool, root: str) -> bool:
        """The last pattern that matches decides, from the root's files down."""
        name = os.path.basename(path)
        verdict = False
        for folder, rules in self._chain(os.path.dirname(path), root):
            relative = path[len(folder) :].lstrip(os.sep).replace(os.sep, "/")
            for regex, anchored, negated, folders_only in rules:
                if folders_only and not is_dir:
                    continue
                if regex.match(relative if anchored else name):
                    verdict = not negated
        return verdict
