"""What ``promptcanary plan`` says about the answer test: the smallest change it detects.

The answer test (:mod:`promptcanary.core.behaviour`) has no pass rate to plan for; its natural
effect size is the *share of answers* that moved to a new way of answering (a chatty preamble in
30 % of answers...). :func:`promptcanary.core.behaviour.detectable_effect` gives the share caught
with the wanted power at given sample sizes and test level; this module only picks those sizes
and that level the way ``compare`` will test:

* a fixed count: every answer of both sides, level ``alpha`` over the suite's prompts;
* ``samples: auto``: a prompt whose screening looks moved is topped up to ``TOPUP_SAMPLES``
  against the whole baseline, level ``alpha / 2`` over the suite's prompts (Holm's first step
  beside the suite-level test).

:func:`topup_rate` estimates how many prompts an unchanged check tops up (what the top-up adds
to the request count ``plan`` and the plan line show).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from promptcanary.core.models import CanaryRunResult


@dataclass(frozen=True)
class BehaviourPlan:
    """The answer test's detectable change at a plan's sample sizes."""

    n_baseline: int
    """Baseline answers the deciding test compares with."""
    n_current: int
    """Current answers it tests."""
    level: float
    """Test level one changed prompt must clear (``alpha`` over the prompts corrected for)."""
    power: float
    """Probability of catching the change the share is given for (the engine's ``POWER``)."""
    share: float | None
    """Smallest share of answers in a new mode caught with ``power`` (None: not even all)."""
    adaptive: bool

    def lines(self) -> list[str]:
        """The plan as plain text lines."""
        how = (
            f"{self.n_current} answers (the screening's topped up) against {self.n_baseline} "
            "baseline answers"
            if self.adaptive
            else f"{self.n_current} answers against {self.n_baseline} baseline answers"
        )
        if self.share is None:
            caught = "not even a change of every answer is caught reliably"
        else:
            caught = (
                f"a new way of answering in {self.share:.0%} of answers (or more) is caught "
                f"with power {self.power:.0%} (best case: a style unlike every baseline answer)"
            )
        return [
            f"Behaviour changes (answer test): {how}, tested at {self.level:.2g}: {caught}.",
            "  Smaller shifts, and changes inside one-word answers, go unseen; see "
            "docs/behaviour.md.",
        ]


def plan_behaviour(
    *,
    samples: int | None,
    baseline_samples: int,
    alpha: float,
    prompts: int | None,
) -> BehaviourPlan:
    """The detectable share for a fixed count (``samples``) or ``samples: auto`` (None)."""
    from promptcanary.core.behaviour import TOPUP_SAMPLES, detectable_share
    from promptcanary.core.behaviour.power import POWER

    m = max(prompts or 1, 1)
    # Holm's first step tests the most significant prompt at alpha / 2 / prompts (the other
    # half of alpha is the suite-level test's, and returns to Holm once that test rejected).
    corrected = 2 * m
    if samples is None:
        # A changed prompt is topped up to TOPUP_SAMPLES answers, against the whole baseline.
        n_base, n_cur = baseline_samples, TOPUP_SAMPLES
    else:
        n_base, n_cur = samples, samples
    share = detectable_share(n_base, n_cur, alpha=alpha, prompts=corrected)
    return BehaviourPlan(
        n_baseline=n_base,
        n_current=n_cur,
        level=alpha / corrected,
        power=POWER,
        share=share,
        adaptive=samples is None,
    )


#: Share of prompts the answer test's gate tops up when nothing changed, assumed without a
#: baseline to measure it on: what a model whose wording varies freely gives
#: (benchmarks/behaviour_drift.py, paraphrase model: 0.21); a model that repeats its answers
#: (temperature 0) tops up almost none.
DEFAULT_TOPUP_RATE = 0.2
#: Prompts and trials the baseline-based estimate looks at: its cost stays bounded (about 120
#: gate tests), its standard error about 0.04 (0.3 requests per prompt).
_ESTIMATE_PROMPTS = 40
_ESTIMATE_TRIALS = 120


def topup_rate(baseline: CanaryRunResult | None) -> float:
    """The share of prompts an unchanged check tops up for the answer test, estimated on the
    baseline itself: a few of its answers at a time play the screening against the rest
    (:func:`promptcanary.core.behaviour.needs_topup`), about 120 times over up to 40 prompts.
    0 when every prompt's baseline answers are one text; :data:`DEFAULT_TOPUP_RATE` without a
    baseline (or one with fewer than 6 answers a prompt)."""
    import random

    from promptcanary.core.behaviour import SCREENING_SAMPLES, needs_topup, prompt_seed
    from promptcanary.core.verdict.behaviour import answers_by_prompt

    if baseline is None:
        return DEFAULT_TOPUP_RATE
    every = answers_by_prompt(baseline.llm_responses)
    if every and all(len(set(a)) == 1 for a in every.values()):
        return 0.0  # one answer per prompt: the gate opens only if an answer changes
    answers = {p: a for p, a in every.items() if len(a) >= 2 * SCREENING_SAMPLES}
    if not answers:
        return DEFAULT_TOPUP_RATE
    rng = random.Random(0)
    ids = sorted(answers)
    if len(ids) > _ESTIMATE_PROMPTS:
        ids = rng.sample(ids, _ESTIMATE_PROMPTS)
    hits = trials = 0
    resamples = -(-_ESTIMATE_TRIALS // len(ids))
    for prompt_id in ids:
        texts = answers[prompt_id]
        for _ in range(resamples):
            held = set(rng.sample(range(len(texts)), SCREENING_SAMPLES))
            screening = [t for i, t in enumerate(texts) if i in held]
            rest = [t for i, t in enumerate(texts) if i not in held]
            hits += needs_topup(rest, screening, seed=prompt_seed(prompt_id))
            trials += 1
    return hits / trials
