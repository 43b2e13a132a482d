"""--verify with TensorFlow (tensorflow-cpu is enough): skipped when it is not installed.

Each test starts a few worker processes that import TensorFlow (a few
seconds each). Timing figures are never asserted, only verdict kinds and
equality.
"""

import importlib.util
import json
import subprocess
import sys
from io import StringIO

import pytest

from tflint_perf.rule import Edit, Finding, Fix
from tflint_perf.verify.options import VerifyOptions
from tflint_perf.verify.session import verify

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("tensorflow") is None, reason="tensorflow is not installed (make test installs tensorflow-cpu)"
)

THREADS_LATE = """\
import tensorflow as tf

weights = tf.ones((4, 4))
tf.config.threading.set_intra_op_parallelism_threads(1)
print(tf.reduce_sum(weights).numpy())
"""

GROWTH_LATE = """\
import tensorflow as tf

scale = tf.constant(2.0)
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
print(scale * 3)
"""


def test_tfp301_reproduced_and_fixed_then_fix_verify_applies_only_that(tmp_path, cli_env):
    (tmp_path / "threads_late.py").write_text(THREADS_LATE)
    (tmp_path / "growth_late.py").write_text(GROWTH_LATE)
    report = tmp_path / "verify.html"
    proc = subprocess.run(
        [sys.executable, "-m", "tflint_perf", "check", "--select", "TFP301", "--fix", "--verify", "--format", "json",
         "--verify-report", str(report), str(tmp_path)],
        capture_output=True, text=True, env=cli_env, timeout=300,
    )
    findings = json.loads(proc.stdout)
    # the verified fix was applied: the thread setting now comes first
    fixed = (tmp_path / "threads_late.py").read_text()
    assert fixed.index("set_intra_op_parallelism_threads") < fixed.index("tf.ones"), proc.stderr
    assert [f["path"].rsplit("/", 1)[-1] for f in findings] == ["growth_late.py"]
    v = findings[0]["verify"]
    if "GPU" not in v["device"].split(" (")[0]:
        assert v["status"] == "unverified" and v["reason"].startswith("needs a GPU"), v
    assert "held back the fix for" in proc.stderr and "growth_late.py:5" in proc.stderr
    page = report.read_text()
    assert "threads_late.py" in page and ">fixed<" in page and "needs a GPU" in page


LOOPS = """\
import tensorflow as tf

x = tf.random.normal((128, 16))
rows = []
for row in x:
    rows.append(tf.reduce_sum(row))
totals = tf.stack(rows)


def row_max(x):
    out = []
    for i in range(x.shape[0]):
        out.append(tf.reduce_max(x[i]))
    return tf.stack(out)


def step(x):
    return tf.reduce_sum(tf.tanh(tf.matmul(x, tf.transpose(x))))


if __name__ == "__main__":
    for _ in range(3):
        print(step(x).numpy())
"""


def test_rewrites_synthesised_inputs_and_call_sites_agree(tmp_path):
    path = tmp_path / "loops.py"
    path.write_text(LOOPS)
    findings = [
        Finding(str(path), 5, 1, 6, 1, "TFP101", "elementwise-loop", "m"),
        Finding(str(path), 12, 5, 13, 1, "TFP101", "elementwise-loop", "m"),
        Finding(str(path), 17, 1, 17, 1, "TFP201", "missing-tf-function", "m",
                Fix((Edit(17, 0, 17, 0, "@tf.function\n"),))),
    ]
    options = VerifyOptions(root=tmp_path, python=sys.executable, timeout=120, size=64)
    session = verify([(str(path), LOOPS, findings)], options, {}, stderr=StringIO())
    assert session.device.startswith(("CPU", "GPU"))
    results = [f.extra["verify"] for f in findings]
    for v in results:
        assert v["status"] in ("verified", "no-speedup"), v
        assert v["equal"] is True, v
    assert "module-level statements" in results[0]["where"]
    assert "synthesised inputs (x: matrix 64x32)" in results[1]["where"]
    assert "call site" in results[2]["where"]
