import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


@pytest.fixture
def cli_env():
    """Environment for CLI subprocesses: no colour (tflint-perf is installed)."""
    env = dict(os.environ)
    env["NO_COLOR"] = "1"
    return env


@pytest.fixture
def check(capsys, monkeypatch):
    """``tflint-perf check ARGS`` in this process, from ``folder``: (exit status,
    stdout, stderr). Faster than a subprocess; argparse's exit is a status too.
    Output is one line per finding (``concise``) unless ARGS name a format."""
    from tflint_perf.cli import main

    monkeypatch.setenv("NO_COLOR", "1")

    def run(folder, *args):
        monkeypatch.chdir(folder)
        try:
            status = main(["check", "--output-format", "concise", *map(str, args)])
        except SystemExit as exc:
            status = exc.code
        out, err = capsys.readouterr()
        return status, out, err

    return run


try:  # the property tests' budgets (tests/test_properties.py)
    from hypothesis import HealthCheck, settings

    _COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
    # make test: few examples, the same ones every run (no flaky CI), no database.
    settings.register_profile(
        "default", max_examples=20, derandomize=True, database=None, **_COMMON
    )
    # make smoke: many more, fresh each run.
    settings.register_profile("smoke", max_examples=400, database=None, **_COMMON)
    settings.load_profile(os.environ.get("TFLINT_HYPOTHESIS", "default"))
except ImportError:  # pragma: no cover - hypothesis is in the dev extra
    pass
