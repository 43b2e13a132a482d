"""A module's text for the verification rewrites: its ``ast``, positions, small helpers.

Analysis uses the standard ``ast`` module: the verify planner only needs
statement boundaries and a few expression shapes, and must stay cheap.
"""

from __future__ import annotations

import ast
from typing import Callable, Dict, Optional, Union

from tflint_perf.engine.rule import Edit

# What has a position in the source: statements and expressions. ``ast.parse``
# sets their end positions too; typeshed allows None there for nodes built by hand.
Located = Union[ast.stmt, ast.expr]


def last_line(node: Located) -> int:
    """The node's last line (1-based)."""
    assert node.end_lineno is not None, "ast.parse sets end positions"
    return node.end_lineno


def end_col(node: Located) -> int:
    """The (byte) column just after the node on its last line."""
    assert node.end_col_offset is not None, "ast.parse sets end positions"
    return node.end_col_offset


class Unsupported(Exception):
    """This occurrence has no verification rewrite (the message says why)."""


class Source:
    """A module's text with its ``ast`` and character (not byte) columns."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.tree = ast.parse(text)
        self.parents: Dict[ast.AST, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node

    def col(self, line: int, byte_col: int) -> int:
        raw = self.lines[line - 1].encode("utf-8")[:byte_col]
        return len(raw.decode("utf-8", errors="replace"))

    def segment(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.text, node) or ""

    def span_edit(self, first: Located, last: Located, content: str) -> Edit:
        return Edit(
            first.lineno,
            self.col(first.lineno, first.col_offset),
            last_line(last),
            self.col(last_line(last), end_col(last)),
            content,
        )

    def tf_alias(self) -> Optional[str]:
        return self.module_alias("tensorflow")

    def module_alias(self, module: str) -> Optional[str]:
        """The name a top-level ``import module [as name]`` binds, if any."""
        for node in self.tree.body:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == module:
                        return alias.asname or module
        return None

    def block_of(self, stmt: ast.stmt):
        parent = self.parents.get(stmt)
        for name in ("body", "orelse", "finalbody"):
            block = getattr(parent, name, None)
            if isinstance(block, list) and stmt in block:
                return block
        for handler in getattr(parent, "handlers", []) or []:
            if stmt in handler.body:
                return handler.body
        return None


def dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


def uses(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


class Substitute(ast.NodeTransformer):
    def __init__(self, match: Callable[[ast.AST], bool], replacement: ast.AST) -> None:
        self.match, self.replacement = match, replacement

    def visit(self, node):
        if self.match(node):
            return self.replacement
        return super().visit(node)
