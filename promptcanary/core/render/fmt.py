"""Number and label formatting shared by every report format (plain text, not yet escaped)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from promptcanary.core.models import (
    DriftSeverity,
    ProbeComparison,
    ProviderConfig,
    SuiteChange,
    UsageSummary,
)
from promptcanary.core.render import wording

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
#: The same for pairs that were measured but too thinly to judge (not enough evidence).
UNDECIDED_WORDS = "too few samples to judge — not evidence of drift"


def plural(n: int, word: str, words: str | None = None) -> str:
    """``1 regression`` / ``2 regressions`` (with thousands separators)."""
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


def score(value: float) -> str:
    """A 0..1 score with two decimals."""
    return f"{value:.2f}"


def delta(value: float) -> str:
    """A signed score change with a real minus sign; ``±0.00`` for no change."""
    if abs(value) < 0.005:
        return "±0.00"
    return f"+{value:.2f}" if value > 0 else f"−{abs(value):.2f}"


method_label = wording.method_label


def evidence(c: ProbeComparison, *, method: bool = True) -> str:
    """What the verdict rests on: ``9/10 → 3/10, p = 0.003 (adjusted), Fisher``.

    The wording is :func:`promptcanary.core.render.wording.evidence`; ``method``
    adds the test's short name for tested pairs.
    """
    text = wording.evidence(c)
    short = wording.METHOD_SHORT.get(c.method)
    return f"{text}, {short}" if method and short and c.p_adjusted is not None else text


def flaky_note(c: ProbeComparison) -> str:
    """Why a pair is marked flaky: its baseline pass rate."""
    return (
        f"baseline passed {c.baseline_pass_count}/{c.baseline_samples} ({c.baseline_pass_rate:.0%})"
    )


def pct_change(before: float, after: float) -> str:
    """``+12%`` style relative change; empty when equal or not meaningful."""
    if before == 0 or before == after:
        return ""
    change = (after - before) / before
    if abs(change) < 0.005:
        return "±0%"
    sign = "+" if change > 0 else "−"
    return f"{sign}{abs(change):.0%}"


def _ms(value: float) -> str:
    return f"{value:,.0f} ms"


def _usd(value: float) -> str:
    return f"${value:,.4f}" if value < 1 else f"${value:,.2f}"


def usd(value: float) -> str:
    """An amount with the precision it needs: cents from $1 up (``$1,234.56``), two significant
    digits below (``$0.41``, ``$0.0021``: never ``$0.00`` for a cost that is not nothing)."""
    if value <= 0:
        return "$0"
    if value >= 1:
        return f"${value:,.2f}"
    decimals = max(2, min(12, 1 - math.floor(math.log10(value))))
    return f"${value:.{decimals}f}"


#: (label, UsageSummary attribute, formatter) in display order.
_USAGE_FIELDS: tuple[tuple[str, str, Callable[[Any], str]], ...] = (
    ("tokens", "total_tokens", lambda v: f"{v:,}"),
    ("cost", "cost_usd", _usd),
    ("latency p50", "latency_p50_ms", _ms),
    ("latency p95", "latency_p95_ms", _ms),
    ("requests", "requests", lambda v: f"{v:,}"),
    ("errors", "errors", lambda v: f"{v:,}"),
    ("retries", "retries", lambda v: f"{v:,}"),
)


def usage_rows(
    baseline: UsageSummary | None, current: UsageSummary | None
) -> list[tuple[str, str, str, str]]:
    """(label, baseline, current, change) for every figure either run recorded."""
    rows: list[tuple[str, str, str, str]] = []
    for label, attr, show in _USAGE_FIELDS:
        b = getattr(baseline, attr) if baseline is not None else None
        c = getattr(current, attr) if current is not None else None
        b_text, c_text = _shown(baseline, b, attr, show), _shown(current, c, attr, show)
        if (b_text == c_text == "—") or (attr == "total_tokens" and not b and not c):
            continue
        change = pct_change(float(b), float(c)) if b is not None and c is not None else ""
        rows.append((label, b_text, c_text, change))
    return rows


def _shown(usage: UsageSummary | None, value: Any, attr: str, show: Callable[[Any], str]) -> str:
    if value is not None:
        return show(value)
    # Answers were paid for at a price nobody knows: say so rather than leave the cost out.
    if (
        attr in ("cost_usd", "cost_per_request")
        and usage is not None
        and usage.requests > usage.errors
    ):
        return "unknown"
    return "—"


def provider_notes(provider: ProviderConfig | None, usage: UsageSummary | None) -> list[str]:
    """What a report says once about how the model was called: a seed (or another sampling
    parameter) it does not accept, and a cost nobody can know."""
    if provider is None:
        return []
    notes = []
    for name in provider.unsupported_params:
        if name == "seed":
            notes.append(f"no seed sent: {provider.model_id} cannot be seeded")
        else:
            notes.append(f"{name} not sent: {provider.model_id} does not accept it")
    if usage is not None and usage.cost_usd is None and usage.requests > usage.errors:
        if usage.total_tokens or usage.prompt_tokens or usage.completion_tokens:
            notes.append(f"no price known for {provider.model_id} (set price: in canary.yaml)")
        else:
            # A price needs tokens to multiply: recorded answers (the try-it's) and servers
            # that report no usage carry none, whatever the model's price.
            notes.append("cost unknown: the answers came without token counts")
    return notes


def _per_request_usd(value: float) -> str:
    """Three significant digits, never in scientific notation: ``$0.0000123``."""
    if value <= 0:
        return "$0"
    if value >= 0.01:
        return _usd(value)
    decimals = min(12, 2 - math.floor(math.log10(value)))
    return f"${value:.{decimals}f}"


def _per_request_tokens(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"


#: Figures of a drift report's usage line: per request where the totals would scale with the
#: number of requests, then how many requests each side made (counts, no percentage).
_PER_REQUEST_FIELDS: tuple[tuple[str, str, Callable[[Any], str], bool], ...] = (
    ("tokens/request", "tokens_per_request", _per_request_tokens, True),
    ("cost/request", "cost_per_request", _per_request_usd, True),
    ("latency p50", "latency_p50_ms", _ms, True),
    ("latency p95", "latency_p95_ms", _ms, True),
    ("requests", "requests", lambda v: f"{v:,}", False),
    ("errors", "errors", lambda v: f"{v:,}", False),
    ("retries", "retries", lambda v: f"{v:,}", False),
)


def _per_thousand_usd(value: float) -> str:
    return usd(value * 1000)


def usage_card_rows(
    baseline: UsageSummary | None, current: UsageSummary | None
) -> list[tuple[str, str, str, str]]:
    """:func:`usage_comparison_rows` for the HTML report's cards, a few characters wide: the cost
    per 1,000 requests with the digits it needs (``$0.31``), not per request (``$0.000307``,
    which a card cut to ``$0.00000…``)."""
    rows = usage_comparison_rows(baseline, current)
    if not any(row[0] == "cost/request" for row in rows):
        return rows
    (cost,) = usage_comparison_rows(baseline, current, fields=_COST_PER_THOUSAND)
    return [cost if row[0] == "cost/request" else row for row in rows]


def usage_comparison_rows(
    baseline: UsageSummary | None,
    current: UsageSummary | None,
    *,
    fields: tuple[tuple[str, str, Callable[[Any], str], bool], ...] | None = None,
) -> list[tuple[str, str, str, str]]:
    """(label, baseline, current, change) comparing two runs' usage like with like.

    Tokens and cost per answered request, latency percentiles (already per request), then the
    requests, errors and retries each side made, without a percentage: a 30-sample baseline
    makes ten times the requests of a 3-sample check, and that is not a change of the model.
    """
    rows: list[tuple[str, str, str, str]] = []
    for label, attr, show, relative in fields or _PER_REQUEST_FIELDS:
        b = getattr(baseline, attr) if baseline is not None else None
        c = getattr(current, attr) if current is not None else None
        b_text, c_text = _shown(baseline, b, attr, show), _shown(current, c, attr, show)
        if (b_text == c_text == "—") or (attr == "tokens_per_request" and not b and not c):
            continue
        if b_text == c_text == "unknown":
            continue  # the report's note says once that no price is known, and how to set one
        change = (
            pct_change(float(b), float(c)) if relative and b is not None and c is not None else ""
        )
        rows.append((label, b_text, c_text, change))
    return rows


_COST_PER_THOUSAND: tuple[tuple[str, str, Callable[[Any], str], bool], ...] = (
    ("cost/1k requests", "cost_per_request", _per_thousand_usd, True),
)


def usage_items(rows: list[tuple[str, str, str, str]]) -> list[str]:
    """Each usage row as one item: ``tokens 1,200 → 1,350 (+12%)``."""
    return [
        f"{label} {b} → {c}" + (f" ({change})" if change else "") for label, b, c, change in rows
    ]


def stable_text(counts: dict[str, int]) -> str:
    """``18 pairs unchanged: 15 passing on both sides, 3 failing on both sides``."""
    total, passing, failing = counts["stable"], counts["stable_passing"], counts["stable_failing"]
    parts = [f"{passing:,} passing on both sides"] if passing else []
    if failing:
        parts.append(f"{failing:,} failing on both sides")
    if total - passing - failing:
        parts.append(f"{total - passing - failing:,} within noise")
    text = f"{plural(total, 'pair')} unchanged"
    return text + (": " + ", ".join(parts) if parts and total else "")


def _renamed(text: str, previous_id: str | None, detail: str | None) -> str:
    """``text``, then ``(was ID)`` for a renamed item, then ``: detail``."""
    if previous_id:
        text += f" (was {previous_id})"
    return text + (f": {detail}" if detail else "")


def suite_change_text(c: SuiteChange) -> str:
    """One plain line for a suite change: ``prompt 1a2b3c4d added: "text" · 2 pairs``."""
    if c.what == "prompt" and c.kind == "edited" and not c.previous_prompt_id:
        # Edited in place (same id): the text says which fields changed.
        text = f"prompt {c.prompt_id} edited" + (f": {c.text}" if c.text else "")
    elif c.what == "prompt":
        text = _renamed(
            f"prompt {c.prompt_id} {c.kind}", c.previous_prompt_id, c.text and repr(c.text)
        )
    elif c.kind == "edited":
        # An edited probe changed everywhere it runs; its text says which parameters.
        text = _renamed(f"probe {c.probe_id} edited", c.previous_probe_id, c.text)
    else:
        where = f"on prompt {c.prompt_id}" if c.prompt_id else "on every prompt"
        text = f"probe {c.probe_id} {c.kind} {where}"
    return f"{text} · {plural(c.pairs, 'pair')}"
