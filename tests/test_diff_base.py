"""--diff-base / --changed-since against real temporary git repositories."""

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


@pytest.fixture
def repo(tmp_path, env):
    """main: a.py and b.py, each with one old finding; HEAD on branch `feature`."""
    repo = init_repo(tmp_path / "repo", env)
    (repo / "a.py").write_text(LATE_CONFIG)
    (repo / "b.py").write_text(LATE_CONFIG)
    commit_all(repo, "backlog", env)
    git(repo, "checkout", "-q", "-b", "feature", env=env)
    return repo


def check(repo, env, *args):
    return findings_json(tflint(repo, "--format", "json", *args, env=env))


def test_only_findings_on_added_lines(repo, env):
    with open(repo / "a.py", "a") as handle:
        handle.write(LATE_CONFIG_IN_FUNCTION.format(name="warm"))
    assert where(check(repo, env)) == ["a.py:11 TFP301", "a.py:5 TFP301", "b.py:5 TFP301"]
    # Uncommitted, then committed: the same answer.
    assert where(check(repo, env, "--diff-base", "main")) == ["a.py:11 TFP301"]
    commit_all(repo, "warm up", env)
    proc = tflint(repo, "--diff-base", "main", env=env)
    assert proc.returncode == 1
    assert proc.stdout.startswith("a.py:11:9: TFP301")
    assert "Found 1 finding." in proc.stdout


def test_changed_line_counts_and_alias(repo, env):
    text = (repo / "b.py").read_text().replace("(gpu, True)", "(gpu, enable=True)")
    (repo / "b.py").write_text(text)
    assert where(check(repo, env, "--changed-since", "main")) == ["b.py:5 TFP301"]


def test_no_changes_is_clean(repo, env):
    proc = tflint(repo, "--diff-base", "main", env=env)
    assert proc.returncode == 0, proc.stdout
    assert "All checks passed!" in proc.stdout


def test_untracked_file_is_wholly_new_and_ignored_file_is_not(repo, env):
    (repo / "new.py").write_text(LATE_CONFIG)
    (repo / ".gitignore").write_text("scratch.py\n")
    (repo / "scratch.py").write_text(LATE_CONFIG)
    assert where(check(repo, env, "--diff-base", "main", ".")) == ["new.py:5 TFP301"]


def test_compared_with_the_merge_base(repo, env):
    """Changes made on main after the branch point are not the PR's."""
    git(repo, "checkout", "-q", "main", env=env)
    (repo / "a.py").write_text(LATE_CONFIG.replace("(gpu, True)", "(gpu, enable=True)"))
    commit_all(repo, "main moves on", env)
    git(repo, "checkout", "-q", "feature", env=env)
    (repo / "c.py").write_text(LATE_CONFIG)
    assert where(check(repo, env, "--diff-base", "main")) == ["c.py:5 TFP301"]


def test_renamed_file_keeps_its_backlog_quiet(repo, env):
    git(repo, "mv", "a.py", "moved.py", env=env)
    commit_all(repo, "move", env)
    assert where(check(repo, env, "--diff-base", "main")) == []


def test_path_with_quoted_characters(repo, env):
    odd = repo / 'we"ird é.py'
    odd.write_text(LATE_CONFIG)
    commit_all(repo, "odd name", env)
    git(repo, "checkout", "-q", "-b", "second", env=env)
    odd.write_text(LATE_CONFIG.replace("(gpu, True)", "(gpu, enable=True)"))
    assert where(check(repo, env, "--diff-base", "feature")) == ['we"ird é.py:5 TFP301']


def test_subdirectory_path_argument(repo, env):
    (repo / "pkg").mkdir()
    (repo / "pkg" / "mod.py").write_text(LATE_CONFIG)
    (repo / "top.py").write_text(LATE_CONFIG)
    assert where(check(repo / "pkg", env, "--diff-base", "main", ".")) == ["mod.py:5 TFP301"]
    assert where(check(repo, env, "--diff-base", "main", "pkg")) == ["pkg/mod.py:5 TFP301"]


def test_notebook_findings_count_per_changed_cell(repo, env):
    cells = [
        "import tensorflow as tf",
        "scale = tf.constant(2.0)",
        'for gpu in tf.config.list_physical_devices("GPU"):\n    tf.config.experimental.set_memory_growth(gpu, True)',
        'tf.config.set_visible_devices([], "GPU")',
    ]
    (repo / "train.ipynb").write_text(notebook(*cells))
    commit_all(repo, "notebook", env)
    git(repo, "checkout", "-q", "-b", "edit", env=env)
    assert where(check(repo, env, "train.ipynb")) == [
        "train.ipynb:cell 3:2 TFP301",
        "train.ipynb:cell 4:1 TFP301",
    ]
    cells[3] = "# Hide the GPUs from this process.\n" + cells[3]
    (repo / "train.ipynb").write_text(notebook(*cells))
    assert where(check(repo, env, "--diff-base", "feature")) == ["train.ipynb:cell 4:2 TFP301"]


def test_outside_git_is_a_clear_error(tmp_path, env):
    outside = tmp_path / "plain"
    outside.mkdir()
    (outside / "a.py").write_text(LATE_CONFIG)
    proc = tflint(outside, "--diff-base", "main", "a.py", env=env)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "tflint-perf: error: --diff-base: a.py is not inside a git repository"
    ]
    assert proc.stdout == ""


@pytest.mark.parametrize("ref", ["no-such-branch", "--output=x"])
def test_unknown_revision_is_a_clear_error(repo, env, ref):
    proc = tflint(repo, f"--diff-base={ref}", env=env)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"tflint-perf: error: --diff-base: unknown git revision '{ref}'"
    )
    assert not (repo / "x").exists()


def test_stdin_is_refused(repo, env):
    proc = tflint(repo, "--diff-base", "main", "-", env=env, stdin=LATE_CONFIG)
    assert proc.returncode == 2
    assert "cannot read stdin" in proc.stderr


def test_github_and_sarif_formats_are_filtered_too(repo, env):
    (repo / "new.py").write_text(LATE_CONFIG)
    proc = tflint(repo, "--diff-base", "main", "--format", "github", env=env)
    assert proc.stdout.splitlines() == [
        line for line in proc.stdout.splitlines() if "file=new.py" in line
    ]
    assert proc.stdout.count("::warning") == 1


def test_diff_base_head_on_the_first_commit(tmp_path, env):
    """pre-commit's `--diff-base HEAD` recipe on a repository with no commit yet:
    every staged (and untracked) line is new, not an unknown revision."""
    repo = init_repo(tmp_path / "fresh", env)
    (repo / "a.py").write_text(LATE_CONFIG)
    (repo / "b.py").write_text(LATE_CONFIG)
    git(repo, "add", "a.py", env=env)
    assert where(check(repo, env, "--diff-base", "HEAD")) == ["a.py:5 TFP301", "b.py:5 TFP301"]
    proc = tflint(repo, "--diff-base", "main", env=env)  # no such revision yet: still an error
    assert proc.returncode == 2 and "unknown git revision 'main'" in proc.stderr
