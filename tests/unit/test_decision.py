"""Decision rules pair by pair: the documented threshold rule and the multi-sample rule."""

from __future__ import annotations

import random
import warnings

import pytest
from scipy import stats as sp

from promptcanary.core import stats
from promptcanary.core.comparator import Side
from promptcanary.core.decision import (
    FISHER,
    MANN_WHITNEY,
    THRESHOLD,
    Verdict,
    choose_test,
    decide_multi,
    decide_single,
    evidence,
    format_p,
    method_label,
)
from promptcanary.core.models import ProbeCategory, ProbeComparison, ProbeResult

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
    assert verdict.p_value == pytest.approx(stats.fisher_p(9, 10, 3, 10))
    assert verdict.p_adjusted == pytest.approx(verdict.p_value)  # one pair: nothing to adjust


def test_clear_gain_is_an_improvement() -> None:
    (verdict,) = multi((side(3, 10), side(9, 10)))
    assert verdict.improvement and not verdict.regression
    assert verdict.p_value == pytest.approx(stats.fisher_p(3, 10, 9, 10, direction="gain"))


def test_unchanged_pair_has_p_one() -> None:
    (verdict,) = multi((side(9, 10), side(9, 10)))
    assert verdict == Verdict(method=FISHER, p_value=1.0, p_adjusted=1.0)


def test_large_drop_without_significance_is_not_a_regression() -> None:
    # 2/2 -> 0/2 is a 100 % drop in pass rate but p = 1/6: two samples cannot show it.
    (verdict,) = multi((side(2, 2), side(0, 2)))
    assert verdict.p_value == pytest.approx(1 / 6)
    assert not verdict.regression


def test_significant_but_small_drop_is_not_a_regression() -> None:
    # 400/400 -> 364/400: p is tiny, but the pass rate only fell 0.09 < min_effect 0.1.
    (verdict,) = multi((side(400, 400), side(364, 400)))
    assert verdict.p_adjusted is not None and verdict.p_adjusted < 1e-6
    assert not verdict.regression
    (verdict,) = multi((side(400, 400), side(364, 400)), min_effect=0.05)
    assert verdict.regression


def test_benjamini_hochberg_over_all_tested_pairs() -> None:
    drop = (side(9, 10), side(3, 10))
    nulls = [(side(9, 10), side(9, 10)) for _ in range(20)]
    verdicts = multi(drop, *nulls)
    raw = [v.p_value for v in verdicts]
    expected = sp.false_discovery_control(raw, method="bh")
    assert [v.p_adjusted for v in verdicts] == pytest.approx(list(expected))
    # Alone the drop is significant (p = 0.0099); among 20 unchanged pairs it is not.
    assert verdicts[0].p_adjusted == pytest.approx(0.0099 * 21, rel=1e-2)
    assert not any(v.regression for v in verdicts)


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
    assert verdict.p_value == pytest.approx(stats.mann_whitney_p(baseline.scores, current.scores))


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


def test_one_sample_on_one_side_falls_back_to_the_threshold_rule() -> None:
    (verdict,) = multi((side(10, 10), side(0, 1)))
    assert verdict.method == THRESHOLD and verdict.p_value is None
    assert verdict.regression  # mean 1.0 -> 0.0 and failing


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
    assert partly.p_value == pytest.approx(stats.fisher_p(9, 10, 3, 10))
    assert fully.inconclusive and not fully.regression and fully.p_value is None
    # Errors thinning a side to one sample: single-sample rule for that pair.
    (thin,) = multi((side(10, 10), side(0, 1, errored=9)))
    assert thin.method == THRESHOLD


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
