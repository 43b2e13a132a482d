"""Measure the verify samples: `python tests/verify_samples/measure.py [--html FILE]`.

The rules other than TFP301 may not exist in this checkout yet, so each
sample's finding (and its fix, written as the rule would) is given here.
TFP301 is found by the real rule. Prints the verify table.
"""

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from tflint_perf.linter import lint_source  # noqa: E402
from tflint_perf.rule import Edit, Finding, Fix  # noqa: E402
from tflint_perf.rules import all_rules  # noqa: E402
from tflint_perf.verify.options import VerifyOptions  # noqa: E402
from tflint_perf.verify.report import write_html, write_table  # noqa: E402
from tflint_perf.verify.session import verify  # noqa: E402


def replace(path, line, old, new):
    text = path.read_text().splitlines()[line - 1]
    col = text.index(old)
    return Fix((Edit(line, col, line, col + len(old), new),))


def insert(line, text):
    return Fix((Edit(line, 0, line, 0, text),))


def finding(path, line, code, fix=None, end=None):
    return Finding(str(path), line, 1, end or line, 1, code, code, code, fix)


def samples():
    s = {name: HERE / f"{name}.py" for name in (
        "elementwise_loop", "handwritten_conv", "train_step", "retracing", "rebuilt_in_loop", "dataset_map",
        "predict_in_loop", "float_loss", "threads_late")}
    yield s["elementwise_loop"], [finding(s["elementwise_loop"], 5, "TFP101", end=6)]
    conv = "    return tf.squeeze(tf.nn.conv2d(image[None, :, :, None], kernel[:, :, None, None], 1, \"VALID\"), [0, 3])\n"
    yield s["handwritten_conv"], [finding(s["handwritten_conv"], 7, "TFP102", Fix((Edit(5, 0, 13, 0, conv),), "unsafe"), end=12)]
    yield s["train_step"], [finding(s["train_step"], 7, "TFP201", insert(7, "@tf.function\n"))]
    yield s["retracing"], [finding(s["retracing"], 10, "TFP203", replace(s["retracing"], 10, "scaled(x, k)", "scaled(x, tf.constant(k, tf.float32))"))]
    yield s["rebuilt_in_loop"], [finding(s["rebuilt_in_loop"], 5, "TFP202", insert(5, "    tf.keras.backend.clear_session()\n"))]
    yield s["dataset_map"], [finding(s["dataset_map"], 11, "TFP402", replace(s["dataset_map"], 11, ".map(augment)", ".map(augment, num_parallel_calls=tf.data.AUTOTUNE)"))]
    yield s["dataset_map"], [finding(s["dataset_map"], 11, "TFP401", replace(s["dataset_map"], 11, ".batch(32)", ".batch(32).prefetch(tf.data.AUTOTUNE)"))]
    yield s["predict_in_loop"], [finding(s["predict_in_loop"], 8, "TFP403")]
    yield s["float_loss"], [finding(s["float_loss"], 7, "TFP999", replace(s["float_loss"], 7, "losses.append(float(loss))", "losses.append(loss)"))]
    threads = s["threads_late"]
    yield threads, lint_source(threads.read_text(), str(threads), all_rules())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--html")
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--only", help="only this rule code's samples")
    args = parser.parse_args()
    files = [(str(path), path.read_text(), findings) for path, findings in samples()
             if not args.only or any(f.code == args.only for f in findings)]
    options = VerifyOptions(root=HERE, python=sys.executable, size=args.size, progress=True)
    session = verify(files, options, {r.code: r for r in all_rules()})
    findings = [f for _, _, fs in files for f in fs]
    write_table(findings, sys.stdout, session)
    if args.html:
        write_html(findings, args.html, session)


if __name__ == "__main__":
    main()
