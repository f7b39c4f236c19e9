"""providers/scripted.py: a function (request -> reply) as a provider, through the real run engine."""

from __future__ import annotations

import asyncio
import threading

import pytest

from promptcanary.core.models import CanaryPrompt, LLMResponse
from promptcanary.core.probes import JsonValidityProbe
from promptcanary.core.run.runner import RunOptions, run_suite
from promptcanary.core.suite import CanarySuite
from promptcanary.errors import ProviderError
from promptcanary.providers.scripted import ScriptedProvider, ScriptedRequest

SUITE = CanarySuite(
    "scripted",
    [
        CanaryPrompt(id="a", text="first"),
        CanaryPrompt(id="b", text="second", system_prompt="Be JSON"),
    ],
    [JsonValidityProbe()],
)


def test_each_request_is_answered_by_the_handler_and_recorded() -> None:
    def handler(request: ScriptedRequest) -> str | LLMResponse:
        if request.prompt.id == "a":
            return f'{{"n": {request.sample}}}'
        return request.reply("not json", cost_usd=0.5, finish_reason="stop")

    provider = ScriptedProvider(handler, model="scripted/json")
    run = SUITE.run(provider, samples=2, temperature=0.4, show_progress=False)

    assert [(r.prompt_id, r.sample, r.content) for r in run.llm_responses] == [
        ("a", 0, '{"n": 0}'),
        ("a", 1, '{"n": 1}'),
        ("b", 0, "not json"),
        ("b", 1, "not json"),
    ]
    assert {r.provider_model_id for r in run.llm_responses} == {"scripted/json"}
    assert run.llm_responses[2].cost_usd == 0.5 and run.llm_responses[2].finish_reason == "stop"
    assert all(r.latency_ms is not None for r in run.llm_responses)  # timed like a model
    assert [r.passed for r in run.probe_results] == [True, True, False, False]
    # The requests of the run, as the handler saw them (the override applies to a copy of the
    # provider, which records into the same list).
    assert sorted((r.prompt.id, r.sample) for r in provider.requests) == [
        ("a", 0),
        ("a", 1),
        ("b", 0),
        ("b", 1),
    ]
    assert {r.system_prompt for r in provider.requests if r.prompt.id == "b"} == {"Be JSON"}
    assert {r.config.temperature for r in provider.requests} == {0.4}


def test_what_the_handler_raises_is_the_call_failing_and_retries_count_as_attempts() -> None:
    def handler(request: ScriptedRequest) -> str:
        if request.prompt.id == "a" and request.attempt < 3:
            raise ProviderError("overloaded", status_code=503)
        if request.prompt.id == "b":
            raise ProviderError("bad request", status_code=400)
        return "{}"

    provider = ScriptedProvider(handler)
    run = run_suite(SUITE, provider, RunOptions(retry_base_delay=0.001, show_progress=False))
    first, second = run.llm_responses
    assert first.ok and first.attempts == 3
    assert (second.error_type, second.error_status, second.attempts) == ("bad_request", 400, 1)
    assert [r.attempt for r in provider.requests if r.prompt.id == "a"] == [1, 2, 3]


def test_a_handler_returning_something_else_is_a_clear_error() -> None:
    provider = ScriptedProvider(lambda request: 42)  # type: ignore[arg-type,return-value]
    with pytest.raises(TypeError, match="returned int, not str or LLMResponse"):
        provider.complete(CanaryPrompt(id="a", text="first"))


def test_an_async_handler_is_awaited_on_the_runs_event_loop() -> None:
    loops: set[int] = set()

    async def handler(request: ScriptedRequest) -> str:
        loops.add(id(asyncio.get_running_loop()))
        assert threading.current_thread() is threading.main_thread()  # no worker thread
        return "{}"

    provider = ScriptedProvider(handler)
    run = SUITE.run(provider, samples=3, show_progress=False)
    assert len(run.llm_responses) == 6 and all(r.content == "{}" for r in run.llm_responses)
    assert len(loops) == 1
    # Called directly (no loop running), it is awaited to the end all the same.
    assert provider.complete(CanaryPrompt(id="a", text="first")).content == "{}"
