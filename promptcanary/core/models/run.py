"""Run data: prompts, responses, probe results, runs and baselines (see :mod:`promptcanary.core.models`)."""

from __future__ import annotations

import hashlib
import json
import math
import uuid
from collections import defaultdict
from datetime import datetime, timezone
from enum import Enum
from typing import Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    field_serializer,
    field_validator,
    model_validator,
)

from promptcanary.core.models.scores import mean_score
from promptcanary.core.models.usage import UsageSummary, percentile

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


def _json_fallback(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    if isinstance(value, type):
        return value.__name__
    return str(value)


#: Phase of an adaptive run: every prompt is *screened* with a few samples, and the pairs whose
#: screening looks different from the baseline get fresh *confirmation* samples.
Phase = Literal["screening", "confirmation"]

# ── Enums ────────────────────────────────────────────────────────────────────────────────────


class ProbeCategory(str, Enum):
    """High-level family a probe belongs to."""

    FORMAT = "format"
    REASONING = "reasoning"
    SAFETY = "safety"
    FACTUAL = "factual"
    TOOL_USE = "tool_use"
    CUSTOM = "custom"


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
    """LiteLLM model string, e.g. ``openai/gpt-4o-mini`` (surrounding whitespace is removed)."""
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    """Sampling temperature, 0 to 2 (0.0 recommended for canaries)."""
    max_tokens: int = Field(default=1024, gt=0)
    """Maximum tokens in a response (> 0)."""
    seed: int | None = 42
    """Determinism seed sent with each request; None: none was sent (``seed: none``, or a model
    that does not accept one: see :attr:`unsupported_params`)."""
    unsupported_params: list[str] = Field(default_factory=list)
    """Sampling parameters that were asked for but not sent because the model does not accept
    them (``["seed"]`` on Anthropic, and Claude on Bedrock or Vertex AI). Reports say so."""
    extra_params: dict[str, Any] = Field(default_factory=dict)
    """Further keyword arguments for the provider call (api_base, response_format, ...).
    Secret-looking keys (api_key, tokens, headers) are kept in memory but never serialised."""

    @field_validator("model_id")
    @classmethod
    def _model_id_not_empty(cls, v: str) -> str:
        # A stray space from a YAML value or an env var would otherwise reach the provider as
        # part of the model name and fail there, late and obscurely.
        if not v.strip():
            raise ValueError("model_id must not be empty.")
        return v.strip()

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
    probes: list[str] = Field(default_factory=list)
    """Ids of suite probes that run on this prompt besides those whose scope matches it
    (canary.yaml ``probes:`` on a prompt; inline definitions there become suite probes)."""
    skip_probes: list[str] = Field(default_factory=list)
    """Ids of suite probes that do not run on this prompt although their scope matches it."""
    behaviour: Literal["compare", "ignore"] = "compare"
    """``ignore``: the prompt's answers are meant to vary (creative writing), so they are never
    tested for a behaviour change (canary.yaml ``behaviour: ignore``); its probes still run."""

    @field_validator("text")
    @classmethod
    def _text_not_empty(cls, v: str) -> str:
        if not v or not v.strip():
            raise ValueError("Prompt text must not be empty.")
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
    bad_request, bad_response (a 2xx reply that is not a chat completion), not_sent (the client
    library refused to send it: a missing credential, an unsupported parameter), replay_missing /
    batch_missing (a recording has no answer for it), unknown."""
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
    phase: Phase | None = None
    """Which phase of an adaptive run (``samples: auto``) drew this sample: ``"screening"`` or
    ``"confirmation"``; None in a run with a fixed sample count (and in older files)."""

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
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Structured findings of the probe (detected tool calls, component scores...); stored with
    the run. Files written before this field existed load with an empty dict."""

    @field_validator("metadata", mode="after")
    @classmethod
    def _json_metadata(cls, v: dict[str, Any]) -> dict[str, Any]:
        # Stored runs must round-trip: a custom probe's set, tuple or object becomes what JSON
        # would give back (lists, str) here, not a serialisation error when the run is saved.
        if not v:
            return v
        return dict(json.loads(json.dumps(v, default=_json_fallback)))

    phase: Phase | None = None
    """Phase of an adaptive run the probed sample belongs to (see :attr:`LLMResponse.phase`)."""

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
    prompts: list[str] | None = None
    """Ids of the prompts this probe is limited to (canary.yaml ``prompts:`` on a probe, or the
    prompts that defined it inline); None: not limited by prompt id. Older files: None."""
    tags: list[str] | None = None
    """Prompt tags this probe is limited to; None: not limited by tag. A probe with both
    ``prompts`` and ``tags`` applies where either matches. Older files: None."""


# ── Runs ─────────────────────────────────────────────────────────────────────────────────────


class ConfirmedPair(BaseModel):
    """A (probe, prompt) pair whose screening looked different from the baseline."""

    model_config = ConfigDict(frozen=True)

    probe_id: str
    """Probe id in the suite."""
    prompt_id: str
    """Prompt id."""
    direction: Literal["drop", "gain"]
    """Which way the screening moved; the confirmation test looks this way only."""
    method: str
    """Test fixed at screening: ``fisher`` (pass counts) or ``mann_whitney`` (scores)."""
    stopped_early: bool = False
    """Confirmation stopped before the cap because its samples showed no such change."""


class AdaptiveRecord(BaseModel):
    """What an adaptive run did, kept with the run so any later comparison uses the same choice."""

    model_config = ConfigDict(frozen=True)

    screening: int
    """Samples per prompt in the screening phase."""
    batch: int
    """Confirmation samples drawn per round."""
    cap: int
    """Most confirmation samples per prompt."""
    screen_alpha: float
    """A screened gain goes to confirmation when its p-value is at most this (drops always)."""
    futility: float
    """Confirmation stops early when its p-value so far is above this."""
    baseline_snapshot_id: str | None = None
    """The baseline the screening was compared with."""
    confirmed: list[ConfirmedPair] = Field(default_factory=list)
    """Pairs sent to confirmation."""
    screening_requests: int = 0
    """Requests spent on screening."""
    confirmation_requests: int = 0
    """Extra requests spent on the probes' confirmation."""
    behaviour_confirmed: list[str] = Field(default_factory=list)
    """Prompts the answer test tests on their own: those whose screening answers looked moved
    (topped up) and those the probes' confirmation drew for; their first 12 answers are tested
    against the baseline's, the other prompts count with p = 1."""
    behaviour_requests: int = 0
    """Extra requests spent topping prompts up for the answer test."""

    def pairs(self) -> dict[tuple[str, str], ConfirmedPair]:
        """Confirmed pairs by (probe_id, prompt_id)."""
        return {(c.probe_id, c.prompt_id): c for c in self.confirmed}


class ShardRecord(BaseModel):
    """Marks a partial run: one slice of a suite run with ``promptcanary run --shard i/n``.

    A partial run is not compared or promoted on its own; ``promptcanary merge`` joins the parts
    back into one run after checking they are the slices of the same suite run the same way."""

    index: int = Field(ge=1)
    """Which slice this is, from 1."""
    count: int = Field(ge=1)
    """How many slices the suite was cut into."""
    suite_prompt_ids: list[str]
    """Every prompt id of the whole suite, in the suite's order (to restore it and to find a
    missing slice)."""
    suite_digest: str
    """Hash of the whole suite's prompts and probes: parts of an edited suite do not merge."""


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
    adaptive: AdaptiveRecord | None = None
    """How an adaptive run (``samples: auto``) went: which pairs went to confirmation, in which
    direction, and what it cost. None for a run with a fixed sample count."""
    shard: ShardRecord | None = None
    """Set on a partial run (``run --shard i/n``): merge the parts before comparing."""

    # Probe results that errored measure nothing; they are left out of scores and rates.
    def _measured(self) -> list[ProbeResult]:
        return [r for r in self.probe_results if not r.errored]

    @property
    def overall_score(self) -> float:
        """Mean score across all (non-errored) probe results. Returns 1.0 if no probes ran."""
        return mean_score(r.score for r in self._measured())

    @property
    def pass_rate(self) -> float:
        """Fraction of (non-errored) probe results that passed. Returns 1.0 if no probes ran."""
        return mean_score(float(r.passed) for r in self._measured())

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
    """Version of this JSON layout; checked on load. 0 is promptcanary 0.2's layout."""
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
    note: str = Field("", validation_alias=AliasChoices("note", "_note"))
    """Optional human note ("pre-release baseline v1"); older files kept it as "_note"."""

    @field_validator("schema_version", mode="before")
    @classmethod
    def _legacy_version(cls, v: Any) -> Any:
        # promptcanary 0.2 wrote schema_version "0.1" (a string); its files are version 0 here,
        # and load: the fields they lack all have defaults.
        if isinstance(v, str) and v.startswith("0."):
            return 0
        return v
