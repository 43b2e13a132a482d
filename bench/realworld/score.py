"""Precision and recall per rule on hand-labelled real code.

    python bench/realworld/score.py --corpus DIR [--labels FILE] [--details CODE|all]

DIR is what ``../shared/corpus/build.py`` writes (``src/`` and ``nbpy/``);
see bench/realworld/README.md. The linter runs as users run it (the
console script, every rule, no cache) over ``src/**/*.py`` and
``nbpy/**/*.ipynb.py`` (raw ``.ipynb`` files are skipped: their nbpy twin
is the same code with line numbers a label can name).

A label is ``repo, commit, path, line, code, note``; ``code`` is a rule
code (a real trap there) or ``NEG`` (a near miss: no rule may report
there; the note starts with the rule it is a near miss for). A finding
matches a label of its rule in the same file within ``--tolerance`` lines
(each label and each finding matched at most once, nearest first).

Per rule it prints: TP (findings on a label of that rule), FP (findings on
a NEG or on a label of another rule), unlabelled findings, strict
precision (TP / all findings: an unlabelled finding counts as wrong until
someone labels it), recall (labels found / labels).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIELDS = ["repo", "commit", "path", "line", "code", "note"]


def read_labels(path: Path) -> list:
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    for number, row in enumerate(rows, start=2):
        missing = [f for f in FIELDS if not (row.get(f) or "").strip()]
        if missing:
            raise SystemExit(f"{path}:{number}: missing {', '.join(missing)}")
        row["line"] = int(row["line"])
    return rows


def corpus_files(corpus: Path, repos: set) -> list:
    files = []
    for kind, suffix in (("src", ".py"), ("nbpy", ".ipynb.py")):
        top = corpus / kind
        for folder in sorted(top.iterdir()) if top.is_dir() else []:
            if repos and folder.name.replace("+", "/", 1) not in repos:
                continue
            for base, _dirs, names in os.walk(folder):
                files += [os.path.join(base, n) for n in sorted(names) if n.endswith(suffix)]
    return files


def run_linter(files: list, tool: str, jobs: str) -> list:
    """One run per repository (and per kind, ``src``/``nbpy``): the files of a
    repository are linted together, as its users run the tool, so the project
    index sees the modules that import each other."""
    groups: dict = defaultdict(list)
    for path in files:
        parts = Path(path).parts
        kind = next((k for k, part in enumerate(parts) if part in ("src", "nbpy")), 0)
        groups[parts[kind : kind + 2]].append(path)
    findings = []
    chunk = 2000  # keep command lines short
    for key in sorted(groups):
        group = groups[key]
        for start in range(0, len(group), chunk):
            cmd = [tool, "check", "--format", "json", "--exit-zero", "--no-cache", "-j", jobs]
            out = subprocess.run(
                cmd + group[start : start + chunk], capture_output=True, text=True, check=False
            )
            if out.returncode != 0:
                raise SystemExit(f"tflint-perf failed ({out.returncode}): {out.stderr.strip()}")
            findings += json.loads(out.stdout)
    return findings


def locate(path: str, corpus: Path):
    """(repo, path in repo) of a corpus file."""
    rel = Path(os.path.relpath(path, corpus)).parts
    return rel[1].replace("+", "/", 1), "/".join(rel[2:])


def match(findings: list, labels: list, tolerance: int):
    """Pairs (finding, label) nearest first; each used once."""
    pairs = sorted(
        (abs(f["line"] - lab["line"]), i, j)
        for i, f in enumerate(findings)
        for j, lab in enumerate(labels)
        if abs(f["line"] - lab["line"]) <= tolerance
    )
    used_f, used_l, out = set(), set(), []
    for _dist, i, j in pairs:
        if i not in used_f and j not in used_l:
            used_f.add(i)
            used_l.add(j)
            out.append((i, j))
    return out


def score(findings: list, labels: list, tolerance: int) -> dict:
    """Per code: lists of tp, fp, unlabelled findings and fn labels."""
    by_file_f = defaultdict(list)
    for f in findings:
        by_file_f[(f["repo"], f["rel"])].append(f)
    by_file_l = defaultdict(list)
    for lab in labels:
        by_file_l[(lab["repo"], lab["path"])].append(lab)
    result: dict = defaultdict(lambda: {"tp": [], "fp": [], "unlabelled": [], "fn": []})
    for key in set(by_file_f) | set(by_file_l):
        file_findings, file_labels = by_file_f.get(key, []), by_file_l.get(key, [])
        codes = {f["code"] for f in file_findings} | {
            lab["code"] for lab in file_labels if lab["code"] != "NEG"
        }
        for code in codes:
            mine = [f for f in file_findings if f["code"] == code]
            positives = [lab for lab in file_labels if lab["code"] == code]
            found = match(mine, positives, tolerance)
            matched_f = {i for i, _ in found}
            matched_l = {j for _, j in found}
            result[code]["tp"] += [mine[i] for i in matched_f]
            result[code]["fn"] += [p for j, p in enumerate(positives) if j not in matched_l]
            rest = [f for i, f in enumerate(mine) if i not in matched_f]
            others = [lab for lab in file_labels if lab["code"] != code]
            wrong = {i for i, _ in match(rest, others, tolerance)}
            result[code]["fp"] += [f for i, f in enumerate(rest) if i in wrong]
            result[code]["unlabelled"] += [f for i, f in enumerate(rest) if i not in wrong]
    return result


def table(result: dict, labels: list) -> str:
    negs = defaultdict(int)
    for lab in labels:
        if lab["code"] == "NEG":
            negs[lab["note"].split(":", 1)[0].strip()] += 1
    lines = [
        f"{'rule':7} {'labels':>6} {'NEG':>4} {'found':>6} {'TP':>4} {'FP':>4} {'unlab':>5}"
        f" {'precision':>9} {'recall':>6}"
    ]
    totals = defaultdict(int)
    for code in sorted(c for c in result if c != "TFP000"):
        r = result[code]
        tp, fp, un, fn = (len(r[k]) for k in ("tp", "fp", "unlabelled", "fn"))
        found = tp + fp + un
        precision = f"{tp / found:.2f}" if found else "-"
        recall = f"{tp / (tp + fn):.2f}" if tp + fn else "-"
        lines.append(
            f"{code:7} {tp + fn:6} {negs.get(code, 0):4} {found:6} {tp:4} {fp:4} {un:5}"
            f" {precision:>9} {recall:>6}"
        )
        for key, value in (("tp", tp), ("fp", fp), ("un", un), ("fn", fn)):
            totals[key] += value
    tp, fp, un, fn = totals["tp"], totals["fp"], totals["un"], totals["fn"]
    found = tp + fp + un
    lines.append(
        f"{'all':7} {tp + fn:6} {sum(negs.values()):4} {found:6} {tp:4} {fp:4} {un:5}"
        f" {tp / found if found else 0:9.2f} {tp / (tp + fn) if tp + fn else 0:6.2f}"
    )
    return "\n".join(lines)


def details(result: dict, which: str) -> str:
    out = []
    for code in sorted(result):
        if which != "all" and code != which:
            continue
        r = result[code]
        for kind in ("fp", "unlabelled"):
            for f in sorted(r[kind], key=lambda f: (f["repo"], f["rel"], f["line"])):
                out.append(
                    f"{code} {kind.upper()}  {f['repo']}/{f['rel']}:{f['line']}  {f['message']}"
                )
        for lab in sorted(r["fn"], key=lambda lab: (lab["repo"], lab["path"], lab["line"])):
            out.append(f"{code} MISS  {lab['repo']}/{lab['path']}:{lab['line']}  {lab['note']}")
    return "\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", required=True, type=Path, help="build.py's output folder")
    parser.add_argument("--labels", type=Path, default=HERE / "labels.tsv")
    parser.add_argument("--tolerance", type=int, default=2, help="lines (default 2)")
    parser.add_argument("--details", metavar="CODE", help="list FP, unlabelled, MISS (or 'all')")
    parser.add_argument("--tool", default="tflint-perf", help="the console script to run")
    parser.add_argument("--jobs", default="0", help="-j for tflint-perf (0: every core)")
    parser.add_argument("--findings", type=Path, help="also write the findings (JSON) here")
    args = parser.parse_args(argv)
    if not (args.corpus / "src").is_dir():
        print(f"{args.corpus}: no src/ folder; build the corpus first (bench/realworld/README.md)")
        return 2
    labels = read_labels(args.labels)
    repos = {lab["repo"] for lab in labels}
    files = corpus_files(args.corpus, repos)
    findings = run_linter(files, args.tool, args.jobs)
    for f in findings:
        f["repo"], f["rel"] = locate(f["path"], args.corpus)
    if args.findings:
        args.findings.write_text(json.dumps(findings, indent=1))
    result = score(findings, labels, args.tolerance)
    syntax = sum(1 for f in findings if f["code"] == "TFP000")
    print(
        f"{len(files)} files of {len(repos)} repositories, {len(labels)} labels, "
        f"{len(findings) - syntax} findings (+{syntax} TFP000), tolerance {args.tolerance} lines"
    )
    print(table(result, labels))
    if args.details:
        print(details(result, args.details))
    return 0


if __name__ == "__main__":
    sys.exit(main())
