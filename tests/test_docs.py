"""Install commands in the docs that work as written (or say what they need)."""

import re

import pytest
from conftest import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _text():
    return {path.relative_to(ROOT).as_posix(): path.read_text() for path in DOCS}


@pytest.mark.parametrize(
    "pattern, why",
    [
        (r"pip install ['\"]?tflint-perf\b", "not on PyPI: install from git or a path"),
        (r"additional_dependencies: \[tflint-perf\]", "not on PyPI"),
        (r"rev: v\d", "the repository has no tags: pin a commit"),
        (r"upload-sarif@v[0-3]\b", "upload-sarif v3 is being retired: v4"),
        (r"your-org", "say OWNER, the placeholder the docs explain"),
    ],
)
def test_no_install_command_that_cannot_work(pattern, why):
    bad = [
        f"{name}:{text[: m.start()].count(chr(10)) + 1}"
        for name, text in _text().items()
        for m in re.finditer(pattern, text)
    ]
    assert not bad, f"{why}: {bad}"


def test_the_action_inputs_are_documented():
    yaml = pytest.importorskip("yaml")
    inputs = yaml.safe_load((ROOT / "action.yml").read_text())["inputs"]
    table = (ROOT / "docs" / "ci.md").read_text()
    documented = set(re.findall(r"^\| `([\w-]+)` \|", table, re.MULTILINE))
    assert set(inputs) <= documented


def test_the_pre_commit_hooks_named_in_the_docs_exist():
    yaml = pytest.importorskip("yaml")
    hooks = {h["id"] for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    named = {m for text in _text().values() for m in re.findall(r"id: (tflint-perf[\w-]*)", text)}
    assert named and named <= hooks
