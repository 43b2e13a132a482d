"""The rule base class and the values rules produce: findings, fixes, edits."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Optional

from tflint_perf.engine.verification import Verification

if TYPE_CHECKING:
    import libcst as cst

    from tflint_perf.engine.context import FileContext
    from tflint_perf.engine.reasons import Reason
    from tflint_perf.engine.screen import Facts

SAFE = "safe"
UNSAFE = "unsafe"
# A file that does not parse (or decode): reported under this code, no rule ran.
SYNTAX_CODE = "TFP000"
SYNTAX_NAME = "syntax-error"


@dataclass(frozen=True)
class Edit:
    """Replace the text between two positions (1-based line, 0-based column)."""

    line: int
    column: int
    end_line: int
    end_column: int
    content: str


@dataclass(frozen=True)
class Fix:
    edits: tuple
    safety: str = SAFE
    message: str = ""


@dataclass
class Finding:
    path: str
    line: int  # 1-based
    column: int  # 1-based
    end_line: int
    end_column: int
    code: str
    name: str
    message: str  # the headline: what was found and the replacement, one line
    fix: Optional[Fix] = None
    # Extra output keys other features attach (notebook cell, verify verdict).
    extra: dict = field(default_factory=dict)
    # Everything else a reader may want (evidence, why batching is impossible,
    # hazards of a fix): shown under the headline, never in one-line output.
    detail: str = ""

    def sort_key(self):
        return (self.path, self.line, self.column, self.code, self.message)


DOC_SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead")


class Rule:
    """Base class of every rule.

    A rule lives in its own module under ``rules/``. It declares:

    - ``code`` (``TFP`` + three digits), ``name`` (kebab-case), ``message``
      (the default message; ``str.format`` fields filled by ``report``);
    - ``triggers``: substrings of which at least one must occur in the source
      for the rule to run at all (a cheap pre-check that lets files skip
      parsing entirely);
    - ``fixable``: whether it can offer a fix (safe or unsafe);
    - ``verification``: what ``--verify`` needs to run a finding (see
      ``tflint_perf.engine.verification``);
    - a docstring with the sections What it does / Why is this bad? /
      Example / Use instead (and Fix safety when fixable).

    Detection uses LibCST nodes. One walk per file serves every rule: define
    ``visit_<NodeType>(self, node)`` / ``leave_<NodeType>(self, node)``
    methods, and/or ``finish(self)`` for whole-module analysis after the
    walk. Report with ``self.report(node, ...)``.
    """

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    message: ClassVar[str] = ""
    triggers: ClassVar[tuple] = ()
    fixable: ClassVar[bool] = False
    fix_summary: ClassVar[str] = ""  # e.g. "safe / unsafe": when fixes are safe, in a few words
    verification: ClassVar[Verification] = Verification()
    # What another module of a linted tree does can make this rule report (a
    # step, a model or a pipeline defined elsewhere): in a tree it also looks
    # at modules that import the tree and have a loop, whatever their words.
    reads_project: ClassVar[bool] = False

    def __init__(self, ctx: "FileContext") -> None:
        self.ctx = ctx

    def report(
        self,
        node: "cst.CSTNode",
        message: Optional[str] = None,
        fix: Optional[Fix] = None,
        detail: str = "",
        extra: Optional[dict] = None,
        **fields,
    ) -> None:
        """``extra``: output keys of this finding (JSON-serialisable), such as the
        whole-array code ``--verify`` times."""
        text = message if message is not None else self.message.format(**fields)
        self.ctx.add_finding(self, node, text, fix, detail, extra)

    def silent(self, node: "cst.CSTNode", reason: "Reason", detail: str = "") -> None:
        """Record why the rule does not report at ``node`` (``tflint-perf why``);
        costs nothing unless recording is on."""
        if self.ctx.recording:
            self.ctx.add_silence(self, node, reason, detail)

    def finish(self) -> None:
        """Called once after the walk, for whole-module analysis."""

    @classmethod
    def screen(cls, facts: "Facts") -> bool:
        """A necessary condition, on the stdlib ``ast`` tree and the text, for
        this rule to report anything in the module (``tflint_perf.engine.screen``).

        False lets the module skip LibCST when no other rule needs it; it must
        never be False where the rule could report. The default keeps every
        module."""
        return True

    # -- documentation -------------------------------------------------
    @classmethod
    def doc(cls) -> str:
        return _cleandoc(cls.__doc__ or "")

    @classmethod
    def summary(cls) -> str:
        return cls.doc().split("\n", 1)[0].strip()

    @classmethod
    def doc_sections(cls) -> dict:
        """The docstring's ``## Heading`` sections, by heading."""
        sections: dict = {}
        current = None
        for line in cls.doc().splitlines():
            match = re.match(r"^## (.+?)\s*$", line)
            if match:
                current = match.group(1)
                sections[current] = []
            elif current is not None:
                sections[current].append(line)
        return {k: "\n".join(v).strip() for k, v in sections.items()}


def _cleandoc(doc: str) -> str:
    """``inspect.cleandoc`` without importing inspect (8 ms at every start)."""
    import textwrap

    first, _, rest = doc.expandtabs().partition("\n")
    return (first.strip() + "\n" + textwrap.dedent(rest)).strip()
