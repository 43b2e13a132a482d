"""The verify table (text), and the self-contained HTML report."""

from __future__ import annotations

import html
import math
import os
from typing import IO, List, Optional, Sequence

from tflint_perf.engine.rule import Finding

COLORS = {
    "verified": "#2e7d32",
    "fixed": "#2e7d32",
    "no-speedup": "#9e9e9e",
    "inconclusive": "#b0a36a",
    "reproduced": "#ef6c00",
    "mismatch": "#c62828",
    "failed": "#c62828",
    "unverified": "#757575",
}


def seconds(value: Optional[float]) -> str:
    if value is None:
        return "-"
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.3g} ms"
    return f"{value * 1e6:.3g} us"


def speedup_text(v: dict) -> str:
    if v.get("speedup") is None:
        return "-"
    low, high = v.get("interval") or v.get("spread") or (None, None)
    text = f"{v['speedup']:.2f}x"
    if low is not None:
        text += f" ({low:.2f}-{high:.2f}x)"  # 95% interval of the median per-pair speedup
    return text


def _device_short(v: dict) -> str:
    device = v.get("device") or "-"
    return device.split(" (", 1)[0].replace("GPU: ", "")


def _location(f: Finding) -> str:
    return f"{f.path}:{f.line}:{f.column}"


def verified_findings(findings: Sequence[Finding]) -> List[Finding]:
    return [f for f in findings if "verify" in f.extra]


def header(session) -> str:
    parts = [f"device: {session.device or 'none'}"]
    if session.tf_version:
        parts.append(f"TensorFlow {session.tf_version}")
    if getattr(session, "load_average", None) is not None:
        parts.append(f"load average {session.load_average:.2f} at the start")
    return "Verify (" + ", ".join(parts) + ")"


def _details(v: dict) -> str:
    """First call, pairs, equality (what and how), peak memory, rewrite: `` [a; b; c]``."""
    details = []
    if v.get("first_call_s"):
        first = v["first_call_s"]
        details.append(
            f"first call {seconds(first.get('baseline'))} -> {seconds(first.get('fixed'))} "
            "(fresh workers, both orders)"
        )
    if v.get("repeats"):
        details.append(f"{v['repeats']} timed pairs")
    if v.get("equal") is not None:
        tol = v.get("tolerance") or {}
        what = ""
        if v.get("compared_variables"):
            what = f"results and {v['compared_variables']} variables after each run; "
        details.append(
            ("equal" if v["equal"] else "NOT equal")
            + f" ({what}numpy.allclose rtol={tol.get('rtol')}, atol={tol.get('atol')})"
        )
    if v.get("peak_memory_bytes"):
        peak = v["peak_memory_bytes"]
        details.append(f"peak GPU memory {_mib(peak.get('baseline'))} -> {_mib(peak.get('fixed'))}")
    if v.get("variant") == "rewrite":
        details.append("measured against a verification-only rewrite")
    return f" [{'; '.join(details)}]" if details else ""


def write_table(findings: Sequence[Finding], out: IO[str], session=None, diffs=False) -> None:
    rows = verified_findings(findings)
    if not rows:
        return
    out.write("\n" + (header(session) if session is not None else "Verify") + ":\n")
    table = [("location", "code", "device", "baseline", "fixed", "speedup (95% CI)", "verdict")]
    for f in rows:
        v = f.extra["verify"]
        table.append(
            (
                _location(f),
                f.code,
                _device_short(v),
                seconds(v.get("baseline_s")),
                seconds(v.get("fixed_s")),
                speedup_text(v),
                v.get("status", "?"),
            )
        )
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for row in table:
        out.write("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() + "\n")
    counts: dict = {}
    for f in rows:
        v = f.extra["verify"]
        out.write(
            f"  {_location(f)} {f.code} {v.get('status')}: {v.get('reason') or ''}{_details(v)}\n"
        )
        counts[v.get("status")] = counts.get(v.get("status"), 0) + 1
    out.write("Verdicts: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) + ".\n")
    if diffs:
        for f in rows:
            diff = f.extra["verify"].get("diff")
            if diff:
                out.write(f"\nMeasured for {_location(f)} {f.code}:\n{diff}")


def _mib(value) -> str:
    return "-" if value is None else f"{value / 2**20:.1f} MiB"


def _html_row(f: Finding) -> str:
    v = f.extra["verify"]
    first = v.get("first_call_s") or {}
    equal = {True: "yes", False: "NO", None: "-"}[v.get("equal")]
    color = COLORS.get(v.get("status"), "#333")
    cells = [
        ("", f"{os.path.abspath(f.path)}:{f.line}:{f.column}"),
        ("", f.code),
        ("", _device_short(v)),
        (" class=num", seconds(v.get("baseline_s"))),
        (" class=num", seconds(v.get("fixed_s"))),
        (" class=num", speedup_text(v)),
        (
            " class=num",
            f"{seconds(first.get('baseline'))} / {seconds(first.get('fixed'))}" if first else "-",
        ),
        ("", equal),
    ]
    return (
        "<tr>"
        + "".join(f"<td{cls}>{html.escape(str(cell))}</td>" for cls, cell in cells)
        + f'<td style="color:{color};font-weight:bold">{html.escape(v.get("status", ""))}</td>'
        + f"<td class=reason>{html.escape(v.get('reason') or '')}</td></tr>"
        + _html_detail(f, v)
    )


def _html_detail(f: Finding, v: dict) -> str:
    """The finding's message and the measured variant as a diff, under its row."""
    diff = v.get("diff") or ""
    lines = []
    for line in diff.splitlines():
        kind = "add" if line.startswith("+") else "del" if line.startswith("-") else ""
        lines.append(
            f"<span class={kind}>{html.escape(line)}</span>" if kind else html.escape(line)
        )
    what = (
        "<details><summary>measured variant ("
        + ("the fix" if v.get("variant") == "fix" else "a verification-only rewrite, never written")
        + ")</summary><pre class=diff>"
        + "\n".join(lines)
        + "</pre></details>"
        if diff
        else "<p class=reason>nothing was measured against a variant</p>"
    )
    return (
        f"<tr class=detail><td colspan=10><p><b>{html.escape(f.code)}</b> "
        f"{html.escape(f.message)}</p>{what}</td></tr>"
    )


def write_html(findings: Sequence[Finding], path: str, session=None) -> None:
    rows = verified_findings(findings)
    title = "tflint-perf --verify report"
    parts = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        f"<title>{title}</title><style>",
        "body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}",
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}th{background:#f4f4f4}",
        "td.num{text-align:right;font-variant-numeric:tabular-nums}.reason{color:#555;font-size:12px;max-width:40em}",
        "tr.detail td{background:#fafafa;font-size:12px}pre.diff{margin:4px 0;overflow-x:auto}",
        ".add{color:#2e7d32}.del{color:#c62828}",
        "</style></head><body>",
        f"<h1>{title}</h1>",
        f"<p>{html.escape(header(session) if session is not None else 'Verify')}</p>",
        _svg(rows),
        "<table><tr><th>location</th><th>code</th><th>device</th><th>baseline</th><th>fixed</th>"
        "<th>speedup (95% CI)</th><th>first call (baseline / fixed)</th><th>equal</th><th>verdict</th><th>reason</th></tr>",
    ]
    parts += [_html_row(f) for f in rows]
    parts.append(
        "</table><p class=reason>Each finding's code and its fix ran in a fresh worker process; "
        "baseline and fixed alternate after a warm-up run; the speedup is the median of the per-pair "
        "speedups, with its 95% confidence interval; the verdict needs the whole interval above 1.05x "
        "(verified) or below it (no-speedup), else it is inconclusive.</p></body></html>\n"
    )
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(parts))


_BAR_ORDER = {"verified": 0, "inconclusive": 1, "no-speedup": 2}


def _svg(rows: Sequence[Finding]) -> str:
    """A horizontal bar per finding: speedup on a log scale (1x marked).

    Verified findings first (largest speedup on top), then inconclusive,
    then no-speedup; only verified bars are filled: an outlined grey bar
    never reads as a winner, however long.
    """
    timed = [f for f in rows if f.extra["verify"].get("speedup")]
    timed.sort(
        key=lambda f: (
            _BAR_ORDER.get(f.extra["verify"].get("status"), 3),
            -f.extra["verify"]["speedup"],
        )
    )
    if not timed:
        return "<p>No timed findings.</p>"
    label_w, bar_w, row_h = 260, 420, 24
    top = max(max(f.extra["verify"]["speedup"] for f in timed), 2.0)
    bottom = min(min(f.extra["verify"]["speedup"] for f in timed), 0.5)
    span = math.log10(top) - math.log10(bottom)

    def x(value):
        value = min(max(value, bottom), top)
        return label_w + bar_w * (math.log10(value) - math.log10(bottom)) / span

    height = row_h * len(timed) + 30
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + bar_w + 120}" height="{height}" role="img" '
        'aria-label="speedup per finding (log scale)">'
    ]
    one = x(1.0)
    for i, f in enumerate(timed):
        v = f.extra["verify"]
        y = i * row_h + 4
        start, end = sorted((one, x(v["speedup"])))
        color = COLORS.get(v.get("status"), "#333")
        label = html.escape(f"{f.code} {f.path}:{f.line}"[-60:])
        out.append(
            f'<text x="{label_w - 6}" y="{y + 15}" text-anchor="end" font-size="12">{label}</text>'
        )
        fill = color if v.get("status") == "verified" else "none"
        out.append(
            f'<rect x="{start:.1f}" y="{y}" width="{max(end - start, 1):.1f}" height="{row_h - 8}" '
            f'fill="{fill}" stroke="{color}" stroke-dasharray="{"" if fill != "none" else "4,2"}"/>'
        )
        low, high = v.get("interval") or v.get("spread") or (v["speedup"], v["speedup"])
        out.append(
            f'<line x1="{x(low):.1f}" x2="{x(high):.1f}" y1="{y + 8}" y2="{y + 8}" stroke="#000" stroke-width="1"/>'
        )
        out.append(
            f'<text x="{max(end, one) + 6:.1f}" y="{y + 15}" font-size="12">{v["speedup"]:.2f}x {html.escape(v.get("status", ""))}</text>'
        )
    axis_y = row_h * len(timed) + 8
    out.append(
        f'<line x1="{one:.1f}" x2="{one:.1f}" y1="0" y2="{axis_y}" stroke="#333" stroke-dasharray="3,3"/>'
    )
    out.append(
        f'<text x="{one:.1f}" y="{axis_y + 16}" text-anchor="middle" font-size="11">1x (log scale)</text>'
    )
    out.append("</svg>")
    return "\n".join(out)
