"""LiteLLMProvider: any model LiteLLM can reach (OpenAI, Anthropic, Bedrock, Ollama, ...).

``litellm`` is imported only when a model is actually called (it costs seconds and hundreds of MB),
and with ``LITELLM_LOCAL_MODEL_COST_MAP=True`` unless the user set it, so importing it never goes to
the network. LiteLLM's own retries are turned off: the runner retries (see core/run/retry.py), with
backoff, Retry-After and rate-limit adaptation, for every provider alike.
"""

from __future__ import annotations

import os
import re
import time
from typing import Any

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProviderConfig
from promptcanary.core.run.retry import parse_retry_after
from promptcanary.core.text import clip
from promptcanary.errors import ProviderAuthError, ProviderError, redact
from promptcanary.providers import litellm_transport
from promptcanary.providers.base import BaseLLMProvider

__all__ = ["LiteLLMProvider"]

#: Longest provider error text kept in a message (LiteLLM sometimes echoes whole bodies).
_MAX_ERROR_TEXT = 500
#: "litellm.RateLimitError: RateLimitError: " — LiteLLM repeats the class name we already show.
_LITELLM_PREFIX = re.compile(r"^(?:litellm\.\w+:\s*)?(?:\w+Error:\s*)*")


_frozen = False


def _import_litellm(model_id: str) -> Any:
    global _frozen
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError as exc:  # pragma: no cover - litellm is a hard dependency
        raise ProviderError(
            "LiteLLM is not installed.",
            model_id=model_id,
            retryable=False,
            hint="Run: pip install litellm",
        ) from exc
    if not _frozen:
        _frozen = True
        # LiteLLM's import leaves ~370,000 long-lived objects (modules, the price map, pydantic
        # models), and every full collection of the cyclic GC during a run walks them all again
        # (~0.2 s each). gc.freeze() moves the objects alive now into a permanent generation the
        # collector skips: 2,000 requests took 20-25 % less CPU (docs/benchmarks.md, "Load").
        import gc

        gc.freeze()
    # LiteLLM prints "Give Feedback / Get Help" banners on every exception; we report errors
    # ourselves, once, so silence them.
    litellm.suppress_debug_info = True
    return litellm


class LiteLLMProvider(BaseLLMProvider):
    """LLM provider backed by the LiteLLM library.

    This is the recommended provider for PromptCanary. It supports all major cloud providers and
    local models via a single unified interface.

    Args:
        model_id_or_config: Either a LiteLLM model string (e.g. ``"openai/gpt-4o"``) or a
            :class:`ProviderConfig`.
        temperature: Sampling temperature (default: 0.0 for reproducibility).
        max_tokens: Max tokens in the response (default: 1024).
        seed: Determinism seed (default: 42).
        extra_params: Additional kwargs forwarded to ``litellm.completion()`` (a dict), merged
            with ``**extra_params``. ``api_base`` and ``api_key`` pass through; secret-looking
            keys are never written to a run or baseline file.
        **extra_params: Additional kwargs forwarded to ``litellm.completion()``.

    Examples::

        provider = LiteLLMProvider("openai/gpt-4o-mini")
        provider = LiteLLMProvider("ollama/llama3", temperature=0.0)
        provider = LiteLLMProvider(
            "openai/gpt-4o",
            temperature=0.0,
            max_tokens=2048,
            extra_params={"response_format": {"type": "json_object"}},
        )
    """

    def __init__(
        self,
        model_id_or_config: str | ProviderConfig,
        *,
        temperature: float = 0.0,
        max_tokens: int = 1024,
        seed: int | None = 42,
        **extra_params: Any,
    ) -> None:
        if isinstance(model_id_or_config, ProviderConfig):
            config = model_id_or_config
        else:
            merged: dict[str, Any] = {}
            nested = extra_params.pop("extra_params", None)
            if nested is not None:
                if not isinstance(nested, dict):
                    raise TypeError("extra_params must be a dict of keyword arguments for LiteLLM")
                merged.update(nested)
            merged.update(extra_params)
            config = ProviderConfig(
                model_id=model_id_or_config,
                temperature=temperature,
                max_tokens=max_tokens,
                seed=seed,
                extra_params=merged,
            )
        super().__init__(config)

    @classmethod
    def from_config(cls, config: ProviderConfig) -> LiteLLMProvider:
        """Create a provider directly from a :class:`ProviderConfig`."""
        return cls(config)

    def __repr__(self) -> str:
        return f"LiteLLMProvider({self.config!r})"

    # ── calls ──

    def complete(self, prompt: CanaryPrompt, *, system_prompt: str | None = None) -> LLMResponse:
        """Call the LLM via LiteLLM and return a structured :class:`LLMResponse`.

        Raises:
            ProviderAuthError: The credentials were refused (401/403).
            ProviderError: On any other API or network error (with ``status_code`` and
                ``retry_after_s`` when the provider sent them).
        """
        litellm = _import_litellm(self.config.model_id)
        kwargs = self.request_kwargs(prompt, system_prompt=system_prompt)
        started = time.perf_counter()
        try:
            response = litellm.completion(**kwargs)
        except Exception as exc:
            raise self._error(exc) from exc
        return self._to_response(litellm, prompt, response, started)

    async def acomplete(
        self, prompt: CanaryPrompt, *, system_prompt: str | None = None
    ) -> LLMResponse:
        """Async variant of :meth:`complete`, using ``litellm.acompletion``."""
        litellm = _import_litellm(self.config.model_id)
        kwargs = self.request_kwargs(prompt, system_prompt=system_prompt)
        started = time.perf_counter()
        try:
            if litellm_transport.eligible(kwargs):  # same results, ~0.6x the CPU (issue 23)
                response = await litellm_transport.acompletion(litellm, kwargs)
            else:
                response = await litellm.acompletion(**kwargs)
        except Exception as exc:
            raise self._error(exc) from exc
        return self._to_response(litellm, prompt, response, started)

    def request_kwargs(
        self, prompt: CanaryPrompt, *, system_prompt: str | None = None
    ) -> dict[str, Any]:
        """The keyword arguments given to LiteLLM for ``prompt`` (secrets included: don't log)."""
        messages: list[dict[str, str]] = []
        if system_prompt:
            messages.append({"role": "system", "content": system_prompt})
        messages.append({"role": "user", "content": prompt.text})
        kwargs: dict[str, Any] = {
            "model": self.config.model_id,
            "messages": messages,
            "temperature": self.config.temperature,
            "max_tokens": self.config.max_tokens,
            **self.config.extra_params,
        }
        if self.config.seed is not None:
            kwargs.setdefault("seed", self.config.seed)
        if prompt.tools:
            kwargs["tools"] = prompt.tools
        # The runner owns retries (backoff, Retry-After, AIMD); LiteLLM retrying underneath
        # would multiply attempts and hide 429s from the limiter.
        kwargs["num_retries"] = 0
        kwargs["max_retries"] = 0
        return kwargs

    # ── translation ──

    def _to_response(
        self, litellm: Any, prompt: CanaryPrompt, response: Any, started: float
    ) -> LLMResponse:
        latency_ms = round((time.perf_counter() - started) * 1000, 2)
        try:
            choice = response.choices[0]
            message = choice.message
            content = message.content or ""
            finish_reason = choice.finish_reason
        except (AttributeError, IndexError, TypeError) as exc:
            raise ProviderError(
                f"Unexpected response structure from {self.config.model_id}: {exc}",
                model_id=self.config.model_id,
                raw_error=exc,
            ) from exc
        usage = getattr(response, "usage", None)
        return LLMResponse(
            prompt_id=prompt.id,
            provider_model_id=self.config.model_id,
            content=content,
            finish_reason=finish_reason,
            prompt_tokens=getattr(usage, "prompt_tokens", None),
            completion_tokens=getattr(usage, "completion_tokens", None),
            total_tokens=getattr(usage, "total_tokens", None),
            latency_ms=latency_ms,
            raw_response=_dump(response),
            cost_usd=_cost(litellm, response),
            response_model=getattr(response, "model", None) or None,
            system_fingerprint=getattr(response, "system_fingerprint", None) or None,
            tool_calls=_tool_calls(getattr(message, "tool_calls", None)),
        )

    def _error(self, exc: BaseException) -> ProviderError:
        """Translate any LiteLLM / network exception into a ProviderError (redacted)."""
        unreadable = _unreadable_body(exc)
        if unreadable is not None:
            return self._unreadable_error(exc, unreadable)
        status = getattr(exc, "status_code", None)
        status = status if isinstance(status, int) else None
        headers = getattr(exc, "litellm_response_headers", None)
        if headers is None:
            headers = getattr(getattr(exc, "response", None), "headers", None)
        try:
            retry_after = parse_retry_after(headers)
        except Exception:  # headers of an unexpected type: no hint, not a crash
            retry_after = None
        text = clip(_LITELLM_PREFIX.sub("", " ".join(str(exc).split())), _MAX_ERROR_TEXT)
        if _is_connection_error(exc, text):
            # LiteLLM says only "Connection error": name where it tried to connect.
            where = self.config.extra_params.get("api_base") or "the provider's default endpoint"
            text += f" (could not connect to {where})"
        # "Provider call failed: ..." as in promptcanary 0.2; str() adds the model and status.
        message = redact(f"Provider call failed: {type(exc).__name__}: {text}")
        api_key = self.config.extra_params.get("api_key")
        if isinstance(api_key, str) and api_key:
            message = redact(message, extra_secrets=[api_key])
        cls = ProviderAuthError if status in (401, 403) else ProviderError
        return cls(
            message,
            model_id=self.config.model_id,
            status_code=status,
            raw_error=exc,
            retry_after_s=retry_after,
        )

    def _unreadable_error(self, exc: BaseException, what: str) -> ProviderError:
        message = redact(f"{self.config.model_id}: the server answered with {what}")
        api_key = self.config.extra_params.get("api_key")
        if isinstance(api_key, str) and api_key:
            message = redact(message, extra_secrets=[api_key])
        return ProviderError(
            message,
            model_id=self.config.model_id,
            status_code=200,
            raw_error=exc,
            # The same request gets the same page: retrying would only spend time.
            retryable=False,
            hint="Check --api-base / OPENAI_API_BASE: it should be the API's base URL (often "
            "ending in /v1), not a web page, login page or proxy in front of it.",
        )


# LiteLLM reports a 2xx reply it cannot read as a 500 (InternalServerError), which would be retried
# like a server fault. Its OpenAI client says which case it was, in one of two ways:
# * the body was declared JSON but does not parse: a JSONDecodeError (holding the body) is in the
#   exception chain;
# * the Content-Type was not JSON, so the body came back as text: "... Received: '<text>'. Check".
_RECEIVED_TEXT = re.compile(
    r"Empty or invalid response from LLM endpoint\. Received: (.*?)\. Check", re.S
)
_NO_CHOICES = re.compile(r"provider returned a response with no 'choices'(.*)")
#: Characters of an unreadable body quoted in the message.
_BODY_PREVIEW = 120


def _unreadable_body(exc: BaseException) -> str | None:
    """How a 2xx reply that is not a chat completion looked, or None for any other error."""
    import json

    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, json.JSONDecodeError):
            return (
                "a body that is not JSON although its Content-Type says JSON "
                f"(first bytes: {_preview(current.doc)})"
            )
        current = current.__cause__ or current.__context__
    text = str(exc)
    received = _RECEIVED_TEXT.search(text)
    if received:
        shown = received.group(1)
        if shown.startswith(("'", '"')):  # the body as text: the Content-Type was not JSON
            import ast

            try:
                body = ast.literal_eval(shown)
            except (ValueError, SyntaxError):
                body = shown
            return (
                "a body that is not JSON (its Content-Type is not JSON; "
                f"first bytes: {_preview(str(body))})"
            )
        return f"JSON that is not a chat completion (received {_preview(shown)})"
    no_choices = _NO_CHOICES.search(text)
    if no_choices:
        return "JSON that is not a chat completion (no 'choices'" + (
            f"; {no_choices.group(1).strip(' .')})" if no_choices.group(1).strip(" .") else ")"
        )
    return None


def _preview(body: str) -> str:
    if not body:
        return "(empty)"
    flat = " ".join(body.split())
    return repr(flat if len(flat) <= _BODY_PREVIEW else flat[:_BODY_PREVIEW] + "…")


def _cost(litellm: Any, response: Any) -> float | None:
    """Cost in USD from LiteLLM's price map; None when the model is unknown. Never raises."""
    hidden = getattr(response, "_hidden_params", None) or {}
    # LiteLLM already priced the response while logging it; pricing it again costs ~2 ms a call.
    if "response_cost" in hidden:
        value = hidden.get("response_cost")
    else:
        try:
            value = litellm.completion_cost(completion_response=response)
        except Exception:
            value = None
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _tool_calls(raw: Any) -> list[dict[str, Any]] | None:
    """Tool calls as plain OpenAI-shaped dicts: {id, type, function: {name, arguments}}."""
    if not raw:
        return None
    calls: list[dict[str, Any]] = []
    for call in raw:
        data = call if isinstance(call, dict) else _dump(call)
        function = data.get("function") or {}
        if not isinstance(function, dict):
            function = _dump(function)
        calls.append(
            {
                "id": data.get("id"),
                "type": data.get("type") or "function",
                "function": {
                    "name": function.get("name"),
                    "arguments": function.get("arguments") or "",
                },
            }
        )
    return calls


def _dump(obj: Any) -> dict[str, Any]:
    for method in ("model_dump", "dict"):
        fn = getattr(obj, method, None)
        if callable(fn):
            try:
                data = fn()
            except Exception:
                continue
            if isinstance(data, dict):
                return data
    return {}


def token_price(model_id: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """USD for these tokens on ``model_id`` from LiteLLM's local price map; None if unpriced."""
    if not model_id:
        return None
    try:
        litellm = _import_litellm(model_id)
        prompt_cost, completion_cost = litellm.cost_per_token(
            model=model_id, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
        )
    except Exception:  # LiteLLM raises several kinds for an unmapped model; all mean "no price"
        return None
    return float(prompt_cost) + float(completion_cost)


def _is_connection_error(exc: BaseException, text: str) -> bool:
    """True for a refused or unreachable endpoint (LiteLLM reports some as a 500)."""
    return type(exc).__name__ == "APIConnectionError" or "connection error" in text.lower()
