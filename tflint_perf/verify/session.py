"""``--verify`` end to end: plan, run, judge, attach ``Finding.extra["verify"]``."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from tflint_perf.rule import Finding
from tflint_perf.verify import orchestrate
from tflint_perf.verify.options import VerifyOptions
from tflint_perf.verify.plan import NEEDS_GPU_RULES, plan_file, unverified


@dataclass
class Session:
    device: str = ""
    device_info: dict = field(default_factory=dict)
    tf_version: str = ""
    message: str = ""  # said once (missing TensorFlow)
    findings: List[Finding] = field(default_factory=list)


class Progress:
    """``verifying [#####     ] 3/10 path:line CODE`` on stderr, only on a terminal."""

    def __init__(self, total: int, enabled: bool, stream=None) -> None:
        self.total, self.done = total, 0
        self.stream = stream or sys.stderr
        self.enabled = enabled and total > 0 and hasattr(self.stream, "isatty") and self.stream.isatty()

    def show(self, label: str = "") -> None:
        if not self.enabled:
            return
        width = 24
        filled = int(width * self.done / self.total)
        self.stream.write(f"\r\033[Kverifying [{'#' * filled}{' ' * (width - filled)}] {self.done}/{self.total} {label}"[:160])
        self.stream.flush()

    def step(self, label: str = "") -> None:
        self.done += 1
        self.show(label)

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r\033[K")
            self.stream.flush()


def _attach(finding: Finding, outcome: dict, device: str) -> None:
    outcome = dict(outcome)
    outcome.setdefault("device", device)
    for key in ("baseline_s", "fixed_s", "speedup", "spread", "first_call_s", "equal"):
        outcome.setdefault(key, None)
    outcome.setdefault("repeats", 0)
    outcome.setdefault("reason", "")
    finding.extra["verify"] = outcome


def verify(files: List[Tuple[str, Optional[str], List[Finding]]], options: VerifyOptions, rules: Dict[str, type],
           stderr=None) -> Session:
    """Verify every finding of ``files`` ((path, source or None, findings)); never raises for user code."""
    stderr = stderr or sys.stderr
    session = Session()
    all_findings = [f for _, _, findings in files for f in findings]
    session.findings = all_findings
    if not all_findings:
        return session
    hello = orchestrate.probe(options)
    if not hello.get("ok"):
        error = hello.get("error", "unknown error")
        session.message = orchestrate.INSTALL_HINT.format(python=options.python, error=error)
        stderr.write(f"tflint-perf: {session.message}\n")
        session.device = "none (TensorFlow is not importable; nothing was run)"
        for finding in all_findings:
            _attach(finding, unverified(f"TensorFlow is not importable by {options.python}: {error}"), "none")
        return session
    session.device_info = hello.get("device", {})
    session.device = session.device_info.get("description", "unknown device")
    session.tf_version = hello.get("tf_version", "")
    device = session.device
    on_gpu = session.device_info.get("kind") == "GPU"

    progress = Progress(len(all_findings), options.progress, stderr)
    next_id = 0
    for path, source, findings in files:
        first_id = next_id
        next_id += len(findings)
        by_id = {first_id + i: f for i, f in enumerate(findings)}
        if source is None:
            for finding in findings:
                _attach(finding, unverified("the source could not be read (or came from stdin)"), device)
                progress.step()
            continue
        jobs, outcomes = plan_file(path, source, findings, first_id, options, rules)
        for job_id, outcome in outcomes.items():
            _attach(by_id[job_id], outcome, device)
            progress.step(f"{path}:{by_id[job_id].line} {by_id[job_id].code}")

        timing = [j for j in jobs if j["mode"] in ("module", "function")]
        if timing:
            def done(job_id, raw):
                finding = by_id[job_id]
                _attach(finding, orchestrate.timing_verdict(raw, device), device)
                progress.step(f"{path}:{finding.line} {finding.code}")

            progress.show(f"{path} (importing TensorFlow)")
            raws = orchestrate.run_jobs(path, source, timing, options, on_result=done)
            for job in timing:  # anything the callbacks did not see
                if "verify" not in by_id[job["id"]].extra:
                    done(job["id"], raws.get(job["id"], {"status": "failed", "reason": "no result"}))

        for job in (j for j in jobs if j["mode"] == "failure"):
            finding = by_id[job["id"]]
            if job["code"] in NEEDS_GPU_RULES and not on_gpu:
                outcome = unverified(
                    f"needs a GPU: {job['code']} is about GPU environment settings that TensorFlow reads when it "
                    f"initialises; on this CPU-only machine there is nothing to observe, so neither the original nor the fix was run"
                )
            else:
                progress.show(f"{path}:{finding.line} {finding.code} (original)")
                original = orchestrate.run_jobs(path, source, [job], options, failure="original").get(job["id"], {})
                fixed = None
                if job.get("fixed_source") is not None:
                    progress.show(f"{path}:{finding.line} {finding.code} (fixed)")
                    fixed = orchestrate.run_jobs(path, source, [job], options, failure="fixed").get(job["id"], {})
                outcome = orchestrate.failure_verdict(job, original, fixed, session.device_info)
            _attach(finding, outcome, device)
            progress.step(f"{path}:{finding.line} {finding.code}")
    progress.close()
    return session
