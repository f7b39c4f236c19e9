"""The answer test: do the current answers come from the baseline's answer distribution?

A two-sample test in the family of the Model Equality Testing paper (Gao, Liang, Guestrin,
ICLR 2025): the statistic is the squared maximum mean discrepancy (MMD²) between the two sets of
answers under a string kernel (:mod:`features`), and its null distribution comes from permuting
which answers are "baseline" and which "current".

* **Statistic.** With the kernel matrix ``K`` of all ``N = n + m`` answers and the assignment
  vector ``a`` (``1/n`` for a baseline answer, ``-1/m`` for a current one), the biased MMD² is
  ``aᵀ K a`` = mean k(baseline, baseline) + mean k(current, current) − 2 mean k(baseline,
  current). A permutation only moves the entries of ``a``, so all permutations are one matrix
  product: ``((A @ K) * A).sum(1)`` for the matrix ``A`` of permuted assignments, drawn from the
  prompt's own seed. :func:`test_many` runs the tests of a whole suite: the splits of every
  prompt of one shape (answers a side, groups) go through those products together
  (:func:`.space.share_splits`), each prompt's numbers the same as in a test of its own.
* **p-value.** ``(1 + #{permuted statistics >= observed}) / (1 + permutations)``: valid at every
  sample size (the permutation null is exact when the answers are exchangeable under no change)
  and never 0. The smallest p-value a pair can reach, :attr:`AnswerTest.min_p_value`, feeds the
  discreteness-aware Benjamini–Hochberg of :func:`adjust`.
* **Effect.** ``sqrt(max(0, MMD²_u) / (mean k_bb + mean k_cc))`` with within-side means over
  distinct pairs (the unbiased estimate): 0 when the two sets look alike, 1 when no current answer
  shares anything with a baseline answer. When a share ``s`` of answers turns into something
  unlike the rest, the effect grows roughly like ``s`` (not ``s²``), so it reads as "how far the
  answers moved". It is for printing; the decision is the p-value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from promptcanary.core.behaviour.groups import TAU
from promptcanary.core.behaviour.space import AnswerSpace, Prepared

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

#: Correction across prompts (see :func:`adjust`).
Method = Literal["bh", "holm"]

#: Permutations of a full test (p-values down to 1/1001 ≈ 0.001: with 20 prompts, the
#: Benjamini–Hochberg threshold for one flagged prompt is 0.05 / 20 = 0.0025).
DEFAULT_PERMUTATIONS = 1000
#: Most permutations any test draws (p-values down to 1e-5; the permutation matrix of a prompt
#: with 40 answers is then 32 MB, and only prompts that look changed ever reach it).
MAX_PERMUTATIONS = 99_999
#: Smallest effect a flagged prompt must show (the answer test's counterpart of the probes'
#: ``min_effect``). Measured on ``benchmarks/behaviour_drift.py``: under paraphrase noise 95 % of
#: prompts show an effect below 0.22 (10 vs 30 answers), a 70 % chatty shift shows 0.35 or more
#: in 95 % of cases; the floor removes about half of the wrongly named prompts that
#: Benjamini–Hochberg lets through next to real changes, at little cost in detection.
MIN_EFFECT = 0.2
#: Early stopping: (permutations, bound). The test starts with the first stage's permutations;
#: while the p-value so far is at most the stage's bound it moves to the next stage's count,
#: and past the last stage to all ``permutations``. With 1,000 permutations a prompt under no
#: change costs 200 permutations 90 % of the time; with 40,000 (1,000 prompts at alpha 0.05
#: need p-values down to 0.05 / 2,000) only about 1 % of prompts pay for them all.
STAGES = ((200, 0.1), (1000, 0.01))
EARLY_PERMUTATIONS = STAGES[0][0]
EARLY_STOP_P = STAGES[0][1]


@dataclass(frozen=True)
class AnswerTest:
    """The outcome of :func:`answer_test` for one prompt."""

    p_value: float
    """Permutation p-value, ``(1 + #{permuted MMD² >= observed}) / (1 + permutations)``; 1.0
    when not testable."""
    statistic: float
    """Observed MMD² (biased V-statistic, in [0, 2]; 0 when not testable)."""
    effect: float
    """Normalised effect in [0, 1]: 0 = the answers look alike, 1 = nothing in common."""
    n_baseline: int
    """Baseline answers tested."""
    n_current: int
    """Current answers tested."""
    testable: bool
    """False when a side has fewer than 2 answers or every answer is in one group (the same
    text, or near-duplicates of it: :mod:`.groups`)."""
    min_p_value: float
    """Smallest p-value these answers could give under any split (estimated from the
    permutations: the share of them that reach the largest statistic seen); 1.0 when not
    testable. Pairs with ``min_p_value > alpha`` can never be flagged."""
    permutations: int
    """Permutations used: all of them, or fewer when the p-value was already above a stage's
    bound (:data:`STAGES`; 0 when not testable)."""
    novel: int = 0
    """Current answers unlike every baseline answer (no baseline answer in their group)."""
    expected_novel: float = 0.0
    """How many of them to expect under no change (Good–Turing: the current count times the
    share of baseline answers whose group occurs once among them)."""
    known_shift: bool = False
    """The most frequent current answer is one the baseline holds (its group has a baseline
    answer): if the prompt moved, it moved among answers the baseline already has."""


def answer_test(
    baseline: Sequence[str],
    current: Sequence[str],
    *,
    permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = 0,
    tau: float = TAU,
    space: AnswerSpace | None = None,
) -> AnswerTest:
    """Permutation test of ``current`` answers against ``baseline`` answers.

    Near-duplicates are grouped first (:mod:`.groups`, similarity ``tau``); the statistic is the
    largest standardised view of :data:`~promptcanary.core.behaviour.space.VIEWS`. Deterministic
    for a given ``seed``; give each prompt of a suite its own. ``space`` reuses the features of
    a prompt's answers across its tests (it must hold every answer given here).
    """
    if permutations < 1:
        raise ValueError(f"permutations must be >= 1, got {permutations}")
    n, m = len(baseline), len(current)
    if n < 2 or m < 2:
        return _untestable(n, m)
    if space is None:
        space = AnswerSpace([*baseline, *current])
    prepared = space.prepare(baseline, current, tau=tau)
    if prepared is None:
        return _untestable(n, m)
    return test_prepared(prepared, permutations=permutations, seed=seed)


def test_prepared(
    prepared: Prepared, *, permutations: int = DEFAULT_PERMUTATIONS, seed: int = 0
) -> AnswerTest:
    """The test of answers already grouped (:meth:`AnswerSpace.prepare`)."""
    return test_many([(prepared, seed)], permutations=permutations)[0]


def test_many(
    items: Sequence[tuple[Prepared, int]], *, permutations: int = DEFAULT_PERMUTATIONS
) -> list[AnswerTest]:
    """:func:`test_prepared` of every (grouped answers, seed), same order: each stage's splits of
    all the prompts that reach it are computed together (:func:`.space.share_splits`), and
    each result is the one its own call gives."""
    from promptcanary.core.behaviour.space import share_splits

    testable = [i for i, (p, _) in enumerate(items) if p.n >= 2 and p.m >= 2]
    used = dict.fromkeys(testable, min(permutations, STAGES[0][0]))
    share_splits([items[i] for i in testable], min(permutations, STAGES[0][0]))
    first = {i: _permutation_p(items[i][0], used[i], items[i][1]) for i in testable}
    # None: every split looks the same, nothing can differ (untestable).
    results = {i: r for i, r in first.items() if r is not None}
    # Early stop (STAGES): a prompt whose p-value over the permutations so far is above the
    # stage's bound cannot end near any level a decision uses; only the others pay for more
    # permutations. Reporting the early p-value is valid for every level below the first
    # bound a prompt stopped at: the result is at most such a level only when the
    # full-permutation p-value is (up to Monte Carlo error for levels between the bounds).
    going = list(results)
    next_sizes = [size for size, _ in STAGES[1:]] + [permutations]
    for (_, bound), size in zip(STAGES, next_sizes):
        going = [i for i in going if used[i] < permutations and results[i][0] <= bound]
        if not going:
            break
        share_splits([items[i] for i in going], min(permutations, size))
        for i in going:
            used[i] = min(permutations, size)
            again = _permutation_p(items[i][0], used[i], items[i][1])
            assert again is not None  # more splits of the same answers: still not all alike
            results[i] = again
    out = []
    for i, (prepared, _) in enumerate(items):
        result = results.get(i)
        out.append(
            _untestable(prepared.n, prepared.m)
            if result is None
            else _outcome(prepared, result, used[i])
        )
    return out


def _outcome(prepared: Prepared, result: tuple[float, float], used: int) -> AnswerTest:
    n = prepared.n
    p_value, min_p = result
    observed_a = prepared.observed()
    k = prepared.expanded()
    return AnswerTest(
        p_value=float(p_value),
        statistic=max(0.0, float(observed_a @ k @ observed_a)),
        effect=effect(k, n),
        n_baseline=n,
        n_current=prepared.m,
        testable=True,
        min_p_value=float(min_p),
        permutations=used,
        novel=prepared.novel_current(),
        expected_novel=prepared.expected_novel(),
        known_shift=prepared.current_mode_known(),
    )


def standardised_max(stats: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """Per split, the largest view after standardising each view over the splits; None when
    every split gives the same statistics."""
    import numpy as np

    if not stats.any():
        return None
    # Each view's statistic standardised over the splits (its mean and spread there), then
    # the largest over views: a preamble shows in the opening kernel, an added paragraph in
    # the content kernel, one new answer among three in the novelty, and the maximum picks
    # whichever moved (MMDAgg-style aggregation, Schrab et al. 2023). The standardisation is a
    # symmetric function of the splits, so the observed split stays exchangeable with the
    # permuted ones and the p-value exact. (Ranks instead of z-scores would tie at the top —
    # one split per view — and floor the p-value at views / (P + 1).)
    spread = stats.std(axis=1, keepdims=True)
    z = (stats - stats.mean(axis=1, keepdims=True)) / np.where(spread > 0, spread, np.inf)
    best: NDArray[np.float64] = np.round(z.max(axis=0), 9)
    return best


def _permutation_p(prepared: Prepared, used: int, seed: int) -> tuple[float, float] | None:
    """(p-value, smallest attainable p-value) over the observed split and the first ``used``
    seeded splits; None when every split gives the same statistics."""
    import numpy as np

    # Column 0 is the observed split, columns 1.. the permutations.
    best = standardised_max(prepared.split_statistics(used, seed))
    if best is None:
        return None
    splits = best.shape[0]
    return (
        float(np.count_nonzero(best >= best[0]) / splits),
        float(np.count_nonzero(best >= best.max()) / splits),
    )


def effect(k: NDArray[np.float64], n: int) -> float:
    """``sqrt(max(0, MMD²_u) / (mean k_bb + mean k_cc))`` of the kernel ``k`` whose first ``n``
    rows are the baseline's (0 when a side has fewer than two answers)."""
    m = k.shape[0] - n
    if n < 2 or m < 2:
        return 0.0
    kbb, kcc, kbc = k[:n, :n], k[n:, n:], k[:n, n:]
    within_b = (kbb.sum() - kbb.trace()) / (n * (n - 1))
    within_c = (kcc.sum() - kcc.trace()) / (m * (m - 1))
    mmd2_u = within_b + within_c - 2 * kbc.mean()
    scale = within_b + within_c
    if mmd2_u <= 0 or scale <= 0:
        return 0.0
    return float(min(1.0, math.sqrt(mmd2_u / scale)))


def _untestable(n: int, m: int) -> AnswerTest:
    return AnswerTest(
        p_value=1.0,
        statistic=0.0,
        effect=0.0,
        n_baseline=n,
        n_current=m,
        testable=False,
        min_p_value=1.0,
        permutations=0,
    )


def adjust(
    tests: Sequence[AnswerTest], *, alpha: float = 0.05, method: Method = "bh"
) -> list[float]:
    """Adjusted p-values across prompts, same order; compare them with ``alpha``.

    ``method="bh"`` (default) is the correction the probe verdicts use
    (:func:`promptcanary.core.verdict.stats.testable_bh_adjust`): Benjamini–Hochberg over the
    prompts whose ``min_p_value`` can reach ``alpha`` — the others (untestable ones included) get
    1.0 and do not count in m. It bounds the share of wrongly named prompts *among the flagged
    ones*. ``method="holm"`` (Holm's step-down over the same testable prompts) bounds the chance
    of naming *any* unchanged prompt, at some cost in detection; see ``docs/behaviour.md`` for
    both measured.
    """
    if method == "bh":
        from promptcanary.core.verdict.stats import testable_bh_adjust

        return testable_bh_adjust(
            [t.p_value for t in tests], [t.min_p_value for t in tests], alpha=alpha
        )
    if method != "holm":
        raise ValueError(f"unknown method {method!r}; use 'bh' or 'holm'")
    testable = [i for i, t in enumerate(tests) if t.min_p_value <= alpha]
    adjusted = [1.0] * len(tests)
    running = 0.0
    order = sorted(testable, key=lambda i: tests[i].p_value)
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(order) - rank) * tests[i].p_value))
        adjusted[i] = running
    return adjusted


def flag(
    tests: Sequence[AnswerTest],
    *,
    alpha: float = 0.05,
    min_effect: float = MIN_EFFECT,
    method: Method = "bh",
) -> list[bool]:
    """Which prompts show a behaviour change, same order: adjusted p-value (:func:`adjust`) at
    most ``alpha`` and effect at least ``min_effect``."""
    adjusted = adjust(tests, alpha=alpha, method=method)
    return [p <= alpha and t.effect >= min_effect for p, t in zip(adjusted, tests)]


def permutations_for(prompts: int, *, alpha: float = 0.05) -> int:
    """Permutations that let a single changed prompt among ``prompts`` reach the
    Benjamini–Hochberg level ``alpha / prompts`` with room to spare (smallest p-value at most
    half of it), and never fewer than :data:`DEFAULT_PERMUTATIONS`. Early stopping keeps the
    cost of large counts to the few prompts that look changed. At most
    :data:`MAX_PERMUTATIONS`: a level below ``1 / MAX_PERMUTATIONS`` (a tiny ``alpha``) is
    simply out of reach, and nothing is flagged."""
    if alpha <= 0 or 2 * max(prompts, 1) / alpha >= MAX_PERMUTATIONS:
        return MAX_PERMUTATIONS
    return max(DEFAULT_PERMUTATIONS, math.ceil(2 * max(prompts, 1) / alpha) - 1)
