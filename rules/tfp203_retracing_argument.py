"""TFP203 retracing-argument."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple, Union

from tflint_perf.analysis.functions import TfFunctions
from tflint_perf.analysis.loops import enclosing_loops, enumerate_call, range_call
from tflint_perf.analysis.steps import tensorflow_alias
from tflint_perf.engine import cst
from tflint_perf.engine.nodes import node_types
from tflint_perf.engine.rule import SAFE, UNSAFE, Fix, Rule
from tflint_perf.engine.verification import Timing, Verification
from tflint_perf.engine.walk import descendants

INT, FLOAT = "int", "float"
# range(...) with literal bounds spanning at most this many values, or
# enumerate over a literal list this short: a few traces, often on purpose.
FEW_VALUES = 8
_INT_BUILTINS = frozenset({"int", "round", "len"})
_FLOAT_MATH = frozenset(
    {"sqrt", "exp", "log", "log2", "log10", "pow", "cos", "sin", "tan", "tanh", "atan", "fabs"}
)
_INT_MATH = frozenset({"floor", "ceil"})
_ARITHMETIC = node_types("Add", "Subtract", "Multiply", "Divide", "FloorDivide", "Power", "Modulo")
# Methods that run under tracing anyway (Keras layers and models).
_TRACED_METHODS = frozenset({"call", "build", "train_step", "test_step", "predict_step"})


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
    possible results (`step % 2`, comparisons, `range(4)`, `range(EPOCHS)`
    with `EPOCHS = 4`), and for calls
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
    message = (
        "`{function}()` is a `tf.function` called in a loop with the Python {kind} `{arg}`, "
        "which changes every iteration ({why}): each new value traces a new graph; "
        "pass a tensor instead"
    )
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
        self._ints: Optional[Dict[str, int]] = None
        functions = self.ctx.shared(TfFunctions)
        if not functions.by_name:
            return
        for node in self.ctx.nodes(cst.Call):
            info = functions.for_call(node)
            if info is None or info.input_signature:
                continue
            loops = enclosing_loops(self.ctx, node)
            if not loops or self._while_tracing(functions, node):
                continue
            constants = self._constant_names(node)
            changing = self._changing_names(loops, constants)
            if not changing:
                continue
            for index, arg in enumerate(node.args):
                if arg.star:
                    break
                found = _python_kind(arg.value, changing, constants, self.ctx)
                if found is None:
                    continue
                kind, why = found
                param = _parameter(info.definition, node, index, arg)
                self.report(
                    arg.value,
                    function=self.ctx.code(node.func),
                    kind=kind,
                    arg=_short(self.ctx.code(arg.value)),
                    why=why,
                    fix=self._fix(arg.value, kind, info.definition, param),
                )

    def _module_ints(self) -> Dict[str, int]:
        """Names bound once in the file, to an integer literal (``EPOCHS = 5``)."""
        if self._ints is None:
            counts: Dict[str, int] = {}
            values: Dict[str, int] = {}
            for node in self.ctx.nodes(cst.Assign):
                for target in node.targets:
                    if isinstance(target.target, cst.Name):
                        name = target.target.value
                        counts[name] = counts.get(name, 0) + 1
                        if isinstance(node.value, cst.Integer):
                            values[name] = int(node.value.evaluated_value)
            self._ints = {k: v for k, v in values.items() if counts[k] == 1}
        return self._ints

    # -- what changes per iteration ------------------------------------------
    def _changing_names(
        self, loops: List[Union[cst.For, cst.While]], constants: dict
    ) -> Dict[str, Tuple[str, str]]:
        """Name -> (kind, loop variable) for Python numbers new each iteration."""
        changing: Dict[str, Tuple[str, str]] = {}
        for loop in loops:
            if not isinstance(loop, cst.For):
                continue
            var = _counter_variable(loop, self._module_ints())
            if var is not None and not _rebound_in(loop.body, var):
                changing[var] = (INT, f"loop variable `{var}`")
        if not changing:
            return changing
        # Names computed from them in the loop bodies (in order, to a fixpoint).
        assigns = []
        for loop in loops:
            for sub in descendants(loop.body, skip_scopes=True):
                if isinstance(sub, (cst.Assign, cst.AugAssign)):
                    assigns.append(sub)
        for _ in range(3):
            for assign in assigns:
                name = _single_name_target(assign)
                if name is None or name in changing:
                    continue
                if isinstance(assign, cst.Assign):
                    found = _python_kind(assign.value, changing, constants, self.ctx)
                    if found is not None and _only_assignments_of(name, assigns) == [assign]:
                        changing[name] = found
                elif name in constants and _literal_kind(assign.value) is not None:
                    # `lr *= 0.9` on a Python number: new every iteration.
                    kinds = (constants[name], _literal_kind(assign.value))
                    floaty = FLOAT in kinds or isinstance(assign.operator, cst.DivideAssign)
                    changing[name] = (FLOAT if floaty else INT, f"`{name}` is updated in the loop")
        return changing

    def _constant_names(self, call: cst.Call) -> Dict[str, str]:
        """Names bound only to numeric literals in the enclosing scope and module."""
        scopes: List[cst.CSTNode] = [self.ctx.module]
        kinds: Dict[str, Optional[str]] = {}
        for parent in self.ctx.ancestors_of(call):
            if isinstance(parent, cst.FunctionDef):
                scopes.insert(0, parent.body)
                params = parent.params
                for param in [*params.posonly_params, *params.params, *params.kwonly_params]:
                    kinds[param.name.value] = None  # unknown type
                break
        for scope in scopes:
            for sub in descendants(scope, skip_scopes=True):
                name = (
                    _single_name_target(sub)
                    if isinstance(sub, (cst.Assign, cst.AugAssign, cst.AnnAssign))
                    else None
                )
                if name is None:
                    continue
                value = getattr(sub, "value", None)
                kind = _literal_kind(value)
                if isinstance(sub, cst.AugAssign):
                    if kind is None:
                        kinds[name] = None  # `total += loss`: unknown
                    continue
                if name in kinds and kinds[name] != kind:
                    kind = None
                kinds[name] = kind
        return {k: v for k, v in kinds.items() if v is not None}

    def _while_tracing(self, functions: TfFunctions, call: cst.Call) -> bool:
        """The call runs while an outer function is traced: once per trace."""
        for parent in self.ctx.ancestors_of(call):
            if isinstance(parent, cst.FunctionDef):
                if functions.is_wrapped_def(parent) or parent.name.value in _TRACED_METHODS:
                    return True
        return False

    # -- the fix -------------------------------------------------------------
    def _fix(self, expr, kind: str, definition, param: Optional[str]) -> Optional[Fix]:
        alias = tensorflow_alias(self.ctx)
        if alias is None:
            return None
        safe = (
            definition is not None
            and param is not None
            and _only_cast(self.ctx, definition, param, kind)
        )
        return Fix(
            (self.ctx.replace(expr, f"{alias}.constant({self.ctx.code(expr)})"),),
            SAFE if safe else UNSAFE,
            "Wrap the argument in `tf.constant(...)`",
        )


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:37] + "..."


def _counter_variable(loop: cst.For, ints: Dict[str, int]) -> Optional[str]:
    """The loop variable of ``for i in range(...)`` / index of ``enumerate``."""
    rng = range_call(loop.iter)
    if rng is not None:
        if not isinstance(loop.target, cst.Name) or _few_range_values(rng, ints):
            return None
        return loop.target.value
    enum = enumerate_call(loop.iter)
    if enum is not None and enum.args and isinstance(loop.target, (cst.Tuple, cst.List)):
        first = loop.target.elements[0].value if loop.target.elements else None
        iterable = enum.args[0].value
        if isinstance(iterable, (cst.List, cst.Tuple)) and len(iterable.elements) <= FEW_VALUES:
            return None
        return first.value if isinstance(first, cst.Name) else None
    return None


def _few_range_values(call: cst.Call, ints: Dict[str, int]) -> bool:
    """``range(4)``, or ``range(EPOCHS)`` with ``EPOCHS = 4``: at most FEW_VALUES values."""
    values = []
    for arg in call.args:
        value = arg.value
        if isinstance(value, cst.Integer):
            values.append(int(value.evaluated_value))
        elif isinstance(value, cst.Name) and value.value in ints:
            values.append(ints[value.value])
        else:
            return False
    if len(values) == 1:
        return values[0] <= FEW_VALUES
    if len(values) >= 2:
        step = values[2] if len(values) > 2 else 1
        return step != 0 and len(range(values[0], values[1], step)) <= FEW_VALUES
    return False


def _rebound_in(body: cst.CSTNode, name: str) -> bool:
    for sub in descendants(body, skip_scopes=True):
        if isinstance(sub, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr)):
            targets = sub.targets if isinstance(sub, cst.Assign) else [sub]
            for target in targets:
                tnode = target.target
                if any(
                    isinstance(n, cst.Name) and n.value == name
                    for n in [tnode, *descendants(tnode)]
                ):
                    return True
    return False


def _single_name_target(node) -> Optional[str]:
    if isinstance(node, cst.Assign):
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            return node.targets[0].target.value
        return None
    if isinstance(node, (cst.AugAssign, cst.AnnAssign)) and isinstance(node.target, cst.Name):
        return node.target.value
    return None


def _only_assignments_of(name: str, assigns) -> list:
    return [a for a in assigns if _single_name_target(a) == name]


def _literal_kind(expr) -> Optional[str]:
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        expr = expr.expression
    if isinstance(expr, cst.Integer):
        return INT
    if isinstance(expr, cst.Float):
        return FLOAT
    return None


def _python_kind(expr, changing: dict, constants: dict, ctx) -> Optional[Tuple[str, str]]:
    """(kind, loop variable) if ``expr`` is a Python number that changes per iteration."""
    kind, var = _kind_of(expr, changing, constants, ctx)
    if kind is None or var is None:
        return None
    return kind, var


def _kind_of(expr, changing, constants, ctx):
    """(kind or None, loop variable it depends on or None). kind None: not a plain Python number."""
    if isinstance(expr, cst.Name):
        if expr.value in changing:
            return changing[expr.value]
        return constants.get(expr.value), None
    literal = _literal_kind(expr)
    if literal is not None:
        return literal, None
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        return _kind_of(expr.expression, changing, constants, ctx)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _ARITHMETIC):
        if isinstance(expr.operator, cst.Modulo) and _literal_kind(expr.right) == INT:
            if int(expr.right.evaluated_value) <= FEW_VALUES:
                return None, None  # few distinct values
        left, lvar = _kind_of(expr.left, changing, constants, ctx)
        right, rvar = _kind_of(expr.right, changing, constants, ctx)
        if left is None or right is None:
            return None, None
        kind = FLOAT if FLOAT in (left, right) or isinstance(expr.operator, cst.Divide) else INT
        return kind, lvar or rvar
    if isinstance(expr, cst.Call) and not any(a.star or a.keyword for a in expr.args) and expr.args:
        parts = [_kind_of(a.value, changing, constants, ctx) for a in expr.args]
        if any(k is None for k, _ in parts):
            return None, None
        var = next((v for _, v in parts if v), None)
        func = expr.func
        if isinstance(func, cst.Name):
            if func.value == "float":
                return FLOAT, var
            if func.value in _INT_BUILTINS and not (func.value == "round" and len(parts) > 1):
                return INT, var
            if func.value in ("min", "max", "abs"):
                return (FLOAT if any(k == FLOAT for k, _ in parts) else INT), var
            return None, None
        qual = ctx.qualname(func) or ""
        if qual.startswith("math."):
            short = qual[len("math.") :]
            if short in _FLOAT_MATH:
                return FLOAT, var
            if short in _INT_MATH:
                return INT, var
    return None, None


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


def _only_cast(ctx, definition: cst.FunctionDef, param: str, kind: str) -> bool:
    """Every use of ``param`` in the body is ``tf.cast(param, dtype)``
    (``tf.float32`` for a float): a tensor gives the same result there."""
    if _rebound_in(definition.body, param):
        return False
    uses = [n for n in descendants(definition.body) if isinstance(n, cst.Name) and n.value == param]
    for use in uses:
        arg = ctx.parent(use)
        call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
        if not isinstance(call, cst.Call) or ctx.call_name(call) != "tensorflow.cast":
            return False
        if call.args[0] is not arg or arg.keyword is not None:
            return False
        if kind == FLOAT:
            dtype = next(
                (a.value for a in call.args[1:] if a.keyword is None or a.keyword.value == "dtype"),
                None,
            )
            if dtype is None or ctx.qualname(dtype) != "tensorflow.float32":
                return False
    return True
