"""Power of the one-sided Fisher rule and the sample size ``promptcanary plan`` recommends.

* :func:`fisher_power` / :func:`samples_needed` — exact power of the one-sided Fisher rule by
  enumerating every pair of binomial outcomes, no normal approximation.
* :func:`adaptive_outcome` — the same for the adaptive policy (``samples: auto``): detection,
  false alarms and expected requests of one pair, every screening and confirmation path
  enumerated. In plain Python (:func:`binom_pmf`): ``compare`` calls it for a thin baseline.
  :func:`fisher_power` keeps scipy and numpy (vectorised over thousands of tables): only
  ``promptcanary plan`` uses it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from promptcanary.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from promptcanary.core.verdict.adaptive import AdaptivePolicy
    from promptcanary.core.verdict.stats import Direction

#: Largest samples-per-prompt :func:`samples_needed` will consider.
MAX_PLANNED_SAMPLES = 5000

# Probability mass below which binomial outcomes are left out of the power enumeration.
_PMF_CUTOFF = 1e-12


# ── Power and sample size ────────────────────────────────────────────────────────────────────


def fisher_power(
    samples: int,
    *,
    baseline_rate: float,
    effect: float,
    alpha: float = 0.05,
    min_effect: float = 0.1,
) -> float:
    """Probability that the multi-sample rule flags a real drop, for one pair.

    Both sides have ``samples`` samples; the baseline passes with probability ``baseline_rate``,
    the current run with ``baseline_rate - effect``. The pair is flagged when the one-sided Fisher
    p-value is at most ``alpha`` and the observed drop in pass rate is at least ``min_effect``.
    Computed exactly, by summing over every outcome (outcomes rarer than 1e-12 are left out).
    """
    _check_rates(baseline_rate=baseline_rate, effect=effect, alpha=alpha)
    if samples < 2:
        return 0.0
    import numpy as np
    from scipy.stats import binom, hypergeom

    n = samples
    p_base, p_cur = baseline_rate, baseline_rate - effect
    b = _likely_counts(n, p_base)
    c = _likely_counts(n, p_cur)
    bb, cc = np.meshgrid(b, c, indexing="ij")
    p_values = hypergeom.sf(bb - 1, 2 * n, bb + cc, n)
    flagged = (p_values <= alpha) & ((bb - cc) >= min_effect * n - 1e-9)
    weights = np.outer(binom.pmf(b, n, p_base), binom.pmf(c, n, p_cur))
    return float(min(1.0, (weights * flagged).sum()))


def _likely_counts(n: int, p: float) -> NDArray[np.int64]:
    """The pass counts out of n that have non-negligible probability."""
    import numpy as np
    from scipy.stats import binom

    lo = int(binom.ppf(_PMF_CUTOFF, n, p)) if 0 < p < 1 else round(n * p)
    hi = int(binom.isf(_PMF_CUTOFF, n, p)) + 1 if 0 < p < 1 else round(n * p)
    return np.arange(max(0, lo - 1), min(n, hi) + 1)


def samples_needed(
    effect: float,
    *,
    baseline_rate: float = 0.9,
    alpha: float = 0.05,
    power: float = 0.95,
    min_effect: float = 0.1,
    max_samples: int = MAX_PLANNED_SAMPLES,
) -> tuple[int, float]:
    """Smallest samples-per-prompt at which :func:`fisher_power` reaches ``power``.

    Returns ``(samples, achieved_power)``. Power of an exact test on counts is not monotone in the
    sample size (it saw-tooths), so this is the first size found to reach the target scanning
    upward — one by one for effects needing under ~80 samples, otherwise in strides and then one by
    one back over the last stride (an isolated earlier tooth could be skipped; never a size that
    falls short).

    Raises:
        ConfigError: a value out of range, an effect below ``min_effect`` (such a drop is never
            reported, whatever the sample size), or more than ``max_samples`` needed.
    """
    _check_rates(baseline_rate=baseline_rate, effect=effect, alpha=alpha)
    if not 0 < power < 1:
        raise ConfigError(f"power must be between 0 and 1 (exclusive), got {power}", field="power")
    if effect <= min_effect + 1e-9:
        # The observed drop must reach min_effect too; when the true drop is no larger, that
        # happens about half the time at best, whatever the number of samples.
        raise ConfigError(
            f"effect {effect:g} must be larger than min_effect {min_effect:g}: the rule only "
            "reports drops of at least min_effect, so a true drop of that size or smaller is "
            "missed about half the time whatever the number of samples",
            field="effect",
            hint="Raise --effect, or lower min_effect in canary.yaml.",
        )
    guess = _normal_estimate(
        effect, baseline_rate=baseline_rate, alpha=alpha, power=power, min_effect=min_effect
    )
    if guess > 1.5 * max_samples:
        raise _too_many(effect, baseline_rate, power, max_samples)

    def reaches(n: int) -> float | None:
        achieved = fisher_power(
            n, baseline_rate=baseline_rate, effect=effect, alpha=alpha, min_effect=min_effect
        )
        return achieved if achieved >= power else None

    # Jump ahead in strides sized from a rough normal estimate, then walk back over the last
    # stride: the exact power decides, the estimate only saves work for small effects.
    stride = max(1, guess // 40)
    previous, n = 1, 2
    while n <= max_samples:
        if reaches(n) is not None:
            for m in range(previous + 1, n + 1):
                achieved = reaches(m)
                if achieved is not None:
                    return m, achieved
        previous, n = n, n + stride
    raise _too_many(effect, baseline_rate, power, max_samples)


def _too_many(effect: float, baseline_rate: float, power: float, max_samples: int) -> ConfigError:
    return ConfigError(
        f"detecting a drop of {effect:g} from a pass rate of {baseline_rate:g} at power "
        f"{power:g} needs more than {max_samples} samples per prompt",
        field="effect",
        hint="Plan for a larger effect or a lower power.",
    )


def _normal_estimate(
    effect: float, *, baseline_rate: float, alpha: float, power: float, min_effect: float
) -> int:
    """Rough sample size from the normal approximation: significance, and an observed drop of at
    least ``min_effect``, each at the target power. Only a starting point for the exact search."""
    from statistics import NormalDist

    z = NormalDist().inv_cdf
    p1, p2 = baseline_rate, baseline_rate - effect
    mean = (p1 + p2) / 2
    spread = math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))
    significance = (z(1 - alpha) * math.sqrt(2 * mean * (1 - mean)) + z(power) * spread) / effect
    gate = z(power) * spread / (effect - min_effect)
    return max(2, math.ceil(max(significance, gate) ** 2))


def _check_rates(*, baseline_rate: float, effect: float, alpha: float) -> None:
    if not 0 < baseline_rate <= 1:
        raise ConfigError(
            f"baseline rate must be in (0, 1], got {baseline_rate}", field="baseline_rate"
        )
    if not 0 < effect <= baseline_rate:
        raise ConfigError(
            f"effect must be a drop in pass rate between 0 and the baseline rate "
            f"{baseline_rate:g}, got {effect}",
            field="effect",
        )
    if not 0 < alpha < 1:
        raise ConfigError(f"alpha must be between 0 and 1 (exclusive), got {alpha}", field="alpha")


# ── The adaptive policy (samples: auto) ──────────────────────────────────────────────────────


@dataclass(frozen=True)
class PairOutcome:
    """What the adaptive policy does with one (probe, prompt) pair, exactly computed."""

    flagged: float
    """Chance the pair is flagged as a regression."""
    improvement: float
    """Chance the pair is flagged as an improvement."""
    selected: float
    """Chance its screening sends it to confirmation."""
    requests: float
    """Expected requests for the prompt in one check run (screening + confirmation)."""


def adaptive_outcome(
    *,
    baseline_rate: float,
    current_rate: float,
    baseline_samples: int,
    policy: AdaptivePolicy,
    alpha: float | None = None,
) -> PairOutcome:
    """The adaptive policy on one pass/fail pair, by enumerating every outcome.

    The baseline has ``baseline_samples`` samples passing with ``baseline_rate``; screening and
    confirmation pass with ``current_rate``. Selection, confirmation rounds with the futility
    stop, and the final one-sided Fisher test against baseline + screening are those of
    :mod:`promptcanary.core.verdict.adaptive`, at level ``alpha`` (default: the policy's; pass a
    smaller one to plan for the correction over several confirmed pairs). Outcomes rarer than
    1e-12 are left out.
    """
    from promptcanary.core.verdict.rules import moved_at_least
    from promptcanary.core.verdict.stats import fisher_p

    level = policy.alpha if alpha is None else alpha
    big, small = baseline_samples, policy.screening
    flagged = improved = selected = 0.0
    requests = float(small)
    round_pmf = {
        k: [binom_pmf(j, k, current_rate) for j in range(k + 1)]
        for k in {policy.batch, policy.cap % policy.batch}
        if k
    }
    for b in range(big + 1):
        wb = binom_pmf(b, big, baseline_rate)
        if wb < _PMF_CUTOFF:
            continue
        for s in range(small + 1):
            w = wb * binom_pmf(s, small, current_rate)
            if w < _PMF_CUTOFF:
                continue
            moved = b / big - s / small
            # As select_pairs: an outcome that did not move is never screened in.
            if moved_at_least(moved, policy.min_effect):
                direction: Direction = "drop"
            elif moved_at_least(-moved, policy.min_effect) and (
                fisher_p(b, big, s, small, direction="gain") <= policy.screen_alpha
            ):
                direction = "gain"
            else:
                continue
            selected += w
            ref, ref_n = b + s, big + small
            alive: dict[int, float] = {0: 1.0}
            drawn = 0
            while drawn < policy.cap and alive:
                k = min(policy.batch, policy.cap - drawn)
                requests += w * k * sum(alive.values())
                pmf = round_pmf[k]
                grown: dict[int, float] = {}
                for c, pc in alive.items():
                    for j in range(k + 1):
                        grown[c + j] = grown.get(c + j, 0.0) + pc * pmf[j]
                drawn += k
                if drawn >= policy.cap:
                    alive = grown
                    break
                alive = {
                    c: pc
                    for c, pc in grown.items()
                    if fisher_p(ref, ref_n, c, drawn, direction=direction) <= policy.futility
                }
            for c, pc in alive.items():
                effect = ref / ref_n - c / drawn
                if direction == "gain":
                    effect = -effect
                if moved_at_least(effect, policy.min_effect) and (
                    fisher_p(ref, ref_n, c, drawn, direction=direction) <= level
                ):
                    if direction == "drop":
                        flagged += w * pc
                    else:
                        improved += w * pc
    return PairOutcome(
        flagged=min(1.0, flagged),
        improvement=min(1.0, improved),
        selected=min(1.0, selected),
        requests=requests,
    )


def binom_pmf(k: int, n: int, p: float) -> float:
    """P(X = k) for X ~ Binomial(n, p), in log space (no overflow for large n), without scipy:
    :func:`adaptive_outcome` runs on ``compare``'s path (a thin baseline's detection figure), where
    importing scipy.stats would cost seconds."""
    if not 0 <= k <= n:
        return 0.0
    if p <= 0.0 or p >= 1.0:
        return 1.0 if k == (0 if p <= 0.0 else n) else 0.0
    log_pmf = (
        math.lgamma(n + 1)
        - math.lgamma(k + 1)
        - math.lgamma(n - k + 1)
        + k * math.log(p)
        + (n - k) * math.log1p(-p)
    )
    return math.exp(log_pmf)
