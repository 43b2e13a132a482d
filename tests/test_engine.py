"""Engine guarantees: no TensorFlow import, name resolution, docs in sync."""

import subprocess
import sys
import textwrap

import libcst as cst
import pytest
from conftest import ROOT

from tflint_perf.docs import expected_pages
from tflint_perf.engine.linter import lint_source
from tflint_perf.engine.names import ImportTable, place
from tflint_perf.engine.nodes import is_none_test
from tflint_perf.engine.rule import DOC_SECTIONS
from tflint_perf.rules import all_rules


def test_linting_never_imports_tensorflow(tmp_path, cli_env):
    """Import the linter and lint every fixture; TensorFlow must stay unloaded."""
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from tflint_perf.cli import main
        code = main(["check", "--exit-zero", "-q", {str(ROOT / "fixtures")!r}, {str(ROOT / "examples")!r}])
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("tensorflow", "keras", "tf_keras", "torch", "jax"))
        print("LOADED", loaded)
        sys.exit(code)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=cli_env, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "LOADED []" in result.stdout


def _qual(source, expr):
    table = ImportTable.from_module(cst.parse_module(source))
    return table.qualname(cst.parse_expression(expr))


@pytest.mark.parametrize(
    "source, expr, expected",
    [
        (
            "import tensorflow as tf",
            "tf.config.set_visible_devices",
            "tensorflow.config.set_visible_devices",
        ),
        ("import tensorflow.compat.v1 as tf", "tf.Session", "tensorflow.Session"),
        ("import tensorflow as tf", "tf.compat.v1.Session", "tensorflow.Session"),
        ("from tensorflow import keras", "keras.layers.Dense", "keras.layers.Dense"),
        ("from tensorflow.keras import layers as L", "L.Dense", "keras.layers.Dense"),
        ("import tensorflow as tf", "tf.keras.Model", "keras.Model"),
        ("import keras", "keras.Sequential", "keras.Sequential"),
        ("import tf_keras as keras", "keras.Sequential", "keras.Sequential"),
        ("import numpy as np", "np.sum", "numpy.sum"),
        (
            "from tensorflow.config import experimental as ex",
            "ex.set_memory_growth",
            "tensorflow.config.experimental.set_memory_growth",
        ),
        ("import tensorflow", "tensorflow.constant", "tensorflow.constant"),
        ("def f():\n    import tensorflow as t2\n", "t2.zeros", "tensorflow.zeros"),
        (
            "try:\n    import tensorflow as tf\nexcept ImportError:\n    tf = None\n",
            "tf.zeros",
            "tensorflow.zeros",
        ),
        ("import tensorflow as tf", "np.sum", None),
        ("from . import tf", "tf.zeros", ".tf.zeros"),
        ("tf = object()", "tf.zeros", None),
    ],
)
def test_qualified_names(source, expr, expected):
    assert _qual(source, expr) == expected


@pytest.mark.parametrize(
    "expr, expected",
    [
        ("x", "x"),
        ("self.images", "self.images"),
        ("log['loss']", "log['loss']"),
        ("self.hist['loss'][0]", "self.hist['loss'][0]"),
        ("log[key]", None),  # a computed key: another slot on each read
        ("log['a', 'b']", None),
        ("x[1:2]", None),
        ("f().x", None),
    ],
)
def test_a_place_is_a_name_with_literal_keys(expr, expected):
    assert place(cst.parse_expression(expr)) == expected


@pytest.mark.parametrize(
    "expr, expected",
    [("x is None", True), ("x.y is not None", True), ("x == None", False)]
    + [("x is None is y", False), ("x is False", False), ("None", False)],
)
def test_a_none_test_is_an_identity_comparison_with_none(expr, expected):
    assert is_none_test(cst.parse_expression(expr)) is expected


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_rule_metadata_and_docstring(rule):
    import re

    assert re.fullmatch(r"TFP\d{3}", rule.code)
    assert re.fullmatch(r"[a-z]+(-[a-z0-9]+)*", rule.name)
    assert rule.summary() and rule.message
    sections = rule.doc_sections()
    for section in DOC_SECTIONS:
        assert sections.get(section), f"{rule.code}: docstring lacks '## {section}'"
    assert "```python" in sections["Example"] and "```python" in sections["Use instead"]
    if rule.fixable:
        assert sections.get("Fix safety"), f"{rule.code} is fixable: document '## Fix safety'"
    assert rule.__module__.split(".")[-1].startswith(rule.code.lower())


def test_rule_codes_and_names_unique():
    rules = all_rules()
    assert len({r.code for r in rules}) == len(rules)
    assert len({r.name for r in rules}) == len(rules)


def test_docs_pages_in_sync():
    directory = ROOT / "docs" / "rules"
    expected = expected_pages()
    actual = {p.name: p.read_text() for p in directory.glob("*.md")}
    stale = sorted(set(actual) ^ set(expected)) + sorted(
        n for n in expected if actual.get(n) != expected[n]
    )
    assert not stale, f"docs/rules out of date ({stale}): run `python -m tflint_perf.docs`"


def test_readme_rule_table_in_sync():
    from tflint_perf.docs import readme_with_table

    readme = (ROOT / "README.md").read_text()
    assert readme == readme_with_table(readme), (
        "README rule table stale: run `python -m tflint_perf.docs`"
    )


def test_walk_handles_deep_nesting():
    from tflint_perf.engine.linter import lint_source

    # 900 terms: deeper than the default recursion limit allows a recursive walk,
    # still compilable by CPython.
    source = "import tensorflow as tf\nx = tf.constant(1)\ny = " + " + ".join(["x"] * 900)
    source += "\ntf.config.set_visible_devices([])\n"
    findings = lint_source(source, "deep.py", all_rules())
    assert [(f.line, f.code) for f in findings] == [(4, "TFP301")]


def test_module_level_aliases_exclude_function_imports():
    source = "import numpy as np\ntry:\n    import tensorflow as tf\nexcept ImportError:\n    pass\ndef f():\n    import tensorflow as t2\n"
    table = ImportTable.from_module(cst.parse_module(source))
    assert set(table.aliases) == {"np", "tf", "t2"}
    assert set(table.module_aliases) == {"np", "tf"}


def _star_names(source, *names):
    import tflint_perf.analysis.api  # noqa: F401  (registers what star imports bring in)

    module = cst.parse_module(source)
    table = ImportTable.from_module(module)
    return [table.qualname(cst.parse_expression(n)) for n in names]


def test_star_imports_resolve_what_the_api_table_says_the_module_exports():
    source = "from keras.models import *\nfrom tensorflow.keras.layers import *\n"
    found = _star_names(source, "Model", "Dense", "Input", "len", "helper", "Dense.units")
    # Model: keras.layers (imported last) does not export it, keras.models does.
    assert found == [
        "keras.models.Model",
        "keras.layers.Dense",
        "keras.layers.Input",
        None,  # a builtin
        None,  # nothing says a star module exports it
        "keras.layers.Dense.units",
    ]


def test_a_module_level_definition_shadows_a_star_import():
    source = "from keras.layers import *\nclass Dense:\n    pass\nConv2D = make_conv\n"
    assert _star_names(source, "Dense", "Conv2D", "Flatten") == [
        None,
        None,
        "keras.layers.Flatten",
    ]


@pytest.mark.parametrize(
    "source, line, column, says",
    [
        ("import numpy as np\nx = 1\ny = f(1，2)\n", 3, 8, "invalid character"),
        ("import numpy as np\nx = 1\ndef f()\n    return 1\n\n\nprint(2)\n", 3, 8, "expected ':'"),
        ("x = 1\nif x\n    pass\n", 2, 5, "expected ':'"),  # no rule needs it: cheap check
    ],
)
def test_syntax_errors_are_reported_where_python_reports_them(source, line, column, says):
    from tflint_perf.engine.linter import lint_source

    (finding,) = lint_source(source, "broken.py", all_rules())
    assert (finding.code, finding.line, finding.column) == ("TFP000", line, column)
    assert says in finding.message


def test_percent_script_with_a_broken_cell_lints_the_other_cells():
    from tflint_perf.engine.linter import lint_source

    source = (
        "# %% [cell 0]\nimport tensorflow as tf\n"
        "# %% [cell 1]\nx = None  # YOUR CODE HERE\ny = (\n"
        "# %% [cell 2]\nscale = tf.constant(2.0)\n"
        'tf.config.experimental.set_memory_growth(tf.config.list_physical_devices("GPU")[0], True)\n'
    )
    found = [(f.line, f.code) for f in lint_source(source, "lab.py", all_rules())]
    assert found == [(5, "TFP000"), (8, "TFP301")]
    # The same text without cell markers is one module: only the syntax error.
    plain = source.replace("# %%", "# --")
    assert [f.code for f in lint_source(plain, "lab.py", all_rules())] == ["TFP000"]


def test_pathological_nesting_is_a_syntax_finding_not_a_crash():
    from tflint_perf.engine.linter import lint_source

    chain = "x = " + " + ".join(["1"] * 3000) + "\n"
    for source in (chain, "import tensorflow as tf\n" + chain + "tf.constant(1)\n"):
        findings = lint_source(source, "deep.py", all_rules())
        assert [f.code for f in findings] == ["TFP000"], findings


PREDICT_PER_STEP = """\
import numpy as np
import tensorflow as tf

model = tf.keras.models.load_model("dqn.keras")
state = np.zeros(4)
for step in range(500):
    action = np.argmax(model.predict(state[np.newaxis], verbose=0)[0])
    state = np.roll(state, int(action))
"""


@pytest.mark.parametrize(
    "path, extra, reported",
    [
        ("project/test/play_dqn.py", "", True),  # a script kept in test/: linted
        ("project/tests/play_dqn.py", "import pytest\n", False),  # uses a test framework
        ("project/tests/replay.py", "\ndef test_replay():\n    pass\n", False),
        ("project/test_dqn.py", "", False),  # a test file by name
        ("project/dqn_test.py", "", False),
    ],
)
def test_test_code_is_told_by_name_or_by_framework(path, extra, reported):
    findings = lint_source(PREDICT_PER_STEP + extra, path, all_rules())
    assert any(f.code == "TFP403" for f in findings) is reported, findings


# What each layer may import of the package (CONTRIBUTING.md, the folders' docstrings);
# "" is the package itself (``__version__``).
ALLOWED_IMPORTS = {
    "engine": {"", "engine"},
    "analysis": {"", "engine", "analysis"},
    "rules": {"", "engine", "analysis", "rules"},
    "run": {"", "engine", "analysis", "rules", "run"},
    "verify": {"", "engine", "analysis", "rules", "run", "verify"},
}


def _layer_of_import(module: str):
    """The layer a ``tflint_perf...`` import reaches: a folder, "" for the package
    itself, "faces" for its top-level modules (cli, reporters, ...); None outside."""
    parts = module.split(".")
    if parts[0] != "tflint_perf":
        return None
    if len(parts) == 1 or parts[1] == "__version__":
        return ""
    return parts[1] if parts[1] in ALLOWED_IMPORTS else "faces"


def test_lower_layers_never_import_higher_ones():
    import ast

    wrong = []
    sources = [(p, p.parent.name) for p in (ROOT / "tflint_perf").glob("*/*.py")]
    sources += [(p, "rules") for p in (ROOT / "rules").glob("*.py")]
    for path, layer in sources:
        if layer not in ALLOWED_IMPORTS:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
                if node.module == "tflint_perf":  # from tflint_perf import reporters
                    names = [f"tflint_perf.{alias.name}" for alias in node.names]
            for name in names:
                target = _layer_of_import(name)
                if target is not None and target not in ALLOWED_IMPORTS[layer]:
                    wrong.append(f"{path.relative_to(ROOT)}: {name}")
    assert not wrong, wrong
