"""TFP301 device-config-after-init."""

from __future__ import annotations

from typing import Dict, List

from tflint_perf.analysis.api import Effect
from tflint_perf.analysis.api.tensorflow import DEVICE_CONFIGURATION
from tflint_perf.analysis.execution import (
    RUNTIME,
    FlowChecker,
    Reached,
    RuntimeStarts,
    harmless,
    hoist_fix,
    order_doubt,
)
from tflint_perf.engine import cst
from tflint_perf.engine.headline import fit_headline
from tflint_perf.engine.names import dotted
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.rule import Rule
from tflint_perf.engine.verification import Observe, Purpose, Verification

_SHORT_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in DEVICE_CONFIGURATION)


class DeviceConfigAfterInit(Rule):
    """Device configuration after the TensorFlow runtime was initialised.

    ## What it does
    Flags calls that configure devices (`set_memory_growth`,
    `set_visible_devices`, logical/virtual device configuration, intra/inter
    op thread pools) made after something in the same flow of execution has
    already initialised the TensorFlow runtime: creating a tensor, variable
    or dataset, running or iterating a dataset, listing logical devices,
    creating a distribution strategy or a summary writer, building,
    compiling or running a Keras model. Each of these is checked against
    TensorFlow 2.21 in the test suite; calls measured not to start the
    runtime (listing physical devices, `tf.test.is_gpu_available()`,
    `tf.test.gpu_device_name()`, creating layers or an unbuilt model, a TF1
    `Session` in eager mode) do not count. In TF1 graph code (eager execution
    disabled, `tf.placeholder`, `tf.Session`), creating tensors and sessions
    only builds a graph: there only listing logical devices and creating a
    distribution strategy count.

    Order follows execution: the module top to bottom, each function top to
    bottom, and a call counts where it is made with what the functions it
    runs do (helpers, methods through `self`, callables passed as
    arguments, any depth): a helper that builds a model starts the runtime
    where it is called, and a helper that configures devices configures them
    where it is called (the finding is on the configuring call and names the
    late call of its function). Two branches of one `if` never both run; a
    configuration in an `except` handler of the `try` that started the
    runtime may run before it did, and is left alone.

    ## Why is this bad?
    Devices are fixed when the runtime starts. Afterwards these calls raise
    `RuntimeError` ("Physical devices cannot be modified after being
    initialized", "Visible devices cannot be modified ..."), or, wrapped in
    `try` block catching `RuntimeError` as many snippets do, fail silently: memory
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
    message = "device configuration after the TensorFlow runtime started"
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
        return isinstance(node, cst.Call) and self.ctx.call_name(node) in DEVICE_CONFIGURATION

    def finish(self) -> None:
        by_call: Dict[cst.CSTNode, List[Reached]] = {}
        for reached in FlowChecker(self.ctx, RUNTIME, self.is_config_call).reached():
            by_call.setdefault(reached.setter, []).append(reached)
        for each in by_call.values():
            late = [r for r in each if self._late(r)]
            if late:
                self._report(late[0])
        if self.ctx.recording:
            self._look_alikes()

    def _late(self, reached: Reached) -> bool:
        """Whether the runtime surely started before ``reached``; else record why not."""
        start = reached.start
        if start is None:
            why = "nothing before it in this flow starts the TensorFlow runtime"
            if self.ctx.shared(RuntimeStarts).graph_mode:
                why += " (graph mode: ops build a graph; only creating devices would)"
            if reached.reset is not None and self.ctx.recording:
                why = f"the runtime was reset at {self._line(reached.reset)}"
            self.silent(reached.target, Reason.IN_TIME, why)
            return False
        # (positions cost a pass over the module: only when a reason is recorded)
        line = self._line(start.node) if self.ctx.recording else ""
        doubt = order_doubt(
            self.ctx, start.node, reached.target, "the runtime starts", "started the runtime", line
        )
        if doubt is not None:
            self.silent(reached.target, *doubt)
            return False
        return True

    def _report(self, reached: Reached) -> None:
        ctx = self.ctx
        starts: RuntimeStarts = ctx.shared(RuntimeStarts)
        config = reached.setter
        assert isinstance(config, cst.Call) and reached.start is not None
        qualname = ctx.call_name(config) or ""
        short = qualname.rsplit(".", 1)[-1]
        start = reached.start
        line = ctx.line_ref(ctx.position(start.node).start.line)
        first = starts.describe(start).split(" (", 1)[0]
        if reached.via is None:
            headline = fit_headline(
                f"`{short}()` after {first} started the runtime at {line}: move it before that",
                f"`{short}()` after the runtime started at {line}: move it before that",
                f"`{short}()` after the runtime started: move it before the line below",
            )
        else:
            helper = f"`{reached.via.name.value}()`"
            call_line = ctx.line_ref(ctx.position(reached.target).start.line)
            headline = fit_headline(
                f"`{short}()` in {helper} (called at {call_line}) after {first} started the"
                f" runtime at {line}: call {helper} before that",
                f"`{short}()` in {helper} (called at {call_line}) after the runtime started"
                f" at {line}: call it before that",
                f"`{short}()` in {helper} runs after the runtime started at {line}: call it first",
            )
        detail = [
            f"TensorFlow raises RuntimeError ({DEVICE_CONFIGURATION[qualname]});"
            " wrapped in a `try` block that catches `RuntimeError` it fails silently and the setting"
            " does not apply.",
            f"The runtime started at {line}: {starts.describe(start)}"
            + (" (graph mode: it creates the devices)." if starts.graph_mode else "."),
        ]
        if len(start.path) > 2:
            detail.append("Through: " + starts.chain(start) + ".")
        fix = hoist_fix(
            ctx,
            reached,
            RUNTIME,
            lambda stmt: harmless(ctx, stmt, Effect.STARTS_CUDA),
            "Move the device configuration before the first initialising statement",
        )
        self.report(config, message=headline, detail="\n".join(detail), fix=fix)

    def _look_alikes(self) -> None:
        """Calls spelled like a configuration that are not TensorFlow's."""
        for call in self.ctx.nodes(cst.Call):
            name = dotted(call.func) or ""
            if name.rsplit(".", 1)[-1] in _SHORT_NAMES and not self.is_config_call(call):
                self.silent(call, Reason.OTHER_LIBRARY, f"`{name}` is not `tf.config`'s")

    def _line(self, node: cst.CSTNode) -> str:
        return self.ctx.line_ref(self.ctx.position(node).start.line)
