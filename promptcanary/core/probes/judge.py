"""The ``llm_judge`` probe: a judge model grades the response against a rubric.

The judge is called through LiteLLM (the provider class :data:`JUDGE_PROVIDER` names, imported
only when a judge is actually called) at temperature 0, and must answer with one JSON
object ``{"score": 0..1, "reason": "..."}``. Anything else — a network error, a refused key, a
verdict that is not that object — makes the result *errored*: the judge failed, not the model
under test, so it is never counted as a failure or a regression. The judge call's cost is put on
the result (``cost_usd``) and counted in the run's cost.

The API key never appears in the probe's parameters (they are stored in baselines): the probe
takes the *name* of an environment variable that holds it.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import re
import time
from typing import TYPE_CHECKING, Any, cast

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProbeCategory, ProbeResult
from promptcanary.core.probes._text import excerpt, strip_code_fences
from promptcanary.core.probes.base import BaseProbe, register_probe
from promptcanary.core.run.retry import RetryPolicy
from promptcanary.errors import ProbeConfigError, ProviderError, VerdictError, redact

if TYPE_CHECKING:
    from promptcanary.providers.base import BaseLLMProvider

#: Longest part of the response under test sent to the judge (keeps judge calls bounded).
MAX_RESPONSE_CHARS = 20_000

JUDGE_SYSTEM_PROMPT = (
    "You are a strict, impartial grader. Grade the RESPONSE against the RUBRIC and nothing "
    "else. Reply with exactly one JSON object and no other text: "
    '{"score": <a number from 0 to 1, where 1 fully meets the rubric>, '
    '"reason": "<one short sentence>"}'
)

_ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

#: Variables of the CI runner, never a judge's key: ``GITHUB_TOKEN``, ``INPUT_GITHUB_TOKEN``,
#: ``ACTIONS_RUNTIME_TOKEN``, ``ACTIONS_ID_TOKEN_REQUEST_TOKEN``... A canary.yaml edit reads
#: like data in review; naming one of these next to ``api_base`` would send the job's token to
#: any server.
RESERVED_ENV_PREFIXES = ("GITHUB_", "ACTIONS_", "INPUT_", "RUNNER_")


def parse_verdict(text: str) -> tuple[float, str]:
    """``(score, reason)`` from a judge reply; strict about shape and range.

    The reply must be one JSON object (a surrounding code fence is tolerated) whose ``score``
    is a number in [0, 1] — not a string, not a boolean — and whose ``reason``, if present, is
    a string.

    Raises:
        VerdictError: anything else, with a short explanation.
    """
    body = strip_code_fences(text)
    if not body:
        raise VerdictError("empty reply")
    try:
        verdict = json.loads(body)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise VerdictError(f"not a JSON object: {excerpt(body, 60)}") from exc
    if not isinstance(verdict, dict):
        raise VerdictError(f"expected a JSON object, got {type(verdict).__name__}")
    if "score" not in verdict:
        raise VerdictError("no 'score' in the verdict")
    score = verdict["score"]
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        raise VerdictError(f"'score' must be a number, got {excerpt(json.dumps(score), 30)}")
    if not math.isfinite(score) or not 0 <= score <= 1:
        raise VerdictError(f"'score' must be between 0 and 1, got {score}")
    reason = verdict.get("reason", "")
    if not isinstance(reason, str):
        raise VerdictError("'reason' must be a string")
    return float(score), reason


#: The provider class judges are called through, as ``module:Class``. Named, not imported: the
#: domain depends only on the provider interface, and litellm (seconds to import) loads only when
#: a judge is actually called. Point it at another :class:`BaseLLMProvider` to judge elsewhere.
JUDGE_PROVIDER = "promptcanary.providers.litellm:LiteLLMProvider"


def judge_provider(model: str, **params: Any) -> BaseLLMProvider:
    """A provider for the judge ``model``, of the class :data:`JUDGE_PROVIDER` names."""
    module, _, name = JUDGE_PROVIDER.partition(":")
    cls = getattr(importlib.import_module(module), name)
    return cast("BaseLLMProvider", cls(model, **params))


@register_probe
class LlmJudgeProbe(BaseProbe):
    """Grades the response with a judge model against a rubric (model-graded probe).

    Args:
        rubric: What a good response does, in plain words (sent to the judge).
        model: LiteLLM model string of the judge, e.g. ``openai/gpt-4o-mini``.
        pass_threshold: Judge score from which the response passes (0..1).
        max_tokens: Token budget of the judge's reply.
        api_base: Endpoint of the judge (for proxies, local or self-hosted models).
        api_key_env: Name of the environment variable holding the judge's API key (default:
            LiteLLM's usual variables, e.g. ``OPENAI_API_KEY``). Never the key itself, and never
            a variable of the CI runner (``GITHUB_*``, ``ACTIONS_*``, ``INPUT_*``, ``RUNNER_*``).

    Score: the judge's score, parsed strictly from ``{"score": 0..1, "reason": "..."}``.
    Passes when score ≥ ``pass_threshold``. A judge error or unreadable verdict → errored
    result (neither pass nor failure). The judge runs at temperature 0.
    """

    probe_id = "llm_judge"
    name = "LLM Judge"
    category = ProbeCategory.CUSTOM
    description = "A judge model grades the response against a rubric."

    @property
    def asks_model(self) -> str:
        """The judge: one request to it for each answer graded."""
        return self.model

    #: Retries of the judge call (transient errors only); tests make it instant.
    retry_policy = RetryPolicy(max_attempts=3, base_delay_s=0.5, max_delay_s=4.0)

    def __init__(
        self,
        rubric: str,
        model: str,
        pass_threshold: float = 0.5,
        max_tokens: int = 256,
        api_base: str | None = None,
        api_key_env: str | None = None,
    ) -> None:
        if not rubric.strip():
            raise ValueError("rubric must not be empty")
        if not model.strip():
            raise ValueError("model must name the judge model, e.g. openai/gpt-4o-mini")
        if not 0 <= pass_threshold <= 1:
            raise ValueError(f"pass_threshold must be between 0 and 1 (got {pass_threshold})")
        if max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1 (got {max_tokens})")
        if api_key_env is not None and not _ENV_NAME_RE.match(api_key_env):
            # Do not echo the value: it may be a key pasted in by mistake.
            raise ValueError(
                "api_key_env must be the NAME of an environment variable (e.g. JUDGE_API_KEY), "
                "not the key itself"
            )
        if api_key_env is not None and api_key_env.upper().startswith(RESERVED_ENV_PREFIXES):
            raise ProbeConfigError(
                f"api_key_env '{api_key_env}' names a variable of the CI runner "
                f"({', '.join(p + '*' for p in RESERVED_ENV_PREFIXES)}), whose tokens must "
                "never be sent to a model endpoint",
                field="api_key_env",
                hint="Put the judge's key in a secret of its own (e.g. JUDGE_API_KEY) and name "
                "that variable.",
            )
        self.rubric = rubric
        self.model = model
        self.pass_threshold = pass_threshold
        self.max_tokens = max_tokens
        self.api_base = api_base
        self.api_key_env = api_key_env

    def judge_message(self, prompt: CanaryPrompt, response: LLMResponse) -> str:
        """The user message sent to the judge."""
        answer = response.content
        if len(answer) > MAX_RESPONSE_CHARS:
            answer = answer[:MAX_RESPONSE_CHARS] + "\n[... truncated]"
        message = f"RUBRIC:\n{self.rubric}\n\nPROMPT:\n{prompt.text}\n\nRESPONSE:\n{answer}"
        # Lone surrogates (undecodable bytes smuggled into a str) cannot go over the wire.
        return message.encode("utf-8", "replace").decode("utf-8")

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        """Ask the judge, parse its verdict; judge trouble → errored result."""
        extra: dict[str, Any] = {}
        if self.api_base:
            extra["api_base"] = self.api_base
        if self.api_key_env:
            key = os.environ.get(self.api_key_env)
            if not key:
                return self._errored(prompt, f"judge key variable {self.api_key_env} is not set")
            extra["api_key"] = key
        try:
            verdict = self._call(prompt, response, extra)
        except ProviderError as exc:
            secrets = [extra["api_key"]] if "api_key" in extra else []
            message = redact(" ".join(str(exc).split()), extra_secrets=secrets)
            return self._errored(prompt, f"judge call failed: {message[:160]}")
        try:
            score, reason = parse_verdict(verdict.content)
        except VerdictError as exc:
            return self._errored(prompt, f"judge verdict unreadable: {exc}", verdict.cost_usd)
        passed = score >= self.pass_threshold
        details = f"judge {score:.2f} (pass at {self.pass_threshold:g})"
        if reason.strip():
            details += f": {excerpt(reason, 100)}"
        return self.result(
            prompt, passed=passed, score=score, details=details, cost_usd=verdict.cost_usd
        )

    def _call(self, prompt: CanaryPrompt, response: LLMResponse, extra: dict[str, Any]) -> Any:
        judge = judge_provider(
            self.model, temperature=0.0, max_tokens=self.max_tokens, seed=None, **extra
        )
        question = CanaryPrompt(id=f"judge-{prompt.id}", text=self.judge_message(prompt, response))
        attempt = 1
        while True:
            try:
                return judge.complete(question, system_prompt=JUDGE_SYSTEM_PROMPT)
            except ProviderError as exc:
                if not self.retry_policy.should_retry(exc, attempt):
                    raise
                time.sleep(self.retry_policy.delay(exc, attempt))
                attempt += 1

    def _errored(
        self, prompt: CanaryPrompt, details: str, cost: float | None = None
    ) -> ProbeResult:
        return self.result(
            prompt, passed=False, score=0.0, details=details, errored=True, cost_usd=cost
        )
