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


# -- the docs say what the output says (issue 21, item 18) -----------------------


def _console_block(text: str, command: str) -> list:
    """The output lines under ``$ COMMAND`` in a fenced example."""
    block = text[text.index(f"$ {command}\n") + len(command) + 3 :]
    return block[: block.index("```")].rstrip("\n").split("\n")


def _run(args, cwd):
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "tflint_perf", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        env={**__import__("os").environ, "NO_COLOR": "1"},
    )
    return proc.stdout.rstrip("\n").split("\n")


def test_the_notebook_example_is_the_output(tmp_path):
    import shutil

    text = (ROOT / "docs" / "notebooks.md").read_text()
    command = "tflint-perf check --output-format concise train.ipynb"
    shutil.copy(
        ROOT / "fixtures/notebooks/bad_device_config_across_cells.ipynb", tmp_path / "train.ipynb"
    )
    assert _run(command.split()[1:], tmp_path) == _console_block(text, command)
    # and the sentence that quotes the message's way of naming a line
    assert '("at\n  cell 3, line 1")' in text


def test_the_readme_frame_is_the_output():
    text = (ROOT / "README.md").read_text()
    start = text.index("```text\nTFP302 [*] ")
    shown = text[start + len("```text\n") : text.index("```", start + 3)].rstrip("\n").split("\n")
    real = _run(["check", "--no-cache", "examples/gc_in_training_loop.py"], ROOT)
    assert real[: len(shown)] == shown


def test_the_docs_name_every_kind_of_file_a_walk_lints():
    from tflint_perf.run.discovery import SUFFIXES

    sentences = [
        line for text in _text().values() for line in text.splitlines() if "walked for" in line
    ]
    assert sentences
    for sentence in sentences:
        assert all(f"*{suffix}" in sentence for suffix in SUFFIXES), sentence
