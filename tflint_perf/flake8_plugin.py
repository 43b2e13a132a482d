"""flake8 plugin: ``flake8 --select TFP`` reports what ``tflint-perf check`` does.

flake8 selects codes and honours ``# noqa`` itself, so every rule runs here,
unless flake8's options leave no TFP code selected (``--select E,F``, an
editor's on-save run): then the plugin does no work at all. Syntax errors
are left to flake8's own E999. flake8 does not read notebooks.
"""

from __future__ import annotations

from typing import Iterator, List, Tuple

from tflint_perf import __version__


class TFPChecker:
    name = "tflint-perf"
    version = __version__
    # Whether flake8's options select any TFP code (set by parse_options,
    # which flake8 calls in every process before checking a file).
    active = True

    @classmethod
    def parse_options(cls, options) -> None:
        cls.active = selects_any(options)

    def __init__(self, tree, filename: str, lines: List[str]) -> None:
        # flake8 runs us only on files that parse, and hands over its `ast`
        # tree: the rules' screens read it instead of parsing again.
        self.tree = tree
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[Tuple[int, int, str, type]]:
        if not self.active:
            return
        from tflint_perf.engine.linter import SYNTAX_CODE, lint_source
        from tflint_perf.rules import all_rules

        source = "".join(self.lines)
        for f in lint_source(source, self.filename, all_rules(), tree=self.tree):
            if f.code == SYNTAX_CODE:
                continue
            # flake8 wants a 0-based column and prints it 1-based.
            yield f.line, f.column - 1, f"{f.code} {f.message}", type(self)


def selects_any(options) -> bool:
    """Whether flake8 would report any TFP code under these options (its own
    decision engine; a flake8 without one: assume so)."""
    try:
        from flake8.style_guide import Decision, DecisionEngine

        engine = DecisionEngine(options)
    except (ImportError, AttributeError, TypeError):  # pragma: no cover - another flake8
        return True
    from tflint_perf.run.cache import known_codes  # the rule files' codes, without importing them

    return any(engine.decision_for(code) is Decision.Selected for code in known_codes())
