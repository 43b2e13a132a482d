"""Property-based tests over generated TensorFlow modules (tests/tf_modules.py).

- the linter never raises, on modules and on notebooks made of them;
- every offered fix, safe or unsafe, alone or all together, yields code
  that compiles, and a second ``--fix`` changes nothing;
- ``-j 1`` and ``-j 2`` print the same report.

Budgets (tests/conftest.py): the ``default`` hypothesis profile in ``make
test``; ``TFLINT_HYPOTHESIS=smoke`` (``make smoke``) runs many more examples.
"""

import contextlib
import io
import json
import os

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from tf_modules import blocks, modules  # noqa: E402

from repo_helpers import notebook  # noqa: E402
from tflint_perf.cli import main  # noqa: E402
from tflint_perf.engine.fixes import apply_edits  # noqa: E402
from tflint_perf.engine.linter import fix_source, lint_source  # noqa: E402
from tflint_perf.rules import all_rules  # noqa: E402
from tflint_perf.run.config import Settings  # noqa: E402
from tflint_perf.run.files import lint_text  # noqa: E402
from tflint_perf.run.result import FIX  # noqa: E402

RULES = all_rules()


def _fix_twice(source: str, unsafe: bool) -> str:
    first = fix_source(source, "gen.py", RULES, unsafe)
    assert first.error is None, first.error
    compile(first.source, "<fixed>", "exec")
    second = fix_source(first.source, "gen.py", RULES, unsafe)
    assert (second.source, second.fixed) == (first.source, 0), "a second --fix changed more"
    return first.source


@given(modules())
def test_never_raises_and_every_fix_compiles_and_is_stable(source):
    findings = lint_source(source, "gen.py", RULES)
    for f in findings:
        if f.fix is not None:  # each fix on its own, safe or unsafe
            compile(apply_edits(source, f.fix.edits), f"<{f.code} fix>", "exec")
    _fix_twice(source, unsafe=False)
    _fix_twice(source, unsafe=True)


@given(st.data())
def test_notebooks_never_raise_and_fixes_stay_json(data):
    cells = data.draw(st.lists(blocks("tf", "np"), min_size=1, max_size=4))
    text = notebook("import gc\nimport os\nimport numpy as np\nimport tensorflow as tf", *cells)
    result = lint_text(text, "gen.ipynb", Settings(), FIX, unsafe=True)
    assert not result.failed, result.error
    if result.fixed_source is not None:
        json.loads(result.fixed_source)
        again = lint_text(result.fixed_source, "gen.ipynb", Settings(), FIX, unsafe=True)
        assert again.fixed_source is None, "a second --fix changed the notebook"


def _report(paths, jobs: int) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["check", "--no-cache", "--format", "json", "-j", str(jobs), *paths])
    return out.getvalue()


@settings(max_examples=max(2, settings().max_examples // 5))
@given(st.lists(modules(), min_size=2, max_size=5))
def test_one_and_two_jobs_print_the_same(tmp_path_factory, sources):
    folder = tmp_path_factory.mktemp("jobs")
    paths = []
    for index, source in enumerate(sources):
        path = folder / f"m{index}.py"
        path.write_text(source)
        paths.append(str(path))
    old = os.environ.get("TFLINT_PERF_POOL")
    os.environ["TFLINT_PERF_POOL"] = "always"
    try:
        assert _report(paths, 1) == _report(paths, 2)
    finally:
        if old is None:
            del os.environ["TFLINT_PERF_POOL"]
        else:
            os.environ["TFLINT_PERF_POOL"] = old
