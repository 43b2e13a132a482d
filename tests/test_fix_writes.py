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


# -- issue 21, item 12: hard links, a disk that fills, SIGTERM ---------------------


def test_a_hard_linked_file_is_fixed_in_place(two, check):
    os.link(two / "a.py", two / "other_name.py")
    inode = (two / "a.py").stat().st_ino
    status, _, err = check(two, "--fix", "a.py")
    assert (status, err) == (0, "")
    assert (two / "a.py").stat().st_ino == inode  # the same file, not a new one
    assert _fixed((two / "other_name.py").read_text())  # every name sees the fix


def test_a_hard_linked_file_stays_whole_when_the_disk_fills(two, check, monkeypatch):
    os.link(two / "a.py", two / "other_name.py")

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writeback.os, "fsync", disk_full)
    status, _, err = check(two, "--fix", "--no-cache", "a.py")
    assert status == 2
    assert "not fixed: cannot write: No space left on device" in _error(err)
    assert (two / "other_name.py").read_text() == LATE_CONFIG


def test_a_cache_that_fills_the_disk_mid_run_is_said_once(tmp_path, check, monkeypatch):
    from tflint_perf.run import cache

    for k in range(4):
        (tmp_path / f"f{k}.py").write_text(LATE_CONFIG)
    real = cache._write_atomic

    def full_for_entries(target, payload):
        if str(target).endswith(".json"):
            raise OSError(28, "No space left on device")
        real(target, payload)

    monkeypatch.setattr(cache, "_write_atomic", full_for_entries)
    status, out, err = check(tmp_path, "-j", "1", ".")
    assert status == 1 and out.count("TFP301") == 4
    assert err.splitlines() == [
        f"tflint-perf: warning: cannot write the cache in {tmp_path / '.tflint-perf-cache'}:"
        " No space left on device; running without it"
    ]


SIGTERM_DRIVER = """
import os, sys, time
from tflint_perf.run import parallel
real = parallel.lint_and_store

def slow(path, *args):
    with open(os.path.join(os.environ["PIDS"], str(os.getpid())), "w"):
        pass
    time.sleep(0.5)
    return real(path, *args)

parallel.lint_and_store = slow
from tflint_perf.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("mode", [[], ["--fix"]])
def test_sigterm_ends_a_pool_run_quietly_with_its_workers(tmp_path, mode):
    import signal
    import subprocess
    import sys
    import time

    tree, pids = tmp_path / "tree", tmp_path / "pids"
    tree.mkdir()
    pids.mkdir()
    for k in range(12):
        (tree / f"f{k}.py").write_text(LATE_CONFIG)
    env = dict(os.environ, TFLINT_PERF_POOL="always", PIDS=str(pids), NO_COLOR="1")
    cmd = [sys.executable, "-c", SIGTERM_DRIVER, "check", "--no-cache", "-j", "2", *mode, "."]
    proc = subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while len(list(pids.iterdir())) < 2 and time.time() < deadline:  # both workers busy
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, out, err) == (143, b"", b"")
    alive = {int(p.name) for p in pids.iterdir()}
    for _ in range(100):  # the workers end with the run (no orphans)
        for pid in list(alive):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                alive.discard(pid)
        if not alive:
            break
        time.sleep(0.05)
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    assert not alive, "workers outlived the run"
    for path in tree.iterdir():  # each file whole: as it was, or fixed
        assert path.suffix == ".py", path
        assert path.read_text() == LATE_CONFIG or _fixed(path.read_text())
