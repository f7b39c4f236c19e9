"""LiteLLM's price map, read without importing LiteLLM (``import litellm`` costs ~4 s of CPU; a
plan prices a model and calls none, issue 29).

:func:`load_price_map` loads the map the way ``litellm/__init__.py`` does at import
(``litellm_core_utils/get_model_cost_map.py``): the JSON bundled with the installed package when
``LITELLM_LOCAL_MODEL_COST_MAP`` or ``LITELLM_OFFLINE_MODE`` is ``true``; otherwise the map at
``LITELLM_MODEL_COST_MAP_URL`` (LiteLLM's default below), fetched once with a 5 s timeout, and the
bundled JSON instead when the fetch fails or the reply is not a JSON object of at least 50 models
and half the bundled count. What this module does not mirror (an ``s3://`` URL, the validation
thresholds changed through the environment) gives None: LiteLLM then decides.

:func:`plain_price` prices only an entry whose price is plainly per token: an input and an output
cost per token and nothing else that could apply to a request of text tokens (no tiers above N
tokens, no per-second, per-character, per-request or uplift pricing). Anything else is
None too, and the caller asks LiteLLM (tests/unit/providers/test_price_map.py
compares both on every entry of the bundled map).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

#: ``litellm.model_cost_map_url`` when ``LITELLM_MODEL_COST_MAP_URL`` is unset.
DEFAULT_URL = (
    "https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json"
)
BUNDLED_NAME = "model_prices_and_context_window_backup.json"
#: LiteLLM's fetch timeout (seconds) and its validation of a fetched map.
FETCH_TIMEOUT_S = 5
MIN_MODELS = 50
MAX_SHRINK = 0.5
#: Top-level keys of the map that are not models (LiteLLM: ``RESERVED_TOP_LEVEL_KEYS``).
GENERALIZATIONS = "fallback_generalizations"
RESERVED = frozenset({"sample_spec", GENERALIZATIONS})
#: The process names for which LiteLLM never fetches (its own CLI entry points).
LITELLM_CLIS = frozenset({"lite", "litellm-proxy"})

#: Price keys that a request of plain text tokens, sent without a service tier, batch or cache,
#: never pays: an entry may carry them and still be priced here.
_NOT_APPLYING_SUFFIXES = ("_batches", "_priority", "_flex")
_NOT_APPLYING_PREFIXES = ("cache_read_", "cache_creation_", "search_context_")
#: LiteLLM applies this uplift only to a request it is told went to OpenAI's FedRAMP endpoint
#: (``data_residency="fedramp"``), which a plan's price never is.
_NOT_APPLYING_KEYS = frozenset(
    {"input_cost_per_token", "output_cost_per_token", "fedramp_uplift_multiplier"}
)


#: Providers priced here: LiteLLM routes ``<provider>/<model>`` for each straight to the map entry
#: of that provider (checked entry by entry against ``litellm.cost_per_token``). A prefix LiteLLM
#: does not route by (``bedrock_converse/``, the map's ``vertex_ai-*_models`` groups) or routes
#: elsewhere is left to LiteLLM. A bare name is priced here only as an OpenAI model, where LiteLLM
#: sends it.
SELF_PRICED = frozenset(
    {
        "openai",
        "anthropic",
        "azure",
        "gemini",
        "vertex_ai",
        "mistral",
        "groq",
        "deepseek",
        "xai",
        "cohere",
        "together_ai",
        "fireworks_ai",
        "deepinfra",
        "openrouter",
        "perplexity",
        "cerebras",
        "bedrock",
    }
)


def bundled_path() -> Path | None:
    """The JSON bundled with the installed LiteLLM, found without executing its ``__init__``
    (None: no LiteLLM package to read it from)."""
    spec = importlib.util.find_spec("litellm")
    locations = spec.submodule_search_locations if spec is not None else None
    if not locations:
        return None
    return Path(next(iter(locations))) / BUNDLED_NAME


def load_price_map(
    environ: Mapping[str, str],
    *,
    fetch: Callable[[str, float], tuple[int, bytes]] | None = None,
    argv0: str | None = None,
) -> dict[str, Any] | None:
    """``litellm.model_cost`` as LiteLLM's import would build it under ``environ``; None where
    LiteLLM must load it: an ``s3://`` URL, the validation thresholds set in the environment, or
    no installed LiteLLM package to read.

    ``fetch(url, timeout)`` returns (HTTP status, body); by default a plain ``httpx.get`` (no
    redirects followed), as LiteLLM's. A failed fetch (transport error, 4xx/5xx) falls back to the
    bundled map; LiteLLM then also retries in a background thread and may adopt the remote map
    later in a long-lived process, which a one-shot plan never sees.
    """
    bundled = bundled_path()
    if bundled is None:
        return None
    name = Path(argv0 if argv0 is not None else sys.argv[0]).stem
    local = (
        environ.get("LITELLM_OFFLINE_MODE", "").strip().lower() == "true"
        or environ.get("LITELLM_LOCAL_MODEL_COST_MAP", "").lower() == "true"
        or name in LITELLM_CLIS
    )
    if local:
        return _finalized(_read(bundled))
    if "MODEL_COST_MAP_MIN_MODEL_COUNT" in environ or "MODEL_COST_MAP_MAX_SHRINK_RATIO" in environ:
        return None  # LiteLLM's own parsing of the thresholds decides
    url = environ.get("LITELLM_MODEL_COST_MAP_URL", DEFAULT_URL)
    if url.startswith("s3:"):
        return None  # LiteLLM reads it with boto3
    fetched = _fetch(url, fetch or _httpx_get)
    backup = _read(bundled)
    if fetched is None or not _valid(fetched, backup):
        return _finalized(backup)
    return _finalized(fetched)


def _valid(fetched: Mapping[str, Any], backup: Mapping[str, Any]) -> bool:
    """LiteLLM's check of a fetched map: at least :data:`MIN_MODELS` models and no fewer than
    :data:`MAX_SHRINK` of the bundled map's."""
    models = _models(fetched)
    return bool(fetched) and models >= MIN_MODELS and models >= _models(backup) * MAX_SHRINK


def _read(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_bytes())
    return loaded


def _models(price_map: Mapping[str, Any]) -> int:
    return sum(1 for key in price_map if key not in RESERVED)


def _httpx_get(url: str, timeout: float) -> tuple[int, bytes]:
    import httpx  # LiteLLM's own HTTP client (its dependency), loaded only for a remote map

    response = httpx.get(url, timeout=timeout)
    return response.status_code, response.content


def _fetch(url: str, fetch: Callable[[str, float], tuple[int, bytes]]) -> dict[str, Any] | None:
    """The fetched JSON object; None where LiteLLM falls back to the bundled map."""
    try:
        status, body = fetch(url, FETCH_TIMEOUT_S)
    except Exception:  # transport errors and invalid URLs: LiteLLM falls back on every kind
        return None
    if status >= 400:
        return None
    try:
        parsed = json.loads(body)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def _finalized(price_map: dict[str, Any]) -> dict[str, Any]:
    """The map as LiteLLM keeps it: without its generalization rules, with every alias a key of
    its own that shares its owner's entry."""
    price_map.pop(GENERALIZATIONS, None)
    pointers = {
        name: target
        for name, entry in price_map.items()
        if isinstance(entry, dict) and isinstance(target := entry.get("alias_of"), str)
    }
    owners: dict[str, str] = {}
    listed: list[str] = []
    for name, entry in price_map.items():
        aliases = entry.get("aliases") if isinstance(entry, dict) else None
        if aliases is None or name in pointers:
            continue
        listed.append(name)
        if not isinstance(aliases, list):
            continue
        for alias in aliases:
            if (alias in price_map and alias not in pointers) or alias in owners:
                continue  # a name taken by a model or an earlier alias: LiteLLM skips it
            owners[alias] = name
    for alias, target in pointers.items():
        taken = target not in price_map or target in pointers or alias in owners
        if not taken:
            owners[alias] = target
    for name in listed:
        price_map[name].pop("aliases", None)
    for alias in pointers.keys() - owners.keys():
        price_map.pop(alias)
    for alias, owner in owners.items():
        price_map[alias] = price_map[owner]
    return price_map


def _applies(key: str) -> bool:
    """Whether a price key can change what a request of plain text tokens costs."""
    if key in _NOT_APPLYING_KEYS:
        return False
    if key.startswith(_NOT_APPLYING_PREFIXES) or key.endswith(_NOT_APPLYING_SUFFIXES):
        return False
    return "cost" in key or "price" in key or "multiplier" in key or "discount" in key


def entry_for(model_id: str, price_map: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The entry of ``model_id`` as the plan passes it (``openai/gpt-4o-mini``, or a key of the
    map itself); None where LiteLLM must find it: a provider not in :data:`SELF_PRICED`, a
    fine-tune (``ft:``, priced from its base model), a name also another provider's, no entry of
    that provider."""
    provider = model_id.partition("/")[0] if "/" in model_id else "openai"
    if provider not in SELF_PRICED or model_id.startswith("ft:"):
        return None
    entry = price_map.get(model_id)
    if "/" in model_id:
        name = model_id.partition("/")[2]
        other = _rerouted(name, provider, price_map)
        if other is not None:
            # The name is also another provider's model: LiteLLM may route by that (it sends
            # azure/<a Mistral or Cohere model> elsewhere), so LiteLLM decides.
            return None
        entry = entry if entry is not None else price_map.get(name)
    if not isinstance(entry, dict) or entry.get("litellm_provider") != provider:
        return None
    return entry


def _rerouted(name: str, provider: str, price_map: Mapping[str, Any]) -> str | None:
    """Another provider LiteLLM may read ``<provider>/<name>`` as: the provider of the bare name
    ``name`` when that is not ``provider`` (Cohere's chat models are bare names); and for Azure,
    Mistral when ``name`` is one of its chat models (LiteLLM sends those, and Cohere's, through
    Azure's OpenAI-compatible route)."""
    bare = price_map.get(name)
    owner = bare.get("litellm_provider") if isinstance(bare, dict) else None
    if owner is not None and owner != provider:
        return str(owner)
    if provider == "azure":
        mistral = price_map.get(f"mistral/{name}")
        if isinstance(mistral, dict) and mistral.get("litellm_provider") == "mistral":
            return "mistral"
    return None


def plain_price(
    model_id: str, prompt_tokens: int, completion_tokens: int, price_map: Mapping[str, Any]
) -> float | None:
    """USD for these tokens: ``prompt x input_cost_per_token + completion x
    output_cost_per_token``; None where LiteLLM must price them (the model is not found as
    LiteLLM would find it, or its price is not plainly per token)."""
    entry = entry_for(model_id, price_map)
    if entry is None:
        return None
    inp, out = entry.get("input_cost_per_token"), entry.get("output_cost_per_token")
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (inp, out)):
        return None
    if any(_applies(key) for key in entry):
        return None
    assert isinstance(inp, int | float) and isinstance(out, int | float)
    return float(prompt_tokens * inp) + float(completion_tokens * out)
