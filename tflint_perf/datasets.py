"""Following ``tf.data`` pipelines: sources, transformations, consumers.

``DatasetFlow`` (one per file, via ``ctx.shared``) evaluates each scope's
statements in order and tracks which names hold a ``tf.data`` pipeline:

- a pipeline starts at a constructor resolved by qualified name
  (``tf.data.Dataset.from_tensor_slices``, ``tf.data.TFRecordDataset``,
  ``tfds.load(..., split=...)``), or at a parameter annotated
  ``tf.data.Dataset`` (contents unknown);
- it continues through method chains and reassignments
  (``ds = ds.batch(32)``), and through functions of the same module that
  build and return one (``train_ds = make_dataset(...)``);
- it is *consumed* when passed to ``fit``/``evaluate``/``predict``, iterated
  by a ``for`` loop (directly or via ``enumerate``), or passed to ``iter``.

Anything else a pipeline is passed to (``strategy.experimental_distribute_dataset``,
an unknown helper) yields an untracked value. Control flow is read
linearly (a branch's reassignment holds afterwards): imprecise but cheap,
and the rules only report what the evaluation proves.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Dict, List, Optional, Tuple

import libcst as cst

from tflint_perf.names import dotted, statement_blocks
from tflint_perf.walk import descendants

# Constructors that start a pipeline (canonical qualified names).
SOURCES = frozenset(
    {
        "tensorflow.data.Dataset.from_tensor_slices",
        "tensorflow.data.Dataset.from_tensors",
        "tensorflow.data.Dataset.from_generator",
        "tensorflow.data.Dataset.range",
        "tensorflow.data.Dataset.zip",
        "tensorflow.data.Dataset.list_files",
        "tensorflow.data.Dataset.sample_from_datasets",
        "tensorflow.data.Dataset.choose_from_datasets",
        "tensorflow.data.Dataset.counter",
        "tensorflow.data.Dataset.random",
        "tensorflow.data.Dataset.load",
        "tensorflow.data.TFRecordDataset",
        "tensorflow.data.TextLineDataset",
        "tensorflow.data.FixedLengthRecordDataset",
        "tensorflow.data.experimental.CsvDataset",
        "tensorflow.data.experimental.SqlDataset",
        "tensorflow.data.experimental.sample_from_datasets",
        "tensorflow.data.experimental.choose_from_datasets",
        "tensorflow.data.experimental.load",
    }
)
TFDS_LOAD = frozenset({"tensorflow_datasets.load", "tensorflow_datasets.public_api.load"})
DATASET_TYPE = "tensorflow.data.Dataset"

BATCHING = frozenset(
    {"batch", "padded_batch", "ragged_batch", "sparse_batch", "bucket_by_sequence_length", "rebatch"}
)
# Methods that return a dataset with the same prefetch/batch state.
NEUTRAL = frozenset(
    {
        "map", "shuffle", "repeat", "filter", "cache", "take", "skip", "interleave", "flat_map",
        "with_options", "concatenate", "shard", "enumerate", "map_with_legacy_function",
        "snapshot", "ignore_errors", "scan", "unique", "take_while", "rejection_resample",
        "assert_cardinality", "parallel_interleave",
    }
)
# `ds.apply(tf.data.experimental.X(...))`.
APPLY_BATCHING = frozenset({"map_and_batch", "dense_to_ragged_batch", "dense_to_sparse_batch", "bucket_by_sequence_length"})
APPLY_NEUTRAL = frozenset(
    {"ignore_errors", "shuffle_and_repeat", "assert_cardinality", "enumerate_dataset", "parallel_interleave", "unique", "scan"}
)
APPLY_PREFETCH = frozenset({"prefetch_to_device"})
DATASET_METHODS = BATCHING | NEUTRAL | {"prefetch", "apply", "unbatch"}

FIT_METHODS = frozenset({"fit", "evaluate", "predict", "fit_generator", "evaluate_generator", "predict_generator"})
FIT_DATA_KEYWORDS = frozenset({"x", "validation_data", "generator"})


@dataclass(frozen=True)
class Pipeline:
    """One dataset value: where it starts, its last step, its state."""

    source: cst.CSTNode
    last: cst.CSTNode  # the call that produced it (the node a fix extends)
    batched: bool = False
    prefetched: bool = False  # a prefetch after the last batching step
    unknown: bool = False  # steps we cannot read (``apply(f)``, a parameter)


@dataclass(frozen=True)
class Consumption:
    pipeline: Pipeline
    site: cst.CSTNode
    kind: str  # "fit", "for", "iter"


Values = Tuple[Pipeline, ...]


class _Env:
    def __init__(self, parent: Optional["_Env"] = None) -> None:
        self.vars: Dict[str, Values] = {}
        self.parent = parent

    def get(self, name: str) -> Values:
        env: Optional[_Env] = self
        while env is not None:
            if name in env.vars:
                return env.vars[name]
            env = env.parent
        return ()

    def set(self, name: str, values: Values) -> None:
        # An empty tuple shadows an outer binding too.
        self.vars[name] = values


class DatasetFlow:
    """Every tracked pipeline in a module and where each is consumed."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.consumptions: List[Consumption] = []
        # Calls whose receiver is a tracked pipeline: id(call) -> receiver values.
        self.method_receivers: Dict[int, Values] = {}
        self.defs: Dict[str, List[cst.FunctionDef]] = {}
        self._scope_of: Dict[int, cst.CSTNode] = {}  # id(def) -> enclosing def or module
        self._summaries: Dict[int, Values] = {}
        self._running: set = set()
        self._envs: Dict[int, _Env] = {}
        self._all_defs: List[cst.FunctionDef] = []
        self._index(ctx.module, ctx.module)
        self._envs[id(ctx.module)] = module_env = _Env()
        self._run_block(ctx.module.body, module_env, None)
        for func in self._all_defs:
            self._summary(func)

    # -- indexing -------------------------------------------------------
    def _index(self, node: cst.CSTNode, scope: cst.CSTNode) -> None:
        stack = [(node, scope)]
        while stack:
            current, owner = stack.pop()
            for sub in _children_stmts(current):
                if isinstance(sub, cst.FunctionDef):
                    self.defs.setdefault(sub.name.value, []).append(sub)
                    self._scope_of[id(sub)] = owner
                    self._all_defs.append(sub)
                    stack.append((sub, sub))
                else:
                    stack.append((sub, owner))

    def _env_for(self, func: cst.FunctionDef) -> _Env:
        env = self._envs.get(id(func))
        if env is None:
            owner = self._scope_of.get(id(func), self.ctx.module)
            parent = self._envs.get(id(owner))
            if parent is None and isinstance(owner, cst.FunctionDef):
                self._summary(owner)
                parent = self._envs.get(id(owner))
            env = _Env(parent)
            for param in _params(func):
                if param.annotation is not None and self.ctx.qualname(param.annotation.annotation) == DATASET_TYPE:
                    env.set(param.name.value, (Pipeline(param, param, unknown=True),))
            self._envs[id(func)] = env
        return env

    def _summary(self, func: cst.FunctionDef) -> Values:
        """What a function of this module returns, as pipelines (runs its body once)."""
        key = id(func)
        if key in self._summaries:
            return self._summaries[key]
        if key in self._running:
            return ()
        self._running.add(key)
        returns: List[Pipeline] = []
        self._run_block(func.body.body, self._env_for(func), returns)
        self._running.discard(key)
        self._summaries[key] = tuple(returns)
        return self._summaries[key]

    # -- statements -----------------------------------------------------
    def _run_block(self, stmts, env: _Env, returns: Optional[list]) -> None:
        for stmt in stmts:
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                if isinstance(stmt, cst.ClassDef):
                    continue
                env.set(stmt.name.value, ())
                continue
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self._run_small(small, env, returns)
                continue
            if isinstance(stmt, cst.BaseSmallStatement):
                self._run_small(stmt, env, returns)
                continue
            if isinstance(stmt, cst.For):
                self._scan_calls(stmt.iter, env)
                self._consume_iterable(stmt.iter, env, stmt)
                for name in _bound_names(stmt.target):
                    env.set(name, ())
            elif isinstance(stmt, (cst.While, cst.If)):
                self._scan_calls(stmt.test, env)
                if isinstance(stmt, cst.If):
                    orelse = stmt.orelse
                    while isinstance(orelse, cst.If):
                        self._scan_calls(orelse.test, env)
                        orelse = orelse.orelse
            elif isinstance(stmt, cst.With):
                for item in stmt.items:
                    self._scan_calls(item.item, env)
                    if item.asname is not None:
                        for name in _bound_names(item.asname.name):
                            env.set(name, ())
            for block in statement_blocks(stmt):
                self._run_block(block, env, returns)

    def _run_small(self, small, env: _Env, returns: Optional[list]) -> None:
        self._scan_calls(small, env)
        if isinstance(small, cst.Assign):
            values = self.evaluate(small.value, env)
            for target in small.targets:
                self._bind(target.target, small.value, values, env)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self._bind(small.target, small.value, self.evaluate(small.value, env), env)
        elif isinstance(small, cst.AugAssign):
            for name in _bound_names(small.target):
                env.set(name, ())
        elif isinstance(small, cst.Return) and returns is not None and small.value is not None:
            returns.extend(self.evaluate(small.value, env))

    def _bind(self, target, value, values: Values, env: _Env) -> None:
        name = dotted(target)
        if name is not None:
            env.set(name, values)
            return
        names = _bound_names(target)
        for other in names:
            env.set(other, ())
        # `ds, info = tfds.load(..., with_info=True)`
        if isinstance(target, (cst.Tuple, cst.List)) and target.elements and isinstance(value, cst.Call):
            first = target.elements[0].value
            if isinstance(first, cst.Name) and self.ctx.call_name(value) in TFDS_LOAD and _kwarg_is_true(value, "with_info"):
                env.set(first.value, self._tfds(value))

    # -- expressions ----------------------------------------------------
    def evaluate(self, expr: cst.BaseExpression, env: _Env) -> Values:
        """The pipelines ``expr`` may evaluate to (empty: not a tracked dataset)."""
        if isinstance(expr, (cst.Name, cst.Attribute)):
            name = dotted(expr)
            return env.get(name) if name is not None else ()
        if not isinstance(expr, cst.Call):
            return ()
        qual = self.ctx.call_name(expr)
        if qual in SOURCES:
            return (Pipeline(expr, expr),)
        if qual in TFDS_LOAD:
            return () if _kwarg_is_true(expr, "with_info") else self._tfds(expr)
        func = expr.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in DATASET_METHODS:
                receivers = self.evaluate(func.value, env)
                if receivers:
                    self.method_receivers[id(expr)] = receivers
                    return tuple(self._step(p, method, expr) for p in receivers)
                return ()
        return self._builder_result(expr)

    def _tfds(self, call: cst.Call) -> Values:
        split = _kwarg(call, "split")
        if not isinstance(split, cst.SimpleString):
            return ()  # without one split, tfds.load returns a dict of datasets
        # tfds prefetches at the end of as_dataset (after its own batching).
        return (Pipeline(call, call, batched=_kwarg(call, "batch_size") is not None, prefetched=True),)

    def _step(self, pipeline: Pipeline, method: str, call: cst.Call) -> Pipeline:
        if method in BATCHING:
            return replace(pipeline, last=call, batched=True, prefetched=False)
        if method == "prefetch":
            return replace(pipeline, last=call, prefetched=True)
        if method == "unbatch":
            return replace(pipeline, last=call, batched=False, prefetched=False)
        if method == "apply":
            arg = call.args[0].value if call.args else None
            qual = self.ctx.call_name(arg) if isinstance(arg, cst.Call) else None
            short = qual.rsplit(".", 1)[-1] if qual and qual.startswith("tensorflow.data.experimental.") else None
            if short in APPLY_BATCHING:
                return replace(pipeline, last=call, batched=True, prefetched=False)
            if short in APPLY_PREFETCH:
                return replace(pipeline, last=call, prefetched=True)
            if short in APPLY_NEUTRAL:
                return replace(pipeline, last=call)
            return replace(pipeline, last=call, unknown=True)
        return replace(pipeline, last=call)

    def local_def(self, expr: cst.BaseExpression) -> Optional[cst.FunctionDef]:
        """The one def of this module that ``f`` or ``self.f`` names, else None."""
        name = None
        if isinstance(expr, cst.Name):
            name = expr.value
        elif isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value in ("self", "cls"):
            name = expr.attr.value
        defs = self.defs.get(name or "", [])
        return defs[0] if len(defs) == 1 else None

    def _builder_result(self, call: cst.Call) -> Values:
        """A call to a function of this module that returns a pipeline."""
        func_def = self.local_def(call.func)
        if func_def is None:
            return ()  # unknown, or ambiguous between same-named defs
        return self._summary(func_def)

    # -- consumers ------------------------------------------------------
    def _scan_calls(self, node: cst.CSTNode, env: _Env) -> None:
        """Evaluate dataset method calls (for receivers) and record consumers."""
        for sub in [node, *descendants(node, skip_scopes=True)]:
            if not isinstance(sub, cst.Call):
                continue
            func = sub.func
            if isinstance(func, cst.Attribute):
                method = func.attr.value
                if method in DATASET_METHODS and id(sub) not in self.method_receivers:
                    self.evaluate(sub, env)
                elif method in FIT_METHODS:
                    for arg in _data_args(sub):
                        for p in self.evaluate(arg.value, env):
                            self.consumptions.append(Consumption(p, sub, "fit"))
            elif isinstance(func, cst.Name) and func.value == "iter" and len(sub.args) == 1:
                if self._is_peek(sub):
                    continue
                for p in self.evaluate(sub.args[0].value, env):
                    self.consumptions.append(Consumption(p, sub, "iter"))

    def _is_peek(self, iter_call: cst.Call) -> bool:
        """``next(iter(ds))``: one batch for a look or a shape, not a training loop."""
        arg = self.ctx.parent(iter_call)
        outer = self.ctx.parent(arg) if isinstance(arg, cst.Arg) else None
        return isinstance(outer, cst.Call) and isinstance(outer.func, cst.Name) and outer.func.value == "next"

    def _consume_iterable(self, expr, env: _Env, loop: cst.For) -> None:
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "enumerate" and expr.args:
            expr = expr.args[0].value
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "take":
            if expr.args and isinstance(expr.args[0].value, cst.Integer) and int(expr.args[0].value.value) <= 10:
                return  # `for batch in ds.take(1)`: a look at a few batches, not a training loop
        for p in self.evaluate(expr, env):
            self.consumptions.append(Consumption(p, loop, "for"))


def _data_args(call: cst.Call):
    positional = [a for a in call.args if a.keyword is None and a.star == ""]
    if positional:
        yield positional[0]
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in FIT_DATA_KEYWORDS:
            yield arg


def _kwarg(call: cst.Call, name: str):
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


def _kwarg_is_true(call: cst.Call, name: str) -> bool:
    value = _kwarg(call, name)
    return isinstance(value, cst.Name) and value.value == "True"


def _params(func: cst.FunctionDef):
    p = func.params
    return [*p.posonly_params, *p.params, *p.kwonly_params]


def _bound_names(target) -> List[str]:
    if target is None:
        return []
    name = dotted(target)
    if name is not None:
        return [name]
    return [n.value for n in descendants(target) if isinstance(n, cst.Name)]


def _children_stmts(node: cst.CSTNode):
    """Statements directly inside a module, def, class or compound statement."""
    if isinstance(node, cst.Module):
        return list(node.body)
    out = []
    for block in statement_blocks(node):
        out.extend(block)
    return out


def is_dataset_receiver(flow: DatasetFlow, call: cst.Call) -> bool:
    """Whether ``call`` is a method call on a tracked ``tf.data`` pipeline."""
    return id(call) in flow.method_receivers


def autotune_expr(ctx) -> Optional[str]:
    """``tf.data.AUTOTUNE`` spelled with the module's own TensorFlow alias.

    Reuses ``data.experimental.AUTOTUNE`` when the file already spells it
    so (code for TensorFlow < 2.4), and for ``tensorflow.compat.v1``
    aliases. None when TensorFlow is not imported as a module.
    """
    alias = None
    for local, target in ctx.imports.aliases.items():
        if target in ("tensorflow", "tensorflow.compat.v2", "tensorflow.compat.v1"):
            if alias is None or target == "tensorflow":
                alias = (local, target)
    if alias is None:
        return None
    local, target = alias
    source = ctx.source
    old = "data.experimental.AUTOTUNE" in source and "data.AUTOTUNE" not in source.replace("data.experimental.AUTOTUNE", "")
    if old or target == "tensorflow.compat.v1":
        return f"{local}.data.experimental.AUTOTUNE"
    return f"{local}.data.AUTOTUNE"
