"""Snippet in, fact out: a parsed and walked module for analysis unit tests."""

import textwrap
from typing import List, Type, TypeVar

from tflint_perf.engine import cst
from tflint_perf.engine.context import FileContext
from tflint_perf.engine.walk import walk

N = TypeVar("N", bound="cst.CSTNode")


def context(source: str, path: str = "snippet.py") -> FileContext:
    """The FileContext a rule would see for ``source`` (dedented)."""
    source = textwrap.dedent(source).lstrip("\n")
    module = cst.parse_module(source)
    ctx = FileContext(path, source, module)
    walk(module, {}, {}, ctx.parents, ctx.ancestors, ctx.by_type, ctx.spans)
    return ctx


def find(ctx: FileContext, node_type: Type[N], code: str, nth: int = 0) -> N:
    """The ``nth`` node of ``node_type`` whose source text is ``code``."""
    found: List[N] = [n for n in ctx.nodes(node_type) if ctx.code(n).strip() == code]
    assert len(found) > nth, f"no {node_type.__name__} {code!r} (found {len(found)})"
    return found[nth]


def name(ctx: FileContext, spelled: str, nth: int = 0) -> cst.Name:
    return find(ctx, cst.Name, spelled, nth)
