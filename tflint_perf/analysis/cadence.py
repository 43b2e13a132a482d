"""How often code in a loop runs: every iteration, or now and then.

Inside a loop, code under ``if step % 500 == 0:`` runs once every 500
iterations; code under a throttle, ``if step - last_eval >= every:`` (or ``step >=
last_eval + every``, also as one operand of ``or``) whose
block sets ``last_eval = step``, once per interval; code in an ``except``
clause for the end of the data (``tf.errors.OutOfRangeError``,
``StopIteration``) once per pass over it. Rules that judge what a step
costs leave such code alone: ``rare_guard(ctx, node)`` says why, or None.
Code in a block that leaves the loop (``if done: ...; break``) or that runs on
its first iteration (``if step == 0:``) runs once per run of it (``once_per_run``).
"""

from __future__ import annotations

from typing import Callable, Iterator, Optional, Tuple, Union, cast

from tflint_perf.analysis.api.steps import END_OF_DATA
from tflint_perf.analysis.semantic import LOOPS, SCOPE_NODES, SemanticModel
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.nodes import assigned_name, is_true
from tflint_perf.engine.walk import descendants

RARE_INTERVAL = 100  # ``% N`` with N at least this: a periodic task, not a step


def rare_guard(ctx, node: cst.CSTNode) -> Optional[str]:
    """Why ``node`` runs only now and then in its loop (None: every time it is reached).

    Looks between ``node`` and its loop or function."""

    def rare(branch: cst.If) -> Optional[str]:
        every = _modulo(ctx, branch)
        if every is not None and every >= RARE_INTERVAL:
            return f"`if {ctx.code(branch.test)}`: once every {every} iterations"
        return None

    return _guarded(ctx, node, rare)


def every_n(ctx, node: cst.CSTNode) -> Optional[Tuple[str, int]]:
    """(``if step % N == 0``, N) around ``node`` in its loop, N of any size."""
    for branch in _between(ctx, node):
        if isinstance(branch, cst.If):
            every = _modulo(ctx, branch)
            if every is None:
                resets = _resets(ctx, branch)
                every = next(
                    (
                        n
                        for t in _operands(branch.test)
                        for n in [_counter_period(ctx, t, resets)]
                        if n
                    ),
                    None,
                )
            if every is not None:
                return f"if {ctx.code(branch.test)}", every
    return None


def now_and_then(ctx, node: cst.CSTNode) -> Optional[str]:
    """Why ``node`` runs on some iterations of its loop only, periodically: under
    ``if step % N == 0`` for any N (also through a name bound to such a test,
    ``save = step % every == 0``; ``if save:``), a throttle, or the handler for the
    end of the data. None when it runs on every iteration that reaches it."""
    from tflint_perf.analysis.estimates import TINY
    from tflint_perf.analysis.trips import Trips

    sem: SemanticModel = ctx.shared(SemanticModel)
    trips: Trips = ctx.shared(Trips)

    def periodic(branch: cst.If) -> Optional[str]:
        test = branch.test
        for _ in range(4):  # ``if save:`` with ``save = step % every == 0`` (or an alias)
            value = sem.value_of(test) if isinstance(test, cst.Name) else None
            if value is None:
                break
            test = value
        for period in _periods(test):
            every = trips.number(period)
            if every is None or every > TINY:  # every 2 iterations is not now and then
                return f"`if {ctx.code(branch.test)}`: once every {every or 'N'} iterations"
        return None

    return _guarded(ctx, node, periodic)


def _guarded(ctx, node: cst.CSTNode, period: Callable[[cst.If], Optional[str]]) -> Optional[str]:
    """The first guard between ``node`` and its loop that runs it now and then: an
    ``if`` whose test ``period`` accepts, a throttle, the end of the data."""
    for branch in _between(ctx, node):
        if isinstance(branch, cst.If):
            why = period(branch) or _throttle(ctx, branch)
            if why is not None:
                return why
        elif isinstance(branch, cst.ExceptHandler) and _end_of_data(ctx, branch):
            return f"`except {ctx.code(branch.type)}`: once per pass over the data"
    return None


def once_per_run(ctx, node: cst.CSTNode, loop: cst.CSTNode) -> bool:
    """``node`` sits in an ``if`` block of ``loop`` that runs on one iteration of it only:
    the last, when the block leaves the loop (it ends with ``break`` or ``return``) or its
    test is one that ends it (``if done:`` in ``while not done:``, or beside an ``if done:
    break``); the first, under ``if step == 0`` for the loop's count from 0."""
    exits = None
    child = node
    inner = False  # a loop between the block and ``loop``: its ``break`` leaves that one
    for parent in ctx.ancestors_of(node):
        if parent is loop or isinstance(parent, SCOPE_NODES):
            return False
        if isinstance(parent, LOOPS) and child is parent.body:
            inner = True
        if isinstance(parent, cst.If) and child is parent.body:
            if _leaves(parent.body) and not inner:
                return True
            if exits is None:
                exits = _exit_tests(ctx, loop)
            if (
                _exits(ctx, parent.test, exits)
                or _raises_exit(parent.body, exits)
                or _first(ctx, parent.test, loop)
                or _one_key(ctx, parent.test, loop)
            ):
                return True
        child = parent
    return False


def _exits(ctx, test, exits: set) -> bool:
    """The test is one that ends the loop, or holds only with one (``done and game > 3``)."""
    if ctx.code(test).strip() in exits:
        return True
    return (
        isinstance(test, cst.BooleanOperation)
        and isinstance(test.operator, cst.And)
        and (_exits(ctx, test.left, exits) or _exits(ctx, test.right, exits))
    )


def _raises_exit(block: cst.BaseSuite, exits: set) -> bool:
    """The block sets a flag that ends the loop (``done = True``, with ``if done: break``
    after it): it runs on the loop's last iteration (``if done or r == -1: done = True``)."""
    return any(
        assigned_name(small) in exits and is_true(getattr(small, "value", None))
        for line in getattr(block, "body", ())
        if isinstance(line, cst.SimpleStatementLine)
        for small in line.body
    )


def _first(ctx, test, loop: cst.CSTNode) -> bool:
    """``step == 0`` where ``step`` is ``loop``'s target over ``range(n)``/``range(0, n)``
    or the count of ``enumerate(...)``."""
    if not (
        isinstance(loop, cst.For)
        and isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.Equal)
    ):
        return False
    sides = (test.left, test.comparisons[0].comparator)
    names = [s.value for s in sides if isinstance(s, cst.Name)]
    zero = [s for s in sides if isinstance(s, cst.Integer) and s.value == "0"]
    if len(names) != 1 or len(zero) != 1:
        return False
    it, target = loop.iter, loop.target
    if not isinstance(it, cst.Call) or not isinstance(it.func, cst.Name):
        return False
    if it.func.value == "range" and isinstance(target, cst.Name):
        starts_at_zero = len(it.args) == 1 or (
            isinstance(it.args[0].value, cst.Integer) and it.args[0].value.value == "0"
        )
        return starts_at_zero and target.value == names[0]
    if it.func.value == "enumerate" and len(it.args) == 1 and isinstance(target, cst.Tuple):
        first = target.elements[0].value
        return isinstance(first, cst.Name) and first.value == names[0]
    return False


def _one_key(ctx, test, loop: cst.CSTNode) -> bool:
    """``key == last`` where ``key`` walks the keys of a mapping (``for key, v in
    d.items()``, ``d.keys()``, possibly under ``enumerate``), which never repeat, and
    ``last`` is computed from nothing the loop binds: it holds on one iteration."""
    if not (
        isinstance(loop, cst.For)
        and isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, (cst.Equal, cst.Is))
    ):
        return False
    key = _key_target(loop.target, loop.iter)
    if key is None:
        return False
    sides = (test.left, test.comparisons[0].comparator)
    bound = {b.name for b in ctx.shared(SemanticModel).bindings_in(loop)}
    for this, other in (sides, sides[::-1]):
        if isinstance(this, cst.Name) and this.value == key:
            return not set(ctx.shared(SemanticModel).reads(other)) & bound
    return False


def _key_target(target, iterable) -> Optional[str]:
    """The name a ``for`` target gives each key of a mapping it walks."""
    if isinstance(iterable, cst.Call) and dotted(iterable.func) == "enumerate":
        if not (iterable.args and isinstance(target, cst.Tuple) and len(target.elements) == 2):
            return None
        return _key_target(target.elements[1].value, iterable.args[0].value)
    if not (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute)):
        return None
    method = iterable.func.attr.value
    if method == "keys" and isinstance(target, cst.Name):
        return target.value
    if method == "items" and isinstance(target, cst.Tuple) and target.elements:
        first = target.elements[0].value
        return first.value if isinstance(first, cst.Name) else None
    return None


def _leaves(block) -> bool:
    """The block's last statement is ``break`` or ``return``."""
    last = block.body[-1] if block.body else None
    small = last.body[-1] if isinstance(last, cst.SimpleStatementLine) and last.body else None
    return isinstance(small, (cst.Break, cst.Return))


def _exit_tests(ctx, loop: cst.CSTNode) -> set:
    """Tests that end ``loop``: ``done`` of ``while not done``, and of its ``if done: ...
    break`` blocks (not those of a loop inside it)."""
    out = set()
    if isinstance(loop, cst.While) and isinstance(loop.test, cst.UnaryOperation):
        if isinstance(loop.test.operator, cst.Not):
            out.add(ctx.code(loop.test.expression).strip())
    for n in descendants(cast(Union[cst.For, cst.While], loop).body, skip_scopes=True):
        if isinstance(n, cst.If) and _leaves(n.body) and not _in_inner_loop(ctx, n, loop):
            out.add(ctx.code(n.test).strip())
    return out


def _in_inner_loop(ctx, node: cst.CSTNode, loop: cst.CSTNode) -> bool:
    for parent in ctx.ancestors_of(node):
        if parent is loop:
            return False
        if isinstance(parent, LOOPS):
            return True
    return False


def _between(ctx, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The ``if`` blocks (``node`` in their body, not their ``else``) and ``except``
    clauses between ``node`` and its loop or function."""
    child = node
    for parent in ctx.ancestors_of(node):
        if isinstance(parent, cst.For) and child is parent.iter:
            child = parent  # ``for k in items(x)``: its iterable is read once per reach
            continue
        if isinstance(parent, LOOPS) or isinstance(parent, SCOPE_NODES):
            return
        if (isinstance(parent, cst.If) and child is parent.body) or isinstance(
            parent, cst.ExceptHandler
        ):
            yield parent
        child = parent


def _modulo(ctx, branch: cst.If) -> Optional[int]:
    """N of ``step % N == 0`` or ``not step % N`` anywhere in the test (``... and
    step > 0`` included): the block runs on one iteration in N. Not ``step % N``
    alone or ``!= 0``, which run on the others. N a literal or a name the trip
    estimate reads as one number (``COPY = 1000`` ... ``% self.COPY``)."""
    from tflint_perf.analysis.trips import Trips

    trips: Trips = ctx.shared(Trips)
    for period in _periods(branch.test):
        every = trips.number(period)
        if every is not None:
            return every
    return None


def _periods(test: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """N of each ``x % N == 0`` or ``not x % N`` anywhere in ``test`` (not ``x % N``
    alone or ``!= 0``, which hold on the other iterations)."""
    for sub in [test, *descendants(test)]:
        operands: Tuple[cst.BaseExpression, ...]
        if isinstance(sub, cst.Comparison) and len(sub.comparisons) == 1:
            if not isinstance(sub.comparisons[0].operator, cst.Equal):
                continue
            operands = (sub.left, sub.comparisons[0].comparator)
        elif isinstance(sub, cst.UnaryOperation) and isinstance(sub.operator, cst.Not):
            operands = (sub.expression,)
        else:
            continue
        for operand in operands:
            if isinstance(operand, cst.BinaryOperation) and isinstance(
                operand.operator, cst.Modulo
            ):
                yield operand.right


def _throttle(ctx, branch: cst.If) -> Optional[str]:
    """``if now - last >= every:`` or ``if now >= last + every:`` (alone, or one
    operand of ``or``/``and``, like the period of ``_modulo``) whose block sets
    ``last = now``."""
    resets = _resets(ctx, branch)
    for test in _operands(branch.test):
        for now, last in _intervals(test):
            if (ctx.code(last), ctx.code(now)) in resets:
                return f"`if {ctx.code(test)}`: once per interval (`{ctx.code(last)}` is reset)"
        every = _counter_period(ctx, test, resets)
        if every is not None and every >= RARE_INTERVAL:
            return f"`if {ctx.code(test)}`: once every {every} iterations (the counter is reset)"
    return None


def _resets(ctx, branch: cst.If) -> set:
    """(target, value) of the plain assignments of the block's own statements."""
    return {
        (ctx.code(t.target), ctx.code(small.value))
        for statement in branch.body.body
        if isinstance(statement, cst.SimpleStatementLine)
        for small in statement.body
        if isinstance(small, cst.Assign)
        for t in small.targets
    }


def _counter_period(ctx, test, resets) -> Optional[int]:
    """N of ``if count > N:`` (``>=``, ``==``) whose block sets ``count`` back to a
    number (``count = 0``), N a literal or a name bound once to one: a counter the
    loop steps, acted on once per N steps."""
    if not (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(
            test.comparisons[0].operator, (cst.GreaterThan, cst.GreaterThanEqual, cst.Equal)
        )
        and isinstance(test.left, (cst.Name, cst.Attribute))
    ):
        return None
    reset = dict(resets).get(ctx.code(test.left))
    if reset is None or not reset.lstrip("-").isdigit():
        return None
    bound = test.comparisons[0].comparator
    for _ in range(4):  # through aliases (every = copy_every)
        if not isinstance(bound, cst.Name):
            break
        bound = ctx.shared(SemanticModel).value_of(bound)
    if not isinstance(bound, cst.Integer):
        return None
    return int(bound.evaluated_value)


def _operands(test: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The comparisons ``and``/``or`` join in a test (the test itself if none)."""
    if isinstance(test, cst.BooleanOperation):
        yield from _operands(test.left)
        yield from _operands(test.right)
    else:
        yield test


def _intervals(test: cst.BaseExpression) -> Iterator[Tuple[cst.BaseExpression, cst.BaseExpression]]:
    """(now, last) candidates of ``now - last >= every`` or ``now >= last + every``
    (``>`` too; either operand of the sum may be the mark)."""
    if not (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, (cst.GreaterThanEqual, cst.GreaterThan))
    ):
        return
    left, right = test.left, test.comparisons[0].comparator
    if isinstance(left, cst.BinaryOperation) and isinstance(left.operator, cst.Subtract):
        yield left.left, left.right
    if isinstance(right, cst.BinaryOperation) and isinstance(right.operator, cst.Add):
        yield left, right.left
        yield left, right.right


def _end_of_data(ctx, handler: cst.ExceptHandler) -> bool:
    caught = handler.type
    if caught is None:
        return False
    names = caught.elements if isinstance(caught, cst.Tuple) else None
    exprs = [e.value for e in names] if names is not None else [caught]
    return any((ctx.qualname(e) or ctx.code(e)) in END_OF_DATA for e in exprs)
