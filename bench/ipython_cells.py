"""What ``%load_ext tflint_perf`` adds to the time of each cell.

    python bench/ipython_cells.py NOTEBOOK_OR_DIR...        # or: make bench-ipython
    python bench/ipython_cells.py bench/corpus-dev/src --context-lines 100000

Each notebook is replayed in an in-process IPython shell as *Run All* runs
it: the code cells in order, each through the shell's ``pre_run_cell`` and
``post_run_cell`` events, which is all the extension adds to a cell (the
cells themselves are not executed: they need TensorFlow, data and GPUs, and
their own time is not ours). A fresh session per notebook, the extension
loaded first (its one-time cost is timed apart: it imports LibCST and the
rules).

Prints, over all cells, the added wall and CPU time (median, 90th, 95th,
99th percentile, largest), and the findings shown. ``--context-lines`` sets
the context limit (``tflint_perf.kernel.CONTEXT_LINES``) to compare with the
whole history. Timing is never asserted; see docs/notebooks.md for the
figures and the machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from IPython.core.interactiveshell import ExecutionInfo, ExecutionResult, InteractiveShell
from IPython.utils.capture import capture_output
from traitlets.config import Config

from tflint_perf import ipython as extension
from tflint_perf import kernel
from tflint_perf.run import notebooks


def notebook_cells(paths):
    """(path, [cell source, ...]) of each readable Python notebook, in path order."""
    files = []
    for root in map(Path, paths):
        files += sorted(root.rglob("*.ipynb")) if root.is_dir() else [root]
    for path in files:
        if ".ipynb_checkpoints" in path.parts:
            continue
        try:
            notebook = notebooks.read(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, notebooks.NotebookError):
            continue
        if notebook.python and notebook.cells:
            yield path, [cell.text for cell in notebook.cells]


def replay(shell, sources):
    """Run the cells through the extension's events: (wall s, CPU s, shown) per cell."""
    out = []
    for source in sources:
        if not source.strip():
            continue  # IPython runs no event for an empty cell
        count = shell.execution_count
        info = ExecutionInfo(source, True, False, True, None)
        wall, cpu = time.perf_counter(), time.process_time()
        with capture_output() as io:
            shell.events.trigger("pre_run_cell", info)
            # What run_cell does in between that the extension reads: the input history.
            shell.history_manager.store_inputs(count, source, source)
            shell.execution_count += 1
            result = ExecutionResult(info)
            result.execution_count = count
            shell.events.trigger("post_run_cell", result)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        shown = sum(o.data["text/plain"].count("\n") + 1 for o in io.outputs)
        out.append((wall, cpu, shown))
    return out


def percentiles(values):
    values = sorted(values)
    at = [values[min(len(values) - 1, int(q * len(values)))] for q in (0.9, 0.95, 0.99)]
    return [statistics.median(values), *at, values[-1]]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+", help="notebooks or folders of notebooks")
    parser.add_argument("--context-lines", type=int, default=kernel.CONTEXT_LINES)
    args = parser.parse_args(argv)
    kernel.CONTEXT_LINES = args.context_lines
    paths = [Path(p).resolve() for p in args.paths]  # before the chdir below

    os.environ["IPYTHONDIR"] = tempfile.mkdtemp(prefix="ipython-bench-")
    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    shell = InteractiveShell.instance(config=config)
    os.chdir(tempfile.mkdtemp(prefix="ipython-bench-cwd-"))  # no pyproject.toml: all rules

    rows, loads, count = [], [], 0
    for _, sources in notebook_cells(paths):
        shell.reset(new_session=True)
        started = time.perf_counter()
        extension.load_ipython_extension(shell)
        loads.append(time.perf_counter() - started)
        rows += replay(shell, sources)
        extension.unload_ipython_extension(shell)
        count += 1
    if not rows:
        sys.exit("no notebook cells found in " + " ".join(args.paths))

    print(f"{count} notebooks, {len(rows)} cells; context limit {args.context_lines} lines")
    print(
        f"Python {platform.python_version()}, {os.cpu_count()} cores, "
        f"load average {' / '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    print()
    print("| time added to a cell | median | p90 | p95 | p99 | max |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, column in (("wall ms", 0), ("CPU ms", 1)):
        cells = " | ".join(f"{v * 1000:.1f}" for v in percentiles([r[column] for r in rows]))
        print(f"| {name} | {cells} |")
    print()
    print(
        f"findings shown: {sum(r[2] for r in rows)}; "
        f"%load_ext: first {loads[0] * 1000:.0f} ms (imports LibCST and the rules), "
        f"then median {statistics.median(loads[1:] or loads) * 1000:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
