"""The fast route (providers/litellm_transport.py) gives what ``openai/`` gives, through the real
LiteLLM and the loopback server: text, tool calls, usage, cost, served model, fingerprint, and the
same ProviderError (class, status, retryability, Retry-After, message) for every failure — on two
event loops in one process and in forked workers."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import json
import os
import re
import socket
import ssl
import threading

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from pathlib import Path
from typing import Any

import pytest

from promptcanary.core.models import CanaryPrompt, LLMResponse
from promptcanary.core.probes.base import build_probe
from promptcanary.core.run.runner import RunOptions, run_suite
from promptcanary.core.run.workers import can_fork
from promptcanary.core.suite import CanarySuite
from promptcanary.errors import ProviderError
from promptcanary.providers import litellm_transport
from promptcanary.providers.litellm import LiteLLMProvider
from tests.fakes.llm_server import FakeLLMServer, Reply, last_user_text

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


def call(base_url: str, route: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("PROMPTCANARY_LITELLM_ROUTE", route)
    provider = LiteLLMProvider(MODEL, api_base=base_url, api_key="sk-test", timeout=0.5)
    prompt = CanaryPrompt(id="p1", text="say hello")
    try:
        return outcome(asyncio.run(provider.acomplete(prompt)))
    except BaseException as exc:  # the error is the outcome compared
        return outcome(exc)


def route_of(headers: dict[str, str]) -> str:
    # The OpenAI SDK names itself in User-Agent; aiohttp does too.
    agent = next((v for k, v in headers.items() if k.lower() == "user-agent"), "")
    return "aiohttp" if "aiohttp" in agent.lower() else "openai"


@pytest.mark.parametrize("case", list(CASES))
def test_fast_route_gives_what_openai_gives(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    reply = CASES[case]
    with FakeLLMServer(reply=lambda body: reply) as server:
        slow = call(server.base_url, "openai", monkeypatch)
        fast = call(server.base_url, "", monkeypatch)
        routes = [route_of(h) for h in server.headers]
        bodies = server.requests
    assert routes == ["openai", "aiohttp"]  # each call took the route it was meant to
    assert bodies[0] == bodies[1]  # the same JSON reached the server
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


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"model": MODEL, "messages": [], "api_base": "http://x/v1", "api_key": "k"}, True),
        ({"model": MODEL, "messages": [], "api_key": "k"}, False),  # api.openai.com: the SDK
        (
            {"model": "anthropic/claude", "messages": [], "api_base": "http://x", "api_key": "k"},
            False,
        ),
        (
            {
                "model": MODEL,
                "messages": [],
                "api_base": "http://x/v1",
                "api_key": "k",
                "response_format": {"type": "json_object"},
            },
            False,  # not proven equal: keeps openai/
        ),
        ({"model": MODEL, "messages": [], "api_base": "http://x/v1"}, False),  # no key at all
    ],
)
def test_eligible(kwargs: dict[str, Any], expected: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PROMPTCANARY_LITELLM_ROUTE", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert litellm_transport.eligible(kwargs) is expected
    monkeypatch.setenv("PROMPTCANARY_LITELLM_ROUTE", "openai")
    assert litellm_transport.eligible(kwargs) is False


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


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, as PEM files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


def test_https_with_the_ca_bundle_litellm_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A private CA given as SSL_CERT_FILE (LiteLLM's documented setting) serves both routes alike;
    # without it both refuse the server's certificate, and neither answers.
    cert_file, key_file = self_signed(tmp_path)
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert_file, key_file)
    with FakeLLMServer(reply=lambda body: "over TLS", tls=tls) as server:
        assert server.base_url.startswith("https://")
        refused = [call(server.base_url, route, monkeypatch) for route in ("openai", "")]
        monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))
        slow = call(server.base_url, "openai", monkeypatch)
        fast = call(server.base_url, "", monkeypatch)
        routes = [route_of(h) for h in server.headers]
    assert all(r[0] == "ProviderError" for r in refused)
    assert fast == slow and slow["content"] == "over TLS"
    assert routes == ["openai", "aiohttp"]


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
