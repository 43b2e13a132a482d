"""The machine formats, checked against what their consumers accept: SARIF
against the official 2.1.0 schema, ``--format github`` against the workflow
command syntax and its escaping."""

import json
import re
import shutil
from pathlib import Path
from urllib.parse import unquote

import pytest
from conftest import FIXTURES

from repo_helpers import LATE_CONFIG
from tflint_perf.engine.rule import Finding
from tflint_perf.reporters import github_line

SCHEMA = Path(__file__).resolve().parent / "schemas" / "sarif-schema-2.1.0.json"
ODD_NAME = "a,b #1 é%.py"


@pytest.fixture(scope="module")
def sarif_validator():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return jsonschema.Draft4Validator(schema)


@pytest.fixture
def project(tmp_path):
    (tmp_path / ODD_NAME).write_text(LATE_CONFIG)
    (tmp_path / "broken.py").write_text("import tensorflow as tf\ndef f(:\n")
    (tmp_path / "clean.py").write_text("x = 1\n")
    shutil.copy(FIXTURES / "notebooks" / "bad_fixable.ipynb", tmp_path / "nb.ipynb")
    return tmp_path


def _sarif(check, folder, *paths):
    status, out, err = check(folder, "--format", "sarif", *paths)
    assert status in (0, 1) and err == "", err
    return json.loads(out)


def _errors(validator, log):
    return [f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(log)]


@pytest.mark.parametrize(
    "paths",
    [[ODD_NAME], ["clean.py"], ["nb.ipynb"], ["broken.py"], ["."]],
    ids=["findings", "clean", "notebook", "tfp000", "all"],
)
def test_sarif_is_valid_against_the_official_schema(sarif_validator, check, project, paths):
    log = _sarif(check, project, *paths)
    assert _errors(sarif_validator, log) == []
    results = log["runs"][0]["results"]
    assert len(results) == {"clean.py": 0}.get(paths[0], len(results))
    for result in results:
        uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert re.fullmatch(r"[A-Za-z0-9\-._~/%]+", uri), uri  # nothing left to encode


def test_sarif_uri_is_percent_encoded_and_relative(check, project):
    log = _sarif(check, project, str(project / ODD_NAME))  # absolute on the command line
    (result,) = log["runs"][0]["results"]
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "a%2Cb%20%231%20%C3%A9%25.py"
    assert unquote(uri) == ODD_NAME


def test_sarif_tfp000_is_an_error_and_notebook_columns_are_in_the_file(check, project):
    log = _sarif(check, project, "broken.py", "nb.ipynb")
    levels = {r["ruleId"]: r["level"] for r in log["runs"][0]["results"]}
    assert levels == {"TFP000": "error", "TFP301": "warning"}
    (nb,) = [r for r in log["runs"][0]["results"] if r["ruleId"] == "TFP301"]
    region = nb["locations"][0]["physicalLocation"]["region"]
    line = (project / "nb.ipynb").read_text().splitlines()[region["startLine"] - 1]
    flagged = line[region["startColumn"] - 1 : region["endColumn"] - 1]
    assert flagged.startswith("tf.config.experimental.set_memory_growth(")


# -- GitHub workflow commands ------------------------------------------------------

# ::warning file=F,line=L,endLine=E[,col=C,endColumn=D],title=T::MESSAGE, where a
# property value has no raw "," ":" "\r" "\n" and the message no raw "\r" "\n";
# "%" only starts %25, %0D, %0A, %3A or %2C.
_VALUE = r"(?:[^,:%\r\n]|%25|%0D|%0A|%3A|%2C)*"
ANNOTATION = re.compile(
    rf"::(?P<level>warning|error) file=(?P<file>{_VALUE}),line=(?P<line>[1-9]\d*),"
    rf"endLine=(?P<end>[1-9]\d*)(?:,col=(?P<col>[1-9]\d*),endColumn=(?P<endcol>[1-9]\d*))?,"
    rf"title=(?P<title>{_VALUE})::(?P<message>(?:[^%\r\n]|%25|%0D|%0A)*)"
)


def _unescape(text: str) -> str:
    for escaped, raw in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, raw)
    return text


def _annotations(out: str):
    lines = out.splitlines()
    matches = [ANNOTATION.fullmatch(line) for line in lines]
    assert all(matches), [line for line, m in zip(lines, matches) if not m]
    return matches


def test_github_annotations_follow_the_syntax(check, project):
    status, out, _ = check(project, "--format", "github", str(project))  # absolute
    assert status == 1
    by_file = {_unescape(m["file"]): m for m in _annotations(out)}
    assert set(by_file) == {ODD_NAME, "broken.py", "nb.ipynb"}  # relative to the cwd
    assert by_file["broken.py"]["level"] == "error"
    assert by_file[ODD_NAME]["level"] == "warning"
    assert (by_file[ODD_NAME]["line"], by_file[ODD_NAME]["col"]) == ("5", "5")


def test_github_paths_are_relative_to_the_workspace(check, project, monkeypatch):
    monkeypatch.setenv("GITHUB_WORKSPACE", str(project.parent))
    _, out, _ = check(project, "--format", "github", "nb.ipynb")
    (match,) = _annotations(out)
    assert match["file"] == f"{project.name}/nb.ipynb"


def test_github_escapes_properties_and_data():
    finding = Finding("dir,x:y/100%.py", 3, 2, 3, 9, "TFP101", "n", "a: b, 50%\nnext\rline")
    (match,) = _annotations(github_line(finding))
    assert _unescape(match["file"]) == "dir,x:y/100%.py"
    assert _unescape(match["title"]) == "TFP101 a: b, 50%\nnext\rline"
    assert _unescape(match["message"]) == "a: b, 50%\nnext\rline"  # no detail: the headline
    assert (match["col"], match["endcol"]) == ("2", "9")


def test_github_title_is_the_headline_and_the_body_the_detail():
    finding = Finding("f.py", 3, 2, 3, 9, "TFP101", "n", "short, headline", detail="why:\nbecause")
    (match,) = _annotations(github_line(finding))
    assert _unescape(match["title"]) == "TFP101 short, headline"
    assert _unescape(match["message"]) == "why:\nbecause"


# -- SARIF: headline, detail and fixes ------------------------------------------------


def test_sarif_carries_headline_detail_fix_help_uri_and_tags(sarif_validator):
    from tflint_perf.engine.rule import UNSAFE, Edit, Fix
    from tflint_perf.reporters import sarif_log
    from tflint_perf.rules import all_rules

    fix = Fix((Edit(4, 0, 5, 0, ""), Edit(2, 4, 2, 4, "y")), UNSAFE, "Remove the call")
    findings = [
        Finding("t.py", 4, 5, 4, 17, "TFP302", "n", "headline", fix, {}, "the *detail*"),
        Finding("u.py", 1, 1, 1, 2, "TFP101", "n", "bare"),
    ]
    log = sarif_log(findings, all_rules())
    assert _errors(sarif_validator, log) == []
    fixed, bare = log["runs"][0]["results"]
    assert fixed["message"] == {"text": "headline", "markdown": "headline\n\nthe *detail*"}
    assert bare["message"] == {"text": "bare"} and "fixes" not in bare
    (change,) = fixed["fixes"][0]["artifactChanges"]
    assert fixed["fixes"][0]["description"] == {"text": "Remove the call"}
    assert change["artifactLocation"] == {"uri": "t.py"}
    assert change["replacements"] == [
        {
            "deletedRegion": {"startLine": 4, "startColumn": 1, "endLine": 5, "endColumn": 1},
            "insertedContent": {"text": ""},
        },
        {
            "deletedRegion": {"startLine": 2, "startColumn": 5, "endLine": 2, "endColumn": 5},
            "insertedContent": {"text": "y"},
        },
    ]
    rules = {r["id"]: r for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["TFP302"]["helpUri"].endswith("/docs/rules/TFP302.md")
    assert "performance" in rules["TFP302"]["properties"]["tags"]


def test_sarif_fixes_from_the_cli_replay_to_the_fixed_file(sarif_validator, check, tmp_path):
    """Applying the SARIF replacements gives what --fix writes."""
    (tmp_path / "a.py").write_text(LATE_CONFIG)
    log = _sarif(check, tmp_path, "a.py")
    assert _errors(sarif_validator, log) == []
    (result,) = log["runs"][0]["results"]
    lines = LATE_CONFIG.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    text = LATE_CONFIG
    (change,) = result["fixes"][0]["artifactChanges"]
    spans = []
    for r in change["replacements"]:
        region = r["deletedRegion"]
        start = starts[region["startLine"] - 1] + region["startColumn"] - 1
        end = starts[region["endLine"] - 1] + region["endColumn"] - 1
        spans.append((start, end, r["insertedContent"]["text"]))
    for start, end, content in sorted(spans, reverse=True):
        text = text[:start] + content + text[end:]
    check(tmp_path, "--fix", "a.py")
    assert text == (tmp_path / "a.py").read_text()


def test_github_multi_line_spans_carry_no_columns():
    finding = Finding("f.py", 3, 5, 6, 2, "TFP101", "n", "m")
    (match,) = _annotations(github_line(finding))
    assert (match["line"], match["end"], match["col"]) == ("3", "6", None)
