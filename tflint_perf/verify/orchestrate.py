"""Run the workers and turn their measurements into verdicts (linter side).

One worker process per file serves all of that file's timed findings, so
the TensorFlow import is paid once per file; the failure rules get two
fresh processes each (original, fixed), because device configuration is
per process. A worker that makes no progress for ``timeout`` seconds is
killed with its whole process group; the finding it was running is
``failed`` and the file's remaining findings go to a new worker.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import statistics
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Callable, Dict, List, Optional

import tflint_perf
from tflint_perf.verify.options import VerifyOptions

VERIFIED, NO_SPEEDUP, MISMATCH, REPRODUCED, FIXED, UNVERIFIED, FAILED = (
    "verified", "no-speedup", "mismatch", "reproduced", "fixed", "unverified", "failed",
)
PACKAGE_ROOT = str(Path(tflint_perf.__file__).resolve().parent.parent)
INSTALL_HINT = (
    "--verify runs the flagged code with TensorFlow, which this Python ({python}) cannot import ({error}). "
    "Install it with `{python} -m pip install tensorflow` (or `tensorflow-cpu`, or `pip install 'tflint-perf[verify]'` "
    "for nvidia-ml-py as well); every finding is reported unverified."
)


class WorkerRun:
    """One worker process: its messages as they come, with a progress timeout."""

    def __init__(self, spec: dict, options: VerifyOptions) -> None:
        self.options = options
        self.tmp = tempfile.TemporaryDirectory(prefix="tflint-perf-verify-")
        spec_path = os.path.join(self.tmp.name, "spec.json")
        with open(spec_path, "w", encoding="utf-8") as handle:
            json.dump(spec, handle)
        self.stderr = open(os.path.join(self.tmp.name, "stderr.log"), "w+b")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in [PACKAGE_ROOT, env.get("PYTHONPATH", "")] if p)
        env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        env["PYTHONUNBUFFERED"] = "1"
        env["MPLBACKEND"] = "Agg"
        self.process = subprocess.Popen(
            [options.python, "-m", "tflint_perf.verify.worker", spec_path],
            cwd=self.tmp.name,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=env,
            start_new_session=(os.name == "posix"),
        )
        self.messages: "queue.Queue" = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for raw in self.process.stdout:
            try:
                self.messages.put(json.loads(raw))
            except ValueError:
                continue
        self.messages.put(None)

    def next(self, timeout: float):
        """The next message; None at the end; raises TimeoutError when none came in time."""
        try:
            return self.messages.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError from None

    def kill(self) -> None:
        if self.process.poll() is None:
            try:
                if os.name == "posix":
                    os.killpg(self.process.pid, signal.SIGKILL)
                else:  # pragma: no cover
                    self.process.kill()
            except (ProcessLookupError, PermissionError):
                self.process.kill()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass

    def stderr_tail(self) -> str:
        """The last meaningful line the worker wrote to stderr (its crash, if any)."""
        try:
            self.stderr.flush()
            self.stderr.seek(0)
            lines = [line.strip() for line in self.stderr.read().decode("utf-8", "replace").splitlines() if line.strip()]
        except (OSError, ValueError):
            return ""
        return lines[-1][:300] if lines else ""

    def close(self) -> None:
        self.kill()
        if self.process.stdout:
            self.process.stdout.close()
        self.stderr.close()
        self.tmp.cleanup()


def _base_spec(options: VerifyOptions) -> dict:
    return {
        "tf_module": options.tf_module,
        "rtol": options.rtol,
        "atol": options.atol,
        "repeats": options.repeats,
        "timeout": options.timeout,
        "size": options.size,
        "root": str(options.root),
    }


def probe(options: VerifyOptions) -> dict:
    """Whether the workers can import TensorFlow, and on which device they run."""
    run = WorkerRun(dict(_base_spec(options), probe=True), options)
    try:
        message = run.next(max(options.timeout, 30))
        if message is None:
            return {"ok": False, "error": run.stderr_tail() or f"the worker exited with status {run.process.wait()}"}
        return message
    except TimeoutError:
        return {"ok": False, "error": f"starting the worker took over {max(options.timeout, 30):.0f} s"}
    finally:
        run.close()


def run_jobs(path: str, source: str, jobs: List[dict], options: VerifyOptions, failure: Optional[str] = None,
             on_result: Optional[Callable[[int, dict], None]] = None) -> Dict[int, dict]:
    """Raw results by job id, restarting the worker after a timeout or a crash."""
    results: Dict[int, dict] = {}
    remaining = list(jobs)
    while remaining:
        spec = dict(_base_spec(options), path=os.path.abspath(path), source=source, jobs=remaining, failure=failure)
        run = WorkerRun(spec, options)
        running: List[int] = []
        crashed: Optional[str] = None
        try:
            while True:
                try:
                    message = run.next(options.timeout)
                except TimeoutError:
                    crashed = f"timed out after {options.timeout:g} s (the worker and its children were killed)"
                    break
                if message is None:
                    code = run.process.wait()
                    tail = run.stderr_tail()
                    crashed = f"the worker exited with status {code}" + (f": {tail}" if tail else "")
                    break
                kind = message.get("type")
                if kind == "hello" and not message.get("ok"):
                    crashed = message.get("error", "the worker could not start")
                    running = [j["id"] for j in remaining]
                    break
                if kind == "start":
                    running = list(message["ids"])
                elif kind == "result":
                    results[message["id"]] = message["result"]
                    if on_result:
                        on_result(message["id"], message["result"])
                    running = [i for i in running if i != message["id"]]
                    if all(j["id"] in results for j in remaining):
                        break  # done: no need to wait for TensorFlow's slow interpreter exit
        finally:
            run.close()
        remaining = [j for j in remaining if j["id"] not in results]
        if not remaining:
            break
        if not running and crashed:
            running = [remaining[0]["id"]]  # crashed before announcing: blame the first
        for job_id in running:
            if job_id not in results:
                results[job_id] = {"status": FAILED, "reason": crashed or "the worker stopped without a result"}
                if on_result:
                    on_result(job_id, results[job_id])
        remaining = [j for j in remaining if j["id"] not in results]
    return results


# -- verdicts --------------------------------------------------------------
def _quartiles(values: List[float]):
    ordered = sorted(values)
    if len(ordered) < 4:
        return ordered[0], ordered[-1]
    q = statistics.quantiles(ordered, n=4)
    return q[0], q[2]


def timing_verdict(raw: dict, device: str) -> dict:
    """The ``verify`` object for a timed finding."""
    if "status" in raw:
        out = {"status": raw["status"], "device": device, "reason": raw.get("reason", "")}
        return _blank(out)
    base, fixed = raw["baseline_times"], raw["fixed_times"]
    baseline_s, fixed_s = statistics.median(base), statistics.median(fixed)
    ratios = [b / f if f > 0 else float("inf") for b, f in zip(base, fixed)]
    speedup = baseline_s / fixed_s if fixed_s > 0 else float("inf")
    low, high = _quartiles(ratios)
    base_q1, base_q3 = _quartiles(base)
    fixed_q1, fixed_q3 = _quartiles(fixed)
    out = {
        "device": device,
        "baseline_s": baseline_s,
        "fixed_s": fixed_s,
        "speedup": speedup,
        "spread": [low, high],
        "spread_kind": "interquartile range of the per-pair speedups",
        "speedup_range": [min(ratios), max(ratios)],
        "baseline_iqr_s": [base_q1, base_q3],
        "fixed_iqr_s": [fixed_q1, fixed_q3],
        "first_call_s": raw["first_call_s"],
        "repeats": raw["repeats"],
        "equal": raw.get("equal"),
        "tolerance": raw.get("tolerance"),
        "max_abs_diff": raw.get("max_abs_diff"),
        "peak_memory_bytes": raw.get("peak_memory_bytes"),
        "where": raw.get("where", ""),
    }
    notes = [n for n in (raw.get("note"), raw.get("equal_note")) if n]
    first = raw["first_call_s"]
    first_ratio = first["baseline"] / first["fixed"] if first["fixed"] > 0 else float("inf")
    if raw.get("equal") is False:
        out["status"] = MISMATCH
        out["reason"] = "the fix changes the results: " + (raw.get("equal_note") or "values differ")
        return out
    # Beyond the spread: the middle halves of the two timings do not overlap.
    faster = fixed_q3 < base_q1 and speedup >= 1.05
    slower = base_q3 < fixed_q1
    if faster:
        out["status"] = VERIFIED
        reason = f"{speedup:.2f}x faster (the fixed runs' interquartile range lies below the original's)"
    elif slower:
        out["status"] = NO_SPEEDUP
        reason = f"the fix is slower here: {speedup:.2f}x"
    else:
        out["status"] = NO_SPEEDUP
        reason = (f"no measurable speedup here: {speedup:.2f}x, but the timings overlap "
                  f"(original {base_q1 * 1e3:.3g}-{base_q3 * 1e3:.3g} ms, fixed {fixed_q1 * 1e3:.3g}-{fixed_q3 * 1e3:.3g} ms, interquartile)")
    if first_ratio >= 1.5 and out["status"] != VERIFIED:
        reason += f"; the first call is {first_ratio:.1f}x faster ({first['baseline']:.3g} s vs {first['fixed']:.3g} s)"
    if raw.get("equal") is None:
        reason += "; results not compared"
    out["reason"] = "; ".join([reason] + notes)
    return out


def _blank(out: dict) -> dict:
    for key in ("baseline_s", "fixed_s", "speedup", "spread", "first_call_s", "equal"):
        out.setdefault(key, None)
    out.setdefault("repeats", 0)
    return out


_CPU_REPRODUCIBLE = {"set_intra_op_parallelism_threads", "set_inter_op_parallelism_threads"}


def failure_verdict(job: dict, original: dict, fixed: Optional[dict], device: dict) -> dict:
    """``reproduced`` / ``fixed`` / ``unverified`` for TFP301 (and TFP303 on a GPU)."""
    description = device.get("description", "")
    out = _blank({"device": description})
    if "status" in original:
        out.update(status=original["status"], reason=f"running the original: {original.get('reason', '')}")
        return out
    line = job["line"]
    mine = [e for e in original["events"] if line in e["lines"]]
    on_cpu = device.get("kind") != "GPU"
    if job["code"] == "TFP303":
        return _tfp303(job, original, fixed, out)
    raised = [e for e in mine if e["error"] and e["error"].startswith("RuntimeError")]
    if not mine:
        why = original.get("error")
        if why:
            out.update(status=FAILED, reason=f"the original raised {why} before reaching line {line}")
        elif on_cpu:
            out.update(status=UNVERIFIED, reason=(
                f"needs a GPU: line {line} never configured a device on this CPU-only machine "
                f"(TensorFlow lists no GPU to configure); not run: the check that TensorFlow raises RuntimeError"))
        else:
            out.update(status=UNVERIFIED, reason=f"running the module never reached line {line} (nothing calls it as __main__)")
        return out
    if not raised:
        calls = sorted({e["call"] for e in mine})
        if on_cpu and not set(calls) & _CPU_REPRODUCIBLE:
            out.update(status=UNVERIFIED, reason=(
                f"needs a GPU: on this CPU-only machine TensorFlow accepts {', '.join(calls)} after initialisation "
                f"(there is no GPU to reconfigure); the RuntimeError check was not run"))
        else:
            errors = [e["error"] for e in mine if e["error"]]
            out.update(status=UNVERIFIED, reason=(
                "not reproduced: TensorFlow " + (f"raised {errors[0]}" if errors else f"accepted {', '.join(calls)}")))
        return out
    caught = " (the script catches it, so the setting is silently ignored)" if job.get("caught") else ""
    reproduced = f"reproduced: {raised[0]['error']}{caught}"
    if fixed is None:
        out.update(status=REPRODUCED, reason=reproduced + "; no fix to run")
        return out
    if "status" in fixed:
        out.update(status=REPRODUCED, reason=f"{reproduced}; running the fixed order: {fixed.get('reason', '')}")
        return out
    fixed_errors = [e for e in fixed["events"] if e["error"]]
    if fixed_errors:
        out.update(status=REPRODUCED, reason=f"{reproduced}; the fixed order still raises {fixed_errors[0]['error']}")
    elif fixed.get("error"):
        out.update(status=REPRODUCED, reason=f"{reproduced}; the fixed module raised {fixed['error']}")
    elif not fixed["events"]:
        out.update(status=REPRODUCED, reason=f"{reproduced}; the fixed module never made the configuration call")
    else:
        out.update(status=FIXED, reason=f"{reproduced}; the fixed order runs clean ({len(fixed['events'])} configuration call(s), no error)")
    return out


def _tfp303(job, original, fixed, out):
    want = original.get("cuda_visible_devices")
    seen = original.get("gpus_visible")
    if want is None or seen is None:
        out.update(status=UNVERIFIED, reason="cannot observe whether TensorFlow honoured the environment setting")
        return out
    wanted = len([d for d in want.split(",") if d.strip() and d.strip() != "-1"])
    if seen <= wanted:
        out.update(status=UNVERIFIED, reason=f"not reproduced: TensorFlow sees {seen} GPU(s), CUDA_VISIBLE_DEVICES={want!r}")
        return out
    reproduced = f"reproduced: CUDA_VISIBLE_DEVICES={want!r} was ignored, TensorFlow sees {seen} GPU(s)"
    if fixed is None or "status" in fixed:
        out.update(status=REPRODUCED, reason=reproduced)
    elif (fixed.get("gpus_visible") or 0) <= wanted and not fixed.get("error"):
        out.update(status=FIXED, reason=f"{reproduced}; with the fix it sees {fixed.get('gpus_visible')}")
    else:
        out.update(status=REPRODUCED, reason=f"{reproduced}; the fix did not change that")
    return out
