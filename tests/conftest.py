"""Shared pytest fixtures.

* ``LITELLM_LOCAL_MODEL_COST_MAP=True`` is set before anything can import LiteLLM, so no test ever
  fetches LiteLLM's price map from the network.
* Compiled modules are written to ``__pycache__`` even under ``PYTHONDONTWRITEBYTECODE``.
* The heaviest test files are collected first (:data:`HEAVIEST_FIRST`), so pytest-xdist does not
  leave them for the end.
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

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from tests.fakes.llm_server import FakeLLMServer

if TYPE_CHECKING:
    from promptcanary.providers.litellm import LiteLLMProvider

# Keep the compiled tests and package between runs even where PYTHONDONTWRITEBYTECODE is set (some
# Docker images set it): otherwise every xdist worker compiles and assertion-rewrites every test
# module and the package again on every run, about 6.5 s of CPU each (collecting 10 s, not 3.5 s).
# Set before the test modules are collected; subprocesses the tests start keep the variable and
# only read what is kept.
sys.dont_write_bytecode = False

#: Model used by default with the fake server; LiteLLM has no price for it (cost_usd is None).
FAKE_MODEL = "openai/fake-model"

#: The test files that take the most CPU (most first; 3-14 s each, measured 2026-12-03), moved to
#: the front of the collection. pytest-xdist hands out whole files in collection order under
#: ``--dist loadfile --no-loadscope-reorder``; by default it hands out the files with the most
#: tests first, which left these (most hold one to a dozen tests) for the end, one worker
#: running a 14 s file alone while the others had finished. A file missing here only runs later.
HEAVIEST_FIRST = (
    "tests/integration/test_thin_samples_cli.py",
    "tests/integration/test_behaviour_cli.py",
    "tests/integration/test_fuzz_inputs.py",
    "tests/integration/test_litellm_transport.py",
    "tests/integration/test_frontends_agree.py",
    "tests/integration/test_action_checks.py",
    "tests/integration/test_action_github_flows.py",
    "tests/unit/core/verdict/test_stats_without_scipy.py",
    "tests/integration/test_bad_inputs.py",
    "tests/integration/test_action_inprocess.py",
    "tests/integration/test_action_watch_retest.py",
    "tests/unit/core/probes/test_probes_judge.py",
    "tests/integration/test_startup_lazy.py",
    "tests/unit/core/verdict/test_headline_score.py",
    "tests/unit/core/verdict/test_rules.py",
    "tests/unit/core/probes/test_probes_tool_use.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files of :data:`HEAVIEST_FIRST` first, in its order; the others after, as collected.
    A stable sort: each file's tests stay together and in their order."""
    rank = {path: i for i, path in enumerate(HEAVIEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


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
