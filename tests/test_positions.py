"""Positions one top-level statement at a time equal LibCST's whole-module ones."""

import libcst as cst
import pytest

from tflint_perf.engine.context import FileContext
from tflint_perf.engine.positions import StatementPositions, positions_of

SOURCES = {
    "decorators and comments": (
        '"""doc"""\nimport os\n\n# c\n@dec\n# between\n@dec2(1,\n      2)\n'
        "def f(a):\n    return a\n\n\nclass C(object):\n    @property\n    def g(self):\n"
        "        return [x\n                for x in range(3)]\n"
    ),
    "several statements on a line": "a = 1; b = (2 +\n     3); c = [\n  4]\nprint(a, b, c)\n",
    "async and continuations": (
        "async def f():\n    await g()\n\nx = 1 + \\\n    2\nif x:\n    y = '''a\nb'''\n"
        "else:\n    pass\n"
    ),
    "no trailing newline": "for i in range(3):\n    print(i)",
    "header comment and blank lines": "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n\n\nx = 1\n",
}


def _parents(module):
    parents = {}

    class Visitor(cst.CSTVisitor):
        def on_visit(self, node):
            for child in node.children:
                parents[child] = node
            return True

    module.visit(Visitor())
    return parents


@pytest.mark.parametrize("source", SOURCES.values(), ids=list(SOURCES))
def test_every_node_is_placed_where_the_whole_module_puts_it(source):
    module = cst.parse_module(source)
    whole = positions_of(module)
    parents = _parents(module)
    by_statement = StatementPositions(module, source, parents.get)
    in_statements = 0
    for node, expected in whole.items():
        top = node
        while top in parents and parents[top] is not module:
            top = parents[top]
        if parents.get(top) is module and top in module.body:
            in_statements += 1
            assert by_statement.position(node) == expected, type(node).__name__
        else:  # the module, its header and footer: the whole module's positions
            assert by_statement.position(node) is None
    assert in_statements > len(module.body)


@pytest.mark.parametrize("source", ["x = 1\r\ny = 2\r\n", "x = 1\n\x0cy = 2\n"])
def test_line_ends_cpython_counts_otherwise_are_left_to_the_whole_module(source):
    module = cst.parse_module(source)
    by_statement = StatementPositions(module, source, _parents(module).get)
    assert by_statement.lines() == {}
    assert by_statement.position(module.body[1]) is None


def test_a_file_context_falls_back_to_the_whole_module_for_the_module_node():
    source = "x = 1\ny = 2\n"
    module = cst.parse_module(source)
    ctx = FileContext("m.py", source, module)
    ctx.parents.update(_parents(module))
    assert ctx.position(module.body[1]).start.line == 2
    assert ctx._positions is None  # placed from its statement alone
    assert ctx.position(module).start.line == 1
    assert ctx._positions is not None
