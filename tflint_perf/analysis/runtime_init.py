"""Which calls start the TensorFlow runtime (after which devices are fixed)?

An allowlist, each entry measured on TensorFlow 2.21 with Keras 3:
``tests/test_runtime_init.py`` runs every kind of call below in a fresh
process and checks that configuring the runtime afterwards raises
``RuntimeError``. Anything not on the list is assumed not to initialise,
so the rules stay silent when unsure. Measured *not* to initialise, and so
left out: listing physical devices, ``tf.test.is_gpu_available()``,
``tf.test.gpu_device_name()``, ``tf.random.set_seed``, building layers or
an unbuilt ``Sequential``, ``keras.Input``, ``clone_model`` of an unbuilt
model.

With eager execution off (TF1 graph code), creating tensors, datasets,
variables and sessions builds a graph without starting the runtime; only
the calls in ``INIT_ALWAYS`` still do.

For the GPU environment variables two more starts count, which need a GPU
to observe and are not measured by the tests: ``list_physical_devices``
initialises the CUDA driver (it reads ``CUDA_VISIBLE_DEVICES``), and a TF1
``Session`` creates its GPU devices and their allocator when it is built.
"""

from __future__ import annotations

from typing import Optional

from tflint_perf.analysis.keras_models import ModelNames
from tflint_perf.analysis.tf_version import TfStyle
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.walk import descendants

# tf.<name>(...) calls that create tensors or variables.
INIT_TOP_LEVEL = frozenset(
    """constant Variable zeros ones fill range eye convert_to_tensor zeros_like
    ones_like cast reshape matmul add subtract multiply divide reduce_sum
    reduce_mean reduce_max reduce_min concat stack transpose expand_dims
    squeeze tile gather where one_hot linspace sqrt exp square abs
    random_normal random_uniform truncated_normal identity""".split()
)
# The functions below these modules create or transform tensors (the
# exceptions are in NOT_INIT).
INIT_MODULES = (
    "tensorflow.math.",
    "tensorflow.linalg.",
    "tensorflow.nn.",
    "tensorflow.image.",
    "tensorflow.signal.",
    "tensorflow.strings.",
    "tensorflow.random.",
    "tensorflow.data.Dataset.",
)
NOT_INIT = frozenset(
    {
        "tensorflow.random.set_seed",
        "tensorflow.random.set_global_generator",
        "tensorflow.random.experimental.set_global_generator",
        "tensorflow.random.Generator",
        "tensorflow.random.Algorithm",
        "tensorflow.random.experimental.Algorithm",
        "tensorflow.signal.inverse_stft_window_fn",
        "tensorflow.image.ResizeMethod",
    }
)
# TF1 RNN cells and wrappers are layer objects: built later, when called.
NOT_INIT_PREFIXES = ("tensorflow.nn.rnn_cell.", "tensorflow.nn.RNNCell")
# Start the runtime even with eager execution off: they create the devices.
INIT_ALWAYS = frozenset(
    {
        "tensorflow.config.list_logical_devices",
        "tensorflow.config.experimental.list_logical_devices",
        "tensorflow.distribute.MirroredStrategy",
        "tensorflow.distribute.MultiWorkerMirroredStrategy",
        "tensorflow.distribute.experimental.CentralStorageStrategy",
        "tensorflow.distribute.experimental.MultiWorkerMirroredStrategy",
    }
)
INIT_EXACT = INIT_ALWAYS | {
    "tensorflow.distribute.OneDeviceStrategy",
    "tensorflow.data.TFRecordDataset",
    "tensorflow.data.TextLineDataset",
    "tensorflow.summary.create_file_writer",
    "keras.models.load_model",
    "keras.saving.load_model",
}
PHYSICAL_DEVICE_LISTING = frozenset(
    {
        "tensorflow.config.list_physical_devices",
        "tensorflow.config.experimental.list_physical_devices",
    }
)
SESSIONS = frozenset({"tensorflow.Session", "tensorflow.InteractiveSession"})
# Private, but used by test suites to start over with a fresh runtime.
RUNTIME_RESETS = frozenset({"tensorflow.python.eager.context._reset_context"})
# model.<method>(...) on a Keras model.
MODEL_RUNNING_METHODS = frozenset(
    {
        "fit",
        "predict",
        "evaluate",
        "train_on_batch",
        "predict_on_batch",
        "test_on_batch",
        "build",
        "compile",
    }
)
_INPUT_KEYWORDS = frozenset({"input_shape", "input_dim", "batch_input_shape", "batch_shape"})


class InitModel:
    """Decides whether one call node initialises the runtime.

    For the GPU environment variables (TFP303) a wider set counts:
    ``sessions``: creating a TF1 ``Session`` creates the GPU devices (and
    their allocator) for it, even though the eager runtime stays
    unconfigured; ``physical_listing_initialises``: ``list_physical_devices``
    starts the CUDA driver, which reads ``CUDA_VISIBLE_DEVICES``.
    """

    def __init__(
        self, ctx, physical_listing_initialises: bool = False, sessions: bool = False
    ) -> None:
        self.ctx = ctx
        self.physical_listing_initialises = physical_listing_initialises
        self.sessions = sessions
        self.models = ctx.shared(ModelNames)
        self.graph_mode = ctx.shared(TfStyle).graph_mode

    def reason(self, node: cst.CSTNode) -> Optional[str]:
        """A short description if ``node`` initialises the runtime, else None."""
        if not isinstance(node, cst.Call):
            return None
        qual = self.ctx.call_name(node)
        if qual is not None:
            return self._reason_for_qualname(qual, node)
        if self.graph_mode:
            return None
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            if self.models.is_model_name(func.value) and func.attr.value in MODEL_RUNNING_METHODS:
                return f"`{func.value.value}.{func.attr.value}()`"
        if isinstance(func, cst.Name) and self.models.is_model_name(func):
            return f"calling the model `{func.value}`"
        return None

    def _reason_for_qualname(self, qual: str, node: cst.Call) -> Optional[str]:
        short = f"`{dotted(node.func)}()`"
        if self.physical_listing_initialises and qual in PHYSICAL_DEVICE_LISTING:
            return short
        if self.sessions and qual in SESSIONS:
            return short
        if qual in INIT_ALWAYS:
            return short
        if self.graph_mode or qual in NOT_INIT or qual.startswith(NOT_INIT_PREFIXES):
            return None
        return short if _initialises(qual, node) else None


def _initialises(qual: str, node: cst.Call) -> bool:
    if qual in INIT_EXACT:
        return True
    if qual.startswith("tensorflow."):
        return qual[len("tensorflow.") :] in INIT_TOP_LEVEL or qual.startswith(INIT_MODULES)
    if qual.startswith("keras.applications.") and qual.rsplit(".", 1)[-1][:1].isupper():
        return True
    if qual in ("keras.Sequential", "keras.models.Sequential"):
        return _declares_input(node)
    if qual in ("keras.Model", "keras.models.Model"):
        # Functional: its layers were called on `Input`s before, which initialised.
        return bool(node.args) and (
            node.args[0].keyword is None or node.args[0].keyword.value == "inputs"
        )
    return False


def _declares_input(call: cst.Call) -> bool:
    """Sequential([...]) whose layers give an input shape: built on construction."""
    for node in descendants(call):
        if (
            isinstance(node, cst.Arg)
            and node.keyword is not None
            and node.keyword.value in _INPUT_KEYWORDS
        ):
            return True
        if isinstance(node, cst.Call):
            name = dotted(node.func) or ""
            if name.endswith("Input") or name.endswith("InputLayer"):
                return True
    return False
