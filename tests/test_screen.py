"""The rules' screens (tflint_perf.engine.screen) never lose a finding."""

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
