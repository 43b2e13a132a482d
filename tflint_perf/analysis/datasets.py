"""``tf.data`` pipelines: the facts of the pipeline an expression holds.

``Pipelines(ctx)`` (one per file: ``ctx.shared(Pipelines)``) answers
``at(expr)``: the pipelines an expression may evaluate to, each with its
facts (``Pipeline``): batched (and the batch size the source spells),
prefetched after the last batching, the first real per-element work
(``dataset_work``) and whether some of it runs on one thread, cached, a
bound on its elements, steps it cannot read. It reads the semantic model:

- a pipeline starts at a constructor of the API table (``api/tfdata.py``:
  ``Dataset.from_tensor_slices``, ``TFRecordDataset``, ``tfds.load``,
  ``image_dataset_from_directory`` ...), or at a parameter annotated
  ``tf.data.Dataset``;
- it follows method chains, the bindings that reach a name
  (``ds = ds.batch(32)``), subscripts of split dicts, tuple unpacking of
  ``tfds.load`` and of returns, and calls of the module's functions;
- what a function returns is its summary fact (``returned(func)``): a
  pipeline with facts X, or "its parameter ``p`` with steps S", replayed on
  what each call passes (a helper used for two pipelines keeps them apart);
- a parameter's pipelines are what its callers pass (``resolve``).

Control flow is read as the semantic model reads it (the bindings that may
reach a read): imprecise at worst, never a guess by spelling.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Optional, Tuple

from tflint_perf.analysis.api import tfdata
from tflint_perf.analysis.api.tfdata import Role, Source
from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.dataset_steps import (
    Container,
    Elsewhere,
    Found,
    Pipeline,
    Step,
    autotune_expr,
    fold,
    parallel_step,
    replay,
)
from tflint_perf.analysis.dataset_work import NOTHING, ElementWork
from tflint_perf.analysis.semantic import Binding, BindingKind, SemanticModel
from tflint_perf.analysis.trips import Trips
from tflint_perf.engine import cst
from tflint_perf.engine.nodes import is_true, node_types

# Re-exported: the rules read these with the pipelines.
__all__ = [
    "Container",
    "Elsewhere",
    "Pipeline",
    "Pipelines",
    "Step",
    "autotune_expr",
    "parallel_step",
]

_DEPTH = 8  # calls followed through parameters and returns
_PENDING: tuple = ()  # (a marker object is not needed: an empty answer ends a cycle)


class Pipelines:
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self.graph: CallGraph = ctx.shared(CallGraph)
        self.trips: Trips = ctx.shared(Trips)
        self.work = ElementWork(ctx)
        self._at: Dict[cst.CSTNode, Found] = {}
        self._steps: Dict[cst.Call, Step] = {}
        self._returned: Dict[cst.FunctionDef, Found] = {}
        self._passed: Dict[Tuple[cst.FunctionDef, str], Found] = {}
        self._apply_sites: Optional[Dict[cst.CSTNode, List[cst.Call]]] = None

    # -- the questions -----------------------------------------------------------------
    def at(self, expr: Optional[cst.CSTNode]) -> Found:
        """The pipelines ``expr`` may evaluate to, read where it is (a parameter's
        pipeline stays pending: see ``resolve``)."""
        if expr is None:
            return ()
        known = self._at.get(expr)
        if known is None:
            self._at[expr] = _PENDING  # a cycle (ds = ds.concatenate(ds)) ends here
            known = self._at[expr] = tuple(self._evaluate(expr))
        return known

    def datasets(self, expr: Optional[cst.CSTNode], depth: int = 0) -> Found:
        """The pipelines (not containers) ``expr`` holds, parameters resolved."""
        return tuple(p for p in self.resolve(self.at(expr), depth) if _is_dataset(p))

    def resolve(self, found: Found, depth: int = 0) -> Found:
        """Pending parameter pipelines replaced by what the callers pass (with the
        steps applied since); a parameter no caller passes a pipeline for is dropped,
        unless annotated ``tf.data.Dataset`` (kept, contents unknown)."""
        out: List[Pipeline] = []
        for pipeline in found:
            if pipeline.param is None:
                out.append(pipeline)
                continue
            passed = self._passed_for(pipeline.param, depth)
            out += [replay(p, pipeline.steps) for p in passed]
            if not passed and pipeline.annotated:
                out.append(pipeline)
        return tuple(out)

    def returned(self, func: cst.FunctionDef) -> Found:
        """What ``func`` returns as pipelines: its summary fact (a pipeline with its
        facts, or a parameter with the steps applied to it)."""
        known = self._returned.get(func)
        if known is None:
            self._returned[func] = ()
            out: List[Pipeline] = []
            for ret in self._values().returns(func):
                out += self.at(ret.value)
            known = self._returned[func] = tuple(out)
        return known

    def returned_item(self, func: cst.FunctionDef, index: int) -> Found:
        """Item ``index`` of ``return a, b`` (``train, valid = make_datasets()``)."""
        out: List[Pipeline] = []
        for ret in self._values().returns(func):
            value = ret.value
            if isinstance(value, cst.Tuple) and index < len(value.elements):
                out += self.at(value.elements[index].value)
        return tuple(out)

    def step(self, call: cst.Call) -> Optional[Step]:
        """``call`` read as a pipeline step (None when it is not a dataset method)."""
        if not isinstance(call.func, cst.Attribute):
            return None
        method = call.func.attr.value
        role = tfdata.STEPS.get(method)
        if role is None:
            return None
        known = self._steps.get(call)
        if known is None:
            known = self._steps[call] = self._read_step(call, method, role)
        return known

    # -- evaluation ----------------------------------------------------------------------
    def _evaluate(self, expr: cst.CSTNode) -> List[Pipeline]:
        if isinstance(expr, (cst.Name, cst.Attribute)):
            out: List[Pipeline] = []
            for binding in self.sem.lookup_name(expr):
                out += self._binding(binding)
            return out
        if isinstance(expr, cst.Subscript):  # splits["train"], datasets[0]
            return [
                replace(p, container=None)
                for p in self.at(expr.value)
                if p.container in (Container.SPLITS, Container.LIST, Container.EITHER)
            ]
        if isinstance(expr, cst.IfExp):
            return [*self.at(expr.body), *self.at(expr.orelse)]
        if isinstance(expr, cst.Call):
            return self._call(expr)
        return []

    def _binding(self, binding: Binding) -> List[Pipeline]:
        kind = binding.kind
        if binding.plain:
            return list(self.at(binding.value))
        if kind is BindingKind.ASSIGNMENT and binding.source is not None:
            return self._unpacked(binding.source, binding.path)
        if kind is BindingKind.PARAMETER and isinstance(binding.statement, cst.Param):
            func = binding.scope.function
            if func is None:
                return []
            param = binding.statement
            annotated = param.annotation is not None and (
                self.ctx.qualname(param.annotation.annotation) == tfdata.DATASET_TYPE
            )
            return [
                Pipeline(
                    param, param, unknown=True, param=(func, binding.name), annotated=annotated
                )
            ]
        return []

    def _unpacked(self, source: cst.BaseExpression, path: tuple) -> List[Pipeline]:
        """Item ``path`` of ``a, b = source``: ``(train, test), info = tfds.load(...,
        with_info=True)``, ``train, valid = make_datasets()``."""
        if not path:
            return []
        if not isinstance(source, cst.Call):  # train, test = splits (a list of pipelines)
            return _listed(self.at(source)) if len(path) == 1 else []
        if tfdata.SOURCES.get(self.ctx.call_name(source) or "") is Source.TFDS:
            found = tuple(self._tfds(source))
            if _keyword_true(source, "with_info"):
                if path[0] != 0:
                    return []  # the info object
                path = path[1:]
            return list(found) if not path else _listed(found)
        targets = self.graph.resolve(source)
        if not targets and len(path) == 1:  # a function of another module of the tree
            items = (self.graph.external(source) or {}).get("pipeline_items") or ()
            if path[0] < len(items):
                return self._external(source, items[path[0]])
            return _listed(self.at(source))
        if not targets:
            return []
        out: List[Pipeline] = []
        for target in targets:
            items = self.returned_item(target, path[0])
            out += self._passed_through(source, target, items) if len(path) == 1 else []
        return out

    def _call(self, call: cst.Call) -> List[Pipeline]:
        qual = self.ctx.call_name(call)
        source = tfdata.SOURCES.get(qual or "")
        if source is not None:
            return self._source(call, source, qual or "")
        func = call.func
        if isinstance(func, cst.Attribute):
            step = self.step(call)
            if step is not None:
                receivers = [p for p in self.at(func.value) if _is_dataset(p)]
                return [fold(p, step) for p in receivers]
            if func.attr.value == "as_dataset":
                if any(p.container is Container.BUILDER for p in self.at(func.value)):
                    return self._tfds(call)
        out: List[Pipeline] = []
        targets = self.graph.resolve(call)
        for target in targets:
            out += self._passed_through(call, target, self.returned(target))
        if not targets:
            out += self._external(call)
        return out

    def _external(self, call: cst.Call, returned=None) -> List[Pipeline]:
        """What a function of another module of the tree returns, by its exported
        facts (``analysis/exports.py``): pipelines that start and end at ``call``
        here, their facts as they are there, where they end kept in ``elsewhere``.
        ``returned``: the facts of one item of the tuple it returns instead."""
        facts = self.graph.external(call)
        if returned is None:
            returned = facts.get("pipelines", ()) if facts is not None else ()
        out: List[Pipeline] = []
        for each in returned if facts is not None else ():
            origin = each.get("origin")
            out.append(
                Pipeline(
                    call,
                    call,
                    Source(origin) if origin else None,
                    batched=bool(each.get("batched")),
                    batch_size=each.get("batch_size"),
                    batch_call=call if each.get("batched") else None,
                    prefetched=bool(each.get("prefetched")),
                    unknown=bool(each.get("unknown")),
                    work=each.get("work"),
                    limit=each.get("limit"),
                    serial=bool(each.get("serial")),
                    cached=bool(each.get("cached")),
                    elsewhere=Elsewhere(
                        str(facts.get("path", "?")),  # type: ignore[union-attr]
                        int(each.get("line", 0)),
                        str(each.get("last") or ""),
                    ),
                )
            )
        return out

    def _passed_through(self, call: cst.Call, target, found: Found) -> List[Pipeline]:
        """A callee's returned pipelines, its own parameters replaced by what ``call`` passes."""
        out: List[Pipeline] = []
        for pipeline in found:
            if pipeline.param is None or pipeline.param[0] is not target:
                out.append(pipeline)
                continue
            arg = self.graph.argument(call, target, pipeline.param[1])
            for passed in self.at(arg) if arg is not None else ():
                if _is_dataset(passed):
                    out.append(replay(passed, pipeline.steps))
        return out

    def _passed_for(self, param: Tuple[cst.FunctionDef, str], depth: int) -> Found:
        known = self._passed.get(param)
        if known is None:
            self._passed[param] = ()
            out: List[Pipeline] = []
            func, name = param
            if depth < _DEPTH:
                for call in self.graph.callers(func):
                    arg = self.graph.argument(call, func, name)
                    if arg is not None:
                        out += self.datasets(arg, depth + 1)
                if name == _first_param(func):  # ds.apply(func) calls func(ds)
                    for call in self._applying(func):
                        out += self.datasets(call.func.value, depth + 1)  # type: ignore[attr-defined]
            known = self._passed[param] = tuple(out)
        return known

    def _applying(self, func: cst.FunctionDef) -> List[cst.Call]:
        """The ``ds.apply(func)`` calls of the module that hand ``func`` a pipeline."""
        if self._apply_sites is None:
            self._apply_sites = {}
            for call in self.ctx.nodes(cst.Call):
                step = self.step(call)
                if step is None or step.role is not Role.APPLY or not call.args:
                    continue
                for body in self.work.bodies(call.args[0].value):
                    self._apply_sites.setdefault(body, []).append(call)
        return self._apply_sites.get(func, [])

    # -- sources ------------------------------------------------------------------------
    def _source(self, call: cst.Call, source: Source, qual: str) -> List[Pipeline]:
        short = qual.rsplit(".", 1)[-1]
        if source is Source.COMBINED:
            inputs = [p for arg in call.args for p in self._elements(arg.value)]
            work = next((p.work for p in inputs if p.work), None)
            unknown = any(p.unknown for p in inputs)
            return [Pipeline(call, call, source, work=work, unknown=unknown)]
        if source is Source.FILES:
            serial = _keyword(call, "num_parallel_reads") is None
            return [Pipeline(call, call, source, work=f"`{short}` file reads", serial=serial)]
        if source is Source.GENERATOR:
            work = "Python code per element in `from_generator`"
            return [Pipeline(call, call, source, work=work, serial=True)]
        if source is Source.KERAS_FILES:
            # Keras reads the files with a parallel map, batches (unless
            # batch_size=None, 32 by default) and prefetches at the end.
            kind = short.split("_", 1)[0]
            size = _keyword(call, "batch_size")
            batched = not (isinstance(size, cst.Name) and size.value == "None")
            count = self.trips.number(size) if size is not None else 32
            work = f"`{short}` {kind} file reads"
            return [
                Pipeline(
                    call,
                    call,
                    source,
                    batched=batched,
                    batch_size=count if batched else None,
                    batch_call=call if batched else None,
                    prefetched=True,
                    work=work,
                )
            ]
        if source is Source.TFDS:
            return self._tfds(call)
        if source is Source.TFDS_BUILDER:
            return [Pipeline(call, call, source, container=Container.BUILDER)]
        return [Pipeline(call, call, source, limit=self._size(short, call))]

    def _size(self, short: str, call: cst.Call) -> Optional[int]:
        """Elements of ``from_tensors(x)`` (one), ``range(4)``, ``from_tensor_slices``
        of a list literal (or of a name bound to one)."""
        if short == "from_tensors":
            return 1
        first = call.args[0].value if call.args and call.args[0].keyword is None else None
        if short == "range" and len(call.args) == 1 and first is not None:
            return self.trips.number(first)
        if short != "from_tensor_slices" or first is None:
            return None
        return self._literal_length(first, 0)

    def _literal_length(self, value: Optional[cst.BaseExpression], depth: int) -> Optional[int]:
        """Elements a literal list gives; a tuple or dict is a structure: its first
        component's length (``from_tensor_slices(([1, 2], [3, 4]))``: 2)."""
        if isinstance(value, cst.Name) and depth < 3:
            return self._literal_length(self.sem.value_of(value), depth + 1)
        if isinstance(value, cst.List):
            return len(value.elements)
        if isinstance(value, (cst.Tuple, cst.Dict)) and value.elements and depth < 3:
            first = value.elements[0]
            if isinstance(first, (cst.Element, cst.DictElement)):
                return self._literal_length(first.value, depth + 1)
        return None

    def _elements(self, expr: cst.BaseExpression) -> Found:
        """Pipelines in ``expr`` or in the tuple, list or dict it spells."""
        if isinstance(expr, (cst.Tuple, cst.List, cst.Dict)):
            out: list = []
            for element in expr.elements:
                value = getattr(element, "value", None)
                if value is not None:
                    out.extend(self._elements(value))
            return tuple(out)
        return tuple(p for p in self.at(expr) if _is_dataset(p))

    def _tfds(self, call: cst.Call) -> List[Pipeline]:
        """``tfds.load(...)`` / ``builder.as_dataset(...)``: one dataset for one split,
        a list for a list of splits, a dict by split name without ``split``.
        TFDS prefetches at the end of ``as_dataset`` (after its own batching)."""
        split = _keyword(call, "split")
        if isinstance(split, cst.Name):  # split=splits, splits = ["train", "test"]
            split = self.sem.value_of(split) or split
        if split is None:
            container: Optional[Container] = Container.SPLITS
        elif isinstance(split, (cst.List, cst.Tuple)):
            container = Container.LIST
        elif isinstance(split, _ONE_SPLIT):
            container = None  # "train[:80%]", tfds.Split.TRAIN
        else:
            container = Container.EITHER  # a variable: a dataset, or a list unpacked later
        size = _keyword(call, "batch_size")
        count = self.trips.number(size) if size is not None else None
        return [
            Pipeline(
                call,
                call,
                Source.TFDS,
                batched=size is not None,
                batch_size=count,
                batch_call=call if size is not None else None,
                prefetched=True,
                container=container,
            )
        ]

    # -- steps ----------------------------------------------------------------------------
    def _read_step(self, call: cst.Call, method: str, role: Role) -> Step:
        count = self._count(call, method)
        if role in (Role.MAP, Role.FILTER):
            func = _argument(call, 0, "map_func" if method != "filter" else "predicate")
            work = self.work.of_function(func) if func is not None else NOTHING
            if work.returns_dataset and method in tfdata.ONE_TO_ONE_STEPS:
                work = replace(work, what=None)  # window/flat_map tricks: no element work
            return Step(call, method, role, work, parallel_step(call, method), count)
        if role is Role.APPLY:
            return self._apply(call)
        if role is Role.CONCATENATE and call.args:
            others = self.at(call.args[0].value)
            other = next((p.work for p in others if p.work), None)
            return Step(call, method, role, count=count, other_work=other)
        return Step(call, method, role, count=count)

    def _count(self, call: cst.Call, method: str) -> Optional[int]:
        keyword = {"take": "count", "repeat": "count"}.get(method, "batch_size")
        value = _argument(call, 0, keyword)
        return self.trips.number(value) if value is not None else None

    def _apply(self, call: cst.Call) -> Step:
        arg = call.args[0].value if call.args else None
        qual = self.ctx.call_name(arg) if isinstance(arg, cst.Call) else None
        name = qual.rsplit(".", 1)[-1] if qual and qual.startswith("tensorflow.data.") else None
        role = tfdata.APPLY_ROLES.get(name or "")
        if role is not None and isinstance(arg, cst.Call):
            work = NOTHING
            if name in tfdata.APPLY_FUNCTIONS and arg.args:
                work = self.work.of_function(arg.args[0].value)
            ahead = name in tfdata.RUNS_AHEAD
            return Step(call, "apply", Role.APPLY, work, True, applies=role, ahead=ahead)
        applied: List[Pipeline] = []
        for func in self.work.bodies(arg) if arg is not None else []:
            if isinstance(func, cst.FunctionDef):  # ds.apply(pad_all), def pad_all(ds): ...
                first = _first_param(func)
                applied += [p for p in self.returned(func) if p.param == (func, first)]
        return Step(call, "apply", Role.APPLY, applied=tuple(applied))

    def _values(self):
        from tflint_perf.analysis.values import Values

        return self.ctx.shared(Values)


_ONE_SPLIT = node_types(
    "SimpleString", "ConcatenatedString", "FormattedString", "Attribute", "BinaryOperation"
)


def _listed(found: Found) -> List[Pipeline]:
    """The items of a list of pipelines (``tfds.load(split=[...])``)."""
    return [
        replace(p, container=None)
        for p in found
        if p.container in (Container.LIST, Container.EITHER)
    ]


def _is_dataset(pipeline: Pipeline) -> bool:
    return pipeline.container in (None, Container.EITHER)


def _argument(call: cst.Call, index: int, keyword: str) -> Optional[cst.BaseExpression]:
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if len(positional) > index:
        return positional[index].value
    return _keyword(call, keyword)


def _keyword(call: cst.Call, name: str) -> Optional[cst.BaseExpression]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


def _keyword_true(call: cst.Call, name: str) -> bool:
    value = _keyword(call, name)
    return is_true(value)


def _first_param(func: cst.FunctionDef) -> str:
    params = [*func.params.posonly_params, *func.params.params]
    return params[0].name.value if params else ""
