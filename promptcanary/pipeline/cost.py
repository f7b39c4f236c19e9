"""What a run is about to send and spend, told before the first request.

A ``run --save-baseline`` of a 1,500-prompt suite sends 45,000 requests (30 samples each); nobody
should learn that from the bill. :func:`plan_run` counts the requests the sampling policy will
send (the same decisions as :func:`~promptcanary.pipeline.measure.measure`) and prices them with
the newest baseline's tokens per request (:func:`~promptcanary.core.verdict.planning.
estimate_cost`). :func:`needs_confirmation` says whether the count or the cost is over the
thresholds at which an interactive front-end asks first. Nothing here prints or reads input.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from promptcanary.errors import ConfigError

if TYPE_CHECKING:
    from promptcanary.core.models import BaselineSnapshot
    from promptcanary.core.suite import CanarySuite
    from promptcanary.core.verdict.planning import Pricer
    from promptcanary.pipeline.overrides import Overrides

#: Ask before sending more requests than this (``PROMPTCANARY_CONFIRM_REQUESTS``).
CONFIRM_REQUESTS = 1000
#: Ask before spending more than this many USD (``PROMPTCANARY_CONFIRM_USD``).
CONFIRM_USD = 1.0


@dataclass(frozen=True)
class RunPlan:
    """The requests one measurement will send, and what they are estimated to cost."""

    model: str
    prompts: int
    samples: int
    """Samples per prompt sent for sure (an adaptive check: its screening)."""
    requests: int
    """Requests sent for sure: prompts x samples."""
    most: int
    """Most requests the run can send (an adaptive check confirming every prompt); else
    ``requests``."""
    cost_usd: float | None
    """Estimated USD for ``expected`` (else ``requests``); None when no baseline or no price
    tells."""
    cost_note: str = ""
    expected: int | None = None
    """An adaptive check: the requests it is expected to send when nothing changed (screening,
    the probes' confirmation and the answer test's top-up); None for other runs."""

    def line(self) -> str:
        """One line for a terminal: ``Plan: 4,500 requests (1,500 prompts x 3) on m, ~$0.12``."""
        text = (
            f"Plan: {self.requests:,} request(s) ({self.prompts:,} prompt(s) x {self.samples}) "
            f"on {self.model}"
        )
        if self.expected is not None and self.expected > self.requests:
            text = (
                f"Plan: about {self.expected:,} request(s) if nothing changed ({self.prompts:,} "
                f"prompt(s) x {self.samples} screening, then the probes' confirmation and the "
                f"answer test's top-up) on {self.model}"
            )
        if self.most > self.requests:
            text += f", up to {self.most:,} if every prompt needs confirming"
        if self.cost_usd is not None:
            from promptcanary.core.render.fmt import usd

            text += f"; estimated {usd(self.cost_usd)}"
        else:
            text += "; cost unknown"
            reason = self.cost_note.split(" (")[0].rstrip(".")
            if reason:
                text += f": {reason[:1].lower()}{reason[1:]}"
        return text + "."


def plan_run(
    suite: CanarySuite,
    overrides: Overrides,
    model: str,
    *,
    for_baseline: bool = False,
    baseline: BaselineSnapshot | None = None,
    priced_by: BaselineSnapshot | None = None,
    prompts: int | None = None,
    pricer: Pricer | None = None,
) -> RunPlan | None:
    """The plan of ``measure(suite, provider, overrides, ...)`` (None for a replay: it sends
    nothing). ``baseline`` is the snapshot a check compares with (an adaptive check screens
    against it); it, else ``priced_by`` (the newest baseline a run replaces), gives the tokens
    per request (without either the cost is unknown). ``prompts`` overrides the prompt count (a
    shard's slice)."""
    if overrides.replay is not None:
        return None
    from promptcanary.core.verdict.planning import estimate_cost

    settings = suite.settings
    count = len(suite.prompts) if prompts is None else prompts
    samples = overrides.samples
    most_per_prompt: int | None = None
    expected: int | None = None
    if overrides.batch or overrides.batch_id:
        samples = samples if isinstance(samples, int) else None
        samples = samples or (settings.samples if isinstance(settings.samples, int) else 1)
    elif samples == "auto" or (samples is None and settings.adaptive):
        if for_baseline:
            samples = overrides.baseline_samples or settings.baseline_samples
        elif baseline is not None:
            samples = settings.screening_samples
            most_per_prompt = settings.screening_samples + settings.confirmation_cap
            expected = _expected_check(suite, baseline, count)
        else:
            samples = 1
    elif samples is None:
        samples = settings.fixed_samples
    assert isinstance(samples, int)
    requests = count * samples
    _, _, cost, note = estimate_cost(
        expected or requests,
        baseline=baseline or priced_by,
        model=model,
        pricer=pricer,
        price=settings.price,
    )
    return RunPlan(
        model=model,
        prompts=count,
        samples=samples,
        requests=requests,
        most=count * most_per_prompt if most_per_prompt is not None else requests,
        cost_usd=cost,
        cost_note=note,
        expected=expected,
    )


def _expected_check(suite: CanarySuite, baseline: BaselineSnapshot, prompts: int) -> int:
    """Requests an unchanged ``samples: auto`` check sends (core.verdict.planning)."""
    from promptcanary.core.verdict.adaptive import AdaptivePolicy
    from promptcanary.core.verdict.planning import expected_check_requests

    policy = AdaptivePolicy.from_settings(suite.settings)
    per_prompt = expected_check_requests(policy, baseline=baseline.run_result).total
    return round(per_prompt * prompts)


@dataclass(frozen=True)
class ConfirmThresholds:
    """Over either of these an interactive front-end asks before sending."""

    requests: int = CONFIRM_REQUESTS
    usd: float = CONFIRM_USD

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> ConfirmThresholds:
        """``PROMPTCANARY_CONFIRM_REQUESTS`` and ``PROMPTCANARY_CONFIRM_USD``, else defaults.

        Raises:
            ConfigError: a value that is not a number >= 0, naming the variable.
        """
        values: dict[str, float] = {}
        for name, var in (("requests", "CONFIRM_REQUESTS"), ("usd", "CONFIRM_USD")):
            raw = environ.get(f"PROMPTCANARY_{var}", "").strip()
            if not raw:
                continue
            try:
                value = float(raw)
            except ValueError:
                value = -1.0
            if not value >= 0:
                raise ConfigError(
                    f"must be a number >= 0 (got {raw!r})", field=f"PROMPTCANARY_{var}"
                )
            values[name] = value
        return cls(
            requests=int(values.get("requests", CONFIRM_REQUESTS)),
            usd=values.get("usd", CONFIRM_USD),
        )


def needs_confirmation(plan: RunPlan, thresholds: ConfirmThresholds) -> bool:
    """True when the run sends more than ``thresholds.requests`` requests or is estimated to
    cost more than ``thresholds.usd``."""
    if plan.requests > thresholds.requests:
        return True
    return plan.cost_usd is not None and plan.cost_usd > thresholds.usd
