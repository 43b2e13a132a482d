"""Which reads in a loop body are elements of the walked data.

An *element* is ``x[i]``, ``x[0, i]``, ``x[i, :]``, ``x[i + 1]`` or a window
``x[i:i + k]`` of an array indexed by a loop index, ``row[0]`` of an element
the header binds, a name the body computes from one (``d = x[i] - c``), or a
random draw (a new value per iteration). A read that indexes with an element
(``x[idx[i]]``, ``probs[i, y[i]]``) is a *gather*; a container that is not an
array indexed with one (``codes[v]`` of a dict) is a *lookup*.

``ElementReads`` is the base of ``LoopFacts``: it holds the index and
element names and, as reads are classified, the windows, gathers, lookups and
whether a shifted index (a stencil) or a known array was seen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Set

from tflint_perf.engine import cst
from tflint_perf.engine.walk import children

if TYPE_CHECKING:
    from tflint_perf.analysis.arrays import Arrays
    from tflint_perf.analysis.semantic import SemanticModel
    from tflint_perf.analysis.walks import Walk

_SIZE_ATTRIBUTES = ("shape", "ndim", "dtype", "size")
_PANDAS_INDEXERS = ("loc", "iloc", "at", "iat")


class ElementReads:
    # set by the subclass before any read is classified
    ctx: Any
    sem: "SemanticModel"
    arrays: "Arrays"
    walk: "Walk"

    def __init__(self, index: Set[str], elements: Set[str]) -> None:
        self.index = index
        self.elements = elements
        self.derived: Dict[str, cst.BaseExpression] = {}  # name -> the value it was bound to
        self.windows: List[cst.Subscript] = []  # x[i:i + k] read by the loop index
        self.gathers: List[cst.Subscript] = []  # x[idx[i]], probs[i, y[i]]
        self.lookups: List[cst.Subscript] = []  # mapping[v] with mapping a dict
        self.known_seed = False  # an element of an array the file shows to be one was read
        self.random = False  # NumPy draws per iteration
        self.shifted = False  # x[i + 1] read: a stencil (or a recurrence, checked apart)
        self._resolving: Set[str] = set()  # derived names being followed (uses_element)

    def is_draw(self, call: cst.Call) -> bool:
        raise NotImplementedError

    def uses_element(self, expr, draws: bool = True, depth: int = 0) -> bool:
        """Whether ``expr``'s value depends on an element (not only on indices); with
        ``draws=False`` a random draw (or a name computed only from draws) does not count."""
        stack = [expr]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Name):
                if node.value in self.elements:
                    return True
                if node.value in self.derived:
                    if draws or depth > 3 or node.value in self._resolving:
                        return True
                    self._resolving.add(node.value)
                    try:
                        if self.uses_element(self.derived[node.value], False, depth + 1):
                            return True
                    finally:
                        self._resolving.discard(node.value)
            elif isinstance(node, cst.Subscript):
                if self.is_seed(node):
                    return True
                stack.append(node.value)
            elif isinstance(node, cst.Attribute):
                if node.attr.value not in _SIZE_ATTRIBUTES:
                    stack.append(node.value)
            elif isinstance(node, cst.Call) and self.is_draw(node):
                if draws and not vector_draw(node):
                    return True  # a random draw is a new value per iteration
                stack.extend(a.value for a in node.args)
            else:
                stack.extend(children(node))
        return False

    def is_seed(self, sub: cst.Subscript) -> bool:
        """``x[i]``, ``x[0, i]``, ``x[i, :]``, ``x[i + 1]``, ``x[i:i + k]`` of an array,
        ``row[0]`` of an element."""
        hits = [e for e in sub.slice if self.index & self.position_names(e)]
        base = sub.value
        if isinstance(base, cst.Name) and (
            base.value in self.elements or base.value in self.derived
        ):
            return True
        if not hits:
            return self._indexed_by_data(sub)
        window = any(isinstance(e.slice, cst.Slice) for e in hits)
        if not self._array_base(base, len(sub.slice)) and not (
            window and isinstance(base, cst.Name)
        ):
            return False  # (a window of a list is copied the same way as one of an array)
        for e in hits:
            if isinstance(e.slice, cst.Slice):
                if sub not in self.windows:
                    self.windows.append(sub)
            elif not bare_any(e, self.index):
                self.shifted = True  # x[i + 1]
        gathered = [e for e in hits if bare_any(e, self.walk.gather)]
        if gathered:
            self._gather(sub)  # x[idx] for idx in idxs
            if len(gathered) >= 2:
                self.known_seed = True  # m[i, j] for i, j in zip(users, items): an array
        if any(
            isinstance(e.slice, cst.Index)
            and not bare_any(e, self.index)
            and self.uses_element(e.slice.value)
            for e in sub.slice
        ):
            self._gather(sub)  # probs[i, y[i]]
        return True

    def _indexed_by_data(self, sub: cst.Subscript) -> bool:
        """``x[idx[i]]`` (a gather) or ``codes[v]`` of a dict (a lookup)."""
        base = sub.value
        if self.index_uses_element(sub) and self._array_base(base, len(sub.slice)):
            self._gather(sub)
            return True
        if (
            isinstance(base, cst.Name)
            and self.index_uses_element(sub)
            and self.arrays.is_dict(base)
        ):
            if sub not in self.lookups:
                self.lookups.append(sub)  # codes[v]: a Python dict per element
            return True
        return False

    def _gather(self, sub: cst.Subscript) -> None:
        if sub not in self.gathers:
            self.gathers.append(sub)

    def _array_base(self, base, width: int) -> bool:
        if isinstance(base, cst.Name) and (
            base.value in self.elements or base.value in self.derived
        ):
            return True
        if self.arrays.is_array(base):
            self.known_seed = True
            return True
        if self.ctx.code(base) == self.walk.tensor:
            return True
        if isinstance(base, cst.Subscript):
            return self._array_base(base.value, 1)  # x[i][j]
        # probs[i, y[i]]: only arrays take a tuple index (not lists; .loc is pandas).
        return width >= 2 and not (
            isinstance(base, cst.Attribute) and base.attr.value in _PANDAS_INDEXERS
        )

    def index_uses_element(self, sub: cst.Subscript) -> bool:
        """``out[y[i]]`` / ``onehot[val, idx]``: an index computed from element values
        (``y[i]`` counts even when ``y`` may be a list: it indexes all the same); a
        random index (``x[np.random.choice(n)]``) picks a row, it reads no data."""
        return any(
            isinstance(e.slice, cst.Index)
            and (
                self.uses_element(e.slice.value, draws=False)
                or self._indexed_by_loop(e.slice.value)
            )
            for e in sub.slice
        )

    def array_target(self, sub: cst.Subscript) -> bool:
        """A write into an array (not a dict): a known array, or an element row."""
        base = sub.value
        if isinstance(base, cst.Name) and (
            base.value in self.elements or base.value in self.derived
        ):
            return True
        return self.arrays.is_array(base)

    def _indexed_by_loop(self, expr) -> bool:
        """``idx[i]`` with ``i`` a true loop index (not a value walked from a list)."""
        return (
            isinstance(expr, cst.Subscript)
            and isinstance(expr.value, cst.Name)
            and any(bare_any(e, self.index - self.walk.gather) for e in expr.slice)
        )

    def position_names(self, element: cst.SubscriptElement) -> Set[str]:
        """Names a subscript element uses as a position (``i``, ``i + 1``, ``i:i + k``)."""
        sl = element.slice
        if isinstance(sl, cst.Index):
            named = index_name(element)
            if named is not None:
                return {named.value}
            value = sl.value
            if isinstance(value, cst.BinaryOperation) and isinstance(
                value.operator, (cst.Add, cst.Subtract)
            ):
                return set(self.sem.reads(value))
            return set()
        return set(self.sem.reads(sl))


def index_name(element: cst.SubscriptElement) -> Optional[cst.Name]:
    """``i`` of a subscript element ``i`` or ``int(i)``."""
    if not isinstance(element.slice, cst.Index):
        return None
    value = element.slice.value
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value == "int"
        and len(value.args) == 1
    ):
        value = value.args[0].value
    return value if isinstance(value, cst.Name) else None


def bare(element: cst.SubscriptElement, name: str) -> bool:
    found = index_name(element)
    return found is not None and found.value == name


def bare_any(element: cst.SubscriptElement, names: Set[str]) -> bool:
    found = index_name(element)
    return found is not None and found.value in names


def vector_draw(call: cst.Call) -> bool:
    """``np.random.randn(100, 3)``, ``np.random.choice(x, size=n)``,
    ``np.random.normal(0, 1, n)``: one array per call."""
    from tflint_perf.analysis.api import arraymath as am

    if any(a.keyword is not None and a.keyword.value in ("size", "shape") for a in call.args):
        return True
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else ""
    positional = [a for a in call.args if a.keyword is None]
    if name in am.SHAPED_DRAWS:
        return bool(positional)
    return len(positional) > am.DRAW_SIZE_POSITION.get(name, 2)
