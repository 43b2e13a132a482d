"""What TFP202's detectors share: what a call builds, and the loops that build it."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Set, Tuple, Union

from tflint_perf.analysis import api
from tflint_perf.analysis.api import Effect, Kind
from tflint_perf.analysis.api.steps import (
    REUSE_VALUES,
    REUSING_GETTERS,
    TF1_GRAPH_PARTS,
    TO_PYTHON_METHODS,
    VARIABLE_SCOPES,
)
from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.first_call import FirstCall
from tflint_perf.analysis.semantic import COMPREHENSIONS, LOOPS, Binding, BindingKind, SemanticModel
from tflint_perf.analysis.summaries import Summaries
from tflint_perf.analysis.trips import Trips
from tflint_perf.analysis.values import Values
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.walk import children, descendants

# What the loop body doing per-batch work looks like: a step, inference, an update.
STEP_EFFECTS = Effect.INFERENCE | Effect.TRAINING | Effect.UPDATE | Effect.GRADIENTS


class Built(enum.Enum):
    MODEL = "a Keras model"
    LAYER = "a layer"
    VARIABLE = "a variable"
    FUNCTION = "a tf.function"
    TF1 = "a TF1 graph"


@dataclass
class Item:
    built: Built
    node: Union[cst.Call, cst.FunctionDef]  # a def only for a decorated function
    label: str  # `keras.Sequential()`
    binding: Optional[Binding] = None  # the name it is assigned to
    construction: Optional[cst.Call] = None  # the Keras call (for the import alias)
    part: str = ""  # TF1: graph, session, placeholder, variable


Loop = Union["cst.For", "cst.While"]  # strings: naming the classes would load LibCST


class Facts:
    """The file's model as TFP202 reads it, built once per file."""

    def __init__(self, rule) -> None:
        ctx = rule.ctx
        self.rule = rule
        self.ctx = ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self.values: Values = ctx.shared(Values)
        self.graph: CallGraph = ctx.shared(CallGraph)
        self.summaries: Summaries = ctx.shared(Summaries)
        self.trips: Trips = ctx.shared(Trips)
        self.graph_mode = self.summaries.graph_mode
        self._constructions: Dict[cst.Call, Optional[cst.Call]] = {}
        self._varying: Dict[cst.CSTNode, Set[str]] = {}

    # -- what a call builds ------------------------------------------------------------
    def item(self, call: cst.Call) -> Optional[Item]:
        ctx = self.ctx
        spelled = f"`{dotted(call.func) or ctx.code(call.func)}()`"
        binding = self.binding_of(call)
        construction = self.model_construction(call)
        if construction is not None:
            return Item(Built.MODEL, call, spelled, binding, construction)
        qual = ctx.call_name(call)
        facts = api.call(qual)
        part = TF1_GRAPH_PARTS.get(qual or "")
        if part is not None and self.reused_variable(call):
            return None  # the variable built before, returned
        if part is not None and (part != "variable" or self.graph_mode):
            return Item(Built.TF1, call, spelled, binding, part=part)
        if facts is not None and facts.effects & Effect.BUILDS:
            if facts.returns is Kind.LAYER and (qual or "").startswith("keras."):
                return Item(Built.LAYER, call, spelled, binding)
            if facts.returns is Kind.VARIABLE and not self.graph_mode:
                return Item(Built.VARIABLE, call, spelled, binding)
            if facts.returns is Kind.TF_FUNCTION:
                return Item(Built.FUNCTION, call, spelled, binding)
        cls = self.values.class_called(call)
        if cls is not None and self.values.class_kind(cls) is Kind.LAYER:
            return Item(Built.LAYER, call, spelled, binding)
        if facts is None and self.values.kind(call) is Kind.TF_FUNCTION:
            if any(self._builds_function(t) for t in self.graph.resolve(call)):
                return Item(Built.FUNCTION, call, spelled, binding)
        return None

    def reused_variable(self, call: cst.Call) -> bool:
        """``tf.get_variable(name)`` in ``with tf.variable_scope(s, reuse=True)`` (or
        ``AUTO_REUSE``): it returns the variable built before, and builds nothing."""
        if self.ctx.call_name(call) not in REUSING_GETTERS:
            return False
        for parent in self.ctx.ancestors_of(call):
            if not isinstance(parent, cst.With):
                continue
            for item in parent.items:
                scope = item.item
                if not (
                    isinstance(scope, cst.Call) and self.ctx.call_name(scope) in VARIABLE_SCOPES
                ):
                    continue
                for arg in scope.args:
                    if arg.keyword is not None and arg.keyword.value == "reuse":
                        value = arg.value
                        spelled = self.ctx.qualname(value) or self.ctx.code(value).strip()
                        if spelled in REUSE_VALUES:
                            return True
        return False

    def _builds_function(self, func: cst.FunctionDef) -> bool:
        """A factory: ``func`` returns a tf.function it makes on each call (a
        decorated inner def, or ``tf.function(...)`` called in it)."""
        scope = self.sem.scope(func)
        for ret in self.values.returns(func):
            value = ret.value
            if isinstance(value, cst.Call) and self.summaries.direct_effects(value) & Effect.BUILDS:
                return True
            if isinstance(value, cst.Name):
                if any(b.scope is scope for b in self.sem.lookup_name(value)):
                    return True
        return False

    def model_construction(self, call: cst.Call, depth: int = 0) -> Optional[cst.Call]:
        """The Keras model construction ``call`` makes: itself (``Sequential``,
        ``load_model``, a ``keras.Model`` subclass of the module), or the first
        one in the module function it runs that returns the model it builds."""
        if call in self._constructions:
            return self._constructions[call]
        self._constructions[call] = None  # cycles
        found = None
        facts = api.call(self.ctx.call_name(call))
        cls = self.values.class_called(call)
        if facts is not None:
            if facts.returns is Kind.KERAS_MODEL and facts.effects & Effect.BUILDS:
                found = call
        elif cls is not None:
            found = call if self.values.class_kind(cls) is Kind.KERAS_MODEL else None
        elif depth < 4 and self.values.kind(call) is Kind.KERAS_MODEL:
            for target in self.graph.resolve(call):
                found = found or self.first_construction(target, depth + 1)
        self._constructions[call] = found
        return found

    def first_construction(self, func: cst.FunctionDef, depth: int = 0) -> Optional[cst.Call]:
        """The first model construction ``func`` makes, itself or through a factory."""
        for call in self.graph.calls_in(func):
            found = self.model_construction(call, depth)
            if found is not None:
                return found
        return None

    def binding_of(self, call: cst.Call) -> Optional[Binding]:
        """The name ``call`` is assigned to (``m = build()``, ``with tf.Session() as s``)."""
        parent = self.ctx.parent(call)
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
            found = [b for b in self.sem.bindings_of(parent) if b.plain]
            return found[0] if len(found) == 1 else None
        if isinstance(parent, cst.WithItem):
            found = self.sem.bindings_of(parent)
            return found[0] if len(found) == 1 else None
        return None

    def refers_to(self, expr: cst.CSTNode, item: Item) -> bool:
        """``expr`` is the item itself, or a name bound to it (or a literal list of them)."""
        if expr is item.node:
            return True
        if isinstance(expr, (cst.List, cst.Tuple)):
            return any(self.refers_to(e.value, item) for e in expr.elements)
        if item.binding is None or not isinstance(expr, (cst.Name, cst.Attribute)):
            return False
        return item.binding in self.sem.origins(expr)

    def uses(self, item: Item, calls: List[cst.Call]) -> List[cst.Call]:
        """Calls that call the item, or call a method on it."""
        out = []
        for call in calls:
            func = call.func
            if self.refers_to(func, item):
                out.append(call)
            elif isinstance(func, cst.Attribute) and self.refers_to(func.value, item):
                out.append(call)
        return out

    # -- loops ---------------------------------------------------------------------------
    def own_body(self, owner) -> Iterator[cst.CSTNode]:
        """Nodes run once per iteration of ``owner`` (a loop) or per call (a def),
        and by no loop inside it: nested loops contribute their header; nested
        functions and classes are yielded but not entered."""
        stack = list(reversed(children(owner.body)))
        while stack:
            node = stack.pop()
            yield node
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            if isinstance(node, LOOPS):
                header = [node.iter] if isinstance(node, cst.For) else [node.test]
                stack.extend(reversed(header))
                continue
            if isinstance(node, COMPREHENSIONS):
                continue  # a comprehension is its own loop
            stack.extend(reversed(children(node)))

    def calls_under(self, node: cst.CSTNode) -> List[cst.Call]:
        """Every call ``node`` runs itself (nested functions and classes skipped)."""
        return [n for n in descendants(node, skip_scopes=True) if isinstance(n, cst.Call)]

    def resets(self, call: cst.Call) -> bool:
        """``clear_session()``, ``tf.reset_default_graph()``, or a function that calls one."""
        return bool(self.summaries.effects_of(call) & Effect.RESETS)

    def clears(self, loop: Loop) -> bool:
        """The loop, a loop around it, or the function around it resets Keras' state."""
        regions: List[cst.CSTNode] = [loop.body]
        regions += [outer.body for outer in self.sem.loops_around(loop)]
        func = self.sem.function_of(loop)
        if func is not None:
            regions.append(func.body)
        return any(self.resets(c) for region in regions for c in self.calls_under(region))

    def varying(self, loop: Loop) -> Set[str]:
        """Names that may change between iterations; a construction with unchanging
        arguments (``m = build()``) keeps its name unchanging."""
        known = self._varying.get(loop)
        if known is None:
            known = self._varying[loop] = self.sem.varying(loop, self._stable_value)
        return known

    def _stable_value(self, value: cst.CSTNode) -> bool:
        if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)):
            return True
        # tf.Graph().as_default() and the like: the innermost call.
        while (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and isinstance(value.func.value, cst.Call)
        ):
            value = value.func.value
        return isinstance(value, cst.Call) and self.item(value) is not None

    def independent(self, item: Item, varying: Set[str]) -> bool:
        """Nothing the item is built from changes between iterations."""
        node = item.node
        if isinstance(node, cst.FunctionDef):
            reads: Set[str] = set()
            for part in [*node.body.body, *node.decorators]:
                reads.update(self.sem.reads(part))
            reads -= set(self.sem.scope(node).bindings)
        else:
            reads = set()
            for arg in node.args:
                reads.update(self.sem.reads(arg.value))
            if isinstance(node.func, cst.Attribute):
                reads.update(self.sem.reads(node.func.value))
        return not (reads & varying)

    def step_loop(self, loop: Loop) -> bool:
        """The loop does per-batch work: a tape, inference, an update, ``.numpy()``."""
        for node in descendants(loop.body, skip_scopes=True):
            if isinstance(node, cst.WithItem) and self.values.kind(node.item) is Kind.TAPE:
                return True
            if not isinstance(node, cst.Call):
                continue
            if self.summaries.effects_of(node) & STEP_EFFECTS:
                return True
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value in TO_PYTHON_METHODS:
                return True
        return False

    def kept(self, item: Item, loop: Loop) -> bool:
        """The model is stored in a collection in the loop: an ensemble, kept on purpose."""
        for binding in self.sem.bindings_in(loop.body):
            if binding.kind not in (BindingKind.MUTATION, BindingKind.AUGMENTED):
                continue
            value = binding.value
            statement = binding.statement
            if isinstance(value, cst.Call) and any(
                self.refers_to(a.value, item) for a in value.args
            ):
                return True
            if isinstance(statement, (cst.Assign, cst.AugAssign)):
                if self.refers_to(statement.value, item):
                    return True
        return False

    def lazy(self, call: cst.Call) -> bool:
        """Built on the first call only and kept (``analysis/first_call.py``)."""
        return self.ctx.shared(FirstCall).guarded(call)

    def line(self, node: cst.CSTNode) -> str:
        return self.ctx.line_ref(self.ctx.position(node).start.line)


def first_statement(owner) -> Optional[cst.CSTNode]:
    """The first statement of a loop's or function's body (after a docstring)."""
    body = owner.body
    if not isinstance(body, cst.IndentedBlock) or not body.body:
        return None
    statements = list(body.body)
    first = statements[0]
    if (
        isinstance(owner, cst.FunctionDef)
        and len(statements) > 1
        and isinstance(first, cst.SimpleStatementLine)
        and isinstance(first.body[0], cst.Expr)
        and isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    ):
        return statements[1]
    return first


def describe(items: List[Item], facts: Facts) -> Tuple[str, List[str]]:
    """(the first thing, the list of what the loop rebuilds, with lines)."""
    parts: List[str] = []
    tf1 = [i for i in items if i.built is Built.TF1]
    for item in items:
        line = facts.line(item.node)
        if item.built is Built.TF1:
            if item is not tf1[0]:
                continue
            counts: Dict[str, int] = {}
            for each in tf1:
                counts[each.part] = counts.get(each.part, 0) + 1
            bits = [f"{n} {kind}s" if n > 1 else f"a {kind}" for kind, n in counts.items()]
            parts.append(f"a TF1 graph ({', '.join(bits)}; {line})")
        else:
            parts.append(f"{item.built.value} ({item.label}, {line})")
    return parts[0], parts
