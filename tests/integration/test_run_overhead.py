"""What the run's speed work must not change: cost figures, results, probe isolation.

The cost of a response is read from the price LiteLLM already computed while handling it (its
``_hidden_params``) instead of pricing it a second time; these tests check that the shortcut
gives exactly what ``litellm.completion_cost`` and ``litellm.cost_per_token`` give. The runner
hands its result out of ``asyncio.run`` without making it the main task's value, and waits for a
response's probes with one ``asyncio.wait``; the results must be the same as before.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Coroutine
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import pytest

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProbeResult
from promptcanary.core.probes.base import BaseProbe
from promptcanary.core.run.runner import RunOptions, run_suite
from promptcanary.core.suite import CanarySuite
from promptcanary.providers.litellm import LiteLLMProvider, _cost
from promptcanary.providers.scripted import ScriptedProvider
from tests.fakes.llm_server import FakeLLMServer, Reply

Factory = Callable[..., LiteLLMProvider]
PRICED_MODEL = "openai/gpt-4o-mini"
FAST: dict[str, Any] = {"retry_base_delay": 0.001, "retry_max_delay": 0.005, "show_progress": False}


def _litellm_response(provider: LiteLLMProvider, text: str) -> Any:
    """The raw LiteLLM response for ``text``, sent with exactly the provider's arguments."""
    import litellm

    return litellm.completion(**provider.request_kwargs(CanaryPrompt(text=text)))


@pytest.mark.parametrize(("prompt_tokens", "completion_tokens"), [(1000, 1000), (7, 3)])
def test_cost_equals_litellm_completion_cost_and_cost_per_token(
    llm_server: FakeLLMServer,
    litellm_provider: Factory,
    prompt_tokens: int,
    completion_tokens: int,
) -> None:
    import litellm

    llm_server.reply = lambda req: Reply(
        content="x", prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
    )
    provider = litellm_provider(PRICED_MODEL)
    ours = provider.complete(CanaryPrompt(text="hi")).cost_usd
    raw = _litellm_response(provider, "hi")
    priced_again = litellm.completion_cost(completion_response=raw)
    prompt_cost, completion_cost = litellm.cost_per_token(
        model=PRICED_MODEL,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
    )
    assert ours is not None and ours > 0
    assert ours == priced_again
    assert ours == pytest.approx(prompt_cost + completion_cost, rel=1e-12)


def test_cost_without_litellm_hidden_price_falls_back_to_completion_cost(
    llm_server: FakeLLMServer, litellm_provider: Factory
) -> None:
    import litellm

    llm_server.reply = lambda req: Reply(content="x", prompt_tokens=50, completion_tokens=20)
    raw = _litellm_response(litellm_provider(PRICED_MODEL), "hi")
    stamped = _cost(litellm, raw)
    raw._hidden_params = {}  # as a response LiteLLM did not price (e.g. built by hand)
    assert _cost(litellm, raw) == stamped == litellm.completion_cost(completion_response=raw)


def test_unknown_model_costs_none_without_pricing_twice(
    llm_server: FakeLLMServer, litellm_provider: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    import litellm

    raw = _litellm_response(litellm_provider(), "hi")
    calls: list[object] = []
    monkeypatch.setattr(litellm, "completion_cost", lambda **kw: calls.append(kw))
    assert _cost(litellm, raw) is None
    assert calls == []  # LiteLLM already found no price: no second lookup


def test_run_results_through_litellm_keep_order_usage_and_probes(
    llm_server: FakeLLMServer, litellm_provider: Factory
) -> None:
    llm_server.reply = lambda req: Reply(
        content=f"OK {req['messages'][-1]['content']}", prompt_tokens=9, completion_tokens=2
    )
    prompts = [CanaryPrompt(text=f"p{i}") for i in range(20)]
    suite = CanarySuite(name="overhead", prompts=prompts, probes=[_Contains("OK"), _Contains("p1")])
    result = run_suite(suite, litellm_provider(PRICED_MODEL), RunOptions(concurrency=6, **FAST))
    assert [r.prompt_id for r in result.llm_responses] == [p.id for p in prompts]
    assert [r.content for r in result.llm_responses] == [f"OK {p.text}" for p in prompts]
    assert all(r.total_tokens == 11 and r.cost_usd for r in result.llm_responses)
    assert [(r.prompt_id, r.probe_id) for r in result.probe_results] == [
        (p.id, pid) for p in prompts for pid in suite.probe_ids
    ]
    second = [r.passed for r in result.probe_results[1::2]]
    assert second == [p.text.startswith("p1") for p in prompts]


# ── runner, in process ──


def _echo() -> ScriptedProvider:
    return ScriptedProvider(lambda request: request.text, model="test/echo")


class _Contains(BaseProbe):
    probe_id = "contains"
    name = "Contains"

    def __init__(self, needle: str) -> None:
        self.needle = needle

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        ok = self.needle in response.content
        return self.result(prompt, passed=ok, score=1.0 if ok else 0.0)


class _Hanging(BaseProbe):
    probe_id = "hanging"
    name = "Hanging"

    def __init__(self) -> None:
        self.release = threading.Event()

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        self.release.wait(5)
        return self.result(prompt, passed=True, score=1.0)


def test_run_result_is_not_the_value_of_the_coroutine_given_to_asyncio_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # asyncio.run() of Python 3.11/3.12 formats repr(main task) on exit, result included.
    returned: list[object] = []
    real_run = asyncio.run

    def spy(main: Coroutine[Any, Any, Any], **kwargs: Any) -> Any:
        value = real_run(main, **kwargs)
        returned.append(value)
        return value

    monkeypatch.setattr(asyncio, "run", spy)
    suite = CanarySuite(name="box", prompts=[CanaryPrompt(text="a")], probes=[_Contains("a")])
    result = run_suite(suite, _echo(), RunOptions(**FAST))
    assert returned == [None]
    assert [r.content for r in result.llm_responses] == ["a"]
    assert [r.passed for r in result.probe_results] == [True]


def test_a_hanging_probe_does_not_cost_its_siblings_their_results() -> None:
    hanging = _Hanging()
    suite = CanarySuite(
        name="mixed",
        prompts=[CanaryPrompt(text=f"x{i}") for i in range(4)],
        probes=[_Contains("x"), hanging, _Contains("1")],
    )
    try:
        result = run_suite(suite, _echo(), RunOptions(probe_timeout=0.05, **FAST))
    finally:
        hanging.release.set()
    rows = [result.probe_results[i : i + 3] for i in range(0, 12, 3)]
    assert all(first.passed and not first.errored for first, _, _ in rows)
    assert all(mid.errored and "still running after 0.05s" in mid.details for _, mid, _ in rows)
    assert [last.passed for _, _, last in rows] == [False, True, False, False]
