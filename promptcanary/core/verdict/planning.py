"""``promptcanary plan``: how many samples a suite needs, and what a run at that size costs.

The sample size comes from the exact power of the multi-sample rule
(:func:`promptcanary.core.verdict.power.samples_needed`): the smallest number of samples per prompt, on
each side, at which a drop in pass rate from ``baseline_rate`` to ``baseline_rate - effect`` is
flagged (two-sided Fisher's exact test at ``alpha``, i.e. one-sided at ``alpha / 2``, observed
drop at least ``min_effect``) with probability ``power``. :func:`plan_adaptive` gives the same
figures for ``samples: auto``. The cost is the newest baseline's average tokens per request, times the
request count, times the model's price from LiteLLM's price map (``None`` when LiteLLM has no
price for the model). Nothing here calls a model; LiteLLM is imported only to price tokens.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from promptcanary.core.models import BaselineSnapshot
from promptcanary.core.verdict.power import samples_needed
from promptcanary.errors import ConfigError

#: (model id, prompt tokens, completion tokens) -> USD, or None when the model has no price.
Pricer = Callable[[str, int, int], "float | None"]

if TYPE_CHECKING:
    from promptcanary.core.config import Price
    from promptcanary.core.models import CanaryRunResult
    from promptcanary.core.suite import CanarySuite
    from promptcanary.core.verdict.adaptive import AdaptivePolicy


@dataclass(frozen=True)
class Plan:
    """Samples needed to detect a drop, and the size and estimated cost of one run at that size.

    Run-size fields are None when unknown (no prompt count given, no baseline with token counts,
    no price for the model); ``cost_note`` says which.
    """

    effect: float
    """Drop in pass rate to detect (0.3 = 90 % → 60 %)."""
    baseline_rate: float
    """Pass rate the prompt has today."""
    alpha: float
    """Significance level of the two-sided Fisher test."""
    power: float
    """Requested probability of flagging the drop."""
    min_effect: float
    """Smallest observed drop the rule reports."""
    pairs: int
    """Pairs the Benjamini–Hochberg correction is planned over (1 = none)."""
    samples: int
    """Samples per prompt needed, in the baseline and in each run."""
    achieved_power: float
    """Exact power at ``samples`` (at least ``power``)."""
    prompts: int | None = None
    """Prompts in the suite."""
    requests: int | None = None
    """Requests per run: prompts x samples."""
    model_id: str | None = None
    """Model the cost was priced for."""
    prompt_tokens: int | None = None
    """Estimated input tokens per run."""
    completion_tokens: int | None = None
    """Estimated output tokens per run."""
    cost_usd: float | None = None
    """Estimated cost of one run in USD (None when unknown)."""
    cost_note: str = ""
    """How the cost was estimated, or why it could not be."""

    @property
    def target_rate(self) -> float:
        """Pass rate after the drop."""
        return self.baseline_rate - self.effect

    @property
    def _correction(self) -> str:
        if self.pairs == 1:
            return ""
        return f" / {self.pairs} pairs = {self.alpha / self.pairs:.2g}"

    @property
    def fixed(self) -> str:
        """How a fixed count is tested."""
        return f"two-sided Fisher test at alpha {self.alpha:g}{self._correction}"

    def lines(self) -> list[str]:
        """The plan as plain text lines, for a terminal."""
        out = [
            f"Samples per prompt: {self.samples}",
            f"  to detect a drop in pass rate {self.baseline_rate:.0%} → {self.target_rate:.0%} "
            f"with power {self.achieved_power:.1%} (asked {self.power:.0%}), {self.fixed}, "
            f"minimum effect {self.min_effect:g}.",
            "  Use the same number of samples for the baseline and for each run.",
        ]
        if self.requests is not None:
            out.append(
                f"Requests per run: {self.requests:,} ({self.prompts} prompts x {self.samples})"
            )
        if self.prompt_tokens is not None and self.completion_tokens is not None:
            out.append(
                f"Tokens per run (estimated): {self.prompt_tokens:,} in + "
                f"{self.completion_tokens:,} out"
            )
        if self.cost_usd is not None:
            out.append(f"Cost per run (estimated): ${self.cost_usd:,.4f} on {self.model_id}")
        else:
            out.append("Cost per run: unknown")
        if self.cost_note:
            out.append(f"  {self.cost_note}")
        return out


def plan(
    effect: float,
    *,
    baseline_rate: float = 0.9,
    alpha: float = 0.05,
    power: float = 0.95,
    min_effect: float | None = None,
    pairs: int = 1,
    suite: CanarySuite | None = None,
    prompts: int | None = None,
    baseline: BaselineSnapshot | None = None,
    model: str | None = None,
    pricer: Pricer | None = None,
) -> Plan:
    """Samples needed to detect a drop of ``effect`` in pass rate, and the cost of a run.

    Args:
        effect:        Drop in pass rate to detect (``--effect``), e.g. 0.3.
        baseline_rate: Pass rate today (``--baseline-rate``).
        alpha:         Significance level (``--alpha``).
        power:         Wanted probability of detecting the drop (``--power``).
        min_effect:    Smallest observed drop the rule reports; default: the suite's
                       ``min_effect`` setting, else 0.1.
        pairs:         Plan for the multiple-comparison correction over this many (probe,
                       prompt) pairs: the worst case, one real change among ``pairs``, must
                       clear ``alpha / pairs`` under Benjamini–Hochberg. 1 (default) plans a
                       single pair at ``alpha``; more changed pairs need less than planned.
        suite:         The suite to size (its prompt count and ``min_effect``), optional.
        prompts:       Prompt count, overriding the suite's; without either, the baseline's.
        pricer:        USD for (model, prompt tokens, completion tokens), or None when unpriced
                       (the CLI passes LiteLLM's price map); without it no cost is shown.
        baseline:      Newest baseline of the suite, for tokens per request (optional).
        model:         Model to price; defaults to the baseline's model.

    Raises:
        ConfigError: a value out of range, or a drop that cannot be planned for (see
            :func:`promptcanary.core.verdict.power.samples_needed`).
    """
    if min_effect is None:
        min_effect = suite.settings.min_effect if suite is not None else 0.1
    if prompts is None and suite is not None:
        prompts = len(suite.prompts)
    if pairs < 1:
        raise ConfigError(f"pairs must be at least 1, got {pairs}", field="pairs")
    if prompts is not None and prompts < 1:
        raise ConfigError(
            f"the suite must have at least one prompt, got {prompts}", field="prompts"
        )
    samples, achieved = samples_needed(
        effect,
        baseline_rate=baseline_rate,
        # Fixed runs test two-sided (the direction is read from the data): alpha / 2 each way.
        alpha=alpha / (2 * pairs),
        power=power,
        min_effect=min_effect,
    )
    if prompts is None and baseline is not None:
        prompts = _prompt_count(baseline) or None
    model_id = model if model is not None else (baseline.provider.model_id if baseline else None)
    requests = prompts * samples if prompts is not None else None

    prompt_tokens, completion_tokens, cost, note = estimate_cost(
        requests,
        baseline=baseline,
        model=model_id,
        pricer=pricer,
        price=suite.settings.price if suite is not None else None,
    )
    return Plan(
        effect=effect,
        baseline_rate=baseline_rate,
        alpha=alpha,
        power=power,
        min_effect=min_effect,
        pairs=pairs,
        samples=samples,
        achieved_power=achieved,
        prompts=prompts,
        requests=requests,
        model_id=model_id,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        cost_usd=cost,
        cost_note=note,
    )


def estimate_cost(
    requests: int | None,
    *,
    baseline: BaselineSnapshot | None,
    model: str | None,
    pricer: Pricer | None,
    price: Price | None = None,
) -> tuple[int | None, int | None, float | None, str]:
    """(input tokens, output tokens, USD, how it was estimated) for ``requests`` requests to
    ``model``: the baseline's mean tokens per request times the count, priced by the suite's
    ``price:`` when it has one, else by ``pricer`` (LiteLLM's map). Unknown parts are None, and
    the note says why."""
    if baseline is None:
        return None, None, None, "No baseline yet: save one to estimate tokens and cost."
    if requests is None:
        return None, None, None, "No prompt count: cannot size a run."
    per_request = _tokens_per_request(baseline)
    if per_request is None:
        return None, None, None, f"Baseline {baseline.snapshot_id[:8]} records no token counts."
    prompt_tokens = round(per_request[0] * requests)
    completion_tokens = round(per_request[1] * requests)
    if price is not None:
        cost: float | None = price.cost(prompt_tokens, completion_tokens)
    else:
        cost = pricer(model or "", prompt_tokens, completion_tokens) if pricer else None
    source = "canary.yaml's price" if price is not None else "LiteLLM's price"
    basis = f"tokens per request from baseline {baseline.snapshot_id[:8]}"
    note = (
        f"Estimated: {basis} x {source} for {model}."
        if cost is not None
        else f"Cost unknown: LiteLLM has no price for {model} (tokens: {basis}). "
        "Give one in canary.yaml: price: {input_per_million: …, output_per_million: …}."
    )
    return prompt_tokens, completion_tokens, cost, note


def describe(result: Plan) -> str:
    """The plan as text for a terminal (no markup)."""
    return "\n".join(result.lines())


def _prompt_count(baseline: BaselineSnapshot) -> int:
    run = baseline.run_result
    if run.prompts:
        return len(run.prompts)
    return len({r.prompt_id for r in run.llm_responses} | {r.prompt_id for r in run.probe_results})


def _tokens_per_request(baseline: BaselineSnapshot) -> tuple[float, float] | None:
    """Mean (input, output) tokens over the baseline's successful responses that report them."""
    counted = [
        (r.prompt_tokens or 0, r.completion_tokens or 0)
        for r in baseline.run_result.llm_responses
        if r.error is None and (r.prompt_tokens is not None or r.completion_tokens is not None)
    ]
    if not counted:
        return None
    return (
        sum(p for p, _ in counted) / len(counted),
        sum(c for _, c in counted) / len(counted),
    )


# ── samples: auto ────────────────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class AdaptivePlan:
    """What ``samples: auto`` does for a drop of ``effect``: detection and requests per check."""

    effect: float
    """Drop in pass rate to detect."""
    baseline_rate: float
    """Pass rate the prompt has today."""
    alpha: float
    """False discovery rate of the confirmation tests."""
    power: float
    """Requested probability of flagging the drop."""
    pairs: int
    """(probe, prompt) pairs in the suite; the correction is planned over the confirmed ones."""
    baseline_samples: int
    """Samples per prompt in the baseline (recorded once)."""
    screening: int
    """Screening samples per prompt in every check."""
    batch: int
    """Confirmation samples per round."""
    cap: int
    """Most confirmation samples per prompt."""
    planned_alpha: float
    """Level one changed pair must clear: ``alpha`` over the confirmed pairs expected."""
    detection: float
    """Chance a pair that dropped by ``effect`` is flagged."""
    false_alarm: float
    """Chance a pair that did not change is flagged (regression or improvement)."""
    healthy_requests: float
    """Expected requests per check for a prompt that did not change."""
    drifting_requests: float
    """Expected requests per check for a prompt that dropped by ``effect``."""
    prompts: int | None = None
    """Prompts in the suite, when known."""
    check: CheckRequests | None = None
    """Every request of an unchanged check per prompt (the answer test's top-up included),
    from the suite's newest baseline when there is one."""

    def lines(self) -> list[str]:
        """The plan as plain text lines, for a terminal."""
        target = self.baseline_rate - self.effect
        out = [
            f"samples: auto (recommended): baseline {self.baseline_samples} samples per prompt, "
            f"recorded once; each check screens every prompt {self.screening} times and "
            f"confirms the pairs that look changed, {self.batch} at a time up to {self.cap}.",
            f"  Detection of a drop {self.baseline_rate:.0%} → {target:.0%} on one pair: "
            f"{self.detection:.1%} (asked {self.power:.0%}; tested at "
            f"{self.planned_alpha:.2g} for the correction over the confirmed pairs).",
            f"  False alarm on one unchanged pair: {self.false_alarm:.2%}.",
        ]
        healthy = self.check.total if self.check is not None else self.healthy_requests
        if self.check is not None:
            out.append(
                f"  Requests per prompt per check: {healthy:.1f} when nothing changed "
                f"({self.check.screening:.0f} screening, {self.check.confirmation:.1f} probe "
                f"confirmation, {self.check.answer_test:.1f} answer-test top-up), "
                f"{self.drifting_requests:.1f} or more for a prompt that dropped."
            )
        else:
            out.append(
                f"  Requests per prompt per check: {healthy:.1f} when nothing changed, "
                f"{self.drifting_requests:.1f} or more for a prompt that dropped."
            )
        if self.prompts is not None:
            out.append(
                f"  Requests per check for {self.prompts} prompts: "
                f"{healthy * self.prompts:,.0f} when nothing changed, "
                f"{self.drifting_requests * self.prompts:,.0f} or more if every prompt dropped; "
                f"baseline {self.baseline_samples * self.prompts:,} once."
            )
        for k in (3, 5):
            if self.prompts is None or self.prompts >= k:
                out.append(
                    f"  If {k} pairs drop like this, at least one is flagged: "
                    f"{1 - (1 - self.detection) ** k:.1%}."
                )
        if self.detection < self.power:
            out.append(
                f"  A lone pair that drops this much is caught {self.detection:.0%} of the time "
                f"(asked {self.power:.0%}): {self.screening} screening samples miss some drops and "
                f"{self.baseline_samples} baseline samples bound the confirmation. Model updates "
                "usually move several prompts at once (lines above); for lone drops, raise "
                "baseline_samples, screening_samples and confirmation_cap, or use a fixed count."
            )
        return out


def plan_adaptive(
    effect: float,
    *,
    baseline_rate: float = 0.9,
    alpha: float | None = None,
    power: float = 0.95,
    suite: CanarySuite | None = None,
    prompts: int | None = None,
    pairs: int | None = None,
    baseline: BaselineSnapshot | None = None,
) -> AdaptivePlan:
    """Detection and cost of ``samples: auto`` for a drop of ``effect`` in pass rate.

    Exact (:func:`promptcanary.core.verdict.power.adaptive_outcome`), per pair. The correction
    over confirmed pairs is planned for the worst case of one changed pair among ``pairs``: it
    must clear ``alpha / m``, m = 1 + the unchanged pairs expected to go to confirmation. The
    policy's settings come from the suite (defaults without one).
    """
    from promptcanary.core.config import SuiteSettings
    from promptcanary.core.verdict.adaptive import AdaptivePolicy
    from promptcanary.core.verdict.power import _check_rates, adaptive_outcome

    settings = suite.settings if suite is not None else SuiteSettings()
    overrides = {"alpha": alpha} if alpha is not None else {}
    policy = AdaptivePolicy.from_settings(settings, **overrides)
    _check_rates(baseline_rate=baseline_rate, effect=effect, alpha=policy.alpha)
    if not 0 < power < 1:
        raise ConfigError(f"power must be between 0 and 1 (exclusive), got {power}", field="power")
    if prompts is None and suite is not None:
        prompts = len(suite.prompts)
    if pairs is None:
        # Scoped probes: only the (probe, prompt) pairs that exist are tested.
        pairs = sum(len(suite.probes_for(p)) for p in suite.prompts) if suite is not None else 1
    big = settings.baseline_samples
    healthy = adaptive_outcome(
        baseline_rate=baseline_rate,
        current_rate=baseline_rate,
        baseline_samples=big,
        policy=policy,
    )
    level = policy.alpha / (1 + (pairs - 1) * healthy.selected)

    drop = adaptive_outcome(
        baseline_rate=baseline_rate,
        current_rate=baseline_rate - effect,
        baseline_samples=big,
        policy=policy,
        alpha=level,
    )
    return AdaptivePlan(
        effect=effect,
        baseline_rate=baseline_rate,
        alpha=policy.alpha,
        power=power,
        pairs=pairs,
        baseline_samples=big,
        screening=policy.screening,
        batch=policy.batch,
        cap=policy.cap,
        planned_alpha=level,
        detection=drop.flagged,
        false_alarm=healthy.flagged + healthy.improvement,
        healthy_requests=healthy.requests,
        drifting_requests=drop.requests,
        prompts=prompts,
        check=expected_check_requests(
            policy,
            baseline=baseline.run_result if baseline is not None else None,
            baseline_rate=baseline_rate,
        ),
    )


def baseline_strength(
    baseline_samples: int, *, screening: int = 3, baseline_rate: float = 0.9, effect: float = 0.4
) -> tuple[float, float]:
    """Chance a lone pair dropping ``baseline_rate`` → ``baseline_rate - effect`` is flagged by
    ``samples: auto`` with a baseline of ``baseline_samples``, and with the default 30: what a
    report tells the owner of a thin baseline."""
    from promptcanary.core.config import DEFAULT_BASELINE_SAMPLES
    from promptcanary.core.verdict.adaptive import AdaptivePolicy
    from promptcanary.core.verdict.power import adaptive_outcome

    policy = AdaptivePolicy(screening=max(2, screening))
    now, rich = (
        adaptive_outcome(
            baseline_rate=baseline_rate,
            current_rate=baseline_rate - effect,
            baseline_samples=n,
            policy=policy,
        ).flagged
        for n in (baseline_samples, DEFAULT_BASELINE_SAMPLES)
    )
    return now, rich


@dataclass(frozen=True)
class CheckRequests:
    """Expected requests per prompt of one ``samples: auto`` check of an unchanged model."""

    screening: float
    """Sent for sure: the screening."""
    confirmation: float
    """The probes' confirmation of pairs whose screening looked changed by chance."""
    answer_test: float
    """The answer test's top-up of prompts whose screening answers looked moved by chance."""

    @property
    def total(self) -> float:
        return self.screening + self.confirmation + self.answer_test


def expected_check_requests(
    policy: AdaptivePolicy, *, baseline: CanaryRunResult | None = None, baseline_rate: float = 0.9
) -> CheckRequests:
    """What an unchanged check costs per prompt: the screening, the probes' confirmation (exact,
    per pair, from the baseline's pass rates — ``baseline_rate`` for every pair without one;
    a prompt is confirmed when any of its pairs is) and the answer test's top-up
    (:func:`~promptcanary.core.verdict.behaviour_plan.topup_rate`, for the prompts the probes
    did not already draw for)."""
    from promptcanary.core.behaviour import TOPUP_SAMPLES
    from promptcanary.core.verdict.behaviour_plan import topup_rate
    from promptcanary.core.verdict.power import adaptive_outcome

    cache: dict[tuple[float, int], tuple[float, float]] = {}

    def pair(rate: float, n: int) -> tuple[float, float]:
        """(chance the pair is confirmed, expected confirmation requests)."""
        key = (round(rate, 6), n)
        if key not in cache:
            out = adaptive_outcome(
                baseline_rate=rate, current_rate=rate, baseline_samples=n, policy=policy
            )
            cache[key] = (out.selected, out.requests - policy.screening)
        return cache[key]

    prompts: dict[str, list[tuple[float, int]]] = {}
    if baseline is not None:
        counts: dict[tuple[str, str], list[int]] = {}
        for r in baseline.probe_results:
            if not r.errored:
                c = counts.setdefault((r.prompt_id, r.probe_id), [0, 0])
                c[0] += bool(r.passed)
                c[1] += 1
        for (prompt_id, _), (passes, n) in counts.items():
            if n >= 2:
                prompts.setdefault(prompt_id, []).append((passes / n, n))
    if not prompts:
        from promptcanary.core.config import DEFAULT_BASELINE_SAMPLES

        prompts = {"": [(baseline_rate, DEFAULT_BASELINE_SAMPLES)]}
    confirm = answer = 0.0
    topup = topup_rate(baseline) * max(0, min(TOPUP_SAMPLES - policy.screening, policy.cap))
    for pairs in prompts.values():
        outcomes = [pair(rate, n) for rate, n in pairs]
        untouched = 1.0
        for selected, _ in outcomes:
            untouched *= 1 - selected
        confirm += max(extra for _, extra in outcomes)
        answer += untouched * topup
    count = len(prompts)
    return CheckRequests(
        screening=float(policy.screening), confirmation=confirm / count, answer_test=answer / count
    )
