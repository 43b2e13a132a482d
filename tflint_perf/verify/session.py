"""``--verify`` end to end: plan, run, judge, attach ``Finding.extra["verify"]``."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

from tflint_perf.engine.rule import Finding
from tflint_perf.verify import orchestrate, verdicts
from tflint_perf.verify.options import VerifyOptions
from tflint_perf.verify.plan import plan_file, unverified
from tflint_perf.verify.stats import load_average


@dataclass
class Session:
    device: str = ""
    device_info: dict = field(default_factory=dict)
    tf_version: str = ""
    message: str = ""  # said once (missing TensorFlow)
    load_average: Optional[float] = None  # the machine's, when the run started
    device_final: bool = False  # device_info comes from a worker that loaded TensorFlow

    def hello(self, message: dict) -> None:
        """A worker started: its device facts (with TensorFlow loaded) replace the probe's."""
        if self.device_final or not message.get("device"):
            return
        self.device_info = message["device"]
        self.device = self.device_info.get("description", "unknown device")
        self.tf_version = message.get("tf_version", self.tf_version)
        self.device_final = bool(message.get("loaded"))

    findings: List[Finding] = field(default_factory=list)


class Progress:
    """``verifying [#####     ] 3/10 path:line CODE`` on stderr, only on a terminal."""

    def __init__(self, total: int, enabled: bool, stream=None) -> None:
        self.total, self.done = total, 0
        self.stream = stream or sys.stderr
        self.enabled = (
            enabled and total > 0 and hasattr(self.stream, "isatty") and self.stream.isatty()
        )

    def show(self, label: str = "") -> None:
        if not self.enabled:
            return
        width = 24
        filled = int(width * self.done / self.total)
        self.stream.write(
            f"\r\033[Kverifying [{'#' * filled}{' ' * (width - filled)}] {self.done}/{self.total} {label}"[
                :160
            ]
        )
        self.stream.flush()

    def step(self, label: str = "") -> None:
        self.done += 1
        self.show(label)

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r\033[K")
            self.stream.flush()


def _attach(finding: Finding, outcome: dict, session: "Session") -> None:
    outcome = dict(outcome)
    outcome.setdefault("device", session.device or "none")
    for key in ("baseline_s", "fixed_s", "speedup", "spread", "first_call_s", "equal", "diff"):
        outcome.setdefault(key, None)
    outcome.setdefault("repeats", 0)
    outcome.setdefault("reason", "")
    if session.device_info:
        outcome["device_facts"] = session.device_info
    finding.extra["verify"] = outcome


def _cells(view):
    """``_attach`` for a notebook: lines of the joined module said as cells."""

    def attach(finding: Finding, outcome: dict, session: "Session") -> None:
        outcome = dict(outcome)
        for key in ("reason", "where"):
            if isinstance(outcome.get(key), str):
                outcome[key] = view.cells_text(outcome[key])
        if outcome.get("diff"):
            outcome["diff"] = outcome["diff"].replace(
                " (original)", " (code cells joined, original)", 1
            )
        _attach(finding, outcome, session)

    return attach


def _no_tensorflow(session: Session, hello: dict, options: VerifyOptions, stderr) -> None:
    error = hello.get("error", "unknown error")
    session.message = orchestrate.INSTALL_HINT.format(python=options.python, error=error)
    stderr.write(f"tflint-perf: {session.message}\n")
    described = session.device_info.get("description")
    session.device = described or "none (TensorFlow is not importable; nothing was run)"
    for finding in session.findings:
        reason = f"TensorFlow is not importable by {options.python}: {error}"
        _attach(finding, unverified(reason), session)


def verify(
    files: Sequence[tuple],
    options: VerifyOptions,
    rules: Dict[str, type],
    stderr=None,
) -> Session:
    """Verify every finding of ``files``: (path, source or None, findings[, NotebookView]).

    Never raises for the user's code.
    """
    stderr = stderr or sys.stderr
    session = Session()
    session.load_average = load_average()
    session.findings = [f for entry in files for f in entry[2]]
    if not session.findings:
        return session
    stderr.write(
        f"tflint-perf: --verify runs the code under review ({len(files)} file(s)) in worker "
        "processes, with guard rails (no network, no writes outside a temporary working copy) "
        "that are not a sandbox: do not use it on untrusted code\n"
    )
    hello = orchestrate.probe(options)
    session.device_info = hello.get("device") or {}
    if not hello.get("ok"):
        _no_tensorflow(session, hello, options, stderr)
        return session
    session.device = session.device_info.get("description", "unknown device")
    progress = Progress(len(session.findings), options.progress, stderr)
    next_id = 0
    for entry in files:
        path, source, findings = entry[:3]
        by_id = {next_id + i: f for i, f in enumerate(findings)}
        view = entry[3] if len(entry) > 3 else None
        _verify_file(session, path, source, by_id, next_id, options, rules, progress, view)
        next_id += len(findings)
    progress.close()
    return session


def _verify_file(session, path, source, by_id, first_id, options, rules, progress, view) -> None:
    if source is None:
        for finding in by_id.values():
            _attach(
                finding, unverified("the source could not be read (or came from stdin)"), session
            )
            progress.step()
        return
    attach = _attach if view is None else _cells(view)
    position = view.position if view is not None else None
    jobs, outcomes = plan_file(
        path, source, list(by_id.values()), first_id, options, rules, position
    )
    for job in jobs:
        job["notebook"] = view is not None
    for job_id, outcome in outcomes.items():
        attach(by_id[job_id], outcome, session)
        progress.step(f"{path}:{by_id[job_id].line} {by_id[job_id].code}")
    timing = [j for j in jobs if j["mode"] in ("module", "function")]
    if timing:
        variants = {j["id"]: j.get("variant") for j in timing}
        diffs = {j["id"]: j.get("diff") for j in timing}

        def done(job_id, raw):
            finding = by_id[job_id]
            outcome = verdicts.timing_verdict(raw, session.device)
            if variants[job_id] == "rewrite":
                verdicts.rewrite_outcome(outcome, raw)
            outcome["variant"] = variants[job_id]
            outcome["diff"] = diffs[job_id]
            attach(finding, outcome, session)
            progress.step(f"{path}:{finding.line} {finding.code}")

        progress.show(f"{path} (importing TensorFlow)")
        raws = orchestrate.run_jobs(
            path, source, timing, options, on_result=done, on_hello=session.hello
        )
        for job in timing:  # anything the callbacks did not see
            if "verify" not in by_id[job["id"]].extra:
                done(job["id"], raws.get(job["id"], {"status": "failed", "reason": "no result"}))
        if options.first_calls:
            _first_calls(session, path, source, timing, by_id, options, progress)
    for job in (j for j in jobs if j["mode"] == "failure"):
        finding = by_id[job["id"]]
        outcome = _failure(session, path, source, job, finding, options, progress)
        outcome["diff"] = job.get("diff")
        attach(finding, outcome, session)
        progress.step(f"{path}:{finding.line} {finding.code}")


_TIMED = (verdicts.VERIFIED, verdicts.NO_SPEEDUP, verdicts.INCONCLUSIVE)


def _first_calls(session, path, source, jobs, by_id, options, progress) -> None:
    """Each variant's first call in its own fresh worker, in both orders (4 workers per finding)."""
    for job in jobs:
        outcome = by_id[job["id"]].extra.get("verify", {})
        if outcome.get("status") not in _TIMED:
            continue
        runs = []
        job = dict(job, loop_limits=outcome.get("loop_limits"))  # the same iterations as timed
        for order in (("baseline", "fixed"), ("fixed", "baseline")):
            run: dict = {}
            for which in order:
                progress.show(f"{path}:{job['line']} first call of the {which}")
                raw = orchestrate.run_jobs(
                    path, source, [job], options, extra={"first_call_only": which}
                ).get(job["id"], {})
                if "seconds" in raw:
                    run[which] = raw["seconds"]
            runs.append(run)
        verdicts.add_first_calls(outcome, runs)


def _failure(session, path, source, job, finding, options, progress) -> dict:
    info = session.device_info
    no_gpu = info.get("kind") != "GPU" if session.device_final else not info.get("gpus")
    if job.get("needs_gpu") and no_gpu:
        return unverified(
            f"needs a GPU: {finding.code} is about GPU settings that TensorFlow reads when it "
            f"initialises; on this machine TensorFlow uses no GPU ({session.device_info.get('cpu_reason') or 'CPU only'}), "
            "so there is nothing to observe and neither the original nor the fix was run"
        )
    progress.show(f"{path}:{finding.line} {finding.code} (original)")
    original = orchestrate.run_jobs(
        path, source, [job], options, failure="original", on_hello=session.hello
    )
    fixed = None
    if job.get("fixed_source") is not None:
        progress.show(f"{path}:{finding.line} {finding.code} (fixed)")
        fixed = orchestrate.run_jobs(path, source, [job], options, failure="fixed").get(
            job["id"], {}
        )
    return verdicts.failure_verdict(job, original.get(job["id"], {}), fixed, session.device_info)
