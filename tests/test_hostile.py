"""Hostile and odd input: every case ends in findings, one line and exit 2,
or a documented skip; never a traceback, and the rest of the run goes on.

In-process (``check`` fixture in conftest.py); a few cases need a real
process (memory of a 50,000-line file) and say so.
"""

import json
import os
import resource
import subprocess
import sys

import pytest

from repo_helpers import LATE_CONFIG, notebook
from tflint_perf.engine.cells import compile_error

# LATE_CONFIG has one TFP301 finding, on line 5.
FINDING = "TFP301"


def _codes(out: str):
    return [line.split(": ")[1].split()[0] for line in out.splitlines() if ": TFP" in line]


def _one_error_line(err: str, *words: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for word in words:
        assert word in lines[0], lines[0]


# -- files ---------------------------------------------------------------------

ODD_BUT_FINE = {
    "empty.py": b"",
    "comments.py": b"# just a comment\n# and another\n",
    "bom.py": b"\xef\xbb\xbf" + LATE_CONFIG.encode(),
    "crlf.py": LATE_CONFIG.replace("\n", "\r\n").encode(),
    "mixed.py": LATE_CONFIG.replace("\n", "\r\n", 2).encode(),
    "tabs.py": LATE_CONFIG.replace("    ", "\t").encode(),
    "latin1.py": b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + LATE_CONFIG.encode(),
}


@pytest.mark.parametrize("name", sorted(ODD_BUT_FINE))
def test_odd_but_valid_files_are_linted(tmp_path, check, name):
    (tmp_path / name).write_bytes(ODD_BUT_FINE[name])
    status, out, err = check(tmp_path, name)
    assert err == ""
    expected = [] if name in ("empty.py", "comments.py") else [FINDING]
    assert _codes(out) == expected
    assert status == (1 if expected else 0)
    if expected:
        line = 5 + (2 if name == "latin1.py" else 0)
        column = 2 if name == "tabs.py" else 5  # a tab is one character
        assert out.startswith(f"{name}:{line}:{column}: TFP301"), out


@pytest.mark.parametrize("name", ["bom.py", "crlf.py", "latin1.py", "tabs.py"])
def test_fix_keeps_encoding_bom_and_line_endings(tmp_path, check, name):
    (tmp_path / name).write_bytes(ODD_BUT_FINE[name])
    status, _, err = check(tmp_path, "--fix", name)
    assert (status, err) == (0, "")
    data = (tmp_path / name).read_bytes()
    assert data != ODD_BUT_FINE[name]
    assert data.startswith(b"\xef\xbb\xbf") == (name == "bom.py")
    if name == "crlf.py":
        assert data.count(b"\n") == data.count(b"\r\n")
    if name == "latin1.py":
        assert b"caf\xe9" in data


# A tab after a block indented by spaces: CPython reads the tab as a move to column
# 8 and accepts the module; LibCST's tokenizer does not ("no matching outer block").
TAB_AFTER_SPACES = (
    "import tensorflow as tf\n"
    "\n"
    "def setup():\n"
    '    """A docstring whose second line\n'
    '\tkeeps its tab."""\n'
    "    scale = tf.constant(2.0)\n"
    '    for gpu in tf.config.list_physical_devices("GPU"):\n'
    "\t    tf.config.experimental.set_memory_growth(gpu, True)\n"
)


def test_a_tab_after_spaces_is_analysed_as_cpython_reads_it(tmp_path, check):
    (tmp_path / "mixed_tabs.py").write_text(TAB_AFTER_SPACES)
    status, out, err = check(tmp_path, "--show-fixes", "mixed_tabs.py")
    assert (status, err) == (1, "")
    assert _codes(out) == [FINDING]
    assert out.startswith("mixed_tabs.py:8:6: TFP301"), out  # the column as written
    assert "[*]" not in out  # no fix for a file the fixer would re-indent
    before = (tmp_path / "mixed_tabs.py").read_text()
    assert check(tmp_path, "--fix", "mixed_tabs.py")[0] == 1
    assert (tmp_path / "mixed_tabs.py").read_text() == before


def test_indentation_expansion_leaves_strings_alone():
    from tflint_perf.engine.indentation import expand_indentation

    expanded = expand_indentation(TAB_AFTER_SPACES)
    assert expanded is not None
    assert expanded.shifts == {8: 7}  # one tab: eight columns for one character
    assert "\tkeeps its tab." in expanded.source  # inside the docstring
    assert expanded.column(8, 13) == 6 and expanded.column(7, 5) == 5
    assert expand_indentation("x = 1\n") is None


def _parity(source: str, out: str) -> None:
    """TFP000 exactly when the running Python cannot compile it either."""
    assert ("TFP000" in _codes(out)) == (compile_error(source) is not None), out


DEEP = {
    "chain.py": "import tensorflow as tf\nx = " + " + ".join(["1"] * 3000) + "\n",
    "parens.py": "import numpy as np\nx = " + "(" * 500 + "1" + ")" * 500 + "\n",
    "blocks.py": "import numpy as np\n"
    + "".join(" " * i + "if x:\n" for i in range(100))
    + " " * 100
    + "pass\n",
    "py2.py": 'import tensorflow as tf\nprint "hello"\n',
    "match.py": "import numpy as np\nmatch x:\n    case [a, *_]:\n        pass\n",
    "type_alias.py": "import numpy as np\ntype Vector = list[float]\n",
    "generics.py": "import numpy as np\ndef first[T](xs: list[T]) -> T:\n    return xs[0]\n",
    "fstring.py": 'import numpy as np\nname = "x"\ny = f"{"nested" + name}"\n',
}


@pytest.mark.parametrize("name", sorted(DEEP))
def test_deep_old_and_newest_syntax(tmp_path, check, name):
    (tmp_path / name).write_text(DEEP[name])
    (tmp_path / "other.py").write_text(LATE_CONFIG)
    status, out, err = check(tmp_path, ".")
    assert err == "" and status == 1
    assert "other.py:5:5: TFP301" in out  # the run went on
    _parity(DEEP[name], "\n".join(line for line in out.splitlines() if line.startswith(name)))


def test_undecodable_and_binary_files_are_tfp000(tmp_path, check):
    (tmp_path / "bytes.py").write_bytes(b"x = '\xff\xfe'\n")
    (tmp_path / "binary.py").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "other.py").write_text(LATE_CONFIG)
    status, out, err = check(tmp_path, ".")
    assert (status, err) == (1, "")
    assert _codes(out) == ["TFP000", "TFP000", "TFP301"]


def test_a_folder_named_like_a_module_is_walked(tmp_path, check):
    (tmp_path / "pkg.py").mkdir()
    (tmp_path / "pkg.py" / "inner.py").write_text(LATE_CONFIG)
    status, out, _ = check(tmp_path, ".")
    assert status == 1 and out.startswith("pkg.py/inner.py:5:5: TFP301")


def test_symlink_loops_under_a_walked_folder(tmp_path, check):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "ok.py").write_text(LATE_CONFIG)
    os.symlink("..", tmp_path / "src" / "up")  # a folder loop
    os.symlink("b.py", tmp_path / "src" / "a.py")  # a file loop
    os.symlink("a.py", tmp_path / "src" / "b.py")
    os.symlink("missing.py", tmp_path / "src" / "dangling.py")
    status, out, err = check(tmp_path, "src")
    assert (status, err) == (1, "")
    assert _codes(out) == [FINDING]


def test_a_fifo_is_skipped_when_walked_and_refused_when_named(tmp_path, check):
    os.mkfifo(tmp_path / "pipe.py")  # reading it would block forever
    (tmp_path / "ok.py").write_text(LATE_CONFIG)
    status, out, err = check(tmp_path, ".")
    assert (status, err, _codes(out)) == (1, "", [FINDING])
    status, _, err = check(tmp_path, "pipe.py")
    assert status == 2
    _one_error_line(err, "pipe.py: not a regular file")


def test_an_unreadable_file_is_one_line_and_exit_2(tmp_path, check, monkeypatch):
    from tflint_perf.run import files

    (tmp_path / "locked.py").write_text(LATE_CONFIG)
    (tmp_path / "other.py").write_text(LATE_CONFIG)
    real = files.read_bytes

    def read_bytes(path):
        if path.endswith("locked.py"):
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(files, "read_bytes", read_bytes)
    status, out, err = check(tmp_path, "--no-cache", ".")
    assert status == 2
    assert out.startswith("other.py:5:5: TFP301")
    _one_error_line(err, "error: locked.py: cannot read: Permission denied")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_for_real(tmp_path, check):
    locked = tmp_path / "locked.py"
    locked.write_text(LATE_CONFIG)
    locked.chmod(0)
    status, _, err = check(tmp_path, "--no-cache", ".")
    assert status == 2
    _one_error_line(err, "locked.py: cannot read")


def test_an_internal_error_is_that_files_error(tmp_path, check, monkeypatch):
    from tflint_perf.run import files

    real = files._lint_text

    def flaky(source, path, *args):
        if path.endswith("boom.py"):
            raise KeyError("a bug")
        return real(source, path, *args)

    monkeypatch.setattr(files, "_lint_text", flaky)
    (tmp_path / "boom.py").write_text(LATE_CONFIG)
    (tmp_path / "other.py").write_text(LATE_CONFIG)
    status, out, err = check(tmp_path, "--no-cache", ".")
    assert status == 2 and _codes(out) == [FINDING]
    _one_error_line(err, "boom.py: internal error: KeyError", "please report")


def test_a_run_with_a_file_not_linted_does_not_say_all_passed(tmp_path, check, monkeypatch):
    from tflint_perf.run import files

    def broken(source, path, *args):
        raise KeyError("a bug")

    monkeypatch.setattr(files, "_lint_text", broken)
    (tmp_path / "boom.py").write_text(LATE_CONFIG)
    status, out, err = check(tmp_path, "--no-cache", ".")
    assert status == 2
    assert out == "1 file could not be linted (see the errors).\nNo findings in the other files.\n"
    _one_error_line(err, "boom.py: internal error: KeyError", "please report")


def test_a_50000_line_file_finishes_in_bounded_memory(tmp_path, cli_env):
    body = "".join(f"def f{i}(x):\n    return tf.reduce_sum(x) + {i}\n" for i in range(25_000))
    (tmp_path / "big.py").write_text("import tensorflow as tf\n" + body)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    proc = subprocess.run(
        [sys.executable, "-m", "tflint_perf", "check", "--no-cache", "big.py"],
        cwd=tmp_path,
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "All checks passed!\n", "")
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    assert peak_mib < 1536 or before / 1024 >= 1536, f"{peak_mib:.0f} MiB"


# -- notebooks -------------------------------------------------------------------


def test_notebooks_not_json_and_nbformat_3(tmp_path, check):
    (tmp_path / "broken.ipynb").write_text('{\n "cells": [\n  {"cell_type": "code",\n')
    (tmp_path / "old.ipynb").write_text(json.dumps({"nbformat": 3, "worksheets": []}))
    status, out, err = check(tmp_path, ".")
    assert (status, err) == (1, "")
    lines = out.splitlines()
    assert lines[0].startswith("broken.ipynb:4:1: TFP000 cannot read notebook: invalid JSON")
    assert lines[1].startswith("old.ipynb:1:1: TFP000 cannot read notebook: nbformat 3")


def test_notebook_cell_source_as_string_or_list(tmp_path, check):
    as_list = json.loads(notebook(LATE_CONFIG))
    as_string = json.loads(notebook(LATE_CONFIG))
    as_string["cells"][0]["source"] = LATE_CONFIG
    (tmp_path / "list.ipynb").write_text(json.dumps(as_list, indent=1))
    (tmp_path / "string.ipynb").write_text(json.dumps(as_string, indent=1))
    status, out, _ = check(tmp_path, ".")
    assert status == 1
    assert [line.split(": ", 1)[0] for line in out.splitlines()[:2]] == [
        "list.ipynb:cell 1:5:5",
        "string.ipynb:cell 1:5:5",
    ]


# -- arguments -------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, says",
    [
        (["missing.py"], "missing.py: No such file or directory"),
        (["README.md"], "README.md: not a Python file"),
        (["--select", "TFP999", "ok.py"], "unknown rule code or prefix 'TFP999'"),
        (["--select", "TFP301", "--ignore", "TFP301", "ok.py"], "'TFP301' is both selected"),
        (["--baseline", "folder", "ok.py"], "--baseline: cannot read folder"),
        (["--output-file", "folder", "ok.py"], "cannot write the report to folder"),
        (["--output", "json", "ok.py"], "unrecognized arguments: --output"),
        (["--statistics", "--format", "sarif", "ok.py"], "--statistics works with"),
        (["--verify", "--verify-timeout", "inf", "ok.py"], "finite number of seconds"),
        (["--verify", "--verify-timeout", "nan", "ok.py"], "finite number of seconds"),
        (["-", "ok.py"], "'-' (stdin) cannot be combined"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(tmp_path, check, args, says):
    (tmp_path / "ok.py").write_text(LATE_CONFIG)
    (tmp_path / "README.md").write_text("# hello\n")
    (tmp_path / "folder").mkdir()
    status, out, err = check(tmp_path, *args)
    assert status == 2, out + err
    _one_error_line(err, says)
    assert not (tmp_path / "json").exists()  # no abbreviation of --output-file


def test_a_script_with_a_python_shebang_is_linted_when_named(tmp_path, check):
    (tmp_path / "train").write_text("#!/usr/bin/env python3\n" + LATE_CONFIG)
    status, out, _ = check(tmp_path, "train")
    assert status == 1 and out.startswith("train:6:5: TFP301")


@pytest.mark.parametrize(
    "config, says",
    [
        ("[tool.tflint-perf]\nselect = 'TFP1\n", "pyproject.toml:2:10: invalid TOML"),
        ("[tool.tflint-perf]\nselect = 3\n", "select: expected a string or a list of strings"),
        ("[tool.tflint-perf]\nselect = ['TFP3']\nignore = ['TFP3']\n", "both selected and"),
        ("[tool.tflint-perf]\nselect = 'TFP\\xff'\n", "unknown rule code or prefix"),
    ],
)
def test_bad_discovered_pyproject_is_one_line_and_exit_2(tmp_path, check, config, says):
    (tmp_path / "pyproject.toml").write_text(config)
    (tmp_path / "ok.py").write_text(LATE_CONFIG)
    status, _, err = check(tmp_path, "ok.py")
    assert status == 2
    _one_error_line(err, says)


def test_someone_elses_broken_pyproject_is_not_ours(tmp_path, check):
    (tmp_path / "pyproject.toml").write_text("[tool.black\nline-length = 3\n")
    (tmp_path / "ok.py").write_text(LATE_CONFIG)
    assert check(tmp_path, "ok.py")[0] == 1


def test_select_as_one_string_is_a_list_of_one(tmp_path, check):
    (tmp_path / "pyproject.toml").write_text("[tool.tflint-perf]\nselect = 'TFP1'\n")
    (tmp_path / "ok.py").write_text(LATE_CONFIG)
    assert check(tmp_path, "ok.py")[:2] == (0, "All checks passed!\n")


def test_statistics_as_json(tmp_path, check):
    (tmp_path / "ok.py").write_text(LATE_CONFIG)
    status, out, _ = check(tmp_path, "--statistics", "--format", "json", "ok.py")
    assert status == 1
    assert json.loads(out) == [
        {"code": "TFP301", "name": "device-config-after-init", "count": 1, "fixable": True}
    ]
