"""What a ``tf.data`` pipeline is, and what one step does to it.

``Pipeline`` holds the facts of one dataset value (batched and with which
size, prefetched, its first real per-element work, whether some of it runs
on one thread, cached, a bound on its elements); ``Step`` is one method
call on a pipeline, read without its receiver; ``fold(pipeline, step)`` is
the pipeline after the step. A pipeline that starts at a parameter keeps
the steps applied to it, so ``replay`` applies them to what a caller
passes (``analysis/datasets.py`` reads the module; these are its values).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Optional, Tuple

from tflint_perf.analysis.api import tfdata
from tflint_perf.analysis.api.tfdata import Role, Source
from tflint_perf.analysis.dataset_work import NOTHING, Work
from tflint_perf.analysis.tf_version import TfStyle
from tflint_perf.analysis.trips import TINY
from tflint_perf.engine import cst


class Container(enum.Enum):
    """Values that hold pipelines without being one."""

    BUILDER = "builder"  # tfds.builder(...): as_dataset() gives the splits
    SPLITS = "splits"  # a dict of pipelines by split name
    LIST = "list"  # a list of pipelines (tfds.load(split=[...]))
    EITHER = "either"  # a pipeline or a list of them (tfds.load(split=variable))


@dataclass(frozen=True)
class Step:
    """One method call on a pipeline, read without its receiver."""

    call: cst.Call
    method: str
    role: Role
    work: Work = NOTHING  # what its function does per element (map, interleave ...)
    parallel: bool = False  # num_parallel_calls (or deterministic=, num_threads=) given
    count: Optional[int] = None  # its literal size or count (batch(32), take(3))
    applied: Tuple["Pipeline", ...] = ()  # apply(f) with f of this module: f's returns
    applies: Optional[Role] = None  # apply(tf.data.experimental.X(...)): what X does
    ahead: bool = False  # X computes its output ahead (``tfdata.RUNS_AHEAD``)
    other_work: Optional[str] = None  # concatenate(other): the other pipeline's work


@dataclass(frozen=True)
class Elsewhere:
    """Where a pipeline built by another module of the tree ends (its facts come
    from that module's exports)."""

    path: str
    line: int  # of its last step there
    last: str  # the method of that step (``batch``), or ""


@dataclass(frozen=True)
class Pipeline:
    """One dataset value: where it starts, its last step, its state."""

    source: cst.CSTNode  # the constructor call (or the parameter)
    last: cst.CSTNode  # the call that produced it (the node a fix extends)
    origin: Optional[Source] = None
    batched: bool = False
    batch_size: Optional[int] = None  # the last batching step's size, when the source spells it
    batch_call: Optional[cst.CSTNode] = None  # the last batching step
    prefetched: bool = False  # a prefetch after the last batching step
    unknown: bool = False  # steps we cannot read (``apply(f)``, a parameter)
    work: Optional[str] = None  # the first real per-element work (``dataset_work``)
    limit: Optional[int] = None  # at most this many elements (``take(10)``); None: unknown
    # Some per-element work runs on one thread (a map without num_parallel_calls,
    # from_generator, a record file read without num_parallel_reads).
    serial: bool = False
    cached: bool = False  # a cache() after the last work step
    container: Optional[Container] = None
    # A parameter's pipeline (its facts unknown until a caller is known), and the
    # steps applied to it since: ``returned(func)`` replays them on what a call passes.
    param: Optional[Tuple[cst.FunctionDef, str]] = None
    annotated: bool = False  # the parameter is annotated ``tf.data.Dataset``
    steps: Tuple[Step, ...] = ()
    elsewhere: Optional[Elsewhere] = None  # built by another module: where it ends there

    @property
    def tiny(self) -> bool:
        """At most a handful of elements (``ds.take(2).repeat(5)``): a demo, not a workload."""
        return self.limit is not None and self.limit <= TINY


Found = Tuple[Pipeline, ...]


def replay(pipeline: Pipeline, steps: Tuple[Step, ...]) -> Pipeline:
    """``pipeline`` after ``steps`` (a helper's steps, applied to what a caller passes)."""
    for each in steps:
        pipeline = fold(pipeline, each)
    return pipeline


def fold(pipeline: Pipeline, step: Step) -> Pipeline:
    """The pipeline after ``step``."""
    limit = _limit_after(pipeline.limit, step)
    steps = pipeline.steps + (step,) if pipeline.param is not None else ()
    p = replace(pipeline, limit=limit, container=None, last=step.call, steps=steps)
    role = step.role
    if role is Role.BATCH:
        # Batching what a prefetch already prepared, or a cache holds (no map since),
        # only stacks tensors.
        return replace(p, batched=True, batch_size=step.count, batch_call=step.call)
    if role is Role.PREFETCH:
        return replace(p, prefetched=True)
    if role is Role.UNBATCH:
        return replace(
            p, batched=False, batch_size=None, batch_call=None, prefetched=False, cached=False
        )
    if role is Role.CACHE:
        return replace(p, cached=True)
    if role is Role.APPLY:
        return _fold_apply(p, step)
    if role in (Role.MAP, Role.FILTER):
        own = step.work.what
        if own is None and p.origin is Source.FILE_NAMES:
            own = "reading the files of `list_files`"  # whatever function reads them
        if role is Role.MAP and not projection(step.call):
            p = replace(p, prefetched=False)  # runs when the consumer asks: not the last step
        if own is not None:
            p = replace(p, serial=p.serial or not step.parallel, cached=False)
        return replace(p, work=p.work or own)
    if role is Role.CONCATENATE:
        return replace(p, work=p.work or step.other_work)
    return p


def projection(call: cst.Call) -> bool:
    """``map(lambda x, y: x)``, ``map(lambda d: (d["image"], d["label"]))``,
    ``map(lambda x, y: (x[:, :n], y))``: the function only picks parts of each
    element (fields, or a slice whose bounds are literals or names), no
    computation, so a prefetch before it still hands the consumer ready elements."""
    if not call.args or not isinstance(call.args[0].value, cst.Lambda):
        return False
    func = call.args[0].value
    params = {p.name.value for p in func.params.params}

    def picked(node) -> bool:
        if isinstance(node, cst.Name):
            return node.value in params
        if isinstance(node, (cst.Tuple, cst.List)):
            return all(picked(e.value) for e in node.elements)
        if isinstance(node, cst.Dict):
            return all(isinstance(e, cst.DictElement) and picked(e.value) for e in node.elements)
        if isinstance(node, cst.Subscript):
            return all(_picks(e.slice) for e in node.slice) and picked(node.value)
        return False

    return picked(func.body)


def _picks(index) -> bool:
    """``["image"]``, ``[0]``, ``[a:b:c]`` with each bound absent, a literal
    integer or a name: a part of the element, no computation."""
    if isinstance(index, cst.Index):
        return isinstance(index.value, (cst.SimpleString, cst.Integer))
    return isinstance(index, cst.Slice) and all(
        bound is None or isinstance(bound, (cst.Integer, cst.Name))
        for bound in (index.lower, index.upper, index.step)
    )


def _fold_apply(p: Pipeline, step: Step) -> Pipeline:
    if step.applies is not None:  # tf.data.experimental.X(...)
        work = p.work or step.work.what
        if step.applies is Role.BATCH:
            return replace(
                p,
                batched=True,
                batch_size=None,
                batch_call=step.call,
                prefetched=step.ahead,
                work=work,
            )
        if step.applies is Role.PREFETCH:
            return replace(p, prefetched=True)
        return replace(p, work=work)
    if len(step.applied) == 1:  # a function of this module, replayed on this pipeline
        return replace(replay(p, step.applied[0].steps), last=step.call)
    return replace(p, unknown=True)


def parallel_step(call: cst.Call, method: str) -> bool:
    """``map(f, num_parallel_calls=...)`` (also positional, or ``deterministic=``,
    which only a parallel step takes): the step runs on several threads."""
    if any(a.star for a in call.args):
        return True  # unknown: assume the best
    if any(
        a.keyword is not None and a.keyword.value in tfdata.PARALLEL_KEYWORDS for a in call.args
    ):
        return True
    positional = [a for a in call.args if a.keyword is None]
    return len(positional) >= tfdata.PARALLEL_POSITION.get(method, 2)


def _limit_after(limit: Optional[int], step: Step) -> Optional[int]:
    """Upper bound on the elements after ``step``, from its literal count."""
    count, role = step.count, step.role
    if role is Role.TAKE and count is not None and count >= 0:
        return count if limit is None else min(limit, count)
    if role is Role.REPEAT:
        return limit * count if limit is not None and count is not None else None
    if role is Role.BATCH and step.method == "batch" and limit is not None and count:
        return -(-limit // count)
    if role in (Role.UNBATCH, Role.APPLY) or step.method in tfdata.UNCOUNTED_STEPS:
        return None
    return limit


def autotune_expr(ctx) -> Optional[str]:
    """``tf.data.AUTOTUNE`` spelled with the module's own TensorFlow alias.

    ``data.experimental.AUTOTUNE`` (which TF1 releases and TF 2.0-2.3 have
    too) when the file already spells it so, and in TF1-style code
    (``tf.compat.v1``, ``tf.Session``, ``tf.placeholder``, ``tf.contrib``).
    None when TensorFlow is not imported as a module.
    """
    alias = None
    for local, target in ctx.imports.aliases.items():
        if target in ("tensorflow", "tensorflow.compat.v2", "tensorflow.compat.v1"):
            if alias is None or target == "tensorflow":
                alias = (local, target)
    if alias is None:
        return None
    local, _ = alias
    source = ctx.source
    old = "data.experimental.AUTOTUNE" in source and "data.AUTOTUNE" not in source.replace(
        "data.experimental.AUTOTUNE", ""
    )
    if old or ctx.shared(TfStyle).tf1:
        return f"{local}.data.experimental.AUTOTUNE"
    return f"{local}.data.AUTOTUNE"
