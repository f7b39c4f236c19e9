"""What the answer test can detect at given sample sizes — for ``promptcanary plan``.

:func:`detectable_share` is the smallest share of current answers that must take on a new style
for the answer test to flag the prompt with probability at least :data:`POWER`, at the level a
single changed prompt meets under Benjamini–Hochberg across ``prompts`` prompts (``alpha /
prompts``).

How it is derived (closed form, no simulation at run time): the best any two-sample test on the
answers can do against "a share ``s`` of answers now has a style no baseline answer has" is
Fisher's exact test on the style indicator — conditionally on ``k`` styled answers in all, the
chance that all ``k`` fell in the current ``m`` answers is ``C(m, k) / C(n + m, k)``. The
permutation MMD test with a kernel that separates the style perfectly reaches exactly these
p-values, so the power is ``P(K >= k*)`` with ``K ~ Binomial(m, s)`` and ``k*`` the fewest styled
answers whose p-value is at most the level (and at least ``1 / (permutations + 1)`` apart). It is
a best case: paraphrase noise blurs the kernel's view of a style, so the measured power is lower
(``benchmarks/behaviour_drift.py``: e.g. a 40 % chatty shift with 10 vs 30 answers is flagged in
fewer runs than this bound says; see ``docs/behaviour.md`` for the measured gap).
"""

from __future__ import annotations

import math

from promptcanary.core.behaviour.mmd import permutations_for

#: Detection probability the detectable share is stated for.
POWER = 0.8


def detectable_share(
    n_baseline: int,
    n_current: int,
    *,
    alpha: float = 0.05,
    prompts: int = 1,
    permutations: int | None = None,
) -> float | None:
    """Smallest share (to 0.01) of ``n_current`` answers with a new style that is flagged with
    probability ≥ :data:`POWER` (best case, see the module docstring); None when no share can be
    (too few answers for the level). ``permutations`` defaults to
    :func:`~promptcanary.core.behaviour.mmd.permutations_for` the prompt count."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    if n_baseline < 2 or n_current < 2 or prompts < 1:
        return None
    level = alpha / prompts
    if permutations is None:
        permutations = permutations_for(prompts, alpha=alpha)
    if 1 / (permutations + 1) > level:
        return None
    total = n_baseline + n_current
    needed = next(
        (
            k
            for k in range(1, n_current + 1)
            if math.comb(n_current, k) / math.comb(total, k) <= level
        ),
        None,
    )
    if needed is None:
        return None
    for hundredths in range(1, 101):
        share = hundredths / 100
        if _at_least(needed, n_current, share) >= POWER:
            return share
    return None


def detectable_effect(
    n_baseline: int, n_current: int, *, alpha: float = 0.05, prompts: int = 1
) -> str:
    """:func:`detectable_share` as a sentence for ``plan``."""
    share = detectable_share(n_baseline, n_current, alpha=alpha, prompts=prompts)
    if share is None:
        return (
            f"answer test: {n_current} vs {n_baseline} answers cannot flag a prompt at "
            f"alpha {alpha:g} across {prompts} prompts; sample more"
        )
    return (
        f"answer test: a new style in ≥ {round(100 * share)} % of answers "
        f"({n_current} vs {n_baseline} answers, alpha {alpha:g} across {prompts} prompts, "
        f"{round(100 * POWER)} % power, best case)"
    )


def _at_least(k: int, n: int, p: float) -> float:
    """P(Binomial(n, p) >= k)."""
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))
