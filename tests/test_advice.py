"""Advice users can paste: on every TFP101 fixture, each code snippet of a finding parses,
the advice's code reads no name bound only by the loop it replaces, and the whole-array
code the detail shows is the one attached for ``--verify``."""

import re

import pytest

from fixture_cases import FIXTURES
from tests.analysis.snippets import context
from tflint_perf.analysis.lifting import names_read
from tflint_perf.analysis.semantic import SemanticModel
from tflint_perf.engine import cst
from tflint_perf.engine.linter import lint_source
from tflint_perf.rules import all_rules

CODE = "TFP101"
CASES = sorted((FIXTURES / CODE).glob("bad_*.py"))
SNIPPET = re.compile(r"`([^`]+)`")
# Detail lines that give the replacement (the headline's gives it after ": ").
ADVICE_LINES = ("Instead:", "  `", "Or:")


def parse(snippet: str):
    """The snippet as an expression, else as statements (``x[:] = y``, ``axis=1``)."""
    try:
        return cst.parse_expression(snippet)
    except Exception:  # noqa: BLE001 - LibCST's ParserSyntaxError
        return cst.parse_module(snippet + "\n")


def loop_only_names(source: str, line: int, column: int) -> set:
    """Names bound only inside the loop (or comprehension) that starts at the finding."""
    ctx = context(source)
    sem = ctx.shared(SemanticModel)
    kinds = (cst.For, cst.While, cst.ListComp, cst.GeneratorExp)
    loop = next(
        n
        for kind in kinds
        for n in ctx.nodes(kind)
        if (ctx.position(n).start.line, ctx.position(n).start.column + 1) == (line, column)
    )
    first, last = ctx.span(loop)
    out = set()
    for binding in sem.bindings_in(loop):
        every = binding.scope.bindings.get(binding.name, [])
        if "." not in binding.name and all(
            first <= ctx.span(b.statement)[0] <= last for b in every
        ):
            out.add(binding.name)
    return out


def advice_snippets(finding) -> list:
    found = SNIPPET.findall(finding.message.partition(": ")[2])
    for line in finding.detail.splitlines():
        if line.startswith(ADVICE_LINES):
            found += SNIPPET.findall(line)
    return found


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_every_snippet_parses_and_the_advice_reads_no_loop_only_name(path):
    source = path.read_text()
    findings = [f for f in lint_source(source, str(path), all_rules()) if f.code == CODE]
    assert findings
    for finding in findings:
        for snippet in SNIPPET.findall(finding.message + "\n" + finding.detail):
            parse(snippet)  # raises when a snippet is not Python
        loop_only = loop_only_names(source, finding.line, finding.column)
        for snippet in advice_snippets(finding):
            used = names_read(parse(snippet)) & loop_only
            assert not used, f"{path.name}:{finding.line}: `{snippet}` reads {sorted(used)}"
        assert len(finding.message) <= 100, finding.message


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_the_detail_shows_the_code_verify_times(path):
    source = path.read_text()
    for finding in lint_source(source, str(path), all_rules()):
        whole = finding.extra.get("whole_array")
        if finding.code != CODE or whole is None:
            continue
        shown = [
            s
            for line in finding.detail.splitlines()
            if line.startswith(("Instead:", "  `"))
            for s in SNIPPET.findall(line)
        ]
        assert "\n".join(shown) == whole["code"]
        assert whole["edits"] and all(e["content"].strip() for e in whole["edits"])
