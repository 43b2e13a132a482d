"""``tflint-perf why FILE:LINE``: what each rule decided at one line, and why.

For each rule: it reports there (the finding), or it looked and stayed
silent (the reasons its exits recorded for nodes on that line), or it had
nothing to decide there. The module is linted with every rule and no
screens, so the answer does not depend on which rules a screen skipped.

The answer is the one ``tflint-perf check`` gives when it lints the file's
project: the other modules under the file's import root (its package's
parent folder, or its own folder for a script) answer what the module asks
of them, as in the second pass of a run over the tree (``run/project.py``).
"""

from __future__ import annotations

import sys
from typing import List, Optional, Sequence, TextIO, Type

from tflint_perf.engine.linter import lint_source
from tflint_perf.engine.project import ProjectView
from tflint_perf.engine.reasons import Silence
from tflint_perf.engine.rule import Finding, Rule
from tflint_perf.run.files import decode, read_bytes
from tflint_perf.run.project import DiskTree, Index, Pass


class WhyError(Exception):
    """A location that cannot be read: one line, exit 2."""


def parse_location(text: str):
    path, sep, line = text.rpartition(":")
    if not sep or not line.isdigit() or not path:
        raise WhyError(f"expected FILE:LINE, got {text!r}")
    return path, int(line)


def explain_line(path: str, line: int, rule_classes: Sequence[Type[Rule]], alone: bool = False):
    """(findings at the line, silences touching it) for every rule given; with the
    facts of the file's project unless ``alone``."""
    try:
        source, _ = decode(read_bytes(path))
    except OSError as exc:
        raise WhyError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise WhyError(f"{path}: cannot decode: {exc}") from None
    if line < 1 or line > source.count("\n") + 1:
        raise WhyError(f"{path}: has no line {line}")
    view = None if alone else _project_view(source, path, rule_classes)
    silences: List[Silence] = []
    findings = lint_source(source, path, rule_classes, silences=silences, project=view)
    here = [f for f in findings if f.line <= line <= f.end_line]
    touching = [s for s in silences if s.line <= line <= s.end_line]
    return here, touching


def _project_view(source: str, path: str, rule_classes) -> Optional[ProjectView]:
    """The view of the tree a run over the file's project gives it: what it asked
    of the other modules (a first, silent lint), answered by their exports."""
    if not path.endswith(".py"):
        return None
    tree = DiskTree()
    first = Pass(tree).view(path)
    lint_source(source, path, rule_classes, project=first)
    facts = Index(tree).facts_for(path, sorted(first.asked)) if first is not None else {}
    return Pass(tree, {path: facts}).view(path) if facts else Pass(tree).view(path)


def render(
    path: str,
    line: int,
    rule_classes: Sequence[Type[Rule]],
    findings: List[Finding],
    silences: List[Silence],
    out: TextIO,
) -> None:
    out.write(f"{path}:{line}\n")
    for rule in sorted(rule_classes, key=lambda r: r.code):
        mine = [f for f in findings if f.code == rule.code]
        quiet = [s for s in silences if s.code == rule.code]
        head = f"  {rule.code} {rule.name}: "
        if mine:
            for finding in mine:
                out.write(f"{head}reports: {finding.message}\n")
        elif quiet:
            for reason in dict.fromkeys((s.reason.value, s.detail) for s in quiet):
                detail = f" ({reason[1]})" if reason[1] else ""
                out.write(f"{head}silent: {reason[0]}{detail}\n")
        else:
            out.write(f"{head}nothing to decide here\n")
    syntax = [f for f in findings if f.code == "TFP000"]
    for finding in syntax:
        out.write(f"  TFP000: {finding.message}\n")


def run_why(
    location: str, select: Optional[Sequence[str]] = None, out: Optional[TextIO] = None
) -> int:
    from tflint_perf.rules import all_rules

    out = out or sys.stdout  # at call time: a replaced stdout (pytest, a pipe wrapper) is used

    path, line = parse_location(location)
    rules = [r for r in all_rules() if not select or any(r.code.startswith(s) for s in select)]
    findings, silences = explain_line(path, line, rules)
    render(path, line, rules, findings, silences, out)
    return 0
