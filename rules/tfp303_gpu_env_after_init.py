"""TFP303 gpu-env-after-init."""

from __future__ import annotations

from typing import Dict, Optional, Union

from tflint_perf.analysis.execution import FlowChecker, hoist_fix
from tflint_perf.analysis.runtime_init import InitModel
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.rule import Rule
from tflint_perf.engine.verification import Observe, Purpose, Verification
from tflint_perf.engine.walk import descendants

# Read by the CUDA driver when it starts (cuInit), which
# tf.config.list_physical_devices('GPU') already does.
DRIVER_VARIABLES = frozenset({"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER"})
# Read by TensorFlow when it creates its GPU devices (allocator, threads):
# the runtime initialisation of TFP301, not the physical device listing.
RUNTIME_VARIABLES = frozenset(
    {"TF_FORCE_GPU_ALLOW_GROWTH", "TF_GPU_ALLOCATOR", "TF_GPU_THREAD_MODE"}
)
GPU_VARIABLES = DRIVER_VARIABLES | RUNTIME_VARIABLES

ENVIRON = "os.environ"
_SETTERS = frozenset({"os.environ.setdefault", "os.putenv"})
# Setting the variable for a child process is a different, working, pattern.
_CHILD_PROCESS_PREFIXES = (
    "subprocess.",
    "multiprocessing.",
    "os.system",
    "os.exec",
    "os.spawn",
    "os.fork",
    "os.popen",
    "concurrent.futures.ProcessPoolExecutor",
)
_HELPER_CALLS = frozenset({"str", "int", "len", "join"})


def _literal(expr) -> Optional[str]:
    if isinstance(expr, cst.SimpleString):
        value = expr.evaluated_value
        return value if isinstance(value, str) else None
    return None


class GpuEnvAfterInit(Rule):
    """GPU environment variable set after the runtime (or CUDA driver) started.

    ## What it does
    Flags setting `CUDA_VISIBLE_DEVICES`, `CUDA_DEVICE_ORDER`,
    `TF_FORCE_GPU_ALLOW_GROWTH`, `TF_GPU_ALLOCATOR` or `TF_GPU_THREAD_MODE`
    through `os.environ[...] = ...`, `os.environ.setdefault(...)`,
    `os.environ.update(...)` or `os.putenv(...)` after something in the same
    flow of execution has already read it: the calls that start the
    runtime in TFP301 (creating a tensor or variable, listing logical
    devices, building or running a Keras model ...), creating a TF1
    `Session` (it creates the GPU devices), and, for the two `CUDA_*` variables that the CUDA driver reads
    when it starts, also `tf.config.list_physical_devices("GPU")`.

    Order follows execution as in TFP301: module top to bottom, each
    function top to bottom, a call to a function of the same module counts
    where it is called (the finding is on the setting, and names the late
    call). Setting the variables before `import tensorflow`,
    or after it but before the first initialising statement, is fine. A
    flow that also starts a child process (`subprocess`, `multiprocessing`,
    `os.system`) is left alone: there the variable is meant for the child.
    So is a setting in another branch of the `if` that initialised
    (`if use_gpu: ...list_physical_devices... else: hide the GPUs`).

    ## Why is this bad?
    These variables are read once, when the CUDA driver starts
    (`CUDA_VISIBLE_DEVICES`, `CUDA_DEVICE_ORDER`) or when TensorFlow creates
    its GPU devices (allocator, growth, thread mode). Set later, they are
    silently ignored: the process keeps every GPU, grabs all their memory,
    or uses the default allocator, with no error or warning.

    ## Example
    ```python
    import os

    import tensorflow as tf

    gpus = tf.config.list_physical_devices("GPU")
    os.environ["CUDA_VISIBLE_DEVICES"] = "0"
    ```

    ## Use instead
    ```python
    import os

    import tensorflow as tf

    os.environ["CUDA_VISIBLE_DEVICES"] = "0"
    gpus = tf.config.list_physical_devices("GPU")
    ```

    ## Fix safety
    The fix moves the assignment (with the statements just before it that
    only compute its value) to just before the first initialising
    statement. It is offered only when both are in the same block, the
    moved code uses only names already bound there, and the statements it
    jumps over neither bind those names nor depend on the moved code; then
    it is safe. Otherwise the finding has no fix.
    """

    code = "TFP303"
    name = "gpu-env-after-init"
    message = "{setting} after {init} at {line} {started}: {reader} read `{var}` already, so this setting is silently ignored"
    triggers = tuple(sorted(GPU_VARIABLES))
    fixable = True
    fix_summary = "safe, when provable"  # the README's Fix column
    # For --verify: the variable is ignored, which shows only on a GPU machine
    # (TensorFlow sees more GPUs than the variable allows).
    verification = Verification(
        purpose=Purpose.FAILURE, observe=Observe.VISIBLE_GPUS, needs_gpu=True
    )

    # -- targets -------------------------------------------------------------
    def variables_set(self, node: cst.CSTNode) -> frozenset:
        """The GPU variables ``node`` sets (empty for anything else)."""
        if isinstance(node, cst.Assign):
            found = set()
            for target in node.targets:
                sub = target.target
                environ = isinstance(sub, cst.Subscript) and self.ctx.qualname(sub.value) == ENVIRON
                if environ and isinstance(sub, cst.Subscript) and len(sub.slice) == 1:
                    index = sub.slice[0].slice
                    key = _literal(index.value) if isinstance(index, cst.Index) else None
                    if key in GPU_VARIABLES:
                        found.add(key)
            return frozenset(found)
        if isinstance(node, cst.Call) and node.args:
            qual = self.ctx.call_name(node)
            if qual in _SETTERS:
                key = _literal(node.args[0].value) if node.args[0].keyword is None else None
                return frozenset({key}) if key in GPU_VARIABLES else frozenset()
            if qual == "os.environ.update":
                keys: set[Optional[str]] = set()
                for arg in node.args:
                    if arg.keyword is not None:
                        keys.add(arg.keyword.value)
                    elif isinstance(arg.value, cst.Dict):
                        for element in arg.value.elements:
                            if isinstance(element, cst.DictElement):
                                keys.add(_literal(element.key))
                return frozenset(keys & GPU_VARIABLES)
        return frozenset()

    def is_helper(self, stmt: cst.CSTNode) -> bool:
        """A statement that only computes the value (moved along with it)."""
        for node in descendants(stmt):
            if isinstance(node, cst.Call):
                name = (dotted(node.func) or "").rsplit(".", 1)[-1]
                if name not in _HELPER_CALLS:
                    return False
        return True

    # -- analysis ------------------------------------------------------------
    def finish(self) -> None:
        self._child_process_scopes: Dict[cst.CSTNode, bool] = {}
        reported = set()
        for variables, listing in ((DRIVER_VARIABLES, True), (RUNTIME_VARIABLES, False)):
            init_model = InitModel(self.ctx, physical_listing_initialises=listing, sessions=True)

            def is_target(node, variables=variables):
                return isinstance(node, (cst.Assign, cst.Call)) and bool(
                    self.variables_set(node) & variables
                )

            for v in FlowChecker(self.ctx, init_model, is_target).violations():
                setter = v.via_target if v.via is not None else v.target
                if id(setter) in reported or self._for_child_process(v.target):
                    continue
                reported.add(id(setter))
                self._report(v, variables, init_model)

    def _report(self, v, variables, init_model) -> None:
        setter = v.via_target if v.via is not None else v.target
        var = sorted(self.variables_set(setter) & variables)[0]
        setting = f"`{self._describe(setter)}`"
        if v.via is not None:
            line = self.ctx.line_ref(self.ctx.position(v.target).start.line)
            setting += f" (in `{v.via.name.value}()`, called at {line})"
        driver = var in DRIVER_VARIABLES
        fix = hoist_fix(
            self.ctx,
            v,
            init_model,
            self.is_helper,
            f"Move the `{var}` setting before the first initialising statement",
        )
        self.report(
            setter,
            setting=setting,
            init=v.init_reason,
            line=self.ctx.line_ref(self.ctx.position(v.init).start.line),
            started="started the CUDA driver" if driver else "initialised the TensorFlow runtime",
            reader="the CUDA driver" if driver else "TensorFlow",
            var=var,
            fix=fix,
        )

    def _describe(self, node: Union[cst.Assign, cst.Call]) -> str:
        if isinstance(node, cst.Assign):
            return self.ctx.code(node.targets[0].target) + " = ..."
        return f"{dotted(node.func)}(...)"

    def _for_child_process(self, node: cst.CSTNode) -> bool:
        """The flow holding ``node`` also starts a child process."""
        scope: cst.CSTNode = self.ctx.module
        for parent in self.ctx.ancestors_of(node):
            if isinstance(parent, cst.FunctionDef):
                scope = parent
                break
        known = self._child_process_scopes.get(scope)
        if known is None:
            known = self._child_process_scopes[scope] = any(
                (self.ctx.call_name(sub) or "").startswith(_CHILD_PROCESS_PREFIXES)
                for sub in descendants(scope)
                if isinstance(sub, cst.Call)
            )
        return known
