"""The significance tests behind multi-sample verdicts, in plain Python (no scipy).

* :func:`fisher_p` — one-sided Fisher's exact test on pass counts: the hypergeometric tail as an
  exact ratio of binomial coefficients (the numbers ``scipy.stats.fisher_exact(...,
  alternative=...)`` gives), cached per table: with a handful of samples there are only a few
  dozen distinct tables.
* :func:`mann_whitney_p` — one-sided Mann–Whitney U on score samples. Small samples (up to
  :data:`EXACT_MW_MAX` values in all) get the exact permutation distribution of the rank sum
  *with ties*, computed by counting; larger ones the normal approximation with tie and continuity
  correction (``scipy.stats.mannwhitneyu(..., method="asymptotic")``). Why not the approximation
  everywhere: for tied small samples it is anti-conservative (3 × 1.0 against 3 × 0.5 gives
  p = 0.023, below the smallest exact p-value 1/20 = 0.05). The counting gives the same numbers as
  ``mannwhitneyu(..., method=PermutationMethod())`` — the tests check it.
* :func:`bh_adjust` — Benjamini–Hochberg (``scipy.stats.false_discovery_control``).
* :func:`fisher_min_p` / :func:`mann_whitney_min_p` — the smallest p-value a pair could reach
  given its margins (what both sides pooled hold), and :func:`testable_bh_adjust` — Benjamini–Hochberg
  restricted to the pairs that could reach significance at all (Tarone's trick applied to BH:
  Gilbert 2005, "A modified false discovery rate multiple-comparisons procedure for discrete
  data", Applied Statistics 54:143–158).
* Power and sample-size planning live in :mod:`promptcanary.core.verdict.power` (which still uses
  scipy: planning is not on the path of ``run`` or ``compare``).

Why no scipy here: ``import scipy.stats`` took 2 of the 3 seconds of a quickstart ``compare``; the
tests check every function against scipy's. numpy is imported inside the one function that needs
it (the exact Mann–Whitney table), so pass/fail suites never load it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

#: Which way a one-sided test looks: "drop" = the current run is worse than the baseline.
Direction = Literal["drop", "gain"]

#: Largest total sample count (baseline + current) for the exact Mann–Whitney distribution.
EXACT_MW_MAX = 60


# ── Fisher's exact test ──────────────────────────────────────────────────────────────────────


def fisher_p(
    b_pass: int, b_n: int, c_pass: int, c_n: int, *, direction: Direction = "drop"
) -> float:
    """One-sided Fisher's exact p-value for the pass counts of two sides.

    ``direction="drop"`` tests whether the current pass rate is lower than the baseline's
    (``fisher_exact([[b_pass, b_fail], [c_pass, c_fail]], alternative="greater")``);
    ``"gain"`` tests the opposite. A side without samples gives p = 1.
    """
    if not (0 <= b_pass <= b_n and 0 <= c_pass <= c_n):
        raise ValueError(f"pass counts out of range: {b_pass}/{b_n} vs {c_pass}/{c_n}")
    if b_n == 0 or c_n == 0:
        return 1.0
    return _fisher(b_pass, b_n, c_pass, c_n, direction == "drop")


@lru_cache(maxsize=65536)
def _fisher(b_pass: int, b_n: int, c_pass: int, c_n: int, drop: bool) -> float:
    # Given both margins, the baseline's pass count X is hypergeometric: drawing b_n samples from
    # b_n + c_n of which b_pass + c_pass passed. A drop is a surprisingly large X. The tail is a
    # ratio of integers (binomial coefficients), summed exactly and divided once: the same numbers
    # as scipy's fisher_exact(..., alternative="greater"/"less") without importing scipy.stats
    # (2 s on a loaded machine — most of the CLI's start-up).
    total, passes = b_n + c_n, b_pass + c_pass
    lo, hi = max(0, b_n - (total - passes)), min(b_n, passes)
    xs = range(b_pass, hi + 1) if drop else range(lo, b_pass + 1)
    tail = sum(math.comb(passes, x) * math.comb(total - passes, b_n - x) for x in xs)
    return _clip(tail / math.comb(total, b_n))


# ── Mann–Whitney U ───────────────────────────────────────────────────────────────────────────


def mann_whitney_p(
    baseline: Sequence[float], current: Sequence[float], *, direction: Direction = "drop"
) -> float:
    """One-sided Mann–Whitney U p-value for two score samples.

    ``direction="drop"`` tests whether current scores tend to be lower than the baseline's. An
    empty side, or samples that are all the same value, give p = 1 (nothing differs).
    """
    return _mann_whitney(tuple(sorted(baseline)), tuple(sorted(current)), direction == "drop")


@lru_cache(maxsize=65536)
def _mann_whitney(b: tuple[float, ...], c: tuple[float, ...], drop: bool) -> float:
    if not b or not c:
        return 1.0
    values = b + c
    if min(values) == max(values):
        return 1.0
    if len(values) <= EXACT_MW_MAX:
        ranks = _doubled_midranks(values)
        observed = sum(ranks[: len(b)])
        upper, lower = _rank_sum_tails(tuple(sorted(ranks)), len(b), observed)
        return _clip(upper if drop else lower)
    return _clip(_mann_whitney_normal(b, c, drop))


def _mann_whitney_normal(b: tuple[float, ...], c: tuple[float, ...], drop: bool) -> float:
    """The normal approximation with tie and continuity correction, as
    ``scipy.stats.mannwhitneyu(b, c, alternative="greater"/"less", method="asymptotic")``.

    U counts the (baseline, current) pairs the baseline wins ("greater": the baseline's scores are
    stochastically larger, i.e. the current run dropped); "less" looks at the other side's U.
    """
    n_b, n_c = len(b), len(c)
    values = b + c
    n = n_b + n_c
    doubled = _doubled_midranks(values)
    u_b = sum(doubled[:n_b]) / 2 - n_b * (n_b + 1) / 2
    u = u_b if drop else n_b * n_c - u_b
    ties = sum(t**3 - t for t in Counter(values).values())
    sigma = math.sqrt(n_b * n_c / 12 * ((n + 1) - ties / (n * (n - 1))))
    if sigma == 0:
        return 1.0
    z = (u - n_b * n_c / 2 - 0.5) / sigma
    return 0.5 * math.erfc(z / math.sqrt(2))  # the upper tail, accurate far out


def _doubled_midranks(values: Sequence[float]) -> list[int]:
    """Midranks (1-based, ties share their average rank), doubled so they are integers."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        doubled = (i + 1) + (j + 1)  # twice the average of ranks i+1 .. j+1
        for k in range(i, j + 1):
            ranks[order[k]] = doubled
        i = j + 1
    return ranks


def _rank_sum_tails(ranks: tuple[int, ...], n_b: int, observed: int) -> tuple[float, float]:
    """P(R >= observed) and P(R <= observed) for the sum R of n_b ranks drawn without replacement."""
    counts = _rank_sum_distribution(ranks, n_b)
    total = math.comb(len(ranks), n_b)
    upper = float(counts[observed:].sum()) / total
    lower = float(counts[: observed + 1].sum()) / total
    return upper, lower


@lru_cache(maxsize=4096)
def _rank_sum_distribution(ranks: tuple[int, ...], n_b: int) -> NDArray[np.float64]:
    """How many n_b-subsets of ``ranks`` have each possible sum (index = sum).

    Depends only on the tie pattern, so a few cached tables serve many pairs.
    """
    import numpy as np

    top = sum(ranks)
    # ways[k, s]: subsets of the ranks seen so far with k members summing to s. Counts stay below
    # C(60, 30) ≈ 1.2e17, exact in float64 up to 2**53 ≈ 9e15; the rare larger totals lose only
    # relative precision ~1e-16, far below anything a p-value needs.
    ways = np.zeros((n_b + 1, top + 1))
    ways[0, 0] = 1.0
    for r in ranks:
        ways[1:, r:] = ways[1:, r:] + ways[:-1, : top + 1 - r]
    row: NDArray[np.float64] = ways[n_b]
    return row


# ── Multiple comparisons ─────────────────────────────────────────────────────────────────────


def bh_adjust(p_values: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg adjusted p-values (same order); compare them with ``alpha``."""
    if not p_values:
        return []
    clipped = [_clip(p) for p in p_values]
    m = len(clipped)
    order = sorted(range(m), key=clipped.__getitem__)
    adjusted = [1.0] * m
    running = 1.0
    # From the largest p-value down: p_(i) * m / i, made monotone by a running minimum.
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, clipped[i] * m / rank)
        adjusted[i] = running
    return [_clip(p) for p in adjusted]


def testable_bh_adjust(
    p_values: Sequence[float], min_p_values: Sequence[float], *, alpha: float
) -> list[float]:
    """Benjamini–Hochberg over the *testable* pairs only, same order.

    A pair is testable when its minimum attainable p-value is at most ``alpha``: any other pair
    could never be flagged by Benjamini–Hochberg at level ``alpha`` whatever the data, so it only
    raised the bar for the others. The testable pairs get Benjamini–Hochberg adjusted p-values with
    m = their count; every other pair gets 1.0.

    Why this keeps the false discovery rate at ``alpha``: minimum attainable p-values depend only
    on the margins, which the exact tests condition on; given the margins the testable set is
    fixed, and Benjamini–Hochberg over a fixed set of valid p-values controls the rate. Why it
    helps: a pair like 9/10 vs 10/10 can never give a p-value below 0.5, yet in plain
    Benjamini–Hochberg it counts in m. Why the threshold is ``alpha`` and not Tarone's
    ``alpha / K`` (Gilbert 2005): with many pairs and few samples, ``alpha / K`` can fall below
    every attainable p-value and leave nothing testable — measured: 10,000 pairs × 5 samples with
    1,115 real drops, Tarone-BH flagged none. Filtering at ``alpha`` drops only pairs that plain
    Benjamini–Hochberg could never flag, so it finds everything plain BH finds, and more.
    """
    if len(p_values) != len(min_p_values):
        raise ValueError("p_values and min_p_values must have the same length")
    testable = [i for i, floor in enumerate(min_p_values) if floor <= alpha]
    adjusted = [1.0] * len(p_values)
    for i, p in zip(testable, bh_adjust([p_values[i] for i in testable])):
        adjusted[i] = p
    return adjusted


# ── Minimum attainable p-values ──────────────────────────────────────────────────────────────
# ``direction=None`` (what decisions use) takes the smaller of the two one-sided minima: the
# direction tested is read from the data, so only a direction-free floor depends on the margins
# alone. With equal sample sizes on both sides the two minima are equal anyway.


@lru_cache(maxsize=65536)
def fisher_min_p(passes: int, b_n: int, c_n: int, *, direction: Direction | None = None) -> float:
    """Smallest one-sided Fisher p-value any split of ``passes`` passes over the two sides gives.

    The most extreme drop keeps as many passes as possible in the baseline, the most extreme
    gain as few; the p-value of that table is the floor (its hypergeometric probability).
    """
    if not 0 <= passes <= b_n + c_n:
        raise ValueError(f"pass total out of range: {passes} of {b_n} + {c_n}")
    if b_n == 0 or c_n == 0:
        return 1.0
    most, least = min(b_n, passes), max(0, passes - c_n)
    drop = _fisher(most, b_n, passes - most, c_n, True)
    gain = _fisher(least, b_n, passes - least, c_n, False)
    return drop if direction == "drop" else gain if direction == "gain" else min(drop, gain)


def mann_whitney_min_p(
    values: Sequence[float], n_b: int, *, direction: Direction | None = None
) -> float:
    """Smallest one-sided Mann–Whitney p-value any split of the pooled ``values`` gives, with
    ``n_b`` of them in the baseline: the baseline holding the largest (drop) or smallest (gain)
    values. Same numbers as :func:`mann_whitney_p` on that split."""
    pooled = sorted(values)
    total = len(pooled)
    if not 0 <= n_b <= total:
        raise ValueError(f"baseline size {n_b} out of range for {total} values")
    if n_b == 0 or n_b == total:
        return 1.0
    if total > EXACT_MW_MAX:
        top, bottom = tuple(pooled[total - n_b :]), tuple(pooled[:n_b])
        drop = _mann_whitney(top, tuple(pooled[: total - n_b]), True)
        gain = _mann_whitney(bottom, tuple(pooled[n_b:]), False)
    else:
        # Exact: only the largest rank sum reaches the floor, and the splits that reach it differ
        # only in which members of the tie group at the boundary the baseline takes — C(g, k) of
        # C(total, n_b) splits. Keyed by small integers, so graded scores share cache entries.
        split = total - n_b
        edge = pooled[split]  # the smallest value the baseline holds in the extreme drop
        drop = _tie_floor(total, n_b, pooled.count(edge), pooled[split:].count(edge))
        edge = pooled[n_b - 1]  # the largest value it holds in the extreme gain
        gain = _tie_floor(total, n_b, pooled.count(edge), pooled[:n_b].count(edge))
    return drop if direction == "drop" else gain if direction == "gain" else min(drop, gain)


@lru_cache(maxsize=65536)
def _tie_floor(total: int, n_b: int, group: int, taken: int) -> float:
    return math.comb(group, taken) / math.comb(total, n_b)


def _clip(p: float) -> float:
    if math.isnan(p):
        return 1.0
    return min(1.0, max(0.0, p))
