"""Verdicts from the workers' raw results (linter side).

``timing_verdict`` for speedup findings, ``failure_verdict`` for failure
findings (``Purpose.FAILURE``, by what the rule ``observe``s).
"""

from __future__ import annotations

import statistics
from typing import Dict, List, Optional

from tflint_perf.engine.verification import Observe
from tflint_perf.verify import stats

VERIFIED, NO_SPEEDUP, INCONCLUSIVE, MISMATCH, REPRODUCED, FIXED, UNVERIFIED, FAILED = (
    "verified",
    "no-speedup",
    "inconclusive",
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
    ratios = stats.ratios(base, fixed)
    decision, speedup, low, high = stats.decide(ratios)
    return {
        "device": device,
        "baseline_s": baseline_s,
        "fixed_s": fixed_s,
        "speedup": speedup,
        "interval": [low, high],
        "interval_kind": "95% confidence interval of the median per-pair speedup",
        "spread": list(_quartiles(ratios)),
        "spread_kind": "interquartile range of the per-pair speedups",
        "speedup_range": [min(ratios), max(ratios)],
        "decision": decision,
        "repeats": raw["repeats"],
        "timed_for_s": raw.get("timed_for_s"),
        "load_average": raw.get("load_average"),
    }


def _not_timed(raw: dict, device: str) -> dict:
    """A compared-but-not-timed result: a mismatch, or no equality to stand on."""
    out = _blank({"device": device})
    out.update({k: raw.get(k) for k in ("tolerance", "max_abs_diff", "where", "synthetic_data")})
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


def _load_text(load) -> str:
    if not load or load[0] is None:
        return ""
    return f"load average {load[0]:.2f}" + (
        f" -> {load[1]:.2f}" if len(load) > 1 and load[1] is not None else ""
    )


def timing_verdict(raw: dict, device: str) -> dict:
    """The ``verify`` object for a timed finding."""
    if "status" in raw:
        out = _blank({"status": raw["status"], "device": device, "reason": raw.get("reason", "")})
        for key in ("refused", "synthetic_data", "where"):
            if raw.get(key):
                out[key] = raw[key]
        return out
    by_design = raw.get("by_design") if "baseline_times" in raw else None
    random_draws = raw.get("random_draws") if "baseline_times" in raw else None
    if "baseline_times" not in raw or (
        raw.get("equal") is not True and not by_design and not random_draws
    ):
        return _not_timed(raw, device)
    out = _timings(raw, device)
    out.update({k: raw.get(k) for k in ("tolerance", "max_abs_diff", "peak_memory_bytes")})
    out.update(equal=raw.get("equal"), where=raw.get("where", ""), first_call_s=None)
    out["loop_limits"] = raw.get("loop_limits")
    if raw.get("synthetic_data"):
        out["synthetic_data"] = raw["synthetic_data"]
    out["compared_variables"] = raw.get("state_variables", 0)
    speedup, (low, high) = out["speedup"], out["interval"]
    pairs = f"{out['repeats']} pairs"
    load = _load_text(out["load_average"])
    measured = f"{pairs}, 95% interval {low:.2f}-{high:.2f}x" + (f", {load}" if load else "")
    if out["decision"] == stats.FASTER:
        out["status"] = VERIFIED
        reason = f"{speedup:.2f}x faster ({measured})"
    elif out["decision"] == stats.NOT_FASTER:
        out["status"] = NO_SPEEDUP
        if high < 1:
            reason = f"the fix is slower here: {speedup:.2f}x ({measured})"
        else:
            reason = f"no speedup worth the name here: {speedup:.2f}x, under {stats.MARGIN:.2f}x ({measured})"
    else:
        out["status"] = INCONCLUSIVE
        reason = (
            f"the timings do not decide: {speedup:.2f}x, but the per-pair speedups' interval "
            f"{low:.2f}-{high:.2f}x includes both no gain and a gain of over {stats.MARGIN:.2f}x "
            f"({pairs} in {out['timed_for_s'] or 0:.0f} s" + (f", {load}" if load else "") + ")"
        )
    if raw.get("limited"):
        out["limited"] = raw["limited"]
        reason += f"; {raw['limited']}"
    if raw.get("shortened"):
        out["shortened"] = raw["shortened"]
        reason += (
            "; the module's own training before the measured code was cut to one epoch (its "
            "History repeats that epoch's figures), the same model for both variants "
            f"({', '.join(raw['shortened'][:3])})"
        )
    if raw.get("fixed_order"):
        out["fixed_order"] = raw["fixed_order"]
        reason += (
            "; the dataset's shuffle kept one seeded order on every pass, so that both variants "
            f"train on the same batches ({', '.join(raw['fixed_order'][:3])})"
        )
    if raw.get("made_folders"):
        out["made_folders"] = raw["made_folders"]
        reason += (
            "; the working copy lacked the folder the code writes into, made empty: "
            + ", ".join(raw["made_folders"][:3])
        )
    if raw.get("synthetic_data"):
        reason += f"; on synthetic data ({', '.join(raw['synthetic_data'])}: random values of the real shapes and dtypes)"
    if by_design:
        out["by_design"] = by_design
        reason += f"; results not compared: {by_design}"
    if random_draws:
        out["random_draws"] = random_draws
        reason += f"; results equal up to random draws: {random_draws}"
    out["reason"] = "; ".join([reason] + [n for n in (raw.get("note"),) if n])
    return out


def rewrite_outcome(out: dict, raw: dict) -> None:
    """A verification-only rewrite that differs or fails says nothing about the code: unverified."""
    if out.get("status") == MISMATCH:
        out["status"] = UNVERIFIED
        out["reason"] = (
            "the verification-only rewrite (there is no fix) does not give the same values here, "
            f"so nothing was timed: {out['reason'].split(': ', 1)[-1]}"
        )
    elif out.get("status") == FAILED and raw.get("variant_failed"):
        out["status"] = UNVERIFIED
        out["reason"] = (
            "the verification-only rewrite (there is no fix) does not run here, so nothing was "
            f"timed: {out['reason']}"
        )


def add_first_calls(out: dict, runs: List[Dict[str, float]]) -> None:
    """First calls, each timed in its own fresh worker, in both orders (``runs``: one dict per order)."""
    if not runs or any(set(r) != {"baseline", "fixed"} for r in runs):
        return
    first = {w: statistics.median(r[w] for r in runs) for w in ("baseline", "fixed")}
    out["first_call_s"] = dict(first, runs=runs, how="each in a fresh worker, both orders")
    if first["fixed"] > 0:
        ratio = first["baseline"] / first["fixed"]
        word = "faster" if ratio >= 1 else "slower"
        factor = ratio if ratio >= 1 else 1 / ratio
        out["reason"] += (
            f"; first call {first['baseline']:.3g} s -> {first['fixed']:.3g} s "
            f"({factor:.1f}x {word}; fresh workers, both orders)"
        )


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
