"""Benchmark tflint-perf against LibCST parse-only and its peers, in one go.

    python bench/run.py [--corpus bench/corpus/src] [-j N] [--tool-bin DIR]

Runs, over the same corpus and one after another:

- LibCST parse-only (``bench/parse_only.py``): the floor, ``-j N`` processes;
- tflint-perf from this checkout, all rules: ``--no-cache``, then a cold
  cache and a second unchanged run on it (``-j N`` each);
- ``flake8`` (``--jobs N``), ``fixit lint``, ``ruff check`` (``--no-cache``,
  ``RAYON_NUM_THREADS=N``), each with its default rules;
- one small file through the whole ``tflint-perf`` process, next to
  ``python -c "import libcst"``.

Writes a markdown report to bench/results/latest.md (``--out``) and prints it.
A tool that is not found is listed as "not installed"; each tool's output is
in bench/results/<tool>.log. Wall time on a shared machine is noisy: the
report also gives CPU time and the load average before and after.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_CORPUS = HERE / "corpus" / "src"
RESULTS = HERE / "results"
SMALL_FILE = ROOT / "examples" / "gpu_setup_after_model.py"
# A small module with nothing for any rule: the screens keep LibCST out of it.
CLEAN_FILE = """\
import tensorflow as tf


def build_model(num_classes: int) -> tf.keras.Model:
    return tf.keras.Sequential(
        [
            tf.keras.layers.Dense(64, activation="relu"),
            tf.keras.layers.Dense(num_classes),
        ]
    )


model = build_model(10)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
"""


# -- measuring one command -----------------------------------------------------
class _TreeRss:
    """Peak of the summed RSS of a process and its descendants (Linux /proc)."""

    def __init__(self, pid: int, interval: float = 0.05) -> None:
        self.pid, self.interval, self.peak = pid, interval, 0
        self._stop = threading.Event()
        self._page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.available = os.path.isdir("/proc/self")

    def __enter__(self):
        if self.available:
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self.available:
            self._thread.join()

    def _sample(self) -> int:
        children = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    stat = handle.read()
            except OSError:
                continue
            fields = stat[stat.rfind(b")") + 2 :].split()
            children.setdefault(int(fields[1]), []).append(int(entry))  # ppid
        total, todo = 0, [self.pid]
        while todo:
            pid = todo.pop()
            todo.extend(children.get(pid, ()))
            try:
                with open(f"/proc/{pid}/statm", "rb") as handle:
                    total += int(handle.read().split()[1]) * self._page
            except (OSError, IndexError, ValueError):
                continue
        return total

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._sample())
            self._stop.wait(self.interval)


@dataclass
class Run:
    wall: float = 0.0
    cpu: float = 0.0  # user + system of the process and its children
    max_rss: int = 0  # bytes, the largest single process (getrusage)
    tree_rss: int = 0  # bytes, peak of the summed RSS of the tree (sampled)
    status: str = "ok"
    returncode: int = 0


def measure(cmd: List[str], log: Path, env=None, cwd=None, timeout=None, ok_codes=(0,)) -> Run:
    with open(log, "wb") as out:
        out.write(("$ " + " ".join(cmd) + "\n").encode())
        out.flush()
        start = time.perf_counter()
        # Own session: a timeout stops the tool and every worker it started.
        proc = subprocess.Popen(
            cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd, start_new_session=True
        )
        with _TreeRss(proc.pid) as sampler:
            deadline = None if timeout is None else start + timeout
            timed_out = False
            while True:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    break
                if deadline is not None and time.perf_counter() > deadline:
                    _kill_tree(proc)
                    timed_out = True
                    pid, status, usage = os.wait4(proc.pid, 0)
                    break
                time.sleep(0.01)
        wall = time.perf_counter() - start
    proc.returncode = code = os.waitstatus_to_exitcode(status)
    run = Run(
        wall=wall,
        cpu=usage.ru_utime + usage.ru_stime,
        max_rss=usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024),
        tree_rss=sampler.peak,
        returncode=code,
    )
    if timed_out:
        run.status = f"timed out after {timeout:.0f} s"
    elif code not in ok_codes:
        run.status = f"failed (exit {code}, see {log.relative_to(ROOT) if log.is_relative_to(ROOT) else log})"
    return run


def _kill_tree(proc) -> None:
    import signal

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        proc.kill()


LONG_LINES = 7000


def long_module(lines: int) -> str:
    """A module of ``lines`` lines that starts the runtime at the top and sets
    memory growth at the end: one TFP301 whose hoist fix spans the whole file."""
    body = [f"v{i} = tf.constant({i}) * 2" for i in range(lines - 4)]
    return "\n".join(
        [
            "import tensorflow as tf",
            *body,
            "for gpu in tf.config.list_physical_devices('GPU'):",
            "    tf.config.experimental.set_memory_growth(gpu, True)",
            "",
        ]
    )


def best_of(cmd: List[str], times: int, env=None, cwd=None):
    """The fastest wall time and the smallest CPU time of ``times`` runs."""
    wall = cpu = float("inf")
    for _ in range(times):
        start = time.perf_counter()
        proc = subprocess.Popen(
            cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd
        )
        _, _, usage = os.wait4(proc.pid, 0)
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, usage.ru_utime + usage.ru_stime)
    return wall, cpu


# -- the tools -----------------------------------------------------------------
@dataclass
class Row:
    tool: str
    how: str
    run: Optional[Run] = None
    note: str = ""
    extra: dict = field(default_factory=dict)
    procs: int = 1  # compared with the LibCST parse-only row of the same count


def find_tool(name: str, bins: List[str]) -> Optional[str]:
    for folder in bins:
        candidate = Path(folder) / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which(name)


def corpus_size(corpus: Path):
    files = lines = 0
    for directory, _dirs, names in os.walk(corpus):
        for name in names:
            if name.endswith(".py"):
                files += 1
                with open(os.path.join(directory, name), "rb") as handle:
                    lines += handle.read().count(b"\n")
    return files, lines


def load_average() -> str:
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count()
    return f"{model}, {cores} cores, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def libcst_version(python: str) -> str:
    out = subprocess.run(
        [python, "-c", "import importlib.metadata as m; print(m.version('libcst'))"],
        capture_output=True,
        text=True,
        check=False,
    )
    return out.stdout.strip() or "?"


def tool_version(exe: str, *args: str) -> str:
    import re

    out = subprocess.run([exe, *args], capture_output=True, text=True, check=False)
    match = re.search(r"\d+\.\d+(?:\.\d+)?", out.stdout or out.stderr or "")
    return match.group(0) if match else "?"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus",
        type=Path,
        default=DEFAULT_CORPUS,
        help="folder of .py files (default: bench/corpus/src, see fetch_corpus.py)",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="processes for every tool that takes a number (default: all cores)",
    )
    parser.add_argument(
        "--tool-bin",
        action="append",
        default=[],
        metavar="DIR",
        help="where to look for flake8, fixit, ruff first (repeatable; then PATH)",
    )
    parser.add_argument(
        "--python",
        default=sys.executable,
        help="the Python with libcst that runs tflint-perf and parse-only",
    )
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        help="tools to leave out: parse-only, tflint-perf, cache, flake8, fixit, ruff, small-file",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=1200.0,
        help="seconds before a tool is stopped (default: 1200)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="rounds of the alternating one-process runs (ast, LibCST, tflint-perf); medians shown",
    )
    parser.add_argument("--out", type=Path, default=RESULTS / "latest.md")
    args = parser.parse_args(argv)

    corpus = args.corpus.resolve()
    if not corpus.is_dir():
        sys.stderr.write(
            f"no corpus at {corpus}: run `python bench/fetch_corpus.py` or pass --corpus PATH\n"
        )
        return 2
    RESULTS.mkdir(exist_ok=True)
    files, lines = corpus_size(corpus)
    # Bytecode, as an install has it (PYTHONDONTWRITEBYTECODE would otherwise
    # make every run compile tflint-perf from source).
    subprocess.run(
        [args.python, "-m", "compileall", "-q", "tflint_perf", "rules"], cwd=str(ROOT), check=False
    )
    jobs = args.jobs
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    py = args.python
    rows: List[Row] = []
    versions: dict = {}
    load_before = load_average()
    started = datetime.datetime.now().astimezone()

    def run_row(tool: str, how: str, cmd, ok_codes=(0,), run_env=None, log_name=None, procs=1):
        log = RESULTS / f"{log_name or tool}.log"
        sys.stderr.write(f"== {tool} ({how})\n")
        row = Row(
            tool,
            how,
            measure(
                cmd, log, env=run_env or env, cwd=str(ROOT), timeout=args.timeout, ok_codes=ok_codes
            ),
            procs=procs,
        )
        rows.append(row)
        sys.stderr.write(
            f"   {row.run.wall:.2f} s wall, {row.run.cpu:.2f} s CPU, {row.run.status}\n"
        )
        return row

    def run_alternating(specs):
        """Each (tool, how, cmd, log) ``args.repeat`` times, in turn; the median run of each."""
        runs = {spec[0] + spec[1]: [] for spec in specs}
        for round_ in range(args.repeat):
            for tool, how, cmd, log_name in specs:
                sys.stderr.write(f"== {tool} ({how}), round {round_ + 1} of {args.repeat}\n")
                run = measure(
                    cmd, RESULTS / f"{log_name}.log", env=env, cwd=str(ROOT), timeout=args.timeout
                )
                sys.stderr.write(f"   {run.wall:.2f} s wall, {run.cpu:.2f} s CPU, {run.status}\n")
                runs[tool + how].append(run)
        for tool, how, _cmd, _log in specs:
            done = sorted(runs[tool + how], key=lambda r: r.wall)
            median = done[len(done) // 2]
            spread = f"{done[0].wall:.1f}-{done[-1].wall:.1f} s" if len(done) > 1 else ""
            label = f"{how}, median of {len(done)}" + (f" ({spread})" if spread else "")
            rows.append(Row(tool, label, median))

    lint = [py, "-m", "tflint_perf", "check", "--exit-zero", "-q"]
    one = [
        ("`ast` parse-only", "`ast.parse`, 1 process", "--ast", "parse-ast"),
        ("LibCST parse-only", "`parse_module`, 1 process", None, "parse-only"),
    ]
    specs = [
        (
            tool,
            how,
            [py, str(HERE / "parse_only.py")] + ([flag] if flag else []) + ["-j", "1", str(corpus)],
            log,
        )
        for tool, how, flag, log in one
        if "parse-only" not in args.skip
    ]
    if "tflint-perf" not in args.skip:
        specs.append(
            (
                "tflint-perf",
                "all rules, `--no-cache -j 1`",
                lint + ["-j", "1", "--no-cache", str(corpus)],
                "tflint-perf",
            )
        )
    run_alternating(specs)
    if "cache" not in args.skip:
        with tempfile.TemporaryDirectory(prefix="tflint-perf-bench-cache-") as cache:
            cached = lint + ["-j", "1", "--cache-dir", cache, str(corpus)]
            run_row("tflint-perf", "cold cache, `-j 1`", cached, log_name="tflint-perf-cold")
            run_row(
                "tflint-perf",
                "second run, nothing changed, `-j 1`",
                cached,
                log_name="tflint-perf-warm",
            )
    if jobs > 1 and "tflint-perf" not in args.skip:
        run_row(
            "LibCST parse-only",
            f"`parse_module`, {jobs} processes",
            [py, str(HERE / "parse_only.py"), "-j", str(jobs), str(corpus)],
            log_name="parse-only-j",
            procs=jobs,
        )
        run_row(
            "tflint-perf",
            f"all rules, `--no-cache -j {jobs}`",
            lint + ["-j", str(jobs), "--no-cache", str(corpus)],
            log_name="tflint-perf-j",
            procs=jobs,
        )
    if "flake8" not in args.skip:
        # The plugin runs in flake8's own process on flake8's ast tree. The
        # floor: flake8 without the plugin and its cheapest check (E9: syntax
        # errors). Then with the plugin installed: TFP not selected (an
        # editor's `--select E,F`: the plugin must do no work), and selected.
        options = ["--isolated", "--exit-zero", "--jobs", "1"]
        versions["flake8"] = tool_version(py, "-m", "flake8", "--version")
        without = [py, str(HERE / "flake8_without_plugin.py"), *options]
        flake8 = [py, "-m", "flake8", *options]
        for name, command, how in (
            ("without", without, "`--select E9`, tflint-perf not installed (the floor)"),
            ("E9", flake8, "`--select E9`, the plugin installed, no TFP code selected"),
            ("TFP", flake8, "`--select E9,TFP`, the plugin at work"),
        ):
            select = "E9,TFP" if name == "TFP" else "E9"
            run_row(
                "flake8",
                how + ", `--jobs 1`",
                command + ["--select", select, str(corpus)],
                log_name=f"flake8-{name}",
            )
    peers = [
        (
            "fixit",
            ["--version"],
            lambda exe: [exe, "lint", str(outside)],
            (0, 1),
            "`fixit lint`, its built-in rules (its own process count)",
            {},
        ),
        (
            "ruff",
            ["--version"],
            lambda exe: [
                exe,
                "check",
                "--isolated",
                "--no-cache",
                "--exit-zero",
                "-q",
                str(corpus),
            ],
            (0,),
            "`ruff check` defaults, `--no-cache`, 1 thread",
            {"RAYON_NUM_THREADS": "1"},
        ),
    ]
    # fixit skips what git ignores, and the default corpus is git-ignored here:
    # it gets a copy outside the checkout (the same files).
    outside = corpus
    if ROOT in corpus.parents and "fixit" not in args.skip:
        copy_dir = tempfile.mkdtemp(prefix="tflint-perf-bench-corpus-")
        outside = Path(shutil.copytree(corpus, os.path.join(copy_dir, corpus.name)))
    for name, version_args, build, ok_codes, how, extra_env in peers:
        if name in args.skip:
            continue
        exe = find_tool(name, args.tool_bin)
        if exe is None:
            rows.append(Row(name, how, None, "not installed"))
            continue
        versions[name] = tool_version(exe, *version_args)
        run_row(name, how, build(exe), ok_codes=ok_codes, run_env=dict(env, **extra_env))
    if outside != corpus:
        shutil.rmtree(outside.parent, ignore_errors=True)

    small = []
    if "small-file" not in args.skip:
        sys.stderr.write("== small files\n")
        small_rel = str(SMALL_FILE.relative_to(ROOT))
        lint_one = [py, "-m", "tflint_perf", "check"]
        with tempfile.TemporaryDirectory(prefix="tflint-perf-bench-cache-") as cache:
            clean = os.path.join(cache, "clean_model.py")
            with open(clean, "w", encoding="utf-8") as handle:
                handle.write(CLEAN_FILE)
            cached = lint_one + ["--cache-dir", cache, small_rel]
            subprocess.run(cached, stdout=subprocess.DEVNULL, env=env, cwd=str(ROOT), check=False)
            # Issue 21.11: TFP301/TFP303's fix builder was quadratic in the module's length.
            long_file = os.path.join(cache, "long_module.py")
            with open(long_file, "w", encoding="utf-8") as handle:
                handle.write(long_module(LONG_LINES))
            cases = [
                ("`python -c pass`", [py, "-c", "pass"]),
                ('`python -c "import libcst"`', [py, "-c", "import libcst"]),
                (
                    f"`tflint-perf check --no-cache` a clean file ({len(CLEAN_FILE)} bytes, no loop)",
                    lint_one + ["--no-cache", clean],
                ),
                (
                    f"`tflint-perf check --no-cache {small_rel}` (one finding)",
                    lint_one + ["--no-cache", small_rel],
                ),
                (f"`tflint-perf check {small_rel}`, answered from the cache", cached),
                (
                    f"`tflint-perf check --no-cache` a {LONG_LINES:,}-line module (TFP301 with its fix)",
                    lint_one + ["--no-cache", long_file],
                ),
            ]
            small = [(label, *best_of(cmd, 9, env, str(ROOT))) for label, cmd in cases]

    report = render(
        rows,
        small,
        files,
        lines,
        corpus,
        jobs,
        started,
        load_before,
        load_average(),
        libcst_version(py),
        versions,
        argv if argv is not None else sys.argv[1:],
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report, encoding="utf-8")
    sys.stdout.write(report)
    return 0


def _mb(n: int) -> str:
    return f"{n / 2**20:,.0f} MB" if n else "n/a"


def render(
    rows,
    small,
    files,
    lines,
    corpus,
    jobs,
    started,
    load_before,
    load_after,
    libcst,
    versions,
    argv,
) -> str:
    floors = {
        r.procs: r.run
        for r in reversed(rows)
        if r.tool == "LibCST parse-only" and r.run and r.run.status == "ok"
    }
    # flake8 without tflint-perf: what the plugin's rows are compared with
    e9 = next((r.run for r in rows if "not installed (the floor)" in r.how and r.run), None)
    first = next((r.run for r in rows if r.how.startswith("cold cache") and r.run), None)
    out = [
        "# Benchmark",
        "",
        f"Corpus: {files:,} files, {lines:,} lines ({corpus.name}/). One process unless a row says otherwise; {jobs} cores.",
        f"Machine: {machine()}; LibCST {libcst}.",
        f"Run {started:%Y-%m-%d %H:%M %Z}; load average (1/5/15 min) {load_before} before, {load_after} after.",
        "",
        "| tool | how | wall s | files/s | CPU s | peak memory (all processes) | largest process | wall / parse-only | CPU / parse-only |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        if row.run is None:
            out.append(f"| {row.tool} | {row.how} | {row.note} | | | | | | |")
            continue
        r = row.run
        floor = floors.get(row.procs)
        if r.status.startswith("timed out"):  # a lower bound is still a result
            ratio = f"> {r.wall / floor.wall:.1f}x" if floor else "n/a"
            out.append(
                f"| {row.tool} | {row.how}; {r.status} | > {r.wall:.0f} | < {files / r.wall:,.1f} | | {_mb(r.tree_rss)} | {_mb(r.max_rss)} | {ratio} | |"
            )
            continue
        if r.status != "ok":
            out.append(f"| {row.tool} | {row.how} | {r.status} | | | | | | |")
            continue
        ratio = f"{r.wall / floor.wall:.2f}x" if floor else "n/a"
        cpu_ratio = f"{r.cpu / floor.cpu:.2f}x" if floor and floor.cpu else "n/a"
        how = row.how
        if e9 is not None and "the plugin" in how and e9.wall and e9.cpu:
            how += f"; {r.wall / e9.wall:.2f}x wall, {r.cpu / e9.cpu:.2f}x CPU of the floor"
        if first is not None and row.how.startswith("second run") and first.wall:
            how += f" ({r.wall / first.wall:.1%} of the cold run)"
        out.append(
            f"| {row.tool} | {how} | {r.wall:.2f} | {files / r.wall:,.0f} | {r.cpu:.2f} | {_mb(r.tree_rss)} | {_mb(r.max_rss)} | {ratio} | {cpu_ratio} |"
        )
    if small:
        out += [
            "",
            "Small files, the whole process, best of 9:",
            "",
            "| command | wall s | CPU s |",
            "|---|---:|---:|",
        ]
        out += [f"| {label} | {wall:.3f} | {cpu:.3f} |" for label, wall, cpu in small]
    if versions:
        out += ["", "Versions: " + "; ".join(f"{k} {v}" for k, v in versions.items()) + "."]
    out += [
        "",
        "CPU s is user + system time of the tool and all its processes. Peak memory (all processes)",
        "is the summed RSS of the process tree, sampled every 50 ms; largest process is getrusage's maxrss.",
        "tflint-perf runs from this checkout, byte-compiled first as an install would be.",
        "",
        "Command: `python bench/run.py" + "".join(f" {a}" for a in argv) + "`",
        "",
    ]
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
