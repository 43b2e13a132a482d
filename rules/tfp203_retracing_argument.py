"""TFP203 retracing-argument."""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from tflint_perf.analysis.api import Kind
from tflint_perf.analysis.api.steps import KERAS_TRACED_METHODS, NUMBER_BUILTINS, NUMBER_FUNCTIONS
from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.reach import Reach
from tflint_perf.analysis.semantic import Binding, BindingKind, SemanticModel
from tflint_perf.analysis.steps import tensorflow_alias
from tflint_perf.analysis.trips import TINY, Size, Trips
from tflint_perf.analysis.values import Values
from tflint_perf.engine import cst
from tflint_perf.engine.nodes import node_types
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.rule import SAFE, UNSAFE, Fix, Rule
from tflint_perf.engine.verification import Timing, Verification
from tflint_perf.engine.walk import descendants

INT, FLOAT = "int", "float"
_ARITHMETIC = node_types("Add", "Subtract", "Multiply", "Divide", "FloorDivide", "Power", "Modulo")
Changing = Dict[str, Tuple[str, str]]  # name -> (int/float, why it changes)


class RetracingArgument(Rule):
    """Python number that changes every iteration passed to a `tf.function`.

    ## What it does
    Flags a call, inside a loop, to a `tf.function` of the module
    (decorated, or wrapped as `f = tf.function(g)`) whose argument is a
    Python number that changes every iteration: the loop variable of
    `range(...)` or the index of `enumerate(...)`, or a value computed from
    it in plain Python (`0.1 / (1 + step)`, `warmup * step`, `lr *= 0.9`).

    It stays silent for tensors (`tf.constant(...)`, `tf.cast(...)`, the
    variable of a `tf.range` loop, dataset elements), for functions with an
    `input_signature` (arguments are converted to tensors), for Python
    values that do not change in the loop, for values with only a few
    possible results (`step % 2`, comparisons, loops of a handful of
    iterations: `range(4)`, `range(EPOCHS)` with `EPOCHS = 4`), and for calls
    made while tracing (inside another `tf.function` or a Keras `call`).
    `reduce_retracing=True` does not help with changing Python scalars, so
    it does not silence the rule.

    ## Why is this bad?
    A `tf.function` caches one graph per distinct Python value of its
    arguments. A Python number that is new every iteration makes every call
    trace and compile a new graph: on TF 2.21 a training step fed the
    learning rate as a Python float ran 11-19x slower, and memory grows
    with every cached graph.

    ## Example
    ```python
    import tensorflow as tf

    @tf.function
    def train_step(x, lr):
        return x * lr

    for step in range(1000):
        train_step(batch, 0.1 / (1 + step))
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    @tf.function
    def train_step(x, lr):
        return x * lr

    for step in range(1000):
        train_step(batch, tf.constant(0.1 / (1 + step)))
    ```

    ## Fix safety
    The fix wraps the argument in `tf.constant(...)`. That changes its type
    inside the function from a Python number to a tensor (`int32` for an
    int, `float32` for a float): arithmetic with tensors of another dtype
    raises, `float64` code loses precision, and Python control flow on the
    value (`if step % 10 == 0:`, `range(n)`) is converted by AutoGraph into
    graph control flow. So the fix is safe only when the function body uses
    the parameter solely as the input of `tf.cast(param, dtype)` (for a
    float, `tf.cast(param, tf.float32)`), where both spellings give the same
    tensor; otherwise it is unsafe. Declaring an `input_signature` with a
    scalar `tf.TensorSpec` is the alternative when every caller passes the
    same dtype.
    """

    code = "TFP203"
    name = "retracing-argument"
    message = "`{function}()` gets a new Python number each iteration: pass a tensor"
    triggers = (".function", "import function")

    @classmethod
    def screen(cls, facts) -> bool:
        # The changing argument is a loop's: no loop, nothing to retrace.
        return facts.has_loop()

    fixable = True
    fix_summary = "safe / unsafe"  # the README's Fix column
    # For --verify: the cost is tracing, so every timed run starts from fresh
    # definitions (a warm tf.function cache would hide it).
    verification = Verification(timing=Timing.COLD)

    def finish(self) -> None:
        ctx = self.ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self.values: Values = ctx.shared(Values)
        self.graph: CallGraph = ctx.shared(CallGraph)
        self.reach: Reach = ctx.shared(Reach)
        self.trips: Trips = ctx.shared(Trips)
        for call in ctx.nodes(cst.Call):
            compiled = self._compiled(call)
            if compiled is not None:
                self._check(call, *compiled)

    # -- which calls run a tf.function -------------------------------------------------
    def _compiled(self, call: cst.Call) -> Optional[Tuple[Optional[cst.FunctionDef], cst.CSTNode]]:
        """(the Python function, the wrapper) when ``call`` runs a ``tf.function``:
        a decorated def, ``g = tf.function(f)`` or ``f = tf.function(f)``."""
        if self.values.kind(call.func) is Kind.TF_FUNCTION:
            value = self.sem.value_of(call.func) if isinstance(call.func, cst.Name) else None
            if isinstance(value, cst.Call):
                targets = self.graph.refers_to(value.args[0].value) if value.args else []
                return (targets[0] if len(targets) == 1 else None), value
        targets = self.graph.resolve(call)
        wrappers = [self.reach.wrapper(t) for t in targets]
        if targets and all(w is not None for w in wrappers) and len(targets) == 1:
            return targets[0], wrappers[0]  # type: ignore[return-value]
        return None

    def _check(self, call: cst.Call, definition, wrapper: cst.CSTNode) -> None:
        if _signature(wrapper):
            self.silent(call, Reason.ALREADY_DONE, "its `input_signature` converts the arguments")
            return
        loops = self.sem.loops_around(call)
        if not loops:
            self.silent(call, Reason.RUNS_ONCE, "not in a loop")
            return
        scope = self.sem.function_of(call)
        if scope is not None and (
            self.reach.compiles(scope) or scope.name.value in KERAS_TRACED_METHODS
        ):
            self.silent(call, Reason.COMPILED, "it runs while an outer function is traced")
            return
        changing = self._changing(loops)
        if not changing:
            if all(self.trips.of(loop).size is Size.TINY for loop in loops):
                self.silent(call, Reason.TINY_LOOP, "the loops around it run a handful of times")
            else:
                self.silent(call, Reason.NOT_DATA, "no Python counter changes in the loops")
            return
        for index, arg in enumerate(call.args):
            if arg.star:
                break
            found = self._kind(arg.value, changing)
            if found is None:
                self.silent(arg.value, Reason.NOT_DATA, "not a Python number new each iteration")
                continue
            kind, why = found
            param = _parameter(definition, call, index, arg)
            self._report(call, arg, kind, why, definition, param)

    def _report(self, call, arg: cst.Arg, kind: str, why: str, definition, param) -> None:
        ctx = self.ctx
        function = ctx.code(call.func)
        code = " ".join(ctx.code(arg.value).split())
        shown = _short(code)
        alias = tensorflow_alias(ctx) or "tf"
        headline = f"`{function}()` gets a new Python {kind} each iteration: pass `{alias}.constant({code})`"
        if len(headline) > 100:
            headline = f"`{function}()` gets a new Python {kind} each iteration: pass a tensor"
        detail = (
            f"`{shown}` changes every iteration ({why}). A `tf.function` traces and compiles "
            "a new graph for each new Python value it is passed; a tensor of the same dtype and "
            "shape reuses one graph."
        )
        self.report(
            arg.value,
            message=headline,
            detail=detail,
            fix=self._fix(arg.value, kind, definition, param),
        )

    # -- what changes per iteration ------------------------------------------
    def _changing(self, loops) -> Changing:
        """Python numbers new each iteration: the counter of a loop that runs more
        than a handful of times (``range``, ``enumerate``), and names computed from
        one in plain Python (``lr = 0.1 / (1 + step)``) or updated in the loop
        (``lr *= 0.9`` on a number)."""
        changing: Changing = {}
        for loop in loops:
            if not isinstance(loop, cst.For) or self.trips.of(loop).size is Size.TINY:
                continue
            var = self._counter(loop)
            if var is not None and not self._rebound(loop, var):
                changing[var] = (INT, f"loop variable `{var}`")
        if not changing:
            return changing
        bindings = [b for loop in loops for b in self.sem.bindings_in(loop.body)]
        for _ in range(3):
            for binding in bindings:
                name = binding.name
                if "." in name or name in changing:
                    continue
                if binding.plain:
                    found = self._kind(binding.value, changing)
                    others = [b for b in bindings if b.name == name]
                    if found is not None and others == [binding]:
                        changing[name] = found
                elif binding.kind is BindingKind.AUGMENTED:
                    self._augmented(binding, changing)
        return changing

    def _augmented(self, binding: Binding, changing: Changing) -> None:
        """``lr *= 0.9`` on a name bound otherwise only to number literals."""
        statement = binding.statement
        assert isinstance(statement, cst.AugAssign)  # an augmented binding
        step = _literal_kind(statement.value)
        base = self._constant(cst.Name(binding.name), statement)
        if step is None or base is None:
            return
        floaty = FLOAT in (base, step) or isinstance(statement.operator, cst.DivideAssign)
        changing[binding.name] = (
            FLOAT if floaty else INT,
            f"`{binding.name}` is updated in the loop",
        )

    def _counter(self, loop: cst.For) -> Optional[str]:
        """The loop variable of ``for i in range(...)`` / index of ``enumerate``."""
        iterable = loop.iter
        if not (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name)):
            return None
        if self.sem.lookup_name(iterable.func):
            return None  # a module's own ``range``
        if iterable.func.value == "range" and isinstance(loop.target, cst.Name):
            return loop.target.value
        if iterable.func.value == "enumerate" and isinstance(loop.target, (cst.Tuple, cst.List)):
            first = loop.target.elements[0].value if loop.target.elements else None
            return first.value if isinstance(first, cst.Name) else None
        return None

    def _rebound(self, loop: cst.For, name: str) -> bool:
        return any(b.name == name for b in self.sem.bindings_in(loop.body))

    def _constant(self, name: cst.Name, at: cst.CSTNode) -> Optional[str]:
        """INT/FLOAT for a name every binding of which (where ``at`` reads it) is a
        number literal or ``+=`` of one; None otherwise."""
        kinds = set()
        found = self.sem.lookup(name.value, at)
        scope = self.sem.scope_of(at)
        every = scope.bindings.get(name.value, []) or found
        for binding in every:
            if binding.plain:
                kinds.add(_literal_kind(binding.value))
            elif binding.kind is BindingKind.AUGMENTED:
                continue
            else:
                return None
        kinds.discard(None)
        if not found or len(kinds) != 1:
            return None
        return kinds.pop()

    def _kind(self, expr, changing: Changing) -> Optional[Tuple[str, str]]:
        """(int/float, why) if ``expr`` is a Python number that changes per iteration."""
        kind, why = self._number(expr, changing)
        if kind is None or why is None:
            return None
        return kind, why

    def _number(self, expr, changing: Changing):
        """(kind or None, why it changes or None). kind None: not a plain Python number."""
        if isinstance(expr, cst.Name):
            if expr.value in changing:
                return changing[expr.value]
            return self._constant(expr, expr), None
        literal = _literal_kind(expr)
        if literal is not None:
            return literal, None
        if isinstance(expr, cst.UnaryOperation) and isinstance(
            expr.operator, (cst.Minus, cst.Plus)
        ):
            return self._number(expr.expression, changing)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _ARITHMETIC):
            right_value = expr.right
            if isinstance(expr.operator, cst.Modulo) and isinstance(right_value, cst.Integer):
                if int(right_value.evaluated_value) <= TINY:
                    return None, None  # a handful of distinct values
            left, lwhy = self._number(expr.left, changing)
            right, rwhy = self._number(expr.right, changing)
            if left is None or right is None:
                return None, None
            kind = FLOAT if FLOAT in (left, right) or isinstance(expr.operator, cst.Divide) else INT
            return kind, lwhy or rwhy
        if (
            isinstance(expr, cst.Call)
            and expr.args
            and not any(a.star or a.keyword for a in expr.args)
        ):
            return self._call_number(expr, changing)
        return None, None

    def _call_number(self, expr: cst.Call, changing: Changing):
        parts = [self._number(a.value, changing) for a in expr.args]
        if any(k is None for k, _ in parts):
            return None, None
        why = next((w for _, w in parts if w), None)
        func = expr.func
        if isinstance(func, cst.Name) and not self.sem.lookup_name(func):
            result = NUMBER_BUILTINS.get(func.value)
            if func.value == "round" and len(parts) > 1:
                result = None  # round(x, 2): a float
        else:
            result = NUMBER_FUNCTIONS.get(self.ctx.qualname(func) or "")
        if result == "widest":
            return (FLOAT if any(k == FLOAT for k, _ in parts) else INT), why
        if result is not None:
            return (FLOAT if result == "float" else INT), why
        return None, None

    # -- the fix -------------------------------------------------------------
    def _fix(self, expr, kind: str, definition, param: Optional[str]) -> Optional[Fix]:
        alias = tensorflow_alias(self.ctx)
        if alias is None:
            return None
        safe = (
            definition is not None
            and param is not None
            and self._only_cast(definition, param, kind)
        )
        return Fix(
            (self.ctx.replace(expr, f"{alias}.constant({self.ctx.code(expr)})"),),
            SAFE if safe else UNSAFE,
            "Wrap the argument in `tf.constant(...)`",
        )

    def _only_cast(self, definition: cst.FunctionDef, param: str, kind: str) -> bool:
        """Every use of ``param`` in the body is ``tf.cast(param, dtype)``
        (``tf.float32`` for a float): a tensor gives the same result there."""
        ctx = self.ctx
        scope = self.sem.scope(definition)
        if any(b.kind is not BindingKind.PARAMETER for b in scope.bindings.get(param, [])):
            return False
        uses = [
            n for n in descendants(definition.body) if isinstance(n, cst.Name) and n.value == param
        ]
        for use in uses:
            arg = ctx.parent(use)
            call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
            if not isinstance(call, cst.Call) or ctx.call_name(call) != "tensorflow.cast":
                return False
            if call.args[0] is not arg or arg.keyword is not None:
                return False
            if kind == FLOAT:
                dtype = next(
                    (
                        a.value
                        for a in call.args[1:]
                        if a.keyword is None or a.keyword.value == "dtype"
                    ),
                    None,
                )
                if dtype is None or ctx.qualname(dtype) != "tensorflow.float32":
                    return False
        return True


def _signature(wrapper: cst.CSTNode) -> bool:
    """``@tf.function(input_signature=[...])`` / ``tf.function(f, input_signature=...)``."""
    call = wrapper.decorator if isinstance(wrapper, cst.Decorator) else wrapper
    if not isinstance(call, cst.Call):
        return False
    return any(
        a.keyword is not None
        and a.keyword.value == "input_signature"
        and not (isinstance(a.value, cst.Name) and a.value.value == "None")
        for a in call.args
    )


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:37] + "..."


def _literal_kind(expr) -> Optional[str]:
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        expr = expr.expression
    if isinstance(expr, cst.Integer):
        return INT
    if isinstance(expr, cst.Float):
        return FLOAT
    return None


def _parameter(definition, call: cst.Call, index: int, arg: cst.Arg) -> Optional[str]:
    """The parameter of ``definition`` that ``arg`` binds."""
    if definition is None:
        return None
    if arg.keyword is not None:
        return arg.keyword.value
    params = [*definition.params.posonly_params, *definition.params.params]
    if params and params[0].name.value in ("self", "cls"):
        params = params[1:]
    return params[index].name.value if index < len(params) else None
