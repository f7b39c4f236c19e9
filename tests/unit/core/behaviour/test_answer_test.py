"""The answer test: validity under no change, power on style shifts, determinism, edge cases."""

from __future__ import annotations

import pytest

from promptcanary.core.behaviour import AnswerTest, adjust, answer_test
from promptcanary.core.behaviour.simulate import PROMPTS, sample_answers


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
    assert all(a >= t.p_value for a, t in zip(adjusted, tests))


def test_simulated_prompts_cover_a_suite() -> None:
    assert len(PROMPTS) == 20
