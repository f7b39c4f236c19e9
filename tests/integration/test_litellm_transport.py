"""The fast route (providers/litellm_transport.py) gives what ``openai/`` gives, through the real
LiteLLM and the loopback server: text, tool calls, usage, cost, served model, fingerprint, and the
same ProviderError (class, status, retryability, Retry-After, message) for every failure — on two
event loops in one process and in forked workers — and sends what ``openai/`` sends (method, path,
headers, JSON body), at an explicit ``api_base`` and at the provider's own endpoint.

The provider's own endpoint is stood in for by a loopback HTTPS server with a private CA
(tests/fakes/tls.py), reached the way LiteLLM and the OpenAI SDK are pointed at another default
base: ``OPENAI_BASE_URL`` (LiteLLM reads it for both routes, after ``api_base`` and
``litellm.api_base``, before ``OPENAI_API_BASE``) and ``SSL_CERT_FILE`` for the CA (read by
LiteLLM's TLS setup, which both routes use). No ``api_base`` is passed there.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import threading
from dataclasses import dataclass, field

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from typing import Any

import pytest

from promptcanary.core.models import CanaryPrompt, LLMResponse
from promptcanary.core.probes.base import build_probe
from promptcanary.core.run.runner import RunOptions, run_suite
from promptcanary.core.run.workers import can_fork
from promptcanary.core.suite import CanarySuite
from promptcanary.errors import ProviderError
from promptcanary.providers import litellm_transport
from promptcanary.providers.litellm import LiteLLMProvider, _import_litellm
from tests.fakes.llm_server import FakeLLMServer, Reply, last_user_text
from tests.fakes.tls import PrivateCA, make_private_ca

#: A model LiteLLM prices, so the cost is compared too.
MODEL = "openai/gpt-4o-mini"
TOOL_CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}

CASES: dict[str, Reply | str] = {
    "text": "hello there",
    "tool calls": Reply(content=None, tool_calls=[TOOL_CALL]),
    "served model and fingerprint": Reply(
        content="ok", model="gpt-4o-mini-2024-07-18", system_fingerprint="fp_abc", prompt_tokens=37
    ),
    "no fingerprint": Reply(content="ok", system_fingerprint=None),
    "401": Reply(status=401, error_message="Incorrect API key provided"),
    "403": Reply(status=403, error_message="forbidden"),
    "429 Retry-After": Reply(status=429, headers={"Retry-After": "3"}),
    "429 retry-after-ms": Reply(status=429, headers={"retry-after-ms": "1500"}),
    "500": Reply(status=500, error_message="upstream failed"),
    "503 plain text": Reply(status=503, raw_body=b"Service Unavailable"),
    "502 JSON without a message": Reply(status=502, raw_body=b'{"detail": "bad gateway"}'),
    "429 top-level message": Reply(status=429, raw_body=b'{"message": "slow down"}'),
    "bad JSON": Reply(raw_body=b"{not json"),
    "an HTML page": Reply(raw_body=b"<html>login</html>", headers={"Content-Type": "text/html"}),
    "JSON without choices": Reply(raw_body=b'{"object": "list", "data": []}'),
    "empty choices": Reply(raw_body=b'{"id": "x", "object": "chat.completion", "choices": []}'),
    "usage with cached and reasoning tokens": Reply(
        raw_body=json.dumps(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 1,
                "model": "gpt-4o-mini",
                "service_tier": "default",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": "cached"},
                        "finish_reason": "length",
                    }
                ],
                "usage": {
                    "prompt_tokens": 2000,
                    "completion_tokens": 300,
                    "total_tokens": 2300,
                    "prompt_tokens_details": {"cached_tokens": 1024},
                    "completion_tokens_details": {"reasoning_tokens": 100},
                },
            }
        ).encode()
    ),
    "timeout": Reply(content="late", delay_s=1.5),
    **{
        f"HTTP {status}": Reply(status=status, error_message=f"scripted {status}")
        for status in (400, 404, 408, 409, 413, 422, 502, 503, 504)
    },
}


def outcome(result: LLMResponse | BaseException) -> Any:
    """Everything a run keeps of one answer, raw response included (latency excluded: a
    measurement)."""
    if isinstance(result, ProviderError):
        return (
            type(result).__name__,
            result.status_code,
            result.retryable,
            result.retry_after_s,
            # A timeout's message says how long it took: a measurement, like latency.
            re.sub(r"time taken=[\d.]+ seconds", "time taken=… seconds", str(result)),
        )
    if isinstance(result, BaseException):
        return (type(result).__name__, str(result))
    dumped = result.model_dump(exclude={"latency_ms"})
    raw = dumped["raw_response"]
    # Per-call values: LiteLLM's response id for this call and the server's clock.
    raw.pop("id", None)
    raw.pop("created", None)
    return dumped


def call(base_url: str | None, route: str, monkeypatch: pytest.MonkeyPatch, **extra: Any) -> Any:
    """One call through the given route (``""``: the fast one where eligible, ``"openai"``: the
    SDK) at ``base_url``, or, with None, at the endpoint LiteLLM resolves (the provider's own)."""
    monkeypatch.setenv("PROMPTCANARY_LITELLM_ROUTE", route)
    where = {"api_base": base_url} if base_url is not None else {}
    provider = LiteLLMProvider(MODEL, api_key="sk-test", timeout=0.5, **where, **extra)
    prompt = CanaryPrompt(id="p1", text="say hello")
    try:
        return outcome(asyncio.run(provider.acomplete(prompt)))
    except BaseException as exc:  # the error is the outcome compared
        return outcome(exc)


def route_of(headers: dict[str, str]) -> str:
    """Which route sent a request. Both send the OpenAI SDK's headers; the SDK's HTTP client
    (httpx) also states ``Connection: keep-alive``, which aiohttp leaves implied (HTTP/1.1's
    default) — the one header, with Content-Length (JSON spacing), the parity lets differ."""
    return "openai" if any(k.lower() == "connection" for k in headers) else "aiohttp"


#: Headers that belong to the HTTP client, not to the request: compared apart, or not at all.
TRANSPORT_HEADERS = frozenset({"content-length", "connection"})


def sent(server: FakeLLMServer, i: int) -> dict[str, Any]:
    """What request ``i`` carried: method and path, headers (names folded to lower case; the
    transport's own left out), JSON body."""
    headers = {
        k.lower(): v for k, v in server.headers[i].items() if k.lower() not in TRANSPORT_HEADERS
    }
    return {"line": server.request_lines[i], "headers": headers, "body": server.requests[i]}


@pytest.fixture(scope="module")
def private_ca(tmp_path_factory: pytest.TempPathFactory) -> PrivateCA:
    return make_private_ca(tmp_path_factory.mktemp("ca"))


@pytest.fixture(params=["api_base", "own endpoint"])
def endpoint(
    request: pytest.FixtureRequest, private_ca: PrivateCA, monkeypatch: pytest.MonkeyPatch
) -> Any:
    """A function starting the loopback server for a reply and giving ``(server, base)``: at an
    explicit ``api_base`` (plain HTTP), or as the provider's own endpoint (HTTPS with the private
    CA, through ``OPENAI_BASE_URL``; base None: no ``api_base`` is passed)."""
    own = request.param == "own endpoint"
    for name in ("OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_ORGANIZATION", "OPENAI_ORG_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("OPENAI_PROJECT_ID", raising=False)

    def start(server: FakeLLMServer) -> tuple[FakeLLMServer, str | None]:
        server.tls = private_ca.server_context() if own else None
        server.start()
        if not own:
            return server, server.base_url
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("SSL_CERT_FILE", str(private_ca.ca_file))
        return server, None

    return start


@pytest.mark.parametrize("case", list(CASES))
def test_fast_route_gives_what_openai_gives(
    case: str, endpoint: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply = CASES[case]
    server, base = endpoint(FakeLLMServer(reply=lambda body: reply))
    try:
        slow = call(base, "openai", monkeypatch)
        fast = call(base, "", monkeypatch)
    finally:
        server.stop()
    routes = [route_of(h) for h in server.headers]
    assert routes == ["openai", "aiohttp"]  # each call took the route it was meant to
    assert sent(server, 1) == sent(server, 0)  # the same request reached the server
    assert fast == slow


def test_the_compared_outcomes_are_the_interesting_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    # Guard against a vacuous parity: the cases above do produce usage, a price, tool calls and
    # the distinct errors the runner acts on.
    results = {}
    cases = ("text", "tool calls", "401", "429 Retry-After", "timeout", "an HTML page")
    for case in (*cases, "usage with cached and reasoning tokens"):
        with FakeLLMServer(reply=lambda body, reply=CASES[case]: reply) as server:
            results[case] = call(server.base_url, "", monkeypatch)
    assert results["text"]["content"] == "hello there"
    assert results["text"]["total_tokens"] == 12 and results["text"]["cost_usd"] > 0
    assert results["tool calls"]["tool_calls"][0]["function"]["name"] == "f"
    assert results["401"][:3] == ("ProviderAuthError", 401, False)
    assert "Incorrect API key provided" in results["401"][4]
    assert results["429 Retry-After"][:4] == ("ProviderError", 429, True, 3.0)
    assert results["timeout"][:2] == ("ProviderError", 408)
    assert results["an HTML page"][:3] == ("ProviderError", 200, False)
    cached = results["usage with cached and reasoning tokens"]
    full_price = 2000 * 0.15e-6 + 300 * 0.6e-6  # gpt-4o-mini, no token cached
    assert cached["total_tokens"] == 2300 and 0 < cached["cost_usd"] < full_price


def test_two_event_loops_in_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PROMPTCANARY_LITELLM_ROUTE", raising=False)
    with FakeLLMServer(reply=lambda body: f"echo {last_user_text(body)}") as server:
        provider = LiteLLMProvider(MODEL, api_base=server.base_url, api_key="sk-test")
        first = asyncio.run(provider.acomplete(CanaryPrompt(id="a", text="one")))
        second = asyncio.run(provider.acomplete(CanaryPrompt(id="b", text="two")))
        routes = {route_of(h) for h in server.headers}
    assert (first.content, second.content) == ("echo one", "echo two")
    assert routes == {"aiohttp"}


def suite_of(n: int) -> CanarySuite:
    prompts = [CanaryPrompt(text=f"prompt {i}") for i in range(n)]
    probes = [build_probe("keyword_presence", {"required_keywords": ["echo"]})]
    return CanarySuite(name="transport", prompts=prompts, probes=probes)


def shape(responses: list[LLMResponse]) -> list[Any]:
    return sorted(
        (r.prompt_id, r.content, r.total_tokens, r.cost_usd, r.response_model) for r in responses
    )


@pytest.mark.skipif(not can_fork(), reason="worker processes need fork (Linux)")
def test_forked_workers_take_the_fast_route_and_match(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLLMServer(reply=lambda body: f"echo {last_user_text(body)}") as server:
        provider = LiteLLMProvider(MODEL, api_base=server.base_url, api_key="sk-test")
        monkeypatch.setenv("PROMPTCANARY_LITELLM_ROUTE", "openai")
        # One process first: the parent's loop and session exist before the fork.
        slow = run_suite(suite_of(6), provider, RunOptions(show_progress=False))
        monkeypatch.delenv("PROMPTCANARY_LITELLM_ROUTE")
        asyncio.run(provider.acomplete(CanaryPrompt(id="warm", text="warm")))
        fast = run_suite(suite_of(6), provider, RunOptions(show_progress=False, workers=2))
        routes = [route_of(h) for h in server.headers]
    assert not fast.errors and not slow.errors
    assert shape(fast.llm_responses) == shape(slow.llm_responses)
    assert routes[:6] == ["openai"] * 6 and set(routes[6:]) == {"aiohttp"}


KEYED = {"messages": [], "api_key": "k"}


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"model": MODEL, "api_base": "http://x/v1", **KEYED}, True),
        ({"model": MODEL, **KEYED}, True),  # the provider's own endpoint
        ({"model": MODEL, "timeout": 30, **KEYED}, True),
        ({"model": "openai/my-local-model", "api_base": "http://x/v1", **KEYED}, True),
        ({"model": "anthropic/claude", "api_base": "http://x", **KEYED}, False),
        # not proven equal: keeps openai/
        ({"model": MODEL, "response_format": {"type": "json_object"}, **KEYED}, False),
        ({"model": MODEL, "extra_headers": {"X-Team": "a"}, **KEYED}, False),
        ({"model": MODEL, "timeout": True, **KEYED}, False),
        ({"model": MODEL, "api_base": "  ", **KEYED}, False),
        ({"model": MODEL, "api_base": "http://x/v1/chat/completions", **KEYED}, False),
        ({"model": MODEL, "api_base": "http://x/v1?api-version=1", **KEYED}, False),
        # LiteLLM renames or refuses parameters for these, or sends them to the Responses API
        ({"model": "openai/gpt-5", **KEYED}, False),
        ({"model": "openai/o3", "api_base": "http://x/v1", **KEYED}, False),
        ({"model": "openai/o3-pro", **KEYED}, False),
        ({"model": MODEL, "api_base": "http://x/v1", "messages": []}, False),  # no key at all
        ({"model": MODEL, "messages": []}, False),
    ],
)
def test_eligible(kwargs: dict[str, Any], expected: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    _import_litellm(MODEL)  # the model checks ask LiteLLM
    monkeypatch.delenv("PROMPTCANARY_LITELLM_ROUTE", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_BASE", raising=False)
    assert litellm_transport.eligible(kwargs) is expected
    monkeypatch.setenv("PROMPTCANARY_LITELLM_ROUTE", "openai")
    assert litellm_transport.eligible(kwargs) is False


@pytest.mark.parametrize(
    "setting",
    ["OPENAI_BASE_URL=http://x/v1/chat/completions", "litellm.headers", "route all to Responses"],
)
def test_settings_that_keep_the_sdk_route(setting: str, monkeypatch: pytest.MonkeyPatch) -> None:
    litellm = _import_litellm(MODEL)
    monkeypatch.delenv("PROMPTCANARY_LITELLM_ROUTE", raising=False)
    kwargs = {"model": MODEL, **KEYED}
    assert litellm_transport.eligible(kwargs)
    if setting.startswith("OPENAI_BASE_URL="):
        monkeypatch.setenv("OPENAI_BASE_URL", setting.partition("=")[2])
    elif setting == "litellm.headers":
        monkeypatch.setattr(litellm, "headers", {"X-Team": "a"})
    else:
        monkeypatch.setattr(litellm, "route_all_chat_openai_to_responses", True)
    assert not litellm_transport.eligible(kwargs)


def test_refused_connection_reads_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    slow, fast = call(url, "openai", monkeypatch), call(url, "", monkeypatch)
    assert fast == slow
    assert slow[:2] == ("ProviderError", 500) and "could not connect to" in slow[4]


def test_dropped_connection_reads_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    # A server that accepts and closes without answering.
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        port = server.getsockname()[1]
        stop = threading.Event()

        def drop() -> None:
            server.settimeout(0.2)
            while not stop.is_set():
                try:
                    conn, _ = server.accept()
                except OSError:
                    continue
                conn.recv(65536)
                conn.close()

        thread = threading.Thread(target=drop, daemon=True)
        thread.start()
        url = f"http://127.0.0.1:{port}/v1"
        try:
            slow, fast = call(url, "openai", monkeypatch), call(url, "", monkeypatch)
        finally:
            stop.set()
            thread.join()
    assert fast == slow
    assert slow[0] == "ProviderError" and slow[2] is True


def test_https_with_the_ca_bundle_litellm_reads(
    private_ca: PrivateCA, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A private CA given as SSL_CERT_FILE (LiteLLM's documented setting) serves both routes alike;
    # without it both refuse the server's certificate, and neither answers.
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    with FakeLLMServer(reply=lambda body: "over TLS", tls=private_ca.server_context()) as server:
        assert server.base_url.startswith("https://")
        refused = [call(server.base_url, route, monkeypatch) for route in ("openai", "")]
        monkeypatch.setenv("SSL_CERT_FILE", str(private_ca.ca_file))
        slow = call(server.base_url, "openai", monkeypatch)
        fast = call(server.base_url, "", monkeypatch)
        routes = [route_of(h) for h in server.headers]
    assert all(r[0] == "ProviderError" for r in refused)
    assert fast == slow and slow["content"] == "over TLS"
    assert routes == ["openai", "aiohttp"]


def weather_tool() -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }


@dataclass(frozen=True)
class Setting:
    """How the provider's own endpoint is configured for both calls of a comparison."""

    env: dict[str, str] = field(default_factory=dict)
    """Environment variables; ``{base}`` / ``{root}`` stand for the server's URL with / without /v1."""
    attributes: dict[str, str] = field(default_factory=dict)
    """``litellm`` module attributes."""
    params: dict[str, Any] = field(default_factory=dict)
    """LiteLLMProvider keyword arguments (``api_key: None``: none given)."""
    prompt: CanaryPrompt = field(default_factory=lambda: CanaryPrompt(id="p", text="hi"))
    system: str | None = None


SETTINGS = {
    "defaults": Setting(),
    "organization and project from the environment": Setting(
        env={"OPENAI_ORGANIZATION": "org-litellm", "OPENAI_PROJECT_ID": "proj_1"}
    ),
    "the SDK's own organization variable": Setting(env={"OPENAI_ORG_ID": "org-sdk"}),
    "litellm.organization": Setting(attributes={"organization": "org-attr"}),
    "system prompt, tools, no seed, a timeout": Setting(
        params={"seed": None, "timeout": 7, "temperature": 0.3, "max_tokens": 64},
        prompt=CanaryPrompt(id="p", text="weather in Paris?", tools=[weather_tool()]),
        system="You are terse.",
    ),
    "key from OPENAI_API_KEY, base from OPENAI_API_BASE without /v1": Setting(
        env={"OPENAI_API_KEY": "sk-from-env", "OPENAI_API_BASE": "{root}"},
        params={"api_key": None},
    ),
    "base from litellm.api_base": Setting(attributes={"api_base": "{base}"}),
}


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_the_same_request_reaches_the_providers_own_endpoint(
    setting: str, private_ca: PrivateCA, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen = SETTINGS[setting]
    env, attributes, params, prompt = chosen.env, chosen.attributes, chosen.params, chosen.prompt
    litellm = _import_litellm(MODEL)
    for name in ("OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_ORGANIZATION", "OPENAI_ORG_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("OPENAI_PROJECT_ID", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("SSL_CERT_FILE", str(private_ca.ca_file))
    answer = Reply(content=None, tool_calls=[TOOL_CALL]) if prompt.tools else "hello"
    with FakeLLMServer(reply=lambda body: answer, tls=private_ca.server_context()) as server:
        root = server.base_url.removesuffix("/v1")
        where = {"base": server.base_url, "root": root}
        if not any("{" in v for v in env.values()) and "api_base" not in attributes:
            monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        for name, value in env.items():
            monkeypatch.setenv(name, value.format(**where))
        for name, value in attributes.items():
            monkeypatch.setattr(litellm, name, value.format(**where))
        kwargs = {"api_key": "sk-test", **params}
        if kwargs["api_key"] is None:
            del kwargs["api_key"]
        results = []
        for route in ("openai", ""):
            monkeypatch.setenv("PROMPTCANARY_LITELLM_ROUTE", route)
            provider = LiteLLMProvider(MODEL, **kwargs)
            assert "api_base" not in provider.request_kwargs(prompt)
            answered = asyncio.run(provider.acomplete(prompt, system_prompt=chosen.system))
            results.append(outcome(answered))
        routes = [route_of(h) for h in server.headers]
        requests = [sent(server, 0), sent(server, 1)]
    assert routes == ["openai", "aiohttp"]
    assert requests[1] == requests[0]
    assert results[1] == results[0]
    # The settings reached the wire (the comparison above is not between two empty requests).
    request = requests[0]
    assert request["headers"]["user-agent"].startswith("AsyncOpenAI/Python")
    expected_path = "/chat/completions" if "without /v1" in setting else "/v1/chat/completions"
    assert request["line"] == f"POST {expected_path}"
    organization = {
        "organization and project from the environment": "org-litellm",
        "the SDK's own organization variable": "org-sdk",
        "litellm.organization": "org-attr",
    }.get(setting)
    assert request["headers"].get("openai-organization") == organization
    if "project" in setting:
        assert request["headers"]["openai-project"] == "proj_1"
    if prompt.tools:
        assert request["body"]["tools"] == [weather_tool()]
        assert request["body"]["messages"][0] == {"role": "system", "content": "You are terse."}
        assert (
            "seed" not in request["body"]
            and request["headers"]["x-stainless-read-timeout"] == "7.0"
        )
        assert results[0]["tool_calls"][0]["function"]["name"] == "f"
    else:
        assert results[0]["content"] == "hello"
    key = "sk-from-env" if "OPENAI_API_KEY" in env else "sk-test"
    assert request["headers"]["authorization"] == f"Bearer {key}"


@pytest.mark.parametrize("model", ["openai/gpt-5", "openai/o3"])
def test_a_model_whose_request_litellm_maps_keeps_the_sdk_route(
    model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # LiteLLM refuses temperature 0 for these before sending; the fast route would have sent it.
    monkeypatch.delenv("PROMPTCANARY_LITELLM_ROUTE", raising=False)
    with FakeLLMServer(reply=lambda body: "hi") as server:
        provider = LiteLLMProvider(model, api_base=server.base_url, api_key="sk-test")
        with pytest.raises(ProviderError, match="temperature"):
            asyncio.run(provider.acomplete(CanaryPrompt(id="p", text="hi")))
        assert server.requests == []


def test_the_key_from_the_environment_takes_the_fast_route(monkeypatch: pytest.MonkeyPatch) -> None:
    # The CLI passes --api-base only; the key comes from OPENAI_API_KEY, read by both routes.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    with FakeLLMServer(reply=lambda body: "hi") as server:
        results = []
        for route in ("openai", ""):
            monkeypatch.setenv("PROMPTCANARY_LITELLM_ROUTE", route)
            provider = LiteLLMProvider(MODEL, api_base=server.base_url)
            answer = asyncio.run(provider.acomplete(CanaryPrompt(id="p1", text="say hello")))
            results.append(outcome(answer))
        routes = [route_of(h) for h in server.headers]
        keys = [h.get("Authorization") or h.get("authorization") for h in server.headers]
    assert results[0] == results[1]
    assert routes == ["openai", "aiohttp"]
    assert keys == ["Bearer sk-from-env"] * 2


def test_litellm_does_not_price_the_fast_routes_reply_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # LiteLLM prices every reply unless it already carries a cost (about 0.3 ms of CPU a call);
    # the fast route prices as openai/<model> itself, once per distinct usage (issue 23).
    import litellm
    import litellm.cost_calculator as cost_calculator

    monkeypatch.delenv("PROMPTCANARY_LITELLM_ROUTE", raising=False)
    monkeypatch.setattr(litellm_transport, "_prices", {})
    priced: list[str] = []
    original = cost_calculator.completion_cost

    def counted(*args: Any, **kwargs: Any) -> Any:
        priced.append(str(kwargs.get("model")))
        return original(*args, **kwargs)

    # LiteLLM's calculator calls its module's function; ours calls litellm.completion_cost.
    monkeypatch.setattr(cost_calculator, "completion_cost", counted)
    monkeypatch.setattr(litellm, "completion_cost", counted)
    with FakeLLMServer(reply=lambda body: "same usage") as server:
        provider = LiteLLMProvider(MODEL, api_base=server.base_url, api_key="sk-test")

        async def three() -> list[LLMResponse]:
            return [await provider.acomplete(CanaryPrompt(text="hi")) for _ in range(3)]

        responses = asyncio.run(three())
        routes = {route_of(h) for h in server.headers}
    assert routes == {"aiohttp"}
    assert priced == [MODEL]  # ours, memoized; none by LiteLLM
    costs = {r.cost_usd for r in responses}
    assert len(costs) == 1 and next(iter(costs)) > 0
