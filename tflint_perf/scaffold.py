"""Start a new rule: ``python -m tflint_perf.scaffold TFPNNN name`` (``make rule``).

Writes, from the project root:

- ``rules/tfpNNN_name.py``: a working ``Rule`` skeleton (found by
  ``tflint_perf.rules.all_rules`` by its file name) that flags a placeholder
  call (``placeholder.slow_call``) a loop runs, through the call graph and the
  semantic model (``analysis/reach.py``), and records the reason at its
  silent exit;
- ``fixtures/TFPNNN/``: ``bad_example.py`` with its ``.expected``, and
  ``ok_example.py`` whose near-miss line names its reason
  (``# ok: TFPNNN runs-once``);
- ``docs/rules/TFPNNN.md`` from the skeleton's docstring, with the rules
  index and the README table (``python -m tflint_perf.docs``) when the root
  is this project's.

The skeleton passes the test suite as it is; then replace the placeholder with
the trap (CONTRIBUTING.md, "Adding a rule"). A malformed or taken code or
name is refused with one line and exit status 2.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from typing import List, Optional

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CODE_FORMAT = re.compile(r"TFP\d{3}")
NAME_FORMAT = re.compile(r"[a-z][a-z0-9]*([_-][a-z0-9]+)*")
# What the skeleton flags (replace it with the trap's evidence).
PLACEHOLDER = "placeholder.slow_call"  # no real module: the skeleton flags nothing else
MESSAGE = "`placeholder.slow_call()` on every iteration of the loop: call it once, on the batch"

RULE_TEMPLATE = '''"""{code} {kebab}."""

from __future__ import annotations

from tflint_perf.analysis.reach import Reach
from tflint_perf.engine import cst
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.rule import Rule
from tflint_perf.engine.verification import Verification

# The skeleton's evidence: a call by its canonical qualified name (through
# imports and aliases). Replace it with the trap's; a TensorFlow, Keras or
# NumPy name belongs in the API tables (tflint_perf/analysis/api/), read there.
CALL = "{placeholder}"


class {camel}(Rule):
    """`{placeholder}()` on every iteration of a loop.

    ## What it does
    TODO: say which code this rule flags, and which near misses it leaves
    alone (each with an `ok_` fixture). The skeleton flags a call of
    `{placeholder}()` that a loop runs many times, in its own function or
    through the functions that call it from the loop.

    ## Why is this bad?
    TODO: what the trap costs, measured (`--verify` times it as the rule's
    `verification` says).

    ## Example
    ```python
    import placeholder

    for row in rows:
        placeholder.slow_call(row)
    ```

    ## Use instead
    ```python
    import placeholder

    placeholder.slow_call(rows)
    ```
    """

    code = "{code}"
    name = "{kebab}"
    message = "{message}"
    triggers = ("slow_call",)  # a module without one of these words is never parsed for this rule
    # What --verify measures (tflint_perf/engine/verification.py): replace this
    # with the fix or the rewrite that shows the trap's cost.
    verification = Verification(unmeasurable="the skeleton has no fix or rewrite to time yet")

    def finish(self) -> None:
        # After the walk: the model needs the whole module (positions, callers).
        for call in self.ctx.nodes(cst.Call):
            if self.ctx.call_name(call) == CALL:
                self.check(call)

    def check(self, call: cst.Call) -> None:
        reach = self.ctx.shared(Reach)  # loops, through the call graph and the semantic model
        if reach.hot(call) is None:
            why = Reason.TINY_LOOP if reach.in_a_loop(call) else Reason.RUNS_ONCE
            self.silent(call, why, "no loop runs the call more than a handful of times")
            return
        self.report(call)
'''

BAD_TEMPLATE = '''"""{code}: `{placeholder}()` on every step of a training loop."""

import placeholder
import tensorflow as tf


def train(dataset, step):
    for batch in dataset:
        placeholder.slow_call(batch)
        step(tf.convert_to_tensor(batch))
'''

OK_TEMPLATE = '''"""{code} near miss: `{placeholder}()` once, before the loop."""

import placeholder
import tensorflow as tf


def train(dataset, step):
    placeholder.slow_call(dataset)  # ok: {code} runs-once
    for batch in dataset:
        step(tf.convert_to_tensor(batch))
'''


class ScaffoldError(Exception):
    """A code or name that cannot be used: one line for the user."""


def camel_case(name: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[_-]", name))


def check(root: Path, code: str, name: str) -> None:
    if not CODE_FORMAT.fullmatch(code):
        raise ScaffoldError(f"code {code!r} is not TFP followed by three digits (TFP305)")
    if not NAME_FORMAT.fullmatch(name):
        raise ScaffoldError(f"name {name!r} is not lower-case words joined by - or _ (gc-in-loop)")
    snake = name.replace("-", "_")
    for existing in sorted((root / "rules").glob("tfp*")):
        taken, _, other = existing.name.partition("_")
        if taken == code.lower():
            raise ScaffoldError(f"{code} exists already: rules/{existing.name}")
        if Path(other).stem == snake:
            raise ScaffoldError(f"the name {name!r} is taken by rules/{existing.name}")
    if (root / "fixtures" / code).exists():
        raise ScaffoldError(f"{code} exists already: fixtures/{code}/")


def scaffold(root: Path, code: str, name: str) -> List[str]:
    """Write the rule, its fixtures and its page under ``root``; the paths written."""
    check(root, code, name)
    snake, kebab = name.replace("-", "_"), name.replace("_", "-")
    fields = dict(
        code=code, kebab=kebab, camel=camel_case(name), placeholder=PLACEHOLDER, message=MESSAGE
    )
    rule = f"rules/{code.lower()}_{snake}.py"
    bad = BAD_TEMPLATE.format(**fields)
    files = {
        rule: RULE_TEMPLATE.format(**fields),
        f"fixtures/{code}/bad_example.py": bad,
        f"fixtures/{code}/bad_example.expected": expected_line(bad, code),
        f"fixtures/{code}/ok_example.py": OK_TEMPLATE.format(**fields),
    }
    (root / "fixtures" / code).mkdir(parents=True)
    for path, text in files.items():
        (root / path).write_text(text, encoding="utf-8")
    return [*files, *write_docs(root, root / rule, code)]


def expected_line(bad: str, code: str) -> str:
    """The one finding of ``bad_example.py``: the call in the loop."""
    lines = bad.splitlines()
    number = next(
        i for i, line in enumerate(lines, 1) if line.strip().startswith(f"{PLACEHOLDER}(")
    )
    column = lines[number - 1].index(PLACEHOLDER) + 1
    return f"{number}:{column} {code} {MESSAGE}\n"


def write_docs(root: Path, rule_path: Path, code: str) -> List[str]:
    """The rule's page; in this project also the rules index and the README table."""
    from tflint_perf import docs

    if root.resolve() == PROJECT_ROOT:
        pages = [f"docs/rules/{name}" for name in docs.write(root / "docs" / "rules")]
        return pages + docs.write_readme(root / "README.md")
    page = root / "docs" / "rules" / f"{code}.md"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(docs.HEADER + docs.rule_page(load_rule(rule_path, code)), encoding="utf-8")
    return [f"docs/rules/{code}.md"]


def load_rule(path: Path, code: str):
    """The rule class a scaffolded file defines (imported from its path)."""
    spec = importlib.util.spec_from_file_location(f"scaffolded_{code.lower()}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return next(v for v in vars(module).values() if getattr(v, "code", None) == code)


USAGE = "usage: python -m tflint_perf.scaffold TFPNNN name  (make rule CODE=TFPNNN NAME=name)"


def main(argv: Optional[List[str]] = None, root: Path = PROJECT_ROOT) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    if len(args) != 2:
        print(USAGE, file=sys.stderr)
        return 2
    code, name = args
    try:
        written = scaffold(root, code, name)
    except ScaffoldError as error:
        print(f"tflint-perf scaffold: error: {error}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path}")
    print(
        "next: replace the placeholder in the rule and its fixtures "
        f"(CONTRIBUTING.md, Adding a rule), `cd tests && python update_fixtures.py {code}`, "
        "`make docs`"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
