"""Keep every process the verified code starts under one parent, and end them all.

The worker calls ``supervise()`` first thing. The process splits in two: the
child returns and becomes the worker, in its own process group; the parent
stays behind as the *reaper*. On Linux the reaper is a child subreaper
(``PR_SET_CHILD_SUBREAPER``): every process the worker starts, even one that
calls ``os.setsid()`` or forks twice, is re-parented to the reaper when its
parent dies, never to init. When the worker exits, when the linter asks
(SIGTERM), or when the linter itself dies (``PR_SET_PDEATHSIG``), the reaper
kills the worker's process group, then every process left under it, until
none is left, and exits with the worker's status (by the same signal when
the worker was killed by one). So the linter's ``wait()`` on the reaper
returns only once nothing the code started is running.

Elsewhere than Linux the reaper still kills the worker's process group, but
a process that left it (``os.setsid()``) can outlive the run.
"""

from __future__ import annotations

import os
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
LINUX = sys.platform.startswith("linux")


def _prctl(option: int, value: int) -> bool:
    if not LINUX:
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def supervise() -> None:
    """Return in the worker process; in the reaper, wait, clean up and exit (never returns)."""
    if os.name != "posix":  # pragma: no cover
        return
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)  # the linter died: clean up all the same
    worker = os.fork()
    if worker == 0:
        try:
            os.setpgid(0, 0)
        except OSError:
            pass
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # the reaper gone: so is the worker
        return
    try:
        os.setpgid(worker, worker)
    except OSError:
        pass
    _reap(worker)


def _reap(worker: int) -> None:
    # Hold nothing the linter reads: it waits for this process, not for pipes.
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ImportError, ValueError, OSError):
        pass
    signal.signal(signal.SIGTERM, lambda *_: kill_group(worker))
    signal.signal(signal.SIGINT, lambda *_: kill_group(worker))
    status = _wait_for(worker)
    kill_group(worker)
    kill_descendants()
    _exit_like(status)


def kill_group(pgid: int) -> None:
    for kill in (os.killpg, os.kill):
        try:
            kill(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _wait_for(worker: int) -> int:
    """The worker's wait status; reaps any orphan that dies meanwhile."""
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            return 0
        if pid == worker:
            return status


def children(pid: int) -> list:
    """Process ids whose parent is ``pid`` (Linux ``/proc``)."""
    found = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        tasks = []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found += [int(p) for p in handle.read().split()]
        except OSError:
            return _children_by_scan(pid)
    return found


def _children_by_scan(pid: int) -> list:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 1 and int(fields[1]) == pid:
            found.append(int(entry))
    return found


def kill_descendants(rounds: int = 500) -> None:
    """Kill every process under this one (they come back to us as orphans) until none is left."""
    me, group = os.getpid(), os.getpgrp()
    for _ in range(rounds):
        if not os.path.isdir("/proc"):
            return
        kids = children(me)
        if not kids:
            return
        for pid in kids:
            try:
                pgid = os.getpgid(pid)
                if pgid != group:
                    os.killpg(pgid, signal.SIGKILL)
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        _reap_zombies()
        time.sleep(0.005)


def _reap_zombies() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _exit_like(status: int) -> None:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            if sig not in (signal.SIGKILL, signal.SIGSTOP):
                signal.signal(sig, signal.SIG_DFL)
            os.kill(os.getpid(), sig)
            time.sleep(0.1)
        except (OSError, ValueError):
            pass
        os._exit(128 + sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)
