"""Decision rules: is a (probe, prompt) pair a regression, an improvement, stable or inconclusive?

* :func:`decide_single` — the documented threshold rule, for pairs with one sample on both sides.
* :func:`decide_multi` — significance + minimum effect for pairs with two or more measured samples
  on a side (and at least one on the other); a pair with one sample on both sides falls back to
  the threshold rule. A pair whose samples could never be significant (measured once on one
  side, or 3 against 3) is "not enough evidence" when its sides disagree
  (:func:`not_enough_evidence`), never a regression and never stable.

The wording of a verdict for reports lives with the renderers
(:mod:`promptcanary.core.render.wording`); the method names are data, in :mod:`.models.drift`.

The statistics live in :mod:`promptcanary.core.verdict.stats` (plain Python: no scipy on the path of
``compare``) and are imported only when a pair is tested.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from promptcanary.core.models.drift import (  # re-exported: the rules' vocabulary
    FISHER as FISHER,
    MANN_WHITNEY as MANN_WHITNEY,
    SCREENING as SCREENING,
    THRESHOLD as THRESHOLD,
)

if TYPE_CHECKING:
    from promptcanary.core.verdict.pairs import Side

#: Scores are floats built by division: a drop of exactly a threshold (or effect) stays on the
#: documented side when compared with this slack (here and in the adaptive rule).
EPS = 1e-9


def moved_at_least(change: float, threshold: float) -> bool:
    """``change`` (a drop or a gain, positive in the direction asked about) is a real move of at
    least ``threshold``.

    A move needs ``change > EPS`` at any threshold: at a threshold of 0 "at least 0" would also
    hold for an unchanged pair, and an unchanged failing prompt would be a regression (an unchanged
    passing one an improvement) on every run.
    """
    return change > EPS and change >= threshold - EPS


@dataclass(frozen=True)
class Verdict:
    """The decision for one pair."""

    regression: bool = False
    improvement: bool = False
    inconclusive: bool = False
    inconclusive_reason: str | None = None
    method: str = "threshold"
    p_value: float | None = None
    p_adjusted: float | None = None


def inconclusive_reason(baseline: Side, current: Side) -> str | None:
    """Why a pair cannot be judged (a side exists but every sample errored), else None."""
    for label, side in (("current run", current), ("baseline", baseline)):
        if side.present and side.n == 0:
            first = side.results[0].details
            return f"every {label} sample errored: {first}"
    return None


def decide_single(
    pairs: Sequence[tuple[Side, Side]],
    *,
    regression_threshold: float,
    improvement_threshold: float,
) -> list[Verdict]:
    """The documented rule: a regression is a drop of at least ``regression_threshold`` that ends
    failing; an improvement is a gain of at least ``improvement_threshold`` that ends passing."""
    verdicts = []
    for b, c in pairs:
        reason = inconclusive_reason(b, c)
        if reason:
            verdicts.append(Verdict(inconclusive=True, inconclusive_reason=reason))
            continue
        delta = c.mean - b.mean
        regression = not c.passed and moved_at_least(-delta, regression_threshold)
        improvement = c.passed and moved_at_least(delta, improvement_threshold)
        verdicts.append(Verdict(regression=regression, improvement=improvement))
    return verdicts


def decide_multi(
    pairs: Sequence[tuple[Side, Side]],
    *,
    regression_threshold: float,
    improvement_threshold: float,
    alpha: float = 0.05,
    min_effect: float = 0.1,
) -> list[Verdict]:
    """The multi-sample rule, pair by pair; pairs it cannot test get the documented rule.

    A pair with at least two measured samples on both sides is *tested*: a regression needs a
    significant drop (one-sided test, Benjamini–Hochberg adjusted at ``alpha`` across the tested
    pairs that could reach significance at all, see below) that is also large: pass rate or mean
    score down by at least ``min_effect``. Improvements mirror it. Which test: Fisher's exact on
    the pass counts when the pass rate moved at least as much as the mean score (always so for
    pass/fail probes), Mann–Whitney U on the scores when the scores moved more (scores shifting
    within passes); see :func:`choose_test`.

    The correction is discreteness-aware (see
    :func:`~promptcanary.core.verdict.stats.testable_bh_adjust`): a pair whose pooled samples make a small
    p-value impossible (9/10 vs 10/10 can never go below 0.5) is left out of the count, gets
    ``p_adjusted = 1.0`` and is never flagged; its raw ``p_value`` is kept.

    A pair with one measured sample on one side and more on the other (``compare --samples 1``
    against a 30-sample baseline) is tested too: one sample cannot show a significant change, so
    such a pair is never flagged, and when its sides disagree it is *inconclusive* with "not
    enough evidence" (:func:`not_enough_evidence`) — never a regression. So is a pair with a few
    samples on both sides that no outcome could make significant (3/3 → 0/3: two-sided p 0.1 at
    best) when its sides disagree: left out of the correction, it would otherwise read "stable,
    1.00 → 0.00". Only pairs with one sample on *both* sides (or a side missing) are judged by
    :func:`decide_single`, the documented threshold rule, with ``method="threshold"``. Pairs
    with an errored side are inconclusive.
    """
    verdicts: list[Verdict | None] = [None] * len(pairs)
    untested: list[int] = []
    tested: list[tuple[int, _Test]] = []
    for i, (b, c) in enumerate(pairs):
        reason = inconclusive_reason(b, c)
        if reason:
            verdicts[i] = Verdict(inconclusive=True, inconclusive_reason=reason)
        elif min(b.n, c.n) >= 1 and max(b.n, c.n) >= 2:
            tested.append((i, choose_test(b, c)))
        else:
            untested.append(i)

    if untested:
        singles = decide_single(
            [pairs[i] for i in untested],
            regression_threshold=regression_threshold,
            improvement_threshold=improvement_threshold,
        )
        for i, verdict in zip(untested, singles):
            verdicts[i] = verdict

    if tested:
        from promptcanary.core.verdict.stats import testable_bh_adjust

        raw = [test.two_sided_p() for _, test in tested]
        floors = [min(1.0, 2.0 * test.min_p()) for _, test in tested]
        adjusted = testable_bh_adjust(raw, floors, alpha=alpha)
        for (i, test), p, p_adj, floor in zip(tested, raw, adjusted, floors):
            b, c = pairs[i]
            verdicts[i] = tested_verdict(
                b,
                c,
                flagged=p_adj <= alpha and moved_at_least(abs(test.effect), min_effect),
                drop=test.effect > 0,
                method=test.method,
                p_value=p,
                p_adjusted=p_adj,
                floor=floor,
                alpha=alpha,
                min_effect=min_effect,
            )
    return [v if v is not None else Verdict() for v in verdicts]


def tested_verdict(
    baseline: Side,
    current: Side,
    *,
    flagged: bool,
    drop: bool,
    method: str,
    p_value: float,
    p_adjusted: float,
    floor: float,
    alpha: float,
    min_effect: float,
) -> Verdict:
    """The verdict of a tested pair: a regression (``drop``) or an improvement when
    ``flagged``; not significant, "not enough evidence" when its samples (smallest attainable
    p-value ``floor``) could not have shown the change its sides disagree on
    (:func:`not_enough_evidence`), else stable."""
    undecided = (
        None
        if p_adjusted <= alpha
        else not_enough_evidence(baseline, current, min_effect=min_effect, floor=floor, alpha=alpha)
    )
    return Verdict(
        regression=flagged and drop,
        improvement=flagged and not drop,
        inconclusive=undecided is not None,
        inconclusive_reason=undecided,
        method=method,
        p_value=p_value,
        p_adjusted=p_adjusted,
    )


#: Why a pair measured once on one side is not judged (one text per side, so reports group them;
#: plain words, since reports quote it as they quote a provider's error).
THIN_CURRENT = (
    "not enough evidence: one sample per prompt cannot show a significant change — compare with "
    "more samples (samples: auto, or --samples 2 or more)"
)
THIN_BASELINE = (
    "not enough evidence: the baseline has one sample per prompt, too few to show a significant "
    "change — record it again with promptcanary run --save-baseline (30 samples per prompt)"
)


#: Above this many samples per prompt ``too_few_samples`` advises a richer baseline instead.
MAX_SUGGESTED_SAMPLES = 200


def too_few_samples(baseline: Side, current: Side, *, alpha: float) -> str:
    """Why a pair with a few samples on both sides is not judged: the counts, and the smallest
    ``--samples`` with which this baseline could show the move at all (the sample counts in the
    text, so pairs measured alike group together in reports)."""
    need = fewest_current_samples(baseline.passes, baseline.n, current.n, baseline.passed, alpha)
    advice = (
        f"compare with more samples (samples: auto, or --samples {need} or more)"
        if need is not None
        else "record the baseline again with more samples (promptcanary run --save-baseline)"
    )
    return (
        f"not enough evidence: {baseline.n} baseline and {current.n} current samples cannot show "
        f"a significant change — {advice}"
    )


@lru_cache(maxsize=1024)  # a large comparison asks the same few questions thousands of times
def fewest_current_samples(
    baseline_passes: int, baseline_n: int, current_n: int, drop: bool, alpha: float
) -> int | None:
    """The fewest current samples (more than ``current_n``, at most
    :data:`MAX_SUGGESTED_SAMPLES`) with which this baseline could show a change, else None.

    The most extreme current run in the direction the pair moved (every sample failing after a
    passing baseline, every one passing after a failing one) reaches ``alpha`` with the fewest
    samples: fewer can never show it, whatever the model does.
    """
    from promptcanary.core.verdict.stats import fisher_p

    for k in range(current_n + 1, MAX_SUGGESTED_SAMPLES + 1):
        c_pass = 0 if drop else k
        p = fisher_p(baseline_passes, baseline_n, c_pass, k, direction="drop" if drop else "gain")
        if 2.0 * p <= alpha:
            return k
    return None


def not_enough_evidence(
    baseline: Side,
    current: Side,
    *,
    min_effect: float,
    floor: float,
    alpha: float,
) -> str | None:
    """Why a tested pair that was not significant cannot be called stable either, else None.

    That is a pair whose sides disagree — the majority verdict flipped and the pass rate or mean
    score moved by at least ``min_effect`` — and whose samples could not have shown it:

    * a single measured sample on one side and more on the other (:data:`THIN_CURRENT`,
      :data:`THIN_BASELINE`): the threshold rule would turn every unlucky sample into a
      regression (an unchanged 90 % prompt fails one in ten);
    * a few samples on both sides whose smallest attainable two-sided p-value ``floor`` is above
      ``alpha`` (3/3 → 0/3: 0.1): no outcome of these samples could be significant
      (:func:`too_few_samples`).

    Calling such a pair stable would claim a knowledge nobody has. A pair whose sides agree, or
    that could have shown a change and did not, stays stable.
    """
    thin = min(baseline.n, current.n) == 1 and max(baseline.n, current.n) >= 2
    if not thin and (min(baseline.n, current.n) < 2 or floor <= alpha):
        return None
    if baseline.passed == current.passed:
        return None
    moved = max(
        abs(baseline.passes / baseline.n - current.passes / current.n),
        abs(baseline.mean - current.mean),
    )
    if not moved_at_least(moved, min_effect):
        return None
    if thin:
        return THIN_CURRENT if current.n == 1 else THIN_BASELINE
    return too_few_samples(baseline, current, alpha=alpha)


@dataclass(frozen=True)
class _Test:
    """The test chosen for one pair. ``effect`` > 0 is a drop (baseline better)."""

    method: str
    effect: float
    b_pass: int
    b_n: int
    c_pass: int
    c_n: int
    b_scores: tuple[float, ...]
    c_scores: tuple[float, ...]
    #: Both sides' scores pooled (sorted) when some score is not just its pass/fail as 1/0, so
    #: that another split of the same samples could have picked Mann–Whitney; else empty.
    pooled_scores: tuple[float, ...] = ()

    def p_value(self) -> float:
        """One-sided p-value in the direction the data moved (1.0 when nothing moved)."""
        if abs(self.effect) < EPS:
            return 1.0
        from promptcanary.core.verdict import stats

        direction: stats.Direction = "drop" if self.effect > 0 else "gain"
        if self.method == FISHER:
            return stats.fisher_p(self.b_pass, self.b_n, self.c_pass, self.c_n, direction=direction)
        return stats.mann_whitney_p(self.b_scores, self.c_scores, direction=direction)

    def two_sided_p(self) -> float:
        """The one-sided p-value doubled (at most 1): the direction was read from the same data,
        so each direction gets half of ``alpha``. Without it, counting improvements as well as
        regressions, a fixed run could raise a flag with nothing changed up to twice ``alpha``."""
        return min(1.0, 2.0 * self.p_value())

    def min_p(self) -> float:
        """The smallest p-value this pair could have given with the same samples pooled.

        Depends on the pooled samples only, never on how they split between the sides: that is
        what keeps the selection of testable pairs valid. The test and the direction are chosen from the
        split, so the floor is the smallest over both directions and, when scores are not plain
        pass/fail, over both tests.
        """
        from promptcanary.core.verdict import stats

        floor = stats.fisher_min_p(self.b_pass + self.c_pass, self.b_n, self.c_n)
        if self.pooled_scores:
            floor = min(floor, stats.mann_whitney_min_p(self.pooled_scores, self.b_n))
        return floor


#: ``method`` values of a tested pair.


def choose_test(baseline: Side, current: Side) -> _Test:
    """Pick the test for a pair from which measure moved more.

    Pass-rate change ``b_rate - c_rate`` against mean-score change ``b_mean - c_mean``: Fisher's
    exact test when the pass rate moved at least as much (ties go to Fisher: for pass/fail probes
    the two are equal), Mann–Whitney U on the scores otherwise. The effect kept is the one of the
    chosen measure; its sign says which way the one-sided test looks.
    """
    b_rate = baseline.passes / baseline.n
    c_rate = current.passes / current.n
    d_pass = b_rate - c_rate
    d_score = baseline.mean - current.mean
    use_scores = abs(d_score) > abs(d_pass) + EPS
    plain = _pass_fail_scores(baseline) and _pass_fail_scores(current)
    return _Test(
        method=MANN_WHITNEY if use_scores else FISHER,
        effect=d_score if use_scores else d_pass,
        b_pass=baseline.passes,
        b_n=baseline.n,
        c_pass=current.passes,
        c_n=current.n,
        b_scores=tuple(baseline.scores) if use_scores else (),
        c_scores=tuple(current.scores) if use_scores else (),
        pooled_scores=() if plain else tuple(sorted(baseline.scores + current.scores)),
    )


def _pass_fail_scores(side: Side) -> bool:
    """Every score is 1.0 for a pass and 0.0 for a fail: then mean and pass rate move together
    for any split of the samples, and Fisher's test always decides."""
    return all(r.score == (1.0 if r.passed else 0.0) for r in side.measured)


# ── Wording for reports ──────────────────────────────────────────────────────────────────────
