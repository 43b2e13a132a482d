"""Windows over an array in a loop nest, defined by index arithmetic.

A *nest* is a chain of ``for v in range(...)`` loops, each holding the next
(plus simple statements), in any order and depth (batch, channels, rows,
columns, kernel offsets). Its index expressions are read as polynomials of
the loop variables (names bound in the nest to position arithmetic, such as
``top = y * stride``, are expanded through the semantic model). A subscript
element is a *window* when

- it is a slice ``lo:hi`` that one loop variable moves and whose width ``hi -
  lo`` does not depend on any loop variable (``x[i:i + k]``, ``x[h * s:h * s +
  f]``, ``x[r * n:(r + 1) * n]``); or
- it is an index combining two loop variables (``img[i + a]``, ``img[y * s -
  b]``): a position and an offset.

What the nest does with its windows (a convolution, pooling, a gradient) is
``convolution.py``'s question.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from tflint_perf.analysis.semantic import SemanticModel
from tflint_perf.engine import cst
from tflint_perf.engine.walk import descendants

# A polynomial: monomial (sorted factor codes, loop variables or opaque atoms) -> coefficient.
Poly = Dict[Tuple[str, ...], int]
_MAX_TERMS = 12


class Nest:
    """The loops of a nest and the arithmetic of their indices."""

    def __init__(self, ctx, loops: List[cst.For]) -> None:
        self.ctx = ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self.loops = loops
        self.vars = [loop.target.value for loop in loops if isinstance(loop.target, cst.Name)]
        inner = loops[-1]
        self.nodes = list(descendants(inner.body, skip_scopes=True))
        helper = called_body(ctx, inner)
        if helper is not None:  # the innermost body moved into a function of its own
            self.nodes += list(descendants(helper.body, skip_scopes=True))
        for loop in loops[:-1]:
            for stmt in loop.body.body:
                if isinstance(stmt, cst.SimpleStatementLine):
                    self.nodes.extend([stmt, *descendants(stmt)])
        self._polys: Dict[cst.CSTNode, Optional[Poly]] = {}

    def loop_of(self, var: str) -> cst.For:
        return self.loops[self.vars.index(var)]

    def inside(self, node) -> bool:
        return any(self.ctx.contains(loop, node) for loop in self.loops)

    # -- index arithmetic --------------------------------------------------------
    def poly(self, expr, depth: int = 0) -> Optional[Poly]:
        """``expr`` as a polynomial of the loop variables; None when it is not one
        (a call, a data-dependent index such as ``offsets[i]``)."""
        known = self._polys.get(expr)
        if known is None and expr not in self._polys:
            known = self._polys[expr] = self._poly(expr, depth)
        return known

    def _poly(self, expr, depth: int) -> Optional[Poly]:
        if depth > 6:
            return None
        if isinstance(expr, cst.Integer):
            value = int(expr.evaluated_value)
            return {(): value} if value else {}
        if isinstance(expr, cst.Name):
            if expr.value in self.vars:
                return {(expr.value,): 1}
            value = self.bound_in_nest(expr)
            if value is not None:
                return self.poly(value, depth + 1)
            return {(expr.value,): 1}
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
            inner = self.poly(expr.expression, depth + 1)
            return None if inner is None else {k: -v for k, v in inner.items()}
        if isinstance(expr, cst.BinaryOperation):
            left = self.poly(expr.left, depth + 1)
            right = self.poly(expr.right, depth + 1)
            if left is None or right is None:
                return None
            if isinstance(expr.operator, cst.Add):
                return _add(left, right, 1)
            if isinstance(expr.operator, cst.Subtract):
                return _add(left, right, -1)
            if isinstance(expr.operator, cst.Multiply):
                return _times(left, right)
            return self._atom(expr)
        return self._atom(expr)

    def _atom(self, expr) -> Optional[Poly]:
        """A size or another loop-invariant expression (``len(w)``, ``k.shape[0]``,
        ``n // 2``): an opaque factor; None when it reads a loop variable."""
        if set(self.sem.reads(expr)) & set(self.vars):
            return None
        if any(
            isinstance(n, cst.Subscript) and not _is_shape(n) for n in [expr, *descendants(expr)]
        ):
            return None  # x[starts[i]:ends[i]]: bounds read from data, not arithmetic
        return {(" ".join(self.ctx.code(expr).split()),): 1}

    def bound_in_nest(self, name: cst.Name):
        """The value of ``name`` when one assignment in the nest gives it (``top = y * s``)."""
        found = self.sem.lookup_name(name)
        if len(found) == 1 and found[0].plain and self.inside(found[0].statement):
            return found[0].value
        return None

    def vars_in(self, poly: Optional[Poly]) -> Set[str]:
        if not poly:
            return set()
        return {f for monomial in poly for f in monomial if f in self.vars}

    # -- windows -------------------------------------------------------------------
    def slide_var(self, element: cst.SubscriptElement) -> Optional[str]:
        """The loop variable a slice ``lo:hi`` of constant width moves with."""
        sl = element.slice
        if not isinstance(sl, cst.Slice) or sl.lower is None or sl.upper is None:
            return None
        if sl.step is not None:
            return None
        lower, upper = self.poly(sl.lower), self.poly(sl.upper)
        if lower is None or upper is None:
            return None
        moving = self.vars_in(lower)
        if len(moving) != 1 or self.vars_in(upper) != moving:
            return None
        if self.vars_in(_add(upper, lower, -1)):
            return None  # the width changes with the loop: a growing prefix, not a window
        return next(iter(moving))

    def width(self, element: cst.SubscriptElement) -> str:
        """The code of a window slice's width (``k`` of ``x[i:i + k]``)."""
        sl = element.slice
        assert isinstance(sl, cst.Slice) and sl.lower is not None and sl.upper is not None
        lower, upper = self.poly(sl.lower), self.poly(sl.upper)
        return spell(_add(upper or {}, lower or {}, -1))

    def step(self, position, var: str) -> str:
        """How far a window moves per iteration of ``var``, from its start ``position``:
        the coefficient, times the range's step (``h * s`` -> ``s``; ``i`` over
        ``range(0, n, s)`` -> ``s``)."""
        poly = self.poly(position) or {}
        factors = [spell({tuple(f for f in m if f != var): c}) for m, c in poly.items() if var in m]
        coefficient = factors[0] if len(factors) == 1 else "1"
        args = self.loop_of(var).iter.args  # type: ignore[attr-defined]
        if len(args) == 3 and coefficient == "1":
            return " ".join(self.ctx.code(args[2].value).split())
        return coefficient

    def slides(self, sub) -> List[str]:
        """The loop variables a subscript's window slices move with ([] if not a window:
        every other element must be a plain index)."""
        if not isinstance(sub, cst.Subscript):
            return []
        found = []
        for element in sub.slice:
            var = self.slide_var(element)
            if var is not None:
                found.append(var)
            elif not self._plain(element):
                return []
        return found if len(set(found)) == len(found) else []

    def _plain(self, element: cst.SubscriptElement) -> bool:
        sl = element.slice
        if not isinstance(sl, cst.Index):
            return (
                isinstance(sl, cst.Slice)
                and sl.lower is None
                and sl.upper is None
                and (sl.step is None)
            )
        value = sl.value
        if isinstance(value, (cst.Integer, cst.Ellipsis)):
            return True
        return isinstance(value, cst.Name) and value.value in self.vars

    def window_of(self, expr) -> Optional[cst.Subscript]:
        """The window subscript ``expr`` is, or a name bound in the nest to one."""
        if isinstance(expr, cst.Name):
            value = self.bound_in_nest(expr)
            if isinstance(value, cst.Subscript) and self.slides(value):
                return value
            return None
        return expr if self.slides(expr) else None

    def offsets(self, sub) -> List[Tuple[str, str]]:
        """(position, offset) pairs of the index elements combining two loop variables
        (``img[i + a, j - b]`` -> [(i, a), (j, b)]); the offset is the variable with
        coefficient one (``y * s + a``: position ``y``)."""
        pairs = []
        for element in _index_elements(sub):
            poly = self.poly(element)
            used = self.vars_in(poly)
            if len(used) != 2 or poly is None:
                continue
            unit = [v for v in used if abs(poly.get((v,), 0)) == 1]
            if len(unit) == 2:
                pairs.append(tuple(sorted(used, key=self.vars.index)))
            elif len(unit) == 1:
                offset = unit[0]
                pairs.append((next(v for v in used if v != offset), offset))
        return pairs  # type: ignore[return-value]

    def shift(self, element, var: str) -> Optional[int]:
        """``x + 1`` -> 1 along ``var`` when the element is ``var`` plus a number."""
        poly = self.poly(element)
        if poly is None or self.vars_in(poly) != {var} or poly.get((var,)) != 1:
            return None
        rest = {m: c for m, c in poly.items() if m != (var,)}
        if not rest:
            return 0
        if set(rest) == {()}:
            return rest[()]
        return None


def range_var(loop) -> Optional[str]:
    if (
        isinstance(loop, cst.For)
        and isinstance(loop.target, cst.Name)
        and isinstance(loop.iter, cst.Call)
        and isinstance(loop.iter.func, cst.Name)
        and loop.iter.func.value == "range"
    ):
        return loop.target.value
    return None


def chain(outer, ctx=None) -> List[cst.For]:
    """``outer`` and the range loops nested one in another below it (with ``ctx``:
    also through a loop body moved into a function of the module, ``step()``)."""
    loops = []
    loop = outer
    while loop is not None and range_var(loop) is not None:
        loops.append(loop)
        inner = _single_inner_for(loop)
        loop = inner if inner is not None or ctx is None else _called_loop(ctx, loop)
    return loops


def called_body(ctx, loop, depth: int = 0) -> Optional[cst.FunctionDef]:
    """The function of the module that ``loop``'s body only calls, with no
    arguments (``for y in ...: row()``, ``self.row()``), through functions that
    only call the next one: the loop's body moved into a function of its own,
    which reads the loop's names."""
    from tflint_perf.analysis.calls import CallGraph

    body = [s for s in loop.body.body if not isinstance(s, cst.FunctionDef)]
    body = [s for s in body if not _declaration(s)]
    if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine):
        return None
    small = body[0].body
    call = small[0].value if len(small) == 1 and isinstance(small[0], cst.Expr) else None
    if not isinstance(call, cst.Call) or call.args:
        return None
    targets = ctx.shared(CallGraph).resolve(call)
    if len(targets) != 1:
        return None
    deeper = called_body(ctx, targets[0], depth + 1) if depth < 3 else None
    return deeper or targets[0]


def _called_loop(ctx, loop) -> Optional[cst.For]:
    """The one loop of the function ``loop``'s body only calls: the nest goes on in it."""
    func = called_body(ctx, loop)
    work = [s for s in func.body.body if not _declaration(s)] if func is not None else []
    if len(work) == 1 and isinstance(work[0], cst.For):
        return work[0]
    return None


def _declaration(stmt) -> bool:
    """A ``global``/``nonlocal`` line or a docstring: no work."""
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Global, cst.Nonlocal))
        or (isinstance(s, cst.Expr) and isinstance(s.value, cst.SimpleString))
        for s in stmt.body
    )


def _single_inner_for(loop) -> Optional[cst.For]:
    """The only loop among ``loop``'s statements (others: no loops inside; a
    function defined there runs nothing until it is called)."""
    fors = [s for s in loop.body.body if isinstance(s, cst.For)]
    others = [
        s
        for s in loop.body.body
        if not isinstance(s, (cst.For, cst.SimpleStatementLine, cst.FunctionDef))
    ]
    if len(fors) == 1 and not any(
        isinstance(n, (cst.For, cst.While)) for s in others for n in descendants(s, True)
    ):
        return fors[0]
    return None


def _index_elements(sub) -> List[cst.BaseExpression]:
    """The index values of ``x[p, q]`` or ``x[p][q]`` (slices skipped)."""
    out: List[cst.BaseExpression] = []
    while isinstance(sub, cst.Subscript):
        out = [e.slice.value for e in sub.slice if isinstance(e.slice, cst.Index)] + out
        sub = sub.value
    return out


def base_of(expr):
    while isinstance(expr, cst.Subscript):
        expr = expr.value
    return expr


def _is_shape(node: cst.Subscript) -> bool:
    return isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape"


def _add(a: Poly, b: Poly, sign: int) -> Poly:
    out = dict(a)
    for monomial, coefficient in b.items():
        out[monomial] = out.get(monomial, 0) + sign * coefficient
        if out[monomial] == 0:
            del out[monomial]
    return out


def _times(a: Poly, b: Poly) -> Optional[Poly]:
    out: Poly = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            monomial = tuple(sorted(ma + mb))
            out[monomial] = out.get(monomial, 0) + ca * cb
            if out[monomial] == 0:
                del out[monomial]
    return out if len(out) <= _MAX_TERMS else None


def spell(poly: Poly) -> str:
    """A polynomial as code (``k``, ``2 * s``, ``f - 1``)."""
    if not poly:
        return "0"
    parts = []
    for monomial, coefficient in sorted(poly.items(), key=lambda item: (-len(item[0]), item[0])):
        factors = list(monomial)
        if abs(coefficient) != 1 or not factors:
            factors.insert(0, str(abs(coefficient)))
        term = " * ".join(f if " " not in f or f.startswith("(") else f"({f})" for f in factors)
        parts.append(("- " if coefficient < 0 else "+ ") + term)
    text = " ".join(parts)
    return text[2:] if text.startswith("+ ") else "-" + text[2:]
