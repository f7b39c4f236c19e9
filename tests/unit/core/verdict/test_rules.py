"""Decision rules pair by pair: the documented threshold rule and the multi-sample rule."""

from __future__ import annotations

import random
import warnings

import pytest

from promptcanary.core.models import ProbeCategory, ProbeComparison, ProbeResult
from promptcanary.core.models.drift import FISHER, MANN_WHITNEY, THRESHOLD
from promptcanary.core.render.wording import evidence, format_p, method_label
from promptcanary.core.verdict import stats
from promptcanary.core.verdict.pairs import Side
from promptcanary.core.verdict.rules import (
    THIN_BASELINE,
    THIN_CURRENT,
    Verdict,
    choose_test,
    decide_multi,
    decide_single,
)

THRESHOLDS = {"regression_threshold": 0.05, "improvement_threshold": 0.05}


def result(passed: bool, score: float | None = None, *, errored: bool = False, sample: int = 0):
    return ProbeResult(
        probe_id="p",
        probe_name="P",
        category=ProbeCategory.FORMAT,
        prompt_id="q",
        passed=passed,
        score=(1.0 if passed else 0.0) if score is None else score,
        details="errored" if errored else "",
        errored=errored,
        sample=sample,
    )


def side(passes: int, n: int, *, errored: int = 0) -> Side:
    """n measured pass/fail samples (passes of them passing) plus errored ones."""
    results = [result(i < passes, sample=i) for i in range(n)]
    results += [result(False, errored=True, sample=n + i) for i in range(errored)]
    return Side(results)


def scored(*scores: float, threshold: float = 0.5) -> Side:
    return Side([result(s >= threshold, s, sample=i) for i, s in enumerate(scores)])


def multi(*pairs: tuple[Side, Side], alpha: float = 0.05, min_effect: float = 0.1) -> list[Verdict]:
    return decide_multi(list(pairs), alpha=alpha, min_effect=min_effect, **THRESHOLDS)


# ── The documented single-sample rule ────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("b", "c", "regression", "improvement"),
    [
        ((True, 1.0), (False, 0.0), True, False),  # pass -> fail
        ((False, 0.5), (False, 0.45), True, False),  # fail -> fail, dropped exactly 0.05
        ((False, 0.5), (False, 0.46), False, False),  # dropped less than the threshold
        ((True, 1.0), (True, 0.6), False, False),  # still passing: never a regression
        ((False, 0.0), (True, 1.0), False, True),  # fail -> pass
        ((True, 0.9), (True, 0.95), False, True),  # pass -> pass, gained exactly 0.05
        ((False, 0.2), (False, 0.9), False, False),  # still failing: never an improvement
    ],
)
def test_single_sample_rule(
    b: tuple[bool, float], c: tuple[bool, float], regression: bool, improvement: bool
) -> None:
    (verdict,) = decide_single([(Side([result(*b)]), Side([result(*c)]))], **THRESHOLDS)
    assert (verdict.regression, verdict.improvement) == (regression, improvement)
    assert verdict.method == THRESHOLD and verdict.p_value is None


@pytest.mark.parametrize(
    ("b", "c", "regression", "improvement"),
    [
        ((False, 0.3), (False, 0.3), False, False),  # unchanged and failing: nothing moved
        ((True, 1.0), (True, 1.0), False, False),  # unchanged and passing: nothing moved
        ((False, 0.0), (False, 0.0), False, False),  # failing at 0 on both sides
        ((False, 0.3), (False, 0.29), True, False),  # any real drop counts at threshold 0
        ((True, 0.9), (True, 0.91), False, True),  # any real gain counts at threshold 0
    ],
)
def test_threshold_zero_needs_a_move(
    b: tuple[bool, float], c: tuple[bool, float], regression: bool, improvement: bool
) -> None:
    pair = (Side([result(*b)]), Side([result(*c)]))
    (verdict,) = decide_single([pair], regression_threshold=0.0, improvement_threshold=0.0)
    assert (verdict.regression, verdict.improvement) == (regression, improvement)


def test_a_new_prompt_failing_at_zero_is_no_regression_at_threshold_zero() -> None:
    # A missing baseline side counts as score 0 and failed: a new prompt that fails at 0 did
    # not drop.
    (verdict,) = decide_single(
        [(Side(), Side([result(False, 0.0)]))], regression_threshold=0.0, improvement_threshold=0
    )
    assert not verdict.regression


def test_min_effect_zero_never_flags_an_unchanged_tested_pair() -> None:
    verdicts = decide_multi(
        [(side(9, 10), side(9, 10)), (side(0, 10), side(0, 10)), (side(10, 10), side(10, 10))],
        regression_threshold=0.0,
        improvement_threshold=0.0,
        alpha=0.999,  # even a level that every moved pair would reach
        min_effect=0.0,
    )
    assert not any(v.regression or v.improvement or v.inconclusive for v in verdicts)


def test_single_sample_rule_errored_side_is_inconclusive() -> None:
    (verdict,) = decide_single([(side(1, 1), side(0, 0, errored=1))], **THRESHOLDS)
    assert verdict.inconclusive and not verdict.regression
    assert "every current run sample errored" in (verdict.inconclusive_reason or "")


def test_decide_multi_on_single_samples_is_exactly_the_documented_rule() -> None:
    rng = random.Random(8)
    pairs = []
    for _ in range(300):
        sides = []
        for _ in range(2):
            score = rng.choice([0.0, 0.3, 0.5, 0.55, 0.95, 1.0])
            sides.append(Side([result(score >= 0.5, score)]) if rng.random() > 0.05 else Side())
        pairs.append((sides[0], sides[1]))
    assert multi(*pairs) == decide_single(pairs, **THRESHOLDS)


# ── The multi-sample rule ────────────────────────────────────────────────────────────────────


def test_clear_drop_is_a_significant_regression() -> None:
    (verdict,) = multi((side(9, 10), side(3, 10)))
    assert verdict.regression and not verdict.improvement
    assert verdict.method == FISHER
    assert verdict.p_value == pytest.approx(2 * stats.fisher_p(9, 10, 3, 10))  # two-sided
    assert verdict.p_adjusted == pytest.approx(verdict.p_value)  # one pair: nothing to adjust


def test_clear_gain_is_an_improvement() -> None:
    (verdict,) = multi((side(3, 10), side(9, 10)))
    assert verdict.improvement and not verdict.regression
    assert verdict.p_value == pytest.approx(2 * stats.fisher_p(3, 10, 9, 10, direction="gain"))


def test_unchanged_pair_has_p_one() -> None:
    (verdict,) = multi((side(9, 10), side(9, 10)))
    assert verdict == Verdict(method=FISHER, p_value=1.0, p_adjusted=1.0)


def test_large_drop_without_significance_is_not_a_regression() -> None:
    # 2/2 -> 0/2 is a 100 % drop in pass rate but p = 1/6: two samples cannot show it.
    (verdict,) = multi((side(2, 2), side(0, 2)))
    assert verdict.p_value == pytest.approx(2 / 6)
    assert not verdict.regression


def test_significant_but_small_drop_is_not_a_regression() -> None:
    # 400/400 -> 364/400: p is tiny, but the pass rate only fell 0.09 < min_effect 0.1.
    (verdict,) = multi((side(400, 400), side(364, 400)))
    assert verdict.p_adjusted is not None and verdict.p_adjusted < 1e-6
    assert not verdict.regression
    (verdict,) = multi((side(400, 400), side(364, 400)), min_effect=0.05)
    assert verdict.regression


def test_pairs_that_cannot_reach_significance_do_not_dilute_the_correction() -> None:
    drop = (side(9, 10), side(3, 10))
    nulls = [(side(9, 10), side(9, 10)) for _ in range(20)]
    verdicts = multi(drop, *nulls)
    # 18 passes of 20 can never give p below C(10,2) / C(20,2) = 0.237: the 20 unchanged pairs
    # are untestable, so the drop is corrected for itself alone (plain Benjamini-Hochberg would
    # multiply its p = 0.0099 by 21 and miss it).
    assert verdicts[0].regression
    assert verdicts[0].p_adjusted == pytest.approx(verdicts[0].p_value)
    assert stats.bh_adjust([v.p_value or 1.0 for v in verdicts])[0] > 0.05
    assert all(v.p_value == 1.0 and v.p_adjusted == 1.0 for v in verdicts[1:])
    assert not any(v.regression or v.improvement for v in verdicts[1:])


def test_benjamini_hochberg_over_the_testable_pairs() -> None:
    # Flaky unchanged pairs (5/10 vs 5/10) can reach tiny p-values: they stay in the count.
    drop = (side(10, 10), side(3, 10))
    nulls = [(side(5, 10), side(5, 10)) for _ in range(9)]
    verdicts = multi(drop, *nulls)
    raw = [v.p_value if v.p_value is not None else 1.0 for v in verdicts]
    assert [v.p_adjusted for v in verdicts] == pytest.approx(stats.bh_adjust(raw))
    assert verdicts[0].p_adjusted == pytest.approx(raw[0] * 10)  # smallest of 10 testable pairs


def test_untestable_pairs_do_not_raise_the_bar_for_the_others() -> None:
    # 10/10 -> 9/10 can never give p < 0.5 (19 passes of 20): it cannot be flagged and does not
    # count in the correction. A 10/10 -> 5/10 drop next to 30 such pairs is judged as if alone.
    drop = (side(10, 10), side(5, 10))
    untestable = [(side(10, 10), side(9, 10)) for _ in range(30)]
    verdicts = multi(drop, *untestable)
    assert verdicts[0].p_adjusted == pytest.approx(verdicts[0].p_value)
    assert verdicts[0].regression
    assert all(v.p_adjusted == 1.0 and not v.regression for v in verdicts[1:])
    # Plain Benjamini–Hochberg over all 31 pairs would have missed it.
    raw = [v.p_value if v.p_value is not None else 1.0 for v in verdicts]
    assert stats.bh_adjust(raw)[0] > 0.05


def test_many_real_drops_with_few_samples_are_all_found() -> None:
    # 5 samples a side: the smallest attainable p is 1 / C(10, 5) = 0.004. With hundreds of such
    # pairs, Tarone's alpha / K would fall below it and nothing would be testable; the filter at
    # alpha keeps them and Benjamini–Hochberg flags every collapse.
    drops = [(side(5, 5), side(0, 5)) for _ in range(300)]
    stable = [(side(5, 5), side(5, 5)) for _ in range(700)]
    verdicts = multi(*drops, *stable)
    assert sum(v.regression for v in verdicts[:300]) == 300
    assert not any(v.regression for v in verdicts[300:])


def test_several_real_drops_survive_the_correction() -> None:
    drops = [(side(10, 10), side(2, 10)) for _ in range(3)]
    nulls = [(side(9, 10), side(9, 10)) for _ in range(17)]
    verdicts = multi(*drops, *nulls)
    assert [v.regression for v in verdicts] == [True] * 3 + [False] * 17


def test_scores_shifting_within_passes_use_mann_whitney() -> None:
    baseline = scored(1.0, 0.95, 1.0, 0.9, 1.0, 0.95, 1.0, 0.9)
    current = scored(0.6, 0.7, 0.65, 0.6, 0.7, 0.55, 0.6, 0.65)  # still all passing
    test = choose_test(baseline, current)
    assert test.method == MANN_WHITNEY
    assert test.effect == pytest.approx(0.33125)  # the drop in mean score
    (verdict,) = multi((baseline, current))
    assert verdict.method == MANN_WHITNEY and verdict.regression
    assert verdict.p_value == pytest.approx(
        2 * stats.mann_whitney_p(baseline.scores, current.scores)
    )


def test_pass_fail_probes_use_fisher_even_though_mean_moved_as_much() -> None:
    test = choose_test(side(9, 10), side(3, 10))
    assert test.method == FISHER and test.effect == pytest.approx(0.6)


def test_larger_pass_rate_move_picks_fisher_over_scores() -> None:
    # Scores straddle the pass mark: the pass rate falls 1.0 -> 0.0, the mean only 0.1.
    baseline = scored(0.55, 0.55, 0.55, 0.55)
    current = scored(0.45, 0.45, 0.45, 0.45)
    assert choose_test(baseline, current).method == FISHER


def test_identical_constant_samples_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        verdicts = multi(
            (scored(0.7, 0.7, 0.7), scored(0.7, 0.7, 0.7)),
            (side(5, 5), side(5, 5)),
            (side(0, 5), side(0, 5)),
        )
    assert all(v.p_value == 1.0 and v.p_adjusted == 1.0 for v in verdicts)
    assert not any(v.regression or v.improvement for v in verdicts)


def test_one_sample_on_both_sides_uses_the_threshold_rule() -> None:
    (verdict,) = multi((side(1, 1), side(0, 1)))
    assert verdict.method == THRESHOLD and verdict.p_value is None
    assert verdict.regression  # mean 1.0 -> 0.0 and failing


def test_one_sample_against_many_is_tested_and_a_flip_is_not_enough_evidence() -> None:
    # 10/10 -> 0/1: Fisher's one-sided p is 1/11, 0.18 two-sided: it can never be significant.
    failed, passed = multi((side(10, 10), side(0, 1)), (side(27, 30), side(1, 1)))
    assert failed.method == FISHER and failed.p_value == pytest.approx(2 / 11)
    assert not failed.regression and failed.inconclusive
    assert failed.inconclusive_reason == THIN_CURRENT
    assert not passed.inconclusive and not passed.improvement  # the sides agree: stable
    # The mirror: a single-sample baseline against a sampled run.
    (thin,) = multi((side(1, 1), side(0, 10)))
    assert thin.inconclusive and thin.inconclusive_reason == THIN_BASELINE


def test_one_sample_against_a_large_baseline_can_still_be_significant() -> None:
    # 50/50 -> 0/1: one-sided p = 1/51, 0.039 two-sided: significant at 0.05 on its own.
    (verdict,) = multi((side(50, 50), side(0, 1)))
    assert verdict.regression and verdict.p_adjusted == pytest.approx(2 / 51)


def test_a_small_move_against_one_sample_is_stable() -> None:
    # Graded scores: 0.95 -> 0.9, both passing, moved less than min_effect.
    (verdict,) = multi((scored(0.95, 0.95, 0.95), scored(0.9)))
    assert not verdict.inconclusive and not verdict.regression


def test_few_samples_that_cannot_reach_significance_are_not_enough_evidence() -> None:
    # 3/3 -> 0/3: one-sided p = 1/20, 0.1 two-sided, and no split of these six samples could
    # go lower: the pair is left out of the correction. Not stable either: the sides disagree.
    drop, gain = multi((side(3, 3), side(0, 3)), (side(0, 3), side(3, 3)))
    assert drop.p_value == pytest.approx(2 / 20) and drop.p_adjusted == 1.0
    for verdict in (drop, gain):
        assert verdict.inconclusive and not verdict.regression and not verdict.improvement
        assert verdict.inconclusive_reason == (
            "not enough evidence: 3 baseline and 3 current samples cannot show a significant "
            "change — compare with more samples (samples: auto, or --samples 5 or more)"
        )
    # The smallest --samples advised is the first that could show it: 3/3 -> 0/5 is significant.
    (five,) = multi((side(3, 3), side(0, 5)))
    assert five.regression


def test_the_advised_sample_count_is_this_baselines() -> None:
    # 22/30 -> 0/3: two-sided p 0.06 is the best three samples can do against this baseline
    # (a 30/30 one would need three); four all failing would show it.
    (three,) = multi((side(22, 30), side(0, 3)))
    assert three.inconclusive and three.p_value == pytest.approx(0.0605, abs=1e-4)
    assert three.inconclusive_reason is not None
    assert three.inconclusive_reason.startswith("not enough evidence: 30 baseline and 3 current")
    assert three.inconclusive_reason.endswith("(samples: auto, or --samples 4 or more)")
    (four,) = multi((side(22, 30), side(0, 4)))
    assert four.regression


def test_few_samples_whose_sides_agree_are_stable() -> None:
    agree, graded = multi((side(3, 3), side(2, 3)), (scored(0.9, 0.9, 0.9), scored(0.4, 0.95, 0.4)))
    assert not agree.inconclusive and not agree.regression  # still passing by majority
    # Graded scores, majority flipped (3/3 -> 1/3 passing): Fisher's floor and Mann-Whitney's
    # over these six scores are both above alpha, so the same holds.
    small = graded
    assert small.inconclusive and small.inconclusive_reason is not None
    assert small.inconclusive_reason.startswith("not enough evidence: 3 baseline and 3 current")


def test_a_pair_that_could_have_shown_a_change_and_did_not_is_stable() -> None:
    # 6/10 -> 4/10 flipped the majority and moved 0.2, but 20 samples can reach significance
    # (floor far below alpha): the test had its chance, the pair is stable, not undecided.
    (verdict,) = multi((side(6, 10), side(4, 10)))
    assert verdict.p_adjusted is not None and verdict.p_adjusted > 0.05
    assert not verdict.inconclusive and not verdict.regression


def test_the_advice_falls_back_to_a_richer_baseline_when_no_sample_count_would_do() -> None:
    (verdict,) = multi((side(2, 2), side(0, 3)), alpha=1e-6)
    assert verdict.inconclusive_reason == (
        "not enough evidence: 2 baseline and 3 current samples cannot show a significant "
        "change — record the baseline again with more samples (promptcanary run --save-baseline)"
    )


def test_missing_side_is_scored_as_failure() -> None:
    # The prompt is gone from the current run: documented as a failure, so a regression.
    removed, added = multi((side(5, 5), Side()), (Side(), side(5, 5)))
    assert removed.regression and removed.method == THRESHOLD
    assert added.improvement


def test_errored_samples_are_left_out_and_fully_errored_side_is_inconclusive() -> None:
    partly, fully = multi(
        (side(9, 10, errored=3), side(3, 10, errored=2)),
        (side(9, 10), side(0, 0, errored=10)),
    )
    assert partly.regression
    assert partly.p_value == pytest.approx(2 * stats.fisher_p(9, 10, 3, 10))
    assert fully.inconclusive and not fully.regression and fully.p_value is None
    # Errors thinning a side to one sample: tested, and one sample is not enough evidence.
    (thin,) = multi((side(10, 10), side(0, 1, errored=9)))
    assert thin.method == FISHER and thin.inconclusive and not thin.regression


def test_inconclusive_pairs_take_no_part_in_the_correction() -> None:
    verdicts = multi((side(9, 10), side(3, 10)), (side(9, 10), side(0, 0, errored=10)))
    assert verdicts[0].p_adjusted == pytest.approx(verdicts[0].p_value)


# ── Report wording ───────────────────────────────────────────────────────────────────────────


def comparison(**overrides: object) -> ProbeComparison:
    fields: dict[str, object] = {
        "probe_id": "json_validity",
        "probe_name": "JSON validity",
        "category": ProbeCategory.FORMAT,
        "prompt_id": "q",
        "baseline_score": 0.9,
        "current_score": 0.3,
        "score_delta": -0.6,
        "baseline_passed": True,
        "current_passed": False,
        "regression": True,
        "improvement": False,
        "baseline_samples": 10,
        "current_samples": 10,
        "baseline_pass_count": 9,
        "current_pass_count": 3,
        "method": FISHER,
        "p_value": 0.0099,
        "p_adjusted": 0.0031,
    }
    fields.update(overrides)
    return ProbeComparison(**fields)  # type: ignore[arg-type]


def test_evidence_wording() -> None:
    assert evidence(comparison()) == "9/10 → 3/10, p = 0.003 (adjusted)"
    assert evidence(comparison(p_adjusted=0.0002)) == "9/10 → 3/10, p < 0.001 (adjusted)"
    assert (
        evidence(comparison(method=MANN_WHITNEY, current_pass_count=9))
        == "9/10 → 9/10, mean 0.90 → 0.30, p = 0.003 (adjusted)"
    )
    single = comparison(method=THRESHOLD, p_value=None, p_adjusted=None, baseline_score=1.0)
    assert evidence(single) == "score 1.00 → 0.30 (single sample)"


def test_format_p_and_method_labels() -> None:
    assert format_p(0.0495) == "p = 0.050"
    assert format_p(1.0) == "p = 1.000"
    assert format_p(0.00099) == "p < 0.001"
    assert "Fisher" in method_label(FISHER)
    assert "Mann–Whitney" in method_label(MANN_WHITNEY)
    assert "single-sample" in method_label(THRESHOLD)
    assert method_label("custom") == "custom"


# ── Tarone-BH: minimum attainable p-values and error rates ───────────────────────────────────


def test_min_p_depends_only_on_the_pooled_samples() -> None:
    rng = random.Random(12)
    for _ in range(30):
        pooled = [rng.choice([0.0, 0.3, 0.6, 0.8, 1.0]) for _ in range(8)]
        floors = set()
        for _ in range(6):
            rng.shuffle(pooled)
            test = choose_test(scored(*pooled[:4]), scored(*pooled[4:]))
            floors.add(test.min_p())
            assert test.min_p() <= test.p_value() + 1e-12
        assert len(floors) == 1


def test_min_p_of_pass_fail_pairs_is_fishers_and_of_scores_also_mann_whitneys() -> None:
    plain = choose_test(side(9, 10), side(3, 10))
    assert plain.pooled_scores == ()
    assert plain.min_p() == pytest.approx(stats.fisher_min_p(12, 10, 10))
    # All passing, scores spread: Fisher cannot move (floor 1), Mann-Whitney can.
    graded = choose_test(scored(0.9, 0.8, 0.7), scored(0.6, 0.55, 0.95))
    assert stats.fisher_min_p(6, 3, 3) == 1.0
    assert graded.min_p() == pytest.approx(1 / 20)


# Cached sides: the simulations below reuse one Side per (passes, samples).
_SIDES: dict[tuple[int, int], Side] = {}


def cached_side(passes: int, n: int) -> Side:
    return _SIDES.setdefault((passes, n), side(passes, n))


def simulate(
    base_rates: list[float], cur_rates: list[float], *, samples: int, reps: int, seed: int
) -> list[tuple[list[Verdict], list[float]]]:
    """Per repetition: the verdicts, and the pass-rate drop of every pair."""
    rng = random.Random(seed)
    out = []
    for _ in range(reps):
        pairs, drops = [], []
        for pb, pc in zip(base_rates, cur_rates):
            b = sum(rng.random() < pb for _ in range(samples))
            c = sum(rng.random() < pc for _ in range(samples))
            pairs.append((cached_side(b, samples), cached_side(c, samples)))
            drops.append((b - c) / samples)
        out.append((multi(*pairs), drops))
    return out


def test_false_alarms_stay_below_alpha_when_nothing_changed() -> None:
    # Unchanged pairs from always-passing to coin-flip prompts: the flaky ones are testable.
    rates = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0] * 4
    runs = simulate(rates, rates, samples=10, reps=400, seed=21)
    false_alarms = sum(any(v.regression for v in verdicts) for verdicts, _ in runs) / len(runs)
    assert false_alarms <= 0.05 - 0.01  # 2.75 % measured here; the target is alpha = 5 %


def test_false_discovery_rate_with_real_drops_stays_below_alpha() -> None:
    changed = set(range(8))
    base = [0.9] * 8 + [0.5, 0.7, 0.9] * 4
    cur = [0.4] * 8 + [0.5, 0.7, 0.9] * 4
    runs = simulate(base, cur, samples=10, reps=300, seed=22)
    proportions = []
    for verdicts, _ in runs:
        flagged = {i for i, v in enumerate(verdicts) if v.regression}
        proportions.append(len(flagged - changed) / len(flagged) if flagged else 0.0)
    fdr = sum(proportions) / len(proportions)
    assert fdr <= 0.05 - 0.02  # 0.8 % measured here
    # ... while the real drops are found (78 % of repetitions here, two-sided; 90 % one-sided):
    assert sum(any(v.regression for v in verdicts) for verdicts, _ in runs) > 0.7 * len(runs)


def test_any_flag_counting_improvements_stays_below_alpha_when_nothing_changed() -> None:
    # Improvements count as false alarms too: the test direction is read from the data, so the
    # two-sided p-value (doubled) keeps "any flag" below alpha (2.7 % here); one-sided, the same
    # runs raise a flag 6.7 % of the time.
    rates = [0.5] * 10
    runs = simulate(rates, rates, samples=60, reps=300, seed=23)
    flagged = sum(any(v.regression or v.improvement for v in verdicts) for verdicts, _ in runs)
    assert flagged / len(runs) <= 0.05


def test_detection_improves_on_plain_benjamini_hochberg() -> None:
    # The benchmark's scenario, small: 3 of 20 prompts fall from 0.9 to 0.5, 10 samples.
    base = [0.9] * 20
    cur = [0.5] * 3 + [0.9] * 17
    runs = simulate(base, cur, samples=10, reps=200, seed=23)
    tarone = plain = 0
    for verdicts, drops in runs:
        tarone += any(v.regression for v in verdicts[:3])
        adjusted = stats.bh_adjust([v.p_value or 1.0 for v in verdicts])
        plain += any(a <= 0.05 and d >= 0.1 - 1e-9 for a, d in zip(adjusted[:3], drops[:3]))
    assert tarone >= plain + 0.3 * len(runs)  # measured: 66 % against 17.5 %
