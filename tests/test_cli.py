"""The command line: its entry point in this process, and a few runs of the real command."""

import contextlib
import io
import json
import os
import subprocess
import sys
import textwrap

import pytest

from tflint_perf.cli import main

BAD = textwrap.dedent(
    """\
    import tensorflow as tf

    x = tf.constant(1.0)
    tf.config.set_visible_devices([], "GPU")
    """
)
CLEAN = (
    "import tensorflow as tf\n\ntf.config.set_visible_devices([], 'GPU')\nx = tf.constant(1.0)\n"
)


def console(args, cwd, env, stdin=None):
    """The installed command in its own process (stdin, exit status, startup)."""
    return subprocess.run(
        [sys.executable, "-m", "tflint_perf", *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def run(args, cwd, env, stdin=None):
    """The entry point in this process (a subprocess per test costs a second);
    what a real process adds (stdin, startup) goes through ``console``."""
    if stdin is not None:
        return console(args, cwd, env, stdin)
    out, err = io.StringIO(), io.StringIO()
    here, colour = os.getcwd(), os.environ.get("NO_COLOR")
    os.chdir(cwd)
    os.environ["NO_COLOR"] = env.get("NO_COLOR", "1")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(list(args))
            except SystemExit as exc:  # argparse: usage errors, --version
                status = exc.code if isinstance(exc.code, int) else 2
    finally:
        os.chdir(here)
        if colour is None:
            os.environ.pop("NO_COLOR", None)
        else:
            os.environ["NO_COLOR"] = colour
    return subprocess.CompletedProcess(args, status, out.getvalue(), err.getvalue())


@pytest.fixture
def project(tmp_path):
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "clean.py").write_text(CLEAN)
    return tmp_path


def test_text_output_and_exit_code(project, cli_env):
    result = console(["check", "."], project, cli_env)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    # The default (full) format: headline, location, code frame, fix as a diff.
    assert lines[0].startswith("TFP301 [*] ")
    assert lines[1:] == [
        " --> bad.py:4:1",
        "  |",
        "3 | x = tf.constant(1.0)",
        '4 | tf.config.set_visible_devices([], "GPU")',
        "  | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        "info: TensorFlow raises RuntimeError (Visible devices cannot be modified after being"
        " initialized); wrapped in a `try` block that catches `RuntimeError` it fails silently"
        " and the setting does not apply.",
        "      The runtime started at line 3: `tf.constant()`.",
        "help: Move the device configuration before the first initialising statement",
        "  |",
        "2 |",
        '3 + tf.config.set_visible_devices([], "GPU")',
        "4 | x = tf.constant(1.0)",
        '  - tf.config.set_visible_devices([], "GPU")',
        "  |",
        "",
        "Found 1 finding.",
        "[*] 1 fixable with the `--fix` option.",
    ]
    concise = console(["check", "--output-format", "concise", "."], project, cli_env)
    assert concise.stdout.splitlines()[0].startswith("bad.py:4:1: TFP301 [*] ")


def test_clean_exit_zero(project, cli_env):
    result = run(["check", "clean.py"], project, cli_env)
    assert (result.returncode, result.stdout) == (0, "All checks passed!\n")


def test_exit_zero_flag(project, cli_env):
    assert run(["check", "--exit-zero", "bad.py"], project, cli_env).returncode == 0


def test_json_keys(project, cli_env):
    result = run(["check", "--format", "json", "bad.py"], project, cli_env)
    data = json.loads(result.stdout)
    assert len(data) == 1
    assert set(data[0]) == {
        "path",
        "line",
        "column",
        "end_line",
        "end_column",
        "code",
        "name",
        "message",
        "detail",
        "fix",
    }
    assert data[0]["path"] == "bad.py"
    assert (data[0]["line"], data[0]["column"], data[0]["code"]) == (4, 1, "TFP301")
    assert data[0]["fix"]["safety"] == "safe"
    assert data[0]["fix"]["edits"][0]["line"] == 3


def test_github_format(project, cli_env):
    result = run(["check", "--format", "github", "bad.py"], project, cli_env)
    assert result.stdout.startswith(
        "::warning file=bad.py,line=4,endLine=4,col=1,endColumn=41,title=TFP301 `set_visible_devices()` after `tf.constant()`"
    )


def test_sarif_format(project, cli_env):
    result = run(["check", "--format", "sarif", "."], project, cli_env)
    log = json.loads(result.stdout)
    assert log["version"] == "2.1.0"
    run_ = log["runs"][0]
    rules = {r["id"]: r for r in run_["tool"]["driver"]["rules"]}
    assert "TFP301" in rules and rules["TFP301"]["name"] == "device-config-after-init"
    assert rules["TFP301"]["shortDescription"]["text"] and rules["TFP301"]["help"]["text"]
    (result_,) = run_["results"]
    assert result_["ruleId"] == "TFP301"
    assert run_["tool"]["driver"]["rules"][result_["ruleIndex"]]["id"] == "TFP301"
    region = result_["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (4, 1)
    assert result_["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad.py"


def test_fix_rewrites_file_and_second_run_is_clean(project, cli_env):
    result = run(["check", "--fix", "bad.py"], project, cli_env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Fixed 1 finding." in result.stdout
    fixed = (project / "bad.py").read_text()
    assert fixed.index("set_visible_devices") < fixed.index("tf.constant")
    again = run(["check", "bad.py"], project, cli_env)
    assert again.returncode == 0


def test_diff_writes_nothing(project, cli_env):
    result = run(["check", "--diff", "bad.py"], project, cli_env)
    assert result.returncode == 1
    assert "+tf.config.set_visible_devices" in result.stdout
    assert (project / "bad.py").read_text() == BAD
    assert "Would fix 1 finding" in result.stderr


def test_stdin(project, cli_env):
    result = run(
        ["check", "--output-format", "concise", "-", "--stdin-filename", "nb/train.py"],
        project,
        cli_env,
        stdin=BAD,
    )
    assert result.returncode == 1
    assert result.stdout.startswith("nb/train.py:4:1: TFP301")


def test_stdin_fix_prints_fixed_source(project, cli_env):
    result = run(["check", "--fix", "-"], project, cli_env, stdin=BAD)
    assert result.stdout.index("set_visible_devices") < result.stdout.index("tf.constant")


def test_select_and_ignore(project, cli_env):
    assert run(["check", "--ignore", "TFP3", "bad.py"], project, cli_env).returncode == 0
    assert run(["check", "--select", "TFP301", "bad.py"], project, cli_env).returncode == 1
    # the more specific prefix wins
    assert (
        run(
            ["check", "--ignore", "TFP3", "--extend-select", "TFP301", "bad.py"], project, cli_env
        ).returncode
        == 1
    )


def test_unknown_code_is_usage_error(project, cli_env):
    result = run(["check", "--select", "TFP999", "bad.py"], project, cli_env)
    assert result.returncode == 2
    assert "unknown rule code or prefix 'TFP999'" in result.stderr
    assert "Traceback" not in result.stderr


def test_unknown_path(project, cli_env):
    result = run(["check", "nope.py"], project, cli_env)
    assert result.returncode == 2
    assert result.stderr.strip() == "tflint-perf: error: nope.py: No such file or directory"


def test_unknown_option(project, cli_env):
    result = run(["check", "--frobnicate", "bad.py"], project, cli_env)
    assert result.returncode == 2
    assert "unrecognized arguments: --frobnicate" in result.stderr
    assert "Traceback" not in result.stderr


def test_syntax_error_is_tfp000_and_run_goes_on(project, cli_env):
    (project / "broken.py").write_text("import tensorflow as tf\ndef f(:\n")
    (project / "latin.py").write_bytes(b"x = '\xff'\n")
    result = run(["check", "--output-format", "concise", "."], project, cli_env)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert any(line.startswith("broken.py:2:") and "TFP000 SyntaxError" in line for line in lines)
    assert any(line.startswith("latin.py:1:1: TFP000 cannot decode file") for line in lines)
    assert any(line.startswith("bad.py:4:1: TFP301") for line in lines)
    assert "Traceback" not in result.stderr


def test_noqa(project, cli_env):
    (project / "bad.py").write_text(BAD.replace('"GPU")', '"GPU")  # noqa: TFP301'))
    assert run(["check", "bad.py"], project, cli_env).returncode == 0
    (project / "bad.py").write_text(BAD.replace('"GPU")', '"GPU")  # noqa'))
    assert run(["check", "bad.py"], project, cli_env).returncode == 0
    (project / "bad.py").write_text(BAD.replace('"GPU")', '"GPU")  # noqa: TFP101'))
    assert run(["check", "bad.py"], project, cli_env).returncode == 1
    (project / "bad.py").write_text("# tflint-perf: noqa\n" + BAD)
    assert run(["check", "bad.py"], project, cli_env).returncode == 0


def test_fix_leaves_suppressed_findings_alone(project, cli_env):
    source = BAD.replace('"GPU")', '"GPU")  # noqa: TFP301')
    (project / "bad.py").write_text(source)
    run(["check", "--fix", "bad.py"], project, cli_env)
    assert (project / "bad.py").read_text() == source


def test_pyproject_config_found_upwards(project, cli_env):
    (project / "pyproject.toml").write_text('[tool.tflint-perf]\nignore = ["TFP301"]\n')
    sub = project / "pkg"
    sub.mkdir()
    (sub / "bad.py").write_text(BAD)
    assert run(["check", "pkg"], project, cli_env).returncode == 0
    assert run(["check", "bad.py"], sub, cli_env).returncode == 0


def test_per_file_ignores_and_exclude(project, cli_env):
    (project / "pyproject.toml").write_text(
        '[tool.tflint-perf]\nexclude = ["generated"]\n[tool.tflint-perf.per-file-ignores]\n"scripts/*" = ["TFP3"]\n'
    )
    for folder in ("generated", "scripts"):
        (project / folder).mkdir()
        (project / folder / "bad.py").write_text(BAD)
    result = run(["check", "generated", "scripts"], project, cli_env)
    assert (result.returncode, result.stdout) == (0, "All checks passed!\n")


@pytest.mark.parametrize(
    "config, message",
    [
        ('[tool.tflint-perf]\nselcet = ["TFP"]\n', "unknown key 'selcet'"),
        ('[tool.tflint-perf]\nignore = ["TFP42"]\n', "unknown rule code or prefix 'TFP42'"),
        ("[tool.tflint-perf\nignore = [\n", "invalid TOML"),
        (
            '[tool.tflint-perf]\nselect = "TFP301"\nexclude = 3\n',
            "exclude: expected a string or a list of strings, got 3",
        ),
    ],
)
def test_bad_config(project, cli_env, config, message):
    (project / "custom.toml").write_text(config)
    result = run(["check", "--config", "custom.toml", "bad.py"], project, cli_env)
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_missing_config_file(project, cli_env):
    result = run(["check", "--config", "missing.toml", "bad.py"], project, cli_env)
    assert result.returncode == 2 and "config file not found" in result.stderr


def test_default_skips_virtualenvs_and_build(project, cli_env):
    for folder in (".venv", "build", "node_modules", "myenv"):
        (project / folder).mkdir()
        (project / folder / "bad.py").write_text(BAD)
    (project / "myenv" / "pyvenv.cfg").write_text("home = /usr\n")
    (project / "bad.py").unlink()
    result = run(["check", "."], project, cli_env)
    assert result.returncode == 0, result.stdout


def test_statistics(project, cli_env):
    result = run(["check", "--statistics", "."], project, cli_env)
    assert result.stdout.splitlines() == [
        "    1\tTFP301\t[*] device-config-after-init",
        "Found 1 finding.",  # the total, as ruff ends its statistics
        "[*] 1 fixable with the `--fix` option.",
    ]


def test_quiet(project, cli_env):
    result = run(["check", "-q", "--output-format", "concise", "bad.py"], project, cli_env)
    assert len(result.stdout.splitlines()) == 1


def test_version(project, cli_env):
    from tflint_perf import __version__

    result = console(["--version"], project, cli_env)
    assert result.stdout.strip() == f"tflint-perf {__version__}"


def test_rules_and_explain(project, cli_env):
    listing = run(["rules"], project, cli_env)
    assert listing.returncode == 0
    assert any(
        line.startswith("TFP301  device-config-after-init") and "[*]" in line
        for line in listing.stdout.splitlines()
    )
    explained = run(["explain", "tfp301"], project, cli_env)
    assert explained.returncode == 0
    assert explained.stdout.startswith("# TFP301 `device-config-after-init`")
    assert "## Why is this bad?" in explained.stdout
    missing = run(["explain", "TFP999"], project, cli_env)
    assert missing.returncode == 2 and "unknown rule code" in missing.stderr
