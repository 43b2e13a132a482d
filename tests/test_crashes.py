"""Input that crashes a parser, and workers that die: one file's loss, never the run's.

Each case runs in a child process with a timeout, so a crash or a hang
fails the test instead of taking pytest down with it.
"""

import subprocess
import sys
import textwrap

import pytest

from repo_helpers import LATE_CONFIG

# A loop and a tf.data word: the file passes every screen and would reach LibCST.
LOOP = "import tensorflow as tf\nfor x in tf.data.Dataset.range(3):\n    pass\n"
# CPython accepts it (a flat BoolOp); LibCST nests one level per operand and
# its native parser overflows the C stack (the process dies, exit 139).
NATIVE_CRASH = LOOP + "x = " + " and ".join(["a"] * 10_000) + "\n"
# CPython refuses it (too deeply nested); LibCST parses it slowly or crashes.
TOO_COMPLEX = LOOP + "x = " + " + ".join(["a"] * 7_000) + "\n"


def _run(tmp_path, args, env_extra=None, driver=None, timeout=120):
    import os

    env = dict(os.environ, NO_COLOR="1", **(env_extra or {}))
    cmd = [sys.executable, "-c", driver] if driver else [sys.executable, "-m", "tflint_perf"]
    if args[:1] == ["check"]:  # one line per finding
        args = ["check", "--output-format", "concise", *args[1:]]
    return subprocess.run(
        cmd + args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.mark.parametrize("pool", ["never", "always"])
def test_parser_crash_input_is_tfp000_and_the_run_goes_on(tmp_path, pool):
    (tmp_path / "crash.py").write_text(NATIVE_CRASH)
    (tmp_path / "complex.py").write_text(TOO_COMPLEX)
    for k in range(8):  # enough files for a pool
        (tmp_path / f"other{k}.py").write_text(LATE_CONFIG)
    proc = _run(tmp_path, ["check", "--no-cache", "-j", "2", "."], {"TFLINT_PERF_POOL": pool})
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert "crash.py:4:1: TFP000 not analysed: an expression nested 10,004 levels deep" in (
        "\n".join(lines)
    )
    assert any(
        line.startswith("complex.py:1:1: TFP000 RecursionError: maximum recursion depth")
        for line in lines
    ), proc.stdout
    assert sum(": TFP301 " in line for line in lines) == 8


DRIVER = textwrap.dedent(
    """
    import os, signal, sys
    from tflint_perf.run import parallel
    real = parallel.lint_and_store

    def dies_on_boom(path, *args):
        if path.endswith("boom.py"):
            os.kill(os.getpid(), signal.SIGKILL)
        return real(path, *args)

    parallel.lint_and_store = dies_on_boom
    from tflint_perf.cli import main
    sys.exit(main(sys.argv[1:]))
    """
)


@pytest.mark.parametrize("mode", [[], ["--fix"]])
def test_a_worker_that_dies_costs_its_file_not_the_run(tmp_path, mode):
    (tmp_path / "boom.py").write_text(LATE_CONFIG)
    for k in range(8):
        (tmp_path / f"other{k}.py").write_text(LATE_CONFIG)
    proc = _run(
        tmp_path,
        ["check", "--no-cache", "-j", "2", *mode, "."],
        {"TFLINT_PERF_POOL": "always"},
        driver=DRIVER,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "tflint-perf: error: boom.py: internal error: the worker linting this file died "
        "(signal 9); "
        "the rest of the run went on (please report it)"
    ]
    if mode:  # every other file was fixed
        for k in range(8):
            assert (tmp_path / f"other{k}.py").read_text() != LATE_CONFIG
    else:
        assert sum(": TFP301 " in line for line in proc.stdout.splitlines()) == 8
