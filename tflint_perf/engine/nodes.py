"""Groups of LibCST node classes that modules can name at import time.

``LOOPS = node_types("For", "While")`` works in ``isinstance(x, LOOPS)``
like the tuple ``(cst.For, cst.While)``, but the classes are looked up on
the first check: defining the group does not load LibCST, so importing the
rules costs nothing for a module that no rule's screen lets through (see
``tflint_perf.engine``).
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple


class _NodeGroup(type):
    names: Tuple[str, ...]
    _types: Optional[tuple]
    _member: Dict[type, bool]  # class of an object -> whether it is in the group

    def __instancecheck__(cls, obj) -> bool:
        # LibCST's classes are ABCs: isinstance against a tuple of them costs a
        # Python-level check per class; the answer per class of object is kept.
        found = cls._member.get(type(obj))
        if found is None:
            types = cls._types
            if types is None:
                from tflint_perf.engine import cst

                types = cls._types = tuple(getattr(cst, name) for name in cls.names)
            found = cls._member[type(obj)] = isinstance(obj, types)
        return found

    def __repr__(cls) -> str:
        return f"node_types{cls.names}"


def node_types(*names: str) -> type:
    """A class that ``isinstance`` treats as the tuple of these LibCST classes."""
    return _NodeGroup("NodeGroup", (), {"names": names, "_types": None, "_member": {}})


_NAME = node_types("Name")
_COMPARISON = node_types("Comparison")
_IDENTITY = node_types("Is", "IsNot")
_ASSIGN = node_types("Assign")


def assigned_name(node: Any) -> Optional[str]:
    """The plain name a one-target ``name = value`` binds (None for anything else)."""
    targets: Sequence[Any] = getattr(node, "targets", ()) if isinstance(node, _ASSIGN) else ()
    target = targets[0].target if len(targets) == 1 else None
    return getattr(target, "value", None) if isinstance(target, _NAME) else None


def is_true(node) -> bool:
    """The literal ``True`` (a ``Name`` in LibCST)."""
    return isinstance(node, _NAME) and getattr(node, "value", None) == "True"


def is_none(node) -> bool:
    """The literal ``None`` (a ``Name`` in LibCST)."""
    return isinstance(node, _NAME) and getattr(node, "value", None) == "None"


def is_none_test(node) -> bool:
    """``x is None`` / ``x is not None``."""
    comparisons: Sequence[Any] = (
        getattr(node, "comparisons", ()) if isinstance(node, _COMPARISON) else ()
    )
    if len(comparisons) != 1:
        return False
    return isinstance(comparisons[0].operator, _IDENTITY) and is_none(comparisons[0].comparator)
