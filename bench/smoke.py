"""``make smoke``: tflint-perf over real code at scale, and its fixes checked.

    python bench/smoke.py                        # download the wheels, lint, fix a copy
    python bench/smoke.py --dev-corpus ../corpus-dev --wheels DIR --keep

1. The corpus: the sources of four TensorFlow wheels (``pip download
   --no-deps``, as bench/fetch_corpus.py does) and, when the folder exists,
   the development corpus (``--dev-corpus``; skipped when absent). Only
   ``.py`` and ``.ipynb`` files are copied into a work folder.
2. Lint everything with every rule (the CLI, ``--format json``): zero
   internal errors; every TFP000 is listed with its reason, and each must
   be a file (or notebook cell) that the running Python cannot compile.
3. Fix safety, on the copy: ``--fix --unsafe-fixes``; every changed file
   still compiles (as much as before); a second ``--fix`` changes nothing;
   no line carrying ``noqa`` changed; the findings after the fix are a
   sub-multiset of those before (keyed like the baseline: file, code, text
   of the flagged line), i.e. no fix created a finding.
4. Messages (bench/messages.py): the longest headline, headlines over 100
   characters, quoted code that does not parse, TFP101 advice that reads the
   loop's own variable: zero of each.

Prints the counts; exits 1 if any check fails. Not part of ``make test``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import fetch_corpus  # noqa: E402
import messages  # noqa: E402

from tflint_perf import baseline  # noqa: E402
from tflint_perf.engine.cells import compile_error  # noqa: E402
from tflint_perf.run.files import decode  # noqa: E402

SUFFIXES = (".py", ".ipynb")
CELL_FLAGS = 0x400 | 0x2000  # as engine/cells.py compiles a notebook cell (top-level await)


def tflint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "tflint_perf", "check", *args]
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if proc.returncode not in (0, 1, 2):
        sys.exit(f"tflint-perf crashed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return proc


def copy_sources(roots: dict, tree: Path) -> int:
    """Copy the .py/.ipynb files of each named root into tree/<name>/."""
    count = 0
    for name, root in roots.items():
        for path in sorted(root.rglob("*")):
            if path.suffix in SUFFIXES and path.is_file() and not path.is_symlink():
                target = tree / name / path.relative_to(root)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
                count += 1
    return count


def snapshot(tree: Path) -> dict:
    return {
        str(p.relative_to(tree)): p.read_bytes() for p in sorted(tree.rglob("*")) if p.is_file()
    }


def lint_json(tree: Path, *extra: str):
    proc = tflint("--format", "json", "--exit-zero", "-j", "0", *extra, ".", cwd=tree)
    errors = [line for line in proc.stderr.splitlines() if line.startswith("tflint-perf: error")]
    warnings = [line for line in proc.stderr.splitlines() if "warning" in line]
    return json.loads(proc.stdout or "[]"), errors, warnings


# -- TFP000: only for what really does not parse --------------------------------


def _notebook_cell_compiles(data: bytes, finding: dict) -> bool:
    from tflint_perf.run.notebooks import NotebookError, neutralise, read

    try:
        notebook = read(data.decode("utf-8-sig"))
    except (NotebookError, UnicodeDecodeError):
        return False  # the notebook itself cannot be read
    cell = next((c for c in notebook.cells if c.number == finding.get("cell")), None)
    return cell is not None and compile_error(neutralise(cell.text), CELL_FLAGS) is None


def really_broken(data: bytes, finding: dict) -> bool:
    """Whether the running Python agrees that the reported code does not parse."""
    if finding["path"].endswith(".ipynb"):
        return not _notebook_cell_compiles(data, finding)
    try:
        source, _ = decode(data)
    except ValueError:
        return True
    return compile_error(source) is not None


def check_tfp000(findings: list, files: dict) -> list:
    """Print every TFP000 with its reason; the ones Python parses fine."""
    wrong = []
    syntax = [f for f in findings if f["code"] == "TFP000"]
    print(f"\n== TFP000: {len(syntax)}")
    for f in syntax:
        ok = really_broken(files[f["path"]], f)
        where = f"cell {f['cell']}:{f.get('cell_line')}" if "cell" in f else f["line"]
        print(f"  {'' if ok else 'NOT A SYNTAX ERROR '}{f['path']}:{where}: {f['message']}")
        if not ok:
            wrong.append(f["path"])
    return wrong


# -- fix safety ------------------------------------------------------------------


def compiles(path: str, data: bytes) -> bool:
    if path.endswith(".ipynb"):
        try:
            json.loads(data.decode("utf-8-sig"))
            return True
        except ValueError:
            return False
    try:
        return compile_error(decode(data)[0]) is None
    except ValueError:
        return False


def noqa_lines_changed(before: bytes, after: bytes) -> int:
    """Lines holding ``noqa`` in ``before`` that are not kept as they were."""
    import difflib

    old = before.decode("utf-8", "replace").splitlines()
    new = after.decode("utf-8", "replace").splitlines()
    changed = 0
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            changed += sum("noqa" in line.lower() for line in old[i1:i2])
    return changed


def keyed(findings: list, tree: Path, texts: dict) -> list:
    """(key, finding) per finding, keyed as the baseline keys them (file, code, flagged
    line's text)."""
    from tflint_perf.engine.rule import Finding

    objects = {}
    for f in findings:
        position = f["line"], f["column"], f["end_line"], f["end_column"]
        finding = Finding(str(tree / f["path"]), *position, f["code"], f["name"], f["message"])
        finding.extra = {k: f[k] for k in ("cell", "cell_line") if k in f}
        objects[id(finding)] = (finding, f)
    overrides = {str(tree / p): data.decode("utf-8", "replace") for p, data in texts.items()}
    lines = baseline._Lines(overrides)
    found = baseline.keyed([o for o, _ in objects.values()], str(tree), lines)
    return [(key, objects[id(finding)][1]) for key, _, finding in found]


def created(
    before: list, after: list, tree: Path, before_files: dict, after_files: dict
) -> Counter:
    """Findings after the fix that none before accounts for, keyed as the baseline keys
    them; a finding whose own line a fix rewrote (a prefetch appended to the line of a
    `.batch(1)`) is matched by its place instead: the same code at the same line and
    column before."""
    old = keyed(before, tree, before_files)
    new = Counter(k for k, _ in keyed(after, tree, after_files)) - Counter(k for k, _ in old)
    placed = Counter((f["path"], f["code"], f["line"], f["column"]) for _, f in old)
    for key, f in keyed(after, tree, after_files):
        place = (f["path"], f["code"], f["line"], f["column"])
        if new[key] and placed[place]:
            new[key] -= 1
            placed[place] -= 1
    return +new


def fix_safety(tree: Path, before_files: dict, before: list, cache: Path) -> dict:
    fix = ("--fix", "--unsafe-fixes", "--cache-dir", str(cache))
    after, errors, warnings = lint_json(tree, *fix)
    fixed_files = snapshot(tree)
    changed = [p for p in before_files if fixed_files.get(p) != before_files[p]]
    broken = [
        p for p in changed if compiles(p, before_files[p]) and not compiles(p, fixed_files[p])
    ]
    noqa = sum(noqa_lines_changed(before_files[p], fixed_files[p]) for p in changed)
    lint_json(tree, *fix)  # the second --fix
    again = snapshot(tree)
    unstable = [p for p in changed if again[p] != fixed_files[p]]
    unstable += [p for p in before_files if p not in changed and again[p] != before_files[p]]
    new = created(before, after, tree, before_files, fixed_files)
    return {
        "changed": changed,
        "broken": broken,
        "unstable": unstable,
        "noqa": noqa,
        "new": new,
        "after": after,
        "errors": errors,
        "warnings": warnings,
    }


def report(files: int, before: list, errors: list, internal: list, wrong: list, fix: dict) -> bool:
    offered = sum(1 for f in before if f["fix"] is not None)
    fixable_left = sum(1 for f in fix["after"] if f["fix"] is not None)
    rows = [
        ("files", files),
        ("findings before", len(before)),
        ("internal errors", len(internal)),
        ("other errors", len(errors)),
        ("TFP000 (syntax errors)", sum(f["code"] == "TFP000" for f in before)),
        ("TFP000 that Python parses", len(wrong)),
        ("findings with a fix (safe or unsafe)", offered),
        ("files fixed", len(fix["changed"])),
        ("findings after --fix --unsafe-fixes", len(fix["after"])),
        ("  of which still with a fix (not applied)", fixable_left),
        ("files broken by a fix", len(fix["broken"])),
        ("files changed by a second --fix (unstable)", len(fix["unstable"])),
        ("noqa lines changed", fix["noqa"]),
        ("findings created by a fix", sum(fix["new"].values())),
        ("errors during --fix", len(fix["errors"])),
    ]
    print("\n== counts")
    for label, value in rows:
        print(f"  {label:<45} {value}")
    for title, items in (
        ("internal errors", internal),
        ("errors", errors + fix["errors"]),
        ("broken", fix["broken"]),
        ("unstable", fix["unstable"]),
        ("created findings", sorted(fix["new"])),
        ("fix warnings", fix["warnings"]),
    ):
        for item in items[:50]:
            print(f"  {title}: {item}")
    # What users read (issue 22): headlines, quoted code, TFP101's advice.
    counts, said_wrong = messages.check(before)
    for label, value in counts.items():
        print(f"  {label:<45} {value}")
    print(f"  {'message problems':<45} {len(said_wrong)}")
    for item in said_wrong[:50]:
        print(f"  message: {item}")
    problems = internal, errors, wrong, fix["broken"], fix["unstable"], fix["new"], fix["errors"]
    return not any(problems) and not said_wrong and fix["noqa"] == 0


def corpus_roots(args) -> dict:
    wheels = args.wheels
    if wheels is None:
        wheels = fetch_corpus.CORPUS / "wheels"
        fetch_corpus.download(wheels)
    src = args.work / "wheels-src"
    print(f"{fetch_corpus.unpack(wheels, src)} .py files from the wheels in {wheels}")
    roots = {"wheels": src}
    if args.dev_corpus and args.dev_corpus.is_dir():
        roots["dev"] = args.dev_corpus
    else:
        print(f"development corpus {args.dev_corpus}: absent, skipped")
    return roots


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheels", type=Path, help="wheels already downloaded (default: download)")
    parser.add_argument("--dev-corpus", type=Path, help="the development corpus, if built")
    parser.add_argument("--work", type=Path, help="work folder (default: a temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args(argv)
    start = time.monotonic()
    args.work = args.work or Path(tempfile.mkdtemp(prefix="tflint-smoke-"))
    tree = args.work / "tree"
    try:
        count = copy_sources(corpus_roots(args), tree)
        before_files = snapshot(tree)
        before, errors, _ = lint_json(tree, "--no-cache")
        internal = [line for line in errors if "internal error" in line]
        errors = [line for line in errors if "internal error" not in line]
        wrong = check_tfp000(before, before_files)
        fix = fix_safety(tree, before_files, before, args.work / "cache")
        ok = report(count, before, errors, internal, wrong, fix)
    finally:
        if not args.keep:
            shutil.rmtree(args.work, ignore_errors=True)
    print(f"\nsmoke {'passed' if ok else 'FAILED'} in {time.monotonic() - start:.0f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
