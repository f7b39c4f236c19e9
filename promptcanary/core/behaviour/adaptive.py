"""The answer test inside ``samples: auto``: screen every prompt, confirm the ones that look moved.

1. **Screening.** The screening samples every prompt gets anyway (3 by default) are tested against
   the full baseline with :data:`SCREEN_PERMUTATIONS` permutations (:func:`screen`). A prompt goes
   to confirmation when that p-value is at most :data:`SCREEN_ALPHA` — a loose sieve, not a
   verdict. Not testable (e.g. every answer the same text) means nothing moved: no confirmation.
2. **Confirmation.** Those prompts get :data:`CONFIRMATION_SAMPLES` fresh samples (one batch;
   they can be the probes' confirmation samples of the same prompt).
3. **Decision.** :func:`confirm` tests the fresh samples only against the *other half* of the
   baseline — the half the screening did not look at (:func:`split_baseline`) — with
   :data:`DEFAULT_PERMUTATIONS` permutations; :func:`promptcanary.core.behaviour.adjust` corrects
   over the confirmed prompts and a prompt is flagged when its adjusted p-value is at most alpha.

Why split the baseline: the screening chose prompts whose baseline happened to look unlike their
screening answers; testing fresh answers against that same baseline inherits the tilt and raises
false alarms. The two halves are independent samples of the same model, so the selection (a
function of half A and the screening) tells nothing about half B and the confirmation: the
confirmation p-value is exact whatever was selected. Measured in ``benchmarks/behaviour_drift.py``
against the alternatives (whole baseline; baseline + screening pooled), see ``docs/behaviour.md``.

Expected requests per prompt when nothing changed: ``screening + SCREEN_ALPHA × confirmation``
at most (the screening p-value is uniform or larger under no change): 3 + 0.5 × 10 = 8.
"""

from __future__ import annotations

from collections.abc import Sequence

from promptcanary.core.behaviour.mmd import DEFAULT_PERMUTATIONS, AnswerTest, answer_test

#: Screening samples per prompt the scheme was measured with (the suite's ``screening``).
SCREENING_SAMPLES = 3
#: Screening p-value at or below which a prompt is confirmed.
SCREEN_ALPHA = 0.5
#: Fresh samples a confirmed prompt gets.
CONFIRMATION_SAMPLES = 10
#: Permutations of the screening test (its p-value is only compared with SCREEN_ALPHA).
SCREEN_PERMUTATIONS = 200


def split_baseline(baseline: Sequence[str]) -> tuple[list[str], list[str]]:
    """(screening half, confirmation half): even and odd positions, so both halves span the
    whole baseline run."""
    return list(baseline[0::2]), list(baseline[1::2])


def screen(
    baseline: Sequence[str],
    screening: Sequence[str],
    *,
    seed: int = 0,
    permutations: int = SCREEN_PERMUTATIONS,
) -> AnswerTest:
    """The screening test: screening answers against the screening half of the baseline."""
    half, _ = split_baseline(baseline)
    return answer_test(half, screening, permutations=permutations, seed=seed)


def needs_confirmation(test: AnswerTest, *, screen_alpha: float = SCREEN_ALPHA) -> bool:
    """Whether a screened prompt gets confirmation samples."""
    return test.testable and test.p_value <= screen_alpha


def confirm(
    baseline: Sequence[str],
    confirmation: Sequence[str],
    *,
    seed: int = 0,
    permutations: int = DEFAULT_PERMUTATIONS,
) -> AnswerTest:
    """The deciding test: fresh confirmation answers against the baseline half the screening
    did not use."""
    _, half = split_baseline(baseline)
    return answer_test(half, confirmation, permutations=permutations, seed=seed)
