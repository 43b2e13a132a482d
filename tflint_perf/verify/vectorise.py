"""The ``stack-to-vector`` rewrite: the loop replaced by the finding's whole-array code.

The vectoriser is ``tflint_perf.analysis.vectorise`` (one for the rule's advice and
for ``--verify``): the rule attaches what it derives to the finding as
``Finding.extra["whole_array"]`` (the statements and the edits that put them in
place of the loop), and ``--verify`` times exactly that code against the loop.
A finding without it has no whole-array form the rule could prove: nothing to
time.
"""

from __future__ import annotations

from typing import List, Optional

from tflint_perf.engine.rule import Edit
from tflint_perf.verify.source import Source, Unsupported


def stack_to_vector(
    src: Source, line: int, end_line: int, whole: Optional[dict] = None
) -> List[Edit]:
    """The edits of the finding's whole-array code (``Finding.extra["whole_array"]``)."""
    edits = (whole or {}).get("edits")
    if not edits:
        raise Unsupported("the rule derived no whole-array code for this loop")
    return [Edit(**edit) for edit in edits]
