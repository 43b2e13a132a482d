"""Dataflow questions over the semantic model: what a region computes from what."""

from __future__ import annotations

from typing import Set

from tflint_perf.analysis.scopes import binding_input
from tflint_perf.engine import cst


def derived(sem, region: cst.CSTNode, source: cst.CSTNode) -> Set[str]:
    """Names bound in ``region`` whose value is computed from ``source`` (an
    expression inside it), directly or through other such names; what an
    ``if`` on a derived value chooses is derived too."""
    bindings = sem.bindings_in(region)
    derived: Set[str] = set()
    for binding in bindings:
        if sem.ctx.contains(binding.statement, source) and binding.statement is not region:
            derived.add(binding.name.split(".", 1)[0])
    tests = [
        (node, set(sem.reads(node.test)))
        for node in sem.ctx.nodes(cst.If)
        if sem.ctx.contains(region, node)
    ]
    changed = True
    while changed:
        changed = False
        for binding in bindings:
            root = binding.name.split(".", 1)[0]
            if root in derived:
                continue
            made_from = binding_input(binding)
            inputs = set(sem.reads(made_from)) if made_from is not None else set()
            chosen = any(
                names & derived and sem.ctx.contains(node, binding.statement)
                for node, names in tests
            )
            if inputs & derived or chosen:
                derived.add(root)
                changed = True
    return derived
