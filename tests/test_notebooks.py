"""Notebooks: cells joined as one module, magics neutralised, findings per
cell, --fix writing back only the changed cells' sources."""

import json
import shutil
from pathlib import Path

import pytest

from repo_helpers import cli_environment, findings_json, notebook, tflint
from tflint_perf.run import notebooks
from tflint_perf.run.config import Settings
from tflint_perf.run.files import lint_text
from tflint_perf.run.result import CHECK, FIX

FOLDER = Path(__file__).resolve().parent.parent / "fixtures" / "notebooks"
CASES = sorted(p for p in FOLDER.glob("*.ipynb") if not p.name.endswith(".fixed.ipynb"))

LATE = [
    "import tensorflow as tf",
    "scale = tf.constant(2.0)",
    'for gpu in tf.config.list_physical_devices("GPU"):\n    tf.config.experimental.set_memory_growth(gpu, True)',
]


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    return cli_environment(tmp_path_factory.mktemp("home"))


def lint(text, path="nb.ipynb", mode=CHECK):
    return lint_text(text, path, Settings(), mode)


def located(result):
    return sorted(
        f"cell {f.extra['cell']}:{f.extra['cell_line']}:{f.column} {f.code}"
        for f in result.findings
    )


# -- fixtures -----------------------------------------------------------------


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_fixture_findings(path):
    expected = path.with_suffix(".expected")
    want = (
        sorted(line.strip() for line in expected.read_text().splitlines() if line.strip())
        if expected.exists()
        else []
    )
    assert path.name.startswith("bad_") == bool(want)
    assert located(lint(path.read_text(), str(path))) == want


@pytest.mark.parametrize(
    "path", [p for p in CASES if p.with_name(p.stem + ".fixed.ipynb").exists()]
)
def test_fixture_fix_output(path):
    result = lint(path.read_text(), str(path), FIX)
    assert result.error is None and result.fixed > 0
    assert result.fixed_source == path.with_name(path.stem + ".fixed.ipynb").read_text()
    again = lint(result.fixed_source, str(path), FIX)
    assert again.fixed_source is None and again.fixed == 0


def test_cli_text_json_sarif_github(env):
    path = "fixtures/notebooks/bad_device_config_across_cells.ipynb"
    root = FOLDER.parent.parent
    proc = tflint(root, path, env=env)
    assert proc.returncode == 1
    # Cells numbered as ruff does: every cell counts, markdown too (this
    # notebook's 7th cell is its 5th code cell; its 3rd is the 2nd code cell).
    assert proc.stdout.startswith(f"{path}:cell 7:2:5: TFP301 ")
    assert "the runtime started at cell 3, line 1:" in proc.stdout

    (finding,) = findings_json(tflint(root, "--format", "json", path, env=env))
    cell_position = ("cell", "cell_line", "cell_end_line", "cell_column", "cell_end_column")
    assert tuple(finding[k] for k in cell_position) == (7, 2, 2, 5, 56)
    raw_line = (root / path).read_text().splitlines()[finding["line"] - 1]
    assert raw_line.strip() == '"    tf.config.experimental.set_memory_growth(gpu, True)"'
    assert finding["end_line"] == finding["line"]
    # line and column both point into the .ipynb file: the flagged code is there.
    column, end_column = finding["column"], finding["end_column"]
    assert (
        raw_line[column - 1 : end_column - 1]
        == "tf.config.experimental.set_memory_growth(gpu, True)"
    )
    assert "file_column" not in finding

    sarif = json.loads(tflint(root, "--format", "sarif", path, env=env).stdout)
    (result,) = sarif["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == path
    assert location["region"]["startLine"] == finding["line"]
    # Columns in SARIF and GitHub count in the .ipynb line the line number names.
    assert (location["region"]["startColumn"], location["region"]["endColumn"]) == (
        column,
        end_column,
    )

    github = tflint(root, "--format", "github", path, env=env).stdout
    assert github.startswith(
        f"::warning file={path},line={finding['line']},endLine={finding['line']},"
        f"col={column},endColumn={end_column},title=TFP301 "
    )


def test_cli_fix_writes_only_changed_sources(env, tmp_path):
    shutil.copy(FOLDER / "bad_fixable.ipynb", tmp_path / "nb.ipynb")
    proc = tflint(tmp_path, "--fix", "nb.ipynb", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    fixed = (tmp_path / "nb.ipynb").read_text()
    assert fixed == (FOLDER / "bad_fixable.fixed.ipynb").read_text()
    before = json.loads((FOLDER / "bad_fixable.ipynb").read_text())
    after = json.loads(fixed)
    changed = [i for i, (a, b) in enumerate(zip(before["cells"], after["cells"])) if a != b]
    assert changed == [2, 3]  # code cells 2 and 3 (after a markdown cell)
    for i in changed:
        assert {k: v for k, v in before["cells"][i].items() if k != "source"} == {
            k: v for k, v in after["cells"][i].items() if k != "source"
        }
    assert before["metadata"] == after["metadata"]


def test_cli_discovers_notebooks_and_skips_checkpoints(env, tmp_path):
    (tmp_path / "nb.ipynb").write_text(notebook(*LATE))
    (tmp_path / ".ipynb_checkpoints").mkdir()
    (tmp_path / ".ipynb_checkpoints" / "nb-checkpoint.ipynb").write_text(notebook(*LATE))
    findings = findings_json(tflint(tmp_path, "--format", "json", env=env))
    assert [(f["path"], f["cell"]) for f in findings] == [("nb.ipynb", 3)]


def test_cli_stdin_notebook(env, tmp_path):
    proc = tflint(tmp_path, "--stdin-filename", "x.ipynb", "-", env=env, stdin=notebook(*LATE))
    assert proc.returncode == 1
    assert proc.stdout.startswith("x.ipynb:cell 3:2:5: TFP301")


# -- joining and magics -------------------------------------------------------


def test_joined_in_order_across_markdown_and_empty_cells():
    text = notebook(
        LATE[0], ("markdown", "Some *prose*."), "", LATE[1], ("raw", "raw text"), LATE[2]
    )
    # the 4th code cell is the 6th cell: cells are numbered as ruff does
    assert located(lint(text)) == ["cell 6:2:5 TFP301"]


def test_configuration_first_is_quiet():
    assert lint(notebook(LATE[0], LATE[2], LATE[1])).findings == []


@pytest.mark.parametrize(
    "cell",
    [
        "%matplotlib inline",
        "!pip install -q tensorflow",
        "files = !ls /data",
        "result = %time compute()",
        "tf.constant?",
        "?tf.constant",
        "%load_ext autoreload\n%autoreload 2",
        "!echo one \\\n  two",
        "%%bash\nfor f in *.py; do\n  echo $f\ndone",
        "%%writefile helper.py\nimport tensorflow as tf\nx = tf.constant(1)",
        "pip install tensorflow-datasets==4.9",  # automagic: no % needed
        "cd /content/data\nmkdir -p out",
        "if True:\n    pip install -q keras-tuner",
    ],
)
def test_magics_are_neutralised_without_shifting_lines(cell):
    neutral = notebooks.neutralise(cell)
    assert neutral.count("\n") == cell.count("\n")
    compile(neutral, "cell", "exec")
    text = notebook(LATE[0], LATE[1], cell, LATE[2])
    assert located(lint(text)) == ["cell 4:2:5 TFP301"]


@pytest.mark.parametrize(
    "line", ["pip = load()", "time.sleep(1)", "run(cd, ls)", "env = {}", "ls", "history[-1]"]
)
def test_python_that_starts_with_an_automagic_word_is_kept(line):
    assert notebooks.neutralise(line) == line


def test_python_looking_lines_inside_strings_are_kept():
    cell = 'template = """\n%d items\n!important\nwhat?\n"""\nratio = (3\n% 2)\nprint(template % 3)  # why?'
    assert notebooks.neutralise(cell) == cell


def test_time_cell_magic_body_is_code():
    text = notebook(LATE[0], "%%time\nscale = tf.constant(2.0)", LATE[2])
    assert located(lint(text)) == ["cell 3:2:5 TFP301"]
    # %%timeit runs its body in its own scope (and many times): not joined.
    text = notebook(LATE[0], "%%timeit\nscale = tf.constant(2.0)", LATE[2])
    assert located(lint(text)) == []


def test_magic_inside_a_block_keeps_the_block_valid():
    cell = 'for gpu in tf.config.list_physical_devices("GPU"):\n    %env TF_FORCE_GPU_ALLOW_GROWTH=true\n    tf.config.experimental.set_memory_growth(gpu, True)'
    assert located(lint(notebook(LATE[0], LATE[1], cell))) == ["cell 3:3:5 TFP301"]


def test_top_level_await_is_not_a_syntax_error():
    text = notebook(
        "import asyncio\nimport tensorflow as tf", "await asyncio.sleep(0)", LATE[1], LATE[2]
    )
    assert located(lint(text)) == ["cell 4:2:5 TFP301"]
    assert lint(notebook("import asyncio", "await asyncio.sleep(0)")).findings == []


# -- noqa, errors, languages --------------------------------------------------


def test_noqa_in_a_cell():
    cell = LATE[2].replace("True)", "True)  # noqa: TFP301")
    assert lint(notebook(LATE[0], LATE[1], cell)).findings == []
    cell = LATE[2].replace("True)", "True)  # noqa: TFP999")
    assert located(lint(notebook(LATE[0], LATE[1], cell))) == ["cell 3:2:5 TFP301"]


def test_file_level_noqa_in_any_cell():
    assert lint(notebook(*LATE, "# tflint-perf: noqa")).findings == []
    # ... but not in a markdown cell.
    assert lint(notebook(*LATE, ("markdown", "# tflint-perf: noqa"))).findings != []


def test_syntax_error_points_at_the_cell_and_the_other_cells_are_linted():
    text = notebook(*LATE[:2], "def broken(:\n    pass", LATE[2])
    syntax, late = lint(text).findings
    assert syntax.code == "TFP000"
    assert (syntax.extra["cell"], syntax.extra["cell_line"]) == (3, 1)
    assert syntax.message.startswith("SyntaxError")
    assert (late.code, late.extra["cell"], late.extra["cell_line"]) == ("TFP301", 4, 2)


def test_every_broken_cell_is_reported_once():
    text = notebook(LATE[0], "x = None  # YOUR CODE\ny = (", LATE[1], "z = ]", LATE[2])
    findings = lint(text).findings
    assert [(f.code, f.extra["cell"]) for f in findings] == [
        ("TFP000", 2),
        ("TFP000", 4),
        ("TFP301", 5),
    ]


def test_unclosed_bracket_is_blamed_on_its_own_cell():
    text = notebook(LATE[0], "values = [1, 2,", "print(values)")
    (finding,) = lint(text).findings
    assert (finding.code, finding.extra["cell"]) == ("TFP000", 2)


@pytest.mark.parametrize(
    "text, says",
    [
        ("{not json", "invalid JSON"),
        ('{"worksheets": [], "nbformat": 3}', "nbformat 3 is not supported"),
        ("[1, 2]", "not an nbformat 4 notebook"),
    ],
)
def test_unreadable_notebook_is_tfp000(text, says):
    (finding,) = lint(text).findings
    assert finding.code == "TFP000" and says in finding.message
    assert "cell" not in finding.extra


def test_other_kernels_are_skipped():
    nb = json.loads(notebook(*LATE))
    nb["metadata"] = {"kernelspec": {"language": "R", "name": "ir"}, "language_info": {"name": "R"}}
    assert lint(json.dumps(nb)).findings == []


def test_ignored_syntax_code():
    settings = Settings(ignore=["TFP000"])
    assert lint_text("{not json", "nb.ipynb", settings).findings == []


# -- write-back keeps the file's own format -----------------------------------


@pytest.mark.parametrize(
    "options",
    [
        dict(indent=1, sort_keys=True, ensure_ascii=False, trailing_newline=True),  # Jupyter
        dict(indent=2, sort_keys=False, ensure_ascii=True, trailing_newline=False),
        dict(indent=None, sort_keys=False, ensure_ascii=False, trailing_newline=False),  # one line
    ],
    ids=["jupyter", "indent2-ascii", "compact"],
)
def test_fix_keeps_formatting(options):
    cells = [LATE[0], "# Échelle\nscale = tf.constant(2.0)", LATE[2] + "\n", "print('fin ✓')"]
    text = notebook(*cells, **options)
    result = lint(text, mode=FIX)
    assert result.fixed == 1 and result.error is None
    want = notebook(
        LATE[0],
        "# Échelle\n" + LATE[2] + "\nscale = tf.constant(2.0)",
        "",
        "print('fin ✓')",
        **options,
    )
    assert result.fixed_source == want


def test_fix_keeps_string_sources_and_crlf():
    nb = json.loads(notebook(*LATE))
    for cell in nb["cells"]:
        cell["source"] = "".join(cell["source"])
    text = json.dumps(nb, indent=1).replace("\n", "\r\n")
    result = lint(text, mode=FIX)
    assert result.fixed == 1
    fixed = json.loads(result.fixed_source)
    assert [c["source"] for c in fixed["cells"]] == [
        LATE[0],
        LATE[2] + "\nscale = tf.constant(2.0)",
        "",
    ]
    assert result.fixed_source.count("\r\n") == text.count("\r\n")


def test_empty_source_list_gets_lines():
    nb = json.loads(notebook(LATE[0], "x = 1", LATE[1], LATE[2]))
    nb["cells"][1]["source"] = []  # an empty cell before the one the fix edits
    text = json.dumps(nb, indent=1) + "\n"
    result = lint(text, mode=FIX)
    assert result.fixed == 1
    assert json.loads(result.fixed_source)["cells"][1]["source"] == []


def test_fix_that_would_move_a_magic_is_not_offered():
    cell = 'if True:\n    %env TF_CPP_MIN_LOG_LEVEL=2\n    for gpu in tf.config.list_physical_devices("GPU"):\n        tf.config.experimental.set_memory_growth(gpu, True)'
    text = notebook(LATE[0], LATE[1], cell)
    (finding,) = lint(text).findings
    assert finding.fix is None
    result = lint(text, mode=FIX)
    assert result.fixed_source is None


def test_magic_lines_come_back_after_a_fix():
    text = notebook(
        "%matplotlib inline\nimport tensorflow as tf",
        "!nvidia-smi\n" + LATE[1],
        "%env A=1\n" + LATE[2],
    )
    result = lint(text, mode=FIX)
    assert result.fixed == 1
    sources = ["".join(c["source"]) for c in json.loads(result.fixed_source)["cells"]]
    assert sources == [
        "%matplotlib inline\nimport tensorflow as tf",
        "!nvidia-smi\n" + LATE[2] + "\nscale = tf.constant(2.0)",
        "%env A=1",
    ]
