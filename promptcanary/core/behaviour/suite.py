"""The answer test across a suite: one pooled test, the per-prompt tests, one decision.

Per-prompt tests corrected with Holm name the prompts that changed, but a change spread thinly
over every prompt (10 % of each prompt's answers turn chatty; wording frequencies tilt everywhere,
as quantisation does) leaves no single prompt significant. :func:`pooled_test` asks the suite-wide
question on answers already drawn: one permutation test whose statistic is the sum over prompts
of each prompt's standardised maximum (:func:`.mmd.standardised_max`), with the answers permuted
*within* each prompt (stratified, the Model Equality Testing design) and each prompt's
permutations drawn independently (its own seed).

:func:`decide` spends ``alpha`` between the two (a graphical procedure, valid by closed testing):
the pooled test first at ``alpha / 2``; Holm over the prompts at ``alpha / 2``, or at ``alpha``
once the pooled test has rejected. Either at full ``alpha`` beside the other would add their
error rates. Prompts of the family that were not tested (the gated top-up left them at their
screening: :mod:`.adaptive`) stay in Holm's count with p = 1: Holm's adjusted p-values only grow
when a p-value grows, so the gated scheme never names a prompt that testing every prompt would not
name on the same answers.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from promptcanary.core.behaviour.groups import TAU
from promptcanary.core.behaviour.mmd import (
    MIN_EFFECT,
    AnswerTest,
    effect,
    standardised_max,
)
from promptcanary.core.behaviour.space import AnswerSpace, Prepared

#: Largest contribution one prompt makes to the pooled statistic (its standardised maximum is
#: capped here). A baseline that happened to miss one of a prompt's wordings shows that wording as
#: new in check after check, and an uncapped z-score of that one prompt would decide the pooled
#: test alone; a change across the suite shows on many prompts at once. Chosen in
#: benchmarks/behaviour_drift.py (per committed baseline, and the 10 % suite-wide shift).
POOLED_CAP = 3.0
#: Permutations of the pooled test (p-values down to 1/401, far below its level alpha / 2; two blocks of splits, the first shared with the prompt's own test).
POOLED_PERMUTATIONS = 400


def prompt_seed(prompt_id: str) -> int:
    """The permutation seed of one prompt: stable across runs, different between prompts."""
    return zlib.crc32(prompt_id.encode("utf-8"))


@dataclass(frozen=True)
class PooledTest:
    """The suite-level answer test."""

    p_value: float
    """Permutation p-value of the pooled statistic (1.0 when not testable)."""
    effect: float
    """Mean effect (0–1) over the prompts with at least two answers a side (0 when none)."""
    prompts: int
    """Prompts in the pooled test (both sides answered, not all one group)."""
    answers: int
    """Current answers pooled."""
    novel: int
    """Current answers unlike every baseline answer of their prompt."""
    expected_novel: float
    """How many to expect under no change (Good–Turing, summed over the prompts)."""
    permutations: int
    """Permutations used."""
    testable: bool
    """False when no prompt could be pooled."""


def pooled_test(
    strata: Sequence[tuple[Prepared, int]],
    *,
    permutations: int = POOLED_PERMUTATIONS,
    cap: float | None = None,
) -> PooledTest:
    """The stratified test over ``strata``: (one prompt's grouped answers, its seed) each.
    Each prompt's standardised maximum is capped at ``cap`` (default :data:`POOLED_CAP`) before
    the sum: a fixed function of each split, so the test stays exact."""
    import numpy as np

    from promptcanary.core.behaviour.space import share_splits

    limit = POOLED_CAP if cap is None else cap
    share_splits(strata, permutations)  # every prompt's splits at once, then read per prompt
    total = None
    effects, answers, novel, expected = [], 0, 0, 0.0
    used = 0
    for prepared, seed in strata:
        best = standardised_max(prepared.split_statistics(permutations, seed))
        answers += prepared.m
        novel += prepared.novel_current()
        expected += prepared.expected_novel()
        if prepared.n >= 2 and prepared.m >= 2:
            effects.append(effect(prepared.expanded(), prepared.n))
        if best is None:
            continue
        used += 1
        best = np.minimum(best, limit)
        total = best if total is None else total + best
    if total is None:
        return PooledTest(1.0, 0.0, 0, answers, novel, expected, 0, False)
    total = np.round(total, 9)
    return PooledTest(
        p_value=float(np.count_nonzero(total >= total[0]) / total.shape[0]),
        effect=float(sum(effects) / len(effects)) if effects else 0.0,
        prompts=used,
        answers=answers,
        novel=novel,
        expected_novel=expected,
        permutations=permutations,
        testable=True,
    )


@dataclass(frozen=True)
class SuiteDecision:
    """What the answer test concludes for a suite."""

    pooled: PooledTest | None
    """The suite-level test (None when nothing was pooled)."""
    pooled_changed: bool
    """The pooled test rejected at ``alpha / 2``: the answers across the suite moved."""
    holm_level: float
    """The level Holm's step-down ran at: ``alpha`` once the pooled test rejected, else half."""
    adjusted: list[float]
    """Per prompt of the family, the smallest ``alpha`` at which the whole procedure names it
    (compare with ``alpha``); 1.0 for untested prompts."""
    flagged: list[bool]
    """Per prompt of the family: named as a behaviour change."""


def holm(tests: Sequence[AnswerTest | None], *, level: float) -> list[float]:
    """Holm's adjusted p-values; untested prompts (None) count in m with p = 1, tested ones
    that cannot reach ``level`` whatever the split are left out (and get 1.0)."""
    members = [
        (i, t.p_value)
        for i, t in enumerate(tests)
        if t is not None and t.testable and t.min_p_value <= level
    ]
    untested = sum(1 for t in tests if t is None)
    family = len(members) + untested
    adjusted = [1.0] * len(tests)
    running = 0.0
    for rank, (i, p) in enumerate(sorted(members, key=lambda item: item[1])):
        running = max(running, min(1.0, (family - rank) * p))
        adjusted[i] = running
    return adjusted


def decide(
    tests: Sequence[AnswerTest | None],
    pooled: PooledTest | None,
    *,
    alpha: float = 0.05,
    min_effect: float = MIN_EFFECT,
) -> SuiteDecision:
    """The pooled test at ``alpha / 2``, then Holm at ``alpha / 2`` (``alpha`` once the pooled
    test rejected); a prompt is named when the procedure rejects it and its effect reaches
    ``min_effect``."""
    p0 = pooled.p_value if pooled is not None and pooled.testable else 1.0
    pooled_changed = p0 <= alpha / 2
    level = alpha if pooled_changed else alpha / 2
    h = holm(tests, level=level)
    # Rejected at level a when (2 p0 <= a and h <= a) or 2 h <= a: the smallest such a.
    adjusted = [min(1.0, min(max(2 * p0, hj), 2 * hj)) if hj < 1.0 else 1.0 for hj in h]
    flagged = [
        t is not None and hj <= level and adj <= alpha and t.effect >= min_effect
        for t, hj, adj in zip(tests, h, adjusted)
    ]
    return SuiteDecision(pooled, pooled_changed, level, adjusted, flagged)


@dataclass
class PromptAnswers:
    """One prompt's answers for the suite test."""

    prompt_id: str
    baseline: Sequence[str]
    pooled: Sequence[str]
    """The current answers its stratum of the pooled test uses (an adaptive run: the screening;
    a fixed run: all of them)."""
    tested: Sequence[str] | None
    """The current answers its own test uses; None: not tested (p = 1 in Holm's count)."""


@dataclass(frozen=True)
class SuiteTest:
    """:func:`suite_test`'s result: the per-prompt tests (None: untested) and the decision."""

    prompt_ids: list[str]
    tests: list[AnswerTest | None]
    decision: SuiteDecision
    strata: list[tuple[str, Prepared, int]]
    """The pooled test's strata: (prompt id, grouped answers, seed); reusable, with their
    splits' statistics kept, to pool a subset of the prompts again."""


def suite_test(
    prompts: Sequence[PromptAnswers],
    *,
    alpha: float = 0.05,
    permutations: int | None = None,
    pooled_permutations: int = POOLED_PERMUTATIONS,
    tau: float = TAU,
    min_effect: float = MIN_EFFECT,
) -> SuiteTest:
    """Every prompt's test, the pooled test and the decision, as ``compare`` makes them."""
    from promptcanary.core.behaviour.mmd import answer_test, permutations_for, test_many

    if permutations is None:
        permutations = permutations_for(len(prompts), alpha=alpha / 2)
    tests: list[AnswerTest | None] = []
    strata: list[tuple[str, Prepared, int]] = []
    # Every prompt's own test is run together with the others' (test_many), so first collect
    # them: (its place in ``tests``, its grouped answers, its seed).
    own: list[tuple[int, Prepared, int]] = []
    spaces = AnswerSpace.many([[*p.baseline, *p.pooled, *(p.tested or ())] for p in prompts])
    for item, space in zip(prompts, spaces):
        seed = prompt_seed(item.prompt_id)
        prepared = space.prepare(item.baseline, item.pooled, tau=tau)
        if prepared is not None:
            strata.append((item.prompt_id, prepared, seed))
        tests.append(None)
        if item.tested is None:
            continue
        if list(item.tested) != list(item.pooled):
            prepared = space.prepare(item.baseline, item.tested, tau=tau)
        # else: a fixed run pools and tests the same answers: one grouping, shared splits.
        if prepared is None:
            tests[-1] = answer_test(item.baseline, item.tested, tau=tau, space=space)
        else:
            own.append((len(tests) - 1, prepared, seed))
    for (i, _, _), result in zip(
        own, test_many([(p, s) for _, p, s in own], permutations=permutations)
    ):
        tests[i] = result
    pooled = (
        pooled_test([(p, s) for _, p, s in strata], permutations=pooled_permutations)
        if strata
        else None
    )
    decision = decide(tests, pooled, alpha=alpha, min_effect=min_effect)
    return SuiteTest([p.prompt_id for p in prompts], tests, decision, strata)
