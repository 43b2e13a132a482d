"""Generate ``docs/rules/TFPxxx.md`` from the rule docstrings.

Run ``python -m tflint_perf.docs`` after changing a rule's docstring; a test
fails while the pages are out of date.
"""

from __future__ import annotations

import sys
from pathlib import Path

HEADER = "<!-- Generated from the rule's docstring by `python -m tflint_perf.docs`; do not edit. -->\n"


def rule_page(rule) -> str:
    doc = rule.doc()
    summary, _, body = doc.partition("\n")
    fix = "yes (" + ("see Fix safety" if "Fix safety" in rule.doc_sections() else "safe") + ")" if rule.fixable else "no"
    return (
        f"# {rule.code} `{rule.name}`\n\n"
        f"{summary.strip()}\n\n"
        f"- Code: `{rule.code}`\n"
        f"- Name: `{rule.name}`\n"
        f"- Fixable: {fix}\n\n"
        f"{body.strip()}\n"
    )


def index_page(rules) -> str:
    lines = [
        "# Rules\n",
        "| Code | Name | Fixable | Summary |",
        "| --- | --- | --- | --- |",
    ]
    for r in rules:
        lines.append(f"| [{r.code}]({r.code}.md) | `{r.name}` | {'yes' if r.fixable else 'no'} | {r.summary()} |")
    return "\n".join(lines) + "\n"


def expected_pages() -> dict:
    from tflint_perf.rules import all_rules

    rules = all_rules()
    pages = {f"{r.code}.md": HEADER + rule_page(r) for r in rules}
    pages["README.md"] = HEADER + index_page(rules)
    return pages


def write(directory: Path) -> list:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    pages = expected_pages()
    for stale in directory.glob("TFP*.md"):
        if stale.name not in pages:
            stale.unlink()
            written.append(stale.name)
    for name, text in pages.items():
        path = directory / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(name)
    return written


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    directory = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent / "docs" / "rules"
    changed = write(directory)
    print(f"{len(changed)} page(s) updated in {directory}" if changed else "docs are up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
