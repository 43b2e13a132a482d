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

Each pipeline also records the first real per-element work it does
(``dataset_work``: reading record files, decoding, ``py_function`` ...)
and, from literal ``take``/``repeat``/``batch`` arguments, a bound on its
size. TensorFlow Datasets builders, split dicts and split lists
(``tfds.builder(...).as_dataset()``, ``tfds.load(...)`` without one
``split``), tuple assignments (``train, val = make_datasets()`` with
``return a, b``) and TF1 iterators (``make_one_shot_iterator``, a consumer)
are followed too. The API names live in ``dataset_api``.

Anything else a pipeline is passed to (``strategy.experimental_distribute_dataset``,
an unknown helper) yields an untracked value. Control flow is read
linearly (a branch's reassignment holds afterwards): imprecise but cheap,
and the rules only report what the evaluation proves.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Dict, List, Optional, Tuple

from tflint_perf.analysis.dataset_api import (
    APPLY_BATCHING,
    APPLY_FUNCTION,
    APPLY_NEUTRAL,
    APPLY_PREFETCH,
    BATCHING,
    COMBINING_SOURCES,
    DATASET_METHODS,
    DATASET_TYPE,
    FIT_DATA_KEYWORDS,
    FIT_METHODS,
    FROM_GENERATOR,
    FUNCTION_STEPS,
    ITERATOR_METHODS,
    KERAS_FILE_DATASETS,
    LIST_FILES,
    MAPPING_STEPS,
    SOURCES,
    TF1_ITERATORS,
    TFDS_BUILDER,
    TFDS_LOAD,
    TINY,
    int_arg,
    limit_after,
)
from tflint_perf.analysis.dataset_work import FILE_SOURCES, ElementWork, Work
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted, statement_blocks
from tflint_perf.engine.nodes import node_types
from tflint_perf.engine.walk import descendants


@dataclass(frozen=True)
class Pipeline:
    """One dataset value: where it starts, its last step, its state."""

    source: cst.CSTNode
    last: cst.CSTNode  # the call that produced it (the node a fix extends)
    batched: bool = False
    prefetched: bool = False  # a prefetch after the last batching step
    unknown: bool = False  # steps we cannot read (``apply(f)``, a parameter)
    work: Optional[str] = None  # the first real per-element work (``dataset_work``)
    limit: Optional[int] = None  # at most this many elements (``take(10)``); None: unknown
    serial: bool = False  # some per-element work runs on one thread (a map without
    # num_parallel_calls, from_generator, a record file read without num_parallel_reads)
    cached: bool = False  # a cache() after the last batching and the last work step
    # Not a dataset: a tfds builder ("builder"), a dict ("splits") or list ("list") of
    # them; "either": a dataset or a list of them (tfds.load(split=variable)).
    container: Optional[str] = None


@dataclass(frozen=True)
class Consumption:
    pipeline: Pipeline
    site: cst.CSTNode
    kind: str  # "fit", "for", "iter", "iterator" (TF1 ``make_one_shot_iterator``)


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


class _Returns:
    """What a function body returns: all pipelines, and per position of ``return a, b``."""

    def __init__(self) -> None:
        self.values: List[Pipeline] = []
        self.items: Dict[int, list] = {}

    def add(self, expr: cst.BaseExpression, evaluate) -> None:
        self.values.extend(evaluate(expr))
        if isinstance(expr, cst.Tuple):
            for index, element in enumerate(expr.elements):
                self.items.setdefault(index, []).extend(evaluate(element.value))


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
        self._item_summaries: Dict[int, Dict[int, list]] = {}
        self._site_results: Dict[int, Values] = {}  # id(call) -> what that call returns
        self._site_items: Dict[int, Dict[int, list]] = {}
        self._literals: Optional[Dict[str, cst.BaseExpression]] = None
        self._running: set = set()
        self._envs: Dict[int, _Env] = {}
        self._all_defs: List[cst.FunctionDef] = []
        self._step_work: Dict[int, Work] = {}
        self.element_work = ElementWork(ctx, self.functions_at)
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
        """The environment of ``func``'s context-free run (parameters unknown)."""
        env = self._envs.get(id(func))
        if env is None:
            env = self._envs[id(func)] = self._new_env(func)
        return env

    def _new_env(self, func: cst.FunctionDef) -> _Env:
        owner = self._scope_of.get(id(func), self.ctx.module)
        parent = self._envs.get(id(owner))
        if parent is None and isinstance(owner, cst.FunctionDef):
            self._summary(owner)
            parent = self._envs.get(id(owner))
        env = _Env(parent)
        for param in _params(func):
            if (
                param.annotation is not None
                and self.ctx.qualname(param.annotation.annotation) == DATASET_TYPE
            ):
                env.set(param.name.value, (Pipeline(param, param, unknown=True),))
        return env

    def _summary(self, func: cst.FunctionDef) -> Values:
        """What a function of this module returns, as pipelines (runs its body once)."""
        key = id(func)
        if key not in self._summaries:
            self._summaries[key], self._item_summaries[key] = self._run(func, self._env_for(func))
        return self._summaries[key]

    def _run(self, func: cst.FunctionDef, env: _Env):
        """Run a function body: (pipelines returned, per position of ``return a, b``)."""
        if id(func) in self._running:
            return (), {}  # recursion: assume nothing
        self._running.add(id(func))
        returns = _Returns()
        self._run_block(func.body.body, env, returns)
        self._running.discard(id(func))
        return tuple(returns.values), returns.items

    def _run_at(self, func: cst.FunctionDef, call: cst.Call, env: _Env) -> Values:
        """``prepare(train_ds)``: the body run with the pipelines passed in bound to
        its parameters (once per call site), so what it does to them is seen."""
        key = id(call)
        if key not in self._site_results:
            bindings = self._bindings(func, call, env)
            if not bindings:
                return self._summary(func)
            inner = self._new_env(func)
            inner.vars.update(bindings)
            self._site_results[key], self._site_items[key] = self._run(func, inner)
        return self._site_results[key]

    def _bindings(self, func: cst.FunctionDef, call: cst.Call, env: _Env) -> Dict[str, Values]:
        """Parameter name -> pipelines, for the arguments of ``call`` that are pipelines."""
        params = [p.name.value for p in (*func.params.posonly_params, *func.params.params)]
        if isinstance(call.func, cst.Attribute) and params[:1] in (["self"], ["cls"]):
            params = params[1:]
        keywords = set(params) | {p.name.value for p in func.params.kwonly_params}
        out: Dict[str, Values] = {}
        for index, arg in enumerate(call.args):
            if arg.star:
                break
            if arg.keyword is not None:
                name = arg.keyword.value if arg.keyword.value in keywords else None
            else:
                name = params[index] if index < len(params) else None
            values = _datasets(self.evaluate(arg.value, env)) if name else ()
            if name and values:
                out[name] = values
        return out

    def _returned_items(self, call: cst.BaseExpression) -> Dict[int, list]:
        """``return a, b``: position -> pipelines, for a call to a function of this module."""
        if id(call) in self._site_items:
            return self._site_items[id(call)]
        func_def = self.local_def(call.func) if isinstance(call, cst.Call) else None
        if func_def is None:
            return {}
        self._summary(func_def)
        return self._item_summaries.get(id(func_def), {})

    # -- statements -----------------------------------------------------
    def _run_block(self, stmts, env: _Env, returns: Optional["_Returns"]) -> None:
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

    def _run_small(self, small, env: _Env, returns: Optional["_Returns"]) -> None:
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
            returns.add(small.value, lambda expr: self.evaluate(expr, env))

    def _bind(self, target, value, values: Values, env: _Env) -> None:
        name = dotted(target)
        if name is not None:
            env.set(name, values)
            return
        for other in _bound_names(target):
            env.set(other, ())
        if not isinstance(target, (cst.Tuple, cst.List)):
            return
        items = self._unpacked(value, values, env, len(target.elements))
        for index, element in enumerate(target.elements):
            item = items.get(index, ())
            if isinstance(element.value, (cst.Tuple, cst.List)):
                self._bind(element.value, None, item, env)  # `(train, test), info = ...`
            elif isinstance(element.value, cst.Name):
                env.set(element.value.value, item)

    def _unpacked(self, value, values: Values, env: _Env, count: int) -> Dict[int, Values]:
        """Position -> pipelines, for a tuple assignment from ``value``."""
        if isinstance(value, cst.Tuple):  # `a, b = ds1.map(f), ds2.map(f)`
            return {i: self.evaluate(e.value, env) for i, e in enumerate(value.elements)}
        if isinstance(value, cst.Call) and self.ctx.call_name(value) in TFDS_LOAD:
            if _kwarg_is_true(value, "with_info"):  # `ds, info = tfds.load(..., with_info=True)`
                return {0: self._tfds(value, with_info=False)}
        elif isinstance(value, cst.Call):  # `train, val = make_datasets()` returning `a, b`
            items = self._returned_items(value)
            if items:
                return {i: tuple(v) for i, v in items.items()}
        # `train, test = tfds.load(..., split=["train", "test"])`: a list of datasets
        listed = tuple(
            replace(p, container=None) for p in values if p.container in ("list", "either")
        )
        return {index: listed for index in range(count)} if listed else {}

    # -- expressions ----------------------------------------------------
    def evaluate(self, expr: cst.BaseExpression, env: _Env) -> Values:
        """The pipelines ``expr`` may evaluate to (empty: not a tracked dataset)."""
        if isinstance(expr, (cst.Name, cst.Attribute)):
            name = dotted(expr)
            return env.get(name) if name is not None else ()
        if isinstance(expr, cst.Subscript):  # `splits["train"]`
            return tuple(
                replace(p, container=None)
                for p in self.evaluate(expr.value, env)
                if p.container == "splits"
            )
        if not isinstance(expr, cst.Call):
            return ()
        qual = self.ctx.call_name(expr)
        if qual is not None:
            found = self._source(expr, qual, env)
            if found is not None:
                return found
        func = expr.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in DATASET_METHODS:
                receivers = _datasets(self.evaluate(func.value, env))
                if receivers:
                    self.method_receivers[id(expr)] = receivers
                    return tuple(self._step(p, method, expr, env) for p in receivers)
                return ()
            if method == "as_dataset":
                builders = self.evaluate(func.value, env)
                if any(p.container == "builder" for p in builders):
                    return self._tfds(expr, with_info=False)
        return self._builder_result(expr, env)

    def _source(self, call: cst.Call, qual: str, env: _Env) -> Optional[Values]:
        """The pipeline a constructor call starts, or None for other calls."""
        if qual in COMBINING_SOURCES:
            inputs = [p for arg in call.args for p in self._elements(arg.value, env)]
            work = next((p.work for p in inputs if p.work), None)
            unknown = any(p.unknown for p in inputs)
            return (Pipeline(call, call, work=work, unknown=unknown),)
        if qual in SOURCES:
            work = None
            if qual in FILE_SOURCES:
                work = f"`{qual.rsplit('.', 1)[-1]}` file reads"
            elif qual == FROM_GENERATOR:
                work = "Python code per element in `from_generator`"
            serial = work is not None and _kwarg(call, "num_parallel_reads") is None
            size = self._source_size(qual, call)
            return (Pipeline(call, call, work=work, limit=size, serial=serial),)
        if qual in KERAS_FILE_DATASETS:
            # Keras reads the files with a parallel map, batches (unless
            # batch_size=None) and prefetches at the end.
            kind = qual.rsplit(".", 1)[-1].split("_", 1)[0]
            work = f"`{qual.rsplit('.', 1)[-1]}` {kind} file reads"
            batched = not _is_none(_kwarg(call, "batch_size"))
            return (Pipeline(call, call, batched=batched, prefetched=True, work=work),)
        if qual in TFDS_LOAD:
            return self._tfds(call, with_info=_kwarg_is_true(call, "with_info"))
        if qual in TFDS_BUILDER:
            return (Pipeline(call, call, container="builder"),)
        return None

    def _source_size(self, qual: str, call: cst.Call) -> Optional[int]:
        """Elements of ``from_tensors(x)`` (one), ``range(4)``, ``from_tensor_slices``
        of a list literal (or of a name bound once to one)."""
        short = qual.rsplit(".", 1)[-1]
        if short == "from_tensors":
            return 1
        if short == "range" and len(call.args) == 1:
            return int_arg(call)
        if short != "from_tensor_slices" or not call.args:
            return None
        value: Optional[cst.BaseExpression] = call.args[0].value
        if isinstance(value, cst.Name):
            if self._literals is None:
                self._literals = _single_literals(self.ctx)
            value = self._literals.get(value.value)
        if isinstance(value, cst.List):  # (a tuple is a structure, not elements)
            return len(value.elements)
        return None

    def _elements(self, expr: cst.BaseExpression, env: _Env) -> Values:
        """Pipelines in ``expr`` or in the tuple/list/dict it spells."""
        if isinstance(expr, (cst.Tuple, cst.List, cst.Dict)):
            out: list = []
            for element in expr.elements:
                value = getattr(element, "value", None)
                if value is not None:
                    out.extend(self._elements(value, env))
            return tuple(out)
        return _datasets(self.evaluate(expr, env))

    def _tfds(self, call: cst.Call, with_info: bool) -> Values:
        if with_info:
            return ()  # a (dataset, info) pair: see _bind
        split = _kwarg(call, "split")
        if split is None:  # a dict of datasets, by split name
            return (Pipeline(call, call, prefetched=True, container="splits"),)
        container = None  # one split ("train[:80%]", tfds.Split.TRAIN): one dataset
        if isinstance(split, (cst.List, cst.Tuple)):
            container = "list"
        elif not isinstance(split, _ONE_SPLIT):
            container = "either"  # a variable: a dataset, or a list unpacked later
        # tfds prefetches at the end of as_dataset (after its own batching).
        batched = _kwarg(call, "batch_size") is not None
        return (Pipeline(call, call, batched=batched, prefetched=True, container=container),)

    def _step(self, pipeline: Pipeline, method: str, call: cst.Call, env: _Env) -> Pipeline:
        limit = limit_after(pipeline.limit, method, call)
        pipeline = replace(pipeline, limit=limit, container=None)  # a method: a dataset
        if method in BATCHING:
            # Batching what a prefetch already prepared (no map since) only stacks tensors.
            return replace(pipeline, last=call, batched=True, cached=False)
        if method == "prefetch":
            return replace(pipeline, last=call, prefetched=True)
        if method == "unbatch":
            return replace(pipeline, last=call, batched=False, prefetched=False, cached=False)
        if method == "apply":
            return self._apply(pipeline, call)
        if method == "cache":
            return replace(pipeline, last=call, cached=pipeline.batched)
        work = pipeline.work
        if method in FUNCTION_STEPS and call.args:
            own = self.step_work(call, method, call.args[0].value).what
            if own is None and self.ctx.call_name(pipeline.source) == LIST_FILES:
                own = "reading the files of `list_files`"  # whatever function reads them
            if (
                method in MAPPING_STEPS
            ):  # runs when the consumer asks: the prefetch is no longer last
                pipeline = replace(pipeline, prefetched=False)
            if own is not None:
                serial = pipeline.serial or not parallel_step(call, method)
                pipeline = replace(pipeline, serial=serial, cached=False)
            work = work or own
        if work is None and method == "concatenate" and call.args:
            others = self.evaluate(call.args[0].value, env)
            work = next((p.work for p in others if p.work), None)
        return replace(pipeline, last=call, work=work)

    def _apply(self, pipeline: Pipeline, call: cst.Call) -> Pipeline:
        arg = call.args[0].value if call.args else None
        qual = self.ctx.call_name(arg) if isinstance(arg, cst.Call) else None
        short = (
            qual.rsplit(".", 1)[-1]
            if qual and qual.startswith("tensorflow.data.experimental.")
            else None
        )
        work = pipeline.work
        if short in APPLY_FUNCTION and isinstance(arg, cst.Call) and arg.args and work is None:
            method = "map" if short == "map_and_batch" else "interleave"
            work = self.step_work(arg, method, arg.args[0].value).what
        if short in APPLY_BATCHING:
            return replace(pipeline, last=call, batched=True, prefetched=False, work=work)
        if short in APPLY_PREFETCH:
            return replace(pipeline, last=call, prefetched=True)
        if short in APPLY_NEUTRAL or short in APPLY_FUNCTION:
            return replace(pipeline, last=call, work=work)
        func_def = self.local_def(arg) if arg is not None else None
        if func_def is not None:  # `ds.apply(pad_all)` with `def pad_all(ds): ...` here
            returned = self._apply_local(func_def, pipeline, call)
            if len(returned) == 1:
                return replace(returned[0], last=call)
        return replace(pipeline, last=call, unknown=True)

    def _apply_local(self, func: cst.FunctionDef, pipeline: Pipeline, call: cst.Call) -> Values:
        """What a function of this module returns for ``pipeline`` (``ds.apply(func)``)."""
        if id(call) not in self._site_results:
            params = [p.name.value for p in (*func.params.posonly_params, *func.params.params)]
            inner = self._new_env(func)
            if params:
                inner.set(params[0], (pipeline,))
            self._site_results[id(call)], _ = self._run(func, inner)
        return self._site_results[id(call)]

    def step_work(self, call: cst.Call, method: str, func: cst.BaseExpression) -> Work:
        """What the function of ``ds.<method>(func)`` does per element.

        A ``map`` whose function returns a dataset (``window``/``flat_map``
        tricks) does no element work of its own.
        """
        key = id(call)
        if key not in self._step_work:
            work = self.element_work.of_function(func, call)
            if work.returns_dataset and method in ("map", "map_with_legacy_function", "filter"):
                work = replace(work, what=None)
            self._step_work[key] = work
        return self._step_work[key]

    def local_def(self, expr: cst.BaseExpression) -> Optional[cst.FunctionDef]:
        """The one def of this module that ``f`` or ``self.f`` names, else None."""
        defs = self.defs.get(_def_name(expr) or "", [])
        return defs[0] if len(defs) == 1 else None

    def functions_at(self, expr: cst.BaseExpression, site: cst.CSTNode) -> list:
        """Bodies ``expr`` may name as a function at ``site``: a lambda's
        expression, ``functools.partial(f, ...)``'s ``f``, or the defs of that
        name in the nearest enclosing function that has one (else the module)."""
        if isinstance(expr, cst.Lambda):
            return [expr.body]
        if isinstance(expr, cst.Call) and expr.args:
            if self.ctx.call_name(expr) == "functools.partial":
                return self.functions_at(expr.args[0].value, site)
            return []
        defs = self.defs.get(_def_name(expr) or "", [])
        if len(defs) <= 1:
            return defs
        scopes = [a for a in self.ctx.ancestors_of(site) if isinstance(a, cst.FunctionDef)]
        for scope in [*scopes, self.ctx.module]:
            here = [d for d in defs if self._scope_of.get(id(d)) is scope]
            if here:
                return here
        return []

    def _builder_result(self, call: cst.Call, env: _Env) -> Values:
        """A call to a function of this module that returns a pipeline."""
        func_def = self.local_def(call.func)
        if func_def is None:
            return ()  # unknown, or ambiguous between same-named defs
        return self._run_at(func_def, call, env)

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
                        self._consume(self.evaluate(arg.value, env), sub, "fit")
                elif method in ITERATOR_METHODS:  # ds.make_one_shot_iterator()
                    self._consume(self.evaluate(func.value, env), sub, "iterator")
            if self.ctx.call_name(sub) in TF1_ITERATORS and sub.args:
                self._consume(self.evaluate(sub.args[0].value, env), sub, "iterator")
            elif isinstance(func, cst.Name) and func.value == "iter" and len(sub.args) == 1:
                if not self._is_peek(sub):
                    self._consume(self.evaluate(sub.args[0].value, env), sub, "iter")
            elif id(sub) not in self._site_results and self.local_def(func) is not None:
                self._builder_result(sub, env)  # `train(model, ds)`: what it does with ds

    def _consume(self, values: Values, site: cst.CSTNode, kind: str) -> None:
        for p in _datasets(values):
            self.consumptions.append(Consumption(p, site, kind))

    def _is_peek(self, iter_call: cst.Call) -> bool:
        """``next(iter(ds))``: one batch for a look or a shape, not a training loop."""
        arg = self.ctx.parent(iter_call)
        outer = self.ctx.parent(arg) if isinstance(arg, cst.Arg) else None
        return (
            isinstance(outer, cst.Call)
            and isinstance(outer.func, cst.Name)
            and outer.func.value == "next"
        )

    def _consume_iterable(self, expr, env: _Env, loop: cst.For) -> None:
        if (
            isinstance(expr, cst.Call)
            and isinstance(expr.func, cst.Name)
            and expr.func.value == "enumerate"
            and expr.args
        ):
            expr = expr.args[0].value
        if (
            isinstance(expr, cst.Call)
            and isinstance(expr.func, cst.Attribute)
            and expr.func.attr.value == "take"
        ):
            count = int_arg(expr)
            if count is not None and count <= TINY:
                return  # `for batch in ds.take(1)`: a look at a few batches, not a training loop
        self._consume(self.evaluate(expr, env), loop, "for")


def is_tiny(pipeline: Pipeline) -> bool:
    """At most a handful of elements (``ds.take(2).repeat(5)``): a demo, not a workload."""
    return pipeline.limit is not None and pipeline.limit <= TINY


_ONE_SPLIT = node_types(
    "SimpleString", "ConcatenatedString", "FormattedString", "Attribute", "BinaryOperation"
)


def _single_literals(ctx) -> Dict[str, cst.BaseExpression]:
    """Names assigned once in the file, to a list literal."""
    seen: Dict[str, int] = {}
    values: Dict[str, cst.BaseExpression] = {}
    for node in ctx.nodes(cst.Assign):
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                name = target.target.value
                seen[name] = seen.get(name, 0) + 1
                if isinstance(node.value, cst.List):
                    values[name] = node.value
    return {name: value for name, value in values.items() if seen[name] == 1}


def _datasets(values: Values) -> Values:
    """The values that are datasets (not tfds builders or split dicts)."""
    return tuple(p for p in values if p.container in (None, "either"))


def _def_name(expr: cst.BaseExpression) -> Optional[str]:
    """``f`` for ``f`` and for ``self.f`` / ``cls.f``."""
    if isinstance(expr, cst.Name):
        return expr.value
    if (
        isinstance(expr, cst.Attribute)
        and isinstance(expr.value, cst.Name)
        and expr.value.value in ("self", "cls")
    ):
        return expr.attr.value
    return None


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


def _is_none(expr) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"


def parallel_step(call: cst.Call, method: str) -> bool:
    """``map(f, num_parallel_calls=...)`` (also positional, or ``deterministic=``,
    which only a parallel step takes): the step runs on several threads."""
    if any(a.star for a in call.args):
        return True  # unknown: assume the best
    if any(
        a.keyword is not None and a.keyword.value in ("num_parallel_calls", "deterministic")
        for a in call.args
    ):
        return True
    positional = [a for a in call.args if a.keyword is None]
    # map(func, num_parallel_calls, ...); interleave(func, cycle_length, block_length, num_parallel_calls, ...)
    return len(positional) >= (2 if method in ("map", "map_with_legacy_function") else 4)


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
