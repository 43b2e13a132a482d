"""What users read, checked on real findings (issue 22): headlines of at most 100
characters, quoted code that parses, TFP101 advice that reads no loop variable.

    python bench/messages.py FINDINGS.json [...]   # tflint-perf check --format json output

``make smoke`` runs the same check on the findings it lints. Prints the counts
and every failure; exits 1 on any.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from typing import List, Tuple

LIMIT = 100
QUOTED = re.compile(r"`([^`]+)`")
LOOP = re.compile(r"Loop over `([^`]+)`")


def parses(snippet: str) -> bool:
    """A statement, an expression, a method tail (``.prefetch(...)``), a keyword
    argument or a block header (``for x in y``, ``with a:``)."""
    for candidate in (
        snippet,
        "x" + snippet,
        f"f({snippet})",
        snippet + ": pass",
        snippet + "\n pass",
    ):
        try:
            ast.parse(candidate)
            return True
        except SyntaxError:
            continue
    return False


def _names(code: str) -> set:
    try:
        return {n.id for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Name)}
    except SyntaxError:
        return set()


def check(findings: List[dict]) -> Tuple[dict, List[str]]:
    """(counts, failures) over every finding but TFP000."""
    counts = {"findings": 0, "longest headline": 0, "snippets checked": 0}
    failures: List[str] = []
    for f in findings:
        if f["code"] == "TFP000":
            continue
        where = f"{f['path']}:{f['line']} {f['code']}"
        counts["findings"] += 1
        headline, detail = f["message"], f.get("detail") or ""
        counts["longest headline"] = max(counts["longest headline"], len(headline))
        if len(headline) > LIMIT or "\n" in headline:
            failures.append(f"{where}: headline of {len(headline)} characters: {headline}")
        for snippet in QUOTED.findall(headline + "\n" + detail):
            counts["snippets checked"] += 1
            if not parses(snippet.strip()):
                failures.append(f"{where}: quoted code does not parse: `{snippet}`")
        loop = LOOP.search(headline)
        if f["code"] == "TFP101" and loop:
            loop_names = _names(loop.group(1).replace("...", "_"))
            advice = headline.split(":", 1)[-1]
            for snippet in QUOTED.findall(advice):
                leaked = _names(snippet) & loop_names
                if leaked:
                    failures.append(
                        f"{where}: advice reads the loop's {sorted(leaked)}: `{snippet}`"
                    )
    return counts, failures


def main(argv=None) -> int:
    findings: List[dict] = []
    for path in argv if argv is not None else sys.argv[1:]:
        with open(path, encoding="utf-8") as handle:
            findings += json.load(handle)
    counts, failures = check(findings)
    for label, value in counts.items():
        print(f"  {label:<45} {value}")
    print(f"  {'message problems':<45} {len(failures)}")
    for failure in failures[:50]:
        print(f"  message: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
