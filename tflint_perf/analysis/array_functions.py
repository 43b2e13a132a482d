"""Which functions of the module are plain array math on their parameters.

A loop that calls ``helper(x[i])`` per row does array work when ``helper``
is array math: *element-wise* when built only from element-wise ops (calling
it once on the whole array does the loop's work), *numeric* when it computes
with arrays and numbers only (reductions, indexing, loops) and needs
rewriting to take all rows. ``ArrayFunctions(ctx)`` (``ctx.shared``) answers
for any function the call graph resolves a call to (``helper(...)``,
``self.helper(...)``, an alias, a callable passed as an argument), following
the helper's own calls to any depth.
"""

from __future__ import annotations

import enum
from typing import Dict, List, Optional

from tflint_perf.analysis.api import Kind
from tflint_perf.analysis.api import arraymath as am
from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.semantic import BindingKind, SemanticModel
from tflint_perf.engine import cst
from tflint_perf.engine.nodes import node_types
from tflint_perf.engine.walk import descendants


class FunctionKind(enum.Enum):
    ELEMENTWISE = "element-wise"
    NUMERIC = "numeric"


# Code whose meaning on a whole array differs from its meaning per element.
_NOT_ELEMENTWISE = node_types(
    "ListComp",
    "GeneratorExp",
    "For",
    "While",
    "If",
    "IfExp",
    "List",
    "Subscript",
    "Assert",  # a check of one element's shape: math, but not on a whole array at once
)
# Statements that make a function something other than math on its arguments.
_NOT_MATH = node_types(
    "Break",
    "Raise",
    "Yield",
    "Await",
    "Global",
    "Nonlocal",
    "With",
    "Try",
    "TryStar",
    "Del",
    "FunctionDef",
    "ClassDef",
    "Lambda",
    "FormattedString",
    "SetComp",
    "DictComp",
    "Set",
    "Dict",
)
_PENDING = object()
_CONTAINERS = (Kind.LIST, Kind.DICT, Kind.STRING)


class ArrayFunctions:
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.graph: CallGraph = ctx.shared(CallGraph)
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self._kinds: Dict[cst.FunctionDef, object] = {}

    def targets(self, call: cst.Call) -> List[cst.FunctionDef]:
        return self.graph.resolve(call)

    def kind_of_call(self, call: cst.Call) -> Optional[FunctionKind]:
        """What the module function(s) ``call`` runs are; None unless all are array math.
        A callable received as a parameter (``f(params)`` with ``f`` passed in) is a
        black box to its caller (a reward function may run an environment)."""
        if isinstance(call.func, cst.Name) and any(
            b.kind is BindingKind.PARAMETER for b in self.sem.lookup_name(call.func)
        ):
            return None
        targets = self.graph.resolve(call)
        if not targets:
            return self._external_kind(call)
        kinds = [self.kind(t) for t in targets]
        if not kinds or any(k is None for k in kinds):
            return None
        if all(k is FunctionKind.ELEMENTWISE for k in kinds):
            return FunctionKind.ELEMENTWISE
        return FunctionKind.NUMERIC

    def _external_kind(self, call: cst.Call) -> Optional[FunctionKind]:
        """What a function of another module of the tree is, as its module exports it."""
        facts = self.graph.external(call)
        found = facts.get("array_kind") if facts else None
        return FunctionKind(found) if isinstance(found, str) else None

    def kind(self, func: Optional[cst.FunctionDef]) -> Optional[FunctionKind]:
        if func is None:
            return None
        known = self._kinds.get(func)
        if known is _PENDING:
            return FunctionKind.NUMERIC  # recursion: decided by the rest of the body
        if known is None and func not in self._kinds:
            self._kinds[func] = _PENDING
            known = self._kind(func)
            self._kinds[func] = known
        return known if isinstance(known, FunctionKind) else None

    def _kind(self, func: cst.FunctionDef) -> Optional[FunctionKind]:
        params = [*func.params.posonly_params, *func.params.params]
        if func.asynchronous is not None or not params:
            return None
        elementwise = True
        for n in descendants(func.body, skip_scopes=True):
            if isinstance(n, cst.Subscript) and self._container(n.value):
                return None  # a lookup in a Python list or dict (``self.id2word[i]``)
            if isinstance(n, _NOT_ELEMENTWISE):
                elementwise = False
            elif isinstance(n, _NOT_MATH):
                return None
            elif isinstance(n, (cst.AssignTarget, cst.AugAssign)) and isinstance(
                n.target, cst.Attribute
            ):
                return None  # object state
            elif isinstance(n, cst.Call):
                found = self._call_kind(n)
                if found is None or self._sized_by(n, params):
                    return None
                elementwise = elementwise and found is FunctionKind.ELEMENTWISE
        return FunctionKind.ELEMENTWISE if elementwise else FunctionKind.NUMERIC

    def _container(self, expr: cst.BaseExpression) -> bool:
        """``expr`` holds a Python list, tuple, dict or string: reading an item of
        it is a lookup, not array math."""
        from tflint_perf.analysis.values import Values

        return self.ctx.shared(Values).kind(expr) in _CONTAINERS

    def _sized_by(self, call: cst.Call, params) -> bool:
        """An array made with a size read from a parameter (``tf.zeros(shape)``,
        ``np.ones([h, w])``): each call works at its own shape, so calls for several
        elements do not batch into one."""
        qual = self.ctx.call_name(call)
        if am.op(qual) not in (am.ArrayOp.SHAPE, am.ArrayOp.COUNTER):
            return False
        if (qual or "").rsplit(".", 1)[-1] not in am.CONSTRUCTORS:
            return False
        names = {p.name.value for p in params}
        return any(set(self.sem.reads(a.value)) & names for a in call.args)

    def _call_kind(self, call: cst.Call) -> Optional[FunctionKind]:
        qual = self.ctx.call_name(call)
        if qual is not None:
            op = am.op(qual, len(call.args))
            if op is None:
                return self._external_kind(call)
            if op in (am.ArrayOp.NOT_MATH, am.ArrayOp.SOLVE):
                return None
            if op is am.ArrayOp.FIRST_MATCH:
                return None
            return (
                FunctionKind.ELEMENTWISE if op is am.ArrayOp.ELEMENTWISE else FunctionKind.NUMERIC
            )
        func = call.func
        if isinstance(func, cst.Name) and func.value in am.NUMERIC_BUILTINS:
            return FunctionKind.NUMERIC
        if self.graph.resolve(call):
            return self.kind_of_call(call)
        if isinstance(func, cst.Attribute) and (
            am.method_op(func.attr.value) is not None or func.attr.value == "append"
        ):
            return FunctionKind.NUMERIC
        return None
