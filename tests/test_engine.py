"""Engine guarantees: no TensorFlow import, name resolution, docs in sync."""

import subprocess
import sys
import textwrap

import libcst as cst
import pytest

from tflint_perf.docs import expected_pages
from tflint_perf.names import ImportTable
from tflint_perf.rule import DOC_SECTIONS
from tflint_perf.rules import all_rules
from conftest import ROOT


def test_linting_never_imports_tensorflow(tmp_path, cli_env):
    """Import the linter and lint every fixture; TensorFlow must stay unloaded."""
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from tflint_perf.cli import main
        code = main(["check", "--exit-zero", "-q", {str(ROOT / 'fixtures')!r}, {str(ROOT / 'examples')!r}])
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("tensorflow", "keras", "tf_keras", "torch", "jax"))
        print("LOADED", loaded)
        sys.exit(code)
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=cli_env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "LOADED []" in result.stdout


def _qual(source, expr):
    table = ImportTable.from_module(cst.parse_module(source))
    return table.qualname(cst.parse_expression(expr))


@pytest.mark.parametrize(
    "source, expr, expected",
    [
        ("import tensorflow as tf", "tf.config.set_visible_devices", "tensorflow.config.set_visible_devices"),
        ("import tensorflow.compat.v1 as tf", "tf.Session", "tensorflow.Session"),
        ("import tensorflow as tf", "tf.compat.v1.Session", "tensorflow.Session"),
        ("from tensorflow import keras", "keras.layers.Dense", "keras.layers.Dense"),
        ("from tensorflow.keras import layers as L", "L.Dense", "keras.layers.Dense"),
        ("import tensorflow as tf", "tf.keras.Model", "keras.Model"),
        ("import keras", "keras.Sequential", "keras.Sequential"),
        ("import tf_keras as keras", "keras.Sequential", "keras.Sequential"),
        ("import numpy as np", "np.sum", "numpy.sum"),
        ("from tensorflow.config import experimental as ex", "ex.set_memory_growth", "tensorflow.config.experimental.set_memory_growth"),
        ("import tensorflow", "tensorflow.constant", "tensorflow.constant"),
        ("def f():\n    import tensorflow as t2\n", "t2.zeros", "tensorflow.zeros"),
        ("try:\n    import tensorflow as tf\nexcept ImportError:\n    tf = None\n", "tf.zeros", "tensorflow.zeros"),
        ("import tensorflow as tf", "np.sum", None),
        ("from . import tf", "tf.zeros", None),
        ("tf = object()", "tf.zeros", None),
    ],
)
def test_qualified_names(source, expr, expected):
    assert _qual(source, expr) == expected


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
    stale = sorted(set(actual) ^ set(expected)) + sorted(n for n in expected if actual.get(n) != expected[n])
    assert not stale, f"docs/rules out of date ({stale}): run `python -m tflint_perf.docs`"


def test_walk_handles_deep_nesting():
    from tflint_perf.linter import lint_source

    source = "import tensorflow as tf\nx = " + " + ".join(["1"] * 3000) + "\n"
    lint_source(source + "tf.config.set_visible_devices([])\n", "deep.py", all_rules())


def test_module_level_aliases_exclude_function_imports():
    source = "import numpy as np\ntry:\n    import tensorflow as tf\nexcept ImportError:\n    pass\ndef f():\n    import tensorflow as t2\n"
    table = ImportTable.from_module(cst.parse_module(source))
    assert set(table.aliases) == {"np", "tf", "t2"}
    assert set(table.module_aliases) == {"np", "tf"}
