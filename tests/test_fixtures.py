"""Every rule's positive and near-miss fixtures, and its fixed output."""

import libcst as cst
import pytest

from fixture_cases import FIXTURES, expected_of, fixed_of, render, sources
from tflint_perf.engine.fixes import applicable
from tflint_perf.engine.linter import fix_source, lint_source
from tflint_perf.rules import all_rules

RULES = all_rules()
CASES = sources()


def ids(paths):
    return [f"{p.parent.name}/{p.name}" for p in paths]


@pytest.mark.parametrize("path", CASES, ids=ids(CASES))
def test_findings_match_expected(path):
    findings = lint_source(path.read_text(), str(path), RULES)
    # The whole diagnostic is pinned: position, code and the message users read.
    # After an intended change: `python tests/update_fixtures.py`, then review the diff.
    assert render(findings) == expected_of(path)


@pytest.mark.parametrize("path", CASES, ids=ids(CASES))
def test_fixture_naming(path):
    if path.name.startswith("bad_"):
        assert expected_of(path), (
            f"{path.name} is a positive fixture without findings in its .expected"
        )
        assert any(line.split(" ")[1] == path.parent.name for line in expected_of(path))
    else:
        assert path.name.startswith("ok_"), f"{path.name}: fixtures are named bad_* or ok_*"
        assert not path.with_suffix(".expected").exists()


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_every_rule_has_fixtures(rule):
    folder = FIXTURES / rule.code
    assert list(folder.glob("bad_*.py")), f"{rule.code} has no positive fixture"
    assert list(folder.glob("ok_*.py")), f"{rule.code} has no near-miss fixture"
    if rule.fixable:
        assert list(folder.glob("*.fixed.py")), (
            f"{rule.code} is fixable but has no fixed-output fixture"
        )


def _fix_cases(unsafe):
    return [p for p in CASES if fixed_of(p, unsafe) is not None]


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_positive_fixtures_with_fixes_have_fixed_output(unsafe):
    """A fix a rule offers on a fixture is pinned by a fixed-output file."""
    for path in CASES:
        findings = lint_source(path.read_text(), str(path), RULES)
        if any(applicable(f, unsafe) for f in findings) and (
            unsafe is False or any(f.fix and f.fix.safety == "unsafe" for f in findings)
        ):
            assert fixed_of(path, unsafe) is not None, (
                f"{path} has {'unsafe' if unsafe else 'safe'} fixes but no fixed output"
            )


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_fixed_output_parses_and_is_stable(unsafe):
    for path in _fix_cases(unsafe):
        result = fix_source(path.read_text(), str(path), RULES, unsafe)
        assert result.error is None, result.error
        assert result.fixed > 0, f"{path}: nothing was fixed"
        assert result.source == fixed_of(path, unsafe).read_text(), f"{path}: fixed output differs"
        cst.parse_module(result.source)
        again = fix_source(result.source, str(path), RULES, unsafe)
        assert again.source == result.source, f"{path}: a second --fix changed the code again"
        assert not [f for f in again.findings if applicable(f, unsafe)]
