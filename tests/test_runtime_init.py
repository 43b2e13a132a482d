"""Every call the API table says starts the TensorFlow runtime
(``Effect.INITS_RUNTIME``, read by TFP301/TFP303), checked against
TensorFlow itself (tensorflow-cpu is enough; skipped without it).

One probe process imports TensorFlow once, then forks a fresh child per
check, so each call meets a runtime nobody has started (a control check
proves it). The child runs the setup, makes the call, then tries
``tf.config.threading.set_inter_op_parallelism_threads``, which raises
``RuntimeError`` once the runtime is up. The whole file costs the import
plus about 0.1 s per check.
"""

import importlib.util
import json
import subprocess
import sys
import textwrap

import pytest

from tflint_perf.analysis import api
from tflint_perf.analysis.api import Effect, Kind, tables

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("tensorflow") is None,
    reason="tensorflow is not installed (make test installs tensorflow-cpu)",
)

GRAPH = "tf.compat.v1.disable_eager_execution()\n"
MODEL = "m = keras.Sequential([keras.layers.Dense(1)])\n"  # unbuilt: does not initialise
X = "np.zeros((2, 2), 'float32')"
# fit/evaluate need compile() first, which initialises already.
COMPILED = MODEL + "SETUP_INITIALISES\nm.compile('sgd', 'mse')"

# tf.<name>(...) for each name in INIT_TOP_LEVEL.
TOP_LEVEL_CALLS = {
    "constant": "tf.constant(1.0)",
    "Variable": "tf.Variable(1.0)",
    "zeros": "tf.zeros([2])",
    "ones": "tf.ones([2])",
    "fill": "tf.fill([2], 1.0)",
    "range": "tf.range(3)",
    "eye": "tf.eye(2)",
    "convert_to_tensor": "tf.convert_to_tensor([1.0])",
    "zeros_like": "tf.zeros_like([1.0])",
    "ones_like": "tf.ones_like([1.0])",
    "cast": "tf.cast([1], tf.float32)",
    "reshape": "tf.reshape([1.0, 2.0], [2, 1])",
    "matmul": "tf.matmul([[1.0]], [[2.0]])",
    "add": "tf.add(1.0, 2.0)",
    "subtract": "tf.subtract(1.0, 2.0)",
    "multiply": "tf.multiply(1.0, 2.0)",
    "divide": "tf.divide(1.0, 2.0)",
    "reduce_sum": "tf.reduce_sum([1.0, 2.0])",
    "reduce_mean": "tf.reduce_mean([1.0, 2.0])",
    "reduce_max": "tf.reduce_max([1.0, 2.0])",
    "reduce_min": "tf.reduce_min([1.0, 2.0])",
    "concat": "tf.concat([[1.0], [2.0]], 0)",
    "stack": "tf.stack([1.0, 2.0])",
    "transpose": "tf.transpose([[1.0, 2.0]])",
    "expand_dims": "tf.expand_dims([1.0], 0)",
    "squeeze": "tf.squeeze([[1.0]])",
    "tile": "tf.tile([1.0], [2])",
    "gather": "tf.gather([1.0, 2.0], [0])",
    "where": "tf.where([True, False])",
    "one_hot": "tf.one_hot([0, 1], 2)",
    "linspace": "tf.linspace(0.0, 1.0, 3)",
    "sqrt": "tf.sqrt(4.0)",
    "exp": "tf.exp(1.0)",
    "square": "tf.square(2.0)",
    "abs": "tf.abs(-1.0)",
    "random_normal": "tf.compat.v1.random_normal([1])",
    "random_uniform": "tf.compat.v1.random_uniform([1])",
    "truncated_normal": "tf.compat.v1.truncated_normal([1])",
    "identity": "tf.identity(1.0)",
}

# What the rules report as initialising -> (setup, call). The setup must not
# initialise (checked), unless the case says why it may.
INIT_CASES = {
    **{f"tensorflow.{name}": ("", call) for name, call in TOP_LEVEL_CALLS.items()},
    "tensorflow.math.": ("", "tf.math.add(1, 2)"),
    "tensorflow.linalg.": ("", "tf.linalg.eye(2)"),
    "tensorflow.nn.": ("", "tf.nn.relu([1.0])"),
    "tensorflow.image.": ("", "tf.image.flip_left_right(np.zeros((2, 2, 1)))"),
    "tensorflow.signal.": ("", "tf.signal.hann_window(4)"),
    "tensorflow.strings.": ("", "tf.strings.length('ab')"),
    "tensorflow.random.": ("", "tf.random.uniform([1])"),
    "tensorflow.data.Dataset.": ("", "tf.data.Dataset.range(3)"),
    "tensorflow.config.list_logical_devices": ("", "tf.config.list_logical_devices()"),
    "tensorflow.config.experimental.list_logical_devices": (
        "",
        "tf.config.experimental.list_logical_devices()",
    ),
    "tensorflow.distribute.MirroredStrategy": ("", "tf.distribute.MirroredStrategy()"),
    "tensorflow.distribute.OneDeviceStrategy": ("", "tf.distribute.OneDeviceStrategy('/cpu:0')"),
    "tensorflow.distribute.MultiWorkerMirroredStrategy": (
        "",
        "tf.distribute.MultiWorkerMirroredStrategy()",
    ),
    "tensorflow.distribute.experimental.CentralStorageStrategy": (
        "",
        "tf.distribute.experimental.CentralStorageStrategy()",
    ),
    "tensorflow.distribute.experimental.MultiWorkerMirroredStrategy": (
        "",
        "tf.distribute.experimental.MultiWorkerMirroredStrategy()",
    ),
    "tensorflow.data.TFRecordDataset": ("", "tf.data.TFRecordDataset(['missing.tfrecord'])"),
    "tensorflow.data.TextLineDataset": ("", "tf.data.TextLineDataset(['missing.txt'])"),
    "tensorflow.summary.create_file_writer": ("", "tf.summary.create_file_writer(TMP + '/logs')"),
    "keras.models.load_model": ("", "keras.models.load_model(TMP + '/m.keras')"),
    "keras.saving.load_model": ("", "keras_package.saving.load_model(TMP + '/m.keras')"),
    "keras.applications.*": ("", "keras.applications.MobileNetV3Small(weights=None)"),
    "keras.Sequential(Input)": ("", "keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])"),
    "keras.Sequential(input_shape=)": (
        "",
        "keras.Sequential([keras.layers.Dense(1, input_shape=(2,))])",
    ),
    # Calling a layer on an Input initialises: the functional Model(...) always comes after.
    "keras.Model(inputs, outputs)": (
        "SETUP_INITIALISES\ninp = keras.Input((2,))\nout = keras.layers.Dense(1)(inp)",
        "keras.Model(inp, out)",
    ),
    "model.build": (MODEL, "m.build((None, 2))"),
    "model.compile": (MODEL, "m.compile('sgd', 'mse')"),
    "model.predict": (MODEL, f"m.predict({X}, verbose=0)"),
    "model.predict_on_batch": (MODEL, f"m.predict_on_batch({X})"),
    "model(x)": (MODEL, f"m({X})"),
    "model.fit": (COMPILED, f"m.fit({X}, {X}, verbose=0)"),
    "model.evaluate": (COMPILED, f"m.evaluate({X}, {X}, verbose=0)"),
    "model.train_on_batch": (COMPILED, f"m.train_on_batch({X}, {X})"),
    "model.test_on_batch": (COMPILED, f"m.test_on_batch({X}, {X})"),
}

# Calls the rules must not report: measured not to initialise.
NOT_INIT_CASES = {
    "nothing (control)": ("", "pass"),
    "tf.config.list_physical_devices": ("", "tf.config.list_physical_devices('GPU')"),
    "tf.config.experimental.list_physical_devices": (
        "",
        "tf.config.experimental.list_physical_devices()",
    ),
    "tf.test.is_gpu_available": ("", "tf.test.is_gpu_available()"),
    "tf.test.gpu_device_name": ("", "tf.test.gpu_device_name()"),
    "tf.random.set_seed": ("", "tf.random.set_seed(0)"),
    "tf.signal.inverse_stft_window_fn": ("", "tf.signal.inverse_stft_window_fn(4)"),
    "keras.Input": ("", "keras.Input((2,))"),
    "keras.layers.Dense": ("", "keras.layers.Dense(3)"),
    "keras.Sequential (no input)": ("", MODEL),
    "keras.models.clone_model (unbuilt)": (MODEL, "keras.models.clone_model(m)"),
    "tf.GradientTape": ("", "tf.GradientTape()"),
    "tf.compat.v1.Session (eager)": ("", "tf.compat.v1.Session()"),
    "graph mode: tf.constant": (GRAPH, "tf.constant(1.0)"),
    "graph mode: tf.Variable": (GRAPH, "tf.Variable(1.0)"),
    "graph mode: Dataset": (GRAPH, "tf.data.Dataset.range(3)"),
    "graph mode: Session.run": (GRAPH, "tf.compat.v1.Session().run(tf.constant(1.0))"),
}
# With eager execution off, only the calls that create the devices still start it.
DEVICES = sorted(q for q, facts in tables.FUNCTIONS.items() if facts.effects & Effect.INITS_DEVICES)
GRAPH_CASES = {name: (GRAPH, INIT_CASES[name][1]) for name in DEVICES}

PROBE = textwrap.dedent(
    r"""
    import json, os, sys, tempfile, time, warnings
    warnings.simplefilter("ignore")
    import numpy as np
    import tensorflow as tf
    import keras as keras_package
    keras = tf.keras
    TMP = tempfile.mkdtemp()

    def in_child(code, timeout=120):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            try:
                result = code()
            except BaseException as exc:
                result = "error: " + repr(exc)[:300]
            os.write(write, result.encode())
            os._exit(0)
        os.close(write)
        deadline = time.time() + timeout
        while os.waitpid(pid, os.WNOHANG) == (0, 0):
            if time.time() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                return "timeout"
            time.sleep(0.01)
        with os.fdopen(read) as pipe:
            return pipe.read()

    def started(threads):
        try:
            tf.config.threading.set_inter_op_parallelism_threads(threads)
        except RuntimeError:
            return True
        return False

    def check(setup, call):
        may_init = "SETUP_INITIALISES" in setup
        scope = {"tf": tf, "keras": keras, "keras_package": keras_package, "np": np, "TMP": TMP}
        exec(setup.replace("SETUP_INITIALISES", ""), scope)
        if not may_init and started(3):
            return "setup initialised"
        exec(call, scope)
        return "init" if started(4) else "not-init"

    def save_model():
        model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
        model.save(os.path.join(TMP, "m.keras"))
        return "saved"

    cases = json.load(sys.stdin)
    out = {"save": in_child(save_model)}
    for name, (setup, call) in cases.items():
        out[name] = in_child(lambda: check(setup, call))
    print(json.dumps(out))
    """
)


@pytest.fixture(scope="module")
def measured():
    cases = {f"init {k}": v for k, v in INIT_CASES.items()}
    cases.update({f"not {k}": v for k, v in NOT_INIT_CASES.items()})
    cases.update({f"graph {k}": v for k, v in GRAPH_CASES.items()})
    proc = subprocess.run(
        [sys.executable, "-c", PROBE],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0 and "import tensorflow" in proc.stderr:
        pytest.skip(f"tensorflow does not import: {proc.stderr.strip()[-200:]}")
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    assert results.pop("save") == "saved"
    return results


def _starts(facts) -> bool:
    return bool(facts.effects & Effect.INITS_RUNTIME)


def test_every_initialising_entry_of_the_api_table_has_a_case():
    families = {p for p, facts in tables.PREFIXES if _starts(facts)}
    families |= {p for p, facts in tables.CLASS_FAMILIES if _starts(facts)}
    exact = {q for q, facts in tables.FUNCTIONS.items() if _starts(facts)}
    methods = {
        f"model.{name}" if name != "__call__" else "model(x)"
        for name, facts in tables.METHODS[Kind.KERAS_MODEL].items()
        if _starts(facts)
    }
    cases = {name.rstrip("*") for name in INIT_CASES}
    # A name in a family is covered by its family's case (``tensorflow.nn.``).
    measured_family = {f for f in cases if f.endswith(".")}
    uncovered = {
        q for q in exact if q not in cases and not any(q.startswith(f) for f in measured_family)
    }
    assert uncovered == set()
    assert {p for p in families if not any(p.startswith(f) for f in measured_family)} == set()
    assert methods <= cases
    # Models built as they are constructed (their arguments decide).
    assert {"keras.Sequential(Input)", "keras.Sequential(input_shape=)"} <= cases
    assert "keras.Model(inputs, outputs)" in cases


# What TensorFlow was measured not to start (NOT_INIT_CASES): the table agrees.
NOT_STARTING = (
    "tensorflow.config.list_physical_devices",
    "tensorflow.config.experimental.list_physical_devices",
    "tensorflow.test.is_gpu_available",
    "tensorflow.test.gpu_device_name",
    "tensorflow.random.set_seed",
    "tensorflow.signal.inverse_stft_window_fn",
    "keras.Input",
    "keras.layers.Dense",
    "keras.Sequential",
    "keras.models.clone_model",
    "tensorflow.GradientTape",
    "tensorflow.Session",
)


def test_the_table_does_not_say_what_was_measured_not_to_start_does():
    assert [q for q in NOT_STARTING if api.effects(q) & Effect.INITS_RUNTIME] == []


def test_calls_reported_as_initialising_do_initialise(measured):
    wrong = {k: v for k, v in measured.items() if k.startswith("init ") and v != "init"}
    assert not wrong


def test_calls_left_out_do_not_initialise(measured):
    wrong = {k: v for k, v in measured.items() if k.startswith("not ") and v != "not-init"}
    assert not wrong


def test_graph_mode_only_device_creating_calls_initialise(measured):
    wrong = {k: v for k, v in measured.items() if k.startswith("graph ") and v != "init"}
    assert not wrong
