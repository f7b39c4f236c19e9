"""Number and label formatting shared by every report format (plain text, not yet escaped)."""

from __future__ import annotations

from promptcanary.core.models import DriftSeverity, ProbeComparison, UsageSummary

#: Icon per severity, for Markdown and HTML (the terminal uses colours instead).
SEVERITY_ICONS = {
    DriftSeverity.NONE: "✅",
    DriftSeverity.LOW: "🟡",
    DriftSeverity.MEDIUM: "🟠",
    DriftSeverity.HIGH: "🔴",
    DriftSeverity.CRITICAL: "🚨",
}
INCONCLUSIVE_ICON = "⚪"

#: The words every format uses for an inconclusive verdict.
INCONCLUSIVE_WORDS = "could not be measured — not evidence of drift"

METHOD_LABELS = {
    "threshold": "threshold rule (single sample)",
    "fisher": "Fisher's exact test",
    "mann_whitney": "Mann–Whitney U test",
}


def score(value: float) -> str:
    """A 0..1 score with two decimals."""
    return f"{value:.2f}"


def delta(value: float) -> str:
    """A signed score change with a real minus sign; ``±0.00`` for no change."""
    if abs(value) < 0.005:
        return "±0.00"
    return f"+{value:.2f}" if value > 0 else f"−{abs(value):.2f}"


def p_value(value: float) -> str:
    """``p = 0.003`` style, ``p < 0.001`` for tiny values."""
    if value < 0.001:
        return "p < 0.001"
    if value < 0.01:
        return f"p = {value:.3f}"
    return f"p = {value:.2f}"


def method_label(method: str) -> str:
    """Readable name of a decision method."""
    return METHOD_LABELS.get(method, method)


def evidence(c: ProbeComparison) -> str:
    """What the verdict rests on, e.g. ``9/10 → 3/10 passed, p = 0.003 (adjusted)``."""
    counts = (
        f"{c.baseline_pass_count}/{c.baseline_samples} → "
        f"{c.current_pass_count}/{c.current_samples} passed"
    )
    if c.p_adjusted is not None:
        return f"{counts}, {p_value(c.p_adjusted)} (adjusted)"
    if c.p_value is not None:
        return f"{counts}, {p_value(c.p_value)}"
    return counts


def flaky_note(c: ProbeComparison) -> str:
    """Why a pair is marked flaky: its baseline pass rate."""
    return (
        f"flaky baseline: passed {c.baseline_pass_count}/{c.baseline_samples} "
        f"({c.baseline_pass_rate:.0%})"
    )


def pct_change(before: float, after: float) -> str:
    """`` (+12%)`` style relative change; empty when not meaningful."""
    if before == 0:
        return ""
    change = (after - before) / before
    if abs(change) < 0.005:
        return " (±0%)"
    sign = "+" if change > 0 else "−"
    return f" ({sign}{abs(change):.0%})"


def _ms(value: float) -> str:
    return f"{value:,.0f} ms"


def _usd(value: float) -> str:
    return f"${value:,.4f}" if value < 1 else f"${value:,.2f}"


def usage_rows(
    baseline: UsageSummary | None, current: UsageSummary | None
) -> list[tuple[str, str, str]]:
    """(label, baseline, current) rows for what both or either run recorded."""
    rows: list[tuple[str, str, str]] = []
    if baseline is None and current is None:
        return rows

    def pair(label: str, attr: str, fmt: object) -> None:
        b = getattr(baseline, attr, None) if baseline is not None else None
        c = getattr(current, attr, None) if current is not None else None
        if b is None and c is None:
            return
        if label == "tokens" and not b and not c:
            return
        f = fmt if callable(fmt) else str
        b_text = f(b) if b is not None else "—"
        c_text = f(c) if c is not None else "—"
        if isinstance(b, (int, float)) and isinstance(c, (int, float)):
            c_text += pct_change(float(b), float(c))
        rows.append((label, b_text, c_text))

    pair("tokens", "total_tokens", lambda v: f"{v:,}")
    pair("cost", "cost_usd", _usd)
    pair("latency p50", "latency_p50_ms", _ms)
    pair("latency p95", "latency_p95_ms", _ms)
    pair("requests", "requests", lambda v: f"{v:,}")
    pair("errors", "errors", lambda v: f"{v:,}")
    pair("retries", "retries", lambda v: f"{v:,}")
    return rows


def usage_line(rows: list[tuple[str, str, str]]) -> str:
    """All usage rows on one line: ``tokens 1,200 → 1,350 (+12%) · cost ...``."""
    return " · ".join(f"{label} {b} → {c}" for label, b, c in rows)
