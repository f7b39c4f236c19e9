"""``suite.run()`` / ``suite.arun()`` from Python refuse a spending cap on a model with no known
price, as the CLI and the Action do: same check (core/pricing.py), same ConfigError, before the
first request. Through the real LiteLLM against the loopback OpenAI-compatible server."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from promptcanary.core.suite import CanarySuite
from promptcanary.errors import ConfigError
from tests.fakes.llm_server import FakeLLMServer, Reply

PRICE = "price: {input_per_million: 2.0, output_per_million: 8.0}\n"


def suite(tmp_path: Path, extra: str = "") -> CanarySuite:
    path = tmp_path / "canary.yaml"
    path.write_text(
        f"name: s\n{extra}probes: [json_validity]\nprompts:\n  - hi\n  - there\n",
        encoding="utf-8",
    )
    return CanarySuite.from_yaml(path)


@pytest.mark.parametrize("how", ["run", "arun"])
def test_a_cap_on_an_unpriced_model_is_refused_before_any_request(
    tmp_path: Path, llm_server: FakeLLMServer, litellm_provider: Callable[..., Any], how: str
) -> None:
    provider = litellm_provider()  # openai/fake-model: not in LiteLLM's price map
    canary = suite(tmp_path)
    with pytest.raises(ConfigError) as info:
        if how == "run":
            canary.run(provider, max_cost_usd=0.5, show_progress=False)
        else:
            asyncio.run(canary.arun(provider, max_cost_usd=0.5))
    assert info.value.exit_code == 2 and info.value.field == "max_cost_usd"
    assert "no price for openai/fake-model" in str(info.value)
    assert "input_per_million" in (info.value.hint or "")
    assert llm_server.requests == []


def test_a_cap_in_the_suite_is_refused_too(
    tmp_path: Path, llm_server: FakeLLMServer, litellm_provider: Callable[..., Any]
) -> None:
    with pytest.raises(ConfigError, match=r"spending limit of \$0\.25"):
        suite(tmp_path, "max_cost_usd: 0.25\n").run(litellm_provider(), show_progress=False)
    assert llm_server.requests == []


def test_the_suites_price_lets_the_cap_count_every_answer(
    tmp_path: Path, llm_server: FakeLLMServer, litellm_provider: Callable[..., Any]
) -> None:
    llm_server.reply = lambda _request: Reply(content="{}", prompt_tokens=100, completion_tokens=10)
    run = suite(tmp_path, PRICE).run(litellm_provider(), max_cost_usd=0.5, show_progress=False)
    assert len(llm_server.requests) == 2
    assert [r.cost_usd for r in run.llm_responses] == [
        pytest.approx((100 * 2.0 + 10 * 8.0) / 1e6)
    ] * 2


def test_without_a_cap_an_unpriced_model_runs_unpriced(
    tmp_path: Path, llm_server: FakeLLMServer, litellm_provider: Callable[..., Any]
) -> None:
    run = suite(tmp_path).run(litellm_provider(), show_progress=False)
    assert len(llm_server.requests) == 2
    assert all(r.cost_usd is None for r in run.llm_responses)
