"""``make demo`` shows the product (issue 21 item 17, issue 22 item 5): one
example's finding with its code frame and fix diff, then the ``--verify``
table with each finding once and the report's path; no ignored-error noise;
``--verify`` without TensorFlow names TensorFlow."""

import io
import re
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

import pytest
from conftest import ROOT

MAKEFILE = (ROOT / "Makefile").read_text()


def _recipe(target: str) -> list:
    match = re.search(rf"^{target}:[^\n]*\n((?:\t[^\n]*\n|#[^\n]*\n)*)", MAKEFILE, re.MULTILINE)
    assert match, target
    return [line[1:] for line in match.group(1).splitlines() if line.startswith("\t")]


def test_demo_recipes_ignore_no_errors_and_stop_on_a_real_one():
    for target in ("demo", "verify-demo"):
        for line in _recipe(target):
            assert not line.startswith("-"), line  # make would print "Error 1 (ignored)"
            if "$(BIN)/tflint-perf check" in line:
                assert line.endswith("|| [ $$? -eq 1 ]") or line.endswith("\\"), line


def test_installs_print_errors_only():
    """setuptools prints an "Editable installation" box for this layout; -qq hides it."""
    installs = [line for line in MAKEFILE.splitlines() if " -e '." in line]
    assert installs and all("$(PIP_INSTALL)" in line for line in installs)
    assert re.search(r"^PIP_INSTALL := \$\(BIN\)/python -m pip install -qq$", MAKEFILE, re.M)


def test_the_demo_example_shows_its_frame_and_fix_diff(cli_env):
    example = re.search(r"^DEMO_EXAMPLE := (\S+)$", MAKEFILE, re.MULTILINE).group(1)
    proc = subprocess.run(
        [sys.executable, "-m", "tflint_perf", "check", "--no-cache", example],
        cwd=ROOT,
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[1] == f"  --> {example}:20:13"
    assert "help: Remove the `gc.collect()` call" in lines
    assert any(re.fullmatch(r" +- +gc\.collect\(\)", line) for line in lines)  # the diff


def test_verify_demo_prints_each_finding_once_and_names_the_report():
    (command,) = [line for line in _recipe("verify-demo") if "$(BIN)/tflint-perf" in line]
    assert "--statistics" in command and "--verify-report verify-report.html" in command
    from tflint_perf.verify import cli as verify_cli

    out = io.StringIO()
    verify_cli.write_text(out, Namespace(verify_session=None, verify_report="verify-report.html"))
    assert out.getvalue() == "The report, with every measurement: verify-report.html\n"


def test_verify_without_tensorflow_names_tensorflow(tmp_path):
    """A Python with neither numpy nor TensorFlow: the message is about TensorFlow."""
    from tflint_perf.engine.rule import Finding
    from tflint_perf.verify.options import VerifyOptions
    from tflint_perf.verify.session import verify

    bare = tmp_path / "python"
    bare.write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "$@"\n')  # no site-packages
    bare.chmod(0o755)
    probe = subprocess.run([str(bare), "-c", "import numpy"], capture_output=True)
    if probe.returncode == 0:
        pytest.skip("numpy is importable without site-packages here")
    finding = Finding("t.py", 1, 1, 1, 2, "TFP101", "elementwise-loop", "h")
    stderr = io.StringIO()
    session = verify([("t.py", "x = 1\n", [finding])], VerifyOptions(python=str(bare)), {}, stderr)
    said = session.message + stderr.getvalue()
    assert "No module named 'tensorflow'" in said and "numpy" not in said
    assert f"`{bare} -m pip install tensorflow`" in said
    assert "tflint-perf[" not in said  # not on PyPI: that command cannot work
    assert Path(bare).exists()
