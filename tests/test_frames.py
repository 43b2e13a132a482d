"""The default text output: code frames, the detail, help and the fix as a
diff, laid out as ruff 0.17 lays out its default output; ``concise`` and the
flake8 plugin keep the headline alone. Findings are built here, with a
detail, so nothing depends on a rule's wording."""

import io
import json
import shutil

import pytest
from conftest import FIXTURES

from tflint_perf import reporters
from tflint_perf.engine import linter
from tflint_perf.engine.rule import UNSAFE, Edit, Finding, Fix
from tflint_perf.frames import Sources

SOURCE = "import gc\n\nfor step in range(10):\n    gc.collect()\n    train()\n\n\nprint('done')\n"
REMOVE = Fix((Edit(4, 0, 5, 0, ""),), message="Remove the `gc.collect()` call")


def finding(fix=REMOVE, detail="A full collection costs 50-150 ms.\nIt runs on every step."):
    return Finding("t.py", 4, 5, 4, 17, "TFP302", "gc-collect-in-loop", "headline", fix, {}, detail)


def text(findings, source=SOURCE, **options):
    out = io.StringIO()
    reporters.write_text(findings, out, sources=Sources({"t.py": source}), **options)
    return out.getvalue()


def test_full_format_frame_detail_help_and_diff():
    assert text([finding()]) == (
        "TFP302 [*] headline\n"
        " --> t.py:4:5\n"
        "  |\n"
        "3 | for step in range(10):\n"
        "4 |     gc.collect()\n"
        "  |     ^^^^^^^^^^^^\n"
        "5 |     train()\n"
        "  |\n"
        "info: A full collection costs 50-150 ms.\n"
        "      It runs on every step.\n"
        "help: Remove the `gc.collect()` call\n"
        "  |\n"
        "3 | for step in range(10):\n"
        "  -     gc.collect()\n"
        "4 |     train()\n"
        "  |\n"
        "\n"
        "Found 1 finding.\n"
        "[*] 1 fixable with the `--fix` option.\n"
    )


def test_an_unsafe_fix_is_shown_with_a_note_but_not_marked_fixable():
    unsafe = Fix(REMOVE.edits, UNSAFE, REMOVE.message)
    out = text([finding(unsafe, detail="")], quiet=True)
    assert out.splitlines()[0] == "TFP302 headline"
    assert "info:" not in out
    assert out.endswith(
        "  -     gc.collect()\n4 |     train()\n  |\n"
        "note: This is an unsafe fix and may change runtime behavior\n\n"
    )
    assert text([finding(unsafe)], quiet=True, unsafe_fixes=True).startswith("TFP302 [*] ")


def test_no_show_fixes_hides_the_diff_and_keeps_the_help():
    out = text([finding()], quiet=True, show_fixes=False)
    assert out.endswith("help: Remove the `gc.collect()` call\n\n")


def test_concise_is_one_line_with_the_headline_only():
    assert text([finding()], concise=True, quiet=True) == "t.py:4:5: TFP302 [*] headline\n"


def test_a_span_over_several_lines_is_drawn_from_its_start_to_its_end():
    source = "x = 1\nfor i in range(3):\n    y[i] = i\n    z = 2\nprint(y)\n"
    loop = Finding("t.py", 2, 1, 4, 10, "TFP101", "n", "headline")
    assert text([loop], source, quiet=True) == (
        "TFP101 headline\n"
        " --> t.py:2:1\n"
        "  |\n"
        "1 |   x = 1\n"
        "2 | / for i in range(3):\n"
        "3 | |     y[i] = i\n"
        "4 | |     z = 2\n"
        "  | |_________^\n"
        "5 |   print(y)\n"
        "  |\n"
        "\n"
    )
    call = Finding("t.py", 1, 5, 3, 2, "TFP101", "n", "h")
    lines = text([call], "x = f(\n    a,\n)\n", quiet=True).splitlines()
    assert lines[3:8] == ["1 |   x = f(", "  |  _____^", "2 | |     a,", "3 | | )", "  | |_^"]


def test_a_long_span_is_folded():
    source = "for i in range(9):\n" + "".join(f"    a{k} = {k}\n" for k in range(9))
    loop = Finding("t.py", 1, 1, 10, 11, "TFP101", "n", "h")
    lines = text([loop], source, quiet=True).splitlines()
    assert lines[3:10] == [
        " 1 | / for i in range(9):",
        " 2 | |     a0 = 0",
        "...",
        " 9 | |     a7 = 7",
        "10 | |     a8 = 8",
        "   | |__________^",
        "",
    ]


def test_tabs_and_wide_characters_keep_the_underline_under_the_span():
    source = "\tx = '日本' + f(y)\n"
    call = Finding("t.py", 1, 13, 1, 17, "TFP101", "n", "h")
    lines = text([call], source, quiet=True).splitlines()
    # tab: 4 columns, each of 日本: 2; `f(y)` starts 17 columns in
    assert lines[3:5] == ["1 |     x = '日本' + f(y)", "  | " + " " * 17 + "^^^^"]


def test_colour_only_when_asked_and_never_in_concise_without_it():
    plain = text([finding()])
    assert "\033[" not in plain
    coloured = text([finding()], color=True)
    assert "\033[1;91mTFP302\033[0m" in coloured and "\033[1;94m" in coloured
    assert coloured.replace("\033[", "").count("headline") == 1


def test_cli_colour_follows_the_terminal_and_the_environment(tmp_path, check, monkeypatch):
    (tmp_path / "t.py").write_text(SOURCE)
    monkeypatch.setattr(linter, "lint_source", lambda *a, **k: [finding()])
    monkeypatch.delenv("NO_COLOR")
    status, out, _ = check(tmp_path, "--output-format", "full", "t.py")  # not a terminal
    assert status == 1 and "\033[" not in out and "info: A full collection" in out
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\033[" in check(tmp_path, "--output-format", "full", "t.py")[1]


def test_the_cli_shows_the_file_as_it_is_after_a_fix(tmp_path, check, monkeypatch):
    """A finding left after --fix is framed in the fixed file, not the original."""
    real = linter.lint_source

    def with_detail(*args, **kwargs):
        found = real(*args, **kwargs)
        for f in found:
            f.detail = "the evidence"
        return found

    monkeypatch.setattr(linter, "lint_source", with_detail)
    (tmp_path / "t.py").write_text(
        "import tensorflow as tf\n\nx = tf.constant(1.0)\n"
        "tf.config.set_visible_devices([], 'GPU')\n"
    )
    status, out, _ = check(tmp_path, "--output-format", "full", "t.py")
    assert "info: the evidence" in out and "4 | tf.config.set_visible_devices" in out
    json_out = json.loads(check(tmp_path, "--format", "json", "t.py")[1])
    assert json_out[0]["detail"] == "the evidence"
    concise = check(tmp_path, "t.py")[1]
    assert "evidence" not in concise


def test_a_notebook_frame_shows_cell_lines_and_the_fix_cell_by_cell(tmp_path, check):
    shutil.copy(FIXTURES / "notebooks" / "bad_fixable.ipynb", tmp_path / "nb.ipynb")
    status, out, _ = check(tmp_path, "--output-format", "full", "nb.ipynb")
    lines = out.splitlines()
    assert lines[1:7] == [
        " --> nb.ipynb:cell 4:3:5",
        "  |",
        '1 | gpus = tf.config.list_physical_devices("GPU")',
        "2 | for gpu in gpus:",
        "3 |     tf.config.experimental.set_memory_growth(gpu, True)",
        "  |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
    ]
    assert lines[lines.index(" ::: cell 3") + 2 : lines.index(" ::: cell 4")] == [
        "1 | # Scale factor used by every layer below.",
        '2 + gpus = tf.config.list_physical_devices("GPU")',
        "3 + for gpu in gpus:",
        "4 +     tf.config.experimental.set_memory_growth(gpu, True)",
        "5 | scale = tf.constant(2.0)",
        "  |",
    ]


def test_stdin_is_framed_from_the_text_read(tmp_path, cli_env):
    from test_cli import BAD, console

    proc = console(["check", "-", "--stdin-filename", "train.py"], tmp_path, cli_env, stdin=BAD)
    assert " --> train.py:4:1" in proc.stdout
    assert '4 | tf.config.set_visible_devices([], "GPU")' in proc.stdout


@pytest.mark.parametrize("missing", [True, False])
def test_a_file_that_cannot_be_read_again_is_shown_without_a_frame(missing):
    out = io.StringIO()
    sources = Sources() if missing else Sources({"t.py": ""})
    reporters.write_text([finding(detail="")], out, sources=sources, quiet=True)
    assert (
        out.getvalue()
        == "TFP302 [*] headline\n --> t.py:4:5\nhelp: Remove the `gc.collect()` call\n\n"
    )


def test_the_flake8_plugin_reports_the_headline_only(monkeypatch):
    from tflint_perf.flake8_plugin import TFPChecker

    monkeypatch.setattr(linter, "lint_source", lambda *a, **k: [finding()])
    (report,) = TFPChecker(None, "t.py", SOURCE.splitlines(True)).run()
    assert report[:3] == (4, 4, "TFP302 headline")
