"""Problems found before the first request: a missing key, an unroutable model, a bad base URL.

A run that cannot work should stop with one clear message (exit 2) before anything is sent: a
missing key otherwise looks like a server error, is retried four times per request, and ends as
"every request errored" after a minute of waiting.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping
from typing import Any

from promptcanary.errors import ConfigError
from promptcanary.providers.credentials import missing_credentials, provider_of, unmet

__all__ = [
    "check_api_base",
    "check_credentials",
    "check_model",
    "check_provider_base",
    "missing_keys",
    "preflight",
]


def missing_keys(model: str, environ: Mapping[str, str]) -> tuple[str, ...]:
    """The API key variables ``model`` needs when none of them is set (empty: fine or unknown).

    Only the key, judged from the model's prefix without importing LiteLLM (the Action decides
    with it whether a fork's pull request can be measured); :func:`preflight` checks the rest.
    """
    for need in unmet(provider_of(model), environ):
        if need.what == "API key":
            return need.names
    return ()


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


def check_model(model: str, *, api_base: str | None = None) -> str:
    """LiteLLM's provider for ``model``; a model it cannot route is refused with a suggestion.

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
        return str(litellm.get_llm_provider(model=model, api_base=api_base)[1])
    except Exception:  # LiteLLM raises BadRequestError for an unknown provider
        pass
    guess = suggest_model(model, litellm)
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
    provider = check_model(model, api_base=api_base)
    check_provider_base(provider, api_base)
    check_credentials(model, provider, env, api_base=api_base)


def check_provider_base(provider: str, api_base: str | None) -> None:
    """Refuse an Anthropic base URL ending in ``/v1``: LiteLLM appends ``/v1/messages`` (unless
    the base already ends in ``/v1/messages``), so every request would go to ``/v1/v1/messages``
    and fail as "not found" (checked against LiteLLM 1.110; see docs/providers.md).

    Refused rather than rewritten: the base is the user's, and a proxy may mount Anthropic
    anywhere; the hint names the two forms that work.

    Raises:
        ConfigError: naming ``--api-base`` (exit 2), before any request is sent.
    """
    if provider != "anthropic" or not api_base:
        return
    base = api_base.rstrip("/")
    if not base.endswith("/v1"):
        return
    host = base.removesuffix("/v1")
    raise ConfigError(
        f"LiteLLM appends /v1/messages to an Anthropic base URL, so {api_base!r} would be "
        f"called as {base}/v1/messages and every request would fail",
        field="--api-base",
        hint=f"Pass --api-base {host} (LiteLLM adds /v1/messages), or the full endpoint "
        f"{base}/messages. See docs/providers.md.",
    )


def check_credentials(
    model: str, provider: str, environ: Mapping[str, str], *, api_base: str | None = None
) -> None:
    """Refuse a model whose provider lacks credentials (see :mod:`.credentials`), with or
    without ``--api-base``: LiteLLM would refuse every request itself, one by one.

    Raises:
        MissingCredentialsError: a ConfigError naming every missing variable (exit 2);
            nothing was sent.
    """
    error = missing_credentials(model, provider, environ, api_base=api_base)
    if error is not None:
        raise error


#: Providers that need one API key and nothing else: the newcomer's way to a model, so a
#: suggestion prefers them over clouds and resellers serving a model of the same name.
_DIRECT = ("openai", "anthropic", "gemini", "mistral", "groq", "deepseek", "xai", "cohere_chat")


def suggest_model(model: str, litellm: Any) -> str:
    """A model string LiteLLM can route that is probably what ``model`` meant ("" if none).

    ``provider/name`` with a misspelt provider keeps ``name``; a bare name gets the prefix of
    the provider serving a model of that name (its family, e.g. ``claude-*`` → ``anthropic/``),
    never a second prefix.
    """
    prefix, _, rest = model.partition("/")
    if rest:
        names = [str(getattr(p, "value", p)) for p in litellm.provider_list]
        close = difflib.get_close_matches(prefix, names, n=1)
        return f"{close[0]}/{rest}" if close else ""
    served = _served(litellm)
    wanted = model.strip()
    family = re.match(r"[a-z]+", wanted.lower())
    exact = served.get(wanted.lower(), set())
    # Who serves a model of that family (claude-*, gemini-*) counts too: resellers serve the
    # exact name more often than its maker does.
    kin: set[str] = set()
    if family:
        kin = {p for name, ps in served.items() if name.startswith(family.group(0)) for p in ps}
    stem = family.group(0)[:4] if family else "\0"

    def rank(p: str) -> tuple[bool, bool, int]:
        return (p not in exact, not p.startswith(stem), _DIRECT.index(p))

    direct = min((p for p in _DIRECT if p in exact | kin), key=rank, default=None)
    if direct is not None:
        # The user's own name, spelt as that provider spells it when only punctuation differs
        # (gpt4o → gpt-4o); never a different model.
        own = {_squash(name): name for name, ps in served.items() if direct in ps}
        return f"{direct}/{own.get(_squash(wanted), wanted)}"
    close = difflib.get_close_matches(wanted.lower(), list(served), n=1, cutoff=0.6)
    if not close:
        return ""
    providers = served[close[0]]
    best = next((p for p in _DIRECT if p in providers), sorted(providers)[0])
    return f"{best}/{close[0]}"


def _squash(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _served(litellm: Any) -> dict[str, set[str]]:
    """Model name (no prefix) → the LiteLLM prefixes that serve it, from LiteLLM's price map."""
    served: dict[str, set[str]] = {}
    for key, info in getattr(litellm, "model_cost", {}).items():
        if not isinstance(info, dict) or info.get("mode") not in (None, "chat"):
            continue
        provider = str(info.get("litellm_provider") or "")
        head, _, tail = str(key).partition("/")
        if tail and provider.startswith(head):
            route, name = head, tail  # "vertex_ai/claude-…" (vertex_ai-anthropic_models)
        elif tail:
            continue  # a reseller's own path ("heroku/…" under another provider's name)
        else:
            route, name = _ROUTES.get(provider, provider), str(key)
        if route and "/" not in name:
            served.setdefault(name.lower(), set()).add(route)
    return served


#: litellm_provider values that are not themselves model-string prefixes.
_ROUTES = {
    "vertex_ai-language-models": "vertex_ai",
    "vertex_ai-anthropic_models": "vertex_ai",
    "vertex_ai-mistral_models": "vertex_ai",
    "bedrock_converse": "bedrock",
}


def _litellm() -> Any:
    from promptcanary.providers.litellm import import_litellm

    litellm = import_litellm()
    litellm.suppress_debug_info = True  # no "Provider List" banner on a refused model
    return litellm
