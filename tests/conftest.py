"""Shared pytest fixtures.

* ``LITELLM_LOCAL_MODEL_COST_MAP=True`` is set before anything can import LiteLLM, so no test ever
  fetches LiteLLM's price map from the network.
* Compiled modules are written to ``__pycache__`` even under ``PYTHONDONTWRITEBYTECODE``.
* ``llm_server``: a started :class:`~tests.fakes.llm_server.FakeLLMServer` (answers "OK"; set
  ``llm_server.reply = fn`` to script replies, ``llm_server.latency_s`` for latency).
* ``litellm_provider``: a factory building a :class:`LiteLLMProvider` wired to that server through
  the real LiteLLM stack: ``litellm_provider()`` or ``litellm_provider("openai/gpt-4o-mini",
  max_tokens=64)``.
"""

from __future__ import annotations

import os
import sys

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
# Keep the compiled tests and package between runs even where PYTHONDONTWRITEBYTECODE is set (some
# Docker images set it): otherwise every xdist worker compiles and assertion-rewrites every test
# module and the package again on every run, about 6.5 s of CPU each (collecting 10 s, not 3.5 s).
# Set before this file imports anything of the project's, so those modules are kept too;
# subprocesses the tests start keep the variable and only read what is kept.
sys.dont_write_bytecode = False

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from tests.fakes.llm_server import FakeLLMServer

if TYPE_CHECKING:
    from promptcanary.providers.litellm import LiteLLMProvider

#: Model used by default with the fake server; LiteLLM has no price for it (cost_usd is None).
FAKE_MODEL = "openai/fake-model"


@pytest.fixture
def llm_server() -> Iterator[FakeLLMServer]:
    """A loopback OpenAI-compatible server, started for this test and stopped after it."""
    with FakeLLMServer() as server:
        yield server


@pytest.fixture
def litellm_provider(llm_server: FakeLLMServer) -> Callable[..., LiteLLMProvider]:
    """Factory: ``litellm_provider(model=FAKE_MODEL, **kwargs)`` -> LiteLLMProvider on llm_server.

    Extra keyword arguments go to LiteLLMProvider (temperature, max_tokens, extra params...).
    """
    from promptcanary.providers.litellm import LiteLLMProvider

    def make(model: str = FAKE_MODEL, **kwargs: Any) -> LiteLLMProvider:
        kwargs.setdefault("api_base", llm_server.base_url)
        kwargs.setdefault("api_key", "sk-test")
        return LiteLLMProvider(model, **kwargs)

    return make
