"""Decision rules: is a (probe, prompt) pair a regression, an improvement, stable or inconclusive?

* :func:`decide_single` — the documented threshold rule, used when either side has one sample.
* :func:`decide_multi` — used when both sides have two or more samples.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from promptcanary.core.comparator import Side

# Scores are floats built by division; keep a drop of exactly the threshold on the documented side.
_EPS = 1e-9


@dataclass(frozen=True)
class Verdict:
    """The decision for one pair."""

    regression: bool = False
    improvement: bool = False
    inconclusive: bool = False
    inconclusive_reason: str | None = None
    method: str = "threshold"
    p_value: float | None = None
    p_adjusted: float | None = None


def inconclusive_reason(baseline: Side, current: Side) -> str | None:
    """Why a pair cannot be judged (a side exists but every sample errored), else None."""
    for label, side in (("current run", current), ("baseline", baseline)):
        if side.present and side.n == 0:
            first = side.results[0].details
            return f"every {label} sample errored: {first}"
    return None


def decide_single(
    pairs: Sequence[tuple[Side, Side]],
    *,
    regression_threshold: float,
    improvement_threshold: float,
    alpha: float = 0.05,
    min_effect: float = 0.1,
) -> list[Verdict]:
    """The documented rule: a regression is a drop of at least ``regression_threshold`` that ends
    failing; an improvement is a gain of at least ``improvement_threshold`` that ends passing."""
    verdicts = []
    for b, c in pairs:
        reason = inconclusive_reason(b, c)
        if reason:
            verdicts.append(Verdict(inconclusive=True, inconclusive_reason=reason))
            continue
        delta = c.mean - b.mean
        regression = not c.passed and delta <= -regression_threshold + _EPS
        improvement = c.passed and delta >= improvement_threshold - _EPS
        verdicts.append(Verdict(regression=regression, improvement=improvement))
    return verdicts


def decide_multi(
    pairs: Sequence[tuple[Side, Side]],
    *,
    regression_threshold: float,
    improvement_threshold: float,
    alpha: float = 0.05,
    min_effect: float = 0.1,
) -> list[Verdict]:
    """Multi-sample rule (significance + minimum effect). Until implemented, falls back to the
    threshold rule on the sample means."""
    return decide_single(
        pairs,
        regression_threshold=regression_threshold,
        improvement_threshold=improvement_threshold,
    )
