"""The cheapest correct way through LiteLLM to OpenAI's chat completions (issues 23 and 29).

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
  ("Event loop is closed"), and a body that is not a chat completion raises a different error;
* it sends only ``Authorization`` of the SDK's headers (aiohttp names itself in User-Agent; no
  ``OpenAI-Organization`` / ``OpenAI-Project``, no ``X-Stainless-*``);
* it maps no parameter per model: a GPT-5 or o-series model gets the request a GPT-4o gets, where
  ``openai/`` renames or refuses parameters first.

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
* ``timeout`` bounds connecting and reading, as httpx's does, and is raised as LiteLLM's ``Timeout``;
  without one, the limit is the one ``openai/`` applies (``litellm.request_timeout`` when it was
  set, else LiteLLM's 600 s);
* the headers: the OpenAI SDK's own (:func:`_sdk_headers`: read from an SDK client that never
  sends — User-Agent, ``X-Stainless-*``, ``OpenAI-Organization`` / ``OpenAI-Project`` from the
  same settings), plus the three it adds per request, passed as LiteLLM's ``headers=`` and kept by
  :class:`_ChatConfig` beside the bearer key.

It serves an explicit ``api_base`` and the provider's own endpoint alike (LiteLLM resolves the base
for both routes in the same order: ``api_base``, ``litellm.api_base``, ``OPENAI_BASE_URL``,
``OPENAI_API_BASE``, ``https://api.openai.com/v1``), for models whose request LiteLLM does not map
(:func:`eligible`). ``PROMPTCANARY_LITELLM_ROUTE=openai`` turns the fast route off. tests/integration/
test_litellm_transport.py proves the parity through the loopback server, for every case above, at
an ``api_base`` and at the default endpoint (a loopback HTTPS stand-in with a private CA, reached
through ``OPENAI_BASE_URL`` and ``SSL_CERT_FILE``), method, path, headers and body included.
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

from promptcanary.providers.litellm_encoding import defer_default_encoding

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
    """True when this call can take the fast route: an ``openai/`` model with parameters from
    :data:`_KNOWN` (``timeout`` a number), a key, and a request LiteLLM sends as is.

    The key: given, or where both routes read it (``litellm.api_key``, ``litellm.openai_key``,
    ``OPENAI_API_KEY``). Without one the SDK refuses before sending ("Missing credentials", or
    it signs in with a workload identity) while ``aiohttp_openai/`` would send "Bearer None".

    The endpoint: ``api_base`` when given, else the one LiteLLM resolves for ``openai/`` (the
    provider's own, or ``OPENAI_BASE_URL`` ...) — except a base that already ends in
    ``/chat/completions`` or carries a query string, which the two routes complete differently.

    The request: the model's LiteLLM config for OpenAI is the plain GPT one (GPT-5 and o-series
    models have parameters renamed or refused first; a model LiteLLM serves through the Responses
    API is sent elsewhere), and no global ``litellm.headers`` are set (the SDK route adds them).
    """
    if os.environ.get(_ENV, "").strip().lower() == "openai":
        return False
    model = kwargs.get("model")
    api_base = kwargs.get("api_base")
    timeout = kwargs.get("timeout")
    return (
        isinstance(model, str)
        and model.startswith(_PREFIX)
        and set(kwargs) <= _KNOWN
        and (api_base is None or (isinstance(api_base, str) and bool(api_base.strip())))
        and (
            timeout is None or (isinstance(timeout, (int, float)) and not isinstance(timeout, bool))
        )
        and _has_key(kwargs.get("api_key"))
        and _sent_as_is(model[len(_PREFIX) :], api_base)
    )


def _has_key(given: Any) -> bool:
    if isinstance(given, str) and given:
        return True
    litellm = sys.modules.get("litellm")
    configured = [getattr(litellm, "api_key", None), getattr(litellm, "openai_key", None)]
    return any(isinstance(k, str) and k for k in configured) or bool(
        os.environ.get("OPENAI_API_KEY")
    )


def _sent_as_is(name: str, api_base: str | None) -> bool:
    litellm: Any = sys.modules.get("litellm")
    if litellm is None:  # not imported: nothing to ask; the SDK route decides for itself
        return False
    if litellm.headers or getattr(litellm, "route_all_chat_openai_to_responses", False):
        return False
    base = (
        api_base
        or litellm.api_base
        or os.environ.get("OPENAI_BASE_URL")
        or os.environ.get("OPENAI_API_BASE")
        or ""
    )
    if "?" in base or "#" in base or base.rstrip("/").endswith("/chat/completions"):
        return False  # the two routes join such a base and the route differently
    return _plain_model(litellm, name)


_plain: dict[str, bool] = {}


def _plain_model(litellm: Any, name: str) -> bool:
    """Whether LiteLLM sends ``openai/<name>``'s chat request without mapping it per model: its
    OpenAI config is the plain GPT one (or the one for names it does not know, which differs only
    in accepting ``reasoning_effort``, a parameter the fast route never takes), and its price map
    does not send the model to the Responses API. Asked once per model name."""
    if name not in _plain:
        try:
            gpt: Any = importlib.import_module("litellm.llms.openai.chat.gpt_transformation")
            config = litellm.utils.ProviderConfigManager.get_provider_chat_config(
                model=name, provider=litellm.LlmProviders.OPENAI
            )
            plain = type(config) in (gpt.OpenAIGPTConfig, gpt.OpenAIUnknownModelConfig)
        except Exception:  # LiteLLM's internals moved: keep its own route
            plain = False
        if plain:
            try:
                info = litellm.get_model_info(model=name, custom_llm_provider="openai")
            except Exception:  # not in the price map: LiteLLM routes it as chat
                info = {}
            plain = info.get("mode") != "responses"
        if len(_plain) >= 256:
            _plain.clear()
        _plain[name] = plain
    return _plain[name]


async def acompletion(litellm: Any, kwargs: dict[str, Any]) -> Any:
    """``litellm.acompletion(**kwargs)`` through ``aiohttp_openai/``; same response and errors."""
    timeout = kwargs.get("timeout")
    limit = float(timeout) if timeout is not None else _default_limit()
    headers = _sdk_headers(litellm, limit)
    if headers is None:  # the SDK's headers cannot be read here: the SDK sends them itself
        return await litellm.acompletion(**kwargs)
    _install(litellm)
    model = kwargs["model"]
    call = dict(kwargs)
    call.pop("timeout", None)
    call["model"] = "aiohttp_openai/" + model[len(_PREFIX) :]
    call["headers"] = dict(headers)  # LiteLLM may add to it: the cached one stays as read
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


# ── what the OpenAI SDK sends besides the body ───────────────────────────────────────────

_headers: dict[tuple[Any, ...], dict[str, str]] = {}


def _default_limit() -> float:
    """The timeout ``openai/`` applies when the call gives none: ``litellm.request_timeout`` if
    it was set (LiteLLM's resolver tells), else LiteLLM's fallback for chat completions (600 s;
    the module's own default, 6000 s, is meant for other endpoints)."""
    resolver: Any = importlib.import_module("litellm.litellm_core_utils.request_timeout_resolver")
    constants: Any = importlib.import_module("litellm.constants")
    configured = resolver.get_configured_request_timeout()
    return float(
        configured if configured is not None else constants.COMPLETION_HTTP_FALLBACK_SECONDS
    )


def _sdk_headers(litellm: Any, limit: float) -> dict[str, str] | None:
    """The headers the OpenAI SDK sends with LiteLLM's chat request, except ``Authorization``
    (:class:`_ChatConfig` adds it from the key LiteLLM resolves) and the transport's own (Host,
    Content-Length, Accept-Encoding, Connection); None when they cannot be read.

    Read from an SDK client built as LiteLLM builds it — ``organization`` from
    ``litellm.organization`` or ``OPENAI_ORGANIZATION``, the SDK itself reading
    ``OPENAI_ORG_ID`` and ``OPENAI_PROJECT_ID`` — whose transport never sends: its
    ``default_headers`` (Accept, Content-Type, User-Agent, the ``X-Stainless-*`` platform headers,
    ``OpenAI-Organization`` / ``OpenAI-Project`` when set). To those the SDK adds per request
    the retry count (0: its retries are off), the read timeout, and LiteLLM the raw-response
    marker. Built once per setting (an SDK client costs ~2 ms).
    """
    organization = litellm.organization or os.environ.get("OPENAI_ORGANIZATION") or None
    key = (
        organization,
        os.environ.get("OPENAI_ORG_ID"),
        os.environ.get("OPENAI_PROJECT_ID"),
        limit,
    )
    if key in _headers:
        return _headers[key]
    try:
        openai: Any = importlib.import_module("openai")
        constants: Any = importlib.import_module("openai._constants")
        client_class = openai.DefaultAsyncHttpxClient
        # The SDK's HTTP library (httpx or its successor), whichever this SDK is built on.
        library: Any = importlib.import_module(client_class.__mro__[1].__module__.split(".")[0])

        def never(request: Any) -> Any:
            raise RuntimeError("this client only tells its headers")

        sdk = openai.AsyncOpenAI(
            api_key="unused",  # the bearer key is not among the default headers
            organization=organization,
            base_url="https://api.openai.com/v1",
            max_retries=0,
            http_client=client_class(transport=library.MockTransport(never)),
        )
        headers = {k: v for k, v in sdk.default_headers.items() if isinstance(v, str)}
        headers[constants.RAW_RESPONSE_HEADER] = "true"
    except Exception:  # an SDK this was not written for: its own route sends its headers
        return None
    headers["X-Stainless-Retry-Count"] = "0"
    headers["X-Stainless-Read-Timeout"] = str(limit)
    if len(_headers) >= 64:
        _headers.clear()
    _headers[key] = headers
    return headers


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
        def validate_environment(
            self,
            headers: dict[str, str],
            model: Any,
            messages: Any,
            optional_params: Any,
            litellm_params: Any,
            api_key: str | None = None,
            api_base: str | None = None,
        ) -> dict[str, str]:
            # The base class sends the bearer key alone and drops the headers it was given
            # (here: the OpenAI SDK's, see _sdk_headers).
            return {**headers, "Authorization": f"Bearer {api_key}"}

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
    # The route's handler is given LiteLLM's tokenizer, which _ChatConfig never uses: built
    # only if something else reads it (0.15-0.4 s of CPU saved on a run's first request).
    defer_default_encoding(importlib.import_module("litellm.main"))
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
