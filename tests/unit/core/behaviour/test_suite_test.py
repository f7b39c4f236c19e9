"""Near-duplicate grouping, the novelty view, the pooled test and the alpha-split decision."""

from __future__ import annotations

import numpy as np
import pytest

from promptcanary.core.behaviour import (
    TAU,
    AnswerTest,
    PooledTest,
    PromptAnswers,
    answer_test,
    decide,
    holm,
    leader_groups,
    pooled_test,
    prompt_seed,
    suite_test,
)
from promptcanary.core.behaviour.space import AnswerSpace, assignments
from tests.fakes.simulate import PROMPTS, canonical, late_variants, sample_answers, session_answers


def _test(p: float, effect: float = 0.5, min_p: float = 0.001) -> AnswerTest:
    return AnswerTest(p, 0.1, effect, 30, 12, True, min_p, 1000)


def test_leaders_attract_similar_answers_without_chaining() -> None:
    # a ~ b and b ~ c, but a and c are not similar: c must not join a through b.
    kernel = np.array([[1.0, 0.9, 0.5], [0.9, 1.0, 0.9], [0.5, 0.9, 1.0]])
    assert leader_groups(kernel, [5, 3, 1], ["a", "b", "c"], tau=0.85) == [0, 0, 2]
    # The most frequent answer leads; ties are broken by text, never by side.
    assert leader_groups(kernel, [1, 3, 5], ["a", "b", "c"], tau=0.85) == [0, 2, 2]
    assert leader_groups(kernel, [2, 2, 2], ["b", "a", "c"], tau=0.85) == [1, 1, 1]
    assert leader_groups(kernel, [2, 2, 2], ["b", "a", "c"], tau=1.01) == [0, 1, 2]


def test_an_answer_joins_its_most_similar_leader() -> None:
    kernel = np.array([[1.0, 0.2, 0.86], [0.2, 1.0, 0.95], [0.86, 0.95, 1.0]])
    assert leader_groups(kernel, [4, 3, 1], ["x", "y", "z"], tau=0.85) == [0, 1, 1]


def test_late_variants_of_a_temperature_0_answer_are_one_group_with_it() -> None:
    for pid in ("summary", "photosynthesis", "reset-password"):
        base = [canonical(pid)] * 27 + late_variants(pid)[:3]
        current = [canonical(pid)] * 9 + late_variants(pid)[3:6]
        result = answer_test(base, current)
        assert not result.testable or result.p_value > 0.05, pid
        assert result.novel == 0, pid


def test_a_chatty_answer_is_novel_and_a_baseline_answer_is_not() -> None:
    baseline = sample_answers("capital-japan", 30, seed=1)
    chatty = sample_answers("capital-japan", 12, seed=2, share=1.0)
    result = answer_test(baseline, chatty)
    assert result.novel == 12
    assert not result.known_shift
    again = answer_test(baseline, baseline[:12])
    assert again.novel == 0
    assert again.known_shift


def test_the_same_seed_and_shape_give_the_same_splits_and_prefixes_agree() -> None:
    a = assignments(30, 12, 600, 7)
    assert a.shape == (600, 42)
    assert np.array_equal(a[:200], assignments(30, 12, 200, 7))
    assert not np.array_equal(a[:200], assignments(30, 12, 200, 8))
    # Every row is a split: 30 baseline answers, 12 current.
    assert ((a > 0).sum(axis=1) == 30).all()


def test_prompt_seeds_are_stable_and_differ() -> None:
    assert prompt_seed("abc") == prompt_seed("abc")
    assert len({prompt_seed(p) for p in PROMPTS}) == len(PROMPTS)


def test_holm_counts_untested_prompts_with_p_one() -> None:
    tests = [_test(0.001), None, _test(0.02), None]
    assert holm(tests, level=0.05) == pytest.approx([0.004, 1.0, 0.06, 1.0])
    # Only the tested family: smaller m, smaller adjusted p-values.
    assert holm([_test(0.001), _test(0.02)], level=0.05) == pytest.approx([0.002, 0.02])
    # A prompt that cannot reach the level whatever the split is left out.
    assert holm([_test(0.001), _test(0.5, min_p=0.2)], level=0.05) == pytest.approx([0.001, 1.0])


def _pooled(p: float) -> PooledTest:
    return PooledTest(p, 0.1, 20, 60, 3, 1.0, 400, True)


def test_the_alpha_split_gives_holm_the_full_level_once_the_pooled_test_rejected() -> None:
    tests = [_test(0.002), _test(0.04), None, None, None]
    quiet = decide(tests, _pooled(0.5), alpha=0.05)
    assert not quiet.pooled_changed
    assert quiet.holm_level == 0.025
    # Holm: 5 × 0.002 = 0.01 <= 0.025 → named; reported as the alpha it needs: 2 × 0.01.
    assert quiet.flagged == [True, False, False, False, False]
    assert quiet.adjusted[0] == pytest.approx(0.02)
    loud = decide(tests, _pooled(0.01), alpha=0.05)
    assert loud.pooled_changed and loud.holm_level == 0.05
    assert loud.adjusted[0] == pytest.approx(0.02)  # max(2 × 0.01, 0.01)
    assert loud.flagged == [True, False, False, False, False]
    # Between the levels: Holm's 0.03 is named only after the pooled test rejected.
    middle = [_test(0.006), None, None, None, None]
    assert decide(middle, _pooled(0.5)).flagged[0] is False
    assert decide(middle, _pooled(0.02)).flagged[0] is True


def test_a_small_effect_is_never_named() -> None:
    decision = decide([_test(0.0001, effect=0.05)], _pooled(0.001), alpha=0.05)
    assert decision.flagged == [False]


def test_the_pooled_test_sees_a_thin_change_on_every_prompt() -> None:
    # One answer per prompt, every one of them turned chatty: no prompt alone can say so,
    # all of them together can.
    strata = []
    for pid in PROMPTS:
        baseline = sample_answers(pid, 30, seed=1)
        current = sample_answers(pid, 1, seed=2, share=1.0)
        prepared = AnswerSpace([*baseline, *current]).prepare(baseline, current)
        assert prepared is not None
        strata.append((prepared, prompt_seed(pid)))
    result = pooled_test(strata)
    assert result.testable
    assert result.p_value <= 0.01
    assert result.novel == len(PROMPTS)
    assert result.answers == len(PROMPTS)


def test_the_pooled_test_is_quiet_under_no_change() -> None:
    rejections = 0
    for run in range(20):
        items = [
            PromptAnswers(
                pid,
                sample_answers(pid, 30, seed=100 + run),
                sample_answers(pid, 3, seed=200 + run),
                None,
            )
            for pid in PROMPTS
        ]
        result = suite_test(items)
        assert result.decision.pooled is not None
        rejections += result.decision.pooled_changed
        assert not any(result.decision.flagged)  # nothing was tested
    assert rejections <= 3  # alpha / 2 = 2.5 % per run


def test_suite_test_tests_only_the_given_prompts_and_keeps_the_rest_in_the_count() -> None:
    items = []
    for pid in PROMPTS:
        baseline = sample_answers(pid, 30, seed=5)
        share = 0.9 if pid == "capital-france" else 0.0
        answers = sample_answers(pid, 12, seed=6, share=share)
        tested = answers if pid in ("capital-france", "hamlet") else None
        items.append(PromptAnswers(pid, baseline, answers[:3], tested))
    result = suite_test(items)
    named = {p for p, hit in zip(result.prompt_ids, result.decision.flagged) if hit}
    assert named == {"capital-france"}
    assert sum(t is None for t in result.tests) == len(PROMPTS) - 2


def test_sessions_of_a_temperature_0_model_raise_no_flag() -> None:
    flags = 0
    for run in range(10):
        items = []
        for pid in PROMPTS:
            baseline = session_answers(pid, 30, session=run, seed=run)
            current = session_answers(pid, 12, session=100 + run, seed=run)
            items.append(PromptAnswers(pid, baseline, current, current))
        decision = suite_test(items).decision
        flags += decision.pooled_changed or any(decision.flagged)
    assert flags <= 1
    assert TAU < 1


def test_batched_featurising_gives_the_same_kernels_as_one_prompt_at_a_time() -> None:
    sets = [sample_answers(p, 12, seed=4) for p in ("summary", "haiku", "reverse-string")]
    for batched, answers in zip(AnswerSpace.many(sets), sets):
        alone = AnswerSpace(answers)
        assert batched.texts == alone.texts
        assert all(np.allclose(a, b) for a, b in zip(batched.kernels, alone.kernels))


def test_code_that_lost_its_indentation_is_never_a_near_duplicate() -> None:
    code = "Here it is:\n```python\ndef f(x):\n    return x + 1\n```"
    flat = " ".join(code.split())
    space = AnswerSpace([code, flat])
    assert space.similarity([0, 1])[0, 1] == 0.0
    assert space.similarity([0, 0])[0, 1] == pytest.approx(1.0)
    result = answer_test([code] * 30, [flat] * 12)
    assert result.testable and result.novel == 12 and result.p_value < 0.01


def test_case_spacing_and_punctuation_make_no_new_answer() -> None:
    space = AnswerSpace(["391", "391.", " 391 !"])
    assert (space.similarity([0, 1, 2]) == 1.0).all()


def test_a_long_answer_that_grows_in_the_middle_is_longer_to_the_shape_view() -> None:
    from promptcanary.core.behaviour.features import featurise

    middle = " ".join(f"word{i}" for i in range(800))
    short = f"Intro. {middle} Outro."
    long = f"Intro. {middle} {middle} Outro."
    shape = featurise([short, long])[3]
    assert float(shape[0] @ shape[1]) < 1.0  # the length bucket moved


def test_a_long_answer_half_as_long_again_is_never_a_near_duplicate() -> None:
    middle = " ".join(f"word{i}" for i in range(800))
    short, long = f"Intro. {middle} Outro.", f"Intro. {middle} {middle} Outro."
    assert AnswerSpace([short, long]).similarity([0, 1])[0, 1] == 0.0
    result = answer_test([short] * 30, [long] * 12)
    assert result.testable and result.novel == 12 and result.p_value < 0.01
