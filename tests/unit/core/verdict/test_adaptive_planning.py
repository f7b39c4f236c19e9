"""plan for samples: auto — exact figures, checked against the policy functions themselves."""

from __future__ import annotations

import random

import pytest

from promptcanary.core.comparator import Side
from promptcanary.core.models import ProbeCategory, ProbeResult
from promptcanary.core.verdict import adaptive
from promptcanary.core.verdict.adaptive import AdaptivePolicy
from promptcanary.core.verdict.planning import describe, plan, plan_adaptive
from promptcanary.core.verdict.power import adaptive_outcome

POLICY = AdaptivePolicy(cap=20)


def draws(rng: random.Random, rate: float, n: int, offset: int = 0) -> list[ProbeResult]:
    return [
        ProbeResult(
            probe_id="x",
            probe_name="x",
            category=ProbeCategory.FORMAT,
            prompt_id="p",
            passed=(ok := rng.random() < rate),
            score=1.0 if ok else 0.0,
            sample=offset + i,
        )
        for i in range(n)
    ]


def simulate(base: float, cur: float, reps: int, seed: int) -> tuple[float, float]:
    """(flag rate, mean requests) of one pair, through select/confirm/decide."""
    rng = random.Random(seed)
    flagged = requests = 0
    for _ in range(reps):
        b, s = Side(draws(rng, base, 30)), Side(draws(rng, cur, POLICY.screening))
        chosen = adaptive.select_pairs({("x", "p"): b}, {("x", "p"): s}, POLICY)
        requests += POLICY.screening
        if not chosen:
            continue
        ref = adaptive.reference_side(b, s)

        def draw(ids: list[str], count: int, offset: int) -> tuple[list[ProbeResult], None]:
            return draws(rng, cur, count, offset), None

        got, drawn, _ = adaptive.confirm(chosen, {("x", "p"): ref}, draw, POLICY)
        requests += drawn["p"]
        (verdict,) = adaptive.decide_confirmed(
            [(ref, Side(got), chosen[0])], alpha=0.05, min_effect=0.1
        )
        flagged += verdict.regression
    return flagged / reps, requests / reps


def test_exact_outcome_matches_the_policy_functions() -> None:
    reps = 3000
    exact = adaptive_outcome(
        baseline_rate=0.9, current_rate=0.5, baseline_samples=30, policy=POLICY
    )
    rate, requests = simulate(0.9, 0.5, reps, seed=3)
    se = (exact.flagged * (1 - exact.flagged) / reps) ** 0.5
    assert abs(rate - exact.flagged) < 4 * se
    assert requests == pytest.approx(exact.requests, rel=0.05)


def test_healthy_pair_costs_and_false_alarms() -> None:
    healthy = adaptive_outcome(
        baseline_rate=0.9, current_rate=0.9, baseline_samples=30, policy=AdaptivePolicy()
    )
    # 27 % of healthy 90 % prompts show a failure in 3 screening samples and get confirmed.
    assert healthy.selected == pytest.approx(1 - 0.9**3, abs=0.01)
    assert 6.5 < healthy.requests < 8.0  # the benchmark measures 7.24
    assert healthy.flagged + healthy.improvement < 0.01


def test_plan_adaptive_reports_detection_and_requests() -> None:
    small = plan_adaptive(0.4, baseline_rate=0.9, prompts=20, pairs=20)
    large = plan_adaptive(0.6, baseline_rate=0.9, prompts=20, pairs=20)
    assert small.baseline_samples == 30 and small.screening == 3 and small.cap == 50
    assert 0 < small.planned_alpha < 0.05  # the correction over expected confirmed pairs
    assert small.detection < large.detection
    assert small.healthy_requests == pytest.approx(large.healthy_requests)
    text = "\n".join(small.lines())
    assert "samples: auto (recommended)" in text and "Requests per check for 20 prompts" in text
    assert "If 3 pairs drop like this" in text


def test_plan_text_is_the_lines() -> None:
    result = plan(0.4)
    assert describe(result) == "\n".join(result.lines())
