"""Usage data: tokens, cost, latency and reliability of a run (see :mod:`promptcanary.core.models`)."""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field, computed_field


def percentile(values: list[float], q: float) -> float | None:
    """Linear-interpolated percentile (q in 0..100); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    pos = (len(ordered) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


class UsageSummary(BaseModel):
    """Tokens, cost, latency and reliability of one run."""

    model_config = ConfigDict(frozen=True)

    requests: int = 0
    """Responses recorded (prompts x samples)."""
    errors: int = 0
    """Responses that errored."""
    retries: int = 0
    """Extra attempts made beyond the first, over all responses."""
    prompt_tokens: int = 0
    """Input tokens over all successful responses."""
    completion_tokens: int = 0
    """Output tokens over all successful responses."""
    total_tokens: int = 0
    """All tokens."""
    cost_usd: float | None = None
    """Total cost in USD (None when no response had a known price)."""
    latency_p50_ms: float | None = None
    """Median latency of successful calls."""
    latency_p95_ms: float | None = None
    """95th percentile latency of successful calls."""
    models: list[str] = Field(default_factory=list)
    """Model names the provider reported, sorted."""
    fingerprints: list[str] = Field(default_factory=list)
    """System fingerprints the provider reported, sorted."""

    def plus(self, other: UsageSummary) -> UsageSummary:
        """This usage and ``other``'s together (a check and the requests it sent afterwards):
        counts, tokens and cost add up (a cost stays unknown only when both are); the latency
        percentiles stay this one's, which cannot be merged from two summaries."""
        costs = [c for c in (self.cost_usd, other.cost_usd) if c is not None]
        return self.model_copy(
            update={
                "requests": self.requests + other.requests,
                "errors": self.errors + other.errors,
                "retries": self.retries + other.retries,
                "prompt_tokens": self.prompt_tokens + other.prompt_tokens,
                "completion_tokens": self.completion_tokens + other.completion_tokens,
                "total_tokens": self.total_tokens + other.total_tokens,
                "cost_usd": sum(costs) if costs else None,
                "models": sorted({*self.models, *other.models}),
                "fingerprints": sorted({*self.fingerprints, *other.fingerprints}),
            }
        )

    # Per-request figures: runs with different sample counts make different numbers of requests,
    # so their totals do not compare (a 3-sample check against a 30-sample baseline would read
    # "tokens −90 %"); these do. Written to the JSON report next to the totals, ignored on load.
    @computed_field  # type: ignore[prop-decorator]
    @property
    def answered(self) -> int:
        """Requests that got an answer (``requests - errors``): what tokens and cost come from."""
        return self.requests - self.errors

    @computed_field  # type: ignore[prop-decorator]
    @property
    def tokens_per_request(self) -> float | None:
        """Mean tokens per answered request (None when none was answered)."""
        return self.total_tokens / self.answered if self.answered > 0 else None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def cost_per_request(self) -> float | None:
        """Mean cost in USD per answered request, judge calls included (None when the price is
        unknown or nothing was answered)."""
        if self.cost_usd is None or self.answered <= 0:
            return None
        return self.cost_usd / self.answered
