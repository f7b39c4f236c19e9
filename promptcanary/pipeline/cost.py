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
    judged: int = 0
    """Requests the probes send of their own (an ``llm_judge`` probe asks its judge once per
    answer it grades), beside the model's: for ``expected`` (else ``requests``) answers."""
    judges: tuple[str, ...] = ()
    """The models those requests go to."""
    judge_cost_usd: float | None = None
    """Estimated USD of ``judged`` (the baseline's judge cost per graded answer); None when
    nothing tells (or nothing is judged). Included in ``cost_usd`` when both are known."""
    ceiling_usd: float | None = None
    """Without a baseline to estimate from: the most the model's requests can cost (every
    answer ``max_tokens`` long, every prompt as many tokens as it has bytes); None when the
    model has no price. The judge's requests are not in it."""
    max_tokens: int | None = None
    """The answers' token limit the ceiling assumes."""
    answered: int = 0
    """Resuming an interrupted run: the requests it answered already, not sent again (counted
    in no other figure here)."""

    def line(self) -> str:
        """One line for a terminal: ``Plan: 4,500 requests (1,500 prompts x 3) on m, ~$0.12``."""
        shape = f"{self.prompts:,} prompt(s) x {self.samples}"
        if self.answered:
            shape = f"{self.answered:,} answered by the interrupted run; {shape} in all"
        text = f"Plan: {self.requests:,} request(s) ({shape}) on {self.model}"
        if self.expected is not None and self.expected > self.requests:
            text = (
                f"Plan: about {self.expected:,} request(s) if nothing changed ({self.prompts:,} "
                f"prompt(s) x {self.samples} screening, then the probes' confirmation and the "
                f"answer test's top-up) on {self.model}"
            )
        if self.most > self.requests:
            text += f", up to {self.most:,} if every prompt needs confirming"
        if self.judged:
            about = "about " if self.expected is not None else ""
            text += f", and {about}{self.judged:,} to the judge ({', '.join(self.judges)})"
        from promptcanary.core.render.fmt import usd

        if self.cost_usd is not None:
            text += f"; estimated {usd(self.cost_usd)}"
            if self.judged and self.judge_cost_usd is None:
                text += " for the model's answers, the judge's cost unknown"
        else:
            text += "; cost unknown"
            reason = self.cost_note.split(" (")[0].rstrip(".")
            reason = reason.removeprefix("Cost unknown: ")  # said just before
            if reason:
                # Mid-sentence: "No baseline yet" reads "no baseline yet"; a name stays a name.
                first = reason.split()[0]
                if first[1:] == first[1:].lower():
                    reason = reason[:1].lower() + reason[1:]
                text += f": {reason}"
            if self.ceiling_usd is not None:
                judge = ", the judge's requests not counted" if self.judged else ""
                text += (
                    f"; at most {usd(self.ceiling_usd)} (answers of up to "
                    f"{self.max_tokens:,} tokens{judge})"
                )
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
    known = baseline or priced_by
    _, _, cost, note = estimate_cost(
        expected or requests, baseline=known, model=model, pricer=pricer, price=settings.price
    )
    judges = _judges(suite)
    per_answer = len(judges) / max(1, len(suite.prompts))
    judged = round((expected or requests) * per_answer)
    judge_cost = _judge_cost({pid for _, pid, _ in judges}, known, judged) if judged else None
    if cost is not None and judge_cost is not None:
        cost += judge_cost
    ceiling, max_tokens = (None, None)
    if known is None:
        ceiling, max_tokens = _ceiling(suite, overrides, model, count, samples, pricer)
    return RunPlan(
        model=model,
        prompts=count,
        samples=samples,
        requests=requests,
        most=count * most_per_prompt if most_per_prompt is not None else requests,
        cost_usd=cost,
        cost_note=note,
        expected=expected,
        judged=judged,
        judges=tuple(sorted({model for _, _, model in judges})),
        judge_cost_usd=judge_cost,
        ceiling_usd=ceiling,
        max_tokens=max_tokens,
    )


def _judges(suite: CanarySuite) -> list[tuple[str, str, str]]:
    """(prompt id, probe id, model) for each probe that asks a model about each answer of a
    prompt (a judge per ``llm_judge`` probe that applies to it)."""
    return [
        (prompt.id, pid, model)
        for prompt in suite.prompts
        for probe, pid in suite.probes_for(prompt)
        if (model := probe.asks_model)
    ]


def _judge_cost(
    probe_ids: set[str], baseline: BaselineSnapshot | None, judged: int
) -> float | None:
    """USD of ``judged`` judge requests at the baseline's mean cost per answer its judging
    probes (``probe_ids``) graded (None without a baseline that recorded one)."""
    if baseline is None:
        return None
    costs = [
        r.cost_usd
        for r in baseline.run_result.probe_results
        if r.probe_id in probe_ids and r.cost_usd is not None
    ]
    return judged * sum(costs) / len(costs) if costs else None


#: Tokens a chat request adds around its messages (roles, separators, the reply's priming):
#: OpenAI's chat format adds 3 per message and 3 for the reply; 16 leaves room for others'.
TEMPLATE_TOKENS = 16


def _ceiling(
    suite: CanarySuite,
    overrides: Overrides,
    model: str,
    count: int,
    samples: int,
    pricer: Pricer | None,
) -> tuple[float | None, int]:
    """The most ``count`` prompts x ``samples`` can cost before any answer has been seen, and
    the answer length it assumes: every answer ``max_tokens`` long, every prompt as many tokens
    as it has bytes (a token of a byte-level tokenizer covers at least one byte) plus
    :data:`TEMPLATE_TOKENS`; the largest prompts when ``count`` is a slice. None: no price."""
    import json

    from promptcanary.core.models import ProviderConfig

    settings = suite.settings
    max_tokens = int(
        overrides.max_tokens
        or settings.max_tokens
        or ProviderConfig.model_fields["max_tokens"].default
    )
    sizes = sorted(
        (
            len(prompt.text.encode())
            + len((suite.system_prompt_for(prompt) or "").encode())
            + (len(json.dumps(prompt.tools).encode()) if prompt.tools else 0)
            + TEMPLATE_TOKENS
            for prompt in suite.prompts
        ),
        reverse=True,
    )
    prompt_tokens = samples * sum(sizes[:count])
    completion_tokens = samples * count * max_tokens
    if settings.price is not None:
        return settings.price.cost(prompt_tokens, completion_tokens), max_tokens
    cost = pricer(model, prompt_tokens, completion_tokens) if pricer else None
    return cost, max_tokens


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
    """True when the run sends more than ``thresholds.requests`` requests (the judge's
    included) or is estimated to cost more than ``thresholds.usd`` (without an estimate: when
    it could, :attr:`RunPlan.ceiling_usd`)."""
    if plan.requests + plan.judged > thresholds.requests:
        return True
    cost = plan.cost_usd if plan.cost_usd is not None else plan.ceiling_usd
    return cost is not None and cost > thresholds.usd
