"""LibCST's node classes, made cheap to hash and to test with ``isinstance``.

The analyses key dicts by nodes and test node classes tens of millions of
times over a corpus, and LibCST makes both a Python call:

- ``CSTNode.__hash__`` is ``return id(self)`` in Python. ``object.__hash__``
  is also by identity, in C: a node's hash value changes, never what it
  means (a node is equal only to itself).
- Every node class is an ABC: ``isinstance(x, cst.Name)`` runs
  ``ABCMeta.__instancecheck__`` (Python) whenever ``x`` is not exactly a
  ``Name``. LibCST registers no virtual subclass of its nodes, so ``type``'s
  own check (C) gives the same answers.

``tune(libcst)`` runs once, as LibCST is loaded and before any node exists
(``tflint_perf.engine``): a node hashed before would be lost in its dicts.

``parse_module(source)`` is LibCST's, without the validation of every node
the parser builds (``CSTNode.__post_init__`` calls ``_validate``, checks
that raise on a node built by hand wrongly and change nothing): the
parser's nodes are valid by construction, and the checks are a fifth of
the parse. Nodes built anywhere else are still validated.
"""

from __future__ import annotations

from abc import ABCMeta


class NodeMeta(ABCMeta):
    """ABCMeta with ``type``'s checks: subclasses only, no registered ones."""

    __instancecheck__ = type.__instancecheck__
    __subclasscheck__ = type.__subclasscheck__


def tune(libcst) -> None:
    """Give every LibCST node class object's hash and ``NodeMeta`` (idempotent)."""
    base = libcst.CSTNode
    if type(base) is NodeMeta:
        return
    python_hash = base.__dict__.get("__hash__")
    classes = [base]
    seen = {base}
    for cls in classes:  # grows as it goes: every subclass, once
        for sub in cls.__subclasses__():
            if sub not in seen:
                seen.add(sub)
                classes.append(sub)
    for cls in classes:
        if cls.__dict__.get("__hash__") is python_hash:
            cls.__hash__ = object.__hash__
        if type(cls) is ABCMeta:
            cls.__class__ = NodeMeta


def _no_validation(self) -> None:
    pass


def parse_module(libcst, source: str):
    """``libcst.parse_module(source)``, the nodes it builds not validated; as
    LibCST's own when ``__post_init__`` does more than call ``_validate``."""
    base = libcst.CSTNode
    validate = base.__dict__.get("__post_init__")
    if getattr(getattr(validate, "__code__", None), "co_names", None) != ("_validate",):
        return libcst.parse_module(source)
    base.__post_init__ = _no_validation
    try:
        return libcst.parse_module(source)
    finally:
        base.__post_init__ = validate
