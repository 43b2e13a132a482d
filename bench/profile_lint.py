"""Where one-process linting spends its time, by phase and by rule.

    python bench/profile_lint.py [DIR]   # default: bench/corpus/src, every 4th file

Runs ``lint_source`` under cProfile (which adds its own overhead: compare the
shares, not the seconds) and prints the cumulative time of the screens, the
LibCST parse, the rules (the one walk, each rule's ``finish()``).
"""

from __future__ import annotations

import cProfile
import os
import pstats
import sys

from tflint_perf.engine.linter import lint_source
from tflint_perf.rules import all_rules

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv=None) -> int:
    args = argv if argv is not None else sys.argv[1:]
    top = args[0] if args else os.path.join(HERE, "corpus", "src")
    files = sorted(
        os.path.join(base, name)
        for base, _dirs, names in os.walk(top)
        for name in names
        if name.endswith(".py")
    )[::4]
    sources = [open(f, encoding="utf-8", errors="replace").read() for f in files]
    rules = all_rules()
    profile = cProfile.Profile()
    profile.enable()
    for path, source in zip(files, sources):
        lint_source(source, path, rules)
    profile.disable()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]  # key -> (..., cumulative s)

    def cumulative(name: str, where: str = "") -> float:
        found = [v[3] for k, v in stats.items() if k[2] == name and where in k[0]]
        return max(found or [0.0])

    total = cumulative("lint_source")
    print(f"{len(files)} files, lint_source {total:.1f} s (with profiling overhead)")
    phases = [
        ("screens (incl. the ast parse)", cumulative("screened")),
        ("  the ast parse", cumulative("ast_tree")),
        ("LibCST parse_module", cumulative("parse_module")),
        ("rules", cumulative("_run_rules")),
        ("  the one walk", cumulative("walk", "engine")),
    ]
    finishes = {os.path.basename(k[0]): v[3] for k, v in stats.items() if k[2] == "finish"}
    phases += [(f"  {name} finish()", t) for name, t in finishes.items() if "tfp" in name]
    for label, seconds in phases:
        print(f"{label:45} {seconds:6.2f} s {seconds / total:6.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
