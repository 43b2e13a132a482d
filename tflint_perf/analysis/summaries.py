"""What each function of a module does that the rules care about.

A *summary* says, for one function or method: its effects (Keras
inference, training, gradient updates, construction of models, layers,
optimizers or ``tf.function``s, TF1 graph growth, session runs, runtime
initialisation, I/O, display ...), which of its parameters each effect is
applied to (``act(s)`` runs inference on ``s``; through ``s.reshape(1, -1)``
that is one sample), the Python state it changes (``self.t += 1``, a
global, ``self.memory.append``), and the evidence: the chain of calls from
the function down to the node that does it (``act() -> predict_one() ->
brain.predict()``).

A call inherits its callee's summary through any depth of wrappers in the
module, ``self.method()`` and the class hierarchy (an override counts), and
callables passed as arguments; summaries are propagated to a fixed point.
``Summaries(ctx)`` is one per file (``ctx.shared(Summaries)``);
``effects_of(call)`` gives what one call does, through its callees.

In a module that builds TF1 graphs (it uses a session or turns eager
execution off: ``graph_evidence``), every TensorFlow op call adds nodes to
the default graph (GRAPH_GROWTH), and ``x.run(...)``/``x.eval(...)`` on a
value whose kind the model cannot tell, or a method given the session
(``saver.save(sess, path)``), runs the graph (RUNS_GRAPH; the session is
often a parameter or an attribute set elsewhere).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from tflint_perf.analysis import api
from tflint_perf.analysis.api import Effect, Kind, keras, others
from tflint_perf.analysis.api.steps import (
    GRAPH_MODE_SWITCHES,
    GRAPH_ONLY,
    NEW_GRAPHS,
    SESSION_RUN_METHODS,
    VARIABLE_ASSIGNS,
)
from tflint_perf.analysis.calls import CallGraph, external_argument
from tflint_perf.analysis.first_call import FirstCall
from tflint_perf.analysis.samples import batch_of_one
from tflint_perf.analysis.semantic import BindingKind, SemanticModel
from tflint_perf.analysis.symbolic import symbolic
from tflint_perf.analysis.values import Values
from tflint_perf.engine import cst
from tflint_perf.engine.walk import descendants

# Effects that follow the data they are applied to (which parameter).
DATA_EFFECTS = (Effect.INFERENCE, Effect.TRAINING)
_MAX_ROUNDS = 50
# What a TensorFlow call returns when it is an op (in graph mode: a new node).
_OP_KINDS = (Kind.TENSOR, Kind.GRAPH_OP, Kind.VARIABLE)
# Every method name the API table gives facts for, of any kind, and those
# graph mode reads on a receiver of unknown kind.
_TABLED_METHODS = frozenset(
    {name for table in api.tables.METHODS.values() for name in table}
    | set(SESSION_RUN_METHODS)
    | set(VARIABLE_ASSIGNS)
)
# What a block run on the first call only builds once (``if self.op is None:``).
ONCE_BUILT = Effect.BUILDS | Effect.GRAPH_GROWTH


@dataclass(frozen=True)
class Use:
    """An effect applied to a value computed from a parameter."""

    path: Tuple[cst.CSTNode, ...]  # calls from the function down to the node doing it
    sample: Optional[cst.CSTNode] = None  # the expression making it one sample, if any


@dataclass
class Summary:
    func: Optional[cst.FunctionDef]  # None: the module's own code
    effects: Effect = Effect.NONE
    evidence: Dict[Effect, Tuple[cst.CSTNode, ...]] = field(default_factory=dict)
    # effect -> parameter name -> how it reaches it
    uses: Dict[Effect, Dict[str, Use]] = field(default_factory=dict)
    # Python state changed: (path to the statement, what is changed)
    mutations: List[Tuple[Tuple[cst.CSTNode, ...], str]] = field(default_factory=list)

    def evidence_for(self, effect: Effect) -> Tuple[cst.CSTNode, ...]:
        for flag, path in self.evidence.items():
            if flag & effect:
                return path
        return ()

    def _key(self) -> tuple:
        return (
            self.effects,
            tuple(sorted((e.value, tuple(sorted(p))) for e, p in self.uses.items())),
            len(self.mutations),
        )


class Summaries:
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self.values: Values = ctx.shared(Values)
        self.graph: CallGraph = ctx.shared(CallGraph)
        self._summaries: Dict[cst.FunctionDef, Summary] = {}
        self._direct: Dict[cst.Call, Tuple[Effect, Optional[cst.BaseExpression]]] = {}
        # The calls that show graph code; graph mode when there are any.
        self.graph_calls: List[cst.Call] = graph_evidence(ctx)
        self.graph_mode = bool(self.graph_calls)
        self.first_call: FirstCall = ctx.shared(FirstCall)
        self._solve()

    def of(self, func: cst.FunctionDef) -> Summary:
        return self._summaries.get(func) or Summary(func)

    # -- one call ----------------------------------------------------------------
    def direct_effects(self, call: cst.Call) -> Effect:
        """What ``call`` itself does, by the API table (not through module functions)."""
        return self._direct_of(call)[0]

    def effects_of(self, call: cst.Call) -> Effect:
        """What ``call`` does, itself and through the module functions it runs."""
        effects = self.direct_effects(call)
        for target in self.graph.resolve(call):
            effects |= self.of(target).effects
        return effects

    def external_uses(self, call: cst.Call, params: Set[str]) -> Dict[Effect, Dict[str, Use]]:
        """What a call of another module's function does to this function's
        parameters (``params``): inference or training on a value computed from
        them, and whether the callee makes it one sample."""
        facts = self.graph.external(call)
        out: Dict[Effect, Dict[str, Use]] = {}
        if facts is None:
            return out
        for flag in DATA_EFFECTS:
            for param, info in facts.get("uses", {}).get(flag.name, {}).items():
                arg = external_argument(call, facts, param)
                if arg is None:
                    continue
                sample = (
                    call
                    if info.get("one_sample")
                    else batch_of_one(self.ctx, arg, self.sem.value_of)
                )
                for mine in self.params_reached(arg, params):
                    out.setdefault(flag, {}).setdefault(mine, Use((call,), sample))
        return out

    def returned_pipelines(self, func: cst.FunctionDef) -> tuple:
        """The ``tf.data`` pipelines ``func`` returns (``analysis/datasets.py``): each
        with its facts (batched, prefetched, per-element work ...), or one of its
        parameters with the steps it applies to it (replayed on what a caller
        passes). The summary fact for a pipeline built in one place and consumed in
        another."""
        from tflint_perf.analysis.datasets import Pipelines

        return self.ctx.shared(Pipelines).returned(func)

    def path_to(self, call: cst.Call, effect: Effect) -> Tuple[cst.CSTNode, ...]:
        """The chain of calls from ``call`` to the node that has ``effect``."""
        if self.direct_effects(call) & effect:
            return (call,)
        for target in self.graph.resolve(call):
            inner = self.of(target).evidence_for(effect)
            if inner:
                return (call,) + inner
        return ()

    def _direct_of(self, call: cst.Call) -> Tuple[Effect, Optional[cst.BaseExpression]]:
        """(effects, the data argument) of a call by the API table."""
        known = self._direct.get(call)
        if known is None:
            known = self._direct[call] = self._classify(call)
        return known

    def _classify(self, call: cst.Call) -> Tuple[Effect, Optional[cst.BaseExpression]]:
        facts = self.graph.external(call)
        if facts is not None:
            effects = effects_of(facts)
            used = next(
                (p for f in DATA_EFFECTS for p in facts.get("uses", {}).get(f.name, {})),
                None,
            )
            return effects, external_argument(call, facts, used) if used else None
        qualname = self.ctx.call_name(call)
        if qualname is not None:
            effects = api.effects(qualname) | self._construction(qualname, call)
            if self.graph_mode and qualname.startswith("tensorflow."):
                if api.returns(qualname) in _OP_KINDS:
                    effects |= Effect.GRAPH_GROWTH
            return effects, None
        func = call.func
        if self.graph.resolve(call):
            return Effect.NONE, None  # the module's own function runs: its summary says
        if isinstance(func, cst.Attribute):
            if func.attr.value not in _TABLED_METHODS:
                # No kind has a method of this name: no receiver does anything
                # (most calls: ``xs.append``), so its kind is not worked out.
                if self.graph_mode and self._given_a_session(call):
                    return Effect.RUNS_GRAPH, None
                return Effect.NONE, None
            receiver = self.values.kind(func.value)
            if receiver is Kind.UNKNOWN and func.attr.value in keras.KERAS_ONLY_METHODS:
                receiver = Kind.KERAS_MODEL  # a name guess (api/keras.py says why)
            effects = api.method_effects(receiver, func.attr.value)
            if self.graph_mode:
                effects |= _graph_method(receiver, func.attr.value)
                if self._given_a_session(call):
                    effects |= Effect.RUNS_GRAPH  # ``saver.save(sess, path)``
            if effects & (Effect.INFERENCE | Effect.TRAINING):
                return effects, data_argument(call)
            return effects, None
        if self.values.kind(func) is Kind.KERAS_MODEL:
            data = data_argument(call)
            if symbolic(self.ctx, data):
                return Effect.NONE, None  # wiring a functional model: nothing runs
            return api.method_effects(Kind.KERAS_MODEL, "__call__"), data
        if self._iterates_a_dataset(call):
            return Effect.INITS_RUNTIME, None
        return Effect.NONE, None

    def _given_a_session(self, call: cst.Call) -> bool:
        return any(self.values.kind(a.value) is Kind.SESSION for a in call.args)

    def _construction(self, qualname: str, call: cst.Call) -> Effect:
        """A Keras model built as it is constructed starts the runtime: a
        Sequential given its input, a functional ``Model(inputs, outputs)``."""
        if qualname in keras.SEQUENTIAL and self._declares_input(call):
            return Effect.INITS_RUNTIME
        if qualname in keras.FUNCTIONAL and call.args:
            first = call.args[0]
            if first.keyword is None or first.keyword.value == "inputs":
                return Effect.INITS_RUNTIME
        return Effect.NONE

    def _declares_input(self, call: cst.Call) -> bool:
        for node in descendants(call):
            if isinstance(node, cst.Arg) and node.keyword is not None:
                if node.keyword.value in keras.INPUT_KEYWORDS:
                    return True
            elif isinstance(node, cst.Call) and self.ctx.call_name(node) in keras.INPUT_LAYERS:
                return True
        return False

    def _iterates_a_dataset(self, call: cst.Call) -> bool:
        """``list(ds)``, ``next(iter(ds))``: a builtin that runs a pipeline."""
        func = call.func
        if not (isinstance(func, cst.Name) and func.value in others.ITERATING_BUILTINS):
            return False
        if self.sem.lookup_name(func):
            return False  # the module's own ``list``
        return any(
            arg.keyword is None and self.values.kind(arg.value) in (Kind.DATASET, Kind.ITERATOR)
            for arg in call.args
        )

    # -- the fixed point ------------------------------------------------------------
    def _solve(self) -> None:
        functions = list(self.ctx.nodes(cst.FunctionDef))
        for func in functions:
            self._summaries[func] = self._local(func)
        for _ in range(_MAX_ROUNDS):
            changed = False
            for func in functions:
                summary = self._summaries[func]
                before = summary._key()
                self._inherit(summary)
                changed |= summary._key() != before
            if not changed:
                break

    def _local(self, func: cst.FunctionDef) -> Summary:
        """What the function's own body does (calls of the API, state changes)."""
        summary = Summary(func)
        params = _data_params(func)
        for call in self.graph.calls_in(func):
            effects, data = self._direct_of(call)
            if effects & ONCE_BUILT and self.first_call.guarded(call):
                effects &= ~ONCE_BUILT  # built on the first call and kept
            if not effects:
                continue
            summary.effects |= effects
            for flag in _flags(effects):
                summary.evidence.setdefault(flag, (call,))
            external = self.external_uses(call, params)
            for flag in DATA_EFFECTS:
                if flag in external:  # another module's function: its facts say
                    for param, use in external[flag].items():
                        summary.uses.setdefault(flag, {}).setdefault(param, use)
                elif effects & flag and data is not None:
                    sample = batch_of_one(self.ctx, data, self.sem.value_of)
                    for param in self.params_reached(data, params):
                        summary.uses.setdefault(flag, {}).setdefault(param, Use((call,), sample))
        if summary.effects & Effect.GRAPH_GROWTH and any(
            self.ctx.call_name(c) in NEW_GRAPHS for c in self.graph.calls_in(func)
        ):
            # Its ops go into a graph of its own (``with tf.Graph().as_default():``),
            # made anew on each call: no graph of its callers grows.
            summary.effects &= ~Effect.GRAPH_GROWTH
            summary.evidence.pop(Effect.GRAPH_GROWTH, None)
        summary.mutations = self._mutations(func)
        return summary

    def _inherit(self, summary: Summary) -> None:
        func = summary.func
        assert func is not None
        params = _data_params(func)
        for call in self.graph.calls_in(func):
            for target in self.graph.resolve(call):
                if target is func:
                    continue
                callee = self._summaries.get(target)
                if callee is None:
                    continue
                effects = callee.effects
                if effects & ONCE_BUILT and self.first_call.guarded(call):
                    effects &= ~ONCE_BUILT  # built on the first call and kept
                new = effects & ~summary.effects
                summary.effects |= effects
                for flag in _flags(new):
                    summary.evidence.setdefault(flag, (call,) + callee.evidence_for(flag))
                for flag, used in callee.uses.items():
                    for param, use in used.items():
                        arg = self.graph.argument(call, target, param)
                        if arg is None:
                            continue
                        sample = use.sample or batch_of_one(self.ctx, arg, self.sem.value_of)
                        for mine in self.params_reached(arg, params):
                            summary.uses.setdefault(flag, {}).setdefault(
                                mine, Use((call,) + use.path, sample)
                            )
                if callee.mutations and len(summary.mutations) < 20:
                    seen = {what for _, what in summary.mutations}
                    for path, what in callee.mutations:
                        if what not in seen:
                            summary.mutations.append(((call,) + path, what))

    # -- helpers -------------------------------------------------------------------
    def params_reached(self, expr: cst.CSTNode, params: Set[str]) -> Set[str]:
        """The parameters ``expr`` is computed from, through the function's own
        assignments (``x = s.reshape(1, -1)``; ``predict(x)`` reaches ``s``)."""
        out: Set[str] = set()
        todo = [expr]
        seen: Set[int] = set()
        while todo and len(seen) < 50:
            node = todo.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            for name in _name_nodes(node):
                if name.value in params:
                    for binding in self.sem.lookup_name(name):
                        if binding.kind is BindingKind.PARAMETER:
                            out.add(name.value)
                        elif binding.value is not None:
                            todo.append(binding.value)
                    continue
                for binding in self.sem.lookup_name(name):
                    if binding.scope.function is not None and binding.value is not None:
                        todo.append(binding.value)
                    elif binding.kind is BindingKind.LOOP_TARGET and binding.source is not None:
                        todo.append(binding.source)
        return out

    def _mutations(self, func: cst.FunctionDef) -> List[Tuple[Tuple[cst.CSTNode, ...], str]]:
        """Python state ``func`` changes that outlives the call: attributes of
        ``self`` (or of a parameter), globals and nonlocals, in-place changes of
        such objects (``self.memory.append``)."""
        out: List[Tuple[Tuple[cst.CSTNode, ...], str]] = []
        scope = self.sem.scope(func)
        params = {p.name.value for p in [*func.params.posonly_params, *func.params.params]}
        outer = scope.globals | scope.nonlocals
        for name, bindings in scope.bindings.items():
            root = name.split(".", 1)[0]
            for binding in bindings:
                if binding.kind is BindingKind.PARAMETER:
                    continue
                if "." in name and root in params:
                    if _changes_python_value(binding, self.values):
                        out.append(((binding.statement,), name))
                elif root in outer or (
                    binding.kind is BindingKind.MUTATION and not _local(scope, root)
                ):
                    out.append(((binding.statement,), name))
        for name in outer:
            for binding in self.sem.module_scope.bindings.get(name, ()):
                if binding.scope is self.sem.module_scope and self.ctx.contains(
                    func, binding.statement
                ):
                    out.append(((binding.statement,), name))
        return out


def graph_evidence(ctx) -> List[cst.Call]:
    """The calls that show the module builds TF1 graphs: turning eager execution off,
    a session, a placeholder (what only graph code has)."""
    return [
        call
        for call in ctx.nodes(cst.Call)
        if (qualname := ctx.call_name(call)) in GRAPH_MODE_SWITCHES
        or qualname in GRAPH_ONLY
        or api.returns(qualname) is Kind.SESSION
    ]


def graph_code_at(ctx, node: cst.CSTNode) -> bool:
    """Whether ``node`` may run as graph code: some evidence of it is not confined to
    the other branch of an ``if`` that holds ``node`` (``if eager: <tape loop> else:
    <placeholders and a session>``)."""
    calls = ctx.shared(Summaries).graph_calls
    return any(not _other_branch(ctx, call, node) for call in calls)


def _other_branch(ctx, one: cst.CSTNode, other: cst.CSTNode) -> bool:
    """``one`` and ``other`` never both run: they sit in the two arms of one ``if``, or
    under ``if mode == 'a'`` and ``if mode == 'b'`` (one name, two literals)."""
    for branch in ctx.ancestors_of(one):
        if not isinstance(branch, cst.If) or branch.orelse is None:
            continue
        arms = (branch.body, branch.orelse)
        here = [ctx.contains(arm, one) for arm in arms]
        there = [ctx.contains(arm, other) for arm in arms]
        if any(there) and here != there:
            return True
    mine, theirs = _selected(ctx, one), _selected(ctx, other)
    return any(name in theirs and theirs[name] != value for name, value in mine.items())


def _selected(ctx, node: cst.CSTNode) -> Dict[str, str]:
    """``name -> literal`` of the ``if name == 'literal':`` blocks that hold ``node``."""
    out: Dict[str, str] = {}
    for branch in ctx.ancestors_of(node):
        if not (isinstance(branch, cst.If) and ctx.contains(branch.body, node)):
            continue
        test = branch.test
        if (
            isinstance(test, cst.Comparison)
            and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.Equal)
            and isinstance(test.left, cst.Name)
            and isinstance(test.comparisons[0].comparator, (cst.SimpleString, cst.Integer))
        ):
            out.setdefault(test.left.value, test.comparisons[0].comparator.value)
    return out


def _graph_method(receiver: Kind, name: str) -> Effect:
    """In graph mode: ``sess.run``/``t.eval`` on an unknown receiver runs the
    graph; ``it.get_next()`` and ``v.assign(...)`` add ops."""
    if receiver is Kind.UNKNOWN and name in SESSION_RUN_METHODS:
        return Effect.RUNS_GRAPH
    if receiver is Kind.UNKNOWN and name in VARIABLE_ASSIGNS:
        return Effect.GRAPH_GROWTH  # ``target_var.assign(v)``: a variable of a collection
    facts = api.method(receiver, name)
    if facts is None:
        return Effect.NONE
    if receiver in (Kind.KERAS_MODEL, Kind.LAYER):
        # Keras caches the ops its updates run (``set_weights``: ``batch_set_value``);
        # only what the table says builds ops does (``cell.zero_state(n, dtype)``).
        return facts.effects & Effect.GRAPH_GROWTH
    if facts.effects & Effect.UPDATE or (
        receiver is Kind.ITERATOR and facts.returns is Kind.TENSOR
    ):
        return Effect.GRAPH_GROWTH
    return Effect.NONE


def _local(scope, name: str) -> bool:
    """``name`` is a local variable of ``scope`` (bound there other than by mutation)."""
    return any(b.kind is not BindingKind.MUTATION for b in scope.bindings.get(name, ()))


def data_argument(call: cst.Call) -> Optional[cst.BaseExpression]:
    """The data a Keras call runs on: its first positional argument, or ``x=``."""
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            return arg.value
        if arg.keyword is not None and arg.keyword.value in ("x", "inputs"):
            return arg.value
    return None


def effects_of(facts: dict) -> Effect:
    """The Effect flags an exported function's facts name."""
    out = Effect.NONE
    for name in facts.get("effects", ()):
        out |= Effect[name]
    return out


def _data_params(func: cst.FunctionDef) -> Set[str]:
    params = [*func.params.posonly_params, *func.params.params, *func.params.kwonly_params]
    return {p.name.value for p in params} - {"self", "cls"}


_FLAGS: Dict[Effect, Tuple[Effect, ...]] = {}  # _flags' answers: a few dozen combinations


def _flags(effects: Effect) -> Tuple[Effect, ...]:
    found = _FLAGS.get(effects)
    if found is None:
        found = _FLAGS[effects] = tuple(
            flag
            for flag in Effect
            if flag and flag in effects and flag.value & (flag.value - 1) == 0
        )
    return found


def _name_nodes(node: cst.CSTNode) -> List[cst.Name]:
    if isinstance(node, cst.Name):
        return [node]
    out = []
    for sub in descendants(node, skip_scopes=True):
        if isinstance(sub, cst.Name):
            out.append(sub)
    return out


def _changes_python_value(binding, values: Values) -> bool:
    """``self.t += 1`` or ``self.t = 0`` (a Python value), ``self.memory.append(x)``;
    not ``self.w.assign(...)`` or ``self.model = build()`` on a TF object."""
    if binding.kind is BindingKind.MUTATION:
        return True
    if binding.kind is BindingKind.ASSIGNMENT and binding.value is not None:
        return values.kind(binding.value) not in (Kind.TENSOR, Kind.VARIABLE, Kind.KERAS_MODEL)
    return binding.kind is BindingKind.AUGMENTED
