"""flake8 plugin: ``flake8 --select TFP`` reports what ``tflint-perf check`` does.

flake8 selects codes and honours ``# noqa`` itself, so every rule runs here.
Syntax errors are left to flake8's own E999. flake8 does not read notebooks.
"""

from __future__ import annotations

from typing import Iterator, List, Tuple

from tflint_perf import __version__


class TFPChecker:
    name = "tflint-perf"
    version = __version__

    def __init__(self, tree, filename: str, lines: List[str]) -> None:
        # flake8 runs us only on files that parse, and hands over its `ast`
        # tree: the rules' screens read it instead of parsing again.
        self.tree = tree
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[Tuple[int, int, str, type]]:
        from tflint_perf.engine.linter import SYNTAX_CODE, lint_source
        from tflint_perf.rules import all_rules

        source = "".join(self.lines)
        for f in lint_source(source, self.filename, all_rules(), tree=self.tree):
            if f.code == SYNTAX_CODE:
                continue
            # flake8 wants a 0-based column and prints it 1-based.
            yield f.line, f.column - 1, f"{f.code} {f.message}", type(self)
