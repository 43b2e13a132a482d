"""What users read: a headline of at most 100 characters, and code that parses.

Every rule's messages follow the headline + detail form (issue 22):
every finding on the fixtures has a one-line headline of at most 100
characters, and every backticked snippet in the headline or the detail
parses as Python (a statement, an expression, a method tail such as
``.prefetch(...)``, a keyword argument, or a loop header).
"""

import ast
import re

import pytest

from fixture_cases import FIXTURES, sources
from tflint_perf.engine.linter import lint_source
from tflint_perf.rules import all_rules

# Every rule's headlines and details follow the form.
HEADLINE_RULES = tuple(
    "TFP101 TFP102 TFP103 TFP201 TFP202 TFP203 TFP301 TFP302 TFP303 TFP401 TFP402 TFP403 TFP404".split()
)
SNIPPET = re.compile(r"`([^`]+)`")


def parses(snippet: str) -> bool:
    candidates = (snippet, "x" + snippet, f"f({snippet})", snippet + ": pass", snippet + "\n pass")
    for candidate in candidates:
        try:
            ast.parse(candidate)
            return True
        except SyntaxError:
            continue
    return False


CASES = [p for p in sources() if p.parent.name in HEADLINE_RULES and p.name.startswith("bad_")]


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.name}/{p.name}" for p in CASES])
def test_headlines_are_short_and_snippets_parse(path):
    findings = lint_source(path.read_text(), str(path), all_rules())
    mine = [f for f in findings if f.code in HEADLINE_RULES]
    assert mine
    for finding in mine:
        assert "\n" not in finding.message and len(finding.message) <= 100, finding.message
        assert finding.detail, f"{finding.code} at line {finding.line} has no detail"
        for snippet in SNIPPET.findall(finding.message + "\n" + finding.detail):
            assert parses(snippet), f"{finding.code} line {finding.line}: `{snippet}`"


def test_the_checked_rules_exist():
    assert set(HEADLINE_RULES) <= {r.code for r in all_rules()}
    assert all((FIXTURES / code).is_dir() for code in HEADLINE_RULES)


def test_quoted_code_is_shortened_to_python():
    """Quoted code too long for a message is cut where it stays Python (a call's
    head, a tuple's first items, a dotted name's last parts, a loop header's
    iterable)."""
    import ast

    from tflint_perf.engine.headline import clip_code

    cases = {
        "np.expand_dims(Yin[data_len//N_FORWARD - 1], axis=0)": "np.expand_dims(...)",
        "obs, action, reward, next_obs, done": "obs, action, ...",
        "self.very_long_attribute_name.predict": "predict",
        '{"user": np.array([user]), "age": 3}': "{...}",
        # an object's attribute called: its head without ``self.`` (not a module's prefix)
        "self.actor_model(x, training=False)": "actor_model(...)",
        "np.random.permutation(images, axis=0)": "...",  # not random.permutation(...)
    }
    for text, short in cases.items():
        assert clip_code(text, 20) == short
        ast.parse(short, mode="eval")
    header = "for step, (batch_x, batch_y) in enumerate(train_data.take(training_steps), 1)"
    short = clip_code(header, 60)
    assert short == "for step, (batch_x, batch_y) in enumerate(...)"
    ast.parse(short + ": pass")


def test_fit_headline_takes_the_first_variant_that_fits():
    from tflint_perf.engine.headline import HEADLINE, fit_headline

    long, short = "x" * (HEADLINE + 1), "y" * HEADLINE
    assert fit_headline(long, short) == short
    assert fit_headline(long, long + "z") == (long + "z")[:HEADLINE]
