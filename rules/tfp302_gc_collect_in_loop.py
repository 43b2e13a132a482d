"""TFP302 gc-collect-in-loop."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterator, List, Optional, Tuple, Union

from tflint_perf.analysis import api
from tflint_perf.analysis.api import Effect, Kind, keras
from tflint_perf.analysis.cadence import every_n, rare_guard
from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.semantic import LOOPS, SCOPE_NODES, SemanticModel
from tflint_perf.analysis.summaries import Summaries
from tflint_perf.analysis.trips import Trips
from tflint_perf.analysis.values import Values
from tflint_perf.engine import cst
from tflint_perf.engine.headline import fit_headline
from tflint_perf.engine.names import dotted
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.rule import SAFE, Fix, Rule
from tflint_perf.engine.verification import Verification
from tflint_perf.engine.walk import children, descendants

GC_COLLECT = "gc.collect"
# What one training or inference step does (any of them).
STEP_EFFECTS = (
    Effect.TRAINING,
    Effect.UPDATE,
    Effect.GRADIENTS,
    Effect.INFERENCE,
    Effect.RUNS_GRAPH,
    Effect.REPLICA_STEP,
)
_STEP = re.compile(keras.STEP_FUNCTION_NAME)
_CALLERS_DEPTH = 4  # helpers followed up to their callers' loops
Loop = Union["cst.For", "cst.While"]


class Pace(enum.Enum):
    """How often a loop's body runs a step."""

    NONE = "no step"
    STEP = "one step per iteration"
    EPOCH = "many steps per iteration"


@dataclass(frozen=True)
class Steps:
    pace: Pace
    why: str = ""


@dataclass(frozen=True)
class PerStep:
    """The collection runs once per step: the evidence for the finding."""

    why: str  # what makes it a step loop (or the per-batch hook)
    loop: Optional[Loop] = None  # None: a Keras callback's per-batch hook
    sites: Tuple[cst.Call, ...] = ()  # the calls from the loop down to the collection's function


@dataclass(frozen=True)
class Quiet:
    reason: Reason
    detail: str


class GcCollectInLoop(Rule):
    """`gc.collect()` on every step of a training or inference loop.

    ## What it does
    Flags `gc.collect()` (also through `import gc as g` or
    `from gc import collect`) that runs once per training or inference
    step: in the body of a loop that itself runs a step (trains, updates
    weights, computes gradients, runs Keras inference or a TF1 session,
    calls a `tf.function` or `strategy.run()`, opens a `tf.GradientTape`, or
    calls a function that does), in a helper called from such a loop, and in
    a Keras callback's per-batch hook (`on_train_batch_end`, ...).

    It stays silent when the collection runs once per epoch (after an inner
    loop over the batches, in a loop whose only steps run whole epochs:
    `fit`/`evaluate`, or a helper that loops over its own batches; in
    `on_epoch_end`), after the loop, in a loop of a handful of iterations,
    in a loop that starts a new trial each iteration (calls
    `clear_session()` or builds a new model, as hyper-parameter searches
    do), under a guard that runs it now and then (`if step % 1000 == 0`,
    with an interval of at least 100 steps; a throttle `if step - last >=
    every: last = step`; an `except tf.errors.OutOfRangeError:` at the end
    of each pass over the data), and for the cheap
    young-generation passes `gc.collect(0)` and `gc.collect(1)`.

    ## Why is this bad?
    A full collection walks every Python object the process holds; a
    TensorFlow/Keras program holds millions (graphs, layers, traced
    functions). On TF 2.21, one `gc.collect()` took 57-153 ms, and
    collecting every 10 steps slowed small training loops 1.5-13x. Python's
    generational collector already runs on its own; TensorFlow memory is
    freed by reference counting as soon as tensors go out of scope.

    ## Example
    ```python
    import gc

    import tensorflow as tf

    for step, (x, y) in enumerate(dataset):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        gc.collect()
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    for step, (x, y) in enumerate(dataset):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
    ```

    ## Fix safety
    The fix deletes the `gc.collect()` statement (or replaces it with
    `pass` when it is the only statement of its block). It is safe: the
    program computes the same results, and unreachable objects are still
    reclaimed by the automatic collector. It is offered only when the call
    is a statement of its own; when its return value is used, the finding
    has no fix.
    """

    code = "TFP302"
    name = "gc-collect-in-loop"
    message = "`gc.collect()` on every step of a training loop"
    triggers = ("gc.collect", "from gc ", "import gc")
    fixable = True
    fix_summary = "safe"  # the README's Fix column
    # For --verify: the loop is timed with and without the collection.
    verification = Verification()

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.calls: List[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.call_name(node) == GC_COLLECT:
            self.calls.append(node)

    def finish(self) -> None:
        if not self.calls:
            return
        self.sem: SemanticModel = self.ctx.shared(SemanticModel)
        self.values: Values = self.ctx.shared(Values)
        self.graph: CallGraph = self.ctx.shared(CallGraph)
        self.summaries: Summaries = self.ctx.shared(Summaries)
        self.trips: Trips = self.ctx.shared(Trips)
        self._paces: Dict[cst.CSTNode, Steps] = {}
        for call in self.calls:
            if _young_only(call):
                self.silent(call, Reason.NOT_WORK, "a young-generation pass is cheap")
                continue
            found = self._decide(call, (), frozenset())
            if isinstance(found, Quiet):
                self.silent(call, found.reason, found.detail)
            else:
                self._report(call, found)

    # -- where the collection runs ------------------------------------------------
    def _decide(self, node: cst.CSTNode, sites: tuple, seen: FrozenSet) -> Union[PerStep, Quiet]:
        """Whether ``node`` (the collection, or a call of the function holding it)
        runs once per step: through its loops, else its function's callers."""
        guard = rare_guard(self.ctx, node)
        if guard is not None:
            return Quiet(Reason.RARELY, guard)
        loops = self.sem.loops_around(node)
        for loop in loops:
            if self._trial(loop):
                return Quiet(Reason.DELIBERATE, "each iteration starts a new trial (a new model)")
            steps = self._own_steps(loop)
            if steps.pace is Pace.STEP:
                runs = self.trips.repeats(node)
                if runs.tiny:
                    return Quiet(Reason.TINY_LOOP, runs.why)
                return PerStep(steps.why, loop, sites)
            if steps.pace is Pace.EPOCH:
                return Quiet(Reason.RARELY, f"once per epoch: the loop {steps.why}")
        func = self.sem.function_of(node)
        hook = self._hook(func) if func is not None and not loops else None
        if hook is not None:
            if hook in keras.PER_BATCH_HOOKS:
                return PerStep(f"the Keras callback's per-batch hook `{hook}`", None, sites)
            return Quiet(Reason.RARELY, f"`{hook}` runs once per epoch")
        best = self._nothing(loops)
        if func is None or func in seen or len(sites) >= _CALLERS_DEPTH:
            return best
        for caller in self.graph.callers(func):
            found = self._decide(caller, (caller, *sites), seen | {func})
            if isinstance(found, PerStep):
                return found
            if best.reason in (Reason.RUNS_ONCE, Reason.NOT_DATA):
                best = found
        return best

    def _nothing(self, loops: List[Loop]) -> Quiet:
        if loops:
            where = self._at(loops[0])
            return Quiet(Reason.NOT_DATA, f"the loop{where} runs no training or inference step")
        return Quiet(Reason.RUNS_ONCE, "not in a loop, and no step loop calls its function")

    # -- what a loop runs ---------------------------------------------------------------
    def _own_steps(self, loop: Loop) -> Steps:
        """STEP if the loop body itself runs a step; EPOCH if each iteration runs
        many (an inner loop over the steps, ``fit``, a helper that loops)."""
        known = self._paces.get(loop)
        if known is not None:
            return known
        self._paces[loop] = Steps(Pace.NONE)  # (a loop cannot hold itself)
        epoch = None
        for node in _outside_inner_loops(loop):
            if isinstance(node, LOOPS):
                if self._own_steps(node).pace is not Pace.NONE:
                    epoch = epoch or Steps(
                        Pace.EPOCH, f"runs its steps in the loop{self._at(node)}"
                    )
                continue
            found = self._step(node)
            if found.pace is Pace.STEP:
                epoch = found
                break
            if found.pace is Pace.EPOCH:
                epoch = epoch or found
        self._paces[loop] = epoch or Steps(Pace.NONE)
        return self._paces[loop]

    def _step(self, node: cst.CSTNode) -> Steps:
        if isinstance(node, cst.With):
            for item in node.items:
                if self.values.kind(item.item) is Kind.TAPE:
                    return Steps(Pace.STEP, "runs a `GradientTape`")
            return Steps(Pace.NONE)
        if not isinstance(node, cst.Call):
            return Steps(Pace.NONE)
        func = node.func
        shown = f"`{dotted(func) or self.ctx.code(func)}()`"
        if self.values.kind(func) is Kind.TF_FUNCTION:
            return Steps(Pace.STEP, f"calls the `tf.function` {shown}")
        effects = self.summaries.effects_of(node)
        paths = [self.summaries.path_to(node, flag) for flag in STEP_EFFECTS if effects & flag]
        if paths:
            for path in paths:
                many = self._many_steps(path)
                if many is not None:
                    return Steps(Pace.EPOCH, f"calls {shown}, which {many}")
            return Steps(Pace.STEP, f"calls {shown}" + _through(self.ctx, paths[0]))
        if not self.graph.resolve(node):  # defined elsewhere: read by its name
            last = (dotted(func) or "").rsplit(".", 1)[-1]
            if _STEP.match(last):
                return Steps(Pace.STEP, f"calls {shown} (a step, by its name)")
        return Steps(Pace.NONE)

    def _many_steps(self, path: Tuple[cst.CSTNode, ...]) -> Optional[str]:
        """Why one call along ``path`` runs many steps, if it does: a Keras
        method that runs a whole epoch, or a helper that loops over its steps."""
        leaf = path[-1]
        if (
            isinstance(leaf, cst.Call)
            and isinstance(leaf.func, cst.Attribute)
            and leaf.func.attr.value in keras.EPOCH_METHODS
        ):
            return f"runs a whole epoch per call (`{leaf.func.attr.value}()`)"
        for node in path[1:]:
            loops = self.sem.loops_around(node)
            if loops:
                return f"loops over its steps{self._at(loops[0])}"
        return None

    def _at(self, node: cst.CSTNode) -> str:
        """`` at line N`` for a recorded reason (positions cost a pass over the
        module: not computed when nothing is recorded)."""
        if not self.ctx.recording:
            return ""
        return f" at {self.ctx.line_ref(self.ctx.position(node).start.line)}"

    def _trial(self, loop: Loop) -> bool:
        """Each iteration resets Keras or builds a new model (itself or in a
        helper): once per trial."""
        for node in descendants(loop.body, skip_scopes=True):
            if isinstance(node, cst.Call):
                effects = self.summaries.effects_of(node)
                if effects & Effect.RESETS:
                    return True
                if effects & Effect.BUILDS:
                    built = self.summaries.path_to(node, Effect.BUILDS)[-1]
                    if self.values.kind(built) is Kind.KERAS_MODEL:
                        return True
        return False

    def _hook(self, func: cst.FunctionDef) -> Optional[str]:
        """The name of a Keras callback hook ``func`` is, if it is one."""
        name = func.name.value
        if name not in keras.PER_BATCH_HOOKS and name not in keras.PER_EPOCH_HOOKS:
            return None
        cls = self.sem.method_class(func)
        if cls is None:
            return None
        for each in self.sem.class_and_bases(cls):
            for base in each.bases:
                if api.returns(self.ctx.qualname(base.value)) is Kind.CALLBACK:
                    return name
        return None

    # -- the finding ------------------------------------------------------------------
    def _report(self, call: cst.Call, found: PerStep) -> None:
        ctx = self.ctx
        name = f"`{dotted(call.func)}()`"
        helper = self.sem.function_of(call) if found.sites else None
        guard = every_n(ctx, call)
        every = "on every step" if guard is None else f"every {guard[1]} steps"
        if found.loop is None:
            headline = f"{name} in {found.why}: remove it"
            where = "Keras calls the hook after every batch."
        else:
            line = ctx.line_ref(ctx.position(found.loop).start.line)
            if helper is None:
                headline = f"{name} {every} of the loop at {line}: remove it"
            else:
                headline = fit_headline(
                    f"{name} in `{helper.name.value}()`, called {every} of the loop at"
                    f" {line}: remove it",
                    f"{name} in `{helper.name.value}()` runs {every}: remove it",
                )
            where = f"The loop at {line} {found.why}, so the collection runs once per step"
            where += "." if guard is None else f" that passes `{guard[0]}`."
        detail = [where]
        if found.sites:
            chain = " -> ".join(
                f"`{dotted(site.func) or ctx.code(site.func)}()`"
                f" ({ctx.line_ref(ctx.position(site).start.line)})"
                for site in found.sites
            )
            detail.append(f"Called through {chain}.")
        detail.append(
            "A full collection walks every Python object of the process: 57-153 ms each in a"
            " TensorFlow program (TF 2.21); Python's own collector already runs, and"
            " TensorFlow frees tensors by reference counting."
        )
        self.report(call, message=headline, detail="\n".join(detail), fix=self._fix(call))

    def _fix(self, call: cst.Call) -> Optional[Fix]:
        expr = self.ctx.parent(call)
        if not isinstance(expr, cst.Expr):
            return None
        line = self.ctx.parent(expr)
        block = self.ctx.parent(line) if line is not None else None
        message = "Remove the `gc.collect()` call"
        if (
            isinstance(line, cst.SimpleStatementLine)
            and len(line.body) == 1
            and isinstance(block, (cst.IndentedBlock, cst.Module))
            and len(block.body) > 1
        ):
            start, end = self.ctx.statement_lines(line)
            return Fix((self.ctx.delete_lines(start, end),), SAFE, message)
        # The only statement of its block, or one of several on a line.
        return Fix((self.ctx.replace(expr, "pass"),), SAFE, message)


def _outside_inner_loops(loop: Loop) -> Iterator[cst.CSTNode]:
    """The loop body's nodes, not entering inner loops or nested scopes."""
    stack: List[cst.CSTNode] = [loop.body]
    while stack:
        node = stack.pop()
        for child in children(node):
            yield child
            if not isinstance(child, (LOOPS, SCOPE_NODES)):
                stack.append(child)


def _through(ctx, path: Tuple[cst.CSTNode, ...]) -> str:
    if len(path) < 2:
        return ""
    leaf = path[-1]
    shown = dotted(leaf.func) if isinstance(leaf, cst.Call) else None
    return f" (`{shown or ctx.code(leaf)}` inside)"


def _young_only(call: cst.Call) -> bool:
    """``gc.collect(0)`` / ``gc.collect(1)``: a cheap young-generation pass."""
    return (
        bool(call.args)
        and isinstance(call.args[0].value, cst.Integer)
        and call.args[0].value.value in ("0", "1")
    )
