"""What linting one file gives back, whatever kind of file it was."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from tflint_perf.engine.rule import Finding

CHECK, FIX, DIFF = "check", "fix", "diff"


@dataclass
class FileResult:
    path: str
    findings: List[Finding] = field(default_factory=list)
    fixed: int = 0
    fixed_codes: Dict[str, int] = field(default_factory=dict)  # fixes applied, per code
    original: Optional[str] = None  # source before fixing, when it changed
    fixed_source: Optional[str] = None
    error: Optional[str] = None  # something to tell the user, not a finding
    failed: bool = False  # the error means the run did not do its job: exit 2
    cache_warning: Optional[str] = None  # the cache could not be written (said once per run)
    # Imported names of the tree the analysis asked about (run/project.py).
    asked: Tuple[str, ...] = ()
