"""TFP301 device-config-after-init."""

from __future__ import annotations

from tflint_perf.analysis.execution import FlowChecker, hoist_fix
from tflint_perf.analysis.runtime_init import PHYSICAL_DEVICE_LISTING, InitModel
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.rule import Rule
from tflint_perf.engine.verification import Observe, Purpose, Verification
from tflint_perf.engine.walk import descendants

CONFIG_CALLS = frozenset(
    {
        "tensorflow.config.experimental.set_memory_growth",
        "tensorflow.config.set_visible_devices",
        "tensorflow.config.experimental.set_visible_devices",
        "tensorflow.config.set_logical_device_configuration",
        "tensorflow.config.experimental.set_virtual_device_configuration",
        "tensorflow.config.experimental.set_logical_device_configuration",
        "tensorflow.config.threading.set_intra_op_parallelism_threads",
        "tensorflow.config.threading.set_inter_op_parallelism_threads",
    }
)

# What TensorFlow raises for each call, to name it in the message.
_ERRORS = {
    "set_memory_growth": "Physical devices cannot be modified after being initialized",
    "set_visible_devices": "Visible devices cannot be modified after being initialized",
    "set_logical_device_configuration": "Virtual devices cannot be modified after being initialized",
    "set_virtual_device_configuration": "Virtual devices cannot be modified after being initialized",
    "set_intra_op_parallelism_threads": "Intra op parallelism cannot be modified after initialization.",
    "set_inter_op_parallelism_threads": "Inter op parallelism cannot be modified after initialization.",
}


class DeviceConfigAfterInit(Rule):
    """Device configuration after the TensorFlow runtime was initialised.

    ## What it does
    Flags calls that configure devices (`set_memory_growth`,
    `set_visible_devices`, logical/virtual device configuration, intra/inter
    op thread pools) made after something in the same flow of execution has
    already initialised the TensorFlow runtime: creating a tensor, variable
    or dataset, listing logical devices, creating a distribution strategy
    or a summary writer, building, compiling or running a Keras model. Each
    of these is checked against TensorFlow 2.21 in the test suite; calls
    measured not to start the runtime (listing physical devices,
    `tf.test.is_gpu_available()`, `tf.test.gpu_device_name()`, creating
    layers or an unbuilt model) do not count. In TF1 graph code (eager
    execution disabled, `tf.placeholder`, `tf.Session`), creating tensors
    and sessions only builds a graph: there only listing logical devices
    and creating a distribution strategy count.

    Order follows execution: the module top to bottom, each function top to
    bottom, and a call to a function of the same module that configures
    devices counts where it is called (the finding is on the configuring
    call, and names the late call of its function).

    ## Why is this bad?
    Devices are fixed when the runtime starts. Afterwards these calls raise
    `RuntimeError` ("Physical devices cannot be modified after being
    initialized", "Visible devices cannot be modified ..."), or, wrapped in
    `try/except RuntimeError` as many snippets do, fail silently: memory
    growth stays off, TensorFlow grabs all GPU memory, and other processes on
    the same GPU run out.

    ## Example
    ```python
    import tensorflow as tf

    scale = tf.constant(2.0)
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    scale = tf.constant(2.0)
    ```

    ## Fix safety
    The fix moves the configuring statement (with the statements just
    before it that compute the device list) to just before the first
    initialising statement. It is offered only when both are in the same
    block, the moved code depends only on names already bound there, and
    the statements it jumps over do not bind names it uses; then it is
    safe. Otherwise the finding has no fix.
    """

    code = "TFP301"
    name = "device-config-after-init"
    message = "{call} after the TensorFlow runtime was initialised by {init} at {line}: TensorFlow raises RuntimeError ({error})"
    triggers = (
        "set_memory_growth",
        "set_visible_devices",
        "device_configuration",
        "op_parallelism_threads",
    )
    fixable = True
    fix_summary = "safe, when provable"  # the README's Fix column
    # For --verify: run the module and see the configuration call raise.
    verification = Verification(purpose=Purpose.FAILURE, observe=Observe.CONFIG_CALL)

    def is_config_call(self, node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Call) and self.ctx.call_name(node) in CONFIG_CALLS

    def is_helper(self, stmt: cst.CSTNode) -> bool:
        """A statement that only lists physical devices (moved along with the config)."""
        calls = [n for n in descendants(stmt) if isinstance(n, cst.Call)]
        return bool(calls) and all(
            self.ctx.call_name(c) in PHYSICAL_DEVICE_LISTING
            or self.ctx.call_name(c) is None
            and _is_builtin_call(c)
            for c in calls
        )

    def finish(self) -> None:
        init_model = InitModel(self.ctx)
        checker = FlowChecker(self.ctx, init_model, self.is_config_call)
        reported = set()
        for v in checker.violations():
            config = v.via_target if v.via is not None else v.target
            assert isinstance(config, cst.Call)  # the checker's targets are config calls
            if id(config) in reported:
                continue  # a configuring function called late from several places
            reported.add(id(config))
            attr = (dotted(config.func) or "").rsplit(".", 1)[-1]
            call = f"`{dotted(config.func)}()`"
            if v.via is not None:
                line = self.ctx.line_ref(self.ctx.position(v.target).start.line)
                call += f" (in `{v.via.name.value}()`, called at {line})"
            fix = hoist_fix(
                self.ctx,
                v,
                init_model,
                self.is_helper,
                "Move the device configuration before the first initialising statement",
            )
            self.report(
                config,
                call=call,
                init=v.init_reason,
                line=self.ctx.line_ref(self.ctx.position(v.init).start.line),
                error=_ERRORS.get(attr, "devices cannot be modified after being initialized"),
                fix=fix,
            )


def _is_builtin_call(call: cst.Call) -> bool:
    return isinstance(call.func, cst.Name) and call.func.value in {"len", "list"}
