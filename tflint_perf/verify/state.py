"""The state flagged code changes, captured once and restored before every run (worker side).

Stateful code (a training step that updates a model and its optimizer) gives
different results on every run; comparing the original with its fix is
only meaningful when both start from the same state. ``State`` finds, from
the module's globals and the call's arguments:

- every variable (``tf.Variable``, Keras variables) reachable through
  containers, objects' attributes, ``.variables`` of models, layers and
  optimizers;
- random generators (``numpy.random.Generator``/``RandomState``,
  ``random.Random``);
- the contents of the module's own lists, dicts and sets;

and restores them all before each run. Variables created by a run (an
optimizer's slots, built on its first ``apply_gradients``) join the state
after the first calls, at their values then: both variants start every
compared run from that same point. What cannot be restored (an iterator's
position, an open file) is named by ``unrestorable`` when two runs of the
original disagree.
"""

from __future__ import annotations

import collections
import io
import random
import types
from typing import Any, Dict, List, Optional, Tuple

MAX_ITEMS = 1000
MAX_DEPTH = 3
MAX_VISITED = 50_000  # objects looked at per capture, whatever the module holds
_SKIP = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, str, bytes)
_CONTAINERS = (list, dict, set, bytearray, collections.deque)
MAX_SNAPSHOT = 1_000_000  # elements of an instance's container or array kept for restoring


def is_variable(value) -> bool:
    return (
        not isinstance(value, type)
        and callable(getattr(value, "assign", None))
        and callable(getattr(value, "numpy", None))
    )


def _generator_state(value):
    """(get, set) for a random generator, else None."""
    if isinstance(value, random.Random):
        return value.getstate, value.setstate
    if callable(getattr(value, "get_state", None)) and callable(getattr(value, "set_state", None)):
        return value.get_state, value.set_state  # numpy RandomState
    bit_generator = getattr(value, "bit_generator", None)
    if bit_generator is not None and hasattr(bit_generator, "state"):

        def put(state, bg=bit_generator):
            bg.state = state

        return (lambda bg=bit_generator: bg.state), put
    return None


class State:
    def __init__(self, np, roots, containers: Optional[Dict[str, Any]] = None) -> None:
        self.np = np
        self.roots = list(roots)
        self.variables: Dict[int, Tuple[Any, Any]] = {}
        self.generators: Dict[int, Tuple[Any, Any, Any]] = {}
        self.containers: Dict[str, Any] = {
            name: value
            for name, value in (containers or {}).items()
            if type(value) in _CONTAINERS and len(value) <= 10 * MAX_ITEMS
        }
        self.saved_containers = {name: self._copy(v) for name, v in self.containers.items()}
        self.objects: List[Tuple[dict, Dict[str, Tuple[Any, Any]]]] = []
        self.capture()

    def watch(self, obj) -> None:
        """Restore ``obj``'s own attributes too (a method's instance: epsilon, replay memory, ...)."""
        attributes = getattr(obj, "__dict__", None)
        if isinstance(attributes, dict):
            saved = {key: (value, self._snapshot(value)) for key, value in attributes.items()}
            self.objects.append((attributes, saved))
            self.roots.append(obj)

    def _snapshot(self, value):
        if type(value) in _CONTAINERS and len(value) <= MAX_SNAPSHOT:
            return self._copy(value)
        if (
            self.np is not None
            and isinstance(value, self.np.ndarray)
            and value.size <= MAX_SNAPSHOT
        ):
            return value.copy()
        return None

    # -- discovery --------------------------------------------------------
    def capture(self) -> int:
        """Add what is reachable now and not yet captured, at its current value; returns how many."""
        seen: set = set()
        before = len(self.variables) + len(self.generators)
        for root in self.roots:
            self._visit(root, 0, seen)
        return len(self.variables) + len(self.generators) - before

    def _visit(self, value, depth: int, seen: set) -> None:
        if id(value) in seen or isinstance(value, _SKIP) or value is None:
            return
        if len(seen) >= MAX_VISITED:
            return
        if isinstance(value, (int, float, complex, bool)):
            return
        seen.add(id(value))
        if is_variable(value):
            self._add_variable(value)
            return
        accessors = _generator_state(value)
        if accessors is not None:
            if id(value) not in self.generators:
                self.generators[id(value)] = (value, accessors[1], accessors[0]())
            return
        if depth >= MAX_DEPTH:
            return
        for item in self._members(value):
            self._visit(item, depth + 1, seen)

    def _members(self, value) -> List:
        if isinstance(value, (list, tuple, set, frozenset)):
            return list(value)[:MAX_ITEMS]
        if isinstance(value, dict):
            return list(value.values())[:MAX_ITEMS]
        if self.np is not None and isinstance(value, self.np.ndarray):
            return []
        if hasattr(type(value), "variables"):  # models, layers, optimizers, tf.Module
            try:
                found = list(value.variables)[: 100 * MAX_ITEMS]
            except Exception:
                return []
            # A compiled model's optimizer (its step count, its slots) is not among the
            # model's variables, and fit() moves it on.
            try:
                return found + [getattr(value, "optimizer", None)]
            except Exception:
                return found
        attributes = getattr(value, "__dict__", None)
        if isinstance(attributes, dict):
            return list(attributes.values())[:MAX_ITEMS]
        return []

    def _add_variable(self, variable) -> None:
        if id(variable) in self.variables:
            return
        try:
            self.variables[id(variable)] = (variable, self.np.array(variable.numpy()))
        except Exception:
            pass

    # -- restore and read -------------------------------------------------
    def restore(self) -> None:
        for variable, value in self.variables.values():
            try:
                variable.assign(value)
            except Exception:
                pass
        for _, put, state in self.generators.values():
            try:
                put(state)
            except Exception:
                pass
        for name, container in self.containers.items():
            self._refill(container, self.saved_containers[name])
        for attributes, saved in self.objects:
            for key in [k for k in attributes if k not in saved]:
                del attributes[key]  # made by a run
            for key, (value, snapshot) in saved.items():
                attributes[key] = value
                if snapshot is not None:
                    self._refill(value, snapshot)

    def _refill(self, container, saved) -> None:
        if isinstance(container, (dict, set, collections.deque)):
            container.clear()
            container.update(saved) if not isinstance(
                container, collections.deque
            ) else container.extend(saved)
        elif self.np is not None and isinstance(container, self.np.ndarray):
            if container.shape == saved.shape:
                container[...] = saved
        else:
            container[:] = saved

    @staticmethod
    def _copy(container):
        if isinstance(container, collections.deque):
            return collections.deque(container, container.maxlen)
        return dict(container) if isinstance(container, dict) else type(container)(container)

    def values(self) -> Dict[str, Any]:
        """The captured variables' current values by name (compared after each run)."""
        out: Dict[str, Any] = {}
        for index, (variable, _) in enumerate(self.variables.values()):
            name = str(getattr(variable, "path", None) or getattr(variable, "name", "") or "")
            key = (
                f"variable {name!r}"
                if name and f"variable {name!r}" not in out
                else f"variable {index}"
            )
            try:
                out[key] = self.np.array(variable.numpy())
            except Exception:
                out[key] = None
        return out

    def __len__(self) -> int:
        return len(self.variables)


def unrestorable(namespace: dict, arguments=()) -> List[str]:
    """What in the module's globals (or the arguments) keeps state ``State`` cannot restore."""
    found = []
    items = [(k, v) for k, v in namespace.items() if not k.startswith("__")]
    items += [(f"argument {i + 1}", v) for i, v in enumerate(arguments)]
    for name, value in items:
        if isinstance(value, (types.GeneratorType, types.AsyncGeneratorType)):
            found.append(f"`{name}` is a generator (its position cannot be restored)")
        elif isinstance(value, io.IOBase):
            found.append(f"`{name}` is an open file")
        elif (
            hasattr(value, "__next__")
            and hasattr(value, "__iter__")
            and not isinstance(value, type)
            and not is_variable(value)
        ):
            found.append(f"`{name}` is an iterator (its position cannot be captured and restored)")
    return found
