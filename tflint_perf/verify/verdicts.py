"""Verdicts from the workers' raw results (linter side).

``timing_verdict`` for speedup findings, ``failure_verdict`` for failure
findings (``Purpose.FAILURE``, by what the rule ``observe``s).
"""

from __future__ import annotations

import statistics
from typing import List, Optional

from tflint_perf.engine.verification import Observe

VERIFIED, NO_SPEEDUP, MISMATCH, REPRODUCED, FIXED, UNVERIFIED, FAILED = (
    "verified",
    "no-speedup",
    "mismatch",
    "reproduced",
    "fixed",
    "unverified",
    "failed",
)


def _quartiles(values: List[float]):
    ordered = sorted(values)
    if len(ordered) < 4:
        return ordered[0], ordered[-1]
    q = statistics.quantiles(ordered, n=4)
    return q[0], q[2]


def _timings(raw: dict, device: str) -> dict:
    base, fixed = raw["baseline_times"], raw["fixed_times"]
    baseline_s, fixed_s = statistics.median(base), statistics.median(fixed)
    ratios = [b / f if f > 0 else float("inf") for b, f in zip(base, fixed)]
    low, high = _quartiles(ratios)
    return {
        "device": device,
        "baseline_s": baseline_s,
        "fixed_s": fixed_s,
        "speedup": baseline_s / fixed_s if fixed_s > 0 else float("inf"),
        "spread": [low, high],
        "spread_kind": "interquartile range of the per-pair speedups",
        "speedup_range": [min(ratios), max(ratios)],
        "baseline_iqr_s": list(_quartiles(base)),
        "fixed_iqr_s": list(_quartiles(fixed)),
        "repeats": raw["repeats"],
    }


def _not_timed(raw: dict, device: str) -> dict:
    """A compared-but-not-timed result: a mismatch, or no equality to stand on."""
    out = _blank({"device": device})
    out.update({k: raw.get(k) for k in ("first_call_s", "tolerance", "max_abs_diff", "where")})
    out["equal"] = raw.get("equal")
    if raw.get("equal") is False:
        out["status"] = MISMATCH
        out["reason"] = "the fix changes the results: " + (raw.get("equal_note") or "values differ")
    else:
        out["status"] = UNVERIFIED
        out["reason"] = (raw.get("equal_note") or "nothing was compared") + (
            "; no speedup is reported without equal results"
        )
    return out


def timing_verdict(raw: dict, device: str) -> dict:
    """The ``verify`` object for a timed finding."""
    if "status" in raw:
        return _blank({"status": raw["status"], "device": device, "reason": raw.get("reason", "")})
    if "baseline_times" not in raw or raw.get("equal") is not True:
        return _not_timed(raw, device)
    out = _timings(raw, device)
    out.update({k: raw.get(k) for k in ("tolerance", "max_abs_diff", "peak_memory_bytes")})
    out.update(first_call_s=raw["first_call_s"], equal=True, where=raw.get("where", ""))
    out["compared_variables"] = raw.get("state_variables", 0)
    base_q1, base_q3 = out["baseline_iqr_s"]
    fixed_q1, fixed_q3 = out["fixed_iqr_s"]
    speedup, first = out["speedup"], raw["first_call_s"]
    first_ratio = first["baseline"] / first["fixed"] if first["fixed"] > 0 else float("inf")
    # Beyond the spread: the middle halves of the two timings do not overlap.
    if fixed_q3 < base_q1 and speedup >= 1.05:
        out["status"] = VERIFIED
        reason = (
            f"{speedup:.2f}x faster (the fixed runs' interquartile range lies below the original's)"
        )
    elif base_q3 < fixed_q1:
        out["status"] = NO_SPEEDUP
        reason = f"the fix is slower here: {speedup:.2f}x"
    else:
        out["status"] = NO_SPEEDUP
        reason = (
            f"no measurable speedup here: {speedup:.2f}x, but the timings overlap "
            f"(original {base_q1 * 1e3:.3g}-{base_q3 * 1e3:.3g} ms, fixed {fixed_q1 * 1e3:.3g}-{fixed_q3 * 1e3:.3g} ms, interquartile)"
        )
    if first_ratio >= 1.5 and out["status"] != VERIFIED:
        reason += f"; the first call is {first_ratio:.1f}x faster ({first['baseline']:.3g} s vs {first['fixed']:.3g} s)"
    out["reason"] = "; ".join([reason] + [n for n in (raw.get("note"),) if n])
    return out


def _blank(out: dict) -> dict:
    for key in ("baseline_s", "fixed_s", "speedup", "spread", "first_call_s", "equal"):
        out.setdefault(key, None)
    out.setdefault("repeats", 0)
    return out


# TensorFlow settings that raise after initialisation even without a GPU.
_CPU_REPRODUCIBLE = {"set_intra_op_parallelism_threads", "set_inter_op_parallelism_threads"}


def failure_verdict(job: dict, original: dict, fixed: Optional[dict], device: dict) -> dict:
    """``reproduced`` / ``fixed`` / ``unverified`` / ``failed`` for a failure finding."""
    out = _blank({"device": device.get("description", "")})
    if "status" in original:
        out.update(
            status=original["status"], reason=f"running the original: {original.get('reason', '')}"
        )
        return out
    if job.get("observe") == Observe.VISIBLE_GPUS.value:
        status, reason = _visible_gpus(original, fixed)
    else:
        status, reason = _config_call(job, original, fixed, on_gpu=device.get("kind") == "GPU")
    out.update(status=status, reason=reason)
    return out


def _config_call(job: dict, original: dict, fixed: Optional[dict], on_gpu: bool):
    line = job["line"]
    mine = [e for e in original["events"] if line in e["lines"]]
    raised = [e for e in mine if e["error"] and e["error"].startswith("RuntimeError")]
    if not mine:
        if original.get("error"):
            return FAILED, f"the original raised {original['error']} before reaching line {line}"
        if not on_gpu:
            return UNVERIFIED, (
                f"needs a GPU: line {line} never configured a device on this CPU-only machine "
                f"(TensorFlow lists no GPU to configure); not run: the check that TensorFlow raises RuntimeError"
            )
        return (
            UNVERIFIED,
            f"running the module never reached line {line} (nothing calls it as __main__)",
        )
    if not raised:
        calls = sorted({e["call"] for e in mine})
        if not on_gpu and not set(calls) & _CPU_REPRODUCIBLE:
            return UNVERIFIED, (
                f"needs a GPU: on this CPU-only machine TensorFlow accepts {', '.join(calls)} after initialisation "
                f"(there is no GPU to reconfigure); the RuntimeError check was not run"
            )
        errors = [e["error"] for e in mine if e["error"]]
        return UNVERIFIED, "not reproduced: TensorFlow " + (
            f"raised {errors[0]}" if errors else f"accepted {', '.join(calls)}"
        )
    caught = (
        " (the script catches it, so the setting is silently ignored)" if job.get("caught") else ""
    )
    return _fixed_order(f"reproduced: {raised[0]['error']}{caught}", fixed)


def _fixed_order(reproduced: str, fixed: Optional[dict]):
    if fixed is None:
        return REPRODUCED, reproduced + "; no fix to run"
    if "status" in fixed:
        return REPRODUCED, f"{reproduced}; running the fixed order: {fixed.get('reason', '')}"
    fixed_errors = [e for e in fixed["events"] if e["error"]]
    if fixed_errors:
        return REPRODUCED, f"{reproduced}; the fixed order still raises {fixed_errors[0]['error']}"
    if fixed.get("error"):
        return REPRODUCED, f"{reproduced}; the fixed module raised {fixed['error']}"
    if not fixed["events"]:
        return REPRODUCED, f"{reproduced}; the fixed module never made the configuration call"
    return FIXED, (
        f"{reproduced}; the fixed order runs clean ({len(fixed['events'])} configuration call(s), no error)"
    )


def _visible_gpus(original: dict, fixed: Optional[dict]):
    want = original.get("cuda_visible_devices")
    seen = original.get("gpus_visible")
    if want is None or seen is None:
        return UNVERIFIED, "cannot observe whether TensorFlow honoured the environment setting"
    wanted = len([d for d in want.split(",") if d.strip() and d.strip() != "-1"])
    if seen <= wanted:
        return (
            UNVERIFIED,
            f"not reproduced: TensorFlow sees {seen} GPU(s), CUDA_VISIBLE_DEVICES={want!r}",
        )
    reproduced = (
        f"reproduced: CUDA_VISIBLE_DEVICES={want!r} was ignored, TensorFlow sees {seen} GPU(s)"
    )
    if fixed is None or "status" in fixed:
        return REPRODUCED, reproduced
    if (fixed.get("gpus_visible") or 0) <= wanted and not fixed.get("error"):
        return FIXED, f"{reproduced}; with the fix it sees {fixed.get('gpus_visible')}"
    return REPRODUCED, f"{reproduced}; the fix did not change that"
