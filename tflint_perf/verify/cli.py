"""The command-line side of ``--verify`` (kept here so ``tflint_perf/cli.py`` only calls in)."""

from __future__ import annotations

import math
import sys
from typing import List, Tuple

from tflint_perf.engine.fixes import applicable, apply_edits, choose_fixes
from tflint_perf.engine.rule import Finding
from tflint_perf.run.config import ConfigError

APPLY = ("verified", "fixed")


def add_arguments(check) -> None:
    group = check.add_argument_group(
        "verify (executes the code under review: not for untrusted code)"
    )
    group.add_argument(
        "--verify",
        action="store_true",
        help="run each finding's code and its fix in worker processes; compare results and time them",
    )
    group.add_argument(
        "--verify-timeout",
        type=float,
        metavar="SECONDS",
        help="kill a worker that makes no progress for this long (default 120)",
    )
    group.add_argument(
        "--verify-size",
        type=int,
        metavar="N",
        help="size of synthesised inputs, e.g. rows of a matrix (default 256)",
    )
    group.add_argument(
        "--verify-memory",
        type=int,
        metavar="MIB",
        help="memory the flagged code may allocate, in MiB (default: the machine's RAM; 0: no limit)",
    )
    group.add_argument(
        "--verify-report", metavar="FILE.html", help="also write a self-contained HTML report"
    )


def options(args, settings):
    from tflint_perf.verify.options import options_from_table

    where = str(settings.config_path) if settings.config_path else "configuration"
    opts = options_from_table(settings.verify or {}, settings.root, where)
    if args.verify_timeout is not None:
        if not math.isfinite(args.verify_timeout) or args.verify_timeout <= 0:
            raise ConfigError("--verify-timeout must be a positive, finite number of seconds")
        opts.timeout = args.verify_timeout
    if args.verify_size is not None:
        if args.verify_size <= 0:
            raise ConfigError("--verify-size must be positive")
        opts.size = args.verify_size
    if args.verify_memory is not None:
        if args.verify_memory < 0:
            raise ConfigError("--verify-memory must not be negative")
        opts.memory_limit = args.verify_memory * 2**20
    opts.python = sys.executable
    opts.progress = True
    return opts


def lint_mode(args, mode: str) -> str:
    """With --verify, lint without fixing: fixes are applied only once verified."""
    if not getattr(args, "verify", False):
        if getattr(args, "verify_report", None):
            raise ConfigError("--verify-report needs --verify")
        return mode
    return "check"  # with --diff: the table, then what each verdict measured


def run(args, results, settings, findings: List[Finding], fixed: int) -> Tuple[List[Finding], int]:
    """Verify ``findings``; with --fix apply the verified fixes. Returns (findings to report, fixed)."""
    from tflint_perf.rules import all_rules
    from tflint_perf.run.files import decode
    from tflint_perf.run.notebooks import is_notebook
    from tflint_perf.verify.notebook import NotebookView
    from tflint_perf.verify.report import write_html
    from tflint_perf.verify.session import verify

    opts = options(args, settings)
    files = []
    sources = {}
    for result in results:
        if not result.findings:
            continue
        source, view = None, None
        if result.path != "-" and args.paths != ["-"]:
            try:
                with open(result.path, "rb") as handle:
                    source, encoding = decode(handle.read())
                sources[result.path] = (source, encoding)
                if is_notebook(result.path):  # the code cells joined, as the linter read them
                    view = NotebookView(source)
                    source = view.source
            except (OSError, ValueError):
                source = None
        files.append((result.path, source, sorted(result.findings, key=Finding.sort_key), view))
    session = verify(files, opts, {r.code: r for r in all_rules()})
    args.verify_session = session
    if args.verify_report:
        write_html(session.findings, args.verify_report, session)
    if not args.fix:
        return findings, fixed
    applied = apply_verified(files, sources, args.unsafe_fixes)
    remaining = [f for f in findings if not f.extra.get("verify", {}).get("applied")]
    return remaining, fixed + applied


def apply_verified(files, sources, unsafe: bool, stderr=None) -> int:
    """Write the fixes whose verdict is verified/fixed; say which were held back and why."""
    import libcst as cst

    stderr = stderr or sys.stderr
    total = 0
    for path, source, findings, *rest in files:
        view = rest[0] if rest else None
        candidates = [f for f in findings if applicable(f, unsafe)]
        good = [f for f in candidates if f.extra.get("verify", {}).get("status") in APPLY]
        for f in candidates:
            if f not in good:
                v = f.extra.get("verify", {})
                stderr.write(
                    f"tflint-perf: held back the fix for {f.path}:{f.line}:{f.column} {f.code}: "
                    f"{v.get('status', 'unverified')} ({v.get('reason', '')})\n"
                )
        if not good or source is None:
            continue
        chosen = choose_fixes(source, [f.fix for f in good])
        for f in good:
            if f.fix not in chosen:
                stderr.write(
                    f"tflint-perf: held back the fix for {f.path}:{f.line}:{f.column} {f.code}: "
                    "it overlaps another verified fix; run again\n"
                )
        new = apply_edits(source, [e for fix in chosen for e in fix.edits])
        try:
            cst.parse_module(new)
        except cst.ParserSyntaxError:
            stderr.write(
                f"tflint-perf: {path}: the verified fixes together do not parse; nothing written\n"
            )
            continue
        if view is not None:  # back into the notebook's cells, as --fix does
            new = view.write(new)
            if new is None:
                stderr.write(
                    f"tflint-perf: {path}: the verified fixes would move code across cells; "
                    "nothing written\n"
                )
                continue
        _, encoding = sources[path]
        with open(path, "w", encoding=encoding, newline="") as handle:
            handle.write(new)
        for f in good:
            if f.fix in chosen:
                f.extra["verify"]["applied"] = True
                total += 1
    return total


def write_text(out, args) -> None:
    from tflint_perf.verify.report import write_table

    session = getattr(args, "verify_session", None)
    if session is not None:
        write_table(session.findings, out, session, diffs=bool(getattr(args, "diff", False)))
    if getattr(args, "verify_report", None):
        out.write(f"The report, with every measurement: {args.verify_report}\n")
