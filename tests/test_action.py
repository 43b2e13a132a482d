"""The composite GitHub Action (action.yml), run as the runner would: each
step's bash script with its ``env`` (expressions filled in), in a temporary
git repository checked out like a pull request."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from repo_helpers import LATE_CONFIG, cli_environment, commit_all, git, init_repo

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parent.parent
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
STEPS = {step["name"]: step for step in ACTION["runs"]["steps"]}
EXPRESSION = re.compile(r"\$\{\{\s*([\w.-]+)\s*\}\}")
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git missing")


def _context(inputs: dict, outputs: dict) -> dict:
    values = {f"inputs.{k}": str(v.get("default", "")) for k, v in ACTION["inputs"].items()}
    values.update({f"inputs.{k}": v for k, v in inputs.items()})
    values.update({f"steps.install.outputs.{k}": v for k, v in outputs.items()})
    return values  # github.*: none is used (action_repository may be empty in a composite)


def run_step(name: str, cwd: Path, env: dict, inputs=None, outputs=None):
    """Run one step's script with bash, as the runner does."""
    step = STEPS[name]
    assert step["shell"] == "bash" and "${{" not in step["run"]  # no expression in scripts
    context = _context(inputs or {}, outputs or {})
    step_env = dict(env)
    for key, value in step.get("env", {}).items():
        step_env[key] = EXPRESSION.sub(lambda m: context[m.group(1)], str(value))
    return subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", step["run"]],
        cwd=cwd,
        env=step_env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture
def pull_request(tmp_path):
    """A clone of a repository whose main has old.py (a finding), on a branch
    that adds new.py (a finding) and clean.py; GITHUB_BASE_REF=main."""
    env = cli_environment(tmp_path)
    upstream = init_repo(tmp_path / "upstream", env)
    (upstream / "old.py").write_text(LATE_CONFIG)
    commit_all(upstream, "main", env)
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(upstream), str(work), env=env)
    git(work, "checkout", "-q", "-b", "feature", env=env)
    (work / "new.py").write_text(LATE_CONFIG)
    (work / "clean.py").write_text("x = 1\n")
    commit_all(work, "feature", env)
    env.update(GITHUB_BASE_REF="main", GITHUB_ACTION_PATH=str(ROOT), RUNNER_TEMP=str(tmp_path))
    return work, env


TOOL = {"bin": str(Path(sys.executable).parent / "tflint-perf")}


def _annotations(out: str):
    return [line for line in out.splitlines() if line.startswith("::")]


def test_annotates_the_changed_lines_and_sarif_covers_the_repository(pull_request):
    work, env = pull_request
    proc = run_step("Run tflint-perf", work, env, {"sarif-file": "out.sarif"}, TOOL)
    assert proc.returncode == 1, proc.stderr
    (annotation,) = _annotations(proc.stdout)
    assert annotation.startswith("::warning file=new.py,line=5,")
    results = json.loads((work / "out.sarif").read_text())["runs"][0]["results"]
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results]
    assert uris == ["new.py", "old.py"]  # code scanning wants full results
    # The cache is kept outside the checkout, where a pull request cannot plant one.
    assert not (work / ".tflint-perf-cache").exists()
    assert (Path(env["RUNNER_TEMP"]) / "tflint-perf-cache").is_dir()


def test_past_githubs_ten_annotations_every_finding_is_in_the_job_summary(pull_request):
    work, env = pull_request
    for k in range(12):
        (work / f"many{k:02}.py").write_text(LATE_CONFIG)
    env["GITHUB_STEP_SUMMARY"] = str(work.parent / "summary.md")
    proc = run_step("Run tflint-perf", work, env, {}, TOOL)
    assert proc.returncode == 1, proc.stderr
    assert len(_annotations(proc.stdout)) == 14  # 13 warnings and the notice
    assert proc.stdout.splitlines()[-1].startswith("::notice title=tflint-perf::13 findings;")
    summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text()
    assert summary.startswith("### tflint-perf: 13 findings\n")
    assert sum(": TFP301 " in line for line in summary.splitlines()) == 13


def test_every_finding_off_a_pull_request_and_extra_args(pull_request):
    work, env = pull_request
    del env["GITHUB_BASE_REF"]  # a push: no base branch
    proc = run_step("Run tflint-perf", work, env, {"args": "--exit-zero  --select TFP3"}, TOOL)
    assert proc.returncode == 0, proc.stderr
    assert [a.split(",")[0] for a in _annotations(proc.stdout)] == [
        "::warning file=new.py",
        "::warning file=old.py",
    ]
    assert not (work / "out.sarif").exists()


def test_paths_and_an_explicit_diff_base(pull_request):
    work, env = pull_request
    inputs = {"paths": "clean.py\nold.py", "diff-base": "HEAD"}
    proc = run_step("Run tflint-perf", work, env, inputs, TOOL)
    assert (proc.returncode, proc.stdout) == (0, "")


@pytest.mark.parametrize("arg", ["--verify", "--verify-timeout=5"])
def test_verify_is_never_enabled(pull_request, arg):
    work, env = pull_request
    proc = run_step("Run tflint-perf", work, env, {"args": f"-q {arg}"}, TOOL)
    assert proc.returncode == 2
    assert proc.stdout.startswith("::error title=tflint-perf::") and "never" in proc.stdout


def test_no_command_of_the_action_enables_verify():
    script = STEPS["Run tflint-perf"]["run"]
    calls = [line for line in script.splitlines() if '"$TFLINT_PERF_BIN" check' in line]
    assert len(calls) == 3 and not any("verify" in line for line in calls)


@pytest.mark.network  # pip installs the action's checkout (and LibCST) from PyPI
def test_install_step_installs_the_actions_own_ref(tmp_path):
    env = cli_environment(tmp_path)
    source = tmp_path / "action"
    shutil.copytree(
        ROOT, source, ignore=shutil.ignore_patterns(".venv", ".git", "build", "*.egg-info")
    )
    outputs = tmp_path / "github_output"
    env.update(
        GITHUB_ACTION_PATH=str(source), RUNNER_TEMP=str(tmp_path), GITHUB_OUTPUT=str(outputs)
    )
    env.pop("PYTHONPATH", None)
    proc = run_step("Install tflint-perf", tmp_path, env, {"python": sys.executable})
    assert proc.returncode == 0, proc.stderr
    (line,) = outputs.read_text().splitlines()
    assert line == f"bin={tmp_path}/tflint-perf-venv/bin/tflint-perf"
    assert proc.stdout.startswith("tflint-perf ")
    assert os.access(line[len("bin=") :], os.X_OK)
