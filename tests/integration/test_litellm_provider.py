"""LiteLLMProvider through the real LiteLLM stack, against the loopback OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

from promptcanary.core.models import CanaryPrompt, ProviderConfig
from promptcanary.errors import ProviderAuthError, ProviderError
from promptcanary.providers.litellm import LiteLLMProvider
from tests.fakes.llm_server import FakeLLMServer, Reply

Factory = Callable[..., LiteLLMProvider]
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}


def test_complete_records_content_usage_and_identity(
    llm_server: FakeLLMServer, litellm_provider: Factory
) -> None:
    llm_server.reply = lambda req: Reply(
        content="Paris is the capital.",
        model="fake-model-2025",
        system_fingerprint="fp_abc",
        prompt_tokens=12,
        completion_tokens=4,
    )
    provider = litellm_provider(max_tokens=77, temperature=0.3, seed=5)
    prompt = CanaryPrompt(text="Capital of France?")
    response = provider.complete(prompt, system_prompt="Be brief.")
    assert response.content == "Paris is the capital."
    assert response.prompt_id == prompt.id
    assert response.finish_reason == "stop"
    assert (response.prompt_tokens, response.completion_tokens, response.total_tokens) == (
        12,
        4,
        16,
    )
    assert response.response_model == "fake-model-2025"
    assert response.system_fingerprint == "fp_abc"
    assert response.latency_ms is not None and response.latency_ms > 0
    assert response.raw_response["choices"][0]["message"]["content"] == "Paris is the capital."
    sent = llm_server.requests[-1]
    assert sent["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Capital of France?"},
    ]
    assert (sent["max_tokens"], sent["temperature"], sent["seed"]) == (77, 0.3, 5)
    assert "tools" not in sent


def test_acomplete_uses_the_async_client(
    llm_server: FakeLLMServer, litellm_provider: Factory
) -> None:
    llm_server.reply = lambda req: f"async: {req['messages'][-1]['content']}"
    provider = litellm_provider()
    response = asyncio.run(provider.acomplete(CanaryPrompt(text="hello")))
    assert response.content == "async: hello"


def test_tools_are_sent_and_tool_calls_recorded_as_dicts(
    llm_server: FakeLLMServer, litellm_provider: Factory
) -> None:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
    }
    llm_server.reply = lambda req: Reply(content=None, tool_calls=[call])
    response = litellm_provider().complete(
        CanaryPrompt(text="Weather in Oslo?", tools=[WEATHER_TOOL])
    )
    assert llm_server.requests[-1]["tools"] == [WEATHER_TOOL]
    assert response.tool_calls == [call]
    assert response.finish_reason == "tool_calls"
    assert response.content == ""
    json.dumps(response.tool_calls)  # plain data, storable


def test_cost_is_none_for_an_unknown_model(
    llm_server: FakeLLMServer, litellm_provider: Factory
) -> None:
    response = litellm_provider("openai/no-such-model-xyz").complete(CanaryPrompt(text="hi"))
    assert response.ok
    assert response.cost_usd is None


def test_cost_from_the_price_map_for_a_known_model(
    llm_server: FakeLLMServer, litellm_provider: Factory
) -> None:
    llm_server.reply = lambda req: Reply(content="x", prompt_tokens=1000, completion_tokens=1000)
    response = litellm_provider("openai/gpt-4o-mini").complete(CanaryPrompt(text="hi"))
    assert response.cost_usd is not None and 0 < response.cost_usd < 0.01


@pytest.mark.parametrize("status", [401, 403])
def test_auth_failures_raise_provider_auth_error(
    status: int, llm_server: FakeLLMServer, litellm_provider: Factory
) -> None:
    llm_server.reply = lambda req: Reply(status=status, error_message="invalid api key")
    with pytest.raises(ProviderAuthError) as info:
        litellm_provider().complete(CanaryPrompt(text="hi"))
    assert info.value.status_code == status
    assert not info.value.retryable
    assert len(llm_server.requests) == 1  # LiteLLM's own retries are off


@pytest.mark.parametrize(
    ("headers", "expected"),
    [({"Retry-After": "7"}, 7.0), ({"retry-after-ms": "1500"}, 1.5), ({}, None)],
)
def test_rate_limit_error_carries_retry_after(
    headers: dict[str, str],
    expected: float | None,
    llm_server: FakeLLMServer,
    litellm_provider: Factory,
) -> None:
    llm_server.reply = lambda req: Reply(status=429, headers=headers)
    with pytest.raises(ProviderError) as info:
        litellm_provider().complete(CanaryPrompt(text="hi"))
    assert info.value.status_code == 429
    assert info.value.retryable
    assert info.value.retry_after_s == expected
    assert len(llm_server.requests) == 1


@pytest.mark.parametrize(
    ("status", "retryable"), [(400, False), (404, False), (422, False), (500, True), (503, True)]
)
def test_http_errors_keep_their_status(
    status: int, retryable: bool, llm_server: FakeLLMServer, litellm_provider: Factory
) -> None:
    llm_server.reply = lambda req: Reply(status=status)
    with pytest.raises(ProviderError) as info:
        litellm_provider().complete(CanaryPrompt(text="hi"))
    assert not isinstance(info.value, ProviderAuthError)
    assert info.value.status_code == status
    assert info.value.retryable is retryable
    assert "fake-model" in str(info.value)


def test_malformed_body_is_a_provider_error(
    llm_server: FakeLLMServer, litellm_provider: Factory
) -> None:
    llm_server.reply = lambda req: Reply(raw_body=b'{"choices": [ {not json')
    with pytest.raises(ProviderError):
        litellm_provider().complete(CanaryPrompt(text="hi"))


def test_connection_refused_is_a_retryable_provider_error() -> None:
    provider = LiteLLMProvider("openai/fake", api_base="http://127.0.0.1:9/v1", api_key="sk-test")
    with pytest.raises(ProviderError) as info:
        provider.complete(CanaryPrompt(text="hi"))
    assert info.value.retryable


def test_secrets_are_redacted_from_errors_and_never_serialised(
    llm_server: FakeLLMServer, litellm_provider: Factory
) -> None:
    secret = "sk-live-0123456789abcdef"
    llm_server.reply = lambda req: Reply(status=400, error_message=f"bad key {secret}")
    provider = litellm_provider(api_key=secret)
    with pytest.raises(ProviderError) as info:
        provider.complete(CanaryPrompt(text="hi"))
    assert secret not in str(info.value)
    assert secret not in provider.config.model_dump_json()
    assert secret not in repr(provider)
    assert provider.config.extra_params["api_base"] == llm_server.base_url


def test_constructor_forms(llm_server: FakeLLMServer) -> None:
    provider = LiteLLMProvider(
        "openai/gpt-4o",
        max_tokens=2048,
        extra_params={"response_format": {"type": "json_object"}},
        api_base="http://x",
    )
    assert provider.config.extra_params == {
        "response_format": {"type": "json_object"},
        "api_base": "http://x",
    }
    assert (provider.config.temperature, provider.config.max_tokens, provider.config.seed) == (
        0.0,
        2048,
        42,
    )
    config = ProviderConfig(
        model_id="openai/fake", extra_params={"api_base": llm_server.base_url, "api_key": "sk-test"}
    )
    from_config = LiteLLMProvider.from_config(config)
    assert from_config.config is config
    assert from_config.complete(CanaryPrompt(text="hi")).content == "OK"


def test_extra_params_reach_litellm(llm_server: FakeLLMServer, litellm_provider: Factory) -> None:
    litellm_provider(extra_params={"response_format": {"type": "json_object"}}, seed=None).complete(
        CanaryPrompt(text="hi")
    )
    sent: dict[str, Any] = llm_server.requests[-1]
    assert sent["response_format"] == {"type": "json_object"}
    assert "seed" not in sent


def test_importing_the_provider_does_not_import_litellm() -> None:
    code = (
        "import sys, promptcanary.providers.litellm, promptcanary.providers.replay, "
        "promptcanary.core.run.runner, promptcanary.core.run.progress; "
        "print('litellm' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
