"""The fixture layout, shared by the tests.

``fixtures/<CODE>/`` holds, per rule:

- ``bad_<case>.py`` with ``bad_<case>.expected``: one ``LINE:COL CODE headline``
  per finding that all rules together must report, followed by the lines of
  its detail indented by four spaces (what users read, pinned);
- ``ok_<case>.py``: a near miss on which no rule may report;
- ``bad_<case>.fixed.py``: the file after ``--fix`` (safe fixes), and
  ``bad_<case>.unsafe.fixed.py`` after ``--fix --unsafe-fixes``, where the
  rule fixes.

``python tests/update_fixtures.py`` rewrites the ``.expected`` and fixed
files from what the rules say now; review the diff before committing it.
"""

from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def sources():
    return sorted(p for p in FIXTURES.glob("TFP*/*.py") if not p.name.endswith(".fixed.py"))


DETAIL_INDENT = "    "


def diagnostic(finding) -> str:
    """One expected entry: ``LINE:COL CODE headline``, then the detail's lines indented."""
    head = f"{finding.line}:{finding.column} {finding.code} {finding.message}"
    detail = [DETAIL_INDENT + line for line in finding.detail.splitlines()]
    return "\n".join([head, *detail])


def render(findings) -> list:
    return sorted((diagnostic(f) for f in findings), key=_position)


def _position(entry: str):
    where, _, rest = entry.partition(" ")
    row, _, col = where.partition(":")
    return (int(row), int(col), rest)


def expected_of(path: Path):
    """The expected entries (a headline line and its detail lines each)."""
    expected = path.with_suffix(".expected")
    if not expected.exists():
        return []
    entries: list = []
    for line in expected.read_text().splitlines():
        if line.startswith(DETAIL_INDENT) and entries:
            entries[-1] += "\n" + line
        elif line.strip():
            entries.append(line)
    return sorted(entries, key=_position)


def fixed_of(path: Path, unsafe: bool):
    name = path.stem + (".unsafe.fixed.py" if unsafe else ".fixed.py")
    candidate = path.with_name(name)
    return candidate if candidate.exists() else None


# -- multi-file projects --------------------------------------------------------
# ``fixtures/projects/<case>/``: a small tree of modules linted together (the
# project index: a rule reads what another module of the tree does).
# ``bad_<case>/expected.txt`` pins every finding (``relpath:LINE:COL CODE
# headline`` and its detail lines); ``ok_<case>/`` has none.
PROJECTS = FIXTURES / "projects"


def project_cases():
    return sorted(p for p in PROJECTS.iterdir() if p.is_dir())


def project_files(case: Path):
    return sorted(str(p) for p in case.rglob("*.py"))


def render_project(case: Path, findings) -> list:
    out = []
    for finding in findings:
        rel = Path(finding.path).relative_to(case).as_posix()
        out.append(f"{rel}:{diagnostic(finding)}")
    return sorted(out)


def project_expected(case: Path) -> list:
    expected = case / "expected.txt"
    if not expected.exists():
        return []
    entries: list = []
    for line in expected.read_text().splitlines():
        if line.startswith(DETAIL_INDENT) and entries:
            entries[-1] += "\n" + line
        elif line.strip():
            entries.append(line)
    return sorted(entries)
