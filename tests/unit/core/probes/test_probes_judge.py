"""llm_judge through the real LiteLLM stack against the loopback fake LLM server."""

from __future__ import annotations

import json
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from collections.abc import Iterator

import pytest

from promptcanary.core.probes import LlmJudgeProbe
from promptcanary.core.probes.base import build_probe
from promptcanary.core.probes.judge import (
    JUDGE_SYSTEM_PROMPT,
    MAX_RESPONSE_CHARS,
    VerdictError,
    parse_verdict,
)
from promptcanary.core.run.retry import RetryPolicy
from promptcanary.errors import ProbeConfigError
from tests.fakes.llm_server import FakeLLMServer, Reply

RUBRIC = "The answer names Paris as the capital of France."


@pytest.fixture(scope="module")
def shared_server() -> Iterator[FakeLLMServer]:
    # One server for the module: stopping one costs ~0.5 s (the serve_forever poll interval).
    with FakeLLMServer() as srv:
        yield srv


@pytest.fixture
def server(shared_server: FakeLLMServer) -> FakeLLMServer:
    shared_server.requests.clear()
    shared_server.reply = lambda req: "OK"
    return shared_server


@pytest.fixture(autouse=True)
def judge_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("JUDGE_KEY", "sk-test-judge-123456")
    # Instant retries: the retry rule is under test, not the wall clock.
    monkeypatch.setattr(
        LlmJudgeProbe, "retry_policy", RetryPolicy(max_attempts=2, base_delay_s=0.0)
    )
    return "sk-test-judge-123456"


def judge(server: FakeLLMServer, **params: object) -> LlmJudgeProbe:
    probe = build_probe(
        "llm_judge",
        {
            "rubric": RUBRIC,
            "model": "openai/judge",
            "api_base": server.base_url,
            "api_key_env": "JUDGE_KEY",
            **params,
        },
    )
    assert isinstance(probe, LlmJudgeProbe)
    return probe


def test_passing_verdict_and_request_shape(server, prompt, resp):
    server.reply = lambda req: '{"score": 0.9, "reason": "Names Paris correctly."}'
    result = judge(server, max_tokens=64)(prompt, resp("The capital is Paris."))
    assert result.passed and not result.errored
    assert result.score == pytest.approx(0.9)
    assert result.details == "judge 0.90 (pass at 0.5): 'Names Paris correctly.'"
    assert result.cost_usd is None  # "judge" is not in LiteLLM's price map
    [request] = server.requests
    assert request["model"] == "judge"
    assert request["temperature"] == 0
    assert request["max_tokens"] == 64
    system, user = request["messages"]
    assert system == {"role": "system", "content": JUDGE_SYSTEM_PROMPT}
    assert RUBRIC in user["content"]
    assert prompt.text in user["content"]
    assert user["content"].endswith("RESPONSE:\nThe capital is Paris.")


def test_failing_verdict_is_a_failure_not_an_error(server, prompt, resp):
    server.reply = lambda req: '```json\n{"score": 0.2, "reason": "Says Lyon."}\n```'
    result = judge(server, pass_threshold=0.7)(prompt, resp("Lyon"))
    assert not result.passed and not result.errored
    assert result.score == pytest.approx(0.2)
    assert result.details.startswith("judge 0.20 (pass at 0.7)")


@pytest.mark.parametrize(
    ("verdict", "why"),
    [
        ("Great answer, 9/10!", "not a JSON object"),
        ('{"score": "0.9", "reason": "ok"}', "'score' must be a number"),
        ('{"score": 1.5}', "'score' must be between 0 and 1, got 1.5"),
        ('{"score": true}', "'score' must be a number"),
        ('{"score": NaN}', "'score' must be between 0 and 1"),
        ('{"reason": "fine"}', "no 'score' in the verdict"),
        ("[0.9]", "expected a JSON object, got list"),
        ('{"score": 0.5, "reason": 3}', "'reason' must be a string"),
        ('Here: {"score": 0.9}', "not a JSON object"),
        ("", "empty reply"),
    ],
)
def test_malformed_verdict_is_errored(server, prompt, resp, verdict, why):
    server.reply = lambda req: verdict
    result = judge(server)(prompt, resp("Paris"))
    assert result.errored and not result.passed and result.score == 0.0
    assert result.details.startswith("judge verdict unreadable: ")
    assert why in result.details


def test_server_error_is_errored_after_retry(server, prompt, resp):
    server.reply = lambda req: Reply(status=500, error_message="upstream exploded")
    result = judge(server)(prompt, resp("Paris"))
    assert result.errored and not result.passed
    assert result.details.startswith("judge call failed: ")
    assert "500" in result.details or "exploded" in result.details
    assert len(server.requests) == 2  # one retry of a transient error, then give up


def test_auth_error_is_not_retried_and_key_is_not_leaked(server, prompt, resp, judge_key):
    server.reply = lambda req: Reply(
        status=401, error_message=f"Incorrect API key provided: {judge_key}"
    )
    result = judge(server)(prompt, resp("Paris"))
    assert result.errored
    assert judge_key not in result.details
    assert len(server.requests) == 1


def test_retry_recovers(server, prompt, resp):
    replies = iter([Reply(status=503), Reply(content='{"score": 1, "reason": "ok"}')])
    server.reply = lambda req: next(replies)
    result = judge(server)(prompt, resp("Paris"))
    assert result.passed and result.score == 1.0
    assert len(server.requests) == 2


def test_missing_key_variable_is_errored_without_a_call(server, prompt, resp, monkeypatch):
    monkeypatch.delenv("JUDGE_KEY")
    result = judge(server)(prompt, resp("Paris"))
    assert result.errored
    assert result.details == "judge key variable JUDGE_KEY is not set"
    assert server.requests == []


def test_cost_of_a_priced_judge_model(server, prompt, resp):
    server.reply = lambda req: '{"score": 1, "reason": "ok"}'
    result = judge(server, model="openai/gpt-4o-mini")(prompt, resp("Paris"))
    assert result.passed
    assert result.cost_usd is not None and result.cost_usd > 0


def test_huge_and_odd_responses_are_sent_bounded(server, prompt, resp):
    server.reply = lambda req: '{"score": 0, "reason": "no"}'
    probe = judge(server)
    probe(prompt, resp("\ufffd\x00\udcff" + "x" * (MAX_RESPONSE_CHARS * 3)))
    content = server.requests[-1]["messages"][1]["content"]
    assert content.endswith("[... truncated]")
    assert len(content) < MAX_RESPONSE_CHARS + 500
    empty = probe(prompt, resp(""))
    assert not empty.passed and not empty.errored


def test_params_recorded_without_the_key(server):
    probe = judge(server)
    assert probe.params == {
        "rubric": RUBRIC,
        "model": "openai/judge",
        "pass_threshold": 0.5,
        "max_tokens": 256,
        "api_base": server.base_url,
        "api_key_env": "JUDGE_KEY",
    }
    assert "sk-" not in json.dumps(probe.spec().params)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"model": "openai/x"}, "rubric"),
        ({"rubric": "r"}, "model"),
        ({"rubric": " ", "model": "m"}, "rubric must not be empty"),
        ({"rubric": "r", "model": "m", "pass_threshold": 2}, "pass_threshold must be between"),
        ({"rubric": "r", "model": "m", "api_key_env": "sk-abc/def+ghi"}, "NAME of an environment"),
        ({"rubric": "r", "model": "m", "api_key": "sk-abc"}, "api_key"),
        ({"rubric": "r", "model": "m", "temperature": 0.5}, "temperature"),
        ({"rubric": "r", "model": "m", "max_tokens": 0}, "max_tokens must be >= 1"),
    ],
)
def test_validation(params, message):
    with pytest.raises(ProbeConfigError, match=message) as info:
        build_probe("llm_judge", params)
    assert "sk-abc" not in str(info.value)


def test_parse_verdict_accepts_integers_and_missing_reason():
    assert parse_verdict('{"score": 1}') == (1.0, "")
    assert parse_verdict(' {"score": 0, "reason": "bad", "extra": 1} ') == (0.0, "bad")
    with pytest.raises(VerdictError):
        parse_verdict('{"score": -0.1}')
