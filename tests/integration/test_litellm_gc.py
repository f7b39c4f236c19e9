"""LiteLLM's long-lived objects are moved out of the cyclic GC's way once, at the first call, and
its import runs with the collector paused."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys

import pytest

from promptcanary.core.models import CanaryPrompt
from promptcanary.providers import litellm as provider_module
from promptcanary.providers.litellm import LiteLLMProvider
from tests.fakes.llm_server import FakeLLMServer


def test_first_call_freezes_the_heap_once() -> None:
    with FakeLLMServer() as server:
        provider = LiteLLMProvider("openai/fake", api_base=server.base_url, api_key="sk-test")
        provider_module._frozen = False
        gc.unfreeze()
        assert gc.get_freeze_count() == 0
        assert provider.complete(CanaryPrompt(text="hello")).content == "OK"
        assert gc.get_freeze_count() > 100_000  # LiteLLM's modules, price map, models...
        gc.unfreeze()
        provider.complete(CanaryPrompt(text="again"))
        assert gc.get_freeze_count() == 0  # once per process, not per call
        gc.freeze()


def import_in_a_fresh_interpreter(before: str) -> dict[str, object]:
    """Run ``import_litellm()`` where LiteLLM was never imported, after ``before``; what the
    collector did meanwhile (collections started, by generation) and its state after (enabled,
    objects frozen)."""
    code = (
        "import gc, json\n"
        f"{before}\n"
        "started = []\n"
        "gc.callbacks.append(lambda phase, info: phase == 'start' and "
        "started.append(info['generation']))\n"
        "from promptcanary.providers.litellm import import_litellm\n"
        "started.clear()  # only what happens during the call\n"
        "import_litellm()\n"
        "during = list(started)\n"
        "print(json.dumps({'during': during, 'enabled_after': gc.isenabled(), "
        "'frozen': gc.get_freeze_count(), "
        "'env': __import__('os').environ.get('LITELLM_LOCAL_MODEL_COST_MAP')}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "LITELLM_LOCAL_MODEL_COST_MAP"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


# A fresh interpreter importing LiteLLM: seconds of CPU each, so out of the quick subset.
@pytest.mark.e2e
def test_the_import_runs_with_the_collector_paused_and_restores_it() -> None:
    paused = import_in_a_fresh_interpreter("")
    # The plain import starts many (the last test); paused, only the young collection the
    # allocations made meanwhile call for once the collector is back on.
    assert paused["during"] in ([], [0])
    assert paused["enabled_after"] is True
    # What the import built is out of the collector's way at once: left in the young generation,
    # the next collections of each generation would walk all of it.
    assert paused["frozen"] > 100_000
    assert paused["env"] == "True"  # never to the network for the price map


# A fresh interpreter importing LiteLLM: seconds of CPU each, so out of the quick subset.
@pytest.mark.e2e
def test_a_collector_switched_off_beforehand_stays_off() -> None:
    assert import_in_a_fresh_interpreter("gc.disable()")["enabled_after"] is False


# A fresh interpreter importing LiteLLM: seconds of CPU each, so out of the quick subset.
@pytest.mark.e2e
def test_the_plain_import_starts_collections() -> None:
    # The comparison the pause is measured against (docs/benchmarks.md): without it, the
    # collector runs many times during the import.
    code = (
        "import gc\n"
        "started = []\n"
        "gc.callbacks.append(lambda phase, info: phase == 'start' and started.append(1))\n"
        "import litellm\n"
        "print(len(started))\n"
    )
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert int(done.stdout.strip().splitlines()[-1]) > 50
