"""Lint one source text: parse once, walk once, every enabled rule."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Pattern, Sequence, Tuple, Type

from tflint_perf.engine import cst, fastnodes, noqa
from tflint_perf.engine.cells import PERCENT_MARKER, Cells, compile_error
from tflint_perf.engine.context import FileContext, Indexes
from tflint_perf.engine.fixes import applicable, apply_edits, choose_fixes
from tflint_perf.engine.indentation import Expanded, expand_indentation
from tflint_perf.engine.project import ProjectView
from tflint_perf.engine.rule import SYNTAX_CODE, SYNTAX_NAME, Finding, Fix, Rule
from tflint_perf.engine.screen import LIBCST_DEPTH_LIMIT, Facts, ast_tree, too_deep_for_libcst
from tflint_perf.engine.walk import dispatch_tables, replay, walk

MAX_FIX_PASSES = 10

# Rules only apply to modules that use one of these.
_USES_FRAMEWORK = re.compile(r"\b(tensorflow|keras|tf_keras|numpy)\b")


def syntax_finding(path: str, line: int, column: int, reason: str) -> Finding:
    return Finding(path, line, column, line, column, SYNTAX_CODE, SYNTAX_NAME, reason)


@dataclass
class Parsed:
    """A module as the rules see it, and the syntax errors found on the way.

    ``module`` is None when nothing could be parsed. In a module made of
    cells, a cell that does not parse is reported and left blank, and the
    rest is parsed (``source`` is then that blanked text, same lines).
    """

    module: Optional[cst.Module]
    source: str
    errors: List[Finding]
    cells: Optional[Cells] = None
    # Set when LibCST read the module only with its indentation's tabs expanded:
    # ``source`` is that text; findings' columns are moved back, and no fix is offered.
    expanded: Optional[Expanded] = None
    # The first pass's walk of ``module``, kept with the parse for the passes
    # that reuse it (``ProjectView.keep``): they replay the rules' hooks instead.
    indexes: Optional[Indexes] = None


def find_cells(source: str, path: str, marker: Optional[Pattern]) -> Optional[Cells]:
    if marker is not None:
        return Cells.find(source, marker, in_notebook=True)
    if path.endswith(".py"):
        return Cells.find(source, PERCENT_MARKER, in_notebook=False)
    return None


def _syntax_errors(source: str, path: str, cells: Optional[Cells]):
    """Findings for what does not compile, and the cells to blank (by index).

    Positions come from CPython's own compiler: what ``python`` says.
    """
    if cells is not None:
        broken = cells.broken(source)
        if broken:
            return [syntax_finding(path, line, col, msg) for _, line, col, msg in broken], [
                k for k, *_ in broken
            ]
    error = compile_error(source)
    if error is None:
        return [], []
    return [syntax_finding(path, *error)], None


def check_syntax(source: str, path: str, cell_marker: Optional[Pattern] = None) -> List[Finding]:
    """For files no rule needs to parse: CPython's parser is ten times faster."""
    if compile_error(source) is None:
        return []
    return _syntax_errors(source, path, find_cells(source, path, cell_marker))[0]


def parse(
    source: str,
    path: str,
    cell_marker: Optional[Pattern] = None,
    tree: Optional[ast.Module] = None,
) -> Parsed:
    """Parse with LibCST what CPython accepts; report the rest where CPython says.

    LibCST never sees a text CPython rejects: its native parser can crash
    the process on input CPython refuses as too deeply nested. In a module
    of cells, a cell that does not parse is reported and blanked, and the
    rest is parsed.
    """
    tree = tree if tree is not None else cpython_tree(source)
    if tree is not None:
        cells = find_cells(source, path, cell_marker) if cell_marker is not None else None
        return _libcst_parse_guarded(source, path, tree, cells)
    cells = find_cells(source, path, cell_marker)
    errors, blanked = _syntax_errors(source, path, cells)
    if not errors:  # CPython rejects the module, not any one of its cells
        errors = [syntax_finding(path, *(compile_error(source) or (1, 1, "SyntaxError")))]
    if not blanked or cells is None:
        return Parsed(None, source, errors, cells)
    kept = cells.blank(source, blanked)
    kept_tree = cpython_tree(kept)
    if kept_tree is None:
        return Parsed(None, source, errors, cells)
    inner = _libcst_parse_guarded(kept, path, kept_tree, cells)
    return Parsed(inner.module, inner.source, errors + inner.errors, cells, inner.expanded)


def cpython_tree(source: str) -> Optional[ast.Module]:
    """CPython's tree of a module, top-level ``await`` allowed (notebooks run it)."""
    return ast_tree(source) or ast_tree(source, ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)


def _libcst_parse_guarded(source: str, path: str, tree: ast.Module, cells) -> Parsed:
    deep = too_deep_for_libcst(source, tree)
    if deep is not None:
        levels, line = deep
        reason = (
            f"not analysed: an expression nested {levels:,} levels deep "
            f"(the parser's limit is {LIBCST_DEPTH_LIMIT:,})"
        )
        return Parsed(None, source, [syntax_finding(path, line, 1, reason)], cells)
    module, error = _libcst_parse(source, path)
    if module is None and error is not None and error.message.startswith(_LIBCST_LIMIT):
        expanded = expand_indentation(source)  # a tab then spaces: CPython's reading
        if expanded is not None:
            module, _ = _libcst_parse(expanded.source, path)
            if module is not None:
                return Parsed(module, expanded.source, [], cells, expanded)
    return Parsed(module, source, [error] if error is not None else [], cells)


_LIBCST_LIMIT = "not analysed: valid Python that LibCST cannot parse"


def _libcst_parse(source: str, path: str):
    """LibCST's module of a text CPython accepts; an error is LibCST's limit, said so."""
    try:
        return fastnodes.parse_module(cst, source), None
    except cst.ParserSyntaxError as exc:
        reason = f"{_LIBCST_LIMIT} ({exc.message})"
        return None, syntax_finding(path, exc.raw_line, exc.raw_column + 1, reason)
    except (RecursionError, MemoryError) as exc:  # pathological nesting
        reason = f"not analysed: LibCST's parser raised {type(exc).__name__}"
        return None, syntax_finding(path, 1, 1, reason)


def _moved_back(findings: List[Finding], expanded: Expanded) -> List[Finding]:
    """Findings of a module analysed with its indentation's tabs expanded, at the
    columns of the file as written; the fixes were made for the expanded text."""
    for f in findings:
        f.column = expanded.column(f.line, f.column)
        f.end_column = expanded.column(f.end_line, f.end_column)
        if f.fix is not None:
            f.fix = None
            note = "No fix offered: this file indents with tabs and spaces mixed."
            f.detail = f"{f.detail}\n{note}" if f.detail else note
    return findings


def analyse_source(
    source: str, path: str, after: Callable[[FileContext], None], project=None
) -> bool:
    """Parse and walk a module without rules, then ``after(ctx)``: what the
    project index needs of a module no rule had to read. False when it does
    not parse. A parse of the same text in ``project.parsed`` is reused, and
    this one left there when ``project.keep`` (as ``lint_source`` does)."""
    kept = project.parsed if project is not None else None
    if kept is not None and kept[0] == source:  # the lint of this text parsed it
        _, tree, parsed = kept
    else:
        tree = cpython_tree(source)
        parsed = _libcst_parse_guarded(source, path, tree, None) if tree is not None else None
    if project is not None and project.keep and parsed is not None:
        project.parsed = (source, tree, parsed)
    if tree is None or parsed is None or parsed.module is None:
        return False
    ctx = FileContext(path, parsed.source, parsed.module, indexes=parsed.indexes)
    ctx.project = project
    ctx.ast_tree = tree  # def lines without LibCST's positions (exports)
    try:
        if parsed.indexes is None:
            walk(parsed.module, {}, {}, ctx.parents, ctx.ancestors, ctx.by_type, ctx.spans)
        after(ctx)
    finally:
        ctx.release()
    return True


def active_rules(source: str, rule_classes: Sequence[Type[Rule]]) -> List[Type[Rule]]:
    """The rules whose cheap text pre-check matches this source."""
    if not _USES_FRAMEWORK.search(source):
        return []
    active = []
    for rule in rule_classes:  # loops, not any() over a generator: this runs for every file
        for trigger in rule.triggers:
            if trigger in source:
                active.append(rule)
                break
        else:
            if not rule.triggers:
                active.append(rule)
    return active


def lint_source(
    source: str,
    path: str,
    rule_classes: Sequence[Type[Rule]],
    cell_marker: Optional[Pattern] = None,
    tree: Optional[ast.Module] = None,
    screen: bool = True,
    silences: Optional[list] = None,
    project: Optional[ProjectView] = None,
    after: Optional[Callable[[FileContext], None]] = None,
) -> List[Finding]:
    """Findings for one module, noqa applied, sorted by position.

    ``cell_marker`` matches the line before each cell of a joined notebook;
    scripts with ``# %%`` markers are split into cells on their own.
    ``tree`` is the module's ``ast`` tree when the caller has one (flake8);
    ``screen=False`` skips the rules' screens (to test that they lose nothing).
    ``silences``: a list to record the rules' silent exits in (``tflint-perf
    why``; screens are skipped then, so every rule looks). ``project``: what
    the file may know of the other modules of the tree; ``after(ctx)`` runs
    once the rules are done (the runner collects the file's exports there).
    """
    if noqa.file_is_exempt(source):
        return []
    rules = active_rules(source, rule_classes)
    forced: List[Type[Rule]] = []
    if project is not None and project.imports_tree(source):
        # What another module of the tree does may concern a rule that reads
        # the project, whatever words this one uses: with a loop to repeat it.
        forced = [r for r in rule_classes if r.reads_project and r not in rules]
        rules = rules + forced
    if not rules:
        return _located(check_syntax(source, path, cell_marker), source, path, cell_marker)
    previous = project.parsed if project is not None else None
    if previous is not None and previous[0] == source:  # a previous pass parsed this text
        _, tree, parsed = previous
    else:
        tree, parsed = (tree if tree is not None else cpython_tree(source)), None
    if tree is not None and screen and silences is None:
        facts = Facts(source, tree)
        if forced and not facts.has_loop():
            rules = [r for r in rules if r not in forced]
        passing = screened(rules, facts) if rules else None
        if passing is None:
            return []  # parses, and no rule can report here: LibCST not needed
        rules = passing
    if parsed is None:
        parsed = parse(source, path, cell_marker, tree)
    if project is not None and project.keep:
        project.parsed = (source, tree, parsed)
    findings = list(parsed.errors)
    if parsed.module is not None:
        found = _run_rules(parsed, path, rules, silences, project, after)
        findings += found if parsed.expanded is None else _moved_back(found, parsed.expanded)
    noqa_lines = noqa.NoqaLines(source)
    kept = [f for f in findings if not noqa_lines.suppresses(f.code, f.line)]
    if parsed.cells is not None and parsed.cells.in_notebook:
        for f in kept:
            _add_cell(f, parsed.cells)
    return sorted(kept, key=Finding.sort_key)


def screened(rules: List[Type[Rule]], facts: Facts) -> Optional[List[Type[Rule]]]:
    """The rules whose screen passes (None: none does)."""
    kept = [r for r in rules if r.screen(facts)]
    return kept or None


def _run_rules(
    parsed: Parsed,
    path: str,
    rules: List[Type[Rule]],
    silences: Optional[list] = None,
    project: Optional[ProjectView] = None,
    after: Optional[Callable[[FileContext], None]] = None,
) -> List[Finding]:
    assert parsed.module is not None, "lint_source runs the rules only on a parsed module"
    ctx = FileContext(path, parsed.source, parsed.module, parsed.cells, parsed.indexes)
    ctx.project = project
    if silences is not None:
        ctx.recording, ctx.silences = True, silences
    if not (ctx.imports.uses_tensorflow or ctx.imports.uses_numpy or (project and project.forced)):
        return []
    try:
        instances = [rule_class(ctx) for rule_class in rules]
        visits, leaves = dispatch_tables(instances)
        if parsed.indexes is not None and not leaves:
            replay(visits, ctx.by_type, ctx.spans)
        else:
            if parsed.indexes is not None:  # a leave hook: walked again, indexes of its own
                ctx.kept, ctx.parents, ctx.spans, ctx.by_type = False, {}, {}, {}
            walk(parsed.module, visits, leaves, ctx.parents, ctx.ancestors, ctx.by_type, ctx.spans)
            if project is not None and project.keep:
                parsed.indexes = ctx.keep_indexes()  # for the passes that reuse this parse
        for rule in instances:
            rule.finish()
        if after is not None:
            after(ctx)
    finally:
        ctx.release()
    return ctx.findings


def _located(findings: List[Finding], source: str, path: str, marker) -> List[Finding]:
    cells = find_cells(source, path, marker) if findings and marker is not None else None
    for f in findings:
        if cells is not None:
            _add_cell(f, cells)
    return findings


def _add_cell(finding: Finding, cells: Cells) -> None:
    """Notebook findings carry their cell and the lines in it as data."""
    cell, line = cells.locate(finding.line)
    end_cell, end_line = cells.locate(finding.end_line)
    finding.extra["cell"] = cell
    finding.extra["cell_line"] = line
    finding.extra["cell_end_line"] = end_line if end_cell == cell and end_line >= line else line


@dataclass
class FixResult:
    source: str
    fixed: int = 0
    codes: Dict[str, int] = field(default_factory=dict)  # fixes applied, per code
    findings: List[Finding] = field(default_factory=list)
    error: Optional[str] = None


def fix_source(
    source: str,
    path: str,
    rule_classes: Sequence[Type[Rule]],
    unsafe: bool,
    cell_marker: Optional[Pattern] = None,
    project: Optional[ProjectView] = None,
) -> FixResult:
    """Apply fixes until none is left to apply; the remaining findings.

    Each round applies the fixes that do not overlap; a fix whose result
    would not parse (or, in a module with a broken cell, would break one
    more) is dropped (and said), never written.
    """
    fixed = 0
    codes: Dict[str, int] = {}
    error = None
    findings = lint_source(source, path, rule_classes, cell_marker, project=project)
    broken = sum(1 for f in findings if f.code == SYNTAX_CODE)
    for _ in range(MAX_FIX_PASSES):
        fixes = _applicable_fixes(findings, unsafe)
        if not fixes:
            break
        chosen = choose_fixes(source, [fix for fix, _ in fixes])
        candidate = apply_edits(source, [e for fix in chosen for e in fix.edits])
        after = parse(candidate, path, cell_marker)
        if after.module is None or len(after.errors) > broken:
            reason = after.errors[0].message if after.errors else "no module"
            error = f"a fix produced code that does not parse ({reason}); left unfixed"
            break
        source = candidate
        fixed += len(chosen)
        for fix in chosen:
            code = next(code for candidate, code in fixes if candidate is fix)
            codes[code] = codes.get(code, 0) + 1
        findings = lint_source(source, path, rule_classes, cell_marker, project=project)
    return FixResult(source, fixed, codes, findings, error)


def _applicable_fixes(findings: List[Finding], unsafe: bool) -> List[Tuple[Fix, str]]:
    """Each fix to apply, with the code of its finding (in the findings' order)."""
    return [(f.fix, f.code) for f in findings if f.fix is not None and applicable(f, unsafe)]
