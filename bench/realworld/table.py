"""The scorer's table from findings saved by ``score.py --findings``, without linting again.

    python bench/realworld/table.py FINDINGS.json LABELS.tsv [--drop-small]

``--drop-small``: leave out batch 4's TFP101 labels in tensorflow_cookbook whose
note says "small" (loops over a few hundred rows that run once; see batch4/blind.md).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from score import read_labels, score, table


def small(label: dict) -> bool:
    return (
        label["code"] == "TFP101"
        and label["repo"] == "nfmcclure/tensorflow_cookbook"
        and "small" in label["note"].lower()
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("findings", type=Path)
    parser.add_argument("labels", type=Path)
    parser.add_argument("--drop-small", action="store_true")
    args = parser.parse_args()
    findings = [f for f in json.loads(args.findings.read_text()) if f["code"] != "TFP000"]
    labels = read_labels(args.labels)
    if args.drop_small:
        labels = [label for label in labels if not small(label)]
    print(table(score(findings, labels, 2), labels))


if __name__ == "__main__":
    main()
