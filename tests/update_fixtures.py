"""Rewrite the fixtures' expected findings and fixed outputs from the rules.

    python tests/update_fixtures.py [CODE ...]

Then read ``git diff fixtures/``: every changed line is a change users see.
A positive fixture's ``.expected`` and a fix's ``.fixed.py`` are written
only where they exist or where the rules now report or fix; near misses
(``ok_*``) are never given expectations.
"""

import sys

from fixture_cases import fixed_of, project_cases, project_files, render, render_project, sources
from tflint_perf.engine.linter import fix_source, lint_source
from tflint_perf.rules import all_rules


def update(codes) -> int:
    rules = all_rules()
    changed = 0
    for path in sources():
        if codes and path.parent.name not in codes:
            continue
        findings = lint_source(path.read_text(), str(path), rules)
        if path.name.startswith("bad_"):
            text = "".join(line + "\n" for line in render(findings))
            changed += _write(path.with_suffix(".expected"), text)
        safe_source = None
        for unsafe in (False, True):
            target = fixed_of(path, unsafe)
            result = fix_source(path.read_text(), str(path), rules, unsafe)
            if not result.fixed:
                continue
            if target is None and path.name.startswith("bad_") and result.source != safe_source:
                # A new fix: the safe output, and the unsafe one where it differs.
                target = path.with_name(path.stem + (".unsafe.fixed.py" if unsafe else ".fixed.py"))
            if target is not None:
                changed += _write(target, result.source)
            if not unsafe:
                safe_source = result.source
    for case in project_cases():
        if codes and not any(code.lower() in case.name for code in codes):
            continue
        changed += _update_project(case)
    return changed


def _update_project(case) -> int:
    from tflint_perf.run.config import Settings
    from tflint_perf.run.parallel import lint_files

    results = lint_files(project_files(case), Settings(root=case), jobs=1)
    findings = render_project(case, [f for r in results for f in r.findings])
    if case.name.startswith("ok_"):
        return 0
    return _write(case / "expected.txt", "".join(line + "\n" for line in findings))


def _write(path, text) -> int:
    if path.exists() and path.read_text() == text:
        return 0
    path.write_text(text)
    print(f"updated {path}")
    return 1


if __name__ == "__main__":
    print(f"{update(set(sys.argv[1:]))} file(s) updated")
