"""``tflint-perf why`` and the near-miss markers that name the reason a rule is silent.

A near-miss fixture line may end with ``# ok: TFP101 tiny-loop`` (several:
``# ok: TFP101 tiny-loop, TFP403 tiny-loop``): linting it, that rule does
not report there and records that reason for a node on that line.
"""

import io
import re

import pytest

from fixture_cases import FIXTURES, sources
from tflint_perf.engine.linter import lint_source
from tflint_perf.engine.reasons import Reason
from tflint_perf.rules import all_rules
from tflint_perf.why import WhyError, explain_line, render, run_why

MARKER = re.compile(r"#\s*ok:\s*(.+)$")
# Rules whose every near-miss fixture names its reason (all of them, once
# each rule records its silent exits).
EVERY_NEAR_MISS_MARKED: frozenset = frozenset(
    """TFP101 TFP102 TFP103 TFP201 TFP202 TFP203 TFP301 TFP302 TFP303
    TFP401 TFP402 TFP403 TFP404""".split()
)


def markers(path):
    """(line, code, reason) for each marker in the file."""
    out = []
    for number, text in enumerate(path.read_text().splitlines(), start=1):
        found = MARKER.search(text)
        if found:
            for part in found.group(1).split(","):
                code, _, reason = part.strip().partition(" ")
                out.append((number, code, reason.strip()))
    return out


MARKED = [(p, m) for p in sources() for m in markers(p)]


def test_every_marker_names_a_known_reason():
    known = {r.value for r in Reason}
    for path, (line, code, reason) in MARKED:
        assert reason in known, f"{path.name}:{line}: unknown reason {reason!r}"
        assert re.fullmatch(r"TFP\d{3}", code), f"{path.name}:{line}: {code!r}"


@pytest.mark.parametrize(
    "path, marker", MARKED, ids=[f"{p.parent.name}/{p.name}:{m[0]}" for p, m in MARKED]
)
def test_the_rule_is_silent_for_the_reason_the_marker_names(path, marker):
    line, code, reason = marker
    silences = []
    findings = lint_source(path.read_text(), str(path), all_rules(), silences=silences)
    assert not [f for f in findings if f.code == code and f.line == line]
    recorded = {s.reason.value for s in silences if s.code == code and s.line <= line <= s.end_line}
    assert reason in recorded, f"{code} recorded {sorted(recorded)} at line {line}"


@pytest.mark.parametrize("code", sorted(EVERY_NEAR_MISS_MARKED))
def test_every_near_miss_of_a_rule_names_its_reason(code):
    unmarked = [
        p.name
        for p in sorted((FIXTURES / code).glob("ok_*.py"))
        if not any(c == code for _, c, _ in markers(p))
    ]
    assert unmarked == []


def test_why_prints_each_rule_and_what_it_decided(tmp_path):
    source = FIXTURES / "TFP302" / "bad_callback_hook.py"
    rules = all_rules()
    findings, silences = explain_line(str(source), 8, rules)
    out = io.StringIO()
    render("hook.py", 8, rules, findings, silences, out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "hook.py:8"
    assert len(lines) == 1 + len(rules)
    assert any(line.startswith("  TFP302 gc-collect-in-loop: reports: ") for line in lines)
    assert "  TFP101 elementwise-loop: nothing to decide here" in lines


def test_why_bad_locations_are_one_line_errors(tmp_path):
    with pytest.raises(WhyError, match="expected FILE:LINE"):
        run_why("no-line-number.py")
    with pytest.raises(WhyError, match="cannot read"):
        run_why(str(tmp_path / "missing.py") + ":3")
    (tmp_path / "short.py").write_text("x = 1\n")
    with pytest.raises(WhyError, match="has no line 9"):
        run_why(str(tmp_path / "short.py") + ":9")


def test_why_on_the_command_line_exits_2_on_a_bad_location(capsys):
    from tflint_perf.cli import main

    assert main(["why", "nothing-here.py:1"]) == 2
    assert capsys.readouterr().err == (
        "tflint-perf: error: nothing-here.py: cannot read: No such file or directory\n"
    )


def test_why_selects_rules_as_check_does(capsys):
    from tflint_perf.cli import main

    location = f"{FIXTURES / 'TFP302' / 'bad_callback_hook.py'}:8"
    assert main(["why", location, "--select", "tfp302,TFP101"]) == 0
    shown = [line.split()[0] for line in capsys.readouterr().out.splitlines()[1:]]
    assert shown == ["TFP101", "TFP302"]
    assert main(["why", location, "--select", "TFP9"]) == 2
    assert (
        capsys.readouterr().err
        == "tflint-perf: error: --select: unknown rule code or prefix 'TFP9'\n"
    )


def test_why_answers_as_a_run_over_the_files_project():
    # The step is defined in model.py, looped in train.py: only the project shows it.
    train = FIXTURES / "projects" / "bad_tfp201_step_in_other_module" / "pkg" / "train.py"
    rules = [r for r in all_rules() if r.code == "TFP201"]
    findings, _ = explain_line(str(train), 10, rules)
    assert [f.code for f in findings] == ["TFP201"]
    alone, _ = explain_line(str(train), 10, rules, alone=True)
    assert alone == []
