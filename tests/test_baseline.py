"""--baseline / --write-baseline with the real CLI in temporary git repositories."""

import json
import shutil
from pathlib import Path

import pytest

from repo_helpers import (
    LATE_CONFIG,
    LATE_CONFIG_IN_FUNCTION,
    cli_environment,
    commit_all,
    findings_json,
    git,
    init_repo,
    notebook,
    tflint,
    where,
)


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    return cli_environment(tmp_path_factory.mktemp("home"))


@pytest.fixture(scope="module")
def template(tmp_path_factory, env):
    """A repository with a backlog of two findings and a baseline of them."""
    repo = init_repo(tmp_path_factory.mktemp("template") / "repo", env)
    (repo / "src").mkdir()
    (repo / "src" / "train.py").write_text(
        LATE_CONFIG + LATE_CONFIG_IN_FUNCTION.format(name="warm")
    )
    proc = tflint(repo, "src", "--write-baseline", "tflint-baseline.json", env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr == "tflint-perf: wrote 2 findings to tflint-baseline.json\n"
    commit_all(repo, "adopt tflint-perf", env)
    return repo


@pytest.fixture
def repo(template, tmp_path):
    return Path(shutil.copytree(template, tmp_path / "repo"))


def check(repo, env, *args, stdin=None):
    return tflint(repo, "--baseline", "tflint-baseline.json", *args, env=env, stdin=stdin)


def test_baseline_file_is_readable_and_stable(repo, env):
    data = json.loads((repo / "tflint-baseline.json").read_text())
    assert data["tool"] == "tflint-perf" and data["format"] == 1
    entries = data["findings"]
    assert [(e["path"], e["code"], e["count"]) for e in entries] == [
        ("src/train.py", "TFP301", 1)
    ] * 2
    assert sorted(e["text"] for e in entries) == [
        "tf.config.experimental.set_memory_growth(device, True)",
        "tf.config.experimental.set_memory_growth(gpu, True)",
    ]
    assert all("line" not in e for e in entries)  # no line numbers: edits above do not invalidate
    before = (repo / "tflint-baseline.json").read_text()
    tflint(repo, "src", "--write-baseline", "tflint-baseline.json", env=env)
    assert (repo / "tflint-baseline.json").read_text() == before


def test_recorded_findings_are_not_reported(repo, env):
    proc = check(repo, env, "src")
    assert proc.returncode == 0, proc.stdout
    assert "All checks passed!" in proc.stdout
    assert proc.stderr == "tflint-perf: 2 findings in the baseline not shown\n"
    assert check(repo, env, "src", "--quiet").stderr == ""


def test_unrelated_edits_and_reformatting_keep_entries_valid(repo, env):
    path = repo / "src" / "train.py"
    text = path.read_text()
    text = '"""Training entry point."""\n\nimport os\n' + text  # lines above
    text = text.replace(
        "set_memory_growth(gpu, True)", "set_memory_growth( gpu,  True )"
    )  # reformatted
    text = text.replace(
        "    warmup = tf.zeros([8])", "    # Warm the kernels.\n    warmup = tf.zeros([8])"
    )
    path.write_text(text)
    commit_all(repo, "edits", env)
    proc = check(repo, env, "src")
    assert proc.returncode == 0, proc.stdout


def test_only_new_findings_are_reported(repo, env):
    path = repo / "src" / "train.py"
    path.write_text(
        path.read_text()
        + LATE_CONFIG_IN_FUNCTION.format(name="warm_again").replace("device", "accelerator")
    )
    (repo / "src" / "eval.py").write_text(LATE_CONFIG)
    findings = findings_json(check(repo, env, "src", "--format", "json"))
    assert where(findings) == ["src/eval.py:5 TFP301", "src/train.py:18 TFP301"]
    proc = check(repo, env, "src")
    assert proc.returncode == 1
    assert "2 findings in the baseline not shown" in proc.stderr


def test_identical_lines_are_counted(repo, env):
    """A third copy of an already recorded line is new; the first ones are not."""
    path = repo / "src" / "train.py"
    path.write_text(path.read_text() + LATE_CONFIG_IN_FUNCTION.format(name="warm_again"))
    proc = check(repo, env, "src", "--format", "json")
    assert where(findings_json(proc)) == ["src/train.py:18 TFP301"]


def test_fixed_findings_are_announced_as_stale(repo, env):
    path = repo / "src" / "train.py"
    path.write_text(path.read_text().replace("scale = tf.constant(2.0)\n", ""))
    proc = check(repo, env, "src")
    assert proc.returncode == 0
    assert "1 baseline entry matched nothing (fixed?)" in proc.stderr
    # A file not linted this time is not stale: pre-commit passes a few files.
    (repo / "other.py").write_text("x = 1\n")
    proc = check(repo, env, "other.py")
    assert proc.returncode == 0 and proc.stderr == ""


def test_paths_are_relative_to_the_baseline_file(repo, env):
    proc = tflint(repo / "src", "--baseline", "../tflint-baseline.json", "train.py", env=env)
    assert proc.returncode == 0, proc.stdout
    proc = tflint(
        repo / "src", "--baseline", str(repo / "tflint-baseline.json"), str(repo / "src"), env=env
    )
    assert proc.returncode == 0, proc.stdout


def test_stdin_with_a_filename(repo, env):
    source = (repo / "src" / "train.py").read_text()
    proc = check(repo, env, "--stdin-filename", "src/train.py", "-", stdin=source)
    assert proc.returncode == 0, proc.stdout
    proc = check(repo, env, "--stdin-filename", "src/other.py", "-", stdin=source)
    assert proc.returncode == 1


def test_notebook_entries_survive_a_new_cell_above(repo, env):
    cells = [
        "import tensorflow as tf",
        "scale = tf.constant(2.0)",
        'for gpu in tf.config.list_physical_devices("GPU"):\n    tf.config.experimental.set_memory_growth(gpu, True)',
    ]
    nb = repo / "explore.ipynb"
    nb.write_text(notebook(*cells))
    assert tflint(repo, ".", "--write-baseline", "tflint-baseline.json", env=env).returncode == 0
    data = json.loads((repo / "tflint-baseline.json").read_text())
    assert {
        "path": "explore.ipynb",
        "code": "TFP301",
        "text": "tf.config.experimental.set_memory_growth(gpu, True)",
    }.items() <= data["findings"][0].items()
    commit_all(repo, "notebook", env)
    nb.write_text(notebook(("markdown", "# Exploration"), "%matplotlib inline", *cells))
    assert check(repo, env, ".").returncode == 0
    nb.write_text(notebook(*cells, 'tf.config.set_visible_devices([], "GPU")'))
    proc = check(repo, env, ".", "--format", "json")
    assert where(findings_json(proc)) == ["explore.ipynb:cell 4:1 TFP301"]


def test_missing_baseline_is_an_error(repo, env):
    proc = tflint(repo, "--baseline", "nope.json", "src", env=env)
    assert proc.returncode == 2
    assert (
        proc.stderr
        == "tflint-perf: error: --baseline: nope.json: no such file (create it with --write-baseline nope.json)\n"
    )


@pytest.mark.parametrize(
    "content, says",
    [
        ("{not json", "is not a tflint-perf baseline (invalid JSON"),
        ('{"findings": []}', "is not a tflint-perf baseline (write one with --write-baseline)"),
        ('{"tool": "tflint-perf", "format": 99, "findings": []}', "has baseline format 99"),
        (
            '{"tool": "tflint-perf", "format": 1, "findings": [{"path": "a.py"}]}',
            "entry 1 is malformed",
        ),
    ],
)
def test_corrupt_baseline_is_an_error(repo, env, content, says):
    (repo / "bad.json").write_text(content)
    proc = tflint(repo, "--baseline", "bad.json", "src", env=env)
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and says in lines[0], proc.stderr


def test_write_baseline_refuses_diff_base(repo, env):
    proc = tflint(repo, "--write-baseline", "b.json", "--diff-base", "HEAD", "src", env=env)
    assert proc.returncode == 2
    assert not (repo / "b.json").exists()


def test_baseline_and_diff_base_together(repo, env):
    git(repo, "checkout", "-q", "-b", "feature", env=env)
    (repo / "src" / "eval.py").write_text(LATE_CONFIG)
    proc = check(repo, env, "--diff-base", "main", "--format", "json")
    assert where(findings_json(proc)) == ["src/eval.py:5 TFP301"]
