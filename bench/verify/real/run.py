"""--verify on real code: ``python bench/verify/real/run.py --corpus DIR`` (``make bench-verify-real``).

The findings in ``manifest.tsv`` come from public repositories of the
development corpus (``../shared/corpus/MANIFEST.tsv``, pinned commits; built
by ``../shared/corpus/build.py``: ``DIR/src/OWNER+NAME/...``). Nothing of
theirs is committed here: the benchmark copies each listed repository's
files from ``DIR`` into a scratch project, installs ``requirements.txt``
into its own environment (once; the scripts then get no network: the
guard rails refuse it), runs ``tflint-perf check --verify --format json``
there, and prints:

- the verdict of every listed finding (with what was measured, or why not),
- the share of meaningful verdicts (verified, no-speedup, mismatch) per rule,
- the wall time and the machine's load average,
- whether anything was written outside the workers' working copies: the
  scratch project (the "user's files"), the corpus, ``~/.keras``,
  ``~/tensorflow_datasets`` and every absolute path the scripts name are
  compared before and after.

``--runs 2`` runs it twice and compares the verdicts (the same verdict is
expected for every finding measured above 2x). Results: ``--out``
(default ``bench/results/verify-real.md``). Nothing here is a test.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
MEANINGFUL = ("verified", "no-speedup", "mismatch")
# The scripts are Keras 2 era: tf-keras runs them (requirements.txt installs it); gym's
# renderer draws into a dummy video driver.
SCRIPT_ENV = {"TF_USE_LEGACY_KERAS": "1", "TF_CPP_MIN_LOG_LEVEL": "2", "SDL_VIDEODRIVER": "dummy"}


def read_manifest(path: Path) -> list:
    with open(path, encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle, delimiter="\t") if not r["repo"].startswith("#")]
    for row in rows:
        row["line"] = int(row["line"])
    return rows


# -- the environment ------------------------------------------------------------
def environment(venv: Path) -> Path:
    """The benchmark's own Python with requirements.txt and this checkout installed."""
    python = venv / "bin" / "python"
    requirements = HERE / "requirements.txt"
    stamp = venv / ".requirements.sha256"
    digest = hashlib.sha256(requirements.read_bytes()).hexdigest()
    if python.exists() and stamp.exists() and stamp.read_text() == digest:
        return python
    print(f"== installing {requirements.name} into {venv} (once)", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "-r", str(requirements), "-e", str(ROOT)],
        check=True,
    )
    stamp.write_text(digest)
    return python


# -- the scratch project ----------------------------------------------------------
def copy_project(corpus: Path, rows: list, project: Path) -> None:
    """The listed repositories, and for some a --verify configuration of ours (``config/``)."""
    for repo in sorted({r["repo"] for r in rows}):
        folder = repo.replace("/", "+")
        source = corpus / "src" / folder
        if not source.is_dir():
            sys.exit(f"{source} is missing: build the corpus (see ../shared/corpus/README.md)")
        shutil.copytree(source, project / folder, symlinks=True)
        config = HERE / "config" / folder
        if config.is_dir():  # input factories for functions nothing calls, as a user would add
            shutil.copytree(config, project / folder, dirs_exist_ok=True)


def _named_paths(project: Path, rows: list) -> set:
    """Absolute paths the listed scripts name (string literals): their writes would land there."""
    found = set()
    for path in {r["path"] for r in rows}:
        text = (project / path).read_text(encoding="utf-8", errors="replace")
        for match in re.finditer(
            r"""['"](/(?:tmp|home|root|var|data|mnt)[^'"\\\s]*|~/[^'"\\\s]*)['"]""", text
        ):
            found.add(Path(os.path.expanduser(match.group(1))))
    return found


def snapshot(places) -> dict:
    """Every file under ``places`` with its size and modification time."""
    out = {}
    for place in places:
        place = Path(place)
        if place.is_file():
            stat = place.stat()
            out[str(place)] = (stat.st_size, stat.st_mtime_ns)
            continue
        if not place.is_dir():
            out[str(place)] = None
            continue
        for path in place.rglob("*"):
            try:
                stat = path.lstat()
            except OSError:
                continue
            out[str(path)] = (stat.st_size, stat.st_mtime_ns)
    return out


def changes(before: dict, after: dict) -> list:
    return sorted(
        f"{'new' if before.get(p) is None else 'changed'}: {p}"
        for p in set(before) | set(after)
        if before.get(p) != after.get(p) and after.get(p) is not None
    ) + sorted(f"deleted: {p}" for p in before if before[p] is not None and after.get(p) is None)


# -- running and reporting ------------------------------------------------------------
def verify(python: Path, project: Path, rows: list, timeout: float) -> tuple:
    """Each repository checked from its own root, as its owner would run tflint-perf there."""
    findings, stderr = [], ""
    start = time.monotonic()
    env = dict(os.environ, **SCRIPT_ENV)
    for repo in sorted({r["repo"] for r in rows}):
        folder = repo.replace("/", "+")
        mine = [r for r in rows if r["repo"] == repo]
        paths = sorted({r["path"].split("/", 1)[1] for r in mine})
        codes = ",".join(sorted({r["code"] for r in mine}))
        command = [str(python), "-m", "tflint_perf", "check", "--select", codes, "--no-cache"]
        command += ["--unsafe-fixes", "--verify", "--verify-timeout", str(timeout)]
        command += ["--format", "json", *paths]
        print(f"== {repo}: {len(mine)} finding(s) in {len(paths)} file(s)", flush=True)
        proc = subprocess.run(
            command, cwd=project / folder, capture_output=True, text=True, env=env
        )
        try:
            found = json.loads(proc.stdout)
        except ValueError:
            sys.exit(f"tflint-perf gave no JSON (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
        for finding in found:
            finding["path"] = f"{folder}/{finding['path']}"
        findings += found
        stderr += proc.stderr
    return findings, time.monotonic() - start, stderr


def match(rows: list, findings: list) -> list:
    by_key = {(f["path"], f["line"], f["code"]): f for f in findings}
    return [(row, by_key.get((row["path"], row["line"], row["code"]))) for row in rows]


def _speedup(v: dict) -> str:
    if v.get("speedup") is None:
        return "-"
    low, high = v.get("interval") or (None, None)
    return f"{v['speedup']:.2f}x" + (f" ({low:.2f}-{high:.2f}x)" if low is not None else "")


def _cell(text: str, limit: int = 240) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def table(matched: list) -> list:
    lines = [
        "| # | finding | code | kind | verdict | speedup (95% CI) | what was measured, or why not |",
        "|---:|---|---|---|---|---:|---|",
    ]
    for index, (row, finding) in enumerate(matched, 1):
        v = (finding or {}).get("verify") or {}
        status = v.get("status", "not found")
        why = v.get("where") or ""
        why = (
            f"{why}: {v.get('reason', '')}"
            if why
            else v.get("reason", "the linter did not report it")
        )
        lines.append(
            f"| {index} | `{row['path']}:{row['line']}` | {row['code']} | {row['kind']} | "
            f"**{status}** | {_speedup(v)} | {_cell(why)} |"
        )
    return lines


def shares(matched: list) -> list:
    per: dict = defaultdict(Counter)
    for row, finding in matched:
        status = ((finding or {}).get("verify") or {}).get("status", "not found")
        per[row["code"]][status] += 1
        per["all"][status] += 1
    lines = ["| rule | findings | meaningful | share | verdicts |", "|---|---:|---:|---:|---|"]
    for code in sorted(per, key=lambda c: (c == "all", c)):
        counts = per[code]
        total = sum(counts.values())
        good = sum(counts[s] for s in MEANINGFUL)
        spread = ", ".join(f"{n} {s}" for s, n in counts.most_common())
        name = "**all**" if code == "all" else code
        lines.append(f"| {name} | {total} | {good} | {good / total:.0%} | {spread} |")
    return lines


def compare(first: list, second: list) -> list:
    lines = ["| finding | run 1 | run 2 | same |", "|---|---|---|---|"]
    for (row, a), (_, b) in zip(first, second):
        va, vb = (a or {}).get("verify") or {}, (b or {}).get("verify") or {}
        sa, sb = va.get("status", "-"), vb.get("status", "-")
        big = max(va.get("speedup") or 0, vb.get("speedup") or 0) > 2
        lines.append(
            f"| `{row['path']}:{row['line']}` {row['code']} | {sa} {_speedup(va)} | {sb} {_speedup(vb)} | "
            f"{'yes' if sa == sb else '**no**' if big else 'no (below 2x)'} |"
        )
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True, help="the built development corpus (has src/)")
    parser.add_argument("--venv", default=str(HERE / ".venv"), help="the benchmark's environment")
    parser.add_argument("--manifest", default=str(HERE / "manifest.tsv"))
    parser.add_argument(
        "--timeout",
        type=float,
        default=240.0,
        help="--verify-timeout (default 240: notebooks train first)",
    )
    parser.add_argument("--runs", type=int, default=1, help="2: run twice and compare verdicts")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "verify-real.md"))
    args = parser.parse_args(argv)
    corpus = Path(args.corpus).resolve()
    rows = read_manifest(Path(args.manifest))
    python = environment(Path(args.venv))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    started = datetime.datetime.now(datetime.timezone.utc)
    runs, walls, leaks = [], [], []
    with tempfile.TemporaryDirectory(prefix="tflint-perf-bench-real-") as scratch:
        project = Path(scratch) / "project"
        copy_project(corpus, rows, project)
        home = Path.home()
        watched = [project, corpus / "src", home / ".keras", home / "tensorflow_datasets"]
        watched += sorted(_named_paths(project, rows))
        for _ in range(args.runs):
            before = snapshot(watched)
            findings, wall, stderr = verify(python, project, rows, args.timeout)
            leaks += changes(before, snapshot(watched))
            runs.append(match(rows, findings))
            walls.append(wall)
    head = [
        "# --verify on real code (bench/verify/real)",
        "",
        f"Run {started:%Y-%m-%d %H:%M} UTC: `python bench/verify/real/run.py --corpus {args.corpus}"
        + (f" --runs {args.runs}" if args.runs > 1 else "")
        + f"` ({len(rows)} findings, manifest `bench/verify/real/manifest.tsv`).",
        f"Machine: {os.cpu_count()} cores, {platform.system()} {platform.release()}, Python "
        f"{platform.python_version()}; load average {load:.2f} at the start"
        if load is not None
        else "",
        "Wall time: " + ", ".join(f"{w:.0f} s" for w in walls) + ".",
        "Written outside the working copies: "
        + (
            "nothing (checked: the scratch project, the corpus, ~/.keras, ~/tensorflow_datasets and "
            "the absolute paths the scripts name)."
            if not leaks
            else f"{len(leaks)} change(s):"
        ),
    ]
    lines = head + [f"- {leak}" for leak in leaks[:50]]
    lines += ["", "## Verdicts", ""] + table(runs[0]) + ["", "## Meaningful verdicts per rule", ""]
    lines += shares(runs[0])
    if len(runs) > 1:
        lines += ["", "## Run 1 against run 2", ""] + compare(runs[0], runs[1])
        lines += ["", "Run 2, meaningful verdicts per rule:", ""] + shares(runs[1])
    text = "\n".join(lines) + "\n"
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(text)
    return 1 if leaks else 0


if __name__ == "__main__":
    sys.exit(main())
