"""Problems found before the first request: a missing key, an unroutable model, a bad base URL.

A run that cannot work should stop with one clear message (exit 2) before anything is sent: a
missing key otherwise looks like a server error, is retried four times per request, and ends as
"every request errored" after a minute of waiting.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from typing import Any

from promptcanary.errors import ConfigError

__all__ = ["check_api_base", "check_model", "missing_keys", "preflight"]

# LiteLLM provider prefix → environment variables that can carry its credentials (any one will
# do). Providers not listed (local servers, cloud SDK credentials) are assumed to be configured.
_PROVIDER_KEYS: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "text-completion-openai": ("OPENAI_API_KEY",),
    "azure": ("AZURE_API_KEY", "AZURE_OPENAI_API_KEY"),
    "anthropic": ("ANTHROPIC_API_KEY",),
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

# Bare model names LiteLLM routes without a prefix.
_BARE_PREFIXES = (
    ("gpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("chatgpt-", "openai"),
    ("claude-", "anthropic"),
)


def missing_keys(model: str, environ: Mapping[str, str]) -> tuple[str, ...]:
    """The key variables ``model`` needs when none of them is set (empty means fine or unknown).

    Secrets a workflow cannot see arrive as empty strings (fork PRs), so empty counts as missing.
    """
    prefix = model.split("/", 1)[0] if "/" in model else ""
    if not prefix:
        prefix = next((p for start, p in _BARE_PREFIXES if model.startswith(start)), "")
    names = _PROVIDER_KEYS.get(prefix, ())
    if not names or any(environ.get(name, "").strip() for name in names):
        return ()
    return names


def check_api_base(api_base: str | None) -> None:
    """Refuse a base URL without a scheme (``localhost:8000/v1``): LiteLLM would read it as a path.

    Raises:
        ConfigError: naming ``--api-base``.
    """
    if api_base is not None and not api_base.lower().startswith(("http://", "https://")):
        raise ConfigError(
            f"must start with http:// or https:// (got {api_base!r})",
            field="--api-base",
            hint=f"Did you mean http://{api_base}?",
        )


def check_model(model: str, *, api_base: str | None = None) -> None:
    """Refuse a model string LiteLLM cannot route, suggesting the nearest provider prefix.

    Raises:
        ConfigError: naming ``--provider``.
    """
    if not model.strip():
        raise ConfigError(
            "model_id must not be empty",
            field="--provider",
            hint="Pass a LiteLLM model string, e.g. -p openai/gpt-4o-mini.",
        )
    litellm = _litellm()
    try:
        litellm.get_llm_provider(model=model, api_base=api_base)
        return
    except Exception:  # LiteLLM raises BadRequestError for an unknown provider
        pass
    prefix, _, rest = model.partition("/")
    guess = ""
    if rest:
        names = [str(getattr(p, "value", p)) for p in litellm.provider_list]
        close = difflib.get_close_matches(prefix, names, n=1)
        if close:
            guess = f"{close[0]}/{rest}"
    else:
        close = difflib.get_close_matches(model, list(litellm.model_list), n=1, cutoff=0.6)
        if close:
            routed = _provider_of(litellm, close[0])
            guess = f"{routed}/{close[0]}" if routed else close[0]
    raise ConfigError(
        f"LiteLLM cannot route the model {model!r}: it names no provider it knows",
        field="--provider",
        hint=(f"Did you mean {guess}? " if guess else "")
        + "Write the model as provider/model, e.g. openai/gpt-4o-mini or "
        "anthropic/claude-3-5-haiku-latest (https://docs.litellm.ai/docs/providers).",
    )


def preflight(
    model: str, *, api_base: str | None = None, environ: Mapping[str, str] | None = None
) -> None:
    """Every check above, in the order a user fixes them.

    Raises:
        ConfigError: the first problem found (exit 2), before any request is sent.
    """
    env = os.environ if environ is None else environ
    check_api_base(api_base)
    check_model(model, api_base=api_base)
    missing = missing_keys(model, env)
    if missing and not api_base:
        either = " or ".join(missing)
        raise ConfigError(
            f"{either} is not set (or empty), so {model} cannot be called",
            field="environment",
            hint=f"export {missing[0]}=... (or put it in a .env file next to canary.yaml); "
            "no request was sent.",
        )


def _provider_of(litellm: Any, model: str) -> str | None:
    try:
        return str(litellm.get_llm_provider(model=model)[1])
    except Exception:
        return None


def _litellm() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True  # no "Provider List" banner on a refused model
    return litellm
