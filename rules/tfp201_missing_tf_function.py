"""TFP201 missing-tf-function."""

from __future__ import annotations

from typing import List, Optional, Union

from tflint_perf.analysis.agent_classes import AgentClasses
from tflint_perf.analysis.agents import agent_names
from tflint_perf.analysis.dataflow import free_names
from tflint_perf.analysis.extraction import Extraction, extraction_edits, plan_extraction
from tflint_perf.analysis.loops import (
    calls_in,
    enclosing_loops,
    enumerate_call,
    range_call,
    target_names,
)
from tflint_perf.analysis.reach import HotLoop, Reach
from tflint_perf.analysis.steps import (
    graph_mode,
    import_insertion_line,
    name_is_free,
    tf_function_spelling,
)
from tflint_perf.analysis.tapes import TapeStep, TapeSteps, tape_names
from tflint_perf.analysis.testcode import in_test_code
from tflint_perf.analysis.tracing import (
    BLOCKER,
    CONTROL,
    Problem,
    creates_state,
    problems_in,
    tracing_problems,
)
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.rule import SAFE, UNSAFE, Edit, Fix, Rule
from tflint_perf.engine.verification import Verification
from tflint_perf.engine.walk import descendants

EAGER_SWITCHES = frozenset(
    {
        "tensorflow.config.run_functions_eagerly",
        "tensorflow.config.experimental_run_functions_eagerly",
    }
)
# Bases whose methods run eagerly however they are called (a worker thread's
# ``run``); any other base from outside the module may compile its methods.
EAGER_BASES = frozenset({"threading.Thread", "multiprocessing.Process", "object"})
FASTER = "small steps run 3-12x faster compiled"


class MissingTfFunction(Rule):
    """A training step that runs eagerly although it runs in a loop.

    ## What it does
    Flags a training step (a `tf.GradientTape` whose gradients are applied
    with `apply_gradients`, `assign_sub`, `assign_add`, `assign` or
    `minimize`, followed from `tape.gradient(...)` through the names it is
    assigned to, also inside a function of the module they are handed to,
    `update_weights(grads, model.weights)`) that runs eagerly on every
    iteration of a loop:

    - written inline: a `with tf.GradientTape() as tape:` block in the body of
      a `for`/`while` loop over batches, steps or episodes, with the update in
      the same iteration, at module level or in a function (reported at the
      `with`, once per `with`);
    - a step function or method (the tape is not inside a loop of its own)
      called in a loop of the same module: `step(x)`, `self.train_step(b)`
      from another method, `agent.learn(b)` where `agent = Agent()` is a
      class of the module, or a function passed as an argument and called in
      the loop (reported at the `def`). A Keras `train_step` is compiled by
      `fit()`, not when a loop calls it by hand. A function that returns
      `tape.gradient(...)` counts when the loop applies what it returns;
    - a method of a reinforcement-learning agent class (one with at least
      two of: agent methods such as `choose_action`, `act`, `remember`,
      `store_transition`, `learn`, `replay`; an `epsilon`, `gamma` or replay
      `memory` attribute; a `gym` import) that nothing in its module calls
      (or only another such method, `step()` calling `self.learn()`):
      the environment loop that calls it once per step or episode is in
      another module (`main.py`), so it is reported at the `def` without a
      loop. Not for Keras, TensorFlow or TF-Agents subclasses (their
      framework calls them), nor for a `train_step`/`test_step` of a class
      with a base the linter cannot read (it may be a Keras model);
    - TensorFlow 1.x eager: `loss, grads = grad_fn(x)` from
      `tfe.implicit_value_and_gradients` and `apply_gradients(grads)` in a
      loop (reported at the call);
    - TF-Agents' `agent.train(experience)` called in a loop although
      `agent.train` was never wrapped with `common.function`/`tf.function`
      (reported at the call).

    A function that itself loops over the data (an epoch function) is not the
    step: its inner tape is. Stays silent when the step is compiled
    (`@tf.function`, `tf.function(step)` anywhere, called only from a
    `tf.function`, handed to `strategy.run`), after
    `tf.config.run_functions_eagerly(True)`, in TF1 graph code, when the
    loops around it run fewer than 20 times in all (`range(5)`, or a name
    bound to a small literal, `range(1, EPOCHS + 1)` with `EPOCHS = 5`:
    tracing would cost more than it saves), and in
    methods of a framework class that nothing in the module calls.

    ## Why is this bad?
    Eagerly, every operation of the step is dispatched from Python one by
    one. Compiled with `tf.function`, the step is traced once into a graph
    that runs without Python overhead and with its operations fused: on TF
    2.21 on a 2-core CPU a small training step ran 3-12x faster.

    ## Example
    ```python
    import tensorflow as tf

    for x, y in dataset:
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))

    for x, y in dataset:
        train_step(x, y)
    ```

    ## Fix safety
    For a step function the fix adds `@tf.function` above the `def` (in
    TensorFlow 1.x eager code `@tfe.defun` or `@tf.contrib.eager.defun`, and
    `import tensorflow as tf` when the module has no TensorFlow import). It
    is safe only when tracing cannot change what the step does (an agent
    method that takes arguments is never safe: its callers, in another
    module, may pass Python numbers that retrace it): no
    variables, layers, models or optimizers created on a call (a retrace
    with a new model or optimizer raises), no Python state changed (a Python
    `t += 1` in a hand-written Adam is frozen at its traced value), no
    `print`, no Python control flow, no call that passes a Python number
    that changes between calls. Otherwise the fix is unsafe and the message
    names the hazard. With `.numpy()`, `.item()`, `float()` of a tensor or
    NumPy calls (they fail in a graph) there is no fix.

    For an inline step the unsafe fix moves the block, from the `with` to the
    update, into a `@tf.function` function defined before the loop's
    module-level statement and calls it in its place. It is offered only
    when the block reads nothing but the loop's batch variables (or tensors
    computed from them earlier in the iteration) and module-level objects
    the loop does not reassign, and has no Python side effects (`print`,
    `.numpy()`, list appends, counters); otherwise the message says what
    blocks it. For `agent.train` the unsafe fix wraps it once before the
    loop.
    """

    code = "TFP201"
    name = "missing-tf-function"
    message = "`{func}()` is a training step called in a loop ({line}) that runs eagerly: {advice}"
    triggers = ("GradientTape", "tf_agents", "implicit_", "gradients_function")
    fixable = True
    fix_summary = "safe / unsafe"  # the README's Fix column
    # For --verify: the step is timed at its call site, eager against the fix.
    verification = Verification()

    def finish(self) -> None:
        ctx = self.ctx
        if not ctx.imports.uses_tensorflow or graph_mode(ctx):
            return
        self.reach = ctx.shared(Reach)
        self.graph = self.reach.graph
        self.switches: Optional[List[cst.Call]] = None
        functions = set()
        for step in ctx.shared(TapeSteps).steps:
            if in_test_code(ctx, step.node):
                continue
            if step.loop is not None:
                self._check_inline(step)
            elif id(step.scope) not in functions:
                functions.add(id(step.scope))
                self._check_function(step.scope, step)
        if "tf_agents" in ctx.source:
            self._check_agent_train()

    # -- shared checks ---------------------------------------------------------
    def _after_eager_switch(self, node: cst.CSTNode) -> bool:
        """Under ``tf.config.run_functions_eagerly(True)`` everything runs eagerly anyway."""
        ctx = self.ctx
        if self.switches is None:
            self.switches = [
                c
                for c in ctx.nodes(cst.Call)
                if ctx.call_name(c) in EAGER_SWITCHES and not _is_false(c)
            ]
        if not self.switches:  # spares computing positions
            return False
        line = ctx.position(node).start.line
        return any(ctx.position(switch).start.line < line for switch in self.switches)

    def _framework_method(self, func: cst.FunctionDef) -> bool:
        """A method nothing in the module calls, of a class with a base from
        outside the module (not a thread): the framework may compile it."""
        cls = self.graph.class_of(func)
        return cls is not None and not self.graph.callers(func) and self._external_base(cls, 0)

    def _external_base(self, cls: cst.ClassDef, depth: int) -> bool:
        for base in cls.bases:
            name = dotted(base.value) or "?"
            local = self.graph.classes.get(name)
            if local is not None and local is not cls and depth < 5:
                if self._external_base(local, depth + 1):
                    return True
            elif local is None and (self.ctx.qualname(base.value) or name) not in EAGER_BASES:
                return True
        return False

    # -- inline steps ------------------------------------------------------------
    def _check_inline(self, step: TapeStep) -> None:
        node = step.node
        if self.reach.compiled(node):
            return
        if step.scope is not None and self._framework_method(step.scope):
            return
        hot = self.reach.hot(node)
        if hot is None or self._after_eager_switch(node):
            return
        statements, reasons = self._step_block(step)
        fix, call = None, None
        if not reasons:
            fix, call, reasons = self._inline_fix(step, statements)
        first, last = self.ctx.statement_lines(statements[0], statements[-1])
        block = "it" if first == last else f"it, through the update at {self.ctx.line_ref(last)},"
        if fix is not None:
            advice = (
                f"move {block} into a `@{self._spelling()}` function and call `{call}` here "
                f"({FASTER})"
            )
        else:
            advice = (
                f"move {block} into a `@{self._spelling()}` function called here "
                f"(not fixed automatically: {_join(reasons, '; ')})"
            )
        tapes = " and ".join(f"`{t}`" for t in step.tapes)
        what = f"on {tapes}" if tapes else f"through `{step.via}()`"
        where = self._where(hot, step.scope)
        message = f"training step {what} runs eagerly {where}: {advice}"
        self.report(node, message=message, fix=fix)

    def _where(self, hot: HotLoop, scope: Optional[cst.FunctionDef]) -> str:
        ctx = self.ctx
        if hot.calls and scope is not None:
            line = ctx.line_ref(ctx.position(hot.calls[-1]).start.line)
            return f"in `{scope.name.value}()`, called in a loop ({line})"
        line = ctx.line_ref(ctx.position(hot.loop).start.line)
        return f"on every iteration of `{_header(ctx, hot.loop)}` ({line})"

    def _step_block(self, step: TapeStep):
        """The statements from the ``with`` to the last one that uses the tape
        or applies the update, and why they cannot move (empty: they can)."""
        node = step.node
        parent = self.ctx.parent(node)
        body = list(parent.body) if isinstance(parent, (cst.IndentedBlock, cst.Module)) else [node]
        start = next(i for i, stmt in enumerate(body) if stmt is node)
        updates = {id(u) for u in step.updates}
        end = start
        for index in range(start, len(body)):
            if index > start and _rebinds(self.ctx, body[index], step.tapes):
                break  # the next step reuses the tape's name
            if _mentions(body[index], step.tapes, updates):
                end = index
        statements = body[start : end + 1]
        inside = {id(n) for stmt in statements for n in descendants(stmt)}
        if updates - inside:
            return statements, ["its update is not in the same block as the tape"]
        return statements, []

    def _inline_fix(self, step: TapeStep, statements):
        """(fix, call text, reasons it cannot be fixed)."""
        ctx = self.ctx
        loops = enclosing_loops(ctx, step.node)
        plan: Extraction = plan_extraction(ctx, statements, loops, step.scope)
        flat = [n for stmt in statements for n in [stmt, *descendants(stmt, skip_scopes=True)]]
        problems = tracing_problems(ctx, flat, plan.local)
        reasons = plan.blockers + [f"{p.what} {p.why}" for p in problems]
        reasons += [f"it uses `{t}` after the update" for t in step.tapes if t in plan.results]
        spelling, import_edits = self._decorator()
        if spelling is None:
            reasons.append("the module has no TensorFlow import to spell `tf.function` with")
        if reasons:
            return None, None, list(dict.fromkeys(reasons))
        name = self._free_name(step.tapes)
        edits = extraction_edits(ctx, plan, name, spelling, plan.results)
        call = f"{name}({', '.join(plan.params)})"
        if plan.results:
            call = f"{', '.join(plan.results)} = {call}"
        fix = Fix(tuple(import_edits + edits), UNSAFE, f"Move the training step into `{name}()`")
        return fix, call, []

    def _free_name(self, tapes) -> str:
        first = tapes[0] if tapes else ""
        prefix = first[: -len("tape")].rstrip("_") if first.endswith("tape") else ""
        base = f"{prefix}_train_step" if prefix else "train_step"
        name, number = base, 2
        while not name_is_free(self.ctx, name):
            name, number = f"{base}_{number}", number + 1
        return name

    def _spelling(self) -> str:
        return tf_function_spelling(self.ctx) or "tf.function"

    def _decorator(self):
        """(how to spell tf.function here, edits adding the import it needs)."""
        ctx = self.ctx
        spelling = tf_function_spelling(ctx)
        if spelling is not None:
            return spelling, []
        before = import_insertion_line(ctx)
        if before is None or not name_is_free(ctx, "tf"):
            return None, []
        return "tf.function", [ctx.insert_lines(before, "import tensorflow as tf")]

    # -- step functions ------------------------------------------------------------
    def _check_function(self, func: cst.FunctionDef, step: TapeStep) -> None:
        ctx = self.ctx
        if self.reach.compiled(func.body):
            return
        hot = self._hot_path(func, step)
        agent = None
        if hot is None and not step.returns_gradients:
            agent = ctx.shared(AgentClasses).entry_method(func)
        if agent is not None:
            if self._after_eager_switch(func):
                return
            risks: List[Problem] = _unseen_arguments(func)
        elif hot is None or not hot.calls or self._after_eager_switch(hot.calls[-1]):
            return
        else:
            risks = self._call_site_risks(hot.calls[0])
        problems = problems_in(ctx, func.body, _locally_bound(func)) + self._callee_problems(func)
        problems += risks
        blockers = [p for p in problems if p.kind == BLOCKER]
        effects = [p for p in problems if p.why != CONTROL and p not in risks]
        fix = None
        if blockers:
            movable = [p.what for p in effects]
            advice = (
                f"move {_join(movable)} out of it, then wrap it in "
                f"`@{self._spelling()}` (in a graph these fail or run only while tracing)"
            )
        elif problems:
            hazards = [f"{p.what} {p.why}" for p in problems]
            advice = (
                f"wrap it in `@{self._spelling()}` once tracing cannot change it: "
                f"{_join(hazards, '; ')}"
            )
            fix = self._decorator_fix(func, UNSAFE)
        else:
            advice = f"wrap it in `@{self._spelling()}` ({FASTER})"
            fix = self._decorator_fix(func, SAFE)
        if agent is not None:
            reached = ctx.shared(AgentClasses).how_reached(func)
            message = (
                f"`{func.name.value}()` is a training step of agent `{agent.name.value}` that "
                f"runs eagerly; {reached}, so the environment loop in another module runs it "
                f"once per step or episode: {advice}"
            )
            self.report(func.name, message=message, fix=fix)
            return
        assert hot is not None  # (the agent case returned above)
        line = ctx.line_ref(ctx.position(hot.calls[-1]).start.line)
        self.report(func.name, func=func.name.value, line=line, advice=advice, fix=fix)

    def _callee_problems(self, func: cst.FunctionDef) -> List[Problem]:
        """What the module functions the step calls, at any depth, would do
        under tracing (their control flow aside: AutoGraph converts it with
        the step)."""
        out: List[Problem] = []
        seen = {func}
        todo = [func]
        while todo:
            caller = todo.pop()
            for call in calls_in(caller.body):
                callee = self.graph.resolve(call)
                if callee is None or callee in seen or self.reach.compiles(callee):
                    continue
                seen.add(callee)
                todo.append(callee)
                name = callee.name.value
                for problem in problems_in(self.ctx, callee.body, _locally_bound(callee)):
                    if problem.why != CONTROL:
                        what = f"{problem.what} in `{name}()`"
                        out.append(Problem(problem.kind, what, problem.why))
        return out

    def _hot_path(self, func: cst.FunctionDef, step: TapeStep) -> Optional[HotLoop]:
        """The loop that calls the step; for a function that returns its
        gradients, a loop that also applies them."""
        if not step.returns_gradients:
            return self.reach.hot(func.body)
        steps = self.ctx.shared(TapeSteps)
        for call in self.graph.callers(func):
            if self.reach.compiled(call) or not steps.applies_result(call):
                continue
            hot = self.reach.hot(call)
            if hot is not None:
                return HotLoop(hot.loop, (call,) + hot.calls)
        return None

    def _call_site_risks(self, call: cst.Call) -> List[Problem]:
        """Arguments that retrace the compiled step: the innermost loop's
        counter, what an outer loop iterates over (another model, an epoch
        number), a Python number or a new model or optimizer an outer loop
        assigns, or a Python number the loop computes (a reward, ``done``). A
        retrace that builds new variables raises under tf.function."""
        loops = enclosing_loops(self.ctx, call)
        if not loops:
            return []
        counters = set()
        loop = loops[0]
        if isinstance(loop, cst.For):
            if range_call(loop.iter) is not None:
                counters.update(target_names(loop.target))
            elif enumerate_call(loop.iter) is not None and isinstance(loop.target, cst.Tuple):
                counters.update(target_names(loop.target.elements[0].value))
        holder = self.ctx.parent(call)
        assert holder is not None  # a call is never the module
        statement = {id(n) for n in descendants(holder)}
        for index, each in enumerate(loops):
            if index > 0 and isinstance(each, cst.For):
                counters.update(target_names(each.target))
            for node in descendants(each.body, skip_scopes=True):
                if isinstance(node, (cst.Assign, cst.AugAssign)) and id(node) not in statement:
                    if _new_each_time(self.ctx, node):
                        targets = node.targets if isinstance(node, cst.Assign) else [node]
                        for t in targets:
                            counters.update(target_names(t.target))
        used = [n for arg in call.args for n in free_names(arg.value) if n in counters]
        if not used:
            return []
        line = self.ctx.line_ref(self.ctx.position(call).start.line)
        what = f"the call at {line} passes `{used[0]}`,"
        return [Problem("hazard", what, "which changes between calls (each value traces again)")]

    def _decorator_fix(self, func: cst.FunctionDef, safety: str) -> Optional[Fix]:
        ctx = self.ctx
        def_line = ctx.position(func.name).start.line
        text = ctx.line_text(def_line)
        stripped = text.lstrip()
        if not stripped.startswith("def "):
            return None
        spelling, edits = self._decorator()
        if spelling is None:
            return None
        indent = text[: len(text) - len(stripped)]
        edits.append(Edit(def_line, 0, def_line, 0, f"{indent}@{spelling}\n"))
        return Fix(tuple(edits), safety, "Compile the step with @tf.function")

    # -- TF-Agents -----------------------------------------------------------------
    def _check_agent_train(self) -> None:
        """``agent.train(experience)`` in a loop, never wrapped in ``common.function``."""
        ctx = self.ctx
        agents = agent_names(ctx, self.graph) if ctx.imports.imports_any("tf_agents") else ()
        if not agents or "train" in self.reach.wrapped:
            return
        for call in ctx.nodes(cst.Call):
            func = call.func
            if not (isinstance(func, cst.Attribute) and func.attr.value == "train"):
                continue
            receiver = dotted(func.value)
            if receiver not in agents or in_test_code(ctx, call) or self.reach.compiled(call):
                continue
            hot = self.reach.hot(call)
            if hot is None or self._after_eager_switch(call):
                continue
            wrapper = self._agent_wrapper() or "tf.function"
            wrap = f"{receiver}.train = {wrapper}({receiver}.train)"
            at_top = not hot.calls and self.graph.scope_of(call) is None
            once = "before the loop" if at_top else f"where `{receiver}` is built"
            where = self._where(hot, self.graph.scope_of(call))
            message = (
                f"`{receiver}.train()` runs eagerly {where} (TF-Agents compiles it only "
                f"when wrapped): wrap it once, {once}: `{wrap}`"
            )
            fix = self._agent_fix(hot, wrap) if at_top and self._agent_wrapper() else None
            self.report(call, message=message, fix=fix)

    def _agent_wrapper(self) -> Optional[str]:
        for local, full in self.ctx.imports.module_aliases.items():
            if full == "tf_agents.utils.common" and "." not in local:
                return f"{local}.function"
        spelling = tf_function_spelling(self.ctx)
        return spelling if spelling and spelling.endswith(".function") else None

    def _agent_fix(self, hot: HotLoop, wrap: str) -> Optional[Fix]:
        loops = enclosing_loops(self.ctx, hot.loop) if isinstance(hot.loop, cst.For) else []
        outer = loops[-1] if loops else hot.loop
        if not isinstance(outer, (cst.For, cst.While)):
            return None
        line = self.ctx.position(outer).start.line
        indent = self.ctx.indentation(outer)
        edit = self.ctx.insert_lines(line, f"{indent}{wrap}")
        return Fix((edit,), UNSAFE, "Compile agent.train once, before the loop")


def _unseen_arguments(func: cst.FunctionDef) -> List[Problem]:
    """A step called only from another module: what it is passed cannot be read here."""
    params = [p.name.value for p in (*func.params.params, *func.params.kwonly_params)]
    if not [p for p in params if p not in ("self", "cls")]:
        return []
    return [
        Problem(
            "hazard",
            "the arguments it gets, which come from a loop in another module,",
            "cannot be checked here (a Python number, such as a reward or `done`, traces "
            "again on each new value)",
        )
    ]


def _new_each_time(ctx, node: Union[cst.Assign, cst.AugAssign]) -> bool:
    """An assignment of a Python number (``lr = lr * 0.9``, ``n += 1``,
    ``r = 0.1 if ok else -1``) or of a new model,
    layer or optimizer: passed to a tf.function, each new one traces again."""
    if isinstance(node, cst.AugAssign):
        return True
    value = node.value
    if isinstance(value, cst.Call):
        return creates_state(ctx, value)
    return _is_number_expression(value)


def _is_number_expression(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return _is_number_expression(expr.expression)
    if isinstance(expr, cst.IfExp):
        return _is_number_expression(expr.body) and _is_number_expression(expr.orelse)
    if isinstance(expr, cst.BinaryOperation):
        sides = (expr.left, expr.right)
        return any(_is_number_expression(e) for e in sides) and all(
            isinstance(e, cst.Name) or _is_number_expression(e) for e in sides
        )
    return False


def _header(ctx, loop: cst.CSTNode) -> str:
    if isinstance(loop, cst.For):
        text = f"for {ctx.code(loop.target).strip()} in {ctx.code(loop.iter).strip()}"
    elif isinstance(loop, cst.While):
        text = f"while {ctx.code(loop.test).strip()}"
    else:
        return "a comprehension"
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def _rebinds(ctx, stmt: cst.CSTNode, names) -> bool:
    """``stmt`` opens a new tape under one of ``names``."""
    return isinstance(stmt, cst.With) and bool(set(tape_names(ctx, stmt)) & set(names))


def _mentions(stmt: cst.CSTNode, names, ids: set) -> bool:
    for node in [stmt, *descendants(stmt)]:
        if id(node) in ids or (isinstance(node, cst.Name) and node.value in names):
            return True
    return False


def _is_false(call: cst.Call) -> bool:
    return (
        bool(call.args)
        and isinstance(call.args[0].value, cst.Name)
        and call.args[0].value.value == "False"
    )


def _locally_bound(func: cst.FunctionDef) -> set:
    """Names the body assigns (parameters excluded: they belong to the caller)."""
    names = set()
    for node in descendants(func.body, skip_scopes=True):
        if isinstance(node, cst.Assign):
            for t in node.targets:
                if isinstance(t.target, (cst.Name, cst.Tuple, cst.List)):
                    names.update(target_names(t.target))
        elif isinstance(node, (cst.For, cst.CompFor)):
            names.update(target_names(node.target))
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            names.update(target_names(node.asname.name))
    return names


def _join(items: List[str], last_sep: str = " and ") -> str:
    items = list(dict.fromkeys(items))
    items = items[:4] + (["..."] if len(items) > 4 else [])
    if len(items) == 1:
        return items[0]
    if last_sep == " and ":
        return ", ".join(items[:-1]) + " and " + items[-1]
    return last_sep.join(items)
