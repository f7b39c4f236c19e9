"""What each provider needs in the environment before a request can be sent, and what is missing.

Only presence is checked (a key's value is never looked at, let alone sent): a missing key is
otherwise found by LiteLLM when the first request is built, after the run has started. Cloud SDK
credentials (AWS, Google) have several sources; any one of them counts. Providers not listed
(Ollama, other local servers, providers we do not know) are assumed to be configured.
"""

from __future__ import annotations

import configparser
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from promptcanary.errors import MissingCredentialsError

__all__ = ["MissingCredentialsError", "Need", "missing_credentials", "provider_of", "unmet"]

#: unmet()'s has(*names): whether any of the variables is set to a non-empty value.
_Has = Callable[..., bool]


@dataclass(frozen=True)
class Need:
    """One thing a provider needs: any one of ``names`` set to a non-empty value."""

    what: str
    """What it is, in words: "API key", "endpoint", "AWS credentials"..."""
    names: tuple[str, ...]
    """Environment variables that can provide it (any one will do)."""
    alternatives: str = ""
    """Other sources that count, in words (a flag, a credentials file...), for the message."""

    def describe(self) -> str:
        """``AZURE_API_BASE (endpoint; or --api-base …)``: the variables, then what they are."""
        notes = [self.what] if self.what != "API key" else []
        notes += [self.alternatives] if self.alternatives else []
        return " or ".join(self.names) + (f" ({'; '.join(notes)})" if notes else "")


# Provider (LiteLLM's name) → the API key variables that can carry its key (any one will do).
_KEYS: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "text-completion-openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "mistral": ("MISTRAL_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "cohere": ("COHERE_API_KEY",),
    "cohere_chat": ("COHERE_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY", "OR_API_KEY"),
    "together_ai": ("TOGETHERAI_API_KEY", "TOGETHER_AI_API_KEY", "TOGETHER_API_KEY"),
    "fireworks_ai": ("FIREWORKS_API_KEY", "FIREWORKS_AI_API_KEY", "FIREWORKSAI_API_KEY"),
    "xai": ("XAI_API_KEY",),
    "perplexity": ("PERPLEXITYAI_API_KEY", "PERPLEXITY_API_KEY"),
    "huggingface": ("HUGGINGFACE_API_KEY", "HF_TOKEN"),
    "replicate": ("REPLICATE_API_KEY", "REPLICATE_API_TOKEN"),
}

# Bare model names LiteLLM routes without a prefix (used when LiteLLM is not asked).
_BARE_PREFIXES = (
    ("gpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("chatgpt-", "openai"),
    ("claude-", "anthropic"),
)

_AZURE = ("azure", "azure_text")
_BEDROCK = ("bedrock", "bedrock_converse")
_VERTEX = ("vertex_ai", "vertex_ai_beta")


def provider_of(model: str) -> str:
    """LiteLLM's provider name for ``model`` from its prefix ("" when unknown), without LiteLLM."""
    if "/" in model:
        return model.split("/", 1)[0]
    return next((p for start, p in _BARE_PREFIXES if model.startswith(start)), "")


def missing_credentials(
    model: str,
    provider: str,
    environ: Mapping[str, str],
    *,
    api_base: str | None = None,
    home: Path | None = None,
) -> MissingCredentialsError | None:
    """The error to raise when ``provider`` (LiteLLM's name for ``model``'s provider) lacks
    credentials in ``environ``, naming every missing variable; None when nothing is missing.

    The hint says how to set the first one; a front-end with its own way to give variables (the
    Action's ``env:``) may replace it.
    """
    needs = unmet(provider, environ, api_base=api_base, home=home)
    if not needs:
        return None
    first = needs[0].names[0].split(" + ")[0]
    hint = f"export {first}=... (or put it in a .env file next to canary.yaml)."
    if provider in ("openai", "text-completion-openai") and api_base:
        # The OpenAI client refuses to send without some key, even to a local server.
        hint = (
            "export OPENAI_API_KEY=... — a server that ignores keys (vLLM, llama.cpp, "
            "LM Studio, a proxy without auth) accepts any value, e.g. OPENAI_API_KEY=unused."
        )
    return MissingCredentialsError(
        model, needs, hint=hint + " See docs/providers.md for what each provider needs."
    )


def unmet(
    provider: str,
    environ: Mapping[str, str],
    *,
    api_base: str | None = None,
    home: Path | None = None,
) -> list[Need]:
    """What ``provider`` needs and ``environ`` (plus the usual credential files) does not give.

    Secrets a workflow cannot see arrive as empty strings (fork PRs), so empty counts as missing.
    ``api_base`` stands in for an endpoint variable (Azure's ``AZURE_API_BASE``); it does not
    replace a key. ``home`` is where ``~/.aws`` and ``~/.config/gcloud`` are looked for.
    """

    def has(*names: str) -> bool:
        return any(environ.get(name, "").strip() for name in names)

    home = home if home is not None else Path(environ.get("HOME") or Path.home())
    if provider.startswith("vertex_ai"):
        provider = "vertex_ai"
    if provider in _AZURE:
        return _azure(has, api_base)
    if provider in _BEDROCK:
        return _bedrock(has, environ, home)
    if provider in _VERTEX:
        return _vertex(has, environ, home)
    names = _KEYS.get(provider, ())
    if names and not has(*names):
        return [Need("API key", names)]
    return []


def _azure(has: _Has, api_base: str | None) -> list[Need]:
    needs = []
    if not has("AZURE_API_KEY", "AZURE_OPENAI_API_KEY", "AZURE_AD_TOKEN"):
        needs.append(Need("API key", ("AZURE_API_KEY", "AZURE_OPENAI_API_KEY", "AZURE_AD_TOKEN")))
    if not api_base and not has("AZURE_API_BASE"):
        needs.append(
            Need(
                "endpoint", ("AZURE_API_BASE",), "or --api-base https://<resource>.openai.azure.com"
            )
        )
    # LiteLLM would fall back to its own default version, which changes between LiteLLM releases
    # and may not be one the resource serves: a canary pins what it measures.
    if not has("AZURE_API_VERSION"):
        needs.append(Need("API version", ("AZURE_API_VERSION",), "e.g. 2024-10-21"))
    return needs


def _bedrock(has: _Has, environ: Mapping[str, str], home: Path) -> list[Need]:
    needs = []
    shared = Path(environ.get("AWS_SHARED_CREDENTIALS_FILE") or home / ".aws" / "credentials")
    config = Path(environ.get("AWS_CONFIG_FILE") or home / ".aws" / "config")
    credentials = (
        (has("AWS_ACCESS_KEY_ID") and has("AWS_SECRET_ACCESS_KEY"))
        or has(
            "AWS_PROFILE",
            "AWS_WEB_IDENTITY_TOKEN_FILE",
            "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
            "AWS_CONTAINER_CREDENTIALS_FULL_URI",
            "AWS_BEARER_TOKEN_BEDROCK",
        )
        or shared.is_file()
    )
    if not credentials:
        needs.append(
            Need(
                "AWS credentials",
                ("AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY", "AWS_PROFILE"),
                f"or a credentials file at {shared}",
            )
        )
    if not has("AWS_REGION_NAME", "AWS_REGION", "AWS_DEFAULT_REGION") and not _aws_region_in(
        config, environ.get("AWS_PROFILE") or "default"
    ):
        needs.append(
            Need(
                "AWS region",
                ("AWS_REGION_NAME", "AWS_REGION", "AWS_DEFAULT_REGION"),
                f"or region = ... for the profile in {config}",
            )
        )
    return needs


def _aws_region_in(config: Path, profile: str) -> bool:
    if not config.is_file():
        return False
    parser = configparser.ConfigParser()
    try:
        parser.read(config, encoding="utf-8")
    except (configparser.Error, OSError, UnicodeDecodeError):
        return False
    section = profile if profile == "default" else f"profile {profile}"
    return bool(parser.has_section(section) and parser.get(section, "region", fallback="").strip())


def _vertex(has: _Has, environ: Mapping[str, str], home: Path) -> list[Need]:
    needs = []
    adc = home / ".config" / "gcloud" / "application_default_credentials.json"
    file = environ.get("GOOGLE_APPLICATION_CREDENTIALS", "").strip()
    source = Path(file) if file else adc
    if not has("VERTEXAI_CREDENTIALS") and not source.is_file():
        needs.append(
            Need(
                "Google credentials",
                ("GOOGLE_APPLICATION_CREDENTIALS", "VERTEXAI_CREDENTIALS"),
                f"or `gcloud auth application-default login`, which writes {adc}",
            )
        )
    if not has("VERTEXAI_PROJECT", "GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT") and not (
        source.is_file() and _project_in(source)
    ):
        needs.append(Need("Google Cloud project", ("VERTEXAI_PROJECT", "GOOGLE_CLOUD_PROJECT")))
    return needs


def _project_in(path: Path) -> bool:
    """Whether a Google credentials file names a project (only that field is read)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and bool(data.get("project_id") or data.get("quota_project_id"))
