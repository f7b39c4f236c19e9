"""LiteLLMProvider: any model LiteLLM can reach (OpenAI, Anthropic, Bedrock, Ollama, ...).

``litellm`` is imported only when a model is actually called (it costs seconds and hundreds of MB),
and with ``LITELLM_LOCAL_MODEL_COST_MAP=True`` unless the user set it, so importing it never goes to
the network. LiteLLM's own retries are turned off: the runner retries (see core/run/retry.py), with
backoff, Retry-After and rate-limit adaptation, for every provider alike; this module only reads the
wait a server asked for (:func:`~promptcanary.providers.base.parse_retry_after`).
"""

from __future__ import annotations

import functools
import gc
import os
import sys
import time
from typing import Any

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProviderConfig
from promptcanary.errors import ProviderAuthError, ProviderError, RequestNotSentError, redact
from promptcanary.providers import litellm_transport
from promptcanary.providers.base import BaseLLMProvider, parse_retry_after
from promptcanary.providers.litellm_files import defer_file_ids
from promptcanary.providers.litellm_messages import (
    is_connection_error,
    not_sent,
    short_text,
    unreadable_body,
)

__all__ = ["LiteLLMProvider"]

_frozen = False


def import_litellm() -> Any:
    """``import litellm``, the way every model-calling path imports it: never to the network
    (``LITELLM_LOCAL_MODEL_COST_MAP=True`` unless the user set it), with the cyclic garbage
    collector paused while it runs, and what it built moved out of the collector's way.

    The import builds ~530,000 long-lived objects (3,000 modules, thousands of pydantic models,
    the price map) and almost no garbage (about 2,000 unreachable objects when it ends), yet the
    collector, triggered every 700 allocations, walks the growing heap again and again meanwhile.
    Paused, and the objects then frozen (``gc.freeze()``: a permanent generation the collector
    skips; frozen once, they are never walked — unfrozen, the next collections of each
    generation would walk all of them), the import took 29 % less CPU (7.0 -> 5.0 s at load 4,
    five alternated runs; docs/benchmarks.md, "Start-up of a model-calling command"). The
    collector is switched back on afterwards unless something else had it off. Raises
    ImportError as ``import`` does.
    """
    global _frozen
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    if "litellm" in sys.modules:  # imported (or being imported by another thread: import waits)
        import litellm

        return litellm
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        import litellm

        gc.freeze()
        _frozen = True
    finally:
        if was_enabled:
            gc.enable()
    return litellm


def _import_litellm(model_id: str) -> Any:
    global _frozen
    try:
        litellm = import_litellm()
    except ImportError as exc:  # pragma: no cover - litellm is a hard dependency
        raise ProviderError(
            "LiteLLM is not installed.",
            model_id=model_id,
            retryable=False,
            hint="Run: pip install litellm",
        ) from exc
    if not _frozen:
        _frozen = True
        # LiteLLM was imported by someone else (import_litellm freezes what it imports): its
        # ~370,000 long-lived objects (modules, the price map, pydantic models) would be walked
        # again by every full collection of the cyclic GC during a run (~0.2 s each). gc.freeze()
        # moves the objects alive now into a permanent generation the collector skips: 2,000
        # requests took 20-25 % less CPU (docs/benchmarks.md, "Load").
        gc.freeze()
    # LiteLLM prints "Give Feedback / Get Help" banners on every exception; we report errors
    # ourselves, once, so silence them.
    litellm.suppress_debug_info = True
    # Its first call would import its proxy's modules to rewrite file ids no prompt carries.
    defer_file_ids(sys.modules.get("litellm.main"))
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

    def sendable(self, config: ProviderConfig) -> ProviderConfig:
        """``config`` without the sampling parameters the model does not accept (LiteLLM would
        refuse every request: Anthropic, and Claude on Bedrock or Vertex AI, take no seed)."""
        refused = [p for p in _SAMPLING if _set(config, p) and not accepts(config, p)]
        if not refused and not config.unsupported_params:
            return config
        update: dict[str, Any] = {"unsupported_params": refused}
        if "seed" in refused:
            update["seed"] = None
        return config.model_copy(update=update)

    def with_price(self, input_per_million: float, output_per_million: float) -> LiteLLMProvider:
        """This provider with the model's price given (LiteLLM prices each response with it,
        instead of its own map: ``input_cost_per_token`` / ``output_cost_per_token``)."""
        extra = {
            **self.config.extra_params,
            "input_cost_per_token": input_per_million / 1e6,
            "output_cost_per_token": output_per_million / 1e6,
        }
        clone = self.with_config(self.config.model_copy(update={"extra_params": extra}))
        assert isinstance(clone, LiteLLMProvider)
        return clone

    def price_known(self) -> bool:
        """Whether responses will carry a cost: a price was given, or LiteLLM's map has one."""
        extra = self.config.extra_params
        if "input_cost_per_token" in extra or "output_cost_per_token" in extra:
            return True
        return token_price(self.config.model_id, 1000, 1000) is not None

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
        for name in _SAMPLING:
            # A provider used without the runner (which records this in the run) still sends
            # only what the model accepts.
            if name in kwargs and not accepts(self.config, name):
                del kwargs[name]
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
        unreadable = unreadable_body(exc)
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
        text = short_text(exc)
        if not_sent(exc, headers, text):
            return self._not_sent_error(exc, text)
        if is_connection_error(exc, text):
            # LiteLLM says only "Connection error": name where it tried to connect.
            where = self.config.extra_params.get("api_base") or "the provider's default endpoint"
            text += f" (could not connect to {where})"
        # "Provider call failed: ..." as in promptcanary 0.2; str() adds the model and status.
        message = self._redacted(f"Provider call failed: {type(exc).__name__}: {text}")
        # Google's API answers a wrong key with 400 INVALID_ARGUMENT (reason API_KEY_INVALID): a
        # refused credential all the same, which stops the run like a 401.
        refused = status in (401, 403) or (status == 400 and "API_KEY_INVALID" in text)
        cls = ProviderAuthError if refused else ProviderError
        return cls(
            message,
            model_id=self.config.model_id,
            status_code=status,
            raw_error=exc,
            retry_after_s=retry_after,
        )

    def _redacted(self, text: str) -> str:
        """``text`` without secrets: the environment's keys and an ``api_key`` given directly."""
        api_key = self.config.extra_params.get("api_key")
        extra = [api_key] if isinstance(api_key, str) and api_key else []
        return redact(text, extra_secrets=extra)

    def _not_sent_error(self, exc: BaseException, text: str) -> ProviderError:
        message = self._redacted(f"LiteLLM did not send the request: {text}")
        return RequestNotSentError(
            message,
            model_id=self.config.model_id,
            raw_error=exc,
            hint="Nothing reached the server, so trying again cannot help. Set the credentials "
            "the provider needs, or leave out the parameter it does not accept "
            "(docs/providers.md).",
        )

    def _unreadable_error(self, exc: BaseException, what: str) -> ProviderError:
        message = self._redacted(f"{self.config.model_id}: the server answered with {what}")
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


#: Sampling parameters sent only where the model accepts them.
_SAMPLING = ("seed", "temperature", "max_tokens")


def _set(config: ProviderConfig, name: str) -> bool:
    return getattr(config, name) is not None


def accepts(config: ProviderConfig, param: str) -> bool:
    """Whether LiteLLM sends ``param`` (an OpenAI parameter name) to ``config``'s model.

    Asks LiteLLM (``get_supported_openai_params``) once per model and base URL; a model it cannot
    tell about is assumed to accept everything, as before.
    """
    api_base = config.extra_params.get("api_base")
    supported = _supported(config.model_id, api_base if isinstance(api_base, str) else None)
    return supported is None or param in supported


@functools.lru_cache(maxsize=64)
def _supported(model_id: str, api_base: str | None) -> frozenset[str] | None:
    litellm = _import_litellm(model_id)
    try:
        model, provider, _, _ = litellm.get_llm_provider(model=model_id, api_base=api_base)
        params = litellm.get_supported_openai_params(model=model, custom_llm_provider=provider)
    except Exception:  # an unroutable model fails later, with LiteLLM's own message
        return None
    return frozenset(params) if params else None
