"""Speed of --verify's cases: ``python bench/verify/run.py`` (or ``make bench-verify``).

Runs ``tflint-perf check --verify --unsafe-fixes --format json`` on the cases
in ``bench/verify/cases/`` (and, with ``--examples``, on ``examples/``) and
writes a markdown table to ``bench/results/verify.md``: per finding the
verdict, whether the results were equal, the median times, the speedup
(median of the per-pair speedups) with its 95% confidence interval, and the
first calls when measured (``first_calls``). Nothing here is a test: the tests (``tests/test_verify*.py``)
check equality only; speed is recorded here, never asserted.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

from tflint_perf.verify.report import seconds

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
OUT = ROOT / "bench" / "results" / "verify.md"


def run(paths, python: str, extra) -> list:
    command = [python, "-m", "tflint_perf", "check", "--verify", "--unsafe-fixes"]
    command += ["--format", "json", *extra, *map(str, paths)]
    proc = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    if not proc.stdout.strip():
        sys.exit(f"tflint-perf gave no JSON:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def row(finding: dict) -> str:
    v = finding["verify"]
    path = Path(finding["path"])
    name = (
        path.relative_to(ROOT).as_posix() if path.is_absolute() and ROOT in path.parents else path
    )
    speedup, interval = v.get("speedup"), v.get("interval") or [None, None]
    ratio = "-" if speedup is None else f"{speedup:.2f}x ({interval[0]:.2f}-{interval[1]:.2f}x)"
    first = v.get("first_call_s") or {}
    first_text = (
        f"{seconds(first.get('baseline'))} -> {seconds(first.get('fixed'))}" if first else "-"
    )
    equal = {True: "yes", False: "NO", None: "-"}[v.get("equal")]
    reason = v.get("reason", "").replace("|", "\\|")
    return (
        f"| `{name}:{finding['line']}` | {finding['code']} | {v.get('where', '') or '-'} | "
        f"{seconds(v.get('baseline_s'))} | {seconds(v.get('fixed_s'))} | {ratio} | {equal} | "
        f"{v.get('repeats') or '-'} | {first_text} | **{v['status']}** | {reason} |"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", action="store_true", help="also verify examples/")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("extra", nargs="*", help="more arguments for tflint-perf check")
    args = parser.parse_args(argv)
    paths = [HERE / "cases"] + ([ROOT / "examples"] if args.examples else [])
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    started = datetime.datetime.now(datetime.timezone.utc)
    findings = run(paths, args.python, args.extra)
    device = next((f["verify"]["device"] for f in findings if "verify" in f), "-")
    lines = [
        "# --verify on the cases in bench/verify/cases",
        "",
        f"Run {started:%Y-%m-%d %H:%M} UTC with `python bench/verify/run.py"
        + (" --examples" if args.examples else "")
        + "`.",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"{platform.system()} {platform.release()}, Python {platform.python_version()}.",
        f"Device: {device}.",
        f"Load average before: {' / '.join(f'{x:.2f}' for x in load) if load else '-'} "
        "(other jobs share this machine: compare ratios, not milliseconds).",
        "",
        "| finding | code | what was timed | original | fixed | speedup (95% CI) | equal | pairs "
        "| first call | verdict | reason |",
        "|---|---|---|---:|---:|---:|---|---:|---|---|---|",
    ]
    lines += [row(f) for f in findings if "verify" in f]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
