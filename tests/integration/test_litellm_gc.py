"""LiteLLM's long-lived objects are moved out of the cyclic GC's way once, at the first call."""

from __future__ import annotations

import gc

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
