"""``# noqa`` means the same to ``tflint-perf check`` as to flake8."""

import pytest

from tflint_perf.engine.noqa import NoqaLines, is_suppressed

COMMENTS = [
    "x = 1  # noqa",
    "x = 1  # NOQA",
    "x = 1  # noqa: TFP301",
    "x = 1  # noqa:TFP301",
    "x = 1  # noqa:  TFP301",  # two spaces: flake8 reads a bare noqa
    "x = 1  # noqa: TFP3",  # a prefix
    "x = 1  # noqa: TFP",
    "x = 1  # noqa: TFP1",
    "x = 1  # noqa: TFP101,TFP301",
    "x = 1  # noqa: TFP101 TFP301",
    "x = 1  # noqa: tfp301",  # codes are case-sensitive
    "x = 1  # noqa : TFP301",
    "x = 1  #noqa",
    "x = 1  # noqa: E501",
    "x = 1  # noqa: this line is fine",
    "x = 1  # not noqa here",
    "x = 1",
]


@pytest.mark.parametrize("line", COMMENTS)
def test_inline_noqa_matches_flake8(line):
    violation = pytest.importorskip("flake8.violation")
    for code in ("TFP301", "TFP101", "TFP000"):
        flake8 = violation.Violation(code, "f.py", 1, 1, "m", line + "\n")
        assert is_suppressed(code, line) == flake8.is_inline_ignored(False), (code, line)


def test_a_noqa_covers_the_lines_of_a_string_or_backslash_continuation():
    # As in flake8: a multi-line string or a backslash continuation is one
    # range; the lines inside brackets are each their own.
    source = (
        'x = f(\n    1,\n)  # noqa: TFP301\ny = """\ntext\n"""  # noqa\n'
        "z = 1 + \\\n    2  # noqa: TFP3\nw = 3\n"
    )
    lines = NoqaLines(source)
    got = [lines.suppresses("TFP301", n) for n in range(1, 10)]
    assert got == [False, False, True, True, True, True, True, True, False]
    assert not lines.suppresses("TFP101", 7) and lines.suppresses("TFP101", 5)


def test_noqa_lines_count_lines_as_python_does():
    lines = NoqaLines("a = 1\rb = 2  # noqa\r\nc = 3\n")
    assert [lines.suppresses("TFP301", n) for n in (1, 2, 3)] == [False, True, False]


def test_untokenizable_source_falls_back_to_the_physical_line():
    lines = NoqaLines('x = (  # noqa\ny = """\n')
    assert lines.suppresses("TFP301", 1) and not lines.suppresses("TFP301", 2)
