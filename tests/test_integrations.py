"""flake8 plugin and pre-commit hook, run for real."""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_noqa import COMMENTS

from fixture_cases import sources
from repo_helpers import LATE_CONFIG

ROOT = Path(__file__).resolve().parent.parent
BAD = textwrap.dedent(
    """\
    import tensorflow as tf

    def main():
        x = tf.zeros([2])
        tf.config.experimental.set_memory_growth(tf.config.list_physical_devices("GPU")[0], True)
        return x
    """
)


def _flake8_available():
    try:
        import flake8  # noqa: F401
    except ImportError:
        return False
    from importlib.metadata import entry_points

    return any(ep.name == "TFP" for ep in entry_points(group="flake8.extension"))


needs_flake8 = pytest.mark.skipif(
    not _flake8_available(), reason="flake8 or the installed TFP plugin missing"
)


def _noqa_variants(folder: Path) -> list:
    """One file per noqa spelling of tests/test_noqa.py, on a TFP301 line."""
    lines = LATE_CONFIG.splitlines()
    out = []
    for index, comment in enumerate(COMMENTS):
        text = list(lines)
        text[4] += comment[len("x = 1") :]
        path = folder / f"noqa_{index}.py"
        path.write_text("\n".join(text) + "\n")
        out.append(path)
    return out


@needs_flake8
@pytest.mark.parametrize(
    "options",
    [["--select", "TFP"], ["--extend-select", "TFP", "--jobs", "2"]],
    ids=["select", "extend-select-jobs-2"],
)
def test_flake8_reports_same_positions_as_cli(tmp_path, cli_env, options):
    """Every fixture and every noqa spelling: flake8 and the CLI agree on
    line, column and code, with flake8's own selection and noqa handling."""
    files = sources() + _noqa_variants(tmp_path)
    cli = subprocess.run(
        [sys.executable, "-m", "tflint_perf", "check", "--format", "json", *map(str, files)],
        capture_output=True,
        text=True,
        env=cli_env,
        timeout=120,
    )
    expected = sorted(
        (os.path.abspath(d["path"]), d["line"], d["column"], d["code"])
        for d in json.loads(cli.stdout)
        if d["code"] != "TFP000"
    )
    flake = subprocess.run(
        [
            sys.executable,
            "-m",
            "flake8",
            "--isolated",
            *options,
            "--format",
            "%(path)s\t%(row)d\t%(col)d\t%(code)s",
            *map(str, files),
        ],
        capture_output=True,
        text=True,
        env=cli_env,
        timeout=120,
    )
    got = sorted(
        (os.path.abspath(p), int(r), int(c), code)
        for p, r, c, code in (line.split("\t") for line in flake.stdout.splitlines())
        if code.startswith("TFP")
    )
    assert expected, "no positive fixtures found"
    assert got == expected, flake.stderr


# Runs flake8 in one process and says whether the plugin linted anything.
FLAKE8_DRIVER = """
import sys
from flake8.main.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("linted" if "tflint_perf.engine.linter" in sys.modules else "no work", file=sys.stderr)
"""


@needs_flake8
@pytest.mark.parametrize(
    "options, works",
    [
        (["--select", "E,F,W"], False),  # an editor's on-save run
        (["--extend-ignore", "TFP"], False),
        (["--select", "E", "--ignore", "TFP"], False),
        ([], True),  # flake8's default: every installed plugin's codes
        (["--select", "E,TFP3"], True),
        (["--extend-ignore", "TFP1,TFP2"], True),
    ],
)
def test_flake8_plugin_does_no_work_unless_a_tfp_code_is_selected(
    tmp_path, cli_env, options, works
):
    (tmp_path / "bad.py").write_text(BAD)
    proc = subprocess.run(
        [sys.executable, "-c", FLAKE8_DRIVER, "--isolated", "--jobs", "1", *options, "bad.py"],
        cwd=tmp_path,
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.stderr.strip().splitlines()[-1] == ("linted" if works else "no work")
    assert ("TFP301" in proc.stdout) is works


@needs_flake8
def test_flake8_selects_a_rule_that_is_a_package(cli_env):
    """``--select TFP101``: the rule lives in a folder (``rules/tfp101_*/``),
    not one file; the plugin must still know it is selected."""
    example = ROOT / "examples" / "elementwise_loop.py"
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "TFP101", str(example)],
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ": TFP101 " in proc.stdout, proc.stdout + proc.stderr


@needs_flake8
def test_flake8_leaves_syntax_errors_to_e999(tmp_path, cli_env):
    bad = tmp_path / "broken.py"
    bad.write_text("import tensorflow as tf\ndef f(:\n")
    flake = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "TFP,E999", str(bad)],
        capture_output=True,
        text=True,
        env=cli_env,
        timeout=60,
    )
    assert "E999" in flake.stdout and "TFP000" not in flake.stdout


@needs_flake8
def test_flake8_noqa(tmp_path, cli_env):
    f = tmp_path / "a.py"
    f.write_text(BAD.replace("True)", "True)  # noqa: TFP301"))
    flake = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "TFP", str(f)],
        capture_output=True,
        text=True,
        env=cli_env,
        timeout=60,
    )
    assert flake.stdout == ""


@pytest.mark.parametrize("hook", ["tflint-perf", "tflint-perf-fix"])
def test_the_hooks_respect_exclude_for_the_files_pre_commit_names(tmp_path, cli_env, hook):
    """pre-commit runs a hook's entry with the staged files as arguments."""
    yaml = pytest.importorskip("yaml")
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    (tmp_path / "pyproject.toml").write_text('[tool.tflint-perf]\nexclude = ["generated"]\n')
    (tmp_path / "generated").mkdir()
    (tmp_path / "generated" / "model.py").write_text(BAD)
    (tmp_path / "train.py").write_text(BAD)
    entry = hooks[hook]["entry"].split()
    assert entry[0] == "tflint-perf"
    tool = str(Path(sys.executable).parent / "tflint-perf")
    proc = subprocess.run(
        [tool, *entry[1:], "--output-format", "concise", "generated/model.py", "train.py"],
        cwd=tmp_path,
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "generated/model.py" not in proc.stdout, proc.stdout
    assert (tmp_path / "generated" / "model.py").read_text() == BAD
    assert ("train.py:5:5: TFP301" in proc.stdout) is (hook == "tflint-perf")


def _git(cwd, *args):
    subprocess.run(
        [
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "init.defaultBranch=main",
            *args,
        ],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    )


@pytest.mark.network  # pre-commit pip-installs the hook (and LibCST) from PyPI
@pytest.mark.skipif(shutil.which("git") is None, reason="git missing")
@pytest.mark.skipif(
    subprocess.run(
        [sys.executable, "-m", "pre_commit", "--version"], capture_output=True
    ).returncode
    != 0,
    reason="pre-commit missing",
)
def test_pre_commit_hooks_on_staged_files(tmp_path, cli_env):
    """pre-commit installs this repository's hooks and runs them on the staged
    files: one with a finding, one without."""
    # A snapshot of this checkout as a git repo, so try-repo can clone it.
    hook_repo = tmp_path / "hook-repo"
    shutil.copytree(
        ROOT,
        hook_repo,
        ignore=shutil.ignore_patterns(
            ".venv", ".git", "__pycache__", "*.egg-info", "build", ".pytest_cache", "bench"
        ),
    )
    _git(hook_repo, "init", "-q")
    _git(hook_repo, "add", "-A")
    _git(hook_repo, "commit", "-q", "-m", "snapshot")

    work = tmp_path / "work"
    work.mkdir()
    _git(work, "init", "-q")
    (work / "train.py").write_text(BAD)
    (work / "clean.py").write_text("import tensorflow as tf\n\nx = tf.zeros([2])\n")
    _git(work, "add", "train.py", "clean.py")

    env = dict(cli_env)
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    env.pop("PYTHONPATH", None)  # the hook must run from its own install

    def try_repo(hook, *files):
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo), hook]
            + (["--files", *files] if files else []),
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )

    staged = try_repo("tflint-perf")  # no --files: the staged files
    assert staged.returncode == 1, staged.stdout + staged.stderr
    assert " --> train.py:5:5" in staged.stdout and "clean.py:" not in staged.stdout

    assert try_repo("tflint-perf", "clean.py").returncode == 0

    fixed = try_repo("tflint-perf-fix", "train.py")
    assert fixed.returncode == 1  # pre-commit fails a hook that modified files
    assert "files were modified by this hook" in fixed.stdout
    _git(work, "add", "train.py")

    again = try_repo("tflint-perf")
    assert again.returncode == 0, again.stdout + again.stderr
