"""Code as text for the vectoriser's output: parentheses only where Python's precedence
needs them, the module's NumPy/TensorFlow aliases, and the names a snippet reads."""

from __future__ import annotations

from typing import Optional, Set, Tuple

from tflint_perf.engine import cst


def atom(code: str) -> str:
    """``code`` as an operand: parenthesised unless it is a name, call, subscript or number."""
    try:
        parsed = cst.parse_expression(code)
    except Exception:  # noqa: BLE001 - not an expression: leave it to the caller
        return code
    if isinstance(
        parsed, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float)
    ) or getattr(parsed, "lpar", None):
        return code
    return f"({code})"


# Binding strength of binary operators (higher binds tighter), as in Python's grammar.
_STRENGTH = {
    "|": 1,
    "^": 2,
    "&": 3,
    "<<": 4,
    ">>": 4,
    "+": 5,
    "-": 5,
    "*": 6,
    "@": 6,
    "/": 6,
    "//": 6,
    "%": 6,
    "**": 8,
}
UNARY = 7  # -x, +x, ~x (binds tighter than * and looser than **)


def strength(code: str) -> int:
    """How tightly the top of ``code`` binds (an atom: 9; a comparison or a
    boolean operation: 0)."""
    try:
        parsed = cst.parse_expression(code)
    except Exception:  # noqa: BLE001 - not an expression: parenthesise
        return 0
    if getattr(parsed, "lpar", None):
        return 9
    if isinstance(parsed, cst.BinaryOperation):
        return _STRENGTH.get(cst.Module([]).code_for_node(parsed.operator).strip(), 0)
    if isinstance(parsed, cst.UnaryOperation):
        return 0 if isinstance(parsed.operator, cst.Not) else UNARY
    if isinstance(parsed, (cst.Comparison, cst.BooleanOperation, cst.IfExp, cst.Lambda)):
        return 0
    return 9


def operand(code: str, symbol: str, right: bool = False) -> str:
    """``code`` as an operand of the binary operator ``symbol``, parenthesised only
    where Python's precedence needs it."""
    own = _STRENGTH.get(symbol, 9)
    inner = strength(code)
    if symbol == "**":
        needs = inner <= own if not right else inner < UNARY
    else:
        needs = inner < own or (right and inner == own)
    return f"({code})" if needs else code


def numpy_alias(ctx) -> str:
    for local, full in ctx.imports.module_aliases.items():
        if full == "numpy" and "." not in local:
            return local
    return "np"


def tensorflow_alias(ctx) -> Optional[str]:
    for local, full in ctx.imports.module_aliases.items():
        if full == "tensorflow" and "." not in local:
            return local
    return None


def split_top(parts: str) -> Tuple[str, ...]:
    """Split ``a, b[c, d], e`` at its top-level commas."""
    out, depth, current = [], 0, ""
    for char in parts:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        if char == "," and depth == 0:
            out.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        out.append(current.strip())
    return tuple(out)


def names_read(node) -> Set[str]:
    """Names a snippet reads (not attribute names, keywords, or a lambda's parameters)."""
    from tflint_perf.engine.walk import children

    out: Set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name):
            out.add(n.value)
        elif isinstance(n, (cst.Attribute, cst.Arg)):
            stack.append(n.value)
        elif isinstance(n, cst.Lambda):
            params = {p.name.value for p in n.params.params}
            out |= names_read(n.body) - params
        else:
            stack.extend(children(n))
    return out
