"""The answer test inside ``samples: auto``: two schemes.

**Top-up** (:data:`TOPUP_SAMPLES`; what ``samples: auto`` uses, in
:mod:`promptcanary.core.run.adaptive`): every prompt's screening answers are topped up with fresh
ones to 12 and all are tested against the whole baseline — exact, 12 requests per prompt, and the
scheme that meets the issue's targets in ``benchmarks/behaviour_drift.py`` and through the CLI.

**Selective** (below; kept for comparison, not used by ``compare``): screen every prompt, confirm
the ones that look moved — fewer requests (about 9 per prompt under no change), less detection.
``docs/behaviour.md`` has both measured.

1. **Screening.** The screening samples every prompt gets anyway (3 by default) are tested against
   every third baseline answer (:func:`split_baseline`) with :data:`SCREEN_PERMUTATIONS`
   permutations (:func:`screen`). A prompt goes
   to confirmation when that p-value is at most :data:`SCREEN_ALPHA` — a loose sieve, not a
   verdict. Not testable (e.g. every answer the same text) means nothing moved: no confirmation.
2. **Confirmation.** Those prompts get :data:`CONFIRMATION_SAMPLES` fresh samples (one batch;
   they can be the probes' confirmation samples of the same prompt).
3. **Decision.** :func:`confirm` tests the fresh samples only against the *other part* of the
   baseline — the two thirds the screening did not look at (:func:`split_baseline`) — with
   :data:`DEFAULT_PERMUTATIONS` permutations (or ``permutations_for`` the prompt count);
   :func:`promptcanary.core.behaviour.flag` corrects over the confirmed prompts.

Why split the baseline: the screening chose prompts whose baseline happened to look unlike their
screening answers; testing fresh answers against that same baseline inherits the tilt and raises
false alarms. The two parts are independent samples of the same model, so the selection (a
function of the screening part and the screening answers) tells nothing about the other part and
the confirmation: the confirmation p-value is exact whatever was selected. Measured in ``benchmarks/behaviour_drift.py``
against the alternatives (whole baseline; baseline + screening pooled), see ``docs/behaviour.md``.

Expected requests per prompt when nothing changed: ``screening + SCREEN_ALPHA × confirmation``
at most (the screening p-value is uniform or larger under no change): 3 + 0.6 × 12 = 10.2.
"""

from __future__ import annotations

from collections.abc import Sequence

from promptcanary.core.behaviour.mmd import DEFAULT_PERMUTATIONS, AnswerTest, answer_test

#: Screening samples per prompt the scheme was measured with (the suite's ``screening``).
SCREENING_SAMPLES = 3
#: Screening p-value at or below which a prompt is confirmed.
SCREEN_ALPHA = 0.6
#: Fresh samples a confirmed prompt gets.
CONFIRMATION_SAMPLES = 12
#: The alternative without selection ("top-up"): every prompt's screening answers are topped up
#: with fresh ones to this many, and all of them are tested against the whole baseline. No
#: selection, so no split is needed and the test is exact; it costs this many requests per
#: prompt whatever happened, and detects more (docs/behaviour.md has both measured).
TOPUP_SAMPLES = 12
#: Every SCREEN_EVERY-th baseline answer is kept for screening; the rest decide.
SCREEN_EVERY = 3
#: Permutations of the screening test (its p-value is only compared with SCREEN_ALPHA).
SCREEN_PERMUTATIONS = 200


def split_baseline(baseline: Sequence[str]) -> tuple[list[str], list[str]]:
    """(screening part, confirmation part): every third answer screens (10 of 30), the others
    confirm (20 of 30). Interleaved, so both parts span the whole baseline run. Uneven because
    the screening is only a loose sieve, while the deciding test gains power from a larger
    baseline side."""
    screening = [a for i, a in enumerate(baseline) if i % SCREEN_EVERY == 0]
    confirmation = [a for i, a in enumerate(baseline) if i % SCREEN_EVERY != 0]
    return screening, confirmation


def screen(
    baseline: Sequence[str],
    screening: Sequence[str],
    *,
    seed: int = 0,
    permutations: int = SCREEN_PERMUTATIONS,
) -> AnswerTest:
    """The screening test: screening answers against the screening part of the baseline."""
    part, _ = split_baseline(baseline)
    return answer_test(part, screening, permutations=permutations, seed=seed)


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
    """The deciding test: fresh confirmation answers against the baseline part the screening
    did not use."""
    _, part = split_baseline(baseline)
    return answer_test(part, confirmation, permutations=permutations, seed=seed)
