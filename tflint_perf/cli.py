"""The ``tflint-perf`` command line."""

from __future__ import annotations

import argparse
import os
import sys
from typing import List, Optional, Sequence

from tflint_perf import __version__, reporters
from tflint_perf.config import ConfigError, Settings, load_settings, validate_codes
from tflint_perf.discovery import MissingPathError, collect
from tflint_perf.cache import Cache
from tflint_perf.cache import default_directory as default_cache_dir
from tflint_perf.parallel import lint_files
from tflint_perf.runner import CHECK, DIFF, FIX, FileResult, lint_text
from tflint_perf.verify import cli as verify_cli

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    _width: Optional[int] = None

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
    check.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: .); - reads stdin")
    check.add_argument("--select", type=_codes, action="append", help="codes or prefixes to enable (replaces the configured set)")
    check.add_argument("--extend-select", type=_codes, action="append", help="codes or prefixes to enable in addition")
    check.add_argument("--ignore", type=_codes, action="append", help="codes or prefixes to disable")
    check.add_argument("--format", choices=reporters.FORMATS, default="text", help="output format (default: text)")
    check.add_argument("-o", "--output-file", help="write the report to this file instead of stdout")
    check.add_argument("--fix", action="store_true", help="apply safe fixes in place")
    check.add_argument("--unsafe-fixes", action="store_true", help="also offer and apply unsafe fixes")
    check.add_argument("--diff", action="store_true", help="print the changes --fix would make; write nothing")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")
    check.add_argument("--statistics", action="store_true", help="print the number of findings per rule")
    check.add_argument("--config", help="configuration file (default: nearest pyproject.toml)")
    check.add_argument("--stdin-filename", help="the file name to report for stdin input")
    check.add_argument("--force-exclude", action="store_true", help="apply exclude patterns to files named on the command line")
    # Pull requests and adoption (logic in gitdiff.py and baseline.py).
    check.add_argument("--diff-base", "--changed-since", dest="diff_base", metavar="REF", help="report only findings on lines added or changed since git revision REF")
    check.add_argument("--baseline", metavar="FILE", help="report only findings not recorded in this baseline file")
    check.add_argument("--write-baseline", metavar="FILE", help="record every current finding in FILE and exit 0")
    _add_speed_options(check)
    verify_cli.add_arguments(check)  # --verify and its options: tflint_perf/verify/cli.py

    rules = sub.add_parser("rules", help="list every rule")
    rules.add_argument("--format", choices=("text", "json"), default="text")

    explain = sub.add_parser("explain", help="print a rule's documentation")
    explain.add_argument("code", metavar="CODE")

    clean = sub.add_parser("clean", help="remove the cache folder")
    clean.add_argument("--cache-dir", help="the cache folder (default: .tflint-perf-cache at the project root)")
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
    check.add_argument("-j", "--jobs", type=_jobs, default=0, metavar="N", help="processes to lint with (default: 0 = all cores; 1 = this process only)")
    check.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    check.add_argument("--cache-dir", help="cache folder (default: .tflint-perf-cache at the project root)")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            return run_check(args)
        if args.command == "rules":
            return run_rules(args)
        if args.command == "explain":
            return run_explain(args)
        if args.command == "clean":
            return run_clean(args)
    except (ConfigError, MissingPathError) as exc:
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
    if args.select:
        settings.select = validate_codes(_flatten(args.select), "--select")
    if args.extend_select:
        settings.select += validate_codes(_flatten(args.extend_select), "--extend-select")
    if args.ignore:
        settings.ignore += validate_codes(_flatten(args.ignore), "--ignore")


def run_check(args) -> int:
    paths = args.paths or ["."]
    settings = load_settings(args.config, paths)
    apply_cli_selection(settings, args)
    mode = DIFF if args.diff else FIX if args.fix else CHECK
    if args.write_baseline and args.diff_base:
        raise ConfigError("--write-baseline records every finding; it cannot be combined with --diff-base")
    # Imported only when asked for: every file linted on save pays for imports.
    changes = known = None
    if args.diff_base:
        from tflint_perf import gitdiff

        changes = gitdiff.changes_since(args.diff_base, paths)
    if args.baseline or args.write_baseline:
        from tflint_perf import baseline
    if args.baseline:
        known = baseline.load(args.baseline)
    mode = verify_cli.lint_mode(args, mode)  # --verify lints first, fixes only what it verified

    results: List[FileResult] = []
    stdin_fixed: Optional[str] = None
    if paths == ["-"]:
        name = args.stdin_filename or "-"
        source = sys.stdin.read()
        result = lint_text(source, name, settings, mode, args.unsafe_fixes)
        if mode == FIX:
            stdin_fixed = result.fixed_source if result.fixed_source is not None else source
        results.append(result)
    else:
        if "-" in paths:
            raise ConfigError("'-' (stdin) cannot be combined with other paths")
        files = collect(paths, settings, args.force_exclude)
        if changes is not None:  # unchanged since --diff-base: nothing to report
            files = [path for path in files if changes.touches(path)]
        cache = None if args.no_cache else Cache(default_cache_dir(settings, args.cache_dir), settings)
        results.extend(lint_files(files, settings, mode, args.unsafe_fixes, args.jobs, cache))

    findings = sorted((f for r in results for f in r.findings), key=lambda f: f.sort_key())
    fixed = sum(r.fixed for r in results)
    if args.verify:
        findings, fixed = verify_cli.run(args, results, settings, findings, fixed)
    for r in results:
        if r.error:
            sys.stderr.write(f"tflint-perf: warning: {r.path}: {r.error}\n")

    if mode == DIFF:
        return _report_diff(results, args)
    if changes is not None:
        findings = changes.filter(findings)
    stdin_source = {results[0].path: stdin_fixed or source} if paths == ["-"] else None
    if args.write_baseline:
        count = baseline.write(args.write_baseline, findings, stdin_source)
        if not args.quiet:
            sys.stderr.write(f"tflint-perf: wrote {count} finding{'s' if count != 1 else ''} to {args.write_baseline}\n")
        return EXIT_CLEAN
    if known is not None:
        findings, hidden, stale = known.filter(findings, [r.path for r in results], stdin_source)
        note = baseline.summary(hidden, stale, args.baseline)
        if note and not args.quiet:
            sys.stderr.write(note)

    if stdin_fixed is not None:
        sys.stdout.write(stdin_fixed)
        out = sys.stderr
    elif args.output_file:
        out = open(args.output_file, "w", encoding="utf-8")
    else:
        out = sys.stdout
    try:
        _write_report(findings, out, args, settings, fixed)
    finally:
        if out not in (sys.stdout, sys.stderr):
            out.close()
    if findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _color(out) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(out, "isatty") and out.isatty()


def _write_report(findings, out, args, settings: Settings, fixed: int) -> None:
    if args.format == "json":
        reporters.write_json(findings, out)
    elif args.format == "github":
        reporters.write_github(findings, out)
    elif args.format == "sarif":
        from tflint_perf.rules import all_rules

        reporters.write_sarif(findings, out, [r for r in all_rules() if settings.is_enabled(r.code)])
    else:
        reporters.write_text(
            findings,
            out,
            color=_color(out),
            unsafe_fixes=args.unsafe_fixes,
            statistics=args.statistics,
            quiet=args.quiet,
            fixed=fixed,
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
            sys.stderr.write(f"Would fix {fixes} finding{'s' if fixes != 1 else ''} in {changed} file{'s' if changed != 1 else ''}.\n")
        else:
            sys.stderr.write("No fixes would be applied.\n")
    return EXIT_FINDINGS if changed and not args.exit_zero else EXIT_CLEAN


def run_rules(args) -> int:
    from tflint_perf.rules import all_rules

    rules = all_rules()
    if args.format == "json":
        import json

        json.dump(
            [{"code": r.code, "name": r.name, "fixable": r.fixable, "summary": r.summary()} for r in rules],
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
    from tflint_perf.docs import rule_page
    from tflint_perf.rules import rule_by_code

    rule = rule_by_code(args.code)
    if rule is None:
        sys.stderr.write(f"tflint-perf: error: unknown rule code '{args.code}' (see `tflint-perf rules`)\n")
        return EXIT_ERROR
    sys.stdout.write(rule_page(rule))
    return EXIT_CLEAN


def run_clean(args) -> int:
    from tflint_perf.cache import clean

    settings = load_settings(args.config, ["."])
    try:
        message = clean(default_cache_dir(settings, args.cache_dir))
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"tflint-perf: error: {exc}\n")
        return EXIT_ERROR
    sys.stdout.write(message + "\n")
    return EXIT_CLEAN
