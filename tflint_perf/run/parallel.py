"""Lint many files: the cache first, then the misses in-process or in a pool.

- Results come back in the order of ``files``, whatever the number of jobs
  and whichever worker finishes first, so the output never depends on ``-j``.
- Workers return findings (small), never trees; each lints one file at a
  time, so memory stays bounded by the largest file, not the corpus.
- A pool costs process start-up; runs with little to parse (a handful of
  files, or everything cached) stay in-process.
- Cached: in check mode, a hit is the answer. In ``--fix``/``--diff`` mode a
  hit is used when none of its findings has a fix to apply (most files);
  files with fixes to apply are linted and fixed as usual.
"""

from __future__ import annotations

import gc
import os
import sys
from contextlib import contextmanager
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from tflint_perf.engine.fixes import applicable
from tflint_perf.run.files import lint_file
from tflint_perf.run.result import CHECK, FileResult

# Below these, a pool costs more than it saves.
MIN_FILES_FOR_POOL = 8
MIN_BYTES_FOR_POOL = 256 * 1024
CHUNK_FILES = 8
# Objects allocated (net: the count goes down as objects are freed) after
# which the garbage is collected between files. Above what a file's parse and
# the parses kept for the index hold (a large module's tree is a million
# objects): collecting while they live only scans them (about 3 s on the wheel
# corpus at 200,000), as almost all garbage is freed by reference counting.
COLLECT_AFTER = 2_000_000
FULL_COLLECT_EVERY = 10
# TFLINT_PERF_POOL=always uses the pool for any run of two files or more with
# -j above 1 (tests, debugging); "never" stays in-process; default: auto.
POOL_ENV = "TFLINT_PERF_POOL"


def available_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def resolve_jobs(jobs: Optional[int]) -> int:
    """``None`` or 0: every core this process may use."""
    if not jobs or jobs < 0:
        return available_cores()
    return jobs


def _read(path: str) -> Optional[Tuple[bytes, tuple]]:
    try:
        with open(path, "rb", buffering=0) as handle:  # unbuffered: one read, no copy
            stat = os.fstat(handle.fileno())
            return handle.readall(), (stat.st_mtime_ns, stat.st_size)
    except OSError:
        return None


def _cached(
    path: str, cache, mode: str, unsafe: bool, project=None
) -> Tuple[Optional[FileResult], int]:
    """The result from the cache, or None; and the file's size (for scheduling)."""
    read = _read(path)
    if read is None:
        return None, 0
    data, _ = read
    kind, variant = project.entry(path) if project is not None else ("", "")
    entry = cache.get_entry(path, data, variant, kind)
    if entry is None:
        return None, len(data)
    findings, extra = entry
    if project is not None and not project.reusable(path, extra):
        return None, len(data)
    if mode == CHECK or not any(applicable(f, unsafe) for f in findings):
        asked = tuple(str(a) for a in extra.get("asked", ()))
        return FileResult(path, findings, asked=asked), len(data)
    return None, len(data)


def lint_and_store(path: str, settings, mode: str, unsafe: bool, cache, project=None) -> FileResult:
    """Lint one file; remember its findings when the file is left unchanged.

    ``project``: None for a run of one file (no index); else the pass over
    the tree (``run/project.Pass``): in the first, the file records the names
    of the tree it asks about; in the second, it reads their facts."""
    view = project.view(path) if project is not None else None
    before = _read(path) if cache is not None else None
    result = lint_file(path, settings, mode, unsafe, view)
    _tidy()
    if view is not None and not project.second(path):
        result.asked = tuple(sorted(view.asked))
    if cache is None or before is None or result.error is not None:
        return result
    if result.fixed_source is not None:
        return result
    try:
        stat = os.stat(path)
    except OSError:
        return result
    if (stat.st_mtime_ns, stat.st_size) == before[1]:  # not edited while we linted it
        extra: dict = {"asked": list(result.asked)} if result.asked else {}
        kind, variant = "", ""
        if project is not None:
            kind, variant = project.entry(path)
            project.record(view, extra)
        result.cache_warning = cache.put(
            path, before[0], result.findings, extra or None, variant, kind
        )
    return result


# -- the pool ------------------------------------------------------------------
# Our own pool, not multiprocessing.Pool: when a worker dies (SIGKILL, the OOM
# killer, a native crash in the parser), Pool loses its task and the run
# hangs. Here each worker holds one file at a time; a worker that dies costs
# that file (an internal error) and is replaced.


def _serve(conn, job, inherited) -> None:
    """A worker: lint the files the parent sends until it sends None."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # end quietly with the parent
    # A forked worker holds copies of the parent's ends of its siblings'
    # pipes; closed, so each worker sees EOF when the parent dies (else they
    # would wait for each other forever).
    for fd in inherited:
        try:
            os.close(fd)
        except OSError:
            pass
    settings, mode, unsafe, cache, project = job
    while True:
        try:
            item = conn.recv()
        except (EOFError, OSError):
            return
        if item is None:
            return
        index, path = item
        conn.send((index, lint_and_store(path, settings, mode, unsafe, cache, project)))


def _context():
    import multiprocessing

    # fork: workers inherit the imported LibCST and rules (0.2 s each with
    # spawn). macOS and Windows keep their default.
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


class _Worker:
    def __init__(self, context, job, siblings: Sequence["_Worker"] = ()) -> None:
        self.conn, child = context.Pipe()
        inherited = [w.conn.fileno() for w in siblings if not w.conn.closed]
        if context.get_start_method() != "fork":
            inherited = []  # nothing inherited; those numbers mean other files there
        inherited.append(self.conn.fileno())
        self.process = context.Process(target=_serve, args=(child, job, inherited), daemon=True)
        self.process.start()
        child.close()
        self.task: Optional[Tuple[int, str]] = None

    def give(self, task: Tuple[int, str]) -> None:
        self.task = task
        self.conn.send(task)

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.conn.close()


def died(path: str, exitcode: Optional[int]) -> FileResult:
    how = f"signal {-exitcode}" if exitcode is not None and exitcode < 0 else f"exit {exitcode}"
    reason = (
        f"internal error: the worker linting this file died ({how}); the rest of the run went on"
    )
    return FileResult(path, error=f"{reason} (please report it)", failed=True)


def lint_files(
    files: Sequence[str],
    settings,
    mode: str = CHECK,
    unsafe: bool = False,
    jobs: Optional[int] = None,
    cache=None,
) -> List[FileResult]:
    """Lint ``files``; with more than one, in two passes over the project index
    (``run/project.py``): a file whose analysis asked about a name another
    module of the tree defines is linted again with that module's facts."""
    with _collect_between_files():
        return _lint_files(files, settings, mode, unsafe, jobs, cache)


@contextmanager
def _collect_between_files() -> Iterator[None]:
    """A parsed module is millions of objects that live until its file is done:
    the garbage collector's young-generation passes scan each of them, for
    nothing (a tenth of a run). Off while files are linted; ``_tidy`` collects
    between files (forked workers inherit the setting)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _tidy() -> None:
    """Collect the garbage left by the files linted so far, when there is enough
    to bother (most is freed by reference counting: ``FileContext.release``).
    The young generations only, and all of them every ``FULL_COLLECT_EVERY``
    times: what lives on (the parses ``run/project.Parses`` keeps, a tree of
    a million objects each) is not scanned again at every collection."""
    if not gc.isenabled() and gc.get_count()[0] > COLLECT_AFTER:
        gc.collect(2 if gc.get_count()[2] >= FULL_COLLECT_EVERY else 1)


def _lint_files(files, settings, mode, unsafe, jobs, cache) -> List[FileResult]:
    if len(files) < 2:
        return _lint_pass(files, settings, mode, unsafe, jobs, cache, None)
    from tflint_perf.run.project import Index, Pass, Tree

    tree = Tree(files)
    first = Pass(tree)
    results, todo = _look_up(files, cache, mode, unsafe, first)
    workers = min(resolve_jobs(jobs), len(todo))
    if _in_process(workers, todo):
        return _both_passes_here(files, results, todo, settings, mode, unsafe, cache, tree)
    _prepare(todo, cache)
    _lint_in_pool(files, todo, results, workers, (settings, mode, unsafe, cache, first))
    _finish_pass(results, cache, first)
    index = Index(tree, cache=cache)
    second: Dict[str, dict] = {}
    for path, result in zip(files, results):
        facts = _facts(index, path, result)
        if facts:
            second[path] = facts
    _warn(index.cache_warning)
    if second:
        again = [p for p in files if p in second]
        rerun = _lint_pass(again, settings, mode, unsafe, jobs, cache, Pass(tree, second))
        position = {p: k for k, p in enumerate(files)}
        for path, result in zip(again, rerun):
            results[position[path]] = result
    return results  # type: ignore[return-value]


def _facts(index, path: str, result: Optional[FileResult]) -> Optional[dict]:
    """The facts a file's second pass reads (None or empty: no second pass).
    Asked in the order of the files, whichever way they were linted: the
    index computes a module's exports once, and in an import cycle the
    first module asked for decides what the others see."""
    if result is None or not result.asked or result.error is not None:
        return None
    facts = index.facts_for(path, result.asked)
    _tidy()
    return facts


def _both_passes_here(files, results, todo, settings, mode, unsafe, cache, tree):
    """Both passes in this process, file after file: a file's second pass
    follows its first and reuses its parse, and a module the index reads
    shortly before or after its lint is not parsed again (``Parses``:
    bounded). The same results, cache entries and warnings as one pass after
    the other."""
    from tflint_perf.run.project import Index, Parses, Pass

    parses = Parses()  # what the index parsed, for the first pass, and the other way round
    first, second = Pass(tree, keep=True, parses=parses), Pass(tree, {})
    index = Index(tree, parses, cache)
    misses = {k for _, k in todo}
    _prepare(todo, cache)
    again: Dict[int, FileResult] = {}
    prepared = False
    for k, path in enumerate(files):
        if k in misses:
            results[k] = lint_and_store(path, settings, mode, unsafe, cache, first)
        view = first.views.pop(path, None)
        parses.linted.add(path)
        parses.take(path)  # a parse the first pass did not use (a cache hit, a screen)
        facts = _facts(index, path, results[k])
        if facts:
            second.facts[path] = facts
            hit = _cached(path, cache, mode, unsafe, second)[0] if cache is not None else None
            if hit is None:
                if not prepared:
                    _prepare([path], cache)
                    prepared = True
                if view is not None and view.parsed is not None:
                    second.parsed[path] = view.parsed
                hit = lint_and_store(path, settings, mode, unsafe, cache, second)
                second.parsed.pop(path, None)
            again[k] = hit
        if view is not None and view.parsed is not None:
            parses.put_linted(path, view.parsed)  # should the index read it next
    _finish_pass(results, cache, first)
    _warn(index.cache_warning)
    if again:
        _finish_pass(list(again.values()), cache, second)
    for k, result in again.items():
        results[k] = result
    return results


def _look_up(files, cache, mode, unsafe, project) -> Tuple[List[Optional[FileResult]], list]:
    """The results the cache has, and (size, index) of the files to lint."""
    results: List[Optional[FileResult]] = [None] * len(files)
    todo: List[Tuple[int, int]] = []
    for index, path in enumerate(files):
        if cache is not None:
            hit, size = _cached(path, cache, mode, unsafe, project)
            if hit is not None:
                results[index] = hit
                continue
        else:
            try:
                size = os.stat(path).st_size
            except OSError:
                size = 0
        todo.append((size, index))
    return results, todo


def _prepare(todo, cache) -> None:
    if todo and cache is not None and cache.writable:
        _warn(cache.prepare())


def _warn(warning: Optional[str]) -> None:
    if warning:
        sys.stderr.write(f"tflint-perf: warning: {warning}; running without it\n")


def _lint_pass(files, settings, mode, unsafe, jobs, cache, project) -> List[FileResult]:
    results, todo = _look_up(files, cache, mode, unsafe, project)
    _prepare(todo, cache)
    workers = min(resolve_jobs(jobs), len(todo))
    if _in_process(workers, todo):
        for _, index in todo:
            results[index] = lint_and_store(files[index], settings, mode, unsafe, cache, project)
    else:
        _lint_in_pool(files, todo, results, workers, (settings, mode, unsafe, cache, project))
    _finish_pass(results, cache, project)
    return results  # type: ignore[return-value]


def _finish_pass(results, cache, project) -> None:
    if cache is not None:
        # A full disk mid-run: said once, whichever worker met it first.
        warnings = {r.cache_warning for r in results if r is not None and r.cache_warning}
        for warning in sorted(warnings)[:1]:
            sys.stderr.write(f"tflint-perf: warning: {warning}; running without it\n")
        if cache.writable and not warnings and (project is None or not project.facts):
            cache.prune_missing()


def _in_process(workers: int, todo) -> bool:
    policy = os.environ.get(POOL_ENV, "auto")
    if workers <= 1 or policy == "never":
        return True
    if policy == "always":
        return False
    return len(todo) < MIN_FILES_FOR_POOL or sum(size for size, _ in todo) < MIN_BYTES_FOR_POOL


def _lint_in_pool(files, todo, results, workers: int, job: tuple) -> None:
    from multiprocessing.connection import wait

    from tflint_perf.rules import all_rules

    all_rules()  # import every rule once here; forked workers inherit them
    context = _context()
    # Largest first, so no worker is left with a big file at the end.
    queue = [(index, files[index]) for _, index in sorted(todo, key=lambda t: (-t[0], t[1]))]
    queue.reverse()  # pop() from the end
    pool: List[_Worker] = []
    try:
        for _ in range(workers):
            worker = _Worker(context, job, pool)
            pool.append(worker)
            if queue:
                worker.give(queue.pop())
        while any(w.task is not None for w in pool):
            busy = [w for w in pool if w.task is not None]
            ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy])
            for worker in busy:
                if worker.conn in ready or worker.process.sentinel in ready:
                    _collect(worker, results, pool, queue, context, job)
        for worker in pool:
            worker.stop()
    finally:
        for worker in pool:
            worker.kill()


def _collect(worker: _Worker, results, pool: List[_Worker], queue, context, job) -> None:
    """Take the worker's result (or its death), and give it the next file."""
    assert worker.task is not None
    index, path = worker.task
    result: Optional[FileResult] = None
    try:
        if worker.conn.poll():
            got, result = worker.conn.recv()
            assert got == index
    except (EOFError, OSError):
        result = None
    if result is None:
        worker.process.join(1)
        result = died(path, worker.process.exitcode)
    results[index] = result
    worker.task = None
    if not worker.process.is_alive():
        worker.kill()
        pool[pool.index(worker)] = worker = _Worker(
            context, job, [w for w in pool if w is not worker]
        )
    if queue:
        worker.give(queue.pop())
