"""The data PromptCanary produces and stores: prompts, responses, probe results, runs, baselines,
drift reports.

Everything here is a pydantic v2 model so a run or a report round-trips through JSON exactly
(``Model.model_validate_json(m.model_dump_json()) == m``). Derived numbers (scores, severity,
usage) are properties, computed from the stored data, so a stored file can never disagree with
itself.
"""

from __future__ import annotations

import hashlib
import json
import math
import uuid
from collections import defaultdict
from datetime import datetime, timezone
from enum import Enum
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    field_serializer,
    field_validator,
    model_validator,
)

#: Version of the baseline / run JSON layout. Bumped on incompatible changes; checked on load.
SCHEMA_VERSION = 1


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _uuid() -> str:
    return str(uuid.uuid4())


def prompt_id_for(text: str, system_prompt: str | None = None) -> str:
    """Stable 8-hex-char id for a prompt, derived from its text and system prompt.

    The same YAML gives the same ids on every load and every machine, so reruns of a suite that
    declares no ids still line up with their baseline.
    """
    payload = json.dumps([text, system_prompt or ""], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:8]


# ── Enums ────────────────────────────────────────────────────────────────────────────────────


class ProbeCategory(str, Enum):
    """High-level family a probe belongs to."""

    FORMAT = "format"
    REASONING = "reasoning"
    SAFETY = "safety"
    FACTUAL = "factual"
    TOOL_USE = "tool_use"
    CUSTOM = "custom"


_SEVERITY_RANK = {"none": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}


class DriftSeverity(str, Enum):
    """How bad a drift is: NONE < LOW < MEDIUM < HIGH < CRITICAL."""

    NONE = "none"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"

    @property
    def rank(self) -> int:
        """0 for NONE up to 4 for CRITICAL."""
        return _SEVERITY_RANK[self.value]

    def at_least(self, other: DriftSeverity | str) -> bool:
        """True when this severity is ``other`` or worse."""
        return self.rank >= DriftSeverity(str(getattr(other, "value", other)).lower()).rank


# ── Provider configuration ───────────────────────────────────────────────────────────────────

#: extra_params keys whose values are secrets: never serialised, never shown.
_SECRET_PARAM_HINTS = ("key", "token", "secret", "password", "authorization", "headers")


def _is_secret_param(name: str) -> bool:
    lowered = name.lower()
    return any(h in lowered for h in _SECRET_PARAM_HINTS)


class ProviderConfig(BaseModel):
    """Identifies and configures an LLM provider + model endpoint."""

    model_config = ConfigDict(frozen=True, protected_namespaces=())

    model_id: str
    """LiteLLM model string, e.g. ``openai/gpt-4o-mini``."""
    temperature: float = 0.0
    """Sampling temperature (0.0 recommended for canaries)."""
    max_tokens: int = 1024
    """Maximum tokens in a response."""
    seed: int | None = 42
    """Determinism seed, passed to providers that support it."""
    extra_params: dict[str, Any] = Field(default_factory=dict)
    """Further keyword arguments for the provider call (api_base, response_format, ...).
    Secret-looking keys (api_key, tokens, headers) are kept in memory but never serialised."""

    @field_serializer("extra_params")
    def _hide_secrets(self, value: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in value.items() if not _is_secret_param(k)}

    def __repr_args__(self) -> Any:
        for name, value in super().__repr_args__():
            if name == "extra_params" and isinstance(value, dict):
                value = {k: ("***" if _is_secret_param(k) else v) for k, v in value.items()}
            yield name, value


# ── Prompts and responses ────────────────────────────────────────────────────────────────────


class CanaryPrompt(BaseModel):
    """A single prompt entry in a CanarySuite, with optional metadata."""

    model_config = ConfigDict(frozen=True)

    id: str = ""
    """Stable identifier. Derived from text + system prompt (8 hex chars) when omitted."""
    text: str
    """The prompt text sent to the LLM. Required, non-empty."""
    tags: list[str] = Field(default_factory=list)
    """Optional free-form tags."""
    description: str = ""
    """Human-readable note shown in reports."""
    system_prompt: str | None = None
    """Per-prompt system prompt override."""
    expected_keywords: list[str] = Field(default_factory=list)
    """Convenience field used by ExpectedKeywordsProbe."""
    tools: list[dict[str, Any]] | None = None
    """OpenAI-style tool schemas offered to the model for this prompt (native tool calls)."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Free-form data for custom probes."""

    @field_validator("text")
    @classmethod
    def _text_not_empty(cls, v: str) -> str:
        if not v or not v.strip():
            raise ValueError("prompt text must be a non-empty string")
        return v

    @model_validator(mode="after")
    def _derive_id(self) -> CanaryPrompt:
        if not self.id:
            object.__setattr__(self, "id", prompt_id_for(self.text, self.system_prompt))
        return self


class LLMResponse(BaseModel):
    """One response from the provider to one prompt (one sample), or the error that replaced it."""

    model_config = ConfigDict(frozen=True)

    prompt_id: str
    """Id of the prompt this answers."""
    provider_model_id: str
    """The model string that was requested."""
    content: str = ""
    """The text the model returned ("" when it errored or only called tools)."""
    finish_reason: str | None = None
    """Why generation stopped (stop, length, tool_calls, content_filter...)."""
    prompt_tokens: int | None = None
    """Input tokens, as reported by the provider."""
    completion_tokens: int | None = None
    """Output tokens, as reported by the provider."""
    total_tokens: int | None = None
    """Input + output tokens."""
    latency_ms: float | None = None
    """Wall time of the successful call, in milliseconds."""
    raw_response: dict[str, Any] = Field(default_factory=dict)
    """The provider's response, as a dict (for debugging)."""
    sample: int = 0
    """Index of this sample when a prompt is sent several times."""
    error: str | None = None
    """Why there is no response (None when the call succeeded). Errored responses are never
    scored as model failures."""
    error_status: int | None = None
    """HTTP status of the final failed attempt, when there was one."""
    error_type: str | None = None
    """Machine-readable error kind: auth, rate_limit, timeout, server, connection, budget,
    bad_request, replay_missing, unknown."""
    cost_usd: float | None = None
    """Cost of this call in USD from LiteLLM's price map; None when the model is unknown."""
    response_model: str | None = None
    """The model name the provider says answered (may differ from the one requested)."""
    system_fingerprint: str | None = None
    """The provider's backend fingerprint, when it reports one."""
    attempts: int = 1
    """How many attempts the call took (1 = no retry)."""
    tool_calls: list[dict[str, Any]] | None = None
    """Native tool calls the model returned, OpenAI shape: {id, type, function: {name, arguments}}."""

    @property
    def ok(self) -> bool:
        """True when the call succeeded."""
        return self.error is None


class ProbeResult(BaseModel):
    """Result of running a single Probe against a single LLMResponse."""

    model_config = ConfigDict(frozen=True)

    probe_id: str
    """Id of the probe within its suite (stable across runs)."""
    probe_name: str
    """Human-readable probe name."""
    category: ProbeCategory
    """The probe's category."""
    prompt_id: str
    """Id of the prompt whose response was probed."""
    passed: bool
    """Whether the response passed the probe."""
    score: float = Field(ge=0.0, le=1.0)
    """Score from 0.0 (worst) to 1.0 (best)."""
    details: str = ""
    """Short explanation of the score."""
    sample: int = 0
    """Sample index of the response that was probed."""
    errored: bool = False
    """True when there was nothing to judge (the call errored, or a judge model failed). Errored
    results count neither as passes nor as failures."""
    cost_usd: float | None = None
    """Cost of model calls the probe itself made (e.g. an LLM judge), in USD."""

    @field_validator("score", mode="before")
    @classmethod
    def _finite_score(cls, v: Any) -> Any:
        if isinstance(v, float) and math.isnan(v):
            raise ValueError("score must be a number between 0 and 1, not NaN")
        return v


class ProbeSpec(BaseModel):
    """What a probe in a run was: its id in the suite, its type and the exact parameters used."""

    model_config = ConfigDict(frozen=True)

    probe_id: str
    """Id of the probe in the suite (what results refer to)."""
    type: str
    """Registry name (YAML ``type:``) or ``module:Class`` of the probe."""
    name: str = ""
    """Human-readable name."""
    category: ProbeCategory = ProbeCategory.CUSTOM
    """Category of the probe."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Constructor parameters, so a baseline says exactly what was measured."""


# ── Runs ─────────────────────────────────────────────────────────────────────────────────────


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


class CanaryRunResult(BaseModel):
    """Aggregated results for one full run of a CanarySuite against one provider."""

    model_config = ConfigDict(protected_namespaces=())

    schema_version: int = SCHEMA_VERSION
    """Version of this JSON layout."""
    run_id: str = Field(default_factory=_uuid)
    """Unique id of this run."""
    suite_name: str
    """Name of the suite that ran."""
    provider: ProviderConfig
    """Provider and parameters used."""
    started_at: datetime = Field(default_factory=_now)
    """When the run started (UTC)."""
    finished_at: datetime | None = None
    """When the run finished (UTC)."""
    probe_results: list[ProbeResult] = Field(default_factory=list)
    """Every probe result: prompts x samples x probes."""
    llm_responses: list[LLMResponse] = Field(default_factory=list)
    """Every response (or error): prompts x samples."""
    probes: list[ProbeSpec] = Field(default_factory=list)
    """The probes that ran, with their parameters."""
    prompts: list[CanaryPrompt] = Field(default_factory=list)
    """The prompts that ran."""
    samples: int = 1
    """How many times each prompt was sent."""
    aborted: str | None = None
    """Why the run stopped early (authentication refused, budget spent...), if it did."""

    # Probe results that errored measure nothing; they are left out of scores and rates.
    def _measured(self) -> list[ProbeResult]:
        return [r for r in self.probe_results if not r.errored]

    @property
    def overall_score(self) -> float:
        """Mean score across all (non-errored) probe results. Returns 1.0 if no probes ran."""
        measured = self._measured()
        if not measured:
            return 1.0
        return sum(r.score for r in measured) / len(measured)

    @property
    def pass_rate(self) -> float:
        """Fraction of (non-errored) probe results that passed. Returns 1.0 if no probes ran."""
        measured = self._measured()
        if not measured:
            return 1.0
        return sum(1 for r in measured if r.passed) / len(measured)

    @property
    def failed_probes(self) -> list[ProbeResult]:
        """Convenience: all probe results that did not pass (errored ones excluded)."""
        return [r for r in self.probe_results if not r.passed and not r.errored]

    @property
    def errored_probes(self) -> list[ProbeResult]:
        """Probe results with nothing to judge (provider error, judge error)."""
        return [r for r in self.probe_results if r.errored]

    @property
    def by_category(self) -> dict[ProbeCategory, list[ProbeResult]]:
        """Group probe results by category."""
        grouped: dict[ProbeCategory, list[ProbeResult]] = defaultdict(list)
        for r in self.probe_results:
            grouped[r.category].append(r)
        return dict(grouped)

    @property
    def duration_ms(self) -> float:
        """Total wall-clock duration of the run in milliseconds."""
        if self.finished_at is None:
            return 0.0
        return (self.finished_at - self.started_at).total_seconds() * 1000

    @property
    def errors(self) -> list[LLMResponse]:
        """Responses that errored (after retries)."""
        return [r for r in self.llm_responses if r.error is not None]

    @property
    def error_rate(self) -> float:
        """Fraction of responses that errored (0.0 when there are none)."""
        if not self.llm_responses:
            return 0.0
        return len(self.errors) / len(self.llm_responses)

    @property
    def usage(self) -> UsageSummary:
        """Tokens, cost, latency percentiles and retries over the whole run."""
        ok = [r for r in self.llm_responses if r.error is None]
        latencies = [r.latency_ms for r in ok if r.latency_ms is not None]
        # Probes that call a model themselves (an LLM judge) add their cost to the run's.
        costs = [r.cost_usd for r in self.llm_responses if r.cost_usd is not None]
        costs += [r.cost_usd for r in self.probe_results if r.cost_usd is not None]
        cost: float | None = sum(costs) if costs else None
        return UsageSummary(
            requests=len(self.llm_responses),
            errors=len(self.llm_responses) - len(ok),
            retries=sum(max(r.attempts - 1, 0) for r in self.llm_responses),
            prompt_tokens=sum(r.prompt_tokens or 0 for r in ok),
            completion_tokens=sum(r.completion_tokens or 0 for r in ok),
            total_tokens=sum(r.total_tokens or 0 for r in ok),
            cost_usd=cost,
            latency_p50_ms=percentile(latencies, 50),
            latency_p95_ms=percentile(latencies, 95),
            models=sorted({r.response_model for r in ok if r.response_model}),
            fingerprints=sorted({r.system_fingerprint for r in ok if r.system_fingerprint}),
        )

    def prompt_by_id(self) -> dict[str, CanaryPrompt]:
        """The run's prompts indexed by id."""
        return {p.id: p for p in self.prompts}


class BaselineSnapshot(BaseModel):
    """A saved baseline — the "known-good" state a future run is compared against."""

    model_config = ConfigDict(frozen=True)

    schema_version: int = SCHEMA_VERSION
    """Version of this JSON layout; checked on load."""
    snapshot_id: str = Field(default_factory=_uuid)
    """Unique id (UUID) of this snapshot."""
    suite_name: str
    """Suite the baseline belongs to."""
    provider: ProviderConfig
    """Provider and parameters of the baseline run."""
    run_result: CanaryRunResult
    """The full run that was accepted as known-good."""
    created_at: datetime = Field(default_factory=_now)
    """When the snapshot was saved (UTC, microseconds)."""
    note: str = ""
    """Optional human note ("pre-release baseline v1")."""

    @model_validator(mode="before")
    @classmethod
    def _legacy_note(cls, data: Any) -> Any:
        # Older files kept the note outside the model as "_note".
        if isinstance(data, dict) and "_note" in data and "note" not in data:
            data = {**data, "note": data["_note"]}
        return data


# ── Drift ────────────────────────────────────────────────────────────────────────────────────


class ProbeComparison(BaseModel):
    """Side-by-side comparison of a single probe between baseline and current run."""

    model_config = ConfigDict(frozen=True)

    probe_id: str
    """Probe id in the suite."""
    probe_name: str
    """Human-readable probe name."""
    category: ProbeCategory
    """Probe category."""
    prompt_id: str
    """Prompt id."""
    baseline_score: float
    """Mean score in the baseline (over its samples)."""
    current_score: float
    """Mean score in the current run (over its samples)."""
    score_delta: float
    """current_score - baseline_score."""
    baseline_passed: bool
    """Baseline passed (with samples: pass rate >= 0.5)."""
    current_passed: bool
    """Current run passed (with samples: pass rate >= 0.5)."""
    regression: bool
    """True if this is a meaningful regression."""
    improvement: bool
    """True if this is a meaningful improvement."""
    baseline_details: str = ""
    """The details string of the baseline result (first sample)."""
    current_details: str = ""
    """The details string of the current result (first sample)."""
    inconclusive: bool = False
    """True when one side has no usable result (the call errored): never a regression."""
    inconclusive_reason: str | None = None
    """Why the pair is inconclusive (the provider error)."""
    baseline_samples: int = 1
    """Number of measured (non-errored) baseline samples."""
    current_samples: int = 1
    """Number of measured (non-errored) current samples."""
    baseline_pass_count: int = 0
    """Passing baseline samples."""
    current_pass_count: int = 0
    """Passing current samples."""
    method: str = "threshold"
    """Decision rule used: threshold (single sample), fisher (pass/fail), mann_whitney (scores)."""
    p_value: float | None = None
    """One-sided p-value of the test (None for the threshold rule)."""
    p_adjusted: float | None = None
    """p-value adjusted for multiple comparisons (Benjamini–Hochberg)."""
    flaky: bool = False
    """The baseline itself is unstable: pass rate strictly between 0 and 1."""
    prompt_text: str | None = None
    """Excerpt of the prompt, kept for changed pairs so a report is self-contained."""
    baseline_response: str | None = None
    """Excerpt of the baseline response (first sample) for changed pairs."""
    current_response: str | None = None
    """Excerpt of the current response (first sample) for changed pairs."""

    @property
    def baseline_pass_rate(self) -> float:
        """Fraction of baseline samples that passed."""
        return self.baseline_pass_count / self.baseline_samples if self.baseline_samples else 0.0

    @property
    def current_pass_rate(self) -> float:
        """Fraction of current samples that passed."""
        return self.current_pass_count / self.current_samples if self.current_samples else 0.0

    @property
    def stable(self) -> bool:
        """Neither a regression, an improvement, nor inconclusive."""
        return not (self.regression or self.improvement or self.inconclusive)


class DriftReport(BaseModel):
    """The authoritative, fully-structured output of a drift comparison."""

    model_config = ConfigDict(frozen=True, protected_namespaces=())

    schema_version: int = SCHEMA_VERSION
    """Version of this JSON layout."""
    suite_name: str
    """Suite compared."""
    provider: ProviderConfig
    """Provider of the current run."""
    baseline_provider: ProviderConfig | None = None
    """Provider of the baseline run."""
    baseline_snapshot_id: str
    """Snapshot the run was compared with."""
    baseline_created_at: datetime
    """When that snapshot was saved."""
    current_run_id: str
    """Run id of the current run."""
    created_at: datetime = Field(default_factory=_now)
    """When the comparison was made."""
    comparisons: list[ProbeComparison] = Field(default_factory=list)
    """Every (probe, prompt) pair, sorted by probe id then prompt id."""
    regression_threshold: float = 0.05
    """Minimum score drop used for a regression."""
    improvement_threshold: float = 0.05
    """Minimum score gain used for an improvement."""
    alpha: float = 0.05
    """False discovery rate for the multi-sample tests."""
    min_effect: float = 0.1
    """Minimum drop in pass rate / mean score for a multi-sample regression."""
    max_error_rate: float = 0.2
    """Above this error rate the verdict is inconclusive."""
    baseline_usage: UsageSummary | None = None
    """Tokens, cost and latency of the baseline run."""
    current_usage: UsageSummary | None = None
    """Tokens, cost and latency of the current run."""
    error_rate: float = 0.0
    """Fraction of the current run's responses that errored."""
    baseline_samples: int = 1
    """Samples per prompt in the baseline."""
    current_samples: int = 1
    """Samples per prompt in the current run."""
    aborted: str | None = None
    """Why the current run stopped early, if it did."""

    # ── Derived views ──
    @property
    def regressions(self) -> list[ProbeComparison]:
        """Pairs that got meaningfully worse."""
        return [c for c in self.comparisons if c.regression]

    @property
    def improvements(self) -> list[ProbeComparison]:
        """Pairs that got meaningfully better."""
        return [c for c in self.comparisons if c.improvement]

    @property
    def stable(self) -> list[ProbeComparison]:
        """Pairs with no meaningful change."""
        return [c for c in self.comparisons if c.stable]

    @property
    def inconclusive(self) -> list[ProbeComparison]:
        """Pairs that could not be judged (a side errored)."""
        return [c for c in self.comparisons if c.inconclusive]

    @property
    def flaky(self) -> list[ProbeComparison]:
        """Pairs whose baseline was itself unstable."""
        return [c for c in self.comparisons if c.flaky]

    @property
    def has_drift(self) -> bool:
        """True if any regressions were found."""
        return any(c.regression for c in self.comparisons)

    @property
    def single_sample(self) -> bool:
        """True when the verdict used the single-sample threshold rule."""
        return self.baseline_samples < 2 or self.current_samples < 2

    @property
    def is_inconclusive(self) -> bool:
        """True when the run cannot be trusted: too many errors, aborted, or nothing comparable."""
        if self.aborted:
            return True
        if self.error_rate > self.max_error_rate:
            return True
        return bool(self.comparisons) and all(c.inconclusive for c in self.comparisons)

    @property
    def model_changed(self) -> str | None:
        """A sentence when the provider's reported model name or fingerprint changed, else None."""
        if self.baseline_usage is None or self.current_usage is None:
            return None
        parts = []
        b_models, c_models = self.baseline_usage.models, self.current_usage.models
        if b_models and c_models and b_models != c_models:
            parts.append(f"model {', '.join(b_models)} → {', '.join(c_models)}")
        b_fp, c_fp = self.baseline_usage.fingerprints, self.current_usage.fingerprints
        if b_fp and c_fp and not set(c_fp) & set(b_fp):
            parts.append(f"fingerprint {', '.join(b_fp)} → {', '.join(c_fp)}")
        if not parts:
            return None
        return "The provider changed the model: " + "; ".join(parts) + "."

    def _comparable(self) -> list[ProbeComparison]:
        return [c for c in self.comparisons if not c.inconclusive]

    @property
    def overall_baseline_score(self) -> float:
        """Mean baseline score over the comparable pairs (1.0 when there are none)."""
        comparable = self._comparable()
        if not comparable:
            return 1.0
        return sum(c.baseline_score for c in comparable) / len(comparable)

    @property
    def overall_current_score(self) -> float:
        """Mean current score over the comparable pairs (1.0 when there are none)."""
        comparable = self._comparable()
        if not comparable:
            return 1.0
        return sum(c.current_score for c in comparable) / len(comparable)

    @property
    def overall_score_delta(self) -> float:
        """overall_current_score - overall_baseline_score."""
        return self.overall_current_score - self.overall_baseline_score

    @property
    def regression_rate(self) -> float:
        """Regressions / comparable pairs."""
        comparable = self._comparable()
        if not comparable:
            return 0.0
        return len(self.regressions) / len(comparable)

    @property
    def worst_delta(self) -> float:
        """Largest score drop among regressions (positive number; 0.0 without regressions)."""
        drops = [-c.score_delta for c in self.regressions]
        return max(drops) if drops else 0.0

    @property
    def severity(self) -> DriftSeverity:
        """Heuristic severity rating based on regression count and magnitude.

        NONE: no regressions. Otherwise, with rate = regressions / comparable pairs and
        worst = largest score drop: CRITICAL if rate >= 50 % or worst >= 0.6; HIGH if rate >= 30 %
        or worst >= 0.4; MEDIUM if rate >= 15 % or worst >= 0.2; else LOW.
        """
        if not self.has_drift:
            return DriftSeverity.NONE
        rate, worst = self.regression_rate, self.worst_delta
        # A tiny epsilon keeps 0.6 - 1e-16 style float noise on the documented side of a boundary.
        eps = 1e-9
        if rate >= 0.5 - eps or worst >= 0.6 - eps:
            return DriftSeverity.CRITICAL
        if rate >= 0.3 - eps or worst >= 0.4 - eps:
            return DriftSeverity.HIGH
        if rate >= 0.15 - eps or worst >= 0.2 - eps:
            return DriftSeverity.MEDIUM
        return DriftSeverity.LOW

    @property
    def verdict(self) -> str:
        """One word: inconclusive, drift or ok."""
        if self.is_inconclusive:
            return "inconclusive"
        return "drift" if self.has_drift else "ok"

    @property
    def summary(self) -> str:
        """Single-sentence human-readable summary suitable for notifications."""
        n_reg, n_imp = len(self.regressions), len(self.improvements)
        n_inc = len(self.inconclusive)
        scores = (
            f"overall score {self.overall_baseline_score:.2f} → {self.overall_current_score:.2f}"
        )
        if self.is_inconclusive:
            why = self.aborted or (
                f"{self.error_rate:.0%} of requests errored (limit {self.max_error_rate:.0%})"
            )
            return (
                f"Inconclusive: suite '{self.suite_name}' on {self.provider.model_id} could not "
                f"be measured reliably — {why}; this is not evidence of model drift."
            )
        if not self.has_drift:
            tail = f", {n_imp} improvement(s)" if n_imp else ""
            inc = f", {n_inc} inconclusive" if n_inc else ""
            return (
                f"No drift: suite '{self.suite_name}' on {self.provider.model_id} is stable "
                f"({scores}{tail}{inc})."
            )
        return (
            f"{self.severity.value.upper()} drift: {n_reg} regression(s) in suite "
            f"'{self.suite_name}' on {self.provider.model_id} ({scores}"
            + (f", {n_imp} improvement(s)" if n_imp else "")
            + (f", {n_inc} inconclusive" if n_inc else "")
            + ")."
        )
