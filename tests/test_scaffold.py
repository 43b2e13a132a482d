"""``python -m tflint_perf.scaffold TFPNNN name``: a new rule that works as written."""

import subprocess
import sys
from pathlib import Path

import pytest
from test_why import markers

import tflint_perf.rules as rules_package
from fixture_cases import expected_of, render
from tflint_perf import docs
from tflint_perf.engine.linter import lint_source
from tflint_perf.engine.rule import DOC_SECTIONS
from tflint_perf.scaffold import load_rule, main

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def tree(tmp_path):
    """A project root with the existing rules' file names (what the scaffold checks)."""
    (tmp_path / "rules").mkdir()
    for existing in (ROOT / "rules").glob("tfp*"):
        (tmp_path / "rules" / existing.name).touch()
    return tmp_path


def test_the_scaffolded_rule_is_found_and_passes_its_fixtures(tree, capsys, monkeypatch):
    assert main(["TFP998", "example-trap"], root=tree) == 0
    written = capsys.readouterr().out
    rule_path = tree / "rules" / "tfp998_example_trap.py"
    folder = tree / "fixtures" / "TFP998"
    for path in (rule_path, folder / "bad_example.py", folder / "ok_example.py"):
        assert f"wrote {path.relative_to(tree)}" in written
    rule = load_rule(rule_path, "TFP998")
    assert (rule.code, rule.name, rule.__name__) == ("TFP998", "example-trap", "ExampleTrap")
    # What tests/test_engine.py asks of every rule's docstring, and its page.
    sections = rule.doc_sections()
    assert all(sections.get(s) for s in DOC_SECTIONS)
    assert "```python" in sections["Example"] and "```python" in sections["Use instead"]
    page = (tree / "docs" / "rules" / "TFP998.md").read_text()
    assert page == docs.HEADER + docs.rule_page(rule)

    # Found by all_rules() as a module of rules/, like every rule.
    monkeypatch.setattr(rules_package, "__path__", [*rules_package.__path__, str(tree / "rules")])
    monkeypatch.setattr(rules_package, "_cache", [])
    monkeypatch.delitem(sys.modules, "tflint_perf.rules.tfp998_example_trap", raising=False)
    (tree / "rules" / "__init__.py").touch()
    found = [r for r in rules_package.all_rules() if r.code == "TFP998"]
    sys.modules.pop("tflint_perf.rules.tfp998_example_trap", None)
    assert [r.name for r in found] == ["example-trap"]

    # Its fixtures hold as the fixture tests check them (tests/test_fixtures.py, test_why.py).
    bad = folder / "bad_example.py"
    assert render(lint_source(bad.read_text(), str(bad), found)) == expected_of(bad)
    assert expected_of(bad)
    ok = folder / "ok_example.py"
    silences: list = []
    assert lint_source(ok.read_text(), str(ok), found, silences=silences) == []
    ((line, code, reason),) = markers(ok)
    assert code == "TFP998"
    assert reason in {s.reason.value for s in silences if s.line <= line <= s.end_line}


@pytest.mark.parametrize(
    "args, says",
    [
        (["TFP12", "short-code"], "code 'TFP12' is not TFP followed by three digits"),
        (["tfp998", "lower-case"], "code 'tfp998' is not TFP followed by three digits"),
        (["TFP998", "Bad Name"], "name 'Bad Name' is not lower-case words"),
        (["TFP301", "new-name"], "TFP301 exists already: rules/tfp301_device_config_after_init.py"),
        (
            ["TFP998", "gc_collect_in_loop"],
            "the name 'gc_collect_in_loop' is taken by rules/tfp302",
        ),
    ],
)
def test_a_malformed_or_taken_code_or_name_is_refused(tree, capsys, args, says):
    assert main(args, root=tree) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("tflint-perf scaffold: error: ")
    assert says in err
    assert sorted(p.name for p in tree.rglob("*") if p.is_file()) == sorted(
        p.name for p in (tree / "rules").iterdir()
    )


def test_a_code_with_fixtures_but_no_rule_is_refused(tree, capsys):
    (tree / "fixtures" / "TFP997").mkdir(parents=True)
    assert main(["TFP997", "orphan"], root=tree) == 2
    assert "TFP997 exists already: fixtures/TFP997/" in capsys.readouterr().err
    assert not (tree / "rules" / "tfp997_orphan.py").exists()


def test_the_module_refuses_an_existing_code_in_this_project_without_writing():
    before = subprocess.run(
        ["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    out = subprocess.run(
        [sys.executable, "-m", "tflint_perf.scaffold", "TFP101", "again"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2
    assert out.stderr.splitlines() == [
        "tflint-perf scaffold: error: TFP101 exists already: rules/tfp101_elementwise_loop"
    ]
    after = subprocess.run(
        ["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    assert after == before


def test_wrong_arguments_print_the_usage_and_exit_2(capsys):
    assert main(["TFP998"]) == 2
    assert capsys.readouterr().err.startswith("usage: python -m tflint_perf.scaffold TFPNNN name")
