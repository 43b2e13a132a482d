"""Options and configuration behave as ruff users expect (issue 21, items 5-7
and 14): patterns relative to the configuration's folder, stdin with
``--stdin-filename`` alone, ``--select`` on the command line decides, and
ruff's option names."""

import json

import pytest
from test_cli import BAD, console

from repo_helpers import LATE_CONFIG


@pytest.fixture
def project(tmp_path):
    """A project inside a folder named ``repro`` (issue 21's case), one finding."""
    root = tmp_path / "repro" / "proj"
    root.mkdir(parents=True)
    (root / "bad.py").write_text(BAD)
    return root


def _located(out: str):
    return [
        line.split(": ")[0] + " " + line.split(": ")[1][:6]
        for line in out.splitlines()
        if ": TFP" in line
    ]


# -- item 5: patterns match the path relative to the configuration's folder ------


def test_exclude_never_matches_the_absolute_path(project, check):
    (project / "pyproject.toml").write_text(
        '[tool.tflint-perf]\nexclude = ["*/repro/*", "repro"]\n'
    )
    status, out, _ = check(project, ".")
    assert (status, _located(out)) == (1, ["bad.py:4:1 TFP301"])


def test_per_file_ignores_never_match_the_absolute_path(project, check):
    (project / "pyproject.toml").write_text(
        '[tool.tflint-perf.per-file-ignores]\n"*/repro/*" = ["TFP3"]\n"proj/*" = ["TFP3"]\n'
    )
    assert check(project, "bad.py")[0] == 1


@pytest.mark.parametrize(
    "pattern, linted",
    [
        ("tests/**/*.py", ["src/a.py"]),  # ** matches zero folders: tests/x.py too
        ("**/x.py", ["src/a.py", "tests/deep/y.py"]),
        ("tests", ["src/a.py"]),  # a name: any folder of that name
        ("/tests/deep", ["src/a.py", "tests/x.py"]),  # a folder: what lies in it
        ("src/*.py", ["tests/deep/y.py", "tests/x.py"]),
    ],
)
def test_exclude_patterns(project, check, pattern, linted):
    for name in ("tests/x.py", "tests/deep/y.py", "src/a.py"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(BAD)
    (project / "bad.py").unlink()
    (project / "pyproject.toml").write_text(f'[tool.tflint-perf]\nexclude = ["{pattern}"]\n')
    _, out, _ = check(project, ".")
    assert sorted(p.split(":")[0] for p in _located(out)) == linted
    sub_status, sub_out, _ = check(project / "tests", ".")  # run from below: same root
    assert ("deep/y.py" in sub_out) == ("tests/deep/y.py" in linted)


# -- item 6: --stdin-filename reads stdin ---------------------------------------


def test_stdin_filename_alone_reads_stdin(project, cli_env):
    (project / "bad.py").unlink()  # "." would be clean: the finding comes from stdin
    proc = console(
        ["check", "--output-format", "concise", "--stdin-filename", "train.py"],
        project,
        cli_env,
        stdin=BAD,
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("train.py:4:1: TFP301")


# -- item 7: --select on the command line decides over the configuration ---------


@pytest.mark.parametrize(
    "table", ['ignore = ["TFP301"]', 'select = ["TFP1"]', 'select = ["TFP"]\nignore = ["TFP3"]']
)
def test_cli_select_turns_on_what_the_configuration_turns_off(project, check, table):
    (project / "pyproject.toml").write_text(f"[tool.tflint-perf]\n{table}\n")
    assert check(project, "bad.py")[0] == 0
    assert check(project, "--select", "TFP301", "bad.py")[0] == 1
    # --ignore and --extend-select still add to the configuration
    assert check(project, "--extend-select", "TFP301", "--ignore", "TFP1", "bad.py")[0] == 1


def test_per_file_ignores_still_apply_under_cli_select(project, check):
    (project / "pyproject.toml").write_text(
        '[tool.tflint-perf.per-file-ignores]\n"bad.py" = ["TFP3"]\n'
    )
    # as in ruff, a per-file ignore wins over a more specific selection
    assert check(project, "--select", "TFP301", "bad.py")[0] == 0


# -- item 14: ruff's option names -------------------------------------------------


def test_output_format_and_exit_zero_short_flag(project, check):
    status, out, _ = check(project, "--output-format", "json", "-e", "bad.py")
    assert status == 0 and json.loads(out)[0]["code"] == "TFP301"


def test_fix_only_fixes_and_reports_only_what_it_fixed(tmp_path, check):
    (tmp_path / "a.py").write_text(LATE_CONFIG)
    (tmp_path / "b.py").write_text(BAD)
    status, out, err = check(tmp_path, "--fix-only", ".")
    assert (status, out, err) == (0, "Fixed 2 findings.\n", "")
    assert "set_memory_growth" in (tmp_path / "a.py").read_text()
    assert check(tmp_path, ".")[0] == 0


def test_exclude_and_extend_exclude_on_the_command_line(project, check):
    (project / "gen").mkdir()
    (project / "gen" / "g.py").write_text(BAD)
    (project / "pyproject.toml").write_text('[tool.tflint-perf]\nexclude = ["bad.py"]\n')
    assert _located(check(project, ".")[1]) == ["gen/g.py:4:1 TFP301"]
    # --exclude replaces the configured patterns, --extend-exclude adds to them
    assert _located(check(project, "--exclude", "gen", ".")[1]) == ["bad.py:4:1 TFP301"]
    assert _located(check(project, "--extend-exclude", "gen", ".")[1]) == []


@pytest.mark.parametrize("command", ["rule", "explain"])
@pytest.mark.parametrize("name", ["TFP301", "tfp301", "device-config-after-init"])
def test_rule_and_explain_by_code_or_name(project, cli_env, command, name):
    from test_cli import run

    result = run([command, name], project, cli_env)
    assert result.returncode == 0
    assert result.stdout.startswith("# TFP301 `device-config-after-init`")


def test_rules_output_format_json(project, cli_env):
    from test_cli import run

    rules = json.loads(run(["rules", "--output-format", "json"], project, cli_env).stdout)
    names = {r["code"]: r["name"] for r in rules}
    assert names["TFP301"] == "device-config-after-init"


def test_fix_show_fixes_lists_what_was_fixed_per_file(project, check):
    (project / "other.py").write_text(BAD)
    (project / "clean.py").write_text("x = 1\n")
    status, out, _ = check(project, "--fix", "--show-fixes", ".")
    listed = out[out.index("Fixed 2 findings:") :]
    assert status == 0
    assert listed.splitlines()[:5] == [
        "Fixed 2 findings:",
        "- bad.py:",
        "    1 \u00d7 TFP301 (device-config-after-init)",
        "- other.py:",
        "    1 \u00d7 TFP301 (device-config-after-init)",
    ]
    assert "clean.py" not in out


def test_fix_lists_nothing_without_show_fixes(project, check):
    status, out, _ = check(project, "--fix", "bad.py")
    assert (status, "Fixed 1 finding:" in out, out.strip()) == (0, False, "Fixed 1 finding.")


def test_fix_only_show_fixes_lists_before_its_summary(project, check):
    out = check(project, "--fix-only", "--show-fixes", "bad.py")[1]
    assert out.strip().splitlines()[-3:] == [
        "    1 \u00d7 TFP301 (device-config-after-init)",
        "",
        "Fixed 1 finding.",
    ]


def test_show_fixes_flags(project, check):
    full = check(project, "--output-format", "full", "--show-fixes", "bad.py")[1]
    assert "help: " in full and "\n3 + tf.config.set_visible_devices" in full
    hidden = check(project, "--output-format", "full", "--no-show-fixes", "bad.py")[1]
    assert "help: " in hidden and " + " not in hidden
