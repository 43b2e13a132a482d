"""Run the workers (linter side): start, read, time out, kill, explain.

One worker process per file serves all of that file's timed findings, so
the TensorFlow import is paid once per file; failure findings get two
fresh processes each (original, fixed), because device configuration is
per process.

Robustness:

- the worker's messages and stderr are read with ``select`` and never a
  blocking read, so a process that keeps a pipe open cannot stall the run;
  stderr is kept only as its last ``TAIL_BYTES``, however much is printed;
- a worker that makes no progress for ``timeout`` seconds is asked where it
  is (faulthandler on SIGUSR1), then ended with everything it started (the
  reaper kills the worker's process group and every process re-parented to
  it; see ``reaper``); the finding is ``failed`` with the line it hung at;
- a worker that dies is explained by its exit status or signal, not by an
  unrelated last line of TensorFlow's log; the file's remaining findings go
  to a new worker;
- functions that the module's ``__main__`` block never reached because it
  hung are said to be so, and run again without that block (with
  synthesised or configured inputs).
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import tempfile
import time
from collections import deque
from pathlib import Path
from typing import Callable, Dict, List, Optional

import tflint_perf
from tflint_perf.verify import explain, workcopy
from tflint_perf.verify.options import VerifyOptions
from tflint_perf.verify.verdicts import FAILED

PACKAGE_ROOT = str(Path(tflint_perf.__file__).resolve().parent.parent)
TAIL_BYTES = 64 * 1024
INSTALL_HINT = (
    "--verify runs the flagged code with TensorFlow, which this Python ({python}) cannot import ({error}). "
    "Install it with `{python} -m pip install tensorflow` (or `tensorflow-cpu`; nvidia-ml-py as well for "
    "GPU facts); every finding is reported unverified."
)


def _environment(options: VerifyOptions) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [PACKAGE_ROOT, env.get("PYTHONPATH", "")] if p)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    env["PYTHONUNBUFFERED"] = "1"
    env["MPLBACKEND"] = "Agg"
    if options.memory_limit:
        env["TFLINT_PERF_VERIFY_MEMORY"] = explain.size_text(options.memory_limit)
    return env


class WorkerRun:
    """One worker process: its messages as they come, with a progress timeout."""

    def __init__(self, spec: dict, options: VerifyOptions) -> None:
        self.options = options
        self.source = spec.get("source", "")
        self.path_hint = os.path.abspath(spec["path"]) if spec.get("path") else ""
        self.tmp = tempfile.TemporaryDirectory(prefix="tflint-perf-verify-")
        copy = workcopy.make(self.tmp.name, spec.get("path") or None)
        spec_path = os.path.join(self.tmp.name, "spec.json")
        with open(spec_path, "w", encoding="utf-8") as handle:
            json.dump(
                dict(
                    spec,
                    memory_limit=options.memory_limit,
                    workdir=copy.cwd,
                    script_copy=copy.script,
                    guard_roots=[copy.root],
                    copy_note=copy.note,
                ),
                handle,
            )
        self.process = subprocess.Popen(
            [options.python, "-m", "tflint_perf.verify.worker", spec_path],
            cwd=copy.cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=copy.environment(_environment(options)),
            start_new_session=(os.name == "posix"),
        )
        assert self.process.stdout is not None and self.process.stderr is not None
        self.streams = (self.process.stdout, self.process.stderr)
        self.selector = selectors.DefaultSelector()
        for stream in self.streams:
            os.set_blocking(stream.fileno(), False)
            self.selector.register(stream.fileno(), selectors.EVENT_READ)
        self.out_fd, self.err_fd = (stream.fileno() for stream in self.streams)
        self.partial = b""
        self.tail = bytearray()
        self.stderr_bytes = 0
        self.messages: deque = deque()
        self.hello: dict = {}
        self.exit_message: dict = {}
        self.phase = ""
        self.killed = False  # by us, after a timeout

    # -- reading ------------------------------------------------------------
    def _pump(self, timeout: float) -> bool:
        """Read what is there (waiting at most ``timeout``); False when nothing came."""
        if not self.selector.get_map():
            time.sleep(min(timeout, 0.05))
            return False
        got = False
        for key, _ in self.selector.select(timeout):
            try:
                data = os.read(key.fd, 1 << 16)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                self.selector.unregister(key.fd)
                continue
            got = True
            self._take(key.fd, data)
        return got

    def _take(self, fd: int, data: bytes) -> None:
        if fd == self.err_fd:
            self.stderr_bytes += len(data)
            self.tail += data
            del self.tail[:-TAIL_BYTES]
            return
        self.partial += data
        *lines, self.partial = self.partial.split(b"\n")
        for raw in lines:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            kind = message.get("type")
            if kind == "hello":
                self.hello = message
            elif kind == "exit":
                self.exit_message = message
                continue
            elif kind == "start":
                self.phase = message.get("phase", "")
            self.messages.append(message)

    def next(self, timeout: float):
        """The next message; None once the worker (and all it started) has ended; TimeoutError when none came in time."""
        deadline = time.monotonic() + timeout
        while True:
            if self.messages:
                return self.messages.popleft()
            if self.process.poll() is not None:
                for _ in range(100):  # what it wrote before it ended (never waits for a stranger)
                    if not self._pump(0):
                        break
                if self.messages:
                    continue
                return None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            self._pump(min(remaining, 0.2))

    def stderr_text(self) -> str:
        return bytes(self.tail).decode("utf-8", "replace")

    # -- ending ---------------------------------------------------------------
    def where_it_hangs(self) -> Optional[dict]:
        """Ask the worker for its stack (faulthandler on SIGUSR1): the user's innermost and outermost frames."""
        pid = self.hello.get("pid")
        if not pid or not hasattr(signal, "SIGUSR1") or self.process.poll() is not None:
            return None
        start = self.stderr_bytes
        try:
            os.kill(pid, signal.SIGUSR1)
        except (ProcessLookupError, PermissionError):
            return None
        end = time.monotonic() + 1.5
        while time.monotonic() < end:  # until the dump has come and nothing more is coming
            if (
                not self._pump(0.1)
                and self.stderr_bytes > start
                and "\n\n" in self.stderr_text()[-4096:]
            ):
                break
        return explain.hang_site(self.stderr_text(), self.hello.get("thread"), self.path_hint)

    def kill(self) -> None:
        """End the worker and everything it started (the reaper does; the group kill is the fallback)."""
        if self.process.poll() is not None:
            return
        self.killed = True
        try:
            self.process.terminate()  # the reaper: kill the worker's group, then every orphan
            self.process.wait(timeout=10)
            return
        except subprocess.TimeoutExpired:  # pragma: no cover - the reaper itself is stuck
            pass
        for pgid in (self.hello.get("pid"), self.process.pid):
            if pgid:
                try:
                    os.killpg(pgid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass

    def close(self) -> None:
        self.kill()
        self.selector.close()
        for stream in self.streams:
            stream.close()  # no thread reads it (os.read only): closing a pipe never blocks
        self.tmp.cleanup()


def _base_spec(options: VerifyOptions) -> dict:
    return {
        "tf_module": options.tf_module,
        "rtol": options.rtol,
        "atol": options.atol,
        "repeats": options.repeats,
        "timeout": options.timeout,
        "size": options.size,
        "budget": options.budget,
        "root": str(options.root),
    }


def probe(options: VerifyOptions) -> dict:
    """Whether TensorFlow is installed for the workers' Python, and NVML's facts (no TensorFlow import)."""
    run = WorkerRun(dict(_base_spec(options), probe=True), options)
    limit = max(options.timeout, 30)
    try:
        message = run.next(limit)
        if message is None:
            return {"ok": False, "error": explain.crash(run)}
        return message
    except TimeoutError:
        return {"ok": False, "error": f"starting the worker took over {limit:.0f} s"}
    finally:
        run.close()


class _Round:
    """One worker's pass over the remaining jobs of a file."""

    def __init__(self, jobs: List[dict], results: Dict[int, dict], on_result, on_hello) -> None:
        self.jobs, self.results, self.on_result = jobs, results, on_result
        self.on_hello = on_hello
        self.running: List[int] = []
        self.crashed: Optional[str] = None
        self.retry: List[int] = []  # function jobs to run again without the __main__ block

    def record(self, job_id: int, result: dict) -> None:
        self.results[job_id] = result
        if self.on_result:
            self.on_result(job_id, result)

    def read(self, run: WorkerRun, timeout: float) -> None:
        while True:
            try:
                message = run.next(timeout)
            except TimeoutError:
                self.crashed = explain.timeout(run, timeout, self)
                return
            if message is None:
                self.crashed = explain.crash(run)
                return
            kind = message.get("type")
            if kind == "hello" and not message.get("ok"):
                self.crashed = message.get("error", "the worker could not start")
                self.running = [j["id"] for j in self.jobs]
                return
            if kind == "hello" and self.on_hello:
                self.on_hello(message)
            if kind == "start":
                self.running = list(message["ids"])
            elif kind == "result":
                self.record(message["id"], message["result"])
                self.running = [i for i in self.running if i != message["id"]]
                if all(j["id"] in self.results for j in self.jobs):
                    return  # done: no need to wait for TensorFlow's slow interpreter exit

    def blame(self) -> None:
        """Every job the worker was running when it stopped fails with the reason (or goes again)."""
        running = [i for i in self.running if i not in self.results]
        pending = [j for j in self.jobs if j["id"] not in self.results]
        if not running and self.crashed and pending:
            running = [pending[0]["id"]]  # crashed before announcing: blame the first
        for job_id in running:
            if job_id not in self.retry:
                self.record(
                    job_id,
                    {
                        "status": FAILED,
                        "reason": self.crashed or "the worker stopped without a result",
                    },
                )


def _package(path: str, source: str) -> str:
    """The package a module with relative imports (``from .bbox import Box``) belongs to: its folder."""
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ""
    if any(isinstance(n, ast.ImportFrom) and n.level == 1 for n in tree.body):
        return os.path.basename(os.path.dirname(os.path.abspath(path)))
    return ""


def run_jobs(
    path: str,
    source: str,
    jobs: List[dict],
    options: VerifyOptions,
    failure: Optional[str] = None,
    on_result: Optional[Callable[[int, dict], None]] = None,
    on_hello: Optional[Callable[[dict], None]] = None,
    extra: Optional[dict] = None,
) -> Dict[int, dict]:
    """Raw results by job id, with a new worker after a timeout or a crash."""
    results: Dict[int, dict] = {}
    remaining = list(jobs)
    while remaining:
        spec = dict(
            _base_spec(options),
            **(extra or {}),
            path=os.path.abspath(path),
            source=source,
            jobs=remaining,
            failure=failure,
            skip_main=any(j.get("skip_main") for j in remaining),
            notebook=any(j.get("notebook") for j in remaining),
            package=_package(path, source),
        )
        run = WorkerRun(spec, options)
        work = _Round(remaining, results, on_result, on_hello)
        try:
            work.read(run, options.timeout)
        finally:
            run.close()
        work.blame()
        remaining = [j for j in remaining if j["id"] not in results]
    return results
