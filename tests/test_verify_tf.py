"""--verify with TensorFlow (tensorflow-cpu is enough): skipped when it is not installed.

Equality only: every case must give ``equal: true`` (or, for the case whose
state cannot be restored, ``unverified`` with that reason). How much faster
a fix is, is measured by ``bench/verify_cases.py`` and recorded there, never
asserted here. Each checked file costs one worker that imports TensorFlow.
"""

import importlib.util
import json
import shutil
import subprocess
import sys
from io import StringIO

import pytest
from conftest import ROOT

from tflint_perf.engine.rule import Edit, Finding, Fix
from tflint_perf.rules import all_rules
from tflint_perf.verify.options import VerifyOptions
from tflint_perf.verify.session import verify

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("tensorflow") is None,
    reason="tensorflow is not installed (make test installs tensorflow-cpu)",
)

EXAMPLES = ROOT / "examples"
SAMPLES = ROOT / "bench" / "verify" / "cases"


def _check_json(paths, select, cli_env, *extra):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tflint_perf",
            "check",
            "--select",
            select,
            "--verify",
            "--verify-size",
            "64",
            "--format",
            "json",
            *extra,
            *map(str, paths),
        ],
        capture_output=True,
        text=True,
        env=cli_env,
        timeout=400,
    )
    return proc, json.loads(proc.stdout)


# sample -> (code, words in `where`)
CASES = {
    "keras_step.py": ("TFP201", "`train_step` at its call site (line 25)"),
    "numpy_conv.py": (
        "TFP102",
        "synthesised inputs (image: numpy float64 16x16, kernel: numpy float64 3x3)",
    ),
    "row_comprehension.py": ("TFP101", "synthesised inputs (x: tensor float32 64x32)"),
    "function_in_loop.py": ("TFP202", "`scale_all` at its call site (line 16)"),
    "scalar_retrace.py": ("TFP203", "`run` at its call site (line 19)"),
}


def test_issue12_cases_are_equal_and_unrestorable_state_is_unverified(cli_env):
    """One case of each kind: a Keras step, a NumPy convolution, a comprehension over rows,
    a tf.function created in a loop, a retracing Python scalar; and a step whose state
    (an iterator) cannot be restored."""
    paths = [SAMPLES / name for name in [*CASES, "iterator_step.py"]]
    proc, findings = _check_json(
        paths, "TFP101,TFP102,TFP201,TFP202,TFP203", cli_env, "--unsafe-fixes"
    )
    by_file = {f["path"].rsplit("/", 1)[-1]: f for f in findings}
    assert sorted(by_file) == sorted(p.name for p in paths), proc.stderr
    for name, (code, where) in CASES.items():
        finding = by_file[name]
        v = finding["verify"]
        assert finding["code"] == code
        assert v["equal"] is True, (name, v)
        assert v["speedup"] is not None and v["repeats"] >= 1, (name, v)  # timed; how fast: bench/
        assert where in v["where"], (name, v["where"])
    # 4 of the model, 10 of Adam (its slots are created by the first call and captured then)
    assert by_file["keras_step.py"]["verify"]["compared_variables"] >= 10
    v = by_file["iterator_step.py"]["verify"]
    assert v["status"] == "unverified" and v["equal"] is None and v["speedup"] is None, v
    assert v["reason"].startswith("state cannot be restored"), v
    assert "`noise` is an iterator" in v["reason"], v


def test_real_examples_tfp101_tfp202_equal_and_tfp301_fixed_or_needs_a_gpu(cli_env):
    """The shipped examples, as `make demo` runs them (read-only: no --fix)."""
    names = [
        "elementwise_loop.py",
        "model_rebuilt_per_batch.py",
        "threads_after_init.py",
        "gpu_setup_after_model.py",
    ]
    proc, findings = _check_json([EXAMPLES / n for n in names], "TFP101,TFP202,TFP301", cli_env)
    by_file = {f["path"].rsplit("/", 1)[-1]: f for f in findings}
    assert sorted(by_file) == sorted(names), proc.stderr
    for name, code in (("elementwise_loop.py", "TFP101"), ("model_rebuilt_per_batch.py", "TFP202")):
        v = by_file[name]["verify"]
        assert by_file[name]["code"] == code
        assert v["equal"] is True and v["variant"] == "rewrite", v
        assert v["first_call_s"] is None and v["speedup"] is not None  # first calls: fresh workers
    v = by_file["elementwise_loop.py"]["verify"]
    assert "cosine_scores` at its call site" in v["where"]
    v = by_file["threads_after_init.py"]["verify"]
    assert v["status"] == "fixed", v
    assert v["reason"].startswith(
        "reproduced: RuntimeError: Intra op parallelism cannot be modified"
    ), v
    v = by_file["gpu_setup_after_model.py"]["verify"]
    if "GPU" not in v["device"].split(" (")[0]:
        assert v["status"] == "unverified" and v["reason"].startswith("needs a GPU"), v


def test_methods_synthetic_datasets_and_tensorflow_guard_rails(tmp_path, cli_env):
    """A method on a synthesised MNIST, a refused download, and tf.io.gfile.rmtree of a canary."""
    canary = tmp_path / "canary"
    canary.mkdir()
    (canary / "keep.txt").write_text("keep\n")
    rmtree = tmp_path / "rmtree.py"
    rmtree.write_text(
        (SAMPLES / "download_refused.py")
        .read_text()
        .replace(
            "path = tf.keras.utils.get_file(", f"tf.io.gfile.rmtree({str(canary)!r})\nif 0:print("
        )
    )
    save = tmp_path / "save.py"  # Keras writes through h5py (C): guarded all the same
    save.write_text(
        (SAMPLES / "download_refused.py")
        .read_text()
        .replace(
            "path = tf.keras.utils.get_file(",
            "model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])\n"
            f"try:\n    model.save({str(canary / 'm.h5')!r})\nexcept OSError:\n    pass\nif 0:print(",
        )
    )
    paths = [SAMPLES / "agent_method.py", SAMPLES / "download_refused.py", rmtree, save]
    proc, findings = _check_json(paths, "TFP101,TFP403", cli_env)
    by_file = {f["path"].rsplit("/", 1)[-1]: f["verify"] for f in findings}
    assert sorted(by_file) == ["agent_method.py", "download_refused.py", "rmtree.py", "save.py"], (
        proc.stderr
    )
    v = by_file["save.py"]
    assert v["status"] == "unverified" and f"`{canary / 'm.h5'}`" in v["reason"], v
    v = by_file["agent_method.py"]
    assert v["equal"] is True and "`Agent.act_all` at its call site" in v["where"], v
    assert v["synthetic_data"] == ["keras.datasets.mnist"] and "on synthetic data" in v["reason"]
    assert v["shortened"] == ["fit at line 30: 1 of 50 epochs"], v
    v = by_file["download_refused.py"]
    assert v["status"] == "unverified", v
    assert (
        "refused downloading https://storage.googleapis.com/download.tensorflow.org/" in v["reason"]
    )
    v = by_file["rmtree.py"]
    assert v["status"] == "unverified" and f"deleting the folder `{canary}`" in v["reason"], v
    assert (canary / "keep.txt").read_text() == "keep\n" and not (canary / "m.h5").exists()
    assert proc.stderr.count("--verify runs the code under review") == 1


def test_tfp301_fix_verify_applies_only_the_fixed_example(tmp_path, cli_env):
    for name in ("threads_after_init.py", "gpu_setup_after_model.py"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    report = tmp_path / "verify.html"
    proc, findings = _check_json(
        [tmp_path], "TFP301", cli_env, "--fix", "--verify-report", str(report)
    )
    # the fixed verdict let the fix through: the thread setting now comes before the first tensor
    fixed = (tmp_path / "threads_after_init.py").read_text()
    assert fixed.index("set_intra_op_parallelism_threads") < fixed.index("tf.constant("), (
        proc.stderr
    )
    assert [f["path"].rsplit("/", 1)[-1] for f in findings] == ["gpu_setup_after_model.py"]
    if "GPU" not in findings[0]["verify"]["device"].split(" (")[0]:
        assert findings[0]["verify"]["status"] == "unverified"
        assert (
            "held back the fix for" in proc.stderr and "gpu_setup_after_model.py:23" in proc.stderr
        )
    page = report.read_text()
    assert "threads_after_init.py" in page and ">fixed<" in page


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
    from tflint_perf.engine.linter import lint_source

    path = tmp_path / "loops.py"
    path.write_text(LOOPS)
    # The TFP101 findings as the rule makes them: each carries its whole-array code.
    loops = [f for f in lint_source(LOOPS, str(path), all_rules()) if f.code == "TFP101"]
    assert [(f.line, "whole_array" in f.extra) for f in loops] == [(5, True), (12, True)]
    findings = [
        *loops,
        Finding(
            str(path),
            17,
            1,
            17,
            1,
            "TFP201",
            "missing-tf-function",
            "m",
            Fix((Edit(17, 0, 17, 0, "@tf.function\n"),)),
        ),
    ]
    options = VerifyOptions(root=tmp_path, python=sys.executable, timeout=120, size=64)
    rules = {rule.code: rule for rule in all_rules()}
    session = verify([(str(path), LOOPS, findings)], options, rules, stderr=StringIO())
    assert session.device.startswith(("CPU", "GPU"))
    results = [f.extra["verify"] for f in findings]
    for v in results:
        assert v["equal"] is True, v
    assert "module-level statements" in results[0]["where"]
    assert "synthesised inputs (x: tensor float32 64x32)" in results[1]["where"]
    assert "call site" in results[2]["where"]


def test_tfp404_batched_fit_timed_not_compared_and_the_online_step_compared(cli_env):
    """Per-transition `fit` against one `fit` on the stacked samples (timed, said not
    compared: batching trains differently by design); an online `fit` against
    `train_on_batch`, the same step, compared as usual."""
    proc, findings = _check_json([SAMPLES / "replay_fit.py"], "TFP404", cli_env)
    by_line = {f["line"]: f["verify"] for f in findings}
    assert sorted(by_line) == [17, 25], proc.stderr
    v = by_line[17]
    assert v["equal"] is None and v["speedup"] is not None, v
    assert "results not compared: batching changes the training by design" in v["reason"], v
    assert (
        "+    if __tfp_samples[0]:\n+        model.fit(__import__('numpy').concatenate("
        in v["diff"]
    )
    v = by_line[25]
    assert v["equal"] is True and v["speedup"] is not None, v
    assert "+        model.train_on_batch(obs, target)\n" in v["diff"], v


def test_shuffled_passes_random_draws_and_a_compiled_models_optimizer(cli_env):
    """Three ways the original used to disagree with itself ("state cannot be restored"): a
    dataset reshuffled on every pass, a step that draws noise (compiled, it draws other
    numbers), and `fit` on a model whose optimizer is reached only through the model."""
    names = ["shuffled_loop.py", "noisy_step.py", "agent_fit.py"]
    proc, findings = _check_json([SAMPLES / n for n in names], "TFP201,TFP403", cli_env)
    by_file = {f["path"].rsplit("/", 1)[-1]: f["verify"] for f in findings}
    assert sorted(by_file) == sorted(names), proc.stderr
    v = by_file["shuffled_loop.py"]
    assert v["equal"] is True and v["fixed_order"] == ["shuffle at line 9"], v
    assert "the dataset's shuffle kept one seeded order on every pass" in v["reason"]
    v = by_file["noisy_step.py"]
    assert v["equal"] is None and "random_draws" in v, v
    assert "results equal up to random draws: the code draws random numbers" in v["reason"]
    v = by_file["agent_fit.py"]
    assert v["equal"] is True and v["compared_variables"] > 4, v  # the model's 4 and Adam's


def test_pipelines_are_iterated_alone_not_the_training_around_them(cli_env):
    """A tf.data finding is timed on the dataset its chain builds (caught where it is built,
    the training after it not run): TFP402's parallel map as fast as it makes elements, in
    the function that builds it at its call site; TFP401's prefetch with a stand-in step per
    element, at module level. Both compared element by element."""
    proc, findings = _check_json(
        [SAMPLES / "pipeline_map.py"], "TFP401,TFP402", cli_env, "--unsafe-fixes"
    )
    by_code = {f["code"]: f["verify"] for f in findings}
    assert sorted(by_code) == ["TFP401", "TFP402"], proc.stderr
    v = by_code["TFP402"]
    assert v["equal"] is True and v["speedup"] is not None, v
    assert v["where"].startswith(
        "`make` at its call site (line 24), the dataset built at line 19 iterated alone: its first "
    ), v
    assert "stand-in step" not in v["where"], v
    v = by_code["TFP401"]
    assert v["equal"] is True and v["speedup"] is not None, v
    assert v["where"].startswith(
        "module-level statements, lines 25-25, the dataset built at line 25 iterated alone: "
    ), v
    assert "each followed by a stand-in step of " in v["where"], v
