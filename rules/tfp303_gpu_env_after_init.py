"""TFP303 gpu-env-after-init."""

from __future__ import annotations

from typing import Dict, List, Optional, Set

from tflint_perf.analysis.api import Effect, others, tensorflow
from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.execution import (
    RUNTIME,
    FlowChecker,
    Reached,
    RuntimeStarts,
    harmless,
    hoist_fix,
    order_doubt,
)
from tflint_perf.analysis.semantic import SemanticModel
from tflint_perf.analysis.summaries import Summaries
from tflint_perf.engine import cst
from tflint_perf.engine.headline import fit_headline
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.rule import Rule
from tflint_perf.engine.verification import Observe, Purpose, Verification

DRIVER = tensorflow.CUDA_DRIVER_VARIABLES
GPU_RUNTIME = tensorflow.GPU_RUNTIME_VARIABLES
# What each variable does, to say what is lost when it is ignored.
_IGNORED = {
    "CUDA_VISIBLE_DEVICES": "the process keeps every GPU",
    "CUDA_DEVICE_ORDER": "the GPUs keep the driver's numbering",
    "TF_FORCE_GPU_ALLOW_GROWTH": "TensorFlow takes all GPU memory at once",
    "TF_GPU_ALLOCATOR": "TensorFlow keeps its default GPU allocator",
    "TF_GPU_THREAD_MODE": "TensorFlow keeps its default GPU threads",
}
# Which starts read which variables, and what the message calls them.
_STARTED = {
    Effect.STARTS_CUDA: "started the CUDA driver",
    Effect.SESSION_DEVICES: "created the GPU devices",
    Effect.INITS_RUNTIME: "started the runtime",
    Effect.INITS_DEVICES: "started the runtime",
}


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
    runtime in TFP301 (creating a tensor or variable, running a dataset,
    listing logical devices, building or running a Keras model ...), creating
    a TF1 `Session` (it creates the GPU devices), and, for the two `CUDA_*`
    variables that the CUDA driver reads when it starts, also
    `tf.config.list_physical_devices("GPU")`.

    Order follows execution as in TFP301: module top to bottom, each
    function top to bottom, a call counts where it is made with what the
    functions it runs do (the finding is on the setting, and names the late
    call of its function). Setting the variables before `import tensorflow`,
    or after it but before the first initialising statement, is fine. A
    flow that also starts a child process (`subprocess`, `multiprocessing`,
    `os.system`, directly or through its helpers) is left alone: there the
    variable is meant for the child. So is a setting in another branch of
    the `if` that initialised (`if use_gpu: ...list_physical_devices...
    else: hide the GPUs`), and one in an `except` handler of the `try` that
    initialised (it may run before the initialisation did).

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
    message = "GPU environment variable set after it was read"
    triggers = tuple(sorted(DRIVER | GPU_RUNTIME))
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
                if not (
                    isinstance(sub, cst.Subscript)
                    and self.ctx.qualname(sub.value) == others.ENVIRON
                    and len(sub.slice) == 1
                ):
                    continue
                index = sub.slice[0].slice
                key = _literal(index.value) if isinstance(index, cst.Index) else None
                if key in DRIVER | GPU_RUNTIME:
                    found.add(key)
            return frozenset(found)
        if isinstance(node, cst.Call) and node.args:
            qual = self.ctx.call_name(node)
            if qual in others.ENV_SETTERS:
                key = _literal(node.args[0].value) if node.args[0].keyword is None else None
                return frozenset({key}) & (DRIVER | GPU_RUNTIME)
            if qual == others.ENV_UPDATE:
                keys: Set[Optional[str]] = set()
                for arg in node.args:
                    if arg.keyword is not None:
                        keys.add(arg.keyword.value)
                    elif isinstance(arg.value, cst.Dict):
                        for element in arg.value.elements:
                            if isinstance(element, cst.DictElement):
                                keys.add(_literal(element.key))
                return frozenset(keys) & (DRIVER | GPU_RUNTIME)
        return frozenset()

    # -- analysis ------------------------------------------------------------
    def finish(self) -> None:
        self._spawning: Dict[Optional[cst.FunctionDef], bool] = {}
        reported: Set[cst.CSTNode] = set()
        # The driver's variables are read earlier (listing physical devices).
        for variables, counted in (
            (DRIVER, RUNTIME | Effect.SESSION_DEVICES | Effect.STARTS_CUDA),
            (GPU_RUNTIME, RUNTIME | Effect.SESSION_DEVICES),
        ):

            def is_target(node, variables=variables):
                return isinstance(node, (cst.Assign, cst.Call)) and bool(
                    self.variables_set(node) & variables
                )

            by_setter: Dict[cst.CSTNode, List[Reached]] = {}
            for reached in FlowChecker(self.ctx, counted, is_target).reached():
                by_setter.setdefault(reached.setter, []).append(reached)
            for setter, each in by_setter.items():
                late = [r for r in each if self._late(r)]
                if late and setter not in reported:
                    reported.add(setter)
                    self._report(late[0], variables, counted)

    def _late(self, reached: Reached) -> bool:
        """Whether the variable was surely read before ``reached``; else record why not."""
        start = reached.start
        if start is None:
            why = "nothing before it in this flow reads the variable"
            self.silent(reached.target, Reason.IN_TIME, why)
            return False
        # (positions cost a pass over the module: only when a reason is recorded)
        line = self._line(start.node) if self.ctx.recording else ""
        doubt = order_doubt(
            self.ctx, start.node, reached.target, "the variable is read", "read the variable", line
        )
        if doubt is not None:
            self.silent(reached.target, *doubt)
            return False
        if self._for_child_process(reached.target):
            why = "this flow also starts a child process, which reads it"
            self.silent(reached.target, Reason.DELIBERATE, why)
            return False
        return True

    def _report(self, reached: Reached, variables: frozenset, counted: Effect) -> None:
        ctx = self.ctx
        starts: RuntimeStarts = ctx.shared(RuntimeStarts)
        setter = reached.setter
        start = reached.start
        assert start is not None
        var = sorted(self.variables_set(setter) & variables)[0]
        line = ctx.line_ref(ctx.position(start.node).start.line)
        first = starts.describe(start).split(" (", 1)[0]
        started = _STARTED[start.effect]
        if reached.via is None:
            headline = fit_headline(
                f"`{var}` set after {first} {started} at {line}: set it before that",
                f"`{var}` set after {line} {started}: set it before that",
            )
        else:
            helper = f"`{reached.via.name.value}()`"
            call_line = ctx.line_ref(ctx.position(reached.target).start.line)
            headline = fit_headline(
                f"`{var}` set in {helper} (called at {call_line}) after {first} {started}"
                f" at {line}: call {helper} before that",
                f"`{var}` set in {helper} (called at {call_line}) too late: call it before {line}",
                f"`{var}` set in {helper} after TensorFlow read it: call {helper} earlier",
            )
        reader = "The CUDA driver" if var in DRIVER else "TensorFlow"
        when = "when it starts" if var in DRIVER else "when it creates its GPU devices"
        detail = [
            f"{reader} reads `{var}` once, {when}; set afterwards it is silently"
            f" ignored: {_IGNORED[var]}.",
            f"At {line}, {starts.describe(start)} {started}.",
        ]
        if len(start.path) > 2:
            detail.append("Through: " + starts.chain(start) + ".")
        fix = hoist_fix(
            ctx,
            reached,
            counted,
            lambda stmt: harmless(ctx, stmt),
            f"Move the `{var}` setting before the first initialising statement",
        )
        self.report(setter, message=headline, detail="\n".join(detail), fix=fix)

    def _for_child_process(self, node: cst.CSTNode) -> bool:
        """The flow holding ``node`` also starts a child process (itself or in a helper)."""
        func = self.ctx.shared(SemanticModel).function_of(node)
        known = self._spawning.get(func)
        if known is None:
            summaries: Summaries = self.ctx.shared(Summaries)
            calls = self.ctx.shared(CallGraph).calls_in(func)
            known = self._spawning[func] = any(
                summaries.effects_of(call) & Effect.CHILD_PROCESS for call in calls
            )
        return known

    def _line(self, node: cst.CSTNode) -> str:
        return self.ctx.line_ref(self.ctx.position(node).start.line)
