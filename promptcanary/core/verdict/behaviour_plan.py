"""What ``promptcanary plan`` says about the answer test: the smallest change it detects.

The answer test (:mod:`promptcanary.core.behaviour`) has no pass rate to plan for; its natural
effect size is the *share of answers* that moved to a new way of answering (a chatty preamble in
30 % of answers...). :func:`promptcanary.core.behaviour.detectable_effect` gives the share caught
with the wanted power at given sample sizes and test level; this module only picks those sizes
and that level the way ``compare`` will test:

* a fixed count: every answer of both sides, level ``alpha`` over the suite's prompts;
* ``samples: auto``: every prompt's answers topped up to ``TOPUP_SAMPLES`` against the whole
  baseline, level ``alpha`` over the suite's prompts (Holm's first step).
"""

from __future__ import annotations

from dataclasses import dataclass


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
    # Holm's first step tests the most significant prompt at alpha / prompts.
    corrected = m
    if samples is None:
        # Every prompt topped up to TOPUP_SAMPLES answers, against the whole baseline.
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
