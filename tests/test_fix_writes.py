"""``--fix`` writes: atomically, keeping the mode, never over a read-only
file or someone's newer edit, never out of the walked tree through a link;
a file it cannot write is one line, the rest is fixed, and the exit is 2."""

import os
import stat

import pytest

from repo_helpers import LATE_CONFIG
from tflint_perf.run import files, writeback


def _fixed(text: str) -> bool:
    return text != LATE_CONFIG and "set_memory_growth" in text


@pytest.fixture
def two(tmp_path):
    """Two files with one fixable finding each."""
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text(LATE_CONFIG)
    return tmp_path


def _names(folder) -> list:
    return sorted(p.name for p in folder.iterdir() if p.name != ".tflint-perf-cache")


def _error(err: str) -> str:
    (line,) = err.strip().splitlines()
    assert "Traceback" not in err
    return line


def test_fix_keeps_the_mode_and_leaves_no_temporary_file(two, check):
    (two / "a.py").chmod(0o750)
    status, _, err = check(two, "--fix", ".")
    assert (status, err) == (0, "")
    assert stat.S_IMODE((two / "a.py").stat().st_mode) == 0o750
    assert _fixed((two / "a.py").read_text()) and _fixed((two / "b.py").read_text())
    assert _names(two) == ["a.py", "b.py"]


def test_a_read_only_file_is_reported_and_left_alone(two, check):
    (two / "a.py").chmod(0o444)
    status, out, err = check(two, "--fix", ".")
    assert status == 2
    assert _error(err) == "tflint-perf: error: a.py: not fixed: the file is read-only"
    assert (two / "a.py").read_text() == LATE_CONFIG
    assert _fixed((two / "b.py").read_text())
    assert out.startswith("a.py:5:5: TFP301")  # still there: reported as it is


def test_permission_denied_on_write_is_one_line(two, check, monkeypatch):
    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(writeback.tempfile, "mkstemp", refuse)
    status, _, err = check(two, "--fix", "--no-cache", "a.py")
    assert status == 2
    assert _error(err) == "tflint-perf: error: a.py: not fixed: cannot write: Permission denied"
    assert (two / "a.py").read_text() == LATE_CONFIG


def test_a_write_failing_half_way_leaves_the_file_whole(two, check, monkeypatch):
    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writeback.os, "fsync", disk_full)
    status, _, err = check(two, "--fix", "a.py")
    assert status == 2
    assert "not fixed: cannot write: No space left on device" in _error(err)
    assert (two / "a.py").read_text() == LATE_CONFIG
    assert _names(two) == ["a.py", "b.py"]


def test_a_file_changed_on_disk_since_it_was_read_is_not_overwritten(two, check, monkeypatch):
    real = files._lint_text
    edited = LATE_CONFIG + "# saved by an editor meanwhile\n"

    def lint_then_edit(source, path, *args):
        result = real(source, path, *args)
        if path == "a.py":
            (two / "a.py").write_text(edited)
        return result

    monkeypatch.setattr(files, "_lint_text", lint_then_edit)
    status, _, err = check(two, "--fix", "--no-cache", ".")
    assert status == 2
    assert "a.py: not fixed: the file changed on disk" in _error(err)
    assert (two / "a.py").read_text() == edited
    assert _fixed((two / "b.py").read_text())


def test_a_symlink_named_is_written_through(two, check):
    os.symlink("a.py", two / "link.py")
    status, _, _ = check(two, "--fix", "link.py")
    assert status == 0
    assert (two / "link.py").is_symlink()
    assert _fixed((two / "a.py").read_text())


def test_symlinks_out_of_the_walked_tree_are_not_followed(tmp_path, check):
    outside = tmp_path / "outside.py"
    outside.write_text(LATE_CONFIG)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "own.py").write_text(LATE_CONFIG)
    os.symlink(outside, tree / "escape.py")
    os.symlink(tmp_path, tree / "escape_dir")
    os.symlink("own.py", tree / "alias.py")  # inside: linted once, as own.py
    status, out, _ = check(tmp_path, "--fix", "--unsafe-fixes", "tree")
    assert status == 0, out
    assert outside.read_text() == LATE_CONFIG
    assert _fixed((tree / "own.py").read_text())
    assert "Fixed 1 finding." in out


def test_diff_and_check_never_write(two, check, monkeypatch):
    def no_write(*args):
        raise AssertionError("wrote a file")

    monkeypatch.setattr(writeback, "replace_text", no_write)
    assert check(two, "--diff", ".")[0] == 1
    assert check(two, ".")[0] == 1
