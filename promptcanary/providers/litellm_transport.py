"""The cheapest correct way through LiteLLM to an OpenAI-compatible server (issue 23).

``openai/<model>`` goes LiteLLM → the OpenAI SDK → httpx → LiteLLM's aiohttp transport, and costs
about 4 ms of CPU per request on a small machine: a run of thousands of requests is CPU-bound.
LiteLLM's own ``aiohttp_openai/<model>`` route posts the same JSON body with aiohttp directly and
costs about 0.6x that, but is not a drop-in (LiteLLM 1.110, measured through the loopback server;
docs/benchmarks.md, "LiteLLM's routes"):

* its response drops ``usage`` (every count 0) and so prices nothing;
* every HTTP error becomes a 500 ``InternalServerError`` (aiohttp's error has ``status``, LiteLLM
  reads ``status_code``) with the reason phrase instead of the server's message: a 401 would be
  retried and a 429 would not slow the run down;
* ``timeout`` is ignored, a cached session breaks the second ``asyncio.run`` of a process
  ("Event loop is closed"), and a body that is not a chat completion raises a different error.

This module takes that route only where each difference is adapted, and only for calls whose
parameters it knows (:func:`eligible`); everything else keeps ``openai/``. The adapters are all
LiteLLM's own extension points, no second HTTP client:

* a ``ClientSession`` per event loop, passed as LiteLLM's ``client=`` and closed when that loop
  shuts down (``asyncio.run`` finalizes async generators; the session lives in one);
* the session's ``raise_for_status`` hook reads an error reply and raises what LiteLLM's aiohttp
  handler maps by ``status_code``, with the server's message and headers (hence Retry-After);
  LiteLLM's exception mapper is then run again as ``openai`` (it words and classes some statuses
  differently per provider), and a refused or dropped connection becomes openai/'s
  "Connection error.";
* TLS, proxies and cookies as LiteLLM's own aiohttp transport (under ``openai/``) sets them;
* :class:`_ChatConfig` — LiteLLM's ``AiohttpOpenAIChatConfig`` with ``usage`` kept and an unreadable
  reply reported as ``openai/`` reports it (a ``JSONDecodeError`` in the chain, or the same
  "Empty or invalid response" / "no 'choices'" wording ``LiteLLMProvider`` recognises);
* the cost: LiteLLM would price ``aiohttp_openai/<model>`` (unknown to its price map, and the
  slowest path of its calculator); it is told a nominal price instead, the reply carries the cost
  of that price before LiteLLM prices it (so its calculator, ~0.3 ms a call, does not run), and the
  response is priced here as ``openai/<model>`` by LiteLLM's ``completion_cost`` — memoized per
  usage, since a suite repeats the same token counts many times;
* ``timeout`` bounds connecting and reading, as httpx's does, and is raised as LiteLLM's ``Timeout``.

``PROMPTCANARY_LITELLM_ROUTE=openai`` turns the fast route off. tests/integration/
test_litellm_transport.py proves the parity through the loopback server, for every case above.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import ssl
import sys
import time
import weakref
from collections.abc import AsyncIterator
from typing import Any

__all__ = ["acompletion", "eligible"]

#: Keyword arguments the fast route is proven to treat as ``openai/`` does (anything else — e.g.
#: ``response_format``, ``extra_headers``, ``stream``, ``drop_params`` — keeps ``openai/``).
_KNOWN = frozenset(
    {
        "model",
        "messages",
        "temperature",
        "max_tokens",
        "seed",
        "tools",
        "api_base",
        "api_key",
        "timeout",
        "num_retries",
        "max_retries",
    }
)
_PREFIX = "openai/"
_NOMINAL_PRICE = 1e-12
_ENV = "PROMPTCANARY_LITELLM_ROUTE"


def eligible(kwargs: dict[str, Any]) -> bool:
    """True when this call can take the fast route: an ``openai/`` model at an explicit
    ``api_base`` (an OpenAI-compatible server; api.openai.com itself keeps the SDK, whose extra
    headers and defaults cannot be proven equal offline) with parameters from :data:`_KNOWN`, and
    a key (given, or where both routes read it: ``litellm.api_key``, ``litellm.openai_key``,
    ``OPENAI_API_KEY``). Without one the SDK refuses before sending ("Missing credentials")
    while ``aiohttp_openai/`` would send "Bearer None": that case keeps ``openai/``."""
    if os.environ.get(_ENV, "").strip().lower() == "openai":
        return False
    model = kwargs.get("model")
    return (
        isinstance(model, str)
        and model.startswith(_PREFIX)
        and isinstance(kwargs.get("api_base"), str)
        and bool(kwargs["api_base"])
        and _has_key(kwargs.get("api_key"))
        and set(kwargs) <= _KNOWN
    )


def _has_key(given: Any) -> bool:
    if isinstance(given, str) and given:
        return True
    litellm = sys.modules.get("litellm")
    configured = [getattr(litellm, "api_key", None), getattr(litellm, "openai_key", None)]
    return any(isinstance(k, str) and k for k in configured) or bool(
        os.environ.get("OPENAI_API_KEY")
    )


async def acompletion(litellm: Any, kwargs: dict[str, Any]) -> Any:
    """``litellm.acompletion(**kwargs)`` through ``aiohttp_openai/``; same response and errors."""
    _install(litellm)
    model = kwargs["model"]
    call = dict(kwargs)
    call["model"] = "aiohttp_openai/" + model[len(_PREFIX) :]
    timeout = call.pop("timeout", None)
    limit = float(timeout) if timeout is not None else float(litellm.request_timeout)
    call["client"] = await _session(litellm, limit)
    # Priced below, once per distinct usage, as openai/<model>. LiteLLM's own pricing of the
    # aiohttp_openai/ name finds no price and takes its slowest path; a nominal custom price (its
    # result is replaced) takes the shortest — not zero, which runs its zero-cost diagnostics
    # (13 % more Python calls per request, measured with cProfile).
    call["input_cost_per_token"] = _NOMINAL_PRICE
    call["output_cost_per_token"] = _NOMINAL_PRICE
    started = time.perf_counter()
    try:
        response = await litellm.acompletion(**call)
    except Exception as exc:
        if _timed_out(exc):
            # LiteLLM's aiohttp handler reports a timeout as a 500; openai/ raises Timeout (408),
            # worded so (a report reads the same whichever route was taken).
            raise litellm.Timeout(
                message=f"APITimeoutError - Request timed out. Error_str: Request timed out. - "
                f"timeout value={limit}, time taken={round(time.perf_counter() - started, 2)} seconds",
                model=model,
                llm_provider="openai",
            ) from exc
        mapped = _as_openai(litellm, exc, model)
        if mapped is exc:
            raise
        raise mapped from exc
    hidden = getattr(response, "_hidden_params", None)
    if isinstance(hidden, dict):
        # What openai/ records, then its price (LiteLLM reads the provider from here).
        hidden["custom_llm_provider"] = "openai"
        hidden["litellm_model_name"] = model
        hidden.pop("response_cost", None)
        hidden["response_cost"] = _price(litellm, model, response)
    return response


def _as_openai(litellm: Any, exc: Exception, model: str) -> Exception:
    """The exception openai/ raises for the same reply.

    LiteLLM maps a provider's error to its exception classes by provider name, and words and
    classes differ between ``aiohttp_openai`` and ``openai`` (a 403 is a PermissionDeniedError on
    one, an APIError on the other; a 408 is worded differently). So the error LiteLLM's aiohttp
    handler raised (in the chain, with the status, the server's message and headers) is mapped
    again by LiteLLM's own mapper, as ``openai``.
    """
    # LiteLLM's internals are untyped: reached through import_module, typed Any.
    mapping: Any = importlib.import_module("litellm.litellm_core_utils.exception_mapping_utils")
    original = _provider_error(litellm, exc)
    if _in_chain(exc, importlib.import_module("aiohttp").ClientConnectionError):
        # Refused, reset or dropped: openai/ reports "Connection error." (the OpenAI SDK's words)
        # as a 500 for all of them, and LiteLLMProvider names the URL it could not reach.
        common: Any = importlib.import_module("litellm.llms.openai.common_utils")
        original = common.OpenAIError(status_code=500, message="Connection error.")
    if original is None:
        return exc
    try:
        mapping.exception_type(
            model=model[len(_PREFIX) :], original_exception=original, custom_llm_provider="openai"
        )
    except Exception as mapped:  # exception_type raises the mapped exception
        return mapped
    return exc


def _in_chain(exc: BaseException, kind: type[BaseException]) -> bool:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, kind):
            return True
        current = current.__cause__ or current.__context__
    return False


def _provider_error(litellm: Any, exc: BaseException) -> BaseException | None:
    """The provider error under LiteLLM's mapped exception: the first in the chain that is not
    one of LiteLLM's public exceptions and carries a status code."""
    public = tuple(litellm.LITELLM_EXCEPTION_TYPES)
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if not isinstance(current, public) and isinstance(
            getattr(current, "status_code", None), int
        ):
            return current
        current = current.__cause__ or current.__context__
    return None


# ── the session: one per event loop, closed with it ──────────────────────────────────────────

_sessions: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[float, tuple[Any, Any]]] = (
    weakref.WeakKeyDictionary()
)


async def _session(litellm: Any, limit: float) -> Any:
    """The session of the running loop for this timeout (a run has one timeout: one session)."""
    loop = asyncio.get_running_loop()
    held = _sessions.setdefault(loop, {})
    if limit in held and not held[limit][0].closed:
        return held[limit][0]
    import aiohttp

    # TLS and proxies as LiteLLM's own aiohttp transport (under openai/) sets them: its CA bundle
    # (certifi, SSL_CERT_FILE, litellm.ssl_verify), force_ipv4, HTTP(S)_PROXY only when
    # litellm.aiohttp_trust_env / AIOHTTP_TRUST_ENV say so, and no cookie jar.
    handler: Any = importlib.import_module("litellm.llms.custom_httpx.http_handler")
    ssl_config = handler.get_ssl_configuration()
    connector_kwargs = handler.AsyncHTTPHandler._get_ssl_connector_kwargs(
        ssl_verify=ssl_config if isinstance(ssl_config, bool) else None,
        ssl_context=ssl_config if isinstance(ssl_config, ssl.SSLContext) else None,
    )
    trust_env = bool(litellm.aiohttp_trust_env) or os.environ.get(
        "AIOHTTP_TRUST_ENV", ""
    ).strip().lower() in ("1", "true", "yes", "on")
    session = aiohttp.ClientSession(
        # The runner bounds concurrency. httpx's timeout (openai/) bounds connecting and each
        # wait for bytes, not the whole request: so does this one.
        connector=aiohttp.TCPConnector(limit=0, **connector_kwargs),
        timeout=aiohttp.ClientTimeout(total=None, sock_connect=limit, sock_read=limit),
        raise_for_status=_raise_for_status,
        trust_env=trust_env,
        cookie_jar=aiohttp.DummyCookieJar(),
    )
    holder = _hold(session)
    await holder.__anext__()
    held[limit] = (session, holder)
    return session


def _timed_out(exc: BaseException) -> bool:
    return _in_chain(exc, asyncio.TimeoutError) or _in_chain(exc, TimeoutError)


async def _hold(session: Any) -> AsyncIterator[None]:
    # asyncio.run() closes every async generator still suspended on its loop before closing the
    # loop (shutdown_asyncgens): the session is closed there, on its own loop, without warnings.
    try:
        yield
    finally:
        await session.close()


class _HTTPStatusError(Exception):
    """An error reply, shaped as LiteLLM's aiohttp handler reads it (``status_code``, ``text``,
    ``headers``): it maps the status to the exception ``openai/`` raises (401
    AuthenticationError, 429 RateLimitError, ...)."""

    def __init__(self, status_code: int, text: str, headers: dict[str, str]) -> None:
        super().__init__(text)
        self.status_code = status_code
        self.text = text
        self.headers = headers


async def _raise_for_status(response: Any) -> None:
    if response.status < 400:
        return
    body = await response.text()
    # As the OpenAI SDK words it for openai/: the body's (error.)message, else the status alone.
    text = f"Error code: {response.status}"
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    if isinstance(data, dict):
        error = data.get("error", data)
        message = error.get("message") if isinstance(error, dict) else None
        if isinstance(message, str) and message:
            text = message
    raise _HTTPStatusError(response.status, text, dict(response.headers))


# ── usage and unreadable replies ─────────────────────────────────────────────────────────────

_installed = False


def _install(litellm: Any) -> None:
    """Make LiteLLM's aiohttp_openai/ route use :class:`_ChatConfig` (it looks the config class up
    on the ``litellm`` module per call). Adds what the base class drops (usage; openai/'s errors
    for a body that is not a chat completion) and reads the body once; other users of
    aiohttp_openai/ in the process get usage too."""
    global _installed
    if _installed:
        return
    base: Any = importlib.import_module("litellm.llms.aiohttp_openai.chat.transformation")
    types: Any = importlib.import_module("litellm.types.utils")
    usage_type, choices_type = types.Usage, types.Choices

    class _ChatConfig(base.AiohttpOpenAIChatConfig):  # type: ignore[misc]
        async def transform_response(
            self, model: Any, raw_response: Any, model_response: Any, *args: Any, **kwargs: Any
        ) -> Any:
            text = await raw_response.text()
            content_type = raw_response.headers.get("Content-Type", "")
            if "json" not in content_type.lower():
                # openai/ words it so; LiteLLMProvider recognises the wording (a web page, a proxy).
                raise ValueError(
                    f"Empty or invalid response from LLM endpoint. Received: {text!r}. Check the "
                    "reponse in the provider's dashboard"
                )
            data = json.loads(text)  # a JSONDecodeError stays in the chain, as on openai/
            if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
                keys = list(data) if isinstance(data, dict) else type(data).__name__
                raise ValueError(
                    f"LiteLLM: provider returned a response with no 'choices'. Raw keys: {keys}"
                )
            # The base class's fields, from the body parsed once (it would parse it again).
            # Only the fields the body has: openai/ leaves an absent one out (a missing
            # system_fingerprint is no key in raw_response, not null).
            for field in ("id", "created", "model", "object", "system_fingerprint"):
                if field in data:
                    setattr(model_response, field, data[field])
            # openai/ gives each choice an empty provider_specific_fields (it shows in raw_response).
            model_response.choices = [
                choices_type.model_validate({"provider_specific_fields": {}, **c})
                if isinstance(c, dict)
                else choices_type.model_validate(c)
                for c in data["choices"]
            ]
            usage = data.get("usage")
            if isinstance(usage, dict):  # what the base class drops
                model_response.usage = usage_type(**usage)
                _stamp_nominal_cost(model_response, usage)
            if "service_tier" in data:
                return model_response.model_copy(update={"service_tier": data["service_tier"]})
            return model_response

    litellm.AiohttpOpenAIChatConfig = _ChatConfig
    _installed = True


# ── cost, as openai/<model> ──────────────────────────────────────────────────────────────────


def _stamp_nominal_cost(response: Any, usage: dict[str, Any]) -> None:
    """Stamp the cost LiteLLM would compute from the nominal price, before it prices the reply.

    LiteLLM prices every response after the transformation (its cost calculator, even for a
    custom price, about 0.3 ms of CPU a call) unless ``_hidden_params`` already carries a
    ``response_cost``. The value is the one its calculator gives for :data:`_NOMINAL_PRICE`
    (what its logging callbacks saw before); :func:`acompletion` replaces it with the price of
    ``openai/<model>`` as before.
    """
    hidden = getattr(response, "_hidden_params", None)
    if not isinstance(hidden, dict) or hidden.get("response_cost") is not None:
        return
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if isinstance(prompt, int) and isinstance(completion, int):
        hidden["response_cost"] = (prompt + completion) * _NOMINAL_PRICE


_prices: dict[tuple[str, str, Any], float | None] = {}


def _price(litellm: Any, model: str, response: Any) -> float | None:
    usage: Any = getattr(response, "usage", None)
    dumped = usage.model_dump_json() if hasattr(usage, "model_dump_json") else repr(usage)
    key = (model, dumped, getattr(response, "service_tier", None))
    if key not in _prices:
        if len(_prices) >= 4096:  # distinct usages are few; never grow without bound
            _prices.clear()
        try:
            value = litellm.completion_cost(
                completion_response=response, model=model, custom_llm_provider="openai"
            )
            _prices[key] = float(value) if value is not None else None
        except Exception:  # unpriced model: LiteLLM raises several kinds; all mean "no price"
            _prices[key] = None
    return _prices[key]
