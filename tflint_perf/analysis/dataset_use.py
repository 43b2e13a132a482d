"""Where a ``tf.data`` pipeline goes: consumed by training, or only looked at.

Notebooks and tutorials build pipelines to look at them: a record printed,
``take(1)``, a few elements plotted. The cost of producing an element
matters only where a workload consumes the pipeline: Keras ``fit``/
``evaluate``/``predict``, a loop whose body runs training or inference
steps, an iterator read by such a loop, a TF1 iterator read by a
``sess.run`` loop or returned from an Estimator ``input_fn``.

``DatasetUse(ctx)`` (one per file) answers, on the semantic model:

- ``consumptions()``: every place the module consumes a value as data (the
  data arguments of Keras' data methods, ``for`` loops and comprehensions,
  ``iter()``, TF1 iterators); the rules ask ``Pipelines`` what each holds;
- ``uses(expr)``: where the value of ``expr`` goes next, forward, through
  pipeline steps, names (their references), the parameters of the module's
  functions and their returns;
- ``step_evidence(loop)``: why a loop runs training or inference steps
  (the effects of its calls, through the module's functions: summaries);
- ``bulk(use)`` / ``trains(use)``: whether a use produces many elements for
  real work, and whether it feeds training or inference steps.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Dict, List, Optional, Tuple

from tflint_perf.analysis.api import Effect, Kind, tfdata
from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.display import shown_each_iteration
from tflint_perf.analysis.estimates import clip
from tflint_perf.analysis.semantic import COMPREHENSIONS, BindingKind, SemanticModel
from tflint_perf.analysis.summaries import Summaries
from tflint_perf.analysis.trips import TINY, Trips
from tflint_perf.analysis.values import Values
from tflint_perf.engine import cst
from tflint_perf.engine.nodes import is_true
from tflint_perf.engine.walk import descendants

# What a loop body must do to be a step loop: train, update, compute gradients,
# run inference, or run a TF1 graph.
STEP_EFFECTS = (
    Effect.TRAINING | Effect.UPDATE | Effect.GRADIENTS | Effect.INFERENCE | Effect.RUNS_GRAPH
)
TRAIN_EFFECTS = Effect.TRAINING | Effect.UPDATE | Effect.GRADIENTS | Effect.RUNS_GRAPH
_DEPTH = 8


class UseKind(enum.Enum):
    FIT = "fit"  # data of Keras fit / evaluate / predict
    LOOP = "loop"  # iterated by a ``for`` loop or a comprehension
    ITERATOR = "iterator"  # ``iter(ds)``, ``ds.as_numpy_iterator()``: see the iterator's uses
    NEXT = "next"  # ``next(it)``: one element per call
    TF1_ITERATOR = "tf1 iterator"  # ``make_one_shot_iterator``: read by ``sess.run``
    INPUT_FN = "input_fn"  # returned by a function an Estimator calls for its data
    LOOK = "look"  # printed, displayed, measured, discarded, never read
    RETURNED = "returned"  # returned where no module code calls the function
    OTHER = "other"  # passed somewhere the linter cannot follow


@dataclass(frozen=True)
class Use:
    kind: UseKind
    site: cst.CSTNode  # the Keras call, the loop, the iter()/next() call ...
    taken: Optional[int] = None  # a ``take(k)`` on the way
    via: Tuple[cst.CSTNode, ...] = ()  # calls of the module's functions it went through
    options: Tuple[cst.BaseExpression, ...] = ()  # ``with_options(o)`` on the way


@dataclass(frozen=True)
class Consumption:
    kind: UseKind  # FIT, LOOP, ITERATOR, TF1_ITERATOR or INPUT_FN
    site: cst.CSTNode  # the Keras call, the loop, the iter() or iterator call
    data: cst.BaseExpression  # the expression consumed


class DatasetUse:
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self.graph: CallGraph = ctx.shared(CallGraph)
        self.values: Values = ctx.shared(Values)
        self.trips: Trips = ctx.shared(Trips)
        self._summaries: Optional[Summaries] = None
        self._uses: Dict[cst.CSTNode, Tuple[Use, ...]] = {}
        self._evidence: Dict[cst.CSTNode, Optional[str]] = {}
        self._consumptions: Optional[List[Consumption]] = None

    @property
    def summaries(self) -> Summaries:
        if self._summaries is None:
            self._summaries = self.ctx.shared(Summaries)
        return self._summaries

    # -- consumers ---------------------------------------------------------------------
    def consumptions(self) -> List[Consumption]:
        """Every place the module consumes a value as data, in source order."""
        if self._consumptions is None:
            found: List[Consumption] = []
            for call in self.ctx.nodes(cst.Call):
                found += self._consuming_call(call)
            for loop in self.ctx.nodes(cst.For):
                found.append(Consumption(UseKind.LOOP, loop, _unwrapped(loop.iter)))
            for comp in self.ctx.nodes(cst.CompFor):
                loop = self._comprehension(comp)
                found.append(Consumption(UseKind.LOOP, loop, _unwrapped(comp.iter)))
            self._consumptions = found
        return self._consumptions

    def _consuming_call(self, call: cst.Call) -> List[Consumption]:
        given = [
            a.value
            for a in call.args
            if a.keyword is not None and a.keyword.value in tfdata.INPUT_FN_KEYWORDS
        ]
        if given:
            return [
                Consumption(UseKind.INPUT_FN, call, data)
                for fn in given
                for data in self._returned_by(fn, 0)
            ]
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in tfdata.KERAS_DATA_METHODS:
            return [Consumption(UseKind.FIT, call, a) for a in keras_data_args(call)]
        if self.ctx.call_name(call) in tfdata.TF1_ITERATOR_FUNCTIONS:
            return (
                [Consumption(UseKind.TF1_ITERATOR, call, call.args[0].value)] if call.args else []
            )
        if isinstance(func, cst.Attribute) and func.attr.value in tfdata.TF1_ITERATOR_METHODS:
            return [Consumption(UseKind.TF1_ITERATOR, call, func.value)]
        if _takes_into_iterator(call) and call.args:
            return [Consumption(UseKind.TF1_ITERATOR, call, call.args[0].value)]
        if _builtin(call, "iter") and len(call.args) == 1:
            return [Consumption(UseKind.ITERATOR, call, call.args[0].value)]
        return []

    # -- forward: where a value goes -------------------------------------------------------
    def uses(self, node: cst.CSTNode, depth: int = 0) -> Tuple[Use, ...]:
        """Where the value of ``node`` goes next (see the module docstring)."""
        known = self._uses.get(node)
        if known is None:
            self._uses[node] = ()  # a cycle through returns and parameters ends here
            known = self._uses[node] = tuple(self._forward(node, depth))
        return known

    def _forward(self, node: cst.CSTNode, depth: int) -> List[Use]:
        taken: Optional[int] = None
        options: Tuple[cst.BaseExpression, ...] = ()
        while True:  # climb the pipeline steps applied to it
            parent = self.ctx.parent(node)
            if not (isinstance(parent, cst.Attribute) and parent.value is node):
                break
            call = self.ctx.parent(parent)
            method = parent.attr.value
            if not (isinstance(call, cst.Call) and call.func is parent):
                kind = UseKind.LOOK if method in tfdata.LOOK_METHODS else UseKind.OTHER
                return [Use(kind, parent)]
            role = tfdata.STEPS.get(method)
            if role is tfdata.Role.TAKE:
                count = self.trips.number(call.args[0].value) if call.args else None
                if count is not None:
                    taken = count if taken is None else min(taken, count)
            elif method == tfdata.OPTIONS_STEP and call.args:
                options += (call.args[0].value,)
            elif role is None:
                return [self._method_use(call, method)]
            node = call
        return [
            replace(u, taken=_min(u.taken, taken), options=options + u.options)
            for u in self._context(node, depth)
        ]

    def _returned_by(self, fn: cst.BaseExpression, depth: int) -> List[cst.BaseExpression]:
        """What calling ``fn`` gives: a lambda's body, the returns of the function a
        name denotes, or of the one a factory of the module returns (``input_fn =
        make_input_fn(path)``)."""
        if depth > _DEPTH:
            return []
        if isinstance(fn, cst.Lambda):
            return [fn.body]
        if isinstance(fn, cst.Call):
            return [
                r
                for factory in self.graph.resolve(fn)
                for made in self._returns(factory)
                for r in self._returned_by(made, depth + 1)
            ]
        if isinstance(fn, (cst.Name, cst.Attribute)):
            defs = self.graph.refers_to(fn)
            if defs:
                return [r for func in defs for r in self._returns(func)]
            value = self.sem.value_of(fn)
            return self._returned_by(value, depth + 1) if value is not None else []
        return []

    def _returns(self, func: cst.FunctionDef) -> List[cst.BaseExpression]:
        return [r.value for r in self.values.returns(func) if r.value is not None]

    def _comprehension(self, comp: cst.CompFor) -> cst.CSTNode:
        return next((a for a in self.ctx.ancestors_of(comp) if isinstance(a, COMPREHENSIONS)), comp)

    def _method_use(self, call: cst.Call, method: str) -> Use:
        if method in tfdata.LOOK_METHODS:
            return Use(UseKind.LOOK, call)
        if method in tfdata.TF1_ITERATOR_METHODS:
            return Use(UseKind.TF1_ITERATOR, call)
        if method in tfdata.ITERATOR_METHODS:
            return Use(UseKind.ITERATOR, call)
        return Use(UseKind.OTHER, call)

    def _context(self, node: cst.CSTNode, depth: int) -> List[Use]:
        parent = self.ctx.parent(node)
        if isinstance(parent, cst.Expr):
            return [Use(UseKind.LOOK, parent)]  # displayed (a cell's last line) or discarded
        if isinstance(parent, cst.For) and parent.iter is node:
            return [Use(UseKind.LOOP, parent)]
        if isinstance(parent, cst.CompFor) and parent.iter is node:
            return [Use(UseKind.LOOP, self._comprehension(parent))]
        if isinstance(parent, cst.Arg) and parent.value is node:
            call = self.ctx.parent(parent)
            if isinstance(call, cst.Call):
                return self._argument(call, parent, depth)
        if isinstance(parent, (cst.Assign, cst.AnnAssign)) and parent.value is node:
            return self._assigned(parent, depth)
        if isinstance(parent, cst.Return):
            func = self.sem.function_of(parent)
            callers = self.graph.callers(func) if func is not None else []
            if not callers or depth > _DEPTH:
                return [Use(UseKind.RETURNED, parent)]
            return [_via(u, call) for call in callers for u in self.uses(call, depth + 1)]
        return [Use(UseKind.OTHER, parent or node)]

    def _argument(self, call: cst.Call, arg: cst.Arg, depth: int) -> List[Use]:
        name = call.func.value if isinstance(call.func, cst.Name) else None
        if name in tfdata.ITERABLE_WRAPPERS:
            return list(self.uses(call, depth))
        if name == "iter":
            return [Use(UseKind.ITERATOR, call)]
        if name == "next":
            return [Use(UseKind.NEXT, call)]
        if name in tfdata.LOOK_CALLS:
            return [Use(UseKind.LOOK, call)]
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in tfdata.KERAS_DATA_METHODS:
            if any(a is arg.value for a in keras_data_args(call)):
                return [Use(UseKind.FIT, call)]
        if self.ctx.call_name(call) in tfdata.TF1_ITERATOR_FUNCTIONS or _takes_into_iterator(call):
            return [Use(UseKind.TF1_ITERATOR, call)]
        if isinstance(func, cst.Attribute) and func.attr.value in tfdata.STEPS:
            return list(self.uses(call, depth))  # ds.concatenate(other), zip sources
        out: List[Use] = []
        for target in self.graph.resolve(call) if depth <= _DEPTH else []:
            for param in self._parameters(call, target, arg.value):
                out += [
                    _via(u, call)
                    for r in self.sem.references(param)
                    for u in self.uses(r, depth + 1)
                ]
        return out if out else [Use(UseKind.OTHER, call)]

    def _parameters(self, call: cst.Call, target: cst.FunctionDef, value):
        scope = self.sem.scope(target)
        for name, bindings in scope.bindings.items():
            for binding in bindings:
                if binding.kind is BindingKind.PARAMETER and (
                    self.graph.argument(call, target, name) is value
                ):
                    yield binding

    def _assigned(self, statement, depth: int) -> List[Use]:
        targets = (
            [t.target for t in statement.targets]
            if isinstance(statement, cst.Assign)
            else [statement.target]
        )
        out: List[Use] = []
        found = False
        for binding in self.sem.bindings_of(statement):
            if binding.kind is not BindingKind.ASSIGNMENT:
                continue
            # the target itself, or a name it unpacks (``x, y = sess.run([a, b])``)
            if not any(binding.node is t or self.ctx.contains(t, binding.node) for t in targets):
                continue
            if "." in binding.name:
                return [Use(UseKind.OTHER, statement)]  # self.ds = ...: read anywhere
            found = True
            for read in self.sem.references(binding):
                out += self.uses(read, depth + 1)
        return out if found else [Use(UseKind.OTHER, statement)]  # never read: never iterated

    # -- what a use means ---------------------------------------------------------------
    def parallelizes_maps(self, use: Use) -> bool:
        """Options on the way set ``experimental_optimization.map_parallelization = True``."""
        return any(self._sets_map_parallelization(o) for o in use.options)

    def _sets_map_parallelization(self, options: cst.BaseExpression) -> bool:
        first, last = tfdata.MAP_PARALLELIZATION
        for binding in self.sem.lookup_name(options):
            for read in self.sem.references(binding):
                inner = self.ctx.parent(read)
                outer = self.ctx.parent(inner) if isinstance(inner, cst.Attribute) else None
                if not (
                    isinstance(inner, cst.Attribute)
                    and inner.attr.value == first
                    and isinstance(outer, cst.Attribute)
                    and outer.value is inner
                    and outer.attr.value == last
                ):
                    continue
                target = self.ctx.parent(outer)
                statement = self.ctx.parent(target)
                if (
                    isinstance(target, cst.AssignTarget)
                    and isinstance(statement, cst.Assign)
                    and is_true(statement.value)
                ):
                    return True
        return False

    def bulk(self, use: Use) -> bool:
        """The use produces many elements for work (not a look, not a peek)."""
        kind = use.kind
        if use.taken is not None and use.taken <= TINY:
            return False
        if kind is UseKind.LOOP:
            if self.runs_once(use.site) or self.prints_only(use.site):
                return False
            return not self.display_loop(use.site) or self.step_evidence(use.site) is not None
        if kind is UseKind.ITERATOR:
            return any(self.bulk(u) for u in self.uses(use.site))
        if kind is UseKind.NEXT:  # read again and again, or by training steps
            return any(
                not self.trips.of(loop).tiny or self.step_evidence(loop) is not None
                for node in (use.site, *use.via)
                for loop in self.trips.loops_around(node)
            )
        if kind is UseKind.TF1_ITERATOR:  # read by runs here: a step loop, or given away
            if self.session_loop(use.site) or self.flows_to_return(use.site):
                return True
            return not self._runs_graph_near(use.site)
        return kind not in (UseKind.LOOK,)

    def trains(self, use: Use) -> Optional[str]:
        """Why ``use`` feeds training or inference steps (None: it does not, or unknown)."""
        if use.taken is not None and use.taken <= TINY:
            return None
        kind = use.kind
        if kind is UseKind.FIT:
            return f"passed to `{_method(use.site)}()`"
        if kind is UseKind.LOOP:
            if self.runs_once(use.site) or self.display_loop(use.site):
                return None  # one element, or a viewer's pace
            why = self.step_evidence(use.site)
            return f"iterated by a loop that {why}" if why is not None else None
        if kind is UseKind.ITERATOR:
            return next((w for w in map(self.trains, self.uses(use.site)) if w), None)
        if kind is UseKind.NEXT:  # in a loop, or in a function a loop calls
            for node in (use.site, *use.via):
                for loop in self.trips.loops_around(node):
                    why = self.step_evidence(loop)
                    if why is not None and not self.trips.of(loop).tiny:
                        return f"read by `next()` in a loop that {why}"
        return None

    def session_loop(self, site: cst.CSTNode) -> bool:
        """A loop in the function (or module code) of ``site`` runs steps: what reads
        a TF1 iterator (``sess.run``). A loop of a handful of iterations counts only
        when it does more with its runs than print them (a look at a few batches)."""
        home = self.sem.function_of(site)
        for loop in [*self.ctx.nodes(cst.For), *self.ctx.nodes(cst.While)]:
            if self.sem.function_of(loop) is not home or self.step_evidence(loop) is None:
                continue
            if self.ctx.span(loop)[1] < self.ctx.span(site)[0]:
                continue  # over before the iterator is made (a notebook's earlier cell)
            if self.runs_only_shown(loop):
                continue  # every element fetched is printed: a look at the data
            if not self.trips.of(loop).tiny or self._runs_used(loop):
                return True
        return False

    def runs_only_shown(self, loop: cst.CSTNode) -> bool:
        """Every TF1 graph run in ``loop`` has its result kept, every part of it read,
        and only printed or shown (a run whose result, or part of it, is dropped is a
        step run for its effect)."""
        runs = self._graph_runs(loop)
        if not runs:
            return False
        for run in runs:
            parent = self.ctx.parent(run)
            if isinstance(parent, cst.Expr):
                return False  # dropped: ``sess.run(train_op)`` runs for its effect
            if isinstance(parent, cst.Assign):
                kept = [b for b in self.sem.bindings_of(parent) if b.kind is BindingKind.ASSIGNMENT]
                if not kept or any(not self.sem.references(b) for b in kept):
                    return False  # ``_, loss = sess.run([train_op, loss])``: a step for its effect
            found = self.uses(run)
            if not found or any(u.kind is not UseKind.LOOK for u in found):
                return False
        return True

    def _runs_used(self, loop: cst.CSTNode) -> bool:
        """A TF1 graph run in ``loop`` whose result is used beyond a printout."""
        return any(
            any(u.kind is not UseKind.LOOK for u in self.uses(run))
            for run in self._graph_runs(loop)
        )

    def _graph_runs(self, loop: cst.CSTNode) -> List[cst.Call]:
        """The calls in ``loop``'s body that run a TF1 graph."""
        body = loop.body if isinstance(loop, (cst.For, cst.While)) else loop
        return [
            node
            for node in descendants(body, skip_scopes=True)
            if isinstance(node, cst.Call)
            and self.summaries.direct_effects(node) & Effect.RUNS_GRAPH
        ]

    def _runs_graph_near(self, site: cst.CSTNode) -> bool:
        """The function (or module code) of ``site`` runs a TF1 graph somewhere."""
        home = self.sem.function_of(site)
        return any(
            self.summaries.direct_effects(call) & Effect.RUNS_GRAPH
            for call in self.graph.calls_in(home)
        )

    def display_loop(self, loop: cst.CSTNode) -> bool:
        """A loop whose body plots or shows each element: a viewer's pace."""
        body = loop.body if isinstance(loop, cst.For) else loop
        return shown_each_iteration(self.ctx, body)

    def prints_only(self, loop: cst.CSTNode) -> bool:
        """A ``for`` loop whose body only prints (``print(x.numpy())``): a look at
        the elements, at whatever pace the console takes them."""
        if not isinstance(loop, cst.For) or not isinstance(loop.body, cst.IndentedBlock):
            return False
        for statement in loop.body.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                return False
            for small in statement.body:
                call = small.value if isinstance(small, cst.Expr) else None
                if not (isinstance(call, cst.Call) and self._logs(call)):
                    return False
        return True

    def _logs(self, call: cst.Call) -> bool:
        """A call of the builtin ``print`` (the module's own ``print`` is not)."""
        func = call.func
        return (
            isinstance(func, cst.Name)
            and func.value in tfdata.LOG_CALLS
            and not self.sem.lookup_name(func)
        )

    def runs_once(self, loop: cst.CSTNode) -> bool:
        """A ``for`` loop whose body ends with an unconditional ``break``: one element."""
        if not isinstance(loop, cst.For) or not isinstance(loop.body, cst.IndentedBlock):
            return False
        last = loop.body.body[-1] if loop.body.body else None
        return isinstance(last, cst.SimpleStatementLine) and any(
            isinstance(small, cst.Break) for small in last.body
        )

    def step_evidence(self, loop: cst.CSTNode) -> Optional[str]:
        """Why ``loop`` runs training or inference steps: a call whose effects (itself
        or through the module's functions) train, update, compute gradients, infer or
        run a TF1 graph; a step method of TF/Keras on any receiver; a function of the
        module with such effects handed to a call (``strategy.run(train_step)``)."""
        if loop not in self._evidence:
            self._evidence[loop] = self._step_evidence(loop)
        return self._evidence[loop]

    def _step_evidence(self, loop: cst.CSTNode) -> Optional[str]:
        region = loop.body if isinstance(loop, (cst.For, cst.While)) else loop
        for node in descendants(region, skip_scopes=True):
            if not isinstance(node, cst.Call):
                continue
            shown = clip(self.ctx.code(node.func))
            if self.summaries.effects_of(node) & STEP_EFFECTS or self.keras_call(node):
                return f"calls `{shown}()`"
            if isinstance(node.func, cst.Attribute) and node.func.attr.value in tfdata.STEP_METHODS:
                return f"calls `{shown}()`"
            for arg in node.args:
                for func in self._functions(arg.value):
                    if self.summaries.of(func).effects & STEP_EFFECTS:
                        return f"runs `{func.name.value}()` through `{shown}()`"
        return None

    def _functions(self, expr: cst.BaseExpression) -> List[cst.FunctionDef]:
        if not isinstance(expr, cst.Name):
            return []
        return [
            b.statement
            for b in self.sem.lookup_name(expr)
            if b.kind is BindingKind.FUNCTION and isinstance(b.statement, cst.FunctionDef)
        ]

    def keras_call(self, call: cst.Call) -> bool:
        """``m.fit/evaluate/predict(...)`` on a Keras model: one by the value model, or
        an object of unknown kind given keywords only Keras takes (``epochs=``)."""
        func = call.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in tfdata.KERAS_DATA_METHODS:
            return False
        kind = self.values.kind(func.value)
        if kind is Kind.KERAS_MODEL:
            return True
        return kind is Kind.UNKNOWN and any(
            a.keyword is not None and a.keyword.value in tfdata.KERAS_ONLY_KEYWORDS
            for a in call.args
        )

    def flows_to_return(self, node: cst.CSTNode, depth: int = 0) -> bool:
        """The value of ``node``, or one built from it (``it.get_next()``, a dict of its
        items), is returned by its function: an Estimator ``input_fn``."""
        if depth > _DEPTH:
            return False
        child, parent = node, self.ctx.parent(node)
        while isinstance(
            parent,
            (
                cst.Attribute,
                cst.Call,
                cst.Subscript,
                cst.Arg,
                cst.Element,
                cst.DictElement,
                cst.Tuple,
                cst.List,
                cst.Dict,
            ),
        ):
            if isinstance(parent, cst.Call) and parent.func is not child:
                if self.graph.resolve(parent):
                    break  # passed to a function of the module: not followed
                if self.summaries.direct_effects(parent) & Effect.RUNS_GRAPH:
                    return False  # sess.run(batch): arrays fetched here, not the iterator
            child, parent = parent, self.ctx.parent(parent)
        if isinstance(parent, cst.Return):
            return True
        if isinstance(parent, (cst.Assign, cst.AnnAssign)) and parent.value is child:
            for binding in self.sem.bindings_of(parent):
                for read in self.sem.references(binding):
                    if self.flows_to_return(read, depth + 1):
                        return True
        return False


def keras_data_args(call: cst.Call) -> List[cst.BaseExpression]:
    """The data a Keras ``fit``/``evaluate``/``predict`` call iterates: its first
    positional argument, ``x=``, ``validation_data=``, ``generator=``."""
    out = []
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if positional:
        out.append(positional[0].value)
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in tfdata.DATA_KEYWORDS:
            out.append(arg.value)
    return out


def _unwrapped(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``enumerate(ds)``, ``tqdm(ds)``: the iterable inside."""
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.args:
        if expr.func.value not in tfdata.LOOP_WRAPPERS:
            break
        expr = expr.args[0].value
    return expr


def _builtin(call: cst.Call, name: str) -> bool:
    return isinstance(call.func, cst.Name) and call.func.value == name


def _method(call: cst.CSTNode) -> str:
    func = call.func if isinstance(call, cst.Call) else None
    return func.attr.value if isinstance(func, cst.Attribute) else "fit"


def _via(use: Use, call: cst.CSTNode) -> Use:
    return replace(use, via=(call,) + use.via)


def _min(a: Optional[int], b: Optional[int]) -> Optional[int]:
    if a is None:
        return b
    return a if b is None else min(a, b)


def _takes_into_iterator(call: cst.Call) -> bool:
    """``iterator.make_initializer(ds)``: a TF1 iterator set to read ``ds``."""
    func = call.func
    return isinstance(func, cst.Attribute) and func.attr.value in tfdata.TF1_ITERATOR_TAKERS
