"""The answer test inside ``samples: auto``: the gated top-up.

Every prompt is screened (3 answers, which the probes need anyway). :func:`needs_topup` tests
those answers against the whole baseline; a prompt whose screening looks moved — p-value at most
:data:`GATE_P`, or an answer unlike every baseline answer — is topped up with fresh answers to
:data:`TOPUP_SAMPLES`, and all of them are tested against the whole baseline. A prompt the probes'
confirmation already drew for is tested the same way, on its screening answers and its first
fresh ones (samples ``0 .. TOPUP_SAMPLES - 1``), whatever else its confirmation drew.

Why this stays valid without splitting the baseline: picture the scheme that tops up *every*
prompt and tests all of them on those same answers — exact, since nothing was selected. The gated
scheme sees the same answers for the prompts it tops up and keeps every other one in Holm's count
with p = 1 (:func:`promptcanary.core.behaviour.suite.decide`). Holm's adjusted p-values only grow
when a p-value grows, so the gated scheme names a subset of what the exact one names: its chance
of naming an unchanged prompt is no larger.

Near-duplicates are grouped before the gate (:mod:`.groups`), so a late-diverging variant of a
baseline answer does not trip it; a prompt that is one group on both sides costs only its
screening. The gate level and its cost are measured in ``benchmarks/behaviour_drift.py``
(docs/behaviour.md, "Within samples: auto").
"""

from __future__ import annotations

from collections.abc import Sequence

from promptcanary.core.behaviour.groups import TAU
from promptcanary.core.behaviour.mmd import AnswerTest, answer_test, test_many
from promptcanary.core.behaviour.space import AnswerSpace, Prepared

#: Screening samples per prompt the scheme was measured with (the suite's ``screening``).
SCREENING_SAMPLES = 3
#: Answers a topped-up prompt is tested on: its screening answers and fresh ones.
TOPUP_SAMPLES = 12
#: A prompt is topped up when its screening p-value against the whole baseline is at most this.
GATE_P = 0.2
#: Permutations of the gate's test (its p-value is only compared with GATE_P).
SCREEN_PERMUTATIONS = 200


def screen(
    baseline: Sequence[str],
    screening: Sequence[str],
    *,
    seed: int = 0,
    tau: float = TAU,
    space: AnswerSpace | None = None,
) -> AnswerTest:
    """The gate's test: the screening answers against the whole baseline."""
    return answer_test(
        baseline, screening, permutations=SCREEN_PERMUTATIONS, seed=seed, tau=tau, space=space
    )


def screen_many(
    items: Sequence[tuple[Sequence[str], Sequence[str], int]], *, tau: float = TAU
) -> list[AnswerTest]:
    """:func:`screen` of every (baseline, screening answers, seed), same order and the same
    results: the answers of all prompts featurised together and their splits permuted together
    (:func:`.mmd.test_many`), which is what keeps the gate of a large suite cheap."""
    spaces = AnswerSpace.many([[*baseline, *screening] for baseline, screening, _ in items])
    results: dict[int, AnswerTest] = {}
    jobs: list[tuple[int, Prepared, int]] = []
    for i, ((baseline, screening, seed), space) in enumerate(zip(items, spaces)):
        prepared = space.prepare(baseline, screening, tau=tau)
        if prepared is None:  # nothing to compare: the untestable result screen() gives
            results[i] = answer_test(baseline, screening, tau=tau, space=space)
        else:
            jobs.append((i, prepared, seed))
    tests = test_many([(p, s) for _, p, s in jobs], permutations=SCREEN_PERMUTATIONS)
    results.update(zip((i for i, _, _ in jobs), tests))
    return [results[i] for i in range(len(items))]


def gate(test: AnswerTest, *, gate_p: float = GATE_P) -> bool:
    """Whether a screened prompt is topped up: its screening looks moved (p-value at most
    ``gate_p``, or an answer unlike every baseline answer)."""
    return test.testable and (test.p_value <= gate_p or test.novel > 0)


def needs_topup(
    baseline: Sequence[str],
    screening: Sequence[str],
    *,
    seed: int = 0,
    tau: float = TAU,
    gate_p: float = GATE_P,
) -> bool:
    """:func:`gate` of :func:`screen`."""
    return gate(screen(baseline, screening, seed=seed, tau=tau), gate_p=gate_p)
