"""``.gitignore`` and ``.git/info/exclude`` are respected as ruff respects them
(issue 21, item 9): inside a git work tree, by default, for what a walk
meets; ``--no-respect-gitignore`` turns it off; ``--fix`` never writes an
ignored file."""

import pytest

from repo_helpers import LATE_CONFIG
from tflint_perf.run.gitignore import GitIgnore


@pytest.fixture
def repo(tmp_path):
    """A work tree (a ``.git`` folder is all it takes; no git command runs)."""
    (tmp_path / ".git" / "info").mkdir(parents=True)
    for name in ("src/train.py", "build2/gen.py", "src/gen_model.py", "notes/keep.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(LATE_CONFIG)
    (tmp_path / ".gitignore").write_text("build2/\n*_model.py\n")
    (tmp_path / ".git" / "info" / "exclude").write_text("notes\n")
    return tmp_path


def _paths(out: str):
    return sorted(line.split(":")[0] for line in out.splitlines() if ": TFP" in line)


def test_ignored_files_are_neither_linted_nor_fixed(repo, check):
    assert _paths(check(repo, ".")[1]) == ["src/train.py"]
    status, _, _ = check(repo, "--fix", ".")
    assert status == 0
    assert (repo / "build2" / "gen.py").read_text() == LATE_CONFIG
    assert (repo / "src" / "gen_model.py").read_text() == LATE_CONFIG
    assert (repo / "src" / "train.py").read_text() != LATE_CONFIG


def test_no_respect_gitignore_lints_them(repo, check):
    out = check(repo, "--no-respect-gitignore", ".")[1]
    assert _paths(out) == ["build2/gen.py", "notes/keep.py", "src/gen_model.py", "src/train.py"]


def test_a_named_file_is_linted_unless_force_exclude(repo, check):
    assert _paths(check(repo, "src/gen_model.py")[1]) == ["src/gen_model.py"]
    assert _paths(check(repo, "--force-exclude", "src/gen_model.py", "build2/gen.py")[1]) == []


def test_outside_a_work_tree_gitignore_is_not_read(repo, check):
    (repo / ".git" / "info" / "exclude").unlink()
    (repo / ".git" / "info").rmdir()
    (repo / ".git").rmdir()
    assert len(_paths(check(repo, ".")[1])) == 4


@pytest.mark.parametrize(
    "patterns, path, is_dir, ignored",
    [
        ("*.py\n!keep.py\n", "a/keep.py", False, False),  # the last match decides
        ("/top.py\n", "top.py", False, True),  # anchored to the file's folder
        ("/top.py\n", "a/top.py", False, False),
        ("a/*.py\n", "a/b/c.py", False, False),  # * stops at /
        ("a/**/c.py\n", "a/c.py", False, True),  # ** matches zero folders
        ("a/**/c.py\n", "a/x/y/c.py", False, True),
        ("**/gen\n", "x/gen", True, True),
        ("out/\n", "out", False, False),  # folders only
        ("out/\n", "out", True, True),
        ("\\#x.py\n# comment\n", "#x.py", False, True),
        ("x.py   \n", "x.py", False, True),  # trailing spaces dropped
        ("[ab].py\n", "b.py", False, True),
        ("[!ab].py\n", "b.py", False, False),
    ],
)
def test_patterns_as_git_reads_them(tmp_path, patterns, path, is_dir, ignored):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text(patterns)
    assert GitIgnore().ignored(str(tmp_path / path), is_dir) is ignored


def test_a_deeper_gitignore_wins_and_an_ignored_folder_keeps_its_files_ignored(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("*.py\nvendor/\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / ".gitignore").write_text("!keep.py\n")
    ignore = GitIgnore()
    assert not ignore.ignored(str(tmp_path / "pkg" / "keep.py"))
    assert ignore.ignored(str(tmp_path / "pkg" / "other.py"))
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / ".gitignore").write_text("!*\n")
    assert ignore.ignored(str(tmp_path / "vendor" / "keep.py"))


def test_a_worktree_reads_the_common_info_exclude(tmp_path):
    common = tmp_path / "main.git"
    (common / "info").mkdir(parents=True)
    (common / "info" / "exclude").write_text("secret.py\n")
    (common / "worktrees" / "wt").mkdir(parents=True)
    (common / "worktrees" / "wt" / "commondir").write_text("../..\n")
    tree = tmp_path / "wt"
    tree.mkdir()
    (tree / ".git").write_text(f"gitdir: {common / 'worktrees' / 'wt'}\n")
    assert GitIgnore().ignored(str(tree / "secret.py"))
