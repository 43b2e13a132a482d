"""The fixture layout, shared by the tests.

``fixtures/<CODE>/`` holds, per rule:

- ``bad_<case>.py`` with ``bad_<case>.expected``: one ``LINE:COL CODE`` per
  finding that all rules together must report;
- ``ok_<case>.py``: a near miss on which no rule may report;
- ``bad_<case>.fixed.py``: the file after ``--fix`` (safe fixes), and
  ``bad_<case>.unsafe.fixed.py`` after ``--fix --unsafe-fixes``, where the
  rule fixes.
"""

from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def sources():
    return sorted(p for p in FIXTURES.glob("TFP*/*.py") if not p.name.endswith(".fixed.py"))


def expected_of(path: Path):
    expected = path.with_suffix(".expected")
    if not expected.exists():
        return []
    return sorted(line.strip() for line in expected.read_text().splitlines() if line.strip())


def fixed_of(path: Path, unsafe: bool):
    name = path.stem + (".unsafe.fixed.py" if unsafe else ".fixed.py")
    candidate = path.with_name(name)
    return candidate if candidate.exists() else None
