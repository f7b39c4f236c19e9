"""LiteLLM's price map read without importing LiteLLM (providers/price_map.py) against LiteLLM
itself: the same map loaded (bundled, served, refused), the same default URL, and the same price
for every model priced without LiteLLM. LiteLLM's side runs in a fresh interpreter where its
import-time state (the map it loads at import) matters."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from promptcanary.providers import price_map
from promptcanary.providers.price_map import load_price_map, plain_price
from tests.fakes.loopback import LoopbackHTTPServer

LOCAL = {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}
#: Token counts priced for every model: each side of the price alone, and mixed.
COUNTS = ((1, 0), (0, 1), (1000, 500), (123_457, 65_432))


def digest(model_cost: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(model_cost, sort_keys=True).encode()).hexdigest()


#: In LiteLLM's interpreter: the digest of ``litellm.model_cost`` as its import built it, its
#: URL, and the modified price the served map carries when adopted.
LITELLM_SIDE = """
import hashlib, json, litellm
print(json.dumps({
    "digest": hashlib.sha256(json.dumps(litellm.model_cost, sort_keys=True).encode()).hexdigest(),
    "url": litellm.model_cost_map_url,
    "models": len(litellm.model_cost),
}))
"""


def litellm_side(environ: dict[str, str]) -> dict[str, Any]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LITELLM_", "MODEL_COST_MAP_")) and k != "LITELLM_OFFLINE_MODE"
    }
    done = subprocess.run(
        [sys.executable, "-c", LITELLM_SIDE],
        env={**env, **environ},
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    seen: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return seen


class MapServer(LoopbackHTTPServer):
    """Serves one reply (status, body) at every path."""

    def __init__(self, status: int, body: bytes) -> None:
        self.status, self.body = status, body

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(server.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(server.body)))
                self.end_headers()
                self.wfile.write(server.body)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler


def bundled() -> dict[str, Any]:
    path = price_map.bundled_path()
    assert path is not None
    loaded: dict[str, Any] = json.loads(path.read_bytes())
    return loaded


def modified() -> bytes:
    """The bundled map with gpt-4o-mini's input price tripled and a model of our own added."""
    served = bundled()
    served["gpt-4o-mini"]["input_cost_per_token"] *= 3
    served["canary-test-model"] = {
        "litellm_provider": "openai",
        "mode": "chat",
        "input_cost_per_token": 1e-06,
        "output_cost_per_token": 2e-06,
    }
    return json.dumps(served).encode()


@pytest.fixture(scope="module")
def local_map() -> dict[str, Any]:
    loaded = load_price_map(LOCAL)
    assert loaded is not None
    return loaded


@pytest.mark.e2e
def test_the_local_map_is_litellms(local_map: dict[str, Any]) -> None:
    seen = litellm_side(LOCAL)
    assert (seen["models"], seen["digest"]) == (len(local_map), digest(local_map))


@pytest.mark.e2e
def test_the_default_url_is_litellms() -> None:
    assert litellm_side(LOCAL)["url"] == price_map.DEFAULT_URL


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("status", "body", "served"),
    [
        (200, modified(), True),
        (200, b"<html>not json</html>", False),  # invalid JSON: the bundled map
        (200, json.dumps({"gpt-4o-mini": {"input_cost_per_token": 1}}).encode(), False),  # 1 < 50
        (404, modified(), False),  # an error status: the bundled map, whatever the body
    ],
    ids=["served", "not json", "too few models", "404"],
)
def test_a_served_map_is_adopted_or_refused_as_litellm_does(
    status: int, body: bytes, served: bool, local_map: dict[str, Any]
) -> None:
    with MapServer(status, body) as server:
        environ = {"LITELLM_MODEL_COST_MAP_URL": f"{server.root}/prices.json"}
        mine = load_price_map(environ)
        theirs = litellm_side(environ)
    assert mine is not None
    assert theirs["digest"] == digest(mine)
    if served:
        assert mine["canary-test-model"]["output_cost_per_token"] == 2e-06
        assert mine["gpt-4o-mini"]["input_cost_per_token"] == pytest.approx(
            3 * local_map["gpt-4o-mini"]["input_cost_per_token"]
        )
    else:
        assert mine == local_map


def test_an_unreachable_url_falls_back_to_the_bundled_map(local_map: dict[str, Any]) -> None:
    def refused(url: str, timeout: float) -> tuple[int, bytes]:
        assert timeout == 5  # LiteLLM's
        raise ConnectionRefusedError(url)

    environ = {"LITELLM_MODEL_COST_MAP_URL": "http://127.0.0.1:9/prices.json"}
    assert load_price_map(environ, fetch=refused) == local_map


@pytest.mark.parametrize(
    "environ",
    [
        {"LITELLM_OFFLINE_MODE": " TRUE "},
        {"LITELLM_LOCAL_MODEL_COST_MAP": "true"},
    ],
)
def test_local_and_offline_never_fetch(environ: dict[str, str], local_map: dict[str, Any]) -> None:
    def never(url: str, timeout: float) -> tuple[int, bytes]:
        raise AssertionError(f"fetched {url}")

    assert load_price_map(environ, fetch=never) == local_map


@pytest.mark.parametrize(
    "environ",
    [
        {"LITELLM_MODEL_COST_MAP_URL": "s3://bucket/prices.json"},
        {"MODEL_COST_MAP_MIN_MODEL_COUNT": "10"},
    ],
)
def test_what_is_not_mirrored_is_left_to_litellm(environ: dict[str, str]) -> None:
    assert load_price_map(environ, fetch=lambda url, timeout: (200, modified())) is None


def self_priced(price_map_: dict[str, Any]) -> Iterator[str]:
    """Every model string the plan may pass that is priced without LiteLLM: each key, and each
    key with its provider's prefix."""
    for key, entry in price_map_.items():
        provider = entry.get("litellm_provider") if isinstance(entry, dict) else None
        names = [key]
        if isinstance(provider, str) and not key.startswith(f"{provider}/"):
            names.append(f"{provider}/{key}")
        for name in names:
            if plain_price(name, 1, 1, price_map_) is not None:
                yield name


@pytest.mark.e2e
def test_every_model_priced_here_costs_what_litellm_says(local_map: dict[str, Any]) -> None:
    names = sorted(set(self_priced(local_map)))
    # Not vacuous: the common models are priced here (the quickstart's among them).
    assert {"openai/gpt-4o-mini", "gpt-4o-mini"} <= set(names)
    assert len(names) > 1000
    script = (
        "import json, sys, litellm\n"
        "litellm.suppress_debug_info = True\n"
        "names, counts = json.load(sys.stdin)\n"
        "out = {}\n"
        "for name in names:\n"
        "    row = []\n"
        "    for p, c in counts:\n"
        "        a, b = litellm.cost_per_token(model=name, prompt_tokens=p, completion_tokens=c)\n"
        "        row.append(float(a) + float(b))\n"
        "    out[name] = row\n"
        "print(json.dumps(out))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITELLM_")}
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps([names, COUNTS]),
        env={**env, **LOCAL},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    mine = {name: [plain_price(name, p, c, local_map) for p, c in COUNTS] for name in names}
    assert {n: v for n, v in mine.items() if theirs[n] != v} == {}


@pytest.mark.parametrize(
    "model",
    [
        "bedrock_converse/anthropic.claude-opus-4-7",  # a prefix LiteLLM does not route by
        "azure/mistral-large-latest",  # also a mistral model: LiteLLM's lookup order decides
        "ft:o4-mini-2025-04-16",  # a fine-tune, priced by LiteLLM from its base model
        "openai/no-such-model",
        "anthropic/gpt-4o-mini",  # an OpenAI model under another provider's prefix
    ],
)
def test_models_litellm_resolves_otherwise_are_left_to_it(
    model: str, local_map: dict[str, Any]
) -> None:
    assert plain_price(model, 10, 10, local_map) is None


def test_a_tiered_price_is_left_to_litellm() -> None:
    tiered = {
        "gpt-x": {
            "litellm_provider": "openai",
            "input_cost_per_token": 1e-06,
            "output_cost_per_token": 2e-06,
            "input_cost_per_token_above_200k_tokens": 2e-06,
        }
    }
    assert plain_price("openai/gpt-x", 10, 10, tiered) is None
    del tiered["gpt-x"]["input_cost_per_token_above_200k_tokens"]
    assert plain_price("openai/gpt-x", 10, 10, tiered) == pytest.approx(3e-05)
