"""How a verdict reads: method names, p-values and the one-line evidence reports show for a pair."""

from __future__ import annotations

from promptcanary.core.models.drift import (
    FISHER,
    MANN_WHITNEY,
    SCREENING,
    THRESHOLD,
    ProbeComparison,
)

__all__ = ["METHOD_LABELS", "METHOD_SHORT", "evidence", "format_p", "method_label"]

#: Readable names of ``ProbeComparison.method`` values.
METHOD_LABELS = {
    FISHER: "Fisher's exact test (pass counts)",
    MANN_WHITNEY: "Mann–Whitney U (scores)",
    THRESHOLD: "single-sample threshold rule",
    SCREENING: "screening (looked like the baseline, not confirmed)",
}


def method_label(method: str) -> str:
    """Human name of a ``ProbeComparison.method`` value."""
    return METHOD_LABELS.get(method, method)


def format_p(p: float) -> str:
    """``p = 0.003``, or ``p < 0.001`` for very small values."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def evidence(comparison: ProbeComparison) -> str:
    """One line of evidence for a pair, as reports show it.

    Tested pairs: ``9/10 → 3/10, p = 0.003 (adjusted)`` (pass counts, then the
    Benjamini–Hochberg adjusted p-value), with the mean scores added when Mann–Whitney decided.
    Confirmed pairs of an adaptive run: ``baseline 27/30 → screening 1/3 → confirmation 9/30,
    p < 0.001 (adjusted)``. Single-sample pairs: ``score 1.00 → 0.00 (single sample)``.
    """
    c = comparison
    if c.confirmed and c.p_adjusted is not None:
        text = (
            f"baseline {c.baseline_pass_count}/{c.baseline_samples} → "
            f"screening {c.screening_pass_count}/{c.screening_samples} → "
            f"confirmation {c.current_pass_count}/{c.current_samples}"
        )
        if c.method == MANN_WHITNEY:
            text += f", mean {c.baseline_score:.2f} → {c.current_score:.2f}"
        early = ", stopped early" if c.stopped_early else ""
        return f"{text}, {format_p(c.p_adjusted)} (adjusted){early}"
    if c.method == SCREENING:
        return (
            f"baseline {c.baseline_pass_count}/{c.baseline_samples} → "
            f"screening {c.current_pass_count}/{c.current_samples} (not confirmed)"
        )
    if c.method in (FISHER, MANN_WHITNEY) and c.p_adjusted is not None:
        text = (
            f"{c.baseline_pass_count}/{c.baseline_samples} → "
            f"{c.current_pass_count}/{c.current_samples}"
        )
        if c.method == MANN_WHITNEY:
            text += f", mean {c.baseline_score:.2f} → {c.current_score:.2f}"
        return f"{text}, {format_p(c.p_adjusted)} (adjusted)"
    return f"score {c.baseline_score:.2f} → {c.current_score:.2f} (single sample)"


#: Short method names for table cells.
METHOD_SHORT = {FISHER: "Fisher", MANN_WHITNEY: "Mann–Whitney"}
