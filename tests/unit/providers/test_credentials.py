"""What each provider needs before a request can be sent (presence only, nothing is sent)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptcanary.errors import ConfigError
from promptcanary.providers.credentials import provider_of, unmet
from promptcanary.providers.preflight import (
    check_credentials,
    check_provider_base,
    missing_keys,
    suggest_model,
)


def needs(provider: str, env: dict[str, str], home: Path, api_base: str | None = None) -> list:
    return [n.what for n in unmet(provider, env, api_base=api_base, home=home)]


@pytest.mark.parametrize(
    ("provider", "env", "missing"),
    [
        ("openai", {}, ["API key"]),
        ("openai", {"OPENAI_API_KEY": " "}, ["API key"]),  # empty (a withheld secret) counts
        ("openai", {"OPENAI_API_KEY": "x"}, []),
        ("anthropic", {"ANTHROPIC_API_KEY": "x"}, []),
        ("gemini", {"GOOGLE_API_KEY": "x"}, []),
        ("gemini", {}, ["API key"]),
        ("ollama_chat", {}, []),
        ("ollama", {}, []),
        ("somethingnew", {}, []),
        ("azure", {}, ["API key", "endpoint", "API version"]),
        (
            "azure",
            {"AZURE_API_KEY": "k", "AZURE_API_BASE": "https://r", "AZURE_API_VERSION": "v"},
            [],
        ),
        ("bedrock", {}, ["AWS credentials", "AWS region"]),
        ("bedrock", {"AWS_ACCESS_KEY_ID": "a"}, ["AWS credentials", "AWS region"]),
        (
            "bedrock",
            {"AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s", "AWS_REGION": "r"},
            [],
        ),
        ("bedrock", {"AWS_PROFILE": "dev", "AWS_DEFAULT_REGION": "eu-west-1"}, []),
        ("vertex_ai", {}, ["Google credentials", "Google Cloud project"]),
        ("vertex_ai-anthropic_models", {"VERTEXAI_CREDENTIALS": "{}", "VERTEXAI_PROJECT": "p"}, []),
    ],
)
def test_what_each_provider_needs(
    provider: str, env: dict[str, str], missing: list[str], tmp_path: Path
) -> None:
    assert needs(provider, env, tmp_path) == missing


def test_api_base_stands_in_for_azure_endpoint_but_not_for_a_key(tmp_path: Path) -> None:
    env = {"AZURE_API_VERSION": "2024-10-21"}
    assert needs("azure", env, tmp_path, api_base="http://127.0.0.1:1") == ["API key"]
    assert needs("openai", {}, tmp_path, api_base="http://127.0.0.1:1/v1") == ["API key"]


def test_credential_files_count(tmp_path: Path) -> None:
    (tmp_path / ".aws").mkdir()
    (tmp_path / ".aws" / "credentials").write_text("[default]\naws_access_key_id = a\n")
    (tmp_path / ".aws" / "config").write_text("[profile dev]\nregion = eu-west-1\n")
    assert needs("bedrock", {}, tmp_path) == ["AWS region"]  # the default profile has none
    assert needs("bedrock", {"AWS_PROFILE": "dev"}, tmp_path) == []
    sa = tmp_path / "sa.json"
    sa.write_text(json.dumps({"type": "service_account", "project_id": "proj"}))
    assert needs("vertex_ai", {"GOOGLE_APPLICATION_CREDENTIALS": str(sa)}, tmp_path) == []
    sa.write_text(json.dumps({"type": "service_account"}))
    env = {"GOOGLE_APPLICATION_CREDENTIALS": str(sa)}
    assert needs("vertex_ai", env, tmp_path) == ["Google Cloud project"]
    adc = tmp_path / ".config" / "gcloud" / "application_default_credentials.json"
    adc.parent.mkdir(parents=True)
    adc.write_text(json.dumps({"type": "authorized_user", "quota_project_id": "proj"}))
    assert needs("vertex_ai", {}, tmp_path) == []


def test_provider_of_reads_the_prefix_without_litellm() -> None:
    assert provider_of("anthropic/claude-x") == "anthropic"
    assert provider_of("claude-3-5-haiku") == "anthropic"
    assert provider_of("gpt-4o") == "openai"
    assert provider_of("llama3") == ""
    assert missing_keys("bedrock/anthropic.claude", {}) == ()  # not a key: preflight says it


def test_the_message_names_every_missing_variable(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        check_credentials("azure/dep", "azure", {"HOME": str(tmp_path)})
    text = str(info.value) + (info.value.hint or "")
    for name in ("AZURE_API_KEY", "AZURE_API_BASE", "--api-base", "AZURE_API_VERSION"):
        assert name in text
    assert "No request was sent" in text and info.value.exit_code == 2


def test_a_local_openai_compatible_server_is_told_any_key_works() -> None:
    with pytest.raises(ConfigError) as info:
        check_credentials("openai/x", "openai", {}, api_base="http://127.0.0.1:8000/v1")
    assert "OPENAI_API_KEY" in str(info.value)
    assert "accepts any value" in (info.value.hint or "")
    check_credentials("ollama_chat/llama3", "ollama_chat", {}, api_base="http://127.0.0.1:1")


@pytest.mark.parametrize(
    ("typed", "suggested"),
    [
        ("claude-3-5-haiku", "anthropic/claude-3-5-haiku"),  # not heroku/heroku/…
        ("gpt4o", "openai/gpt-4o"),  # only punctuation differs: the provider's spelling
        ("gemini-1.5-flash", "gemini/gemini-1.5-flash"),  # AI Studio, not Vertex AI
        ("mistral-small", "mistral/mistral-small"),
        ("grok-2", "xai/grok-2"),
        ("opneai/gpt-4o-mini", "openai/gpt-4o-mini"),
        ("antropic/claude-x", "anthropic/claude-x"),
    ],
)
def test_did_you_mean(typed: str, suggested: str) -> None:
    from promptcanary.providers.preflight import _litellm

    guess = suggest_model(typed, _litellm())
    assert guess == suggested
    assert guess.count("/") == 1


@pytest.mark.parametrize(
    ("provider", "base", "refused"),
    [
        ("anthropic", "https://api.anthropic.com/v1", True),
        ("anthropic", "https://proxy.example/anthropic/v1/", True),
        ("anthropic", "https://api.anthropic.com", False),
        ("anthropic", "https://proxy.example/anthropic", False),
        ("anthropic", "https://api.anthropic.com/v1/messages", False),  # LiteLLM keeps it
        ("anthropic", None, False),
        ("openai", "http://localhost:8000/v1", False),  # OpenAI's form ends in /v1
    ],
)
def test_only_an_anthropic_base_ending_in_v1_is_refused(
    provider: str, base: str | None, refused: bool
) -> None:
    if not refused:
        check_provider_base(provider, base)
        return
    with pytest.raises(ConfigError) as info:
        check_provider_base(provider, base)
    assert info.value.field == "--api-base" and info.value.exit_code == 2
    assert base is not None
    host = base.rstrip("/").removesuffix("/v1")
    assert f"Pass --api-base {host} " in (info.value.hint or "")
