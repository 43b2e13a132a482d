"""The ``tflint-perf`` command line."""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Dict, List, Optional, Sequence

from tflint_perf import __version__, reporters
from tflint_perf.run.cache import Cache
from tflint_perf.run.cache import default_directory as default_cache_dir
from tflint_perf.run.config import (
    ConfigError,
    Settings,
    known_codes,
    load_settings,
    refuse_conflicts,
    validate_codes,
)
from tflint_perf.run.discovery import PathError, collect
from tflint_perf.run.files import lint_text
from tflint_perf.run.parallel import lint_files
from tflint_perf.run.result import CHECK, DIFF, FIX, FileResult
from tflint_perf.verify import cli as verify_cli

if TYPE_CHECKING:  # imported at run time only when asked for
    from tflint_perf.baseline import Baseline
    from tflint_perf.gitdiff import Changes

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
EXIT_TERMINATED = 128 + 15  # SIGTERM, as a shell reports a process it ended


class _Terminated(BaseException):
    """SIGTERM (a CI job cancelled, ``timeout``): unwind like Ctrl-C, so
    workers are stopped and temporary files removed, then exit quietly."""


def _raise_terminated(signum, frame):
    raise _Terminated()


def _on_sigterm(handler):
    """Install ``handler`` for SIGTERM; the previous one (None off the main thread)."""
    import signal

    try:
        return signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave signals alone
        return None


class _Parser(argparse.ArgumentParser):
    _width: Optional[int] = None

    def __init__(self, *args, **kwargs) -> None:
        # No prefix matching: `--output json` must not mean `--output-file json`.
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # one line, exit 2, like argparse but shorter
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")

    def _get_formatter(self):
        # argparse asks the terminal for its size at every add_argument; once is enough.
        if _Parser._width is None:
            import shutil

            _Parser._width = shutil.get_terminal_size().columns - 2
        return self.formatter_class(prog=self.prog, width=_Parser._width)


def _codes(text: str) -> List[str]:
    return [c for c in text.replace(" ", ",").split(",") if c]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tflint-perf",
        description="Find, explain and fix TensorFlow performance traps.",
    )
    parser.add_argument("--version", action="version", version=f"tflint-perf {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    check = sub.add_parser("check", help="lint files and directories")
    check.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or directories (default: .); - reads stdin"
    )
    check.add_argument(
        "--select",
        type=_codes,
        action="append",
        help="codes or prefixes to enable (replaces the configured set)",
    )
    check.add_argument(
        "--extend-select",
        type=_codes,
        action="append",
        help="codes or prefixes to enable in addition",
    )
    check.add_argument(
        "--ignore", type=_codes, action="append", help="codes or prefixes to disable"
    )
    check.add_argument(
        "--output-format",
        "--format",
        dest="format",
        choices=reporters.FORMATS,
        default="full",
        help="output format (default: full, code frames; concise: one line per finding;"
        " text: the same as full)",
    )
    check.add_argument(
        "--show-fixes",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show each fix as a diff under its finding (full format, the default); "
        "with --fix or --fix-only, also list what was fixed in each file",
    )
    check.add_argument(
        "-o", "--output-file", help="write the report to this file instead of stdout"
    )
    check.add_argument("--fix", action="store_true", help="apply safe fixes in place")
    check.add_argument(
        "--fix-only",
        action="store_true",
        help="apply fixes, but do not report (or exit 1 for) the findings left; implies --fix",
    )
    check.add_argument(
        "--unsafe-fixes", action="store_true", help="also offer and apply unsafe fixes"
    )
    check.add_argument(
        "--diff", action="store_true", help="print the changes --fix would make; write nothing"
    )
    check.add_argument(
        "-e", "--exit-zero", action="store_true", help="exit 0 even when there are findings"
    )
    check.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")
    check.add_argument(
        "--statistics",
        action="store_true",
        help="print the number of findings per rule, then the total (full, concise or json)",
    )
    check.add_argument("--config", help="configuration file (default: nearest pyproject.toml)")
    check.add_argument("--stdin-filename", help="the file name to report for stdin input")
    check.add_argument(
        "--exclude",
        type=_codes,
        action="append",
        metavar="PATTERNS",
        help="glob patterns of files and folders to skip (replaces the configured exclude)",
    )
    check.add_argument(
        "--extend-exclude",
        type=_codes,
        action="append",
        metavar="PATTERNS",
        help="patterns to skip in addition to the configured exclude",
    )
    check.add_argument(
        "--force-exclude",
        action="store_true",
        help="apply exclude patterns (and .gitignore) to files named on the command line",
    )
    check.add_argument(
        "--respect-gitignore",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="skip files that .gitignore or .git/info/exclude ignore",
    )
    # Pull requests and adoption (logic in gitdiff.py and baseline.py).
    check.add_argument(
        "--diff-base",
        "--changed-since",
        dest="diff_base",
        metavar="REF",
        help="report only findings on lines added or changed since git revision REF",
    )
    check.add_argument(
        "--baseline", metavar="FILE", help="report only findings not recorded in this baseline file"
    )
    check.add_argument(
        "--write-baseline", metavar="FILE", help="record every current finding in FILE and exit 0"
    )
    _add_speed_options(check)
    verify_cli.add_arguments(check)  # --verify and its options: tflint_perf/verify/cli.py

    rules = sub.add_parser("rules", help="list every rule")
    rules.add_argument(
        "--output-format", "--format", dest="format", choices=("text", "json"), default="text"
    )

    explain = sub.add_parser(
        "rule", aliases=["explain"], help="print a rule's documentation (by code or name)"
    )
    explain.add_argument("code", metavar="CODE|NAME")

    why = sub.add_parser("why", help="what each rule decided at FILE:LINE, and why")
    why.add_argument("location", metavar="FILE:LINE")
    why.add_argument(
        "--select", type=_codes, action="append", metavar="CODE", help="only these rules (prefixes)"
    )

    clean = sub.add_parser("clean", help="remove the cache folder")
    clean.add_argument(
        "--cache-dir", help="the cache folder (default: .tflint-perf-cache at the project root)"
    )
    clean.add_argument("--config", help="configuration file (default: nearest pyproject.toml)")
    return parser


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of processes, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 (all cores) or more")
    return value


def _add_speed_options(check) -> None:
    check.add_argument(
        "-j",
        "--jobs",
        type=_jobs,
        default=0,
        metavar="N",
        help="processes to lint with (default: 0 = all cores; 1 = this process only)",
    )
    check.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    check.add_argument(
        "--cache-dir", help="cache folder (default: .tflint-perf-cache at the project root)"
    )


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    previous = _on_sigterm(_raise_terminated)
    try:
        return _main(parser, args)
    except _Terminated:
        return EXIT_TERMINATED
    finally:
        if previous is not None:
            _on_sigterm(previous)


def _main(parser, args) -> int:
    try:
        if args.command == "check":
            return run_check(args)
        if args.command == "rules":
            return run_rules(args)
        if args.command in ("rule", "explain"):
            return run_explain(args)
        if args.command == "clean":
            return run_clean(args)
        if args.command == "why":
            from tflint_perf.why import WhyError, run_why

            try:
                return run_why(args.location, validate_codes(_flatten(args.select), "--select"))
            except WhyError as exc:
                sys.stderr.write(f"tflint-perf: error: {exc}\n")
                return EXIT_ERROR
    except (ConfigError, PathError) as exc:
        sys.stderr.write(f"tflint-perf: error: {exc}\n")
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `tflint-perf check | head`
        sys.stderr.close()
        return EXIT_CLEAN
    parser.print_help(sys.stderr)
    return EXIT_ERROR


def _flatten(groups) -> List[str]:
    return [c for group in groups or [] for c in group]


def apply_cli_selection(settings: Settings, args) -> None:
    """The command line is a layer over the configuration, as in ruff: a code
    any of its options names (by its most specific prefix) is decided there;
    any other code keeps the configuration's decision, or is off when
    ``--select`` is given (it replaces the configured ``select`` and ``ignore``)."""
    selected = validate_codes(_flatten(args.select), "--select")
    extended = validate_codes(_flatten(args.extend_select), "--extend-select")
    ignored = validate_codes(_flatten(args.ignore), "--ignore")
    refuse_conflicts(selected + extended, ignored, "the command line")
    if not (selected or extended or ignored):
        return
    layer = Settings(select=selected + extended, ignore=ignored)
    named = layer.select + layer.ignore

    def enabled(code: str) -> bool:
        if any(code.startswith(prefix) for prefix in named):
            return layer.is_enabled(code)
        return not selected and settings.is_enabled(code)

    settings.select = [code for code in known_codes() if enabled(code)]
    settings.ignore = []


def apply_cli_excludes(settings: Settings, args) -> None:
    """``--exclude`` replaces the configured patterns, ``--extend-exclude`` adds."""
    if args.exclude:
        settings.exclude = _flatten(args.exclude)
    settings.exclude += _flatten(args.extend_exclude)


@dataclass
class _Check:
    """One ``check`` run: its options and what the steps pass along."""

    args: argparse.Namespace
    paths: List[str]
    settings: Settings
    mode: str
    changes: Optional[Changes] = None  # gitdiff's changed lines (--diff-base)
    known: Optional[Baseline] = None  # the baseline (--baseline)
    out: Optional[IO[str]] = None  # the report file (-o)
    stdin_source: Optional[str] = None
    stdin_fixed: Optional[str] = None
    fixed_per_file: Dict[str, Counter] = field(default_factory=dict)  # --fix: code -> count
    failed_files: int = 0  # files not linted (an internal error): the summary says so


def run_check(args) -> int:
    # As in ruff: --stdin-filename without paths reads stdin.
    paths = args.paths or (["-"] if args.stdin_filename else ["."])
    settings = load_settings(args.config, paths)
    apply_cli_selection(settings, args)
    apply_cli_excludes(settings, args)
    _refuse_combinations(args)
    if args.fix_only:
        args.fix = True
    mode = DIFF if args.diff else FIX if args.fix else CHECK
    # --verify lints first, and fixes only what it verified.
    check = _Check(args, paths, settings, verify_cli.lint_mode(args, mode))
    # Imported only when asked for: every file linted on save pays for imports.
    if args.diff_base:
        from tflint_perf import gitdiff

        check.changes = gitdiff.changes_since(args.diff_base, paths)
    if args.baseline:
        from tflint_perf import baseline

        check.known = baseline.load(args.baseline)
    check.out = _open_report(args, check.mode)  # before any file is fixed
    try:
        return _run(check)
    finally:
        if check.out is not None:
            check.out.close()


def _refuse_combinations(args) -> None:
    if args.write_baseline and args.diff_base:
        raise ConfigError(
            "--write-baseline records every finding; it cannot be combined with --diff-base"
        )
    if args.statistics and args.format not in ("full", "text", "concise", "json"):
        raise ConfigError(
            f"--statistics works with --output-format full, concise or json, not {args.format}"
        )


def _open_report(args, mode: str) -> Optional[IO[str]]:
    if not args.output_file or mode == DIFF or args.write_baseline:
        return None
    try:
        return open(args.output_file, "w", encoding="utf-8")
    except OSError as exc:
        raise ConfigError(
            f"cannot write the report to {args.output_file}: {exc.strerror or exc}"
        ) from None


def _run(check: _Check) -> int:
    args = check.args
    results = _lint(check)
    findings = sorted((f for r in results for f in r.findings), key=lambda f: f.sort_key())
    fixed = sum(r.fixed for r in results)
    per_file = {r.path: Counter(r.fixed_codes) for r in results if r.fixed_codes}
    if args.verify:
        verified = findings
        findings, fixed = verify_cli.run(args, results, check.settings, findings, fixed)
        for f in verified:
            if f.extra.get("verify", {}).get("applied"):
                per_file.setdefault(f.path, Counter())[f.code] += 1
    check.fixed_per_file = per_file
    failed = _tell_errors(results)
    check.failed_files = sum(1 for r in results if r.failed)
    if check.mode == DIFF:
        status = _report_diff(results, args)
    else:
        status = _report(check, results, findings, fixed)
    return EXIT_ERROR if failed else status


def _lint(check: _Check) -> List[FileResult]:
    args, paths, settings = check.args, check.paths, check.settings
    if paths == ["-"]:
        name = args.stdin_filename or "-"
        check.stdin_source = sys.stdin.read()
        result = lint_text(check.stdin_source, name, settings, check.mode, args.unsafe_fixes)
        if check.mode == FIX:
            fixed = result.fixed_source
            check.stdin_fixed = fixed if fixed is not None else check.stdin_source
        return [result]
    if "-" in paths:
        raise ConfigError("'-' (stdin) cannot be combined with other paths")
    files = collect(paths, settings, args.force_exclude, args.respect_gitignore)
    if check.changes is not None:  # unchanged since --diff-base: nothing to report
        files = [path for path in files if check.changes.touches(path)]
    cache = None if args.no_cache else Cache(default_cache_dir(settings, args.cache_dir), settings)
    return lint_files(files, settings, check.mode, args.unsafe_fixes, args.jobs, cache)


def _tell_errors(results: List[FileResult]) -> bool:
    """One line per file that has something to say; whether one failed."""
    failed = False
    for r in results:
        if r.error:
            failed = failed or r.failed
            kind = "error" if r.failed else "warning"
            sys.stderr.write(f"tflint-perf: {kind}: {r.path}: {r.error}\n")
    return failed


def _report(check: _Check, results: List[FileResult], findings, fixed: int) -> int:
    args = check.args
    if check.changes is not None:
        findings = check.changes.filter(findings)
    stdin_source = None
    if check.stdin_source is not None:
        stdin_source = {results[0].path: check.stdin_fixed or check.stdin_source}
    if args.write_baseline:
        return _write_baseline(args, findings, stdin_source)
    if check.known is not None:
        from tflint_perf import baseline

        paths = [r.path for r in results]
        findings, hidden, stale = check.known.filter(findings, paths, stdin_source)
        note = baseline.summary(hidden, stale, args.baseline)
        if note and not args.quiet:
            sys.stderr.write(note)
    out = check.out
    if check.stdin_fixed is not None:
        sys.stdout.write(check.stdin_fixed)
        out = out or sys.stderr
    if args.fix_only:  # what was fixed, not what is left
        if not args.quiet:
            _write_fixed_list(check, out or sys.stdout)
            (out or sys.stdout).write(reporters.fixed_summary(fixed, findings, args.unsafe_fixes))
        return EXIT_CLEAN
    from tflint_perf.frames import Sources

    sources = Sources(stdin_source)
    _write_report(findings, out or sys.stdout, args, check.settings, fixed, sources, check)
    if findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _write_baseline(args, findings, stdin_source) -> int:
    from tflint_perf import baseline

    count = baseline.write(args.write_baseline, findings, stdin_source)
    if not args.quiet:
        sys.stderr.write(
            f"tflint-perf: wrote {count} finding{'s' if count != 1 else ''} to {args.write_baseline}\n"
        )
    return EXIT_CLEAN


def _color(out) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(out, "isatty") and out.isatty()


def _write_fixed_list(check: _Check, out: IO[str]) -> None:
    """``--fix --show-fixes``: what was fixed in each file, as ruff lists it."""
    if check.args.show_fixes and check.fixed_per_file:
        from tflint_perf.rules import all_rules

        names = {r.code: r.name for r in all_rules()}
        reporters.write_fixed_list(check.fixed_per_file, names, out)


def _write_report(
    findings, out, args, settings: Settings, fixed: int, sources=None, check=None
) -> None:
    if args.format == "json" and args.statistics:
        reporters.write_statistics_json(findings, out, args.unsafe_fixes)
    elif args.format == "json":
        reporters.write_json(findings, out)
    elif args.format == "github":
        reporters.write_github(findings, out)
    elif args.format == "sarif":
        from tflint_perf.rules import all_rules

        reporters.write_sarif(
            findings, out, [r for r in all_rules() if settings.is_enabled(r.code)]
        )
    else:
        reporters.write_text(
            findings,
            out,
            color=_color(out),
            unsafe_fixes=args.unsafe_fixes,
            statistics=args.statistics,
            quiet=args.quiet,
            fixed=fixed,
            concise=args.format == "concise",
            sources=sources,
            show_fixes=args.show_fixes is not False,
            before_summary=(lambda: _write_fixed_list(check, out)) if check else None,
            failed_files=check.failed_files if check else 0,
        )
        if args.verify:
            verify_cli.write_text(out, args)


def _report_diff(results: List[FileResult], args) -> int:
    import difflib

    changed = 0
    fixes = 0
    for r in results:
        if r.fixed_source is None:
            continue
        assert r.original is not None, "fixing sets both texts together (run/files.py)"
        changed += 1
        fixes += r.fixed
        sys.stdout.writelines(
            difflib.unified_diff(
                r.original.splitlines(keepends=True),
                r.fixed_source.splitlines(keepends=True),
                fromfile="a/" + r.path.lstrip("/"),
                tofile="b/" + r.path.lstrip("/"),
            )
        )
    if not args.quiet:
        if fixes:
            sys.stderr.write(
                f"Would fix {fixes} finding{'s' if fixes != 1 else ''} in {changed} file{'s' if changed != 1 else ''}.\n"
            )
        else:
            sys.stderr.write("No fixes would be applied.\n")
    return EXIT_FINDINGS if changed and not args.exit_zero else EXIT_CLEAN


def run_rules(args) -> int:
    from tflint_perf.rules import all_rules

    rules = all_rules()
    if args.format == "json":
        import json

        json.dump(
            [
                {"code": r.code, "name": r.name, "fixable": r.fixable, "summary": r.summary()}
                for r in rules
            ],
            sys.stdout,
            indent=2,
        )
        sys.stdout.write("\n")
        return EXIT_CLEAN
    width = max((len(r.name) for r in rules), default=10)
    for r in rules:
        fixable = "[*]" if r.fixable else "   "
        sys.stdout.write(f"{r.code}  {r.name:<{width}}  {fixable}  {r.summary()}\n")
    return EXIT_CLEAN


def run_explain(args) -> int:
    """``rule CODE`` (ruff's name) or ``explain CODE``; a rule's name works too."""
    from tflint_perf.docs import rule_page
    from tflint_perf.rules import all_rules, rule_by_code

    wanted = args.code.strip()
    rule = rule_by_code(wanted) or next((r for r in all_rules() if r.name == wanted.lower()), None)
    if rule is None:
        sys.stderr.write(
            f"tflint-perf: error: unknown rule code or name '{args.code}' (see `tflint-perf rules`)\n"
        )
        return EXIT_ERROR
    sys.stdout.write(rule_page(rule))
    return EXIT_CLEAN


def run_clean(args) -> int:
    from tflint_perf.run.cache import clean

    settings = load_settings(args.config, ["."])
    try:
        message = clean(default_cache_dir(settings, args.cache_dir))
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"tflint-perf: error: {exc}\n")
        return EXIT_ERROR
    sys.stdout.write(message + "\n")
    return EXIT_CLEAN
