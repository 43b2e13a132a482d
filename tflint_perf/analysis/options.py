"""What a command-line option holds when the command line does not set it.

``args.decay_steps``, where ``args = parser.parse_args()`` (or a parameter
every call passes such a value), holds the ``default=`` of the module's
``add_argument("--decay_steps", ..., default=100000)``: the one value the
source shows, as a function's default is when no call passes another.
"""

from __future__ import annotations

from typing import Callable, List, Optional

from tflint_perf.analysis.semantic import SemanticModel
from tflint_perf.engine import cst

_PARSE = frozenset({"parse_args", "parse_known_args"})
_DEPTH = 4


def option_default(
    ctx, expr: cst.BaseExpression, passed: Callable[[cst.Name], Optional[List[cst.BaseExpression]]]
) -> Optional[cst.BaseExpression]:
    """The ``default=`` of the option ``expr`` (``args.name``) reads, or None.
    ``passed(name)``: what every call passes a parameter (``trips.parameter_values``)."""
    if not (isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name)):
        return None
    if not _parsed(ctx, expr.value, passed, 0):
        return None
    found = [d for d in _defaults(ctx, expr.attr.value)]
    return found[0] if len(found) == 1 else None


def _parsed(ctx, name: cst.Name, passed, depth: int) -> bool:
    """``name`` holds what ``parser.parse_args()`` returns."""
    if depth > _DEPTH:
        return False
    sem: SemanticModel = ctx.shared(SemanticModel)
    value = sem.value_of(name)
    values = [value] if value is not None else passed(name) or []
    if not values:
        return False
    for v in values:
        if isinstance(v, cst.Subscript):  # parse_known_args()[0]
            v = v.value
        if isinstance(v, cst.Name):
            if not _parsed(ctx, v, passed, depth + 1):
                return False
        elif not (
            isinstance(v, cst.Call)
            and isinstance(v.func, cst.Attribute)
            and v.func.attr.value in _PARSE
        ):
            return False
    return True


def _defaults(ctx, dest: str):
    """The ``default=`` of each ``add_argument`` of the module whose destination is ``dest``."""
    for call in ctx.nodes(cst.Call):
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "add_argument"):
            continue
        if _dest(call) != dest:
            continue
        default = next(
            (a.value for a in call.args if a.keyword is not None and a.keyword.value == "default"),
            None,
        )
        if default is not None:
            yield default


def _dest(call: cst.Call) -> Optional[str]:
    """The attribute an ``add_argument`` call fills: ``dest=``, else its first long
    option (``--decay-steps``: ``decay_steps``), else its first name."""
    names = []
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value == "dest" and isinstance(arg.value, cst.SimpleString):
                return str(arg.value.evaluated_value)
            continue
        if isinstance(arg.value, cst.SimpleString):
            names.append(str(arg.value.evaluated_value))
    if not names:
        return None
    long = [n for n in names if n.startswith("--")]
    chosen = long[0] if long else names[0]
    return chosen.lstrip("-").replace("-", "_")
