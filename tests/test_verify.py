"""--verify without TensorFlow: the machinery runs plain-Python snippets (fast)."""

import json
import os
import sys
import textwrap
import time
import uuid
from io import StringIO
from pathlib import Path

import pytest

from tflint_perf.engine.fixes import apply_edits
from tflint_perf.engine.rule import Edit, Finding, Fix
from tflint_perf.engine.verification import Rewrite
from tflint_perf.reporters import finding_to_dict
from tflint_perf.rules import all_rules
from tflint_perf.run.config import ConfigError
from tflint_perf.verify import cli as verify_cli
from tflint_perf.verify.options import VerifyOptions, options_from_table
from tflint_perf.verify.plan import plan_finding
from tflint_perf.verify.report import write_html, write_table
from tflint_perf.verify.rewrites import Source, Unsupported, rewrite
from tflint_perf.verify.session import verify

pytest.importorskip("numpy")

RULES = {rule.code: rule for rule in all_rules()}
STACK, HOIST, CONCAT, PREDICT = (
    Rewrite.STACK_TO_VECTOR,
    Rewrite.HOIST,
    Rewrite.CONCAT_ONCE,
    Rewrite.PREDICT_AS_CALL,
)


def _options(tmp_path, **kw):
    kw.setdefault("timeout", 20)
    kw.setdefault("memory_limit", 1 << 30)
    return VerifyOptions(root=tmp_path, python=sys.executable, tf_module=None, **kw)


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def _finding(path, line, code="TFP101", fix=None, end_line=None):
    return Finding(path, line, 1, end_line or line, 1, code, "test", "message", fix)


def _replace_line(path, line, new):
    old = Path(path).read_text().splitlines()[line - 1]
    return Fix((Edit(line, 0, line, len(old), new),), message="test fix")


def _run(tmp_path, path, findings, **kw):
    source = Path(path).read_text()
    stderr = StringIO()
    session = verify([(path, source, findings)], _options(tmp_path, **kw), RULES, stderr=stderr)
    return session, stderr.getvalue()


SLOW_THEN_FAST = """\
    import numpy as np

    x = np.arange(20000, dtype=np.float64).reshape(200, 100)
    total = np.array([sum(float(v) for v in row) for row in x])
    print(total.shape)
"""


def test_equal_fix_is_timed_with_medians_interval_and_load(tmp_path):
    path = _write(tmp_path, "sums.py", SLOW_THEN_FAST)
    fix = _replace_line(path, 4, "total = x.sum(axis=1)")
    session, _ = _run(tmp_path, path, [_finding(path, 4, fix=fix)])
    v = session.findings[0].extra["verify"]
    assert v["equal"] is True, v  # how much faster is for bench/verify_cases.py, not a test
    assert v["baseline_s"] > 0 and v["fixed_s"] > 0 and v["speedup"] > 0 and v["repeats"] >= 3
    low, high = v["interval"]
    assert low <= v["speedup"] <= high and v["decision"] in ("faster", "not-faster", "ambiguous")
    assert len(v["spread"]) == 2 and v["tolerance"] == {"rtol": 1e-4, "atol": 1e-5}
    assert len(v["load_average"]) == 2
    # the first calls are not reported unless measured in fresh workers
    assert v["first_call_s"] is None and "first call" not in v["reason"]


def test_first_calls_are_measured_in_fresh_workers_in_both_orders(tmp_path):
    path = _write(tmp_path, "sums.py", SLOW_THEN_FAST)
    fix = _replace_line(path, 4, "total = x.sum(axis=1)")
    session, _ = _run(tmp_path, path, [_finding(path, 4, fix=fix)], first_calls=True)
    v = session.findings[0].extra["verify"]
    first = v["first_call_s"]
    assert [sorted(run) for run in first["runs"]] == [["baseline", "fixed"]] * 2, first
    assert first["how"] == "each in a fresh worker, both orders"
    assert "fresh workers, both orders" in v["reason"]


def test_fix_that_changes_results_is_a_mismatch(tmp_path):
    path = _write(tmp_path, "sums.py", SLOW_THEN_FAST)
    fix = _replace_line(path, 4, "total = x.sum(axis=1) * 1.01")
    session, _ = _run(tmp_path, path, [_finding(path, 4, fix=fix)])
    v = session.findings[0].extra["verify"]
    assert v["status"] == "mismatch" and v["equal"] is False
    assert "total" in v["reason"] and v["speedup"] is None


def test_raising_snippet_fails_with_the_errors_last_line(tmp_path):
    path = _write(
        tmp_path,
        "boom.py",
        """\
        import numpy as np

        x = np.ones(3)
        y = x / 0 + [1, 2][5]
    """,
    )
    fix = _replace_line(path, 4, "y = x")
    session, _ = _run(tmp_path, path, [_finding(path, 4, fix=fix)])
    v = session.findings[0].extra["verify"]
    assert v["status"] == "failed"
    assert "IndexError: list index out of range (line 4)" in v["reason"]


def test_failing_import_before_the_finding_fails_cleanly(tmp_path):
    path = _write(
        tmp_path,
        "imp.py",
        """\
        import numpy as np
        import not_a_real_module_for_tflint

        y = np.ones(3) * 2
    """,
    )
    session, _ = _run(
        tmp_path, path, [_finding(path, 4, fix=_replace_line(path, 4, "y = np.ones(3) + 1"))]
    )
    v = session.findings[0].extra["verify"]
    assert v["status"] == "failed"
    assert "ModuleNotFoundError" in v["reason"] and "not_a_real_module_for_tflint" in v["reason"]


def test_hanging_snippet_is_killed_with_its_children_and_others_still_run(tmp_path, monkeypatch):
    marker = f"TFLINT_PERF_HANG_TEST_{uuid.uuid4().hex}"
    monkeypatch.setenv(marker, "1")  # the child inherits it: that is how it is found below
    hang = _write(
        tmp_path,
        "hang.py",
        """\
        import subprocess
        import numpy as np

        child = subprocess.Popen(["sleep", "300"])
        pass
        while True: pass  # one line: the hang is reported at it whatever the timing
    """,
    )
    ok = _write(tmp_path, "ok.py", "import numpy as np\n\ny = np.ones(4) * 2\n")
    findings_hang = [_finding(hang, 6, fix=_replace_line(hang, 6, "while False: pass"), end_line=6)]
    findings_ok = [_finding(ok, 3, fix=_replace_line(ok, 3, "y = np.ones(4) + 1"))]
    start = time.monotonic()
    verify(
        [(hang, Path(hang).read_text(), findings_hang), (ok, Path(ok).read_text(), findings_ok)],
        _options(tmp_path, timeout=3),
        RULES,
        stderr=StringIO(),
    )
    assert time.monotonic() - start < 30
    v = findings_hang[0].extra["verify"]
    assert v["status"] == "failed" and "timed out after 3 s at line 6" in v["reason"], v
    assert findings_ok[0].extra["verify"]["equal"] is True
    for _ in range(50):
        if not _processes_with(marker):
            break
        time.sleep(0.1)
    else:
        pytest.fail("the hanging snippet's child process survived")


def _processes_with(marker: str) -> list:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                if marker.encode() in Path(f"/proc/{entry}/environ").read_bytes():
                    found.append(int(entry))
            except OSError:
                continue
    return found


def test_function_without_call_sites_or_inputs_is_unverified(tmp_path):
    path = _write(
        tmp_path,
        "pred.py",
        """\
        import numpy as np


        def predict_all(model, batches):
            out = []
            for batch in batches:
                out.append(model.predict(batch))
            return np.concatenate(out)
    """,
    )
    session, _ = _run(tmp_path, path, [_finding(path, 7, code="TFP403")])
    v = session.findings[0].extra["verify"]
    assert v["status"] == "unverified"
    assert "no inputs for `predict_all`" in v["reason"] and "factory" in v["reason"]


def test_function_is_measured_at_its_call_site(tmp_path):
    path = _write(
        tmp_path,
        "main.py",
        """\
        import numpy as np


        def norms(x):
            return np.array([np.sqrt((row ** 2).sum()) for row in x])


        if __name__ == "__main__":
            print(norms(np.ones((50, 8))))
            raise SystemExit("the module is stopped once measured; this never runs")
    """,
    )
    fix = _replace_line(path, 5, "    return np.sqrt((x ** 2).sum(axis=1))")
    session, _ = _run(tmp_path, path, [_finding(path, 5, fix=fix)])
    v = session.findings[0].extra["verify"]
    assert v["equal"] is True and "call site (line 9)" in v["where"], v


def test_factory_from_configuration_gives_the_inputs(tmp_path):
    (tmp_path / "my_inputs.py").write_text(
        "import numpy as np\n\ndef make(size):\n    return (np.ones((size, 4)),)\n"
    )
    path = _write(
        tmp_path,
        "lib.py",
        """\
        import numpy as np


        def norms(x):
            return np.array([np.sqrt((row ** 2).sum()) for row in x])
    """,
    )
    options = options_from_table(
        {"inputs": {"lib:norms": "my_inputs:make"}, "size": 32, "timeout": 20}, tmp_path
    )
    options.python, options.tf_module = sys.executable, None
    finding = _finding(
        path, 5, fix=_replace_line(path, 5, "    return np.sqrt((x ** 2).sum(axis=1))")
    )
    verify([(path, Path(path).read_text(), [finding])], options, RULES, stderr=StringIO())
    v = finding.extra["verify"]
    assert v["equal"] is True and "factory my_inputs:make" in v["where"], v


def test_missing_tensorflow_is_said_once_and_every_finding_unverified(tmp_path):
    a = _write(tmp_path, "a.py", "import numpy as np\ny = np.ones(2)\n")
    findings = [
        _finding(a, 2, fix=_replace_line(a, 2, "y = np.ones(2) + 0")),
        _finding(a, 2, code="TFP403"),
    ]
    stderr = StringIO()
    options = _options(tmp_path)
    options.tf_module = "tensorflow_is_not_installed_here"
    verify([(a, Path(a).read_text(), findings)], options, RULES, stderr=stderr)
    assert stderr.getvalue().count("pip install tensorflow") == 1
    assert all(f.extra["verify"]["status"] == "unverified" for f in findings)
    assert "not importable" in findings[0].extra["verify"]["reason"]


def test_json_shape_and_text_table_and_html(tmp_path):
    path = _write(tmp_path, "sums.py", SLOW_THEN_FAST)
    findings = [
        _finding(path, 4, fix=_replace_line(path, 4, "total = x.sum(axis=1)")),
        _finding(path, 4, code="XYZ999"),
    ]
    session, _ = _run(tmp_path, path, findings)
    data = json.loads(json.dumps([finding_to_dict(f) for f in findings]))
    for item in data:
        keys = {
            "status",
            "device",
            "baseline_s",
            "fixed_s",
            "speedup",
            "spread",
            "first_call_s",
            "repeats",
            "equal",
            "reason",
        }
        assert keys <= set(item["verify"])
    assert data[1]["verify"]["status"] == "unverified"
    assert "XYZ999 has no fix here and no verification rewrite" in data[1]["verify"]["reason"]
    assert data[0]["verify"]["device_facts"]["kind"] == "CPU"
    out = StringIO()
    write_table(findings, out, session)
    text = out.getvalue()
    assert "Verify (device: CPU" in text and "verdict" in text and "XYZ999" in text
    report = tmp_path / "r.html"
    write_html(findings, str(report), session)
    page = report.read_text()
    assert "<svg" in page and "<table>" in page and "<script" not in page and "XYZ999" in page


def test_fix_verify_applies_only_verified_fixes(tmp_path):
    path = _write(tmp_path, "f.py", "import numpy as np\na = np.ones(2)\nb = np.ones(2)\n")
    good = _finding(path, 2, fix=_replace_line(path, 2, "a = np.ones(2) + 0"))
    held = _finding(path, 3, fix=_replace_line(path, 3, "b = np.zeros(2)"))
    good.extra["verify"] = {"status": "verified", "reason": "2x faster"}
    held.extra["verify"] = {"status": "mismatch", "reason": "the fix changes the results"}
    source = Path(path).read_text()
    stderr = StringIO()
    applied = verify_cli.apply_verified(
        [(path, source, [good, held])], {path: (source, "utf-8")}, False, stderr
    )
    assert applied == 1
    assert Path(path).read_text() == "import numpy as np\na = np.ones(2) + 0\nb = np.ones(2)\n"
    assert (
        "held back the fix for" in stderr.getvalue()
        and ":3:1 TFP101: mismatch" in stderr.getvalue()
    )


# -- planning and rewrites (no process at all) -------------------------------
def _whole_array_rewrite(source):
    """The edits --verify times for the TFP101 finding of ``source``: the rule's own
    whole-array code, attached to the finding."""
    from tflint_perf.engine.linter import lint_source

    (finding,) = [f for f in lint_source(source, "m.py", all_rules()) if f.code == "TFP101"]
    return rewrite(STACK, Source(source), finding.line, finding.end_line, finding.extra)


def test_tfp101_rewrite_times_the_whole_array_code_the_finding_carries():
    from tflint_perf.engine.fixes import apply_edits

    source = (
        "import tensorflow as tf\nx = tf.ones([100, 8])\nrows = []\nfor r in x:\n"
        "    rows.append(tf.reduce_sum(r))\nout = tf.stack(rows)\n"
    )
    assert apply_edits(source, _whole_array_rewrite(source)).splitlines()[3:] == [
        "out = tf.reduce_sum(x, axis=1)"
    ]
    source = (
        "import tensorflow as tf\ndef f(x):\n    o = []\n    for i in range(x.shape[0]):\n"
        "        o.append(tf.exp(x[i]) * 2)\n    return tf.stack(o)\n"
    )
    assert "    return tf.exp(x) * 2" in apply_edits(source, _whole_array_rewrite(source))
    source = (
        "import tensorflow as tf\nx = tf.ones([90, 3, 3])\no = []\nfor r in x:\n"
        "    o.append(tf.linalg.det(r))\ny = tf.stack(o)\n"
    )
    assert "y = tf.vectorized_map(lambda r: tf.linalg.det(r), x)" in apply_edits(
        source, _whole_array_rewrite(source)
    )


def test_tfp101_rewrite_needs_the_whole_array_code_of_the_finding():
    with pytest.raises(Unsupported, match="no whole-array code"):
        rewrite(STACK, Source("for r in x:\n    print(r)\n"), 1, 2)
    with pytest.raises(Unsupported, match="no whole-array code"):
        rewrite(STACK, Source("for r in x:\n    print(r)\n"), 1, 2, {"whole_array": {"code": "x"}})


def test_tfp403_rewrite_calls_the_model_directly():
    from tflint_perf.engine.fixes import apply_edits

    source = "for b in batches:\n    out.append(model.predict(b, verbose=0))\n"
    assert "out.append(model(b, training=False).numpy())" in apply_edits(
        source, rewrite(PREDICT, Source(source), 2, 2)
    )


def test_plan_modes(tmp_path):
    options = VerifyOptions(root=tmp_path)
    source = "import tensorflow as tf\nx = tf.ones(1)\ntf.config.threading.set_intra_op_parallelism_threads(1)\n"
    job, outcome = plan_finding(
        0,
        _finding("m.py", 3, code="TFP301"),
        source,
        __import__("ast").parse(source),
        options,
        RULES["TFP301"].verification,
    )
    assert job["mode"] == "failure" and outcome is None
    source = "class A:\n    def f(self, x):\n        return x\n"
    job, outcome = plan_finding(
        0,
        _finding("m.py", 3, fix=_replace_line_text(source, 3, "        return x + 0")),
        source,
        __import__("ast").parse(source),
        options,
    )
    assert outcome is None and job["mode"] == "function"  # a method: at its first call
    assert (job["owner"], job["function"], job["init"]) == ("A", "f", {"kwargs": {}})


def _replace_line_text(source, line, new):
    old = source.splitlines()[line - 1]
    return Fix((Edit(line, 0, line, len(old), new),))


def test_configuration_is_validated(tmp_path):
    with pytest.raises(ConfigError, match="unknown key 'timeut'"):
        options_from_table({"timeut": 3}, tmp_path)
    with pytest.raises(ConfigError, match="timeout must be positive"):
        options_from_table({"timeout": 0}, tmp_path)
    with pytest.raises(ConfigError, match='expected "module:function"'):
        options_from_table({"inputs": {"pkg.mod:f": "no_colon"}}, tmp_path)
    options = options_from_table(
        {"inputs": {"pkg/mod.py:f": "tests.inputs:make"}, "size": 64}, tmp_path
    )
    assert (
        options.size == 64
        and options.factory_for(str(tmp_path / "pkg" / "mod.py"), "f") == "tests.inputs:make"
    )


def test_verify_diff_shows_the_measured_variant_in_text_json_and_html(tmp_path):
    path = _write(tmp_path, "sums.py", SLOW_THEN_FAST)
    findings = [_finding(path, 4, fix=_replace_line(path, 4, "total = x.sum(axis=1)"))]
    session, stderr = _run(tmp_path, path, findings)
    assert "--verify runs the code under review" in stderr  # said once, at the start
    v = findings[0].extra["verify"]
    assert "-total = np.array([sum(float(v) for v in row) for row in x])" in v["diff"]
    assert "+total = x.sum(axis=1)" in v["diff"] and "(fix, measured)" in v["diff"]
    out = StringIO()
    write_table(findings, out, session, diffs=True)
    assert f"Measured for {path}:4:1 TFP101:" in out.getvalue()
    assert "+total = x.sum(axis=1)" in out.getvalue()
    report = tmp_path / "r.html"
    write_html(findings, str(report), session)
    page = report.read_text()
    assert path in page and "message" in page  # the full path and the finding's message
    assert "+total = x.sum(axis=1)" in page


def test_verify_with_diff_lints_without_fixing_and_shows_the_diffs():
    import argparse

    args = argparse.Namespace(verify=True, diff=True, verify_report=None)
    assert verify_cli.lint_mode(args, "diff") == "check"  # no longer refused


def test_html_bars_put_verified_first_and_never_fill_a_no_speedup_bar(tmp_path):
    def finding(status, speedup, line):
        f = _finding(str(tmp_path / "m.py"), line)
        f.extra["verify"] = {"status": status, "speedup": speedup, "interval": [1, 2]}
        return f

    rows = [finding("no-speedup", 50.0, 1), finding("verified", 3.0, 2)]
    report = tmp_path / "r.html"
    write_html(rows, str(report))
    page = report.read_text()
    assert page.index("m.py:2") < page.index("m.py:1")  # the verified bar comes first
    no_speedup_bar = page.split("m.py:1")[1].split("<rect")[1].split("/>")[0]
    assert 'fill="none"' in no_speedup_bar


def test_tfp101_rewrite_reduces_an_elementwise_row_expression_along_an_axis():
    from tflint_perf.engine.fixes import apply_edits

    source = "import tensorflow as tf\ndef f(q, k):\n    s = []\n    for i in range(q.shape[0]):\n        s.append(tf.reduce_sum(q[i] * k))\n    return tf.stack(s)\n"
    assert "    return tf.reduce_sum(q * k, axis=1)" in apply_edits(
        source, _whole_array_rewrite(source)
    )


def test_tfp202_rewrite_hoists_the_loop_invariant_construction():
    from tflint_perf.engine.fixes import apply_edits

    source = "def f(bs):\n    out = []\n    for b in bs:\n        m = build(\n            8)\n        out.append(m(b))\n    return out\n"
    assert apply_edits(source, rewrite(HOIST, Source(source), 4, 5)) == (
        "def f(bs):\n    out = []\n    m = build(\n        8)\n    for b in bs:\n        out.append(m(b))\n    return out\n"
    )
    for body, why in [
        ("    for b in bs:\n        m = build(b)\n        m(b)\n", "which the loop changes"),
        ("    for b in bs:\n        m(b)\n        m = build()\n", "reads `m` before"),
        (
            "    for b in bs:\n        if b:\n            m = build()\n",
            "not directly in a loop body",
        ),
    ]:
        source = "def f(bs):\n" + body
        line = next(i for i, text in enumerate(source.splitlines(), 1) if "build(" in text)
        with pytest.raises(Unsupported, match=__import__("re").escape(why)):
            rewrite(HOIST, Source(source), line, line)


def test_tfp103_rewrite_collects_pieces_and_concatenates_once():
    from tflint_perf.engine.fixes import apply_edits

    source = "def f(ds):\n    acc = tf.zeros([0, 2])\n    for x in ds:\n        acc = tf.concat([acc, g(x)], axis=0)\n    return acc\n"
    assert apply_edits(source, rewrite(CONCAT, Source(source), 4, 4)) == (
        "def f(ds):\n    acc = tf.zeros([0, 2])\n    __tfp_parts = [acc]\n    for x in ds:\n"
        "        __tfp_parts.append(g(x))\n    acc = tf.concat(__tfp_parts, axis=0)\n    return acc\n"
    )
    source = "def f(ds):\n    for x in ds:\n        acc = tf.concat([acc, x], 0)\n        if x:\n            return None\n"
    with pytest.raises(Unsupported, match="return/yield"):
        rewrite(CONCAT, Source(source), 3, 3)


GROWN_IN_BRANCHES = """\
    import numpy as np


    def flags(scores, limit):
        hits = np.zeros((0,))
        for row in scores:
            for s in row:
                if s < 0:
                    hits = np.append(hits, 0)
                    continue
                if s > limit:
                    hits = np.append(hits, 1)
                else:
                    hits = np.append(hits, 2)
        return hits


    def tiles(images, per_row):
        grid = np.array([])
        for b in range(images.shape[0]):
            if (b + 1) % per_row == 0:
                if grid.size == 0:
                    grid = images[b]
                else:
                    grid = np.concatenate((grid, images[b]), axis=0)
        return grid


    rng = np.random.default_rng(0)
    print(flags(rng.normal(size=(40, 30)), 0.5).sum(), tiles(rng.normal(size=(64, 4, 4)), 4).shape)
"""


def test_tfp103_rewrite_grows_in_branches_and_from_an_empty_start():
    source = textwrap.dedent(GROWN_IN_BRANCHES)
    flat = apply_edits(source, rewrite(CONCAT, Source(source), 9, 9))
    assert "    __tfp_parts = [hits]\n    for row in scores:" in flat
    assert flat.count("__tfp_parts.append(") == 3 and "continue" in flat  # every branch, in order
    assert (
        "    if len(__tfp_parts) > 1:\n        hits = np.concatenate([np.ravel(__p) for __p in __tfp_parts])"
        in flat
    )
    grid = apply_edits(source, rewrite(CONCAT, Source(source), 25, 25))
    assert "        if (b + 1) % per_row == 0:\n            __tfp_parts.append(images[b])\n" in grid
    assert "    if __tfp_parts:\n        grid = np.concatenate(__tfp_parts, axis=0)\n" in grid
    reset = source.replace(
        "                grid = np.concatenate",
        "                grid = grid[1:]\n                grid = np.concatenate",
    )
    assert reset != source
    with pytest.raises(Unsupported, match="uses `grid` other than to grow it"):
        rewrite(CONCAT, Source(reset), 26, 26)


def test_tfp103_rewrites_run_equal(tmp_path):
    path = _write(tmp_path, "grow.py", GROWN_IN_BRANCHES)
    findings = [_finding(path, 9, code="TFP103"), _finding(path, 25, code="TFP103")]
    _run(tmp_path, path, findings)
    for finding in findings:
        v = finding.extra["verify"]
        assert v["equal"] is True and v["variant"] == "rewrite", v


def test_fix_that_adds_an_import_is_timed_as_the_function_alone(tmp_path):
    import ast as ast_mod

    source = "import numpy as np\n\n\ndef f(x):\n    return np.sum(x)\n"
    fix = Fix((Edit(2, 0, 2, 0, "import math\n"), Edit(5, 0, 5, 20, "    return math.fsum(x)")))
    job, outcome = plan_finding(
        0, _finding("m.py", 5, fix=fix), source, ast_mod.parse(source), VerifyOptions(root=tmp_path)
    )
    assert outcome is None and job["mode"] == "function" and job["fixed_imports"] == "import math\n"
    assert job["fixed_region"] == [5, 6]


def test_fix_adding_an_import_runs_with_that_import(tmp_path):
    path = _write(
        tmp_path,
        "blur.py",
        """\
        import numpy as np


        def total(rows):
            out = 0.0
            for r in rows:
                out += float(sum(r))
            return out


        if __name__ == "__main__":
            print(total(np.ones((50, 40))))
    """,
    )
    fix = Fix(
        (
            Edit(2, 0, 2, 0, "import math\n"),
            Edit(5, 0, 8, 14, "    return math.fsum(np.ravel(rows))"),
        )
    )
    finding = _finding(path, 6, fix=fix, end_line=7)
    _run(tmp_path, path, [finding])
    v = finding.extra["verify"]
    assert v["equal"] is True, v


# -- the contract between rules and --verify ------------------------------------
def test_every_rule_declares_its_verification_and_verify_holds_no_rule_code():
    from tflint_perf.engine.verification import Purpose, Verification

    for rule in all_rules():
        spec = rule.verification
        assert isinstance(spec, Verification), rule.code
        assert not hasattr(rule, "verify_roles"), rule.code
        if spec.purpose is Purpose.FAILURE:
            assert spec.observe is not None, rule.code
        elif not rule.fixable and not spec.unmeasurable:
            assert spec.rewrite is not None, f"{rule.code}: nothing to measure against"
    verify_dir = Path(verify_cli.__file__).parent
    for module in verify_dir.glob("*.py"):
        assert "TFP" not in module.read_text(), f"{module.name} names a rule code"


def test_a_new_rule_needs_no_edit_in_verify(tmp_path):
    """A made-up code with a declared rewrite and input role is planned from its contract alone."""
    import ast

    from tflint_perf.engine.verification import Input, InputKind, Timing, Verification

    spec = Verification(
        inputs=(Input("iterated", InputKind.ROWS),), rewrite=HOIST, timing=Timing.COLD
    )
    source = "def f(bs):\n    out = []\n    for b in bs:\n        m = build(8)\n        out.append(m(b))\n    return out\n"
    job, outcome = plan_finding(
        0,
        _finding("m.py", 4, code="NEW123"),
        source,
        ast.parse(source),
        VerifyOptions(root=tmp_path),
        spec,
    )
    assert outcome is None, outcome
    assert job["mode"] == "function" and job["variant"] == "rewrite" and job["cold"] is True
    assert "    m = build(8)\n    for b in bs:" in job["fixed_source"]
    assert job["inputs"]["bs"]["kind"] == "rows" and job["inputs"]["bs"]["shape"] == [256, 32]


# -- inputs: NumPy or tensor, by how the body uses them ------------------------------
CONV = """\
import numpy as np


def smooth(image, kernel):
    kh, kw = kernel.shape
    h, w = image.shape
    out = np.zeros((h - kh + 1, w - kw + 1), dtype=image.dtype)
    for i in range(h - kh + 1):
        for j in range(w - kw + 1):
            out[i, j] = np.sum(image[i:i + kh, j:j + kw] * kernel)
    return out
"""


def test_numpy_convolution_gets_a_numpy_image_and_kernel():
    import ast

    from tflint_perf.verify.inputs import plan_inputs

    tree = ast.parse(CONV)
    spec = RULES["TFP102"].verification
    specs, why = plan_inputs("TFP102", tree.body[1], 8, 10, 256, spec.inputs, tree)
    assert why == ""
    assert specs["image"] == {
        "role": "image",
        "kind": "image",
        "shape": [32, 32],
        "array": "numpy",
        "dtype": "float64",
    }
    assert specs["kernel"]["shape"] == [3, 3] and specs["kernel"]["array"] == "numpy"
    assert list(specs) == ["image", "kernel"]  # in the function's order


def test_tensor_code_gets_tensors_and_mixed_code_follows_the_parameter():
    import ast

    from tflint_perf.verify.inputs import array_kind, module_aliases

    source = (
        "import numpy as np\nimport tensorflow as tf\n\n"
        "def f(x, k):\n    rows = [tf.reduce_sum(x[i]) for i in range(len(x))]\n"
        "    return tf.stack(rows) + np.sum(k)\n"
    )
    tree = ast.parse(source)
    aliases = module_aliases(tree)
    assert aliases == {"np": "numpy", "tf": "tensor"}
    assert array_kind(tree.body[2], "x", aliases) == "tensor"
    assert array_kind(tree.body[2], "k", aliases) == "numpy"


LINEAR = """\
    import numpy as np


    def error(b, w, points):
        total = 0
        for i in range(0, len(points)):
            x = points[i, 0]
            y = points[i, 1]
            total += (y - (w * x + b)) ** 2
        return total / float(len(points))


    points = np.random.default_rng(0).normal(size=(3000, 2))
    print(error(0.5, 2.0, points))
"""


def _rule_finding(path):
    """The TFP101 finding of the file at ``path``, as the rule made it (with its
    whole-array code)."""
    from tflint_perf.engine.linter import lint_source

    (finding,) = [
        f for f in lint_source(Path(path).read_text(), path, all_rules()) if f.code == "TFP101"
    ]
    return finding


def test_whole_array_rewrite_runs_equal_and_a_wrong_rewrite_is_unverified_not_a_mismatch(
    tmp_path,
):
    path = _write(tmp_path, "lin.py", LINEAR)
    finding = _rule_finding(path)  # TFP101: no fix, the rule's whole-array code is measured
    _run(tmp_path, path, [finding])
    v = finding.extra["verify"]
    assert v["equal"] is True and v["variant"] == "rewrite", v
    assert "np.sum(" in v["diff"], v["diff"]

    wrong = _rule_finding(path)
    edits = wrong.extra["whole_array"]["edits"]
    edits[-1] = dict(edits[-1], content=edits[-1]["content"].replace("np.sum(", "1.5 * np.sum(", 1))
    assert "1.5 * np.sum(" in edits[-1]["content"]
    _run(tmp_path, path, [wrong])
    v = wrong.extra["verify"]
    assert v["status"] == "unverified", v
    assert (
        "the verification-only rewrite (there is no fix) does not give the same values"
        in v["reason"]
    )


# -- state: captured once, restored before every run -------------------------------
class _Var:
    """Quacks like a tf.Variable."""

    def __init__(self, value, name):
        import numpy as np

        self.value, self.name = np.array(value, dtype=float), name

    def assign(self, value):
        self.value = value.copy()

    def numpy(self):
        return self.value


def test_state_restores_variables_generators_containers_and_adopts_lazy_ones():
    import random

    import numpy as np

    from tflint_perf.verify.state import State

    class Optimizer:
        def __init__(self):
            self.slots = []

        @property
        def variables(self):
            return list(self.slots)

    weights, optimizer = _Var([1.0, 2.0], "w"), Optimizer()
    rng, py_rng, history = np.random.default_rng(1), random.Random(2), [1]
    namespace = {"weights": weights, "optimizer": optimizer, "rng": rng, "history": history}
    state = State(np, list(namespace.values()), namespace)

    def step():
        if not optimizer.slots:
            optimizer.slots.append(_Var([0.0], "slot"))  # built on the first step
        optimizer.slots[0].value = optimizer.slots[0].value + 1
        weights.value = weights.value - 0.5
        history.append(len(history))
        return rng.normal(), py_rng.random()

    step()
    state.restore()
    assert state.capture() == 1  # the slot joins, at its value now
    runs = []
    for _ in range(2):
        state.restore()
        runs.append((step(), state.values(), list(history)))
    assert runs[0][0][0] == runs[1][0][0]  # numpy's generator restored
    assert [v.tolist() for v in runs[0][1].values()] == [v.tolist() for v in runs[1][1].values()]
    assert runs[0][2] == runs[1][2] == [1, 1]
    state.restore()
    assert weights.value.tolist() == [1.0, 2.0] and optimizer.slots[0].value.tolist() == [1.0]


def test_state_that_cannot_be_restored_is_unverified_and_named(tmp_path):
    path = _write(
        tmp_path,
        "it.py",
        """\
        import numpy as np

        noise = iter(range(10**6))


        def step(x):
            return x * 2 + next(noise)


        if __name__ == "__main__":
            for _ in range(100):
                step(np.ones(3))
    """,
    )
    fix = _replace_line(path, 7, "    return x + x + next(noise)")
    session, _ = _run(tmp_path, path, [_finding(path, 7, fix=fix)])
    v = session.findings[0].extra["verify"]
    assert v["status"] == "unverified" and v["equal"] is None and v["speedup"] is None, v
    assert v["reason"].startswith("state cannot be restored"), v
    assert "`noise` is an iterator" in v["reason"]


def test_a_seeded_generator_and_a_module_list_are_restored_so_results_are_equal(tmp_path):
    path = _write(
        tmp_path,
        "rng.py",
        """\
        import numpy as np

        rng = np.random.default_rng(7)
        seen = []


        def noisy(x):
            seen.append(1)
            return x + rng.normal(size=x.shape) * len(seen)


        if __name__ == "__main__":
            for _ in range(50):
                noisy(np.ones(4))
    """,
    )
    fix = _replace_line(path, 9, "    return rng.normal(size=x.shape) * len(seen) + x")
    session, _ = _run(tmp_path, path, [_finding(path, 9, fix=fix)])
    v = session.findings[0].extra["verify"]
    assert v["equal"] is True, v


def test_no_speedup_is_reported_without_equality():
    from tflint_perf.verify.verdicts import timing_verdict

    raw = {
        "first_call_s": {"baseline": 1.0, "fixed": 0.1},
        "equal": None,
        "equal_note": "state cannot be restored: ...",
    }
    v = timing_verdict(raw, "CPU")
    assert v["status"] == "unverified" and v["speedup"] is None
    assert "no speedup is reported without equal results" in v["reason"]


@pytest.mark.parametrize("value", [float("inf"), float("nan"), 0.0, -1.0])
def test_verify_timeout_must_be_a_positive_finite_number(tmp_path, value):
    import argparse

    from tflint_perf.run.config import Settings

    args = argparse.Namespace(verify_timeout=value, verify_size=None, verify_memory=None)
    settings = Settings(root=tmp_path)
    with pytest.raises(ConfigError, match="positive, finite"):
        verify_cli.options(args, settings)
    with pytest.raises(ConfigError, match="finite|positive"):
        options_from_table({"timeout": value}, tmp_path)


# -- findings inside methods ------------------------------------------------------
AGENT = """\
    import numpy as np


    class Agent:
        def __init__(self, n):
            self.memory = []
            self.epsilon = 1.0
            self.w = np.arange(float(n))

        def act(self, x):
            self.epsilon *= 0.9
            self.memory.append(float(x.sum()))
            return np.array([float(r @ self.w) for r in x]) * self.epsilon

"""


def test_method_is_measured_at_its_first_call_with_the_instance_restored(tmp_path):
    path = _write(
        tmp_path,
        "agent.py",
        textwrap.dedent(AGENT) + "agent = Agent(8)\nagent.act(np.ones((300, 8)))\n",
    )
    fix = _replace_line(path, 13, "        return (x @ self.w) * self.epsilon")
    finding = _finding(path, 13, fix=fix)
    _run(tmp_path, path, [finding])
    v = finding.extra["verify"]
    # epsilon and the memory change on every call: equal only when restored before each run
    assert v["equal"] is True and "`Agent.act` at its call site (line 16)" in v["where"], v


def test_method_nothing_calls_gets_an_instance_from_the_modules_objects(tmp_path):
    path = _write(
        tmp_path, "agent.py", textwrap.dedent(AGENT) + "n = 32\nif False:\n    Agent(n).act(None)\n"
    )
    fix = _replace_line(path, 13, "        return (x @ self.w) * self.epsilon")
    finding = _finding(path, 13, fix=fix)
    _run(tmp_path, path, [finding])
    v = finding.extra["verify"]
    assert v["equal"] is True, v
    assert (
        "on an instance made by `Agent(n=n)`" in v["where"] and "synthesised inputs" in v["where"]
    )


def test_method_fix_that_changes_results_is_a_mismatch(tmp_path):
    path = _write(
        tmp_path,
        "agent.py",
        textwrap.dedent(AGENT) + "agent = Agent(8)\nagent.act(np.ones((30, 8)))\n",
    )
    fix = _replace_line(path, 13, "        return (x @ self.w) * 0.5")
    finding = _finding(path, 13, fix=fix)
    _run(tmp_path, path, [finding])
    assert finding.extra["verify"]["status"] == "mismatch", finding.extra["verify"]


# -- notebooks ----------------------------------------------------------------------
def _notebook(tmp_path, cells):
    path = tmp_path / "nb.ipynb"
    nb = {
        "cells": [
            {"cell_type": "code", "metadata": {}, "outputs": [], "source": c.splitlines(True)}
            for c in cells
        ]
        + [{"cell_type": "markdown", "metadata": {}, "source": ["# notes\n"]}],
        "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb, indent=1))
    return str(path)


NOTEBOOK_CELLS = [
    "import numpy as np\n%matplotlib inline\n",
    "x = np.arange(20000.0).reshape(200, 100)\ndisplay(x.shape)\n",
    "def totals(x):\n    return np.array([float(r.sum()) for r in x])\n\nt = totals(x)\nprint(t[:2])\n",
]


def test_notebook_cells_run_joined_and_the_verdict_names_cells(tmp_path):
    from tflint_perf.run.config import Settings
    from tflint_perf.run.files import lint_file
    from tflint_perf.verify.notebook import NotebookView

    path = _notebook(tmp_path, NOTEBOOK_CELLS)
    text = Path(path).read_text()
    view = NotebookView(text)
    (finding,) = lint_file(path, Settings()).findings
    assert (finding.code, finding.extra["cell"], finding.extra["cell_line"]) == ("TFP101", 3, 2)
    line, _ = view.position(finding)
    old = view.source.splitlines()[line - 1]
    finding.fix = Fix((Edit(line, 0, line, len(old), "    return x.sum(axis=1)"),))
    verify([(path, view.source, [finding], view)], _options(tmp_path), RULES, stderr=StringIO())
    v = finding.extra["verify"]
    assert v["equal"] is True, v  # `%matplotlib` neutralised, `display` given by the worker
    assert v["where"] == "`totals` at its call site (cell 3, line 4)", v
    assert "(code cells joined, original)" in v["diff"]
    v["status"] = "verified"
    stderr = StringIO()
    applied = verify_cli.apply_verified(
        [(path, view.source, [finding], view)], {path: (text, "utf-8")}, False, stderr
    )
    assert applied == 1, stderr.getvalue()
    written = json.loads(Path(path).read_text())
    assert written["cells"][2]["source"][1] == "    return x.sum(axis=1)\n"
    assert written["cells"][3]["cell_type"] == "markdown"  # the rest of the file as it was
    assert [f.code for f in lint_file(path, Settings()).findings] == []


LATE = """\
    import numpy as np


    class Agent:
        def __init__(self):
            self.calls = 0

        def act(self, x):
            self.calls += 1
            if self.calls < CALLS:
                return 0.0
            return float(np.array([float(r.sum()) for r in x]).sum())


    agent = Agent()
    for _ in range(60):
        agent.act(np.ones((50, 4)))
"""


@pytest.mark.parametrize("calls, status", [(3, "mismatch"), (1000, "unverified")])
def test_a_call_that_skips_the_flagged_line_is_not_measured(tmp_path, calls, status):
    """Measured at the first call that runs the flagged line (an agent exploring at first)."""
    path = _write(tmp_path, "late.py", LATE.replace("CALLS", str(calls)))
    # a fix that changes the value: only a call that runs the flagged line can tell
    fix = _replace_line(path, 12, "        return float(x.sum()) + 1.0")
    finding = _finding(path, 12, fix=fix)
    _run(tmp_path, path, [finding])
    v = finding.extra["verify"]
    assert v["status"] == status, v
    if status == "unverified":
        assert "was called 50 times and never ran the flagged line 12" in v["reason"], v


def test_a_fix_that_adds_a_function_next_to_the_flagged_one(tmp_path):
    """The fix moves the loop's work into a new top-level function (a step) and calls it."""
    path = _write(
        tmp_path,
        "epoch.py",
        """\
        import numpy as np

        w = np.arange(4.0)


        def train_epoch(data):
            total = 0.0
            for x in data:
                total += float(np.tanh(x @ w).sum())
            return total


        print(train_epoch(np.ones((200, 4))))
        """,
    )
    step = "def step(x):\n    return float(np.tanh(x @ w).sum())\n\n\n"
    old = Path(path).read_text().splitlines()[8]
    fix = Fix((Edit(6, 0, 6, 0, step), Edit(9, 0, 9, len(old), "        total += step(x)")))
    finding = _finding(path, 9, fix=fix)
    _run(tmp_path, path, [finding])
    v = finding.extra["verify"]
    assert v["equal"] is True and "`train_epoch` at its call site" in v["where"], v


def test_a_rule_that_cannot_be_measured_says_why(tmp_path):
    import ast

    from tflint_perf.engine.verification import Verification

    source = "x = 1\nprint(x)\n"
    spec = Verification(unmeasurable="the skeleton has nothing to time")
    job, outcome = plan_finding(
        0,
        _finding("m.py", 1, code="NEW123"),
        source,
        ast.parse(source),
        VerifyOptions(root=tmp_path),
        spec,
    )
    assert job is None and outcome["status"] == "unverified", outcome
    assert outcome["reason"] == "NEW123 cannot be measured: the skeleton has nothing to time"


def test_tfp404_without_a_training_call_at_the_finding_says_why(tmp_path):
    path = _write(tmp_path, "one.py", "x = 1\nprint(x)\n")
    finding = _finding(path, 1, code="TFP404")
    _run(tmp_path, path, [finding])
    v = finding.extra["verify"]
    assert v["status"] == "unverified", v
    assert "no verification rewrite for this TFP404 case: no `fit`/`train_on_batch`" in v["reason"]


def test_pipeline_findings_locate_their_chain_in_both_variants(tmp_path):
    """A finding at `.map` of a chain: the chain's start, moved down in the fixed variant by
    the import line the fix inserts above it; a finding at no method call is not iterated."""
    import ast as ast_mod

    source = "import numpy as np\n\nds = tf.data.Dataset.range(8).map(f).batch(2)\n"
    column = source.splitlines()[2].index("map") + 1
    fix = Fix((Edit(1, 0, 1, 0, "import tensorflow as tf\n"), Edit(3, 35, 3, 35, ", 4")))
    finding = Finding("m.py", 3, column, 3, column + 3, "TFP402", "n", "m", fix=fix)
    spec = RULES["TFP402"].verification
    options = VerifyOptions(root=tmp_path)
    job, outcome = plan_finding(0, finding, source, ast_mod.parse(source), options, spec)
    assert outcome is None and job["mode"] == "module", outcome
    assert (job["pipeline"], job["fixed_pipeline"], job["iterate"]) == ([3, 5], [4, 5], "alone")
    elsewhere = Finding("m.py", 3, 1, 3, 3, "TFP402", "n", "m", fix=fix)
    job, outcome = plan_finding(0, elsewhere, source, ast_mod.parse(source), options, spec)
    assert job is None and "builds no pipeline that can be iterated apart" in outcome["reason"]
