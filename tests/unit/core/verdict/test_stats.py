"""The statistics behind multi-sample verdicts: checked against scipy's own implementations."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

from promptcanary.core.verdict import power, stats
from promptcanary.errors import ConfigError
from tests.unit.core.verdict.scipy_ref import sp

# ── Fisher ───────────────────────────────────────────────────────────────────────────────────


def test_fisher_matches_scipy_fisher_exact_on_every_small_table() -> None:
    for b_n in range(1, 7):
        for c_n in range(1, 7):
            for b_pass in range(b_n + 1):
                for c_pass in range(c_n + 1):
                    table = [[b_pass, b_n - b_pass], [c_pass, c_n - c_pass]]
                    drop = sp.fisher_exact(table, alternative="greater").pvalue
                    gain = sp.fisher_exact(table, alternative="less").pvalue
                    assert stats.fisher_p(b_pass, b_n, c_pass, c_n) == pytest.approx(drop)
                    assert stats.fisher_p(
                        b_pass, b_n, c_pass, c_n, direction="gain"
                    ) == pytest.approx(gain)


def test_fisher_headline_example() -> None:
    # The docs' example: 9/10 passing before, 3/10 now.
    assert stats.fisher_p(9, 10, 3, 10) == pytest.approx(0.009883, abs=1e-6)
    assert stats.fisher_p(9, 10, 3, 10, direction="gain") > 0.99


@pytest.mark.parametrize(
    ("b_pass", "b_n", "c_pass", "c_n"),
    [(5, 5, 5, 5), (0, 5, 0, 5), (3, 4, 3, 4)],
)
def test_fisher_no_difference_is_not_evidence(b_pass: int, b_n: int, c_pass: int, c_n: int) -> None:
    assert stats.fisher_p(b_pass, b_n, c_pass, c_n) > 0.5
    if b_pass in (0, b_n):  # constant on both sides: nothing can differ
        assert stats.fisher_p(b_pass, b_n, c_pass, c_n) == 1.0


def test_fisher_empty_side_and_bad_counts() -> None:
    assert stats.fisher_p(0, 0, 3, 5) == 1.0
    assert stats.fisher_p(3, 5, 0, 0) == 1.0
    with pytest.raises(ValueError, match="out of range"):
        stats.fisher_p(6, 5, 0, 5)


# ── Mann–Whitney ─────────────────────────────────────────────────────────────────────────────


def test_mann_whitney_matches_scipy_permutation_on_tied_small_samples() -> None:
    rng = random.Random(3)
    exact = sp.PermutationMethod(n_resamples=np.inf)
    for _ in range(40):
        b = [rng.choice([0.0, 0.25, 0.5, 1.0]) for _ in range(rng.randint(2, 6))]
        c = [rng.choice([0.0, 0.25, 0.5, 1.0]) for _ in range(rng.randint(2, 6))]
        if len(set(b + c)) == 1:
            continue
        for direction, alternative in (("drop", "greater"), ("gain", "less")):
            expected = sp.mannwhitneyu(b, c, alternative=alternative, method=exact).pvalue
            got = stats.mann_whitney_p(b, c, direction=direction)  # type: ignore[arg-type]
            assert got == pytest.approx(expected, abs=1e-12)


def test_mann_whitney_matches_scipy_exact_without_ties() -> None:
    rng = random.Random(4)
    for _ in range(30):
        b = [rng.random() for _ in range(rng.randint(2, 8))]
        c = [rng.random() for _ in range(rng.randint(2, 8))]
        expected = sp.mannwhitneyu(b, c, alternative="greater", method="exact").pvalue
        assert stats.mann_whitney_p(b, c) == pytest.approx(expected, abs=1e-12)


def test_mann_whitney_large_samples_use_scipy_asymptotic() -> None:
    rng = random.Random(5)
    b = [rng.random() for _ in range(40)]
    c = [rng.random() - 0.2 for _ in range(40)]
    expected = sp.mannwhitneyu(b, c, alternative="greater", method="asymptotic").pvalue
    assert stats.mann_whitney_p(b, c) == pytest.approx(expected)
    assert stats.mann_whitney_p(b, c) < 0.05


def test_mann_whitney_small_tied_sample_is_not_anti_conservative() -> None:
    # Three 1.0 against three 0.5: the exact p-value is 1 / C(6, 3) = 0.05. scipy's default normal
    # approximation says 0.023, which would be a false alarm at alpha 0.05.
    assert stats.mann_whitney_p([1.0] * 3, [0.5] * 3) == pytest.approx(0.05)


def test_mann_whitney_degenerate_samples_give_one_without_warnings() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert stats.mann_whitney_p([0.7] * 5, [0.7] * 5) == 1.0
        assert stats.mann_whitney_p([1.0] * 5, [1.0] * 5, direction="gain") == 1.0
        assert stats.mann_whitney_p([], [0.5, 0.6]) == 1.0
        assert stats.mann_whitney_p([0.5] * 30, [0.5] * 31) == 1.0


def test_mann_whitney_direction() -> None:
    high, low = [0.9, 0.95, 1.0, 0.85], [0.2, 0.3, 0.25, 0.1]
    assert stats.mann_whitney_p(high, low) == pytest.approx(1 / 70)
    assert stats.mann_whitney_p(high, low, direction="gain") == 1.0


# ── Benjamini–Hochberg ───────────────────────────────────────────────────────────────────────


def test_bh_adjust_matches_scipy_and_keeps_order() -> None:
    raw = [0.01, 0.04, 0.03, 0.5, 1.0, 0.001]
    expected = sp.false_discovery_control(raw, method="bh")
    assert stats.bh_adjust(raw) == pytest.approx(list(expected))
    assert stats.bh_adjust([]) == []
    assert stats.bh_adjust([0.2]) == [0.2]


def test_bh_adjust_single_low_p_diluted_by_many_nulls() -> None:
    adjusted = stats.bh_adjust([0.0099] + [1.0] * 20)
    assert adjusted[0] == pytest.approx(0.0099 * 21)


# ── Power and sample size ────────────────────────────────────────────────────────────────────


def test_fisher_power_agrees_with_simulation() -> None:
    n, p0, p1 = 12, 0.9, 0.5
    exact = power.fisher_power(n, baseline_rate=p0, effect=p0 - p1)
    rng = np.random.default_rng(11)
    sims = 20_000
    b = rng.binomial(n, p0, sims)
    c = rng.binomial(n, p1, sims)
    pvals = sp.hypergeom.sf(b - 1, 2 * n, b + c, n)
    simulated = float(np.mean((pvals <= 0.05) & ((b - c) >= 0.1 * n - 1e-9)))
    assert exact == pytest.approx(simulated, abs=0.015)
    assert 0.3 < exact < 0.9


def test_fisher_power_needs_two_samples_and_grows_with_samples() -> None:
    assert power.fisher_power(1, baseline_rate=0.9, effect=0.4) == 0.0
    powers = [power.fisher_power(n, baseline_rate=0.9, effect=0.4) for n in (5, 15, 30, 60)]
    assert powers == sorted(powers)
    assert powers[-1] > 0.99


@pytest.mark.parametrize(("effect", "rate"), [(0.3, 0.9), (0.4, 0.9), (0.5, 1.0), (0.2, 0.6)])
def test_samples_needed_is_where_power_first_reaches_target(effect: float, rate: float) -> None:
    n, achieved = power.samples_needed(effect, baseline_rate=rate, power=0.9)
    assert achieved >= 0.9
    assert achieved == power.fisher_power(n, baseline_rate=rate, effect=effect)
    assert power.fisher_power(n - 1, baseline_rate=rate, effect=effect) < 0.9


def test_samples_needed_headline_numbers() -> None:
    assert power.samples_needed(0.3)[0] == 47
    assert power.samples_needed(0.4)[0] == 30
    # A lower alpha (e.g. alpha / pairs) needs more samples.
    assert power.samples_needed(0.4, alpha=0.0025)[0] > 30


def test_samples_needed_small_effect_uses_strides_and_still_checks_exactly() -> None:
    n, achieved = power.samples_needed(0.15, baseline_rate=0.9, min_effect=0.05, power=0.8)
    assert achieved >= 0.8
    assert n > 80  # beyond the 1-step scan: the stride walk-back found it


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"effect": 0.1}, "effect"),  # == min_effect: never reliably reported
        ({"effect": 0.95}, "effect"),  # larger than the baseline rate
        ({"effect": 0.3, "baseline_rate": 0.0}, "baseline_rate"),
        ({"effect": 0.3, "alpha": 1.0}, "alpha"),
        ({"effect": 0.3, "power": 1.0}, "power"),
        ({"effect": 0.11, "baseline_rate": 0.5}, "effect"),  # needs far too many samples
    ],
)
def test_samples_needed_rejects_impossible_plans(kwargs: dict[str, float], field: str) -> None:
    with pytest.raises(ConfigError) as info:
        power.samples_needed(**kwargs)  # type: ignore[arg-type]
    assert info.value.field == field


# ── Minimum attainable p-values and Tarone-BH ────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("passes", "b_n", "c_n", "expected"),
    [
        (20, 10, 10, 1.0),  # nothing failed: no split differs from any other
        (19, 10, 10, 0.5),  # the one failure is on either side, half the time each
        (18, 10, 10, 45 / 190),  # both failures in the current run: C(10,2) / C(20,2)
        (14, 10, 10, 210 / 38760),  # all six failures in the current run: C(10,6) / C(20,6)
        (10, 10, 10, 1 / 184756),  # 10/10 -> 0/10: one table in C(20,10)
    ],
)
def test_fisher_min_p_by_hand(passes: int, b_n: int, c_n: int, expected: float) -> None:
    assert stats.fisher_min_p(passes, b_n, c_n) == pytest.approx(expected, rel=1e-9)


def test_fisher_min_p_directions_with_unequal_sides() -> None:
    # 5 passes over 5 + 2 samples. Extreme drop: baseline 5/5, current 0/2 -> 1 / C(7,5) = 1/21.
    # Extreme gain: baseline 3/5, current 2/2 -> C(5,3) * C(2,2) / C(7,5) = 10/21.
    assert stats.fisher_min_p(5, 5, 2, direction="drop") == pytest.approx(1 / 21)
    assert stats.fisher_min_p(5, 5, 2, direction="gain") == pytest.approx(10 / 21)
    assert stats.fisher_min_p(5, 5, 2) == pytest.approx(1 / 21)
    assert stats.fisher_min_p(3, 0, 5) == 1.0
    with pytest.raises(ValueError, match="out of range"):
        stats.fisher_min_p(8, 5, 2)


def test_fisher_min_p_is_the_floor_of_every_table_with_those_margins() -> None:
    for b_n in range(1, 7):
        for c_n in range(1, 7):
            for passes in range(b_n + c_n + 1):
                splits = [(b, passes - b) for b in range(b_n + 1) if 0 <= passes - b <= c_n]
                for direction in ("drop", "gain"):
                    ps = [stats.fisher_p(b, b_n, c, c_n, direction=direction) for b, c in splits]
                    floor = stats.fisher_min_p(passes, b_n, c_n, direction=direction)
                    assert floor == pytest.approx(min(ps))


@pytest.mark.parametrize(
    ("values", "n_b", "direction", "expected"),
    [
        ([0.2, 0.5, 0.5, 0.9], 2, None, 2 / 6),  # {0.9, either 0.5}: 2 of C(4,2) splits
        ([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], 3, None, 1 / 20),  # no ties: 1 / C(6,3)
        ([0.5, 0.5, 0.5, 1.0, 1.0, 1.0], 3, None, 1 / 20),  # 3 x 1.0 against 3 x 0.5
        ([0, 0, 1, 1, 1], 2, "drop", 3 / 10),  # baseline {1, 1}: C(3,2) of C(5,2)
        ([0, 0, 1, 1, 1], 2, "gain", 1 / 10),  # baseline {0, 0}: 1 of C(5,2)
        ([0, 0, 1, 1, 1], 2, None, 1 / 10),
        ([0.7] * 6, 3, None, 1.0),  # all equal: nothing can differ
    ],
)
def test_mann_whitney_min_p_by_hand(
    values: list[float], n_b: int, direction: stats.Direction | None, expected: float
) -> None:
    assert stats.mann_whitney_min_p(values, n_b, direction=direction) == pytest.approx(expected)


def test_mann_whitney_min_p_is_the_floor_of_every_split() -> None:
    from itertools import combinations

    rng = random.Random(6)
    for _ in range(30):
        pooled = [rng.choice([0.0, 0.25, 0.5, 1.0]) for _ in range(rng.randint(4, 8))]
        n_b = rng.randint(2, len(pooled) - 2)
        for direction in ("drop", "gain"):
            ps = []
            for chosen in combinations(range(len(pooled)), n_b):
                b = [pooled[i] for i in chosen]
                c = [pooled[i] for i in range(len(pooled)) if i not in chosen]
                ps.append(stats.mann_whitney_p(b, c, direction=direction))
            floor = stats.mann_whitney_min_p(pooled, n_b, direction=direction)
            assert floor == pytest.approx(min(ps), abs=1e-12)


def test_mann_whitney_min_p_large_samples_and_edges() -> None:
    rng = random.Random(7)
    pooled = sorted(round(rng.random(), 1) for _ in range(70))  # beyond the exact limit, tied
    top, rest = pooled[40:], pooled[:40]
    assert stats.mann_whitney_min_p(pooled, 30, direction="drop") == pytest.approx(
        stats.mann_whitney_p(top, rest)
    )
    assert stats.mann_whitney_min_p([0.1, 0.2], 0) == 1.0
    with pytest.raises(ValueError, match="out of range"):
        stats.mann_whitney_min_p([0.1, 0.2], 3)


def test_testable_bh_adjust_by_hand() -> None:
    floors = [0.001, 0.004, 0.01, 0.02, 0.03, 0.2, 0.5]
    raw = [0.001, 0.02, 0.012, 0.03, 0.04, 0.3, 0.6]
    # Testable: floors <= alpha, the first five. BH over them with m = 5:
    # sorted 0.001, 0.012, 0.02, 0.03, 0.04 -> x5, x5/2, x5/3, x5/4, x1 -> monotone from the top.
    expected = [0.005, 0.1 / 3, 0.03, 0.0375, 0.04, 1.0, 1.0]
    assert stats.testable_bh_adjust(raw, floors, alpha=0.05) == pytest.approx(expected)
    # Plain BH over all seven is weaker for the same pairs.
    assert stats.bh_adjust(raw)[1] == pytest.approx(0.02 * 7 / 3)
    # Every floor tiny: exactly plain BH.
    assert stats.testable_bh_adjust(raw, [0.0] * 7, alpha=0.05) == pytest.approx(
        stats.bh_adjust(raw)
    )
    # Never weaker than plain BH: whatever plain BH flags at alpha is still flagged.
    for alpha in (0.01, 0.05, 0.2):
        plain = [p <= alpha for p in stats.bh_adjust(raw)]
        filtered = [p <= alpha for p in stats.testable_bh_adjust(raw, floors, alpha=alpha)]
        assert all(f for f, q in zip(filtered, plain) if q)
    assert stats.testable_bh_adjust([], [], alpha=0.05) == []
    with pytest.raises(ValueError, match="same length"):
        stats.testable_bh_adjust([0.1], [], alpha=0.05)
