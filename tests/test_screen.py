"""The rules' screens (tflint_perf.engine.screen) never lose a finding."""

import subprocess
import sys
from pathlib import Path

import pytest

from fixture_cases import sources
from tflint_perf.engine.linter import lint_source
from tflint_perf.engine.screen import Facts, ast_tree
from tflint_perf.rules import all_rules

ROOT = Path(__file__).resolve().parent.parent
RULES = all_rules()
CASES = sources() + sorted((ROOT / "examples").glob("*.py"))


def _render(findings):
    return [(f.line, f.column, f.code, f.message) for f in findings]


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.name}/{p.name}" for p in CASES])
def test_screens_lose_no_finding(path):
    source = path.read_text()
    screened = lint_source(source, str(path), RULES)
    full = lint_source(source, str(path), RULES, screen=False)
    assert _render(screened) == _render(full)


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.name}/{p.name}" for p in CASES])
def test_each_reporting_rule_passes_its_screen(path):
    """Stricter than identity: a rule that reports in a module passes its screen there."""
    source = path.read_text()
    tree = ast_tree(source)
    if tree is None:
        return
    facts = Facts(source, tree)
    reported = {f.code for f in lint_source(source, str(path), RULES, screen=False)}
    for rule in RULES:
        if rule.code in reported:
            assert rule.screen(facts), f"{rule.code}'s screen rejects {path.name}"


def test_a_module_no_screen_passes_is_not_parsed_by_libcst(monkeypatch):
    from tflint_perf.engine import linter

    def no_parse(*args, **kwargs):
        raise AssertionError("LibCST parse")

    monkeypatch.setattr(linter, "parse", no_parse)
    rule = type("Never", (RULES[0],), {"screen": classmethod(lambda cls, facts: False)})
    assert lint_source("import numpy as np\nfor x in y:\n    pass\n", "m.py", [rule]) == []


CLEAN_MODULE = """\
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(4)])
model.compile(optimizer="adam", loss="mse")
"""


def _imported_modules(tmp_path, *args) -> set:
    """Module names a ``tflint-perf`` process imported (``python -X importtime``)."""
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "tflint_perf", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    lines = [line for line in out.stderr.splitlines() if line.startswith("import time:")]
    return {line.rsplit("|", 1)[1].strip() for line in lines[1:]}


def test_clean_run_imports_only_what_it_uses(tmp_path):
    """A module no screen keeps is done without LibCST; optional faces stay unloaded."""
    (tmp_path / "clean.py").write_text(CLEAN_MODULE)
    modules = _imported_modules(tmp_path, "check", "--no-cache", "clean.py")
    assert "tflint_perf.run.files" in modules  # the import list is real
    never = {
        "libcst._nodes.statement",
        "tflint_perf.run.notebooks",
        "tflint_perf.baseline",
        "tflint_perf.gitdiff",
    }
    assert not modules & never, sorted(modules & never)
    # --verify's option parsing lives in verify.cli; the machinery is not loaded.
    verify = {m for m in modules if m.startswith("tflint_perf.verify.")}
    assert verify == {"tflint_perf.verify.cli"}, sorted(verify)
    assert not {m for m in modules if m.startswith("libcst.")}


def test_module_with_a_loop_loads_libcst(tmp_path):
    """The other side of the screen: a module a rule may report in is parsed."""
    (tmp_path / "loop.py").write_text(CLEAN_MODULE + "for x in range(3):\n    print(x)\n")
    modules = _imported_modules(tmp_path, "check", "--no-cache", "loop.py")
    # LibCST is registered lazily, so its package line is not in the list; its nodes are.
    assert "libcst._nodes.statement" in modules
