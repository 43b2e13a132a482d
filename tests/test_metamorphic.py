"""Metamorphic tests: a fixture rewritten without changing its meaning keeps its verdict.

From every fixture (``fixtures/TFP*/bad_*.py`` and ``ok_*.py``), each
transformation of ``tests/metamorphic_transforms.py`` (renaming the
module's own names, a loop body moved into a helper, a loop moved into a
method called as ``self.step()``, reads through an alias, module-level code
into a function and a function back into the module, ``range(n)`` as
``range(0, n)``, and the module split in two) makes variants; each variant
must get the same number of findings of the fixture's rule as the fixture
(a near miss: none). A transformation that does not apply to a fixture (no
loop, no module-level code) is skipped for it.

One test case is one (fixture, transformation, site): the site (which loop,
which function) is read from the source, so a case always checks the same
rewrite. Hypothesis draws what must not matter (the new names, which names
to leave alone); two choices always run first: every name renamed to a
name that says nothing (``v0_3``), and to one that keeps the old spelling
(``model_0``, a helper ``loop_body``, methods ``step`` and ``run``).
``make test`` adds one derandomized draw where some names can be left
alone (rename, alias, range), ``make smoke`` (``TFLINT_HYPOTHESIS=smoke``)
twenty draws to every case.

The cases that fail today are listed in ``tests/metamorphic_known.py``
with their reasons and marked ``xfail(strict=True)``: each turns into a
failure the day it passes, so the list only shrinks. A rewrite that
changes the meaning for a rule would be listed in ``CHANGES_MEANING`` with
why; there is none (each transformation applies only where it provably
keeps the meaning: see the transforms module).
"""

import contextlib
import functools
import io
import json

import pytest

hypothesis = pytest.importorskip("hypothesis")
import metamorphic_transforms as mt  # noqa: E402
from hypothesis import Phase, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from metamorphic_known import KNOWN_FAILURES, NEEDS_INDEX  # noqa: E402

from fixture_cases import FIXTURES  # noqa: E402
from tflint_perf.engine.linter import lint_source  # noqa: E402
from tflint_perf.rules import all_rules  # noqa: E402

RULES = {rule.code: rule for rule in all_rules()}
SOURCES = sorted(p for p in FIXTURES.glob("TFP*/*.py") if not p.name.endswith(".fixed.py"))
# Draws per case beyond the two fixed styles: 1 in make test, 20 in make smoke.
DRAWS = max(1, settings().max_examples // 20)
SMOKE = DRAWS > 1
EXPLICIT = (Phase.explicit,)
ALL_PHASES = tuple(Phase)

# Rewrites that change a fixture's meaning for its rule: key -> (the count the
# variant must get, why). None today: a transformation applies only where it
# provably keeps the meaning (see metamorphic_transforms).
CHANGES_MEANING: dict = {}


def case_id(path, name, site) -> str:
    return f"{path.parent.name}/{path.name}:{name}:{site}"


def _cases():
    """(variant cases, split cases), reading each fixture once."""
    variants, splits = [], []
    for path in SOURCES:
        source = path.read_text()
        for transformation in mt.TRANSFORMATIONS:
            for site in transformation.sites(source) or [None]:
                key = case_id(path, transformation.name, site)
                marks = []
                if key in KNOWN_FAILURES:
                    marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_FAILURES[key]))
                variants.append(pytest.param(path, transformation, site, id=key, marks=marks))
        if mt.split_sites(source):
            key = f"{path.parent.name}/{path.name}"
            marks = []
            if key in NEEDS_INDEX:
                marks.append(pytest.mark.xfail(strict=True, reason="needs the project index"))
            splits.append(pytest.param(path, id=key, marks=marks))
    return variants, splits


VARIANT_CASES, SPLIT_CASES = _cases()


@functools.lru_cache(maxsize=None)
def expected(path) -> int:
    """Findings of the fixture's own rule in the fixture itself."""
    return count(path.read_text(), path.parent.name, path.name)


def count(source: str, code: str, name: str) -> int:
    return sum(1 for f in lint_source(source, name, [RULES[code]]) if f.code == code)


def styles():
    return st.builds(
        mt.Style,
        opaque=st.booleans(),
        keep=st.frozensets(st.integers(0, 30), max_size=5),
        tag=st.integers(0, 9),
    )


@pytest.mark.parametrize("path, transformation, site", VARIANT_CASES)
def test_a_variant_keeps_the_verdict_of_its_rule(path, transformation, site):
    if site is None:
        pytest.skip(f"{transformation.name} does not apply to {path.name}")
    source = path.read_text()
    code = path.parent.name
    want = expected(path)
    key = case_id(path, transformation.name, site)
    if key in CHANGES_MEANING:
        want = CHANGES_MEANING[key][0]

    seen: dict = {}  # variant -> findings (two styles may make the same text)
    # Draws vary which names stay as they are; where no name can, the two fixed
    # styles are all there is to try in make test.
    phases = ALL_PHASES if transformation.keepable(source) or SMOKE else EXPLICIT

    @settings(max_examples=DRAWS, phases=phases)
    @given(style=styles())
    @example(style=mt.SPELLED)
    @example(style=mt.CANONICAL)
    def check(style):
        variant = transformation.apply(source, site, style)
        if variant not in seen:
            compile(variant, f"<{transformation.name} of {path.name}>", "exec")
            seen[variant] = count(variant, code, path.name)
        got = seen[variant]
        assert got == want, (
            f"{code}: {want} finding(s) in {path.name}, {got} after {transformation.name}"
            f" at {site!r}:\n{variant}"
        )

    check()


@pytest.mark.parametrize("path", SPLIT_CASES)
def test_a_module_split_in_two_keeps_the_verdict(path, tmp_path):
    from tflint_perf.cli import main

    code = path.parent.name
    for name, text in mt.split(path.read_text()).items():
        compile(text, name, "exec")
        (tmp_path / name).write_text(text)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(
            ["check", "-j", "1", "--no-cache", "--format", "json", "--select", code, str(tmp_path)]
        )
    got = sum(1 for f in json.loads(out.getvalue()) if f["code"] == code)
    assert got == expected(path)


def test_every_transformation_applies_to_some_fixture():
    for transformation in mt.TRANSFORMATIONS:
        assert any(transformation.sites(p.read_text()) for p in SOURCES), transformation.name
    assert SPLIT_CASES


def test_known_failures_name_real_cases():
    keys = {case.id for case in VARIANT_CASES}
    assert set(KNOWN_FAILURES) - keys == set()
    assert set(CHANGES_MEANING) - keys == set()
    assert NEEDS_INDEX - {case.id for case in SPLIT_CASES} == set()


# A program whose output shows every value its loops, functions, classes and
# module-level code compute: each rewrite must leave the output as it is.
PROGRAM = """
import math

total = 0
roots = []
for i in range(5):
    x = i * 2
    total += x
    roots.append(round(math.sqrt(x), 3))
print("module", total, roots, x)


def accumulate(n):
    acc = 0
    seen = []
    for k in range(n):
        sq = k * k
        acc += sq
        seen.append(sq)
    else:
        tail = acc
    return acc, seen, tail, sq


class Box:
    def __init__(self, n):
        self.items = []
        for j in range(n):
            self.items.append(j * self.scale())

    def scale(self):
        return 3

    def total(self):
        s = 0
        for item in self.items:
            s += item
        return s


def countdown(start):
    left = start
    while left > 2:
        left -= 2
    return left


print("functions", accumulate(4), Box(3).total(), countdown(9))


def main():
    count = 0
    words = ["a", "bb", "ccc"]
    for w in words:
        count += len(w)
    print("main", count, w)


if __name__ == "__main__":
    main()
"""


def _run(files: dict, folder) -> str:
    import runpy
    import sys

    for name, text in files.items():
        (folder / name).write_text(text)
    out = io.StringIO()
    sys.path.insert(0, str(folder))
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(str(folder / "main.py"), run_name="__main__")
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop(mt.HELPERS, None)
    return out.getvalue()


def test_rewrites_keep_what_a_program_computes(tmp_path):
    want = _run({"main.py": PROGRAM}, tmp_path)
    assert want.count("\n") == 3
    tried = 0
    for transformation in mt.TRANSFORMATIONS:
        for site in transformation.sites(PROGRAM):
            for style in (mt.CANONICAL, mt.SPELLED, mt.Style(keep=frozenset({0, 2}), tag=4)):
                variant = transformation.apply(PROGRAM, site, style)
                folder = tmp_path / f"{transformation.name}-{site}-{style.tag}-{style.opaque}"
                folder.mkdir()
                assert _run({"main.py": variant}, folder) == want, variant
                tried += 1
    split = tmp_path / "split"
    split.mkdir()
    assert _run(mt.split(PROGRAM), split) == want
    # every transformation found something to rewrite here
    assert {t.name for t in mt.TRANSFORMATIONS if t.sites(PROGRAM)} == {
        t.name for t in mt.TRANSFORMATIONS
    }
    assert tried > 20
