"""What a rule may ask of a module before LibCST parses it.

Python's own ``ast`` parses about ten times faster than LibCST, and most
modules of a real repository cannot hold any trap: no loop over data, no
training step, no device configuration, no dataset. Each rule states, in
``Rule.screen(facts)``, a necessary condition for reporting anything; a
module that meets no active rule's condition is done without LibCST.

A screen must never lose a finding: it may only say "cannot report here"
when the rule itself could not. ``tests/test_screen.py`` lints every
fixture and example with and without screens and wants the same findings;
``bench/screen_identity.py`` does the same over whole corpora.

Facts are computed on first use and shared by the rules of one module.
"""

from __future__ import annotations

import ast
import re
from typing import Dict, List, Optional, Tuple

LOOP_TYPES = (ast.For, ast.AsyncFor, ast.While)
COMPREHENSION_TYPES = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class Facts:
    """Cheap facts about one module, from its text and its ``ast`` tree."""

    def __init__(self, source: str, tree: ast.Module) -> None:
        self.source = source
        self.tree = tree
        self._by_type: Optional[Dict[type, List[ast.AST]]] = None
        self._has_loop: Dict[bool, bool] = {}

    def nodes(self, *types: type) -> List[ast.AST]:
        """The module's nodes of the given ``ast`` classes (one walk, shared)."""
        if self._by_type is None:
            by_type: Dict[type, List[ast.AST]] = {}
            for node in ast.walk(self.tree):
                by_type.setdefault(type(node), []).append(node)
            self._by_type = by_type
        found: List[ast.AST] = []
        for node_type in types:
            found += self._by_type.get(node_type, ())
        return found

    def has_loop(self, comprehensions: bool = True) -> bool:
        kinds = LOOP_TYPES + (COMPREHENSION_TYPES if comprehensions else ())
        if comprehensions not in self._has_loop:
            if self._by_type is not None:
                found = bool(self.nodes(*kinds))
            else:  # stops at the first loop: most modules that have one show it early
                # (and none without the keyword a loop or a comprehension is spelled with)
                spelled = "for" in self.source or "while" in self.source
                found = spelled and _holds(self.tree, kinds)
            self._has_loop[comprehensions] = found
        return self._has_loop[comprehensions]


def _holds(tree: ast.AST, kinds: tuple) -> bool:
    """Whether a node of ``kinds`` is in ``tree``: ``ast.walk`` without its
    generators (a third faster; most modules have no loop, walked whole)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, kinds):
            return True
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        stack.append(item)
            elif isinstance(value, ast.AST):
                stack.append(value)
    return False


def ast_tree(source: str, flags: int = 0) -> Optional[ast.Module]:
    """The module's ``ast`` tree, or None when CPython cannot parse it."""
    try:
        tree = compile(
            source, "<tflint-perf>", "exec", flags=ast.PyCF_ONLY_AST | flags, dont_inherit=True
        )
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return tree if isinstance(tree, ast.Module) else None


# LibCST's native parser recurses once per level of nesting it builds and
# dies (a C stack overflow: no exception, the process ends) past about 8,000
# levels. CPython itself refuses code nested deeper than about 3,000 levels,
# with one exception: ``a and b and ...`` is one flat node for CPython but one
# level per operand for LibCST. So only a module with many ``and``/``or`` can
# go past the limit; only there is the depth measured.
LIBCST_DEPTH_LIMIT = 4000
_BOOL_WORDS = re.compile(r"\b(?:and|or)\b")


def too_deep_for_libcst(source: str, tree: ast.Module) -> Optional[Tuple[int, int]]:
    """(levels, line) when LibCST would nest the module deeper than it can parse."""
    # Each word counted is an occurrence of its letters: counting those (in C,
    # a fifteenth of the regex's time) tells most modules at once.
    if source.count("and") + source.count("or") < LIBCST_DEPTH_LIMIT - 3000:
        return None
    if len(_BOOL_WORDS.findall(source)) < LIBCST_DEPTH_LIMIT - 3000:
        return None
    deepest, line = libcst_depth(tree)
    return (deepest, line) if deepest > LIBCST_DEPTH_LIMIT else None


def libcst_depth(tree: ast.AST) -> Tuple[int, int]:
    """(levels, line) of the deepest nesting LibCST builds for ``tree``."""
    deepest, where = 0, 1
    stack: List[Tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        depth += len(node.values) if isinstance(node, ast.BoolOp) else 1
        if depth > deepest:
            deepest, where = depth, getattr(node, "lineno", where)
        stack.extend((child, depth) for child in ast.iter_child_nodes(node))
    return deepest, where
