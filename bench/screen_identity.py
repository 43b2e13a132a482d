"""The rules' screens lose no finding on whole corpora.

    python bench/screen_identity.py DIR [DIR ...]

Lints every ``.py`` file under each DIR (notebooks: their ``.ipynb.py``
form, as in the development corpus) with every rule, once with the screens
and once without, in this process, and prints per corpus: files, how many
the screens sent to LibCST, findings each way, and any difference (exit 1
if there is one). Used on bench/corpus/src (the four wheels) and on the
development corpus (see bench/realworld/README.md).
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter

from tflint_perf.engine import linter
from tflint_perf.engine.linter import lint_source
from tflint_perf.rules import all_rules


def python_files(top: str) -> list:
    found = []
    for base, dirs, names in os.walk(top):
        dirs.sort()
        found += [os.path.join(base, n) for n in sorted(names) if n.endswith(".py")]
    return found


def run(top: str, rules: list) -> bool:
    parsed = Counter()
    real_parse = linter.parse

    def counting_parse(*args, **kwargs):
        parsed["n"] += 1
        return real_parse(*args, **kwargs)

    with_screen, without = Counter(), Counter()
    differences = []
    seconds = {"screen": 0.0, "full": 0.0}
    files = python_files(top)
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as handle:
            source = handle.read()
        started = time.perf_counter()
        linter.parse = counting_parse
        try:
            screened = lint_source(source, path, rules)
        finally:
            linter.parse = real_parse
        seconds["screen"] += time.perf_counter() - started
        started = time.perf_counter()
        full = lint_source(source, path, rules, screen=False)
        seconds["full"] += time.perf_counter() - started
        a = [(f.line, f.column, f.code, f.message) for f in screened]
        b = [(f.line, f.column, f.code, f.message) for f in full]
        with_screen.update(f[2] for f in a)
        without.update(f[2] for f in b)
        if a != b:
            differences.append((path, sorted(set(b) - set(a)), sorted(set(a) - set(b))))
    print(
        f"{top}: {len(files)} files, {parsed['n']} parsed by LibCST with screens; "
        f"findings {sum(with_screen.values())} with screens, {sum(without.values())} without; "
        f"{seconds['screen']:.1f} s vs {seconds['full']:.1f} s in this process"
    )
    print("  per code:", ", ".join(f"{c} {with_screen[c]}/{without[c]}" for c in sorted(without)))
    for path, lost, extra in differences:
        print(f"  DIFFERENT {path}: lost {lost} extra {extra}")
    return not differences


def main(argv) -> int:
    if not argv:
        print(__doc__)
        return 2
    rules = all_rules()
    ok = all([run(top, rules) for top in argv])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
