"""The IPython extension (``%load_ext tflint_perf``) in an in-process shell.

The cells run for real, against a stand-in ``tensorflow`` module (any
attribute, any call), so the tests need neither TensorFlow nor a kernel;
tests/test_ipython_kernel.py runs it once through a real Jupyter kernel.
"""

import subprocess
import sys
import textwrap
import types

import pytest

IPython = pytest.importorskip("IPython")  # the dev extra has it; `pip install tflint-perf` does not

from IPython.core.interactiveshell import InteractiveShell  # noqa: E402
from IPython.utils.capture import capture_output  # noqa: E402
from traitlets.config import Config  # noqa: E402

from tflint_perf import ipython as extension  # noqa: E402
from tflint_perf.kernel import History, run_cell  # noqa: E402

IMPORT = "import tensorflow as tf"
LIST_GPUS = 'gpus = tf.config.list_physical_devices("GPU")'
MODEL = "x = tf.constant([1.0, 2.0])"
MEMORY_GROWTH = "for gpu in gpus:\n    tf.config.experimental.set_memory_growth(gpu, True)"


class _Anything:
    """Stands in for any TensorFlow attribute or call result."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self

    def __call__(self, *args, **kwargs):
        return self

    def __iter__(self):
        return iter([self])


@pytest.fixture(scope="module")
def _shell(tmp_path_factory):
    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    config.InteractiveShell.colors = "nocolor"
    mp = pytest.MonkeyPatch()
    mp.setenv("IPYTHONDIR", str(tmp_path_factory.mktemp("ipythondir")))
    shell = InteractiveShell.instance(config=config)
    yield shell
    mp.undo()


@pytest.fixture
def shell(_shell, monkeypatch, tmp_path):
    """A fresh session in a folder without configuration, TensorFlow stubbed."""
    stub = types.ModuleType("tensorflow")
    stub.__getattr__ = _Anything().__getattr__
    monkeypatch.setitem(sys.modules, "tensorflow", stub)
    monkeypatch.chdir(tmp_path)
    _shell.reset(new_session=True)
    yield _shell
    _shell.run_line_magic("unload_ext", "tflint_perf")
    assert not extension._loaded


def run(shell, source):
    """Run one cell as Jupyter does: (result, what tflint-perf showed, stdout)."""
    with capture_output() as io:
        result = shell.run_cell(source, store_history=True)
    shown = [o.data for o in io.outputs if "tflint-perf" in o.data.get("text/plain", "")]
    return result, shown, io.stdout


def shown_codes(shell, source):
    result, shown, _ = run(shell, source)
    assert result.success, result.error_in_exec
    return [line.split()[3] for out in shown for line in out["text/plain"].splitlines()]


def load(shell):
    result, _, _ = run(shell, "%load_ext tflint_perf")
    assert result.success


def test_execution_order_decides_not_file_order(shell):
    """The memory-growth cell is quiet before the model cell runs and TFP301
    when run again after it; the finding names the model cell by its In [n]."""
    load(shell)
    for source in (IMPORT, LIST_GPUS):
        assert shown_codes(shell, source) == []
    assert shown_codes(shell, MEMORY_GROWTH) == []  # In [4]: no tensor yet
    assert shown_codes(shell, MODEL) == []  # In [5]
    result, shown, _ = run(shell, MEMORY_GROWTH)  # In [6]
    assert result.success
    [out] = shown
    text, markup = out["text/plain"], out["text/html"]
    assert text.startswith("tflint-perf: line 2:5: TFP301 ")
    assert "started at cell 5, line 1" in text
    assert markup.count("<li ") == 1
    assert "<code>TFP301</code> line 2:" in markup
    assert "<code>set_memory_growth()</code>" in markup


def test_cells_run_before_loading_are_context(shell):
    for source in (IMPORT, LIST_GPUS, MODEL):
        run(shell, source)
    load(shell)
    assert shown_codes(shell, MEMORY_GROWTH) == ["TFP301"]


def test_plain_text_outside_jupyter(shell):
    """A shell that shows only text (a terminal) prints the text lines."""
    for source in ("%load_ext tflint_perf", IMPORT, LIST_GPUS, MODEL):
        run(shell, source)
    with capture_output(display=False) as io:
        shell.run_cell(MEMORY_GROWTH, store_history=True)
    assert io.stdout.startswith("tflint-perf: line 2:5: TFP301 ")
    assert "<li" not in io.stdout


def test_off_on_and_the_cell_magic(shell):
    load(shell)
    run(shell, IMPORT)
    run(shell, LIST_GPUS)
    run(shell, "%tflint_perf off")
    assert shown_codes(shell, MODEL) == []  # off, but still context
    assert shown_codes(shell, MEMORY_GROWTH) == []
    # %%tflint_perf lints its cell while off, and runs it (its value is the output).
    result, shown, stdout = run(shell, f"%%tflint_perf\n{MEMORY_GROWTH}\nran = 41 + 1\nran")
    assert result.success and result.result == 42
    assert [o["text/plain"].split()[3] for o in shown] == ["TFP301"]
    assert "line 3:5" in shown[0]["text/plain"]  # lines of the cell, the magic line counted
    run(shell, "%tflint_perf on")
    assert shown_codes(shell, MEMORY_GROWTH) == ["TFP301"]


def test_status_and_usage_lines(shell):
    load(shell)
    _, shown, _ = run(shell, "%tflint_perf")
    assert shown[0]["text/plain"].startswith("tflint-perf is on;")
    _, shown, _ = run(shell, "%tflint_perf loud")
    assert shown[0]["text/plain"].startswith("tflint-perf: usage: %tflint_perf [on|off]")


def test_a_cell_magic_body_that_raises_fails_the_cell(shell):
    """Run All stops at it, as at any failing cell."""
    load(shell)
    result, _, _ = run(shell, "%%tflint_perf\nraise ValueError('from the body')")
    assert isinstance(result.error_in_exec, ValueError)


def test_a_cell_that_does_not_compile_is_not_context(shell):
    """It never ran: its tensor did not start the runtime. IPython reports
    the syntax error; tflint-perf adds nothing."""
    load(shell)
    run(shell, IMPORT)
    run(shell, LIST_GPUS)
    result, shown, _ = run(shell, MODEL + "\nif x:")
    assert result.error_before_exec is not None and shown == []
    assert shown_codes(shell, MEMORY_GROWTH) == []


def test_cells_run_inside_a_cell_are_that_cell(shell):
    """%%capture runs its body as a nested cell: one cell of context, In [4]
    with its lines, not a cell of its own."""
    load(shell)
    run(shell, IMPORT)
    run(shell, LIST_GPUS)
    before = len(extension._loaded[id(shell)].history.cells)
    run(shell, f"%%capture\n{MODEL}")
    assert len(extension._loaded[id(shell)].history.cells) == before + 1
    _, [out], _ = run(shell, MEMORY_GROWTH)
    assert "started at cell 4, line 2:" in out["text/plain"]


def test_a_noqa_line_turns_off_its_cell_only(shell):
    load(shell)
    for source in (IMPORT, LIST_GPUS, MODEL):
        run(shell, source)
    assert shown_codes(shell, "# tflint-perf: noqa\n" + MEMORY_GROWTH) == []
    assert shown_codes(shell, MEMORY_GROWTH) == ["TFP301"]


def test_the_nearest_pyproject_configures_it(shell, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tflint-perf]\nignore = ["TFP301"]\n')
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    shell.run_line_magic("cd", str(notebooks))
    load(shell)
    for source in (IMPORT, LIST_GPUS, MODEL):
        run(shell, source)
    assert shown_codes(shell, MEMORY_GROWTH) == []
    (tmp_path / "pyproject.toml").write_text('[tool.tflint-perf]\nselect = ["TFP3"]\n')
    assert shown_codes(shell, MEMORY_GROWTH) == ["TFP301"]  # read again for each cell


def test_patterns_match_the_notebook_the_front_end_names(shell, tmp_path):
    """VS Code (and JupyterLab, as ``__session__``) tell the kernel its notebook."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.tflint-perf]\nexclude = ["drafts"]\n'
        '[tool.tflint-perf.per-file-ignores]\n"train.ipynb" = ["TFP301"]\n'
    )
    (tmp_path / "drafts").mkdir()
    for name in ("train.ipynb", "explore.ipynb", "drafts/try.ipynb"):
        (tmp_path / name).write_text("{}")
    load(shell)
    for source in (IMPORT, LIST_GPUS, MODEL):
        run(shell, source)
    expected = {"train.ipynb": [], "explore.ipynb": ["TFP301"], "drafts/try.ipynb": []}
    for name, codes in expected.items():
        shell.user_ns["__vsc_ipynb_file__"] = str(tmp_path / name)
        assert shown_codes(shell, MEMORY_GROWTH) == codes, name


def test_bad_configuration_is_one_line_and_the_cell_runs(shell, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tflint-perf]\nselect = ["TFP999"]\n')
    load(shell)
    result, shown, _ = run(shell, "answer = 42")
    assert result.success and shell.user_ns["answer"] == 42
    [out] = shown
    assert out["text/plain"].count("\n") == 0
    assert "unknown rule code or prefix 'TFP999'" in out["text/plain"]


def test_an_internal_error_is_one_line_and_the_cell_runs(shell, monkeypatch):
    load(shell)

    def broken(*args, **kwargs):
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(History, "lint", broken)
    result, shown, _ = run(shell, "answer = 42")
    assert result.success and shell.user_ns["answer"] == 42
    [out] = shown
    assert out["text/plain"] == (
        "tflint-perf: internal error, cell not linted (RuntimeError: boom); "
        "%tflint_perf off stops linting"
    )


def test_unloading_stops_it(shell):
    for source in ("%load_ext tflint_perf", IMPORT, LIST_GPUS, MODEL):
        run(shell, source)
    run(shell, "%unload_ext tflint_perf")
    assert shown_codes(shell, MEMORY_GROWTH) == []
    assert "tflint_perf" not in shell.magics_manager.magics["line"]
    load(shell)  # loaded again: the history is the shell's, so it knows the model cell
    assert shown_codes(shell, MEMORY_GROWTH) == ["TFP301"]


# -- the context a cell is linted with --------------------------------------


def _history(*sources):
    history = History()
    for number, source in enumerate(sources, 1):
        history.add(run_cell(number, source))
    return history


def test_the_whole_history_while_it_fits():
    history = _history("a = 1", "b = 2", "c = 3")
    cell = run_cell(4, "print(c)")
    assert [c.number for c in history.context(cell, limit=3)] == [1, 2, 3]


def test_past_the_limit_what_the_cell_reads_comes_first():
    history = _history(
        "import tensorflow as tf",  # 1: binds tf
        "unrelated = 1",  # 2
        "def build():\n    return tf.constant(1)",  # 3: binds build, reads tf
        "other = 2",  # 4
        "value = build()",  # 5: binds value, reads build
    )
    cell = run_cell(6, "print(value)")
    # value <- 5, build <- 3, tf <- 1; then the rest oldest first while lines remain
    assert [c.number for c in history.context(cell, limit=4)] == [1, 3, 5]
    assert [c.number for c in history.context(cell, limit=5)] == [1, 2, 3, 5]


def test_a_functions_own_names_are_not_read_from_other_cells():
    history = _history(
        "import numpy as np",  # 1: binds np
        "out = 3",  # 2: binds out
        "def setup():\n    global model\n    model = 1",  # 3: binds setup and model
    )
    # backward reads np; its `out` is its own local, not cell 2's
    backward = run_cell(4, "def backward(x):\n    out = np.zeros(x)\n    return out")
    assert [c.number for c in history.context(backward, limit=1)] == [1]
    assert [c.number for c in history.context(run_cell(4, "model"), limit=3)] == [3]


def test_past_the_limit_a_rerun_is_taken_once():
    history = _history("import tensorflow as tf", "x = tf.constant(1)", "x = tf.constant(1)")
    cell = run_cell(4, "y = 1")
    assert [c.number for c in history.context(cell, limit=2)] == [1, 2]


def test_importing_the_package_loads_no_ipython(cli_env):
    script = textwrap.dedent(
        """
        import sys
        import tflint_perf
        assert callable(tflint_perf.load_ipython_extension)
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("IPython", "libcst")
                     or m in ("tflint_perf.ipython", "tflint_perf.kernel")))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=cli_env, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_linting_cells_never_imports_tensorflow(cli_env, tmp_path):
    """The cells mention TensorFlow but never run it: only the linter could import it."""
    script = textwrap.dedent(
        f"""
        import sys
        from IPython.core.interactiveshell import InteractiveShell
        from traitlets.config import Config
        config = Config()
        config.HistoryManager.hist_file = ":memory:"
        shell = InteractiveShell.instance(config=config)
        shell.run_cell("%load_ext tflint_perf", store_history=True)
        for source in {[IMPORT, LIST_GPUS, MODEL, MEMORY_GROWTH]!r}:
            body = "\\n".join("    " + line for line in source.splitlines())
            shell.run_cell("if False:\\n" + body, store_history=True)
        shell.run_cell("%%tflint_perf\\nif False:\\n    import tensorflow", store_history=True)
        print("LOADED", sorted(m for m in sys.modules if m.split(".")[0] in ("tensorflow", "keras")))
        """
    )
    env = dict(cli_env, IPYTHONDIR=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "LOADED []" in out.stdout
    assert "TFP301" in out.stdout  # the cells were linted (the last one ran after the model)
