"""Reasons that explain why a worker stopped (linter side).

A worker that dies is described by what ended it: the ``os._exit`` status
and line it reported, the signal that killed it (SIGKILL that we did not
send: "killed, probably out of memory"), a crash with the line
faulthandler printed, or else the last line of its stderr that is not
TensorFlow's own logging. A worker that hangs is described by the line it
hung at (its stack, asked for with SIGUSR1), and when it hung in the
module's ``__main__`` block before a flagged function was called, that
finding says so.
"""

from __future__ import annotations

import ast
import re
import signal
from typing import Optional

# TensorFlow/absl log lines and other chatter that never explain a crash.
_NOISE = re.compile(
    r"^([IWEF]\d{4} |\d{4}-\d\d-\d\d \d\d:\d\d:\d\d|WARNING: All log messages|To enable the following|"
    r"oneDNN custom operations|This TensorFlow binary|Thread 0x|Current thread 0x|  File \"|Stack \(most)"
)
_BLOCK = re.compile(
    r"(?:Current thread|Thread) (0x[0-9a-fA-F]+) \(most recent call first\):\n((?:  File .*\n?)*)"
)
_FRAME = re.compile(r'  File "(.*)", line (\d+) in (.*)')
_OUT_OF_MEMORY = ("MemoryError", "bad_alloc", "Cannot allocate memory", "out of memory", "OOM")


def size_text(n: int) -> str:
    return f"{n / 2**30:.1f} GiB" if n >= 2**30 else f"{n / 2**20:.0f} MiB"


def hang_site(text: str, thread: Optional[int], path: str) -> Optional[dict]:
    """The main thread's innermost and outermost frames in ``path`` from a faulthandler dump."""
    blocks = _BLOCK.findall(text)
    if not blocks:
        return None
    main = [b for b in blocks if thread is not None and int(b[0], 16) == thread]
    frames_text = (main or blocks)[-1][1]
    frames = [
        (m.group(1), int(m.group(2)), m.group(3).strip())
        for m in map(_FRAME.match, frames_text.splitlines())
        if m
    ]
    mine = [f for f in frames if f[0] == path]
    if not mine:
        return {"line": 0, "function": "", "outer": 0}
    return {"line": mine[0][1], "function": mine[0][2], "outer": mine[-1][1]}


def _last_meaningful(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        if not _NOISE.match(line):
            return line[:300]
    return ""


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _memory(run) -> str:
    limit = run.options.memory_limit
    return f" (the memory limit is {size_text(limit)})" if limit else ""


def crash(run) -> str:
    """Why the worker ended without a result."""
    code = run.process.returncode if run.process.returncode is not None else run.process.wait()
    text = run.stderr_text()
    exited = run.exit_message
    if exited:
        line = f" at line {exited['line']}" if exited.get("line") else ""
        return f"the code called os._exit({exited.get('status')}){line}: the worker exited"
    if code < 0:
        return _killed(run, -code, text)
    tail = _last_meaningful(text)
    if any(word in text for word in _OUT_OF_MEMORY):
        return f"the worker exited with status {code}, out of memory{_memory(run)}" + (
            f": {tail}" if tail else ""
        )
    return f"the worker exited with status {code}" + (f": {tail}" if tail else "")


def _killed(run, number: int, text: str) -> str:
    name = _signal_name(number)
    if number == signal.SIGKILL and not run.killed:
        return f"killed by {name}, probably out of memory (the kernel's out-of-memory killer){_memory(run)}"
    site = hang_site(text, run.hello.get("thread"), run.path_hint)
    where = f" at line {site['line']} (in `{site['function']}`)" if site and site["line"] else ""
    oom = any(word in text for word in _OUT_OF_MEMORY)
    reason = f"crashed with {name}{where}"
    if oom:
        reason += f", out of memory{_memory(run)}"
    return reason


def _main_blocks(source: str) -> list:
    """Line ranges of the top-level ``if __name__ == "__main__":`` blocks."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    out = []
    for node in tree.body:
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            out.append((node.lineno, node.end_lineno))
    return out


def timeout(run, seconds: float, work) -> str:
    """Ask where it hangs, end it, say so; function jobs the __main__ block never reached are told apart."""
    site = run.where_it_hangs()
    run.kill()
    where = ""
    if site and site["line"]:
        where = f" at line {site['line']}" + (
            f" (in `{site['function']}`)" if site["function"] not in ("<module>", "") else ""
        )
    text = (
        f"timed out after {seconds:g} s{where}; the worker and every process it started were killed"
    )
    if run.phase == "main" and site:
        _never_reached(run, work, site, text)
    return text


def _never_reached(run, work, site: dict, text: str) -> None:
    in_main = any(lo <= site["outer"] <= hi for lo, hi in _main_blocks(run.source))
    for job in work.jobs:
        if (
            job["id"] not in work.running
            or job["id"] in work.results
            or job.get("mode") != "function"
        ):
            continue
        name = job["function"]
        how = "without its __main__ block" if job.get("skip_main") else "as __main__"
        note = f"never reached: the module, run {how} to find a call to `{name}`, {text}"
        if in_main and not job.get("skip_main"):
            job["skip_main"] = True
            job["main_note"] = (
                f"the module's __main__ block hung at line {site['outer']} before calling `{name}` "
                f"(timed out after {run.options.timeout:g} s; killed)"
            )
            work.retry.append(job["id"])
        else:
            work.record(job["id"], {"status": "failed", "reason": note})
