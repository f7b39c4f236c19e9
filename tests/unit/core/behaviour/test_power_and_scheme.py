"""detectable_share (what plan can promise) and the adaptive scheme's pieces."""

from __future__ import annotations

import math

import pytest

from promptcanary.core.behaviour import (
    GATE_P,
    answer_test,
    detectable_effect,
    detectable_share,
    gate,
    needs_topup,
    permutations_for,
    screen,
)
from promptcanary.core.behaviour.mmd import MAX_PERMUTATIONS
from promptcanary.core.behaviour.power import POWER
from tests.fakes.simulate import sample_answers


def _power(share: float, needed: int, m: int) -> float:
    return sum(math.comb(m, i) * share**i * (1 - share) ** (m - i) for i in range(needed, m + 1))


def test_detectable_share_is_the_smallest_share_with_enough_power() -> None:
    share = detectable_share(30, 10, alpha=0.05, prompts=20)
    assert share is not None
    # Level 0.0025: all k styled answers in the current 10 of 40 has p = C(10,k)/C(40,k) —
    # k = 3 gives 0.012, k = 4 gives 0.0023, so 4 are needed.
    assert math.comb(10, 4) / math.comb(40, 4) <= 0.0025 < math.comb(10, 3) / math.comb(40, 3)
    assert _power(share, 4, 10) >= POWER > _power(share - 0.01, 4, 10)


def test_detectable_share_grows_with_prompts_and_shrinks_with_samples() -> None:
    one = detectable_share(30, 10, prompts=1)
    many = detectable_share(30, 10, prompts=100)
    more = detectable_share(30, 30, prompts=100)
    assert one is not None and many is not None and more is not None
    assert one < many
    assert more < many


def test_no_share_is_detectable_with_too_few_answers() -> None:
    assert detectable_share(30, 1) is None
    # Level 5e-5 is below 1 / 1001: unreachable with 1,000 permutations, reachable with the
    # count permutations_for gives.
    assert detectable_share(30, 10, prompts=1000, permutations=1000) is None
    assert detectable_share(30, 10, prompts=1000) is not None
    assert detectable_share(2, 2, prompts=100) is None
    assert "cannot flag" in detectable_effect(2, 2, alpha=0.05, prompts=100)
    with pytest.raises(ValueError, match="alpha"):
        detectable_share(30, 10, alpha=1.5)


def test_detectable_effect_sentence() -> None:
    assert detectable_effect(30, 10, alpha=0.05, prompts=20) == (
        f"answer test: a new style in ≥ {round(100 * detectable_share(30, 10, prompts=20))} % "  # type: ignore[operator]
        "of answers (10 vs 30 answers, alpha 0.05 across 20 prompts, 80 % power, best case)"
    )


def test_the_gate_tests_the_screening_against_the_whole_baseline() -> None:
    baseline = sample_answers("summary", 30, seed=3)
    screening = sample_answers("summary", 3, seed=4)
    assert screen(baseline, screening, seed=5) == answer_test(
        baseline, screening, permutations=200, seed=5
    )


def test_a_chatty_screening_answer_opens_the_gate_and_a_known_one_does_not() -> None:
    baseline = sample_answers("capital-france", 30, seed=3)
    known = baseline[:3]
    assert not needs_topup(baseline, known, seed=1)
    chatty = [*baseline[:2], sample_answers("capital-france", 1, seed=9, share=1.0)[0]]
    test = screen(baseline, chatty, seed=1)
    assert test.novel == 1
    assert gate(test)
    assert needs_topup(baseline, chatty, seed=1)


def test_an_untestable_screening_never_opens_the_gate() -> None:
    baseline = ["Paris."] * 30
    assert not needs_topup(baseline, ["Paris."] * 3)
    assert 0 < GATE_P < 1


def test_a_gate_level_below_the_p_value_keeps_a_prompt_without_novel_answers_shut() -> None:
    baseline = sample_answers("hamlet", 30, seed=1)
    screened = screen(baseline, sample_answers("hamlet", 3, seed=2), seed=0)
    assert screened.novel == 0 or gate(screened)
    if screened.novel == 0:
        assert not gate(screened, gate_p=screened.p_value / 2)
        assert gate(screened, gate_p=screened.p_value)


def test_permutations_for_reaches_the_single_prompt_level() -> None:
    assert permutations_for(20) == 1000
    assert permutations_for(1000) == 39_999
    assert 1 / (permutations_for(1000) + 1) <= 0.05 / 1000 / 2


def test_permutations_for_a_tiny_alpha_stops_at_the_ceiling() -> None:
    # alpha = 5e-324 (the smallest float) once overflowed ceil(2 m / alpha) into an internal error.
    assert permutations_for(1, alpha=5e-324) == MAX_PERMUTATIONS
    assert permutations_for(100_000, alpha=0.05) == MAX_PERMUTATIONS
    assert permutations_for(1, alpha=1e-4) == 19_999  # below the ceiling: unchanged
