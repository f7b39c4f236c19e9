"""The answer test: validity under no change, power on style shifts, determinism, edge cases."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from promptcanary.core.behaviour import (
    DEFAULT_PERMUTATIONS,
    AnswerTest,
    adjust,
    answer_test,
    flag,
)
from promptcanary.core.behaviour.mmd import EARLY_PERMUTATIONS, EARLY_STOP_P, STAGES
from tests.fakes.simulate import PROMPTS, sample_answers


def test_a_chatty_shift_on_most_answers_is_significant() -> None:
    baseline = sample_answers("capital-france", 30, seed=1)
    current = sample_answers("capital-france", 10, seed=2, share=0.7)
    result = answer_test(baseline, current, permutations=500)
    assert result.testable
    assert result.p_value <= 0.01
    assert 0.2 < result.effect <= 1.0
    assert result.n_baseline == 30 and result.n_current == 10


def test_fresh_paraphrases_are_not_significant() -> None:
    baseline = sample_answers("photosynthesis", 30, seed=1)
    current = sample_answers("photosynthesis", 10, seed=2)
    result = answer_test(baseline, current, permutations=500)
    assert result.p_value > 0.05


def test_same_seed_same_result_and_seed_matters() -> None:
    baseline = sample_answers("summary", 30, seed=3)
    current = sample_answers("summary", 10, seed=4, share=0.3)
    first = answer_test(baseline, current, permutations=300, seed=7)
    assert answer_test(baseline, current, permutations=300, seed=7) == first
    others = {answer_test(baseline, current, permutations=300, seed=s).p_value for s in range(5)}
    assert len(others) > 1


@pytest.mark.parametrize(
    ("baseline", "current"),
    [
        (["only one"], ["a", "b"]),
        (["a", "b"], ["only one"]),
        ([], []),
        (["Same answer."] * 5, ["same   ANSWER."] * 3),
    ],
)
def test_untestable_inputs_give_p_one(baseline: list[str], current: list[str]) -> None:
    result = answer_test(baseline, current)
    assert result == AnswerTest(
        p_value=1.0,
        statistic=0.0,
        effect=0.0,
        n_baseline=len(baseline),
        n_current=len(current),
        testable=False,
        min_p_value=1.0,
        permutations=0,
    )


def test_adjust_is_the_probe_verdicts_correction() -> None:
    tests = [
        answer_test(sample_answers(p, 30, seed=1), sample_answers(p, 10, seed=2, share=s))
        for p, s in (("capital-france", 0.9), ("hamlet", 0.0), ("recursion", 0.0))
    ]
    adjusted = adjust(tests)
    assert len(adjusted) == 3
    assert adjusted[0] <= 0.05
    assert all(a >= t.p_value - 1e-12 for a, t in zip(adjusted, tests))  # up to float rounding


def test_simulated_prompts_cover_a_suite() -> None:
    assert len(PROMPTS) == 20


def test_p_values_are_uniform_under_no_change() -> None:
    # 200 trials over the simulated prompts, fresh samples on both sides: a valid test rejects
    # at 0.05 in about 5 % of them (binomial band: 2 SE ≈ 3.1 points) and at 0.2 in about 20 %.
    # Prompts whose answers are all one group after near-duplicate grouping (one-word answers
    # in four spellings) are untestable (p = 1): they are left out of the shares.
    names = sorted(PROMPTS)
    p_values = []
    for trial in range(200):
        prompt = names[trial % len(names)]
        baseline = sample_answers(prompt, 30, seed=2 * trial)
        current = sample_answers(prompt, 10, seed=2 * trial + 1)
        result = answer_test(baseline, current, permutations=200, seed=trial)
        if result.testable:
            p_values.append(result.p_value)
    assert len(p_values) >= 150
    at_05 = sum(p <= 0.05 for p in p_values) / len(p_values)
    at_20 = sum(p <= 0.2 for p in p_values) / len(p_values)
    assert 0.01 <= at_05 <= 0.09
    assert 0.12 <= at_20 <= 0.28


def test_power_on_the_issue_s_chatty_shift() -> None:
    names = sorted(PROMPTS)
    hits = 0
    for trial in range(40):
        prompt = names[trial % len(names)]
        baseline = sample_answers(prompt, 30, seed=2 * trial)
        current = sample_answers(prompt, 10, seed=2 * trial + 1, share=0.7)
        hits += answer_test(baseline, current, seed=trial).p_value <= 0.0025
    assert hits >= 36


def test_early_stop_uses_fewer_permutations_only_for_large_p_values() -> None:
    baseline = sample_answers("recursion", 30, seed=11)
    quiet = answer_test(baseline, sample_answers("recursion", 10, seed=12), seed=1)
    loud = answer_test(baseline, sample_answers("recursion", 10, seed=12, share=1.0), seed=1)
    if quiet.p_value > EARLY_STOP_P:
        assert quiet.permutations == EARLY_PERMUTATIONS
    assert loud.permutations == DEFAULT_PERMUTATIONS
    assert loud.p_value == pytest.approx(1 / (DEFAULT_PERMUTATIONS + 1))


def test_long_answers_cost_no_more_than_their_edges() -> None:
    # Only the first 1,500 and last 500 characters are featurised: a change in the middle of a
    # very long answer is invisible, one at its start is not.
    middle = " ".join(f"word{i}" for i in range(5000))
    baseline = [f"Intro {i % 3}. {middle} Outro." for i in range(12)]
    hidden = [f"Intro {i % 3}. {middle[:20000]} CHANGED {middle[20000:]} Outro." for i in range(6)]
    shown = [f"Sure! Great question. Intro {i % 3}. {middle} Outro." for i in range(6)]
    assert answer_test(baseline, hidden, permutations=200).p_value > 0.05
    assert answer_test(baseline, shown, permutations=200).p_value < 0.01


@given(
    baseline=st.lists(st.text(max_size=60), min_size=0, max_size=6),
    current=st.lists(st.text(max_size=60), min_size=0, max_size=6),
)
@settings(max_examples=40, deadline=None)
def test_any_text_gives_a_well_formed_result(baseline: list[str], current: list[str]) -> None:
    result = answer_test(baseline, current, permutations=50)
    assert 0 < result.p_value <= 1
    assert result.min_p_value <= result.p_value or not result.testable
    assert 0 <= result.effect <= 1
    assert result.statistic >= 0
    if len(baseline) < 2 or len(current) < 2:
        assert not result.testable


def test_swapping_sides_keeps_the_statistic() -> None:
    a = sample_answers("haiku", 8, seed=1)
    b = sample_answers("haiku", 8, seed=2, share=0.5)
    assert answer_test(a, b).statistic == pytest.approx(answer_test(b, a).statistic)


def test_flag_needs_significance_and_effect() -> None:
    loud = AnswerTest(0.001, 0.5, 0.6, 30, 10, True, 0.001, 1000)
    faint = AnswerTest(0.001, 0.01, 0.1, 30, 10, True, 0.001, 1000)
    noise = AnswerTest(0.6, 0.01, 0.05, 30, 10, True, 0.001, 1000)
    untestable = AnswerTest(1.0, 0.0, 0.0, 1, 10, False, 1.0, 0)
    assert flag([loud, faint, noise, untestable]) == [True, False, False, False]
    assert flag([loud, faint], min_effect=0.05) == [True, True]


def test_many_permutations_only_for_prompts_that_look_changed() -> None:
    baseline = sample_answers("summary", 30, seed=21)
    loud = answer_test(
        baseline, sample_answers("summary", 10, seed=22, share=1.0), permutations=20_000
    )
    assert loud.permutations == 20_000
    assert loud.p_value == pytest.approx(1 / 20_001)
    quiet = answer_test(baseline, sample_answers("summary", 10, seed=22), permutations=20_000)
    assert quiet.permutations in {STAGES[0][0], STAGES[1][0]} or quiet.p_value <= STAGES[1][1]


def test_every_json_kind_can_be_featurised() -> None:
    pure = '{"name": "Ada", "age": 36}'
    answers = [pure, f"```json\n{pure}\n```", f"Here it is: {pure} Enjoy.", "No JSON."]
    result = answer_test(answers * 3, answers[::-1] * 3, permutations=100)
    assert result.testable
    assert result.p_value > 0.05


def test_holm_is_stricter_than_bh_and_skips_untestable_prompts() -> None:
    tests = [
        AnswerTest(p, 0.1, 0.5, 30, 10, True, 0.001, 1000) for p in (0.001, 0.008, 0.012, 0.5)
    ] + [AnswerTest(1.0, 0.0, 0.0, 1, 10, False, 1.0, 0)]
    holm = adjust(tests, method="holm")
    assert holm == pytest.approx([0.004, 0.024, 0.024, 0.5, 1.0])
    assert flag(tests, method="holm") == [True, True, True, False, False]
    assert all(h >= b for h, b in zip(holm, adjust(tests)))
    with pytest.raises(ValueError, match="holm"):
        adjust(tests, method="bonferroni")  # type: ignore[arg-type]


def test_repeated_answers_are_featurised_once_and_give_the_same_rows() -> None:
    # featurise computes each distinct text once and repeats its row: exact only because a row
    # depends on its own text alone. Every block, to the bit, against featurising every answer.
    import numpy as np

    from promptcanary.core.behaviour.features import _featurise, featurise

    texts = [*sample_answers("summary", 6, seed=3), "", "```py\n  x = 1\n```", '{"a": [1, 2]}']
    answers = [texts[i % len(texts)] for i in (0, 3, 3, 1, 0, 8, 7, 7, 2, 6, 0, 5, 4, 8)]
    for each, once in zip(_featurise(answers), featurise(answers)):
        assert each.dtype == once.dtype and np.array_equal(each, once)
