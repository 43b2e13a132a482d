"""Multi-file projects: findings that need another module of the tree.

Each case is linted as a tree (two passes over the project index,
``tflint_perf/run/project.py``), in this process and with a pool of two
workers: the same findings either way, pinned in the case's expected.txt.
"""

import os

import pytest

from fixture_cases import project_cases, project_expected, project_files, render_project
from tflint_perf.engine.linter import lint_source
from tflint_perf.engine.project import ProjectView
from tflint_perf.rules import all_rules
from tflint_perf.run.config import Settings
from tflint_perf.run.parallel import lint_files
from tflint_perf.run.project import Index, Tree, module_of

CASES = project_cases()


def lint_case(case, jobs, monkeypatch):
    monkeypatch.setenv("TFLINT_PERF_POOL", "always" if jobs > 1 else "never")
    files = project_files(case)
    results = lint_files(files, Settings(root=case), jobs=jobs)
    assert not [r.error for r in results if r.error]
    return render_project(case, [f for r in results for f in r.findings])


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_project_findings_match_expected(case, monkeypatch):
    found = lint_case(case, 1, monkeypatch)
    assert found == project_expected(case)
    if case.name.startswith("ok_"):
        assert found == []
    else:
        assert found, f"{case.name}: a positive project case without findings"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_project_findings_do_not_depend_on_the_pool(case, monkeypatch):
    assert lint_case(case, 2, monkeypatch) == lint_case(case, 1, monkeypatch)


# Cases whose finding each module finds alone too: the tree keeps the other module's
# call of the same trap silent (one finding per trap; NEAR_MISSES checks the reason).
SAID_ONCE = {
    "bad_tfp202_agent_method_reported_where_defined",
    "bad_tfp403_agent_method_reported_where_defined",
    "bad_tfp403_agent_first_row_reported_where_defined",
    "bad_tfp403_helper_looped_in_both_modules",
}


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.name.startswith("bad_") and c.name not in SAID_ONCE], ids=str
)
def test_each_file_alone_misses_the_cross_module_finding(case, monkeypatch):
    """The other side: a file linted alone (flake8, stdin) does not see the tree."""
    alone = []
    for path in project_files(case):
        alone += render_project(case, lint_files([path], Settings(root=case), jobs=1)[0].findings)
    assert sorted(alone) != lint_case(case, 1, monkeypatch)


NEAR_MISSES = [  # (case, file, line, rule, the reason it records for staying silent)
    ("ok_tfp201_compiled_in_other_module", "pkg/train.py", 10, "TFP201", "compiled"),
    ("ok_tfp201_compiled_where_imported", "pkg/train.py", 13, "TFP201", "compiled"),
    ("ok_tfp401_prefetched_in_other_module", "pkg/train.py", 19, "TFP401", "already-done"),
    ("bad_tfp202_agent_method_reported_where_defined", "pkg/play.py", 18, "TFP202", "covered"),
    ("bad_tfp403_agent_method_reported_where_defined", "pkg/main.py", 11, "TFP403", "covered"),
    ("bad_tfp403_agent_first_row_reported_where_defined", "pkg/run.py", 12, "TFP403", "covered"),
    ("bad_tfp403_helper_looped_in_both_modules", "pkg/video.py", 8, "TFP403", "covered"),
]


@pytest.mark.parametrize("name, rel, line, code, reason", NEAR_MISSES)
def test_a_cross_module_near_miss_records_why_it_is_silent(name, rel, line, code, reason):
    """The other module's facts make the rule look, and say why it does not report."""
    case = next(c for c in CASES if c.name == name)
    files = project_files(case)
    tree, path = Tree(files), str(case / rel)
    index = Index(tree)
    view = ProjectView(
        module_of(path)[2],
        lambda q: index.facts(path, q),
        lambda n: tree.locate(path, n) is not None,
    )
    silences: list = []
    source = (case / rel).read_text()
    assert lint_source(source, path, all_rules(), silences=silences, project=view) == []
    recorded = {s.reason.value for s in silences if s.code == code and s.line == line}
    assert reason in recorded


def test_in_one_process_a_file_and_a_module_read_first_are_parsed_once(tmp_path, monkeypatch):
    """``wrap.py``'s second pass reuses its first's parse; ``net.py``, read by
    the index for ``wrap.py`` before its own lint, is not parsed again for it."""
    from tflint_perf.engine import linter

    sources = {
        "net.py": "from tensorflow import keras\n"
        "model = keras.models.load_model('m.keras')\n"
        "def score(x):\n    return model.predict(x[None])\n",
        "a_wrap.py": "import numpy as np\nfrom net import score\n"
        "def run(xs):\n    return [score(x) for x in xs]\n",
    }
    for name, text in sources.items():
        (tmp_path / name).write_text(text)
    files = sorted(str(tmp_path / name) for name in sources)
    parsed = []
    real = linter._libcst_parse

    def counted(source, path):
        parsed.append(os.path.basename(path))
        return real(source, path)

    monkeypatch.setattr(linter, "_libcst_parse", counted)
    monkeypatch.setenv("TFLINT_PERF_POOL", "never")
    once = lint_files(files, Settings(root=str(tmp_path)), jobs=1)
    assert sorted(parsed) == ["a_wrap.py", "net.py"]
    monkeypatch.setenv("TFLINT_PERF_POOL", "always")  # the pool parses again: same findings
    assert [r.findings for r in lint_files(files, Settings(root=str(tmp_path)), jobs=2)] == [
        r.findings for r in once
    ]
    assert [f.code for r in once for f in r.findings] == ["TFP403"]
