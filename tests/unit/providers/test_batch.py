"""providers/batch.py: batch lines, polling with backoff and a deadline, turning result lines into
responses. The files/batches calls go through the real LiteLLM to the loopback batch server; only
the clock and sleep are injected, so the polling schedule is exact and instant."""

from __future__ import annotations

from typing import Any

import pytest

from promptcanary.core.models import CanaryPrompt, ProviderConfig
from promptcanary.errors import ConfigError, MeasurementError
from promptcanary.pipeline import parse_duration
from promptcanary.providers.base import CURRENT_SAMPLE
from promptcanary.providers.batch import (
    BatchResultsProvider,
    BatchSettings,
    _line_response,
    _parse_custom_id,
    build_lines,
    check_batch_support,
    custom_id,
    run_batch,
)
from promptcanary.providers.litellm import LiteLLMProvider, _import_litellm
from tests.fakes.batch_server import FakeBatchServer
from tests.fakes.llm_server import Reply

PROMPTS = [CanaryPrompt(id="a#1", text="first"), CanaryPrompt(id="b", text="second")]


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-batch-unit")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 6))
        self.now += seconds


def provider(server: FakeBatchServer, **extra: Any) -> LiteLLMProvider:
    return LiteLLMProvider("openai/gpt-4o-mini", api_base=server.base_url, **extra)


def test_custom_id_round_trips_ids_holding_the_separator() -> None:
    assert custom_id("a#1", 3) == "a#1#3"
    assert _parse_custom_id("a#1#3") == ("a#1", 3)
    assert _parse_custom_id("no-sample") is None
    assert _parse_custom_id("x#y") is None


def test_lines_carry_the_request_parameters_but_no_client_settings() -> None:
    with FakeBatchServer() as server:
        p = provider(server, api_key="sk-secret-in-config", response_format={"type": "json_object"})
        tool = {"type": "function", "function": {"name": "f", "parameters": {}}}
        prompts = [CanaryPrompt(id="t", text="use the tool", tools=[tool])]
        lines = build_lines(p, prompts, 2, lambda prompt: "sys")
    assert [line["custom_id"] for line in lines] == ["t#0", "t#1"]
    body = lines[0]["body"]
    assert body["model"] == "gpt-4o-mini"
    assert body["tools"] == [tool]
    assert body["response_format"] == {"type": "json_object"}
    assert body["messages"][0] == {"role": "system", "content": "sys"}
    assert "sk-secret-in-config" not in str(lines)


def test_polls_with_backoff_until_done() -> None:
    fake = FakeTime()
    notes: list[str] = []
    with FakeBatchServer(lambda request: "OK", polls_to_finish=5) as server:
        results = run_batch(
            provider(server),
            PROMPTS,
            2,
            lambda prompt: None,
            BatchSettings(timeout_s=100, poll_s=1.0, max_poll_s=2.0),
            notify=notes.append,
            sleep=fake.sleep,
            clock=fake.clock,
        )
    assert fake.sleeps == [1.0, 1.5, 2.0, 2.0, 2.0]
    assert set(results) == {("a#1", 0), ("a#1", 1), ("b", 0), ("b", 1)}
    assert results[("b", 1)].content == "OK" and results[("b", 1)].sample == 1
    # Priced at the batch rate of LiteLLM's price map: half the per-request price here.
    answer = results[("b", 1)]
    litellm = _import_litellm("openai/gpt-4o-mini")
    direct = sum(
        litellm.cost_per_token(
            model="gpt-4o-mini",
            prompt_tokens=answer.prompt_tokens,
            completion_tokens=answer.completion_tokens,
        )
    )
    assert answer.cost_usd is not None and answer.cost_usd == pytest.approx(direct / 2)
    assert notes[0].startswith("Batch batch_1 submitted: 4 requests")
    # One line per status change, not per poll.
    assert [n.split(": ")[1].split(" (")[0] for n in notes[1:]] == [
        "in_progress",
        "completed, 4/4 done",
    ]


def test_deadline_never_sleeps_past_it_and_names_the_batch() -> None:
    fake = FakeTime()
    with FakeBatchServer(polls_to_finish=None) as server, pytest.raises(MeasurementError) as err:
        run_batch(
            provider(server),
            PROMPTS,
            1,
            lambda prompt: None,
            BatchSettings(timeout_s=3.0, poll_s=1.0, max_poll_s=10.0),
            sleep=fake.sleep,
            clock=fake.clock,
        )
    assert fake.sleeps == [1.0, 1.5, 0.5]
    assert "batch batch_1 did not finish within 3 s (status: in_progress)" in str(err.value)
    assert "--batch-id batch_1" in (err.value.hint or "")


def test_unreachable_server_is_a_measurement_error() -> None:
    p = LiteLLMProvider("openai/gpt-4o-mini", api_base="http://127.0.0.1:9/v1")
    with pytest.raises(MeasurementError) as err:
        run_batch(p, PROMPTS, 1, lambda prompt: None, BatchSettings(poll_s=0.01))
    assert "could not upload the batch file" in str(err.value)
    assert "127.0.0.1:9" in str(err.value)


def test_error_lines_become_errored_responses() -> None:
    litellm = _import_litellm("openai/gpt-4o-mini")
    config = ProviderConfig(model_id="openai/gpt-4o-mini")
    server_error = {
        "custom_id": "b#0",
        "response": {"status_code": 500, "body": {"error": {"message": "overloaded"}}},
    }
    r = _line_response(litellm, config, ("b", 0), server_error)
    assert (r.error_type, r.error_status, r.ok) == ("server", 500, False)
    assert "overloaded" in (r.error or "")
    expired = {"custom_id": "b#0", "response": None, "error": {"message": "batch expired"}}
    r = _line_response(litellm, config, ("b", 0), expired)
    assert r.error_type == "bad_request" and "batch expired" in (r.error or "")
    garbled = {"custom_id": "b#0", "response": {"status_code": 200, "body": {"choices": []}}}
    r = _line_response(litellm, config, ("b", 0), garbled)
    assert "not a chat completion" in (r.error or "")
    limited = {"custom_id": "b#0", "response": {"status_code": 429, "body": {}}}
    assert _line_response(litellm, config, ("b", 0), limited).error_type == "rate_limit"


def test_batch_server_error_file_reaches_the_results() -> None:
    def reply(request: dict[str, Any]) -> Reply | str:
        return Reply(status=500, error_message="boom") if "second" in str(request) else "fine"

    with FakeBatchServer(reply, polls_to_finish=1) as server:
        results = run_batch(
            provider(server), PROMPTS, 1, lambda prompt: None, BatchSettings(poll_s=0.001)
        )
    assert results[("a#1", 0)].content == "fine"
    assert results[("b", 0)].error_status == 500 and "boom" in (results[("b", 0)].error or "")
    assert "GET /v1/files/file-3/content" in server.paths  # the error file was downloaded


def test_results_provider_answers_per_sample_and_records_missing_ones() -> None:
    config = ProviderConfig(model_id="openai/gpt-4o-mini")
    litellm = _import_litellm(config.model_id)
    ok = {
        "custom_id": "b#1",
        "response": {
            "status_code": 200,
            "body": {"choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]},
        },
    }
    provider = BatchResultsProvider(
        config, {("b", 1): _line_response(litellm, config, ("b", 1), ok)}
    )
    token = CURRENT_SAMPLE.set(1)
    try:
        assert provider.complete(PROMPTS[1]).content == "hi"
        missing = provider.complete(PROMPTS[0])
    finally:
        CURRENT_SAMPLE.reset(token)
    assert missing.error_type == "batch_missing" and "sample 1" in (missing.error or "")
    assert provider.with_config(ProviderConfig(model_id="x")) is provider


def test_unsupported_providers_are_refused() -> None:
    assert check_batch_support("openai/gpt-4o-mini") == "openai"
    assert check_batch_support("hosted_vllm/llama") == "hosted_vllm"
    for model in ("anthropic/claude-3-5-haiku-20241022", "ollama/llama3"):
        with pytest.raises(ConfigError, match="--batch is not supported for provider"):
            check_batch_support(model)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90", 90.0), ("90s", 90.0), ("30m", 1800.0), ("24h", 86400.0), ("0.5s", 0.5)],
)
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text, field="--batch-timeout") == seconds


@pytest.mark.parametrize("text", ["", "soon", "0", "-5m", "nanh", "infh"])
def test_parse_duration_refuses(text: str) -> None:
    with pytest.raises(ConfigError, match="positive duration"):
        parse_duration(text, field="--batch-timeout")
