"""Work a function does on its first call only, then keeps.

``if self.op is None: self.op = build()``, ``if not hasattr(self, "op"):``,
``if key not in cache: cache[key] = build()``: the guarded block runs once
(once per key), however often the function is called. Summaries leave what
such a block builds out of a function's per-call effects, so a loop calling
the function is not said to rebuild it.
"""

from __future__ import annotations

from typing import Dict, Optional, Set

from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.scopes import first_param
from tflint_perf.analysis.semantic import SemanticModel
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.nodes import is_none
from tflint_perf.engine.walk import descendants

_METHOD_DEPTH = 2  # methods followed from a first-call block to what they set


class FirstCall:
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self._guards: Dict[cst.If, bool] = {}

    def guarded(self, node: cst.CSTNode) -> bool:
        """``node`` runs only on the first call of its function (or once per key)."""
        func = self.sem.function_of(node)
        for parent in self.ctx.ancestors_of(node):
            if parent is func:
                return False
            if isinstance(parent, cst.If) and self._sets_what_it_tests(parent):
                return True
        return False

    def _sets_what_it_tests(self, block: cst.If) -> bool:
        known = self._guards.get(block)
        if known is None:
            unset = unset_test(block.test)
            known = self._guards[block] = unset is not None and unset in self._set_in(block.body)
        return known

    def _set_in(self, block: cst.CSTNode, depth: int = 0) -> Set[str]:
        """Names and attributes ``block`` sets, and containers it stores into
        (``cache[k] = v`` sets ``cache``, ``self.cache[k] = v`` sets ``self.cache``);
        with the attributes the methods it calls set on their object
        (``self._build()`` setting ``self._built = True``)."""
        out: Set[str] = set()
        for binding in self.sem.bindings_in(block):
            out.add(binding.name)
            statement = binding.statement
            if isinstance(statement, cst.Assign):
                for target in statement.targets:
                    if isinstance(target.target, cst.Subscript):
                        out.add(dotted(target.target.value) or "")
        if depth >= _METHOD_DEPTH:
            return out
        graph: CallGraph = self.ctx.shared(CallGraph)
        for call in descendants(block, skip_scopes=True):
            if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)):
                continue
            receiver = dotted(call.func.value)
            for method in graph.resolve(call) if receiver is not None else ():
                own = first_param(method)
                if own is None or self.sem.method_class(method) is None:
                    continue
                for name in self._set_in(method.body, depth + 1):
                    if name.startswith(own + "."):
                        out.add(f"{receiver}{name[len(own) :]}")
        return out


def unset_test(test: cst.BaseExpression) -> Optional[str]:
    """``x is None`` / ``not x`` / ``not hasattr(self, "x")`` / ``k not in cache``:
    the name the test finds unset."""
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if isinstance(target.operator, cst.Is) and is_none(target.comparator):
            return dotted(test.left)
        if isinstance(target.operator, cst.NotIn):
            return dotted(target.comparator)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = test.expression
        if isinstance(inner, cst.Call) and dotted(inner.func) == "hasattr" and len(inner.args) == 2:
            attr = inner.args[1].value
            if isinstance(attr, cst.SimpleString):
                return f"{dotted(inner.args[0].value)}.{attr.evaluated_value!s}"
        return dotted(inner)
    return None
