"""--verify under faults: code that raises, exits, forks, hangs, eats memory, floods stderr, moves or deletes files.

Plain-Python workers (no TensorFlow), short timeouts and a 256 MiB memory
limit keep these cheap. Each case checks that the finding ends in a clear
verdict within the time limit, that a healthy file verified in the same run
still gets its result, that no process the code started is left (every
process carrying this test's marker in its environment is gone), and that
the user's files are untouched (the code runs in a temporary directory).
"""

import os
import sys
import textwrap
import time
import uuid
from io import StringIO
from pathlib import Path

import pytest

from tflint_perf.engine.rule import Edit, Finding, Fix
from tflint_perf.engine.verification import Input, InputKind, Verification
from tflint_perf.verify.options import VerifyOptions
from tflint_perf.verify.session import verify

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="process cleanup is checked through /proc"
)
TIMEOUT = 3.0
MEMORY = 256 * 2**20


class RowRule:
    """A rule --verify has never heard of: it only declares its contract."""

    verification = Verification(inputs=(Input("iterated", InputKind.ROWS),))


RULES = {"XYZ001": RowRule}

HEAD = "import os, sys, time, signal, subprocess\nimport numpy as np\n\n\ndef total(x):\n"
ROWS = "    return np.array([float(r.sum()) for r in x])\n"
FIX = "    return x.sum(axis=1).astype(float)"  # put before line 6, the first of the body
CALL = 'if __name__ == "__main__":\n    total(np.ones((4, 2)))\n'


def _module(*body: str, main: str = CALL) -> str:
    """``total(x)`` with ``body`` first (line 6 on), then the per-row loop; __main__ calls it."""
    return HEAD + "".join(f"    {line}\n" for line in body) + ROWS + "\n\n" + main


T = f"timed out after {TIMEOUT:g} s"
# name: (module, expected status or None for "equal results", words in the reason or where)
FAULTS = {
    "raise": (_module("raise ValueError('boom')"), "failed", ["ValueError: boom (line 6)"]),
    "sys.exit": (_module("sys.exit(3)"), "failed", ["sys.exit(3) (line 6): the module exited"]),
    "os._exit": (_module("os._exit(7)"), "failed", ["the code called os._exit(7) at line 6"]),
    "fork, child outlives the worker": (
        _module("if os.fork() == 0:", "    time.sleep(600)", "    os._exit(0)", "os._exit(1)"),
        "failed",
        ["the code called os._exit(1) at line 9"],
    ),
    "setsid child, double fork, then hang": (
        _module(
            "if os.fork() == 0:",
            "    os.setsid()",
            "    subprocess.Popen(['sleep', '600'], start_new_session=True)",
            "    if os.fork() == 0:",
            "        time.sleep(600)",
            "    os._exit(0)",
            "while True: pass",  # one line: the hang is reported at it whatever the timing
        ),
        "failed",
        [f"{T} at line 12 (in `total`)", "every process it started were killed"],
    ),
    "infinite loop": (
        _module("while True: pass"),
        "failed",
        [f"{T} at line 6 (in `total`)"],
    ),
    "sleep": (_module("time.sleep(600)"), "failed", [f"{T} at line 6 (in `total`)"]),
    "__main__ hangs before the call": (
        _module(
            main='if __name__ == "__main__":\n    time.sleep(600)\n    total(np.ones((4, 2)))\n'
        ),
        None,  # said so, then measured without the __main__ block, on synthesised rows
        [
            "the module's __main__ block hung at line 10 before calling `total`",
            "synthesised inputs",
        ],
    ),
    "allocate until the memory limit": (
        _module("blocks = [bytearray(2**20) for _ in range(100000)]"),
        "failed",
        ["MemoryError: out of memory (the memory limit is 256 MiB) (line 6)"],
    ),
    "print 50 MB, then raise": (
        _module(
            "for _ in range(50):", "    print('x' * 2**20)", "raise ValueError('after the flood')"
        ),
        "failed",
        ["ValueError: after the flood (line 8)"],
    ),
    "segmentation fault": (
        _module("import ctypes", "ctypes.string_at(0)"),
        "failed",
        ["crashed with SIGSEGV at line 7 (in `total`)"],
    ),
    "killed by SIGKILL": (
        _module("os.kill(os.getpid(), signal.SIGKILL)"),
        "failed",
        ["killed by SIGKILL, probably out of memory"],
    ),
    "chdir and write files": (
        _module(
            "os.makedirs('out', exist_ok=True)",
            "os.chdir('out')",
            "open('notes.txt', 'w').write('x')",
        ),
        None,
        ["at its call site"],
    ),
    "delete files": (
        _module("os.remove('data.csv')"),
        "failed",
        ["FileNotFoundError", "data.csv", "(line 6)"],
    ),
}


def _finding(path, line, new):
    """The fix puts ``new`` before ``line`` (the rest of the body becomes dead code)."""
    fix = Fix((Edit(line, 0, line, 0, new + "\n"),))
    return Finding(path, line, 1, line, 1, "XYZ001", "t", "m", fix)


def _processes_with(marker: str) -> list:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                environ = Path(f"/proc/{entry}/environ").read_bytes()
            except OSError:
                continue
            if marker.encode() in environ:
                found.append(int(entry))
    return found


def _files(folder: Path) -> dict:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


@pytest.mark.parametrize("name", list(FAULTS))
def test_fault_ends_in_a_clear_verdict_and_leaves_nothing_behind(name, tmp_path, monkeypatch):
    source, status, words = FAULTS[name]
    marker = f"TFLINT_PERF_FAULT_TEST_{uuid.uuid4().hex}"
    monkeypatch.setenv(marker, "1")
    user = tmp_path / "project"
    user.mkdir()
    (user / "data.csv").write_text("a,b\n1,2\n")
    (user / "notes.txt").write_text("mine\n")
    bad = user / "bad.py"
    bad.write_text(source)
    good = user / "good.py"
    good.write_text(_module())
    monkeypatch.chdir(user)
    before = _files(user)
    findings = {str(p): [_finding(str(p), 6, FIX)] for p in (bad, good)}
    options = VerifyOptions(
        root=user, python=sys.executable, tf_module=None, timeout=TIMEOUT, memory_limit=MEMORY
    )
    start = time.monotonic()
    verify([(p, Path(p).read_text(), f) for p, f in findings.items()], options, RULES, StringIO())
    elapsed = time.monotonic() - start

    v = findings[str(bad)][0].extra["verify"]
    if status is None:  # the fault is not in the flagged code: it is then compared and timed
        assert v["equal"] is True, v
    else:
        assert v["status"] == status, v
    for word in words:
        assert word in v["reason"] + v.get("where", ""), v
    assert findings[str(good)][0].extra["verify"]["equal"] is True  # the run went on
    # the probe, and at most two time limits (a hang, then the run without __main__)
    assert elapsed < 2 * TIMEOUT + 20, elapsed
    deadline = time.monotonic() + 5
    while _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_with(marker) == []
    assert _files(user) == before


def test_worker_source_is_the_file_folder_on_sys_path_not_cwd(tmp_path, monkeypatch):
    """A helper module next to the file is importable; the working directory is a temporary one."""
    (tmp_path / "helper.py").write_text("SCALE = 3\n")
    path = tmp_path / "m.py"
    path.write_text(
        textwrap.dedent(
            """\
            import os
            import numpy as np
            from helper import SCALE

            y = np.ones(3) * SCALE + len(os.listdir("."))
            """
        )
    )
    finding = _finding(str(path), 5, 'y = np.ones(3) * SCALE + len(os.listdir("."))')
    options = VerifyOptions(root=tmp_path, python=sys.executable, tf_module=None, timeout=TIMEOUT)
    verify([(str(path), path.read_text(), [finding])], options, RULES, StringIO())
    assert finding.extra["verify"]["equal"] is True, finding.extra["verify"]
