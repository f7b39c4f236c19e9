"""Provider batch APIs: send a whole suite as one batch job, at about half the price.

Nightly watches are not latency-sensitive, and OpenAI-style batch APIs answer within 24 hours for
roughly half the per-token price. :func:`run_batch` writes one JSONL line per (prompt, sample),
uploads it with ``litellm.create_file`` (purpose "batch"), starts it with ``litellm.create_batch``,
polls ``litellm.retrieve_batch`` with backoff until it finishes or a deadline passes, and downloads
the output and error files with ``litellm.file_content``. Each line becomes an
:class:`LLMResponse` (a failed line is an errored response, never an exception). The probes then
run through the normal engine: :class:`BatchResultsProvider` answers each (prompt id, sample) from
the downloaded results (a :class:`~promptcanary.providers.recorded.RecordedProvider`, as a replay
of a saved run is).

Supported: the providers whose batch and file calls LiteLLM sends in the OpenAI wire format
(``openai``, ``hosted_vllm``, ``litellm_proxy``). LiteLLM also batches for Azure, Vertex AI,
Bedrock, Anthropic, Mistral and xAI, each with its own input format and storage (S3, GCS);
PromptCanary does not build those yet, so :func:`check_batch_support` refuses them before anything
is sent.
"""

from __future__ import annotations

import contextlib
import io
import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProviderConfig
from promptcanary.errors import ConfigError, MeasurementError, redact
from promptcanary.providers.litellm import LiteLLMProvider, _dump, _import_litellm
from promptcanary.providers.recorded import RecordedProvider

__all__ = [
    "BATCH_PROVIDERS",
    "BatchResultsProvider",
    "BatchSettings",
    "check_batch_support",
    "custom_id",
    "run_batch",
]

#: LiteLLM providers whose files + batches calls speak OpenAI's wire format (LiteLLM's
#: OPENAI_COMPATIBLE_BATCH_AND_FILES_PROVIDERS): the JSONL built here is what they accept.
BATCH_PROVIDERS = ("openai", "hosted_vllm", "litellm_proxy")

#: Request keywords that configure LiteLLM's client, not the model: never sent in a batch line.
_CLIENT_KEYS = frozenset(
    {
        "model",
        "api_base",
        "base_url",
        "api_key",
        "api_version",
        "organization",
        "num_retries",
        "max_retries",
        "timeout",
        "request_timeout",
        "custom_llm_provider",
        "extra_headers",
        # canary.yaml's price (LiteLLMProvider.with_price): priced here, never sent.
        "input_cost_per_token",
        "output_cost_per_token",
    }
)
_DONE = ("completed", "failed", "expired", "cancelled")
_SEPARATOR = "#"


@dataclass(frozen=True)
class BatchSettings:
    """How long to wait for a batch and how often to ask."""

    timeout_s: float = 24 * 3600.0
    """Give up waiting after this long (the batch keeps running at the provider)."""
    poll_s: float = 10.0
    """First wait between status checks; it grows by half each poll, up to ``max_poll_s``."""
    max_poll_s: float = 300.0


def custom_id(prompt_id: str, sample: int) -> str:
    """The batch line id for (prompt id, sample): ``<prompt id>#<sample>``. The sample is parsed
    from the last '#', so a prompt id holding '#' still round-trips."""
    return f"{prompt_id}{_SEPARATOR}{sample}"


def _parse_custom_id(value: str) -> tuple[str, int] | None:
    prompt_id, sep, sample = value.rpartition(_SEPARATOR)
    if not sep or not sample.isdigit():
        return None
    return prompt_id, int(sample)


def check_batch_support(model: str) -> str:
    """The LiteLLM provider name for ``model`` if its batch API can be used, else ConfigError.

    Raises:
        ConfigError: LiteLLM cannot route the model, or its provider has no batch support here
            (exit 2, before anything is sent).
    """
    litellm = _import_litellm(model)
    try:
        _, provider, _, _ = litellm.get_llm_provider(model=model)
    except Exception as exc:
        raise ConfigError(
            f"cannot tell which provider serves model '{model}' ({type(exc).__name__})",
            field="--batch",
            hint="Use a provider-prefixed model string such as openai/gpt-4o-mini.",
        ) from exc
    if provider not in BATCH_PROVIDERS:
        raise ConfigError(
            f"--batch is not supported for provider '{provider}' (model '{model}'); it works "
            f"with {', '.join(BATCH_PROVIDERS)}",
            field="--batch",
            hint="Run without --batch (requests are sent one by one), or use a model of a "
            "supported provider. See docs/runs.md, 'Batch runs for scheduled watches'.",
        )
    return str(provider)


def build_lines(
    provider: LiteLLMProvider,
    prompts: Sequence[CanaryPrompt],
    samples: int,
    system_prompt_for: Callable[[CanaryPrompt], str | None],
) -> list[dict[str, Any]]:
    """One batch request line per (prompt, sample), with the parameters a direct call would send
    (:meth:`LiteLLMProvider.request_kwargs`) minus the client's own settings."""
    litellm = _import_litellm(provider.config.model_id)
    bare_model, _, _, _ = litellm.get_llm_provider(model=provider.config.model_id)
    lines = []
    for prompt in prompts:
        kwargs = provider.request_kwargs(prompt, system_prompt=system_prompt_for(prompt))
        body = {k: v for k, v in kwargs.items() if k not in _CLIENT_KEYS}
        body = {"model": bare_model, **body}
        for sample in range(samples):
            lines.append(
                {
                    "custom_id": custom_id(prompt.id, sample),
                    "method": "POST",
                    "url": "/v1/chat/completions",
                    "body": body,
                }
            )
    return lines


def run_batch(
    provider: LiteLLMProvider,
    prompts: Sequence[CanaryPrompt],
    samples: int,
    system_prompt_for: Callable[[CanaryPrompt], str | None],
    settings: BatchSettings,
    *,
    batch_id: str | None = None,
    notify: Callable[[str], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> dict[tuple[str, int], LLMResponse]:
    """Submit the suite as one batch, wait for it, and return its responses by (prompt id, sample).

    With ``batch_id`` (``--batch-id``), the batch submitted earlier is fetched instead: nothing
    is sent but status checks and downloads.

    Raises:
        MeasurementError: the batch failed, expired or was cancelled, or did not finish within
            ``settings.timeout_s`` (the message names the batch id), or a files/batches call
            failed (exit 3).
    """
    say = notify or (lambda _message: None)
    config = provider.config
    litellm = _import_litellm(config.model_id)
    client = _client_kwargs(config, check_batch_support(config.model_id))
    lines = build_lines(provider, prompts, samples, system_prompt_for)
    started = clock()
    if batch_id is not None:
        with _translated(provider, f"check batch {batch_id}"):
            batch = litellm.retrieve_batch(batch_id=batch_id, **client)
        say(f"Batch {batch_id}: {batch.status}{_counts(batch)}.")
        hint = f"Try again later with `--batch-id {batch_id}`."
    else:
        payload = "".join(json.dumps(line) + "\n" for line in lines).encode("utf-8")
        with _translated(provider, "upload the batch file"):
            uploaded = litellm.create_file(
                file=("promptcanary-batch.jsonl", io.BytesIO(payload), "application/jsonl"),
                purpose="batch",
                **client,
            )
        with _translated(provider, "create the batch"):
            batch = litellm.create_batch(
                completion_window="24h",
                endpoint="/v1/chat/completions",
                input_file_id=uploaded.id,
                metadata={"source": "promptcanary"},
                **client,
            )
        say(f"Batch {batch.id} submitted: {len(lines)} requests to {config.model_id}.")
        hint = (
            f"It keeps running at the provider. Fetch it later with `--batch-id {batch.id}` "
            "(same suite and model), or cancel it there."
        )
    batch = _wait(litellm, provider, client, batch, settings, hint, say, sleep, clock, started)
    return _collect(litellm, provider, batch, client, lines)


def _wait(
    litellm: Any,
    provider: LiteLLMProvider,
    client: dict[str, Any],
    batch: Any,
    settings: BatchSettings,
    hint: str,
    say: Callable[[str], None],
    sleep: Callable[[float], None],
    clock: Callable[[], float],
    started: float,
) -> Any:
    """Poll ``batch`` with a growing wait until it is done; a changed status is said.

    Raises:
        MeasurementError: not done within ``settings.timeout_s`` of ``started`` (``hint``: what
            to do about the batch still running).
    """
    wait = settings.poll_s
    last = f"{batch.status}{_counts(batch)}"
    while batch.status not in _DONE:
        elapsed = clock() - started
        if elapsed >= settings.timeout_s:
            raise MeasurementError(
                f"batch {batch.id} did not finish within {_duration(settings.timeout_s)} "
                f"(status: {batch.status}{_counts(batch)})",
                hint=hint,
            )
        sleep(min(wait, max(0.0, settings.timeout_s - elapsed)))
        wait = min(wait * 1.5, settings.max_poll_s)
        with _translated(provider, f"check batch {batch.id}"):
            batch = litellm.retrieve_batch(batch_id=batch.id, **client)
        status = f"{batch.status}{_counts(batch)}"
        if status != last:
            say(f"Batch {batch.id}: {status} ({_duration(clock() - started)}).")
            last = status
    return batch


def _collect(
    litellm: Any,
    provider: LiteLLMProvider,
    batch: Any,
    client: dict[str, Any],
    lines: list[dict[str, Any]],
) -> dict[tuple[str, int], LLMResponse]:
    """The responses of a finished batch.

    An expired or cancelled batch that still produced an output file (OpenAI keeps the requests
    that finished) is collected like a completed one: the rest are errored responses, and the
    run's ``max_error_rate`` decides whether it says anything. Without output it is an error.
    """
    partial = batch.status in ("expired", "cancelled") and getattr(batch, "output_file_id", None)
    if batch.status != "completed" and not partial:
        errors = getattr(batch, "errors", None)
        detail = ""
        data = getattr(errors, "data", None) or (
            errors.get("data") if isinstance(errors, dict) else None
        )
        if data:
            first = data[0]
            text = (
                first.get("message") if isinstance(first, dict) else getattr(first, "message", "")
            )
            detail = f": {text}"
        raise MeasurementError(
            redact(f"batch {batch.id} ended with status '{batch.status}'{detail}"),
            hint="Nothing was scored. Run again (with or without --batch); an expired batch "
            "did not finish within the provider's 24 h window.",
        )
    wanted = {line["custom_id"] for line in lines}
    results: dict[tuple[str, int], LLMResponse] = {}
    for file_id in (getattr(batch, "output_file_id", None), getattr(batch, "error_file_id", None)):
        if not file_id:
            continue
        with _translated(provider, f"download batch file {file_id}"):
            content = litellm.file_content(file_id=file_id, **client)
        for raw in content.content.decode("utf-8").splitlines():
            if not raw.strip():
                continue
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(line, dict) or line.get("custom_id") not in wanted:
                continue
            key = _parse_custom_id(str(line["custom_id"]))
            if key is not None:
                results[key] = _line_response(litellm, provider.config, key, line)
    return results


def _line_response(
    litellm: Any, config: ProviderConfig, key: tuple[str, int], line: dict[str, Any]
) -> LLMResponse:
    """One output or error line as an LLMResponse (errors recorded on it, never raised)."""
    prompt_id, sample = key
    response = line.get("response") or {}
    status = response.get("status_code") if isinstance(response, dict) else None
    body = response.get("body") if isinstance(response, dict) else None
    error = line.get("error")
    if status == 200 and isinstance(body, dict) and not error:
        try:
            choice = body["choices"][0]
            message = choice.get("message") or {}
            usage = body.get("usage") or {}
            return LLMResponse(
                prompt_id=prompt_id,
                provider_model_id=config.model_id,
                sample=sample,
                content=message.get("content") or "",
                finish_reason=choice.get("finish_reason"),
                prompt_tokens=usage.get("prompt_tokens"),
                completion_tokens=usage.get("completion_tokens"),
                total_tokens=usage.get("total_tokens"),
                raw_response=_dump(body),
                cost_usd=_batch_cost(litellm, config, usage),
                response_model=body.get("model") or None,
                system_fingerprint=body.get("system_fingerprint") or None,
                tool_calls=message.get("tool_calls") or None,
                attempts=1,
            )
        except (KeyError, IndexError, TypeError, AttributeError, ValueError):
            error = {"message": "the batch answered with something that is not a chat completion"}
    if not error and isinstance(body, dict):
        error = body.get("error")
    text = error.get("message") if isinstance(error, dict) else str(error or "no response")
    kind = "server" if isinstance(status, int) and status >= 500 else "bad_request"
    if status in (401, 403):
        kind = "auth"
    elif status == 429:
        kind = "rate_limit"
    return LLMResponse(
        prompt_id=prompt_id,
        provider_model_id=config.model_id,
        sample=sample,
        error=redact(f"Batch request failed: {text}"),
        error_status=status if isinstance(status, int) else None,
        error_type=kind,
        attempts=1,
    )


def _batch_cost(litellm: Any, config: ProviderConfig, usage: dict[str, Any]) -> float | None:
    """Cost at the provider's batch prices: half the suite's ``price:`` when it gives one (as
    LiteLLM prices a model without batch rates), else LiteLLM's map; None when unknown."""
    extra = config.extra_params
    if "input_cost_per_token" in extra or "output_cost_per_token" in extra:
        prompt = (usage.get("prompt_tokens") or 0) * float(extra.get("input_cost_per_token") or 0)
        completion = (usage.get("completion_tokens") or 0) * float(
            extra.get("output_cost_per_token") or 0
        )
        return (prompt + completion) / 2
    model = config.model_id
    try:
        from litellm.cost_calculator import batch_cost_calculator
        from litellm.types.utils import Usage

        prompt_cost, completion_cost = batch_cost_calculator(
            Usage(
                prompt_tokens=usage.get("prompt_tokens") or 0,
                completion_tokens=usage.get("completion_tokens") or 0,
                total_tokens=usage.get("total_tokens") or 0,
            ),
            model,
        )
        total = float(prompt_cost) + float(completion_cost)
    except Exception:
        return None
    return total if total > 0 else None


def _client_kwargs(config: ProviderConfig, provider_name: str) -> dict[str, Any]:
    """Where and as whom the files/batches calls go: the model's api_base / api_key, if set."""
    kwargs: dict[str, Any] = {"custom_llm_provider": provider_name}
    for key in ("api_base", "api_key", "organization"):
        value = config.extra_params.get(key)
        if value:
            kwargs[key] = value
    return kwargs


@contextlib.contextmanager
def _translated(provider: LiteLLMProvider, doing: str) -> Iterator[None]:
    """Turn any exception of a files/batches call into a MeasurementError (redacted, exit 3)."""
    try:
        yield
    except MeasurementError:
        raise
    except Exception as exc:
        error = provider._error(exc)
        raise MeasurementError(
            f"could not {doing}: {error}",
            hint=error.hint or "Check the provider, its API key and --api-base.",
        ) from exc


def _counts(batch: Any) -> str:
    counts = getattr(batch, "request_counts", None)
    total = getattr(counts, "total", None)
    if not total:
        return ""
    done = (getattr(counts, "completed", 0) or 0) + (getattr(counts, "failed", 0) or 0)
    return f", {done}/{total} done"


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:g} h"
    if seconds >= 60:
        return f"{seconds / 60:g} min"
    return f"{seconds:.3g} s"


class BatchResultsProvider(RecordedProvider):
    """Answers each (prompt id, sample) from a finished batch, so probes run through the engine.

    A request the batch has no line for is recorded as errored (``error_type="batch_missing"``).
    A batch has no per-request latency, so none is recorded (a latency probe reports *errored*,
    and the run's latency percentiles are left out).
    """

    def __init__(self, config: ProviderConfig, results: dict[tuple[str, int], LLMResponse]) -> None:
        super().__init__(config, results, source="the batch", kind="batch")
