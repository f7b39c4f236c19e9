"""Runs through CanarySuite / the runner, LiteLLMProvider and the real LiteLLM stack, against the
loopback server: concurrency, order, retries, Retry-After, auth stop, timeouts, malformed bodies,
budget, rate limiting, error rate, replay."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from promptcanary.core.comparator import compare
from promptcanary.core.models import (
    BaselineSnapshot,
    CanaryPrompt,
    CanaryRunResult,
    LLMResponse,
    ProbeResult,
)
from promptcanary.core.probes.base import BaseProbe
from promptcanary.core.run.runner import RunOptions, abort_kind, run_suite
from promptcanary.core.suite import CanarySuite
from promptcanary.providers.litellm import LiteLLMProvider
from promptcanary.providers.replay import ReplayProvider
from tests.fakes.llm_server import FakeLLMServer, Reply, last_user_text

Factory = Callable[..., LiteLLMProvider]


def options(**kwargs: Any) -> RunOptions:
    """Run options with tiny retry delays, so retry tests take milliseconds."""
    kwargs.setdefault("retry_base_delay", 0.01)
    kwargs.setdefault("retry_max_delay", 0.05)
    kwargs.setdefault("show_progress", False)
    return RunOptions(**kwargs)


class MentionsProbe(BaseProbe):
    """Passes when the response mentions ``word``."""

    probe_id = "mentions"
    name = "Mentions"

    def __init__(self, word: str = "OK") -> None:
        self.word = word

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        ok = self.word in response.content
        return self.result(prompt, passed=ok, score=1.0 if ok else 0.0)


class ToolCalledProbe(BaseProbe):
    probe_id = "tool_called"
    name = "Tool called"

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        names = [c["function"]["name"] for c in response.tool_calls or []]
        return self.result(prompt, passed=names == ["lookup"], score=float(names == ["lookup"]))


def suite_of(texts: list[str], probes: list[BaseProbe] | None = None) -> CanarySuite:
    return CanarySuite(
        name="runs",
        prompts=[CanaryPrompt(text=t) for t in texts],
        probes=probes or [MentionsProbe()],
    )


class Script:
    """Reply function keyed by prompt text, counting attempts and their arrival times."""

    def __init__(self, rules: dict[str, Callable[[int], Reply | str]] | None = None) -> None:
        self.rules = rules or {}
        self.arrivals: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> Reply | str:
        text = last_user_text(request)
        with self._lock:
            self.arrivals.setdefault(text, []).append(time.monotonic())
            attempt = len(self.arrivals[text])
        rule = self.rules.get(text)
        return rule(attempt) if rule else f"OK: {text}"


def test_concurrency_is_reached_and_order_preserved(
    llm_server: FakeLLMServer, litellm_provider: Factory
) -> None:
    rng = random.Random(11)
    delays = {f"p{i}": rng.uniform(0.0, 0.08) for i in range(24)}
    llm_server.reply = lambda req: Reply(
        content=f"OK: {last_user_text(req)}", delay_s=delays[last_user_text(req)]
    )
    # Long enough that all 8 requests are surely in flight together, even on a busy machine.
    llm_server.latency_s = 0.3
    suite = suite_of(list(delays))
    result = suite.run(litellm_provider(), concurrency=8, show_progress=False)
    assert llm_server.max_in_flight == 8
    assert len(llm_server.requests) == 24
    assert [r.prompt_id for r in result.llm_responses] == [p.id for p in suite.prompts]
    assert [r.content for r in result.llm_responses] == [f"OK: {t}" for t in delays]
    assert [r.prompt_id for r in result.probe_results] == [p.id for p in suite.prompts]
    assert result.pass_rate == 1.0


def test_samples_each_get_a_request(llm_server: FakeLLMServer, litellm_provider: Factory) -> None:
    result = suite_of(["a", "b"]).run(litellm_provider(), samples=3, show_progress=False)
    assert len(llm_server.requests) == 6
    assert [r.sample for r in result.llm_responses] == [0, 1, 2, 0, 1, 2]
    assert [r.sample for r in result.probe_results] == [0, 1, 2, 0, 1, 2]


def test_429_retry_after_is_honoured(llm_server: FakeLLMServer, litellm_provider: Factory) -> None:
    script = Script(
        {
            "limited": lambda n: (
                Reply(status=429, headers={"retry-after-ms": "300"}) if n == 1 else "OK"
            )
        }
    )
    llm_server.reply = script
    result = run_suite(suite_of(["limited", "free"]), litellm_provider(), options())
    first, second = script.arrivals["limited"]
    assert second - first >= 0.3
    limited = result.llm_responses[0]
    assert limited.ok and limited.attempts == 2
    assert result.usage.retries == 1


def test_500_is_retried(llm_server: FakeLLMServer, litellm_provider: Factory) -> None:
    llm_server.reply = Script({"flaky": lambda n: Reply(status=500) if n < 3 else "OK"})
    result = run_suite(suite_of(["flaky", "fine"]), litellm_provider(), options())
    assert [r.attempts for r in result.llm_responses] == [3, 1]
    assert result.error_rate == 0.0


def test_401_stops_the_run_after_one_request(
    llm_server: FakeLLMServer, litellm_provider: Factory
) -> None:
    llm_server.reply = lambda req: Reply(status=401, error_message="Incorrect API key provided")
    suite = suite_of([f"p{i}" for i in range(12)])
    result = suite.run(litellm_provider(), concurrency=6, show_progress=False)
    assert len(llm_server.requests) == 1
    assert abort_kind(result) == "auth"
    assert result.aborted is not None
    assert "Authentication refused" in result.aborted and "11 of 12" in result.aborted
    assert result.error_rate == 1.0
    assert all(r.errored for r in result.probe_results)


def test_timeouts_are_recorded_and_the_run_goes_on(
    llm_server: FakeLLMServer, litellm_provider: Factory
) -> None:
    llm_server.reply = Script({"stuck": lambda n: Reply(content="late OK", delay_s=1.0)})
    result = run_suite(
        suite_of(["stuck", "quick"]), litellm_provider(), options(timeout=0.2, max_attempts=2)
    )
    stuck, quick = result.llm_responses
    assert stuck.error_type == "timeout" and stuck.attempts == 2
    assert quick.ok and quick.content == "OK: quick"


def test_malformed_json_body_is_an_error_not_a_crash(
    llm_server: FakeLLMServer, litellm_provider: Factory
) -> None:
    llm_server.reply = Script({"garbled": lambda n: Reply(raw_body=b'{"id": "x", "choices": [')})
    result = run_suite(suite_of(["garbled", "fine"]), litellm_provider(), options(max_attempts=2))
    garbled, fine = result.llm_responses
    # The same request would get the same body: named, not retried (issue 14).
    assert garbled.error is not None and garbled.attempts == 1
    assert garbled.error_type == "bad_response" and "not JSON" in garbled.error
    assert fine.ok
    assert result.error_rate == 0.5


def test_budget_stops_issuing_requests(
    llm_server: FakeLLMServer, litellm_provider: Factory
) -> None:
    # gpt-4o-mini is in LiteLLM's local price map: 100k in + 10k out tokens cost about $0.021.
    llm_server.reply = lambda req: Reply(
        content="OK", prompt_tokens=100_000, completion_tokens=10_000
    )
    suite = suite_of([f"p{i}" for i in range(6)])
    result = suite.run(
        litellm_provider("openai/gpt-4o-mini"),
        concurrency=1,
        max_cost_usd=0.03,
        show_progress=False,
    )
    assert len(llm_server.requests) == 2
    assert abort_kind(result) == "budget"
    assert [r.error_type for r in result.llm_responses] == [None, None] + ["budget"] * 4
    assert result.usage.cost_usd is not None and result.usage.cost_usd > 0.03


def test_rate_limited_server_completes_without_errors(
    llm_server: FakeLLMServer, litellm_provider: Factory
) -> None:
    llm_server.rate_limit_per_s = 8
    suite = suite_of([f"p{i}" for i in range(12)])
    result = run_suite(suite, litellm_provider(), RunOptions(concurrency=8, show_progress=False))
    assert llm_server.rate_limited > 0  # the limit was really hit...
    assert result.errors == []  # ...and absorbed by retries
    assert result.usage.retries == llm_server.rate_limited


def test_error_rate_over_the_limit_makes_the_comparison_inconclusive(
    llm_server: FakeLLMServer, litellm_provider: Factory
) -> None:
    suite = suite_of([f"p{i}" for i in range(5)])
    provider = litellm_provider()
    baseline_run = run_suite(suite, provider, options())
    assert baseline_run.error_rate == 0.0
    bad = {"p1", "p3"}
    llm_server.reply = lambda req: (
        Reply(status=400) if last_user_text(req) in bad else f"OK {last_user_text(req)}"
    )
    current = run_suite(suite, provider, options())
    assert current.error_rate == 0.4
    assert {r.prompt_id for r in current.errors} == {p.id for p in suite.prompts if p.text in bad}
    assert all(r.error_status == 400 and r.error_type == "bad_request" for r in current.errors)
    snapshot = BaselineSnapshot(
        suite_name=suite.name, provider=baseline_run.provider, run_result=baseline_run
    )
    report = compare(snapshot, current)
    assert report.verdict == "inconclusive"
    assert not report.has_drift
    assert "40% of requests errored" in report.summary


def test_tool_calls_are_recorded_and_probed(
    llm_server: FakeLLMServer, litellm_provider: Factory
) -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
    llm_server.reply = lambda req: Reply(content=None, tool_calls=[call])
    tool = {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}
    suite = CanarySuite(
        name="tools",
        prompts=[CanaryPrompt(text="look it up", tools=[tool])],
        probes=[ToolCalledProbe()],
    )
    result = suite.run(litellm_provider(), show_progress=False)
    assert llm_server.requests[0]["tools"] == [tool]
    assert result.llm_responses[0].tool_calls == [call]
    assert result.pass_rate == 1.0


def test_replay_rescores_a_saved_run_without_calling_the_model(
    tmp_path: Path, llm_server: FakeLLMServer, litellm_provider: Factory
) -> None:
    counter = iter(range(1000))
    llm_server.reply = lambda req: Reply(
        content=f"answer {next(counter)}", model="fake-2025", system_fingerprint="fp_1"
    )
    suite = suite_of(["a", "b"])
    original = suite.run(litellm_provider(), samples=2, concurrency=1, show_progress=False)
    saved = tmp_path / "run.json"
    saved.write_text(original.model_dump_json(), encoding="utf-8")
    requests_before = len(llm_server.requests)

    provider = ReplayProvider(saved)
    assert provider.config.model_id == original.provider.model_id
    assert provider.samples == 2
    changed = suite_of(["a", "b", "new prompt"], probes=[MentionsProbe("answer 3")])
    replayed = changed.run(provider, samples=provider.samples, show_progress=False)

    assert len(llm_server.requests) == requests_before  # no model call
    keep = (
        "content",
        "prompt_tokens",
        "completion_tokens",
        "latency_ms",
        "response_model",
        "system_fingerprint",
        "sample",
    )
    for old, new in zip(original.llm_responses, replayed.llm_responses):
        assert {k: getattr(old, k) for k in keep} == {k: getattr(new, k) for k in keep}
    missing = replayed.llm_responses[4:]
    assert [r.error_type for r in missing] == ["replay_missing", "replay_missing"]
    assert "not in" in (missing[0].error or "")
    # The changed probe sees the replayed answers: only sample 1 of "b" said "answer 3".
    scored = [(r.prompt_id, r.sample, r.passed) for r in replayed.probe_results if not r.errored]
    b_id = suite.prompts[1].id
    assert [s for s in scored if s[2]] == [(b_id, 1, True)]
    # Same model and parameters (the api_key was never saved, so compare the stored form).
    assert replayed.provider.model_dump() == original.provider.model_dump()


def test_replay_of_a_baseline_file_and_of_a_run_object(tmp_path: Path) -> None:
    suite = suite_of(["x"])
    run = CanaryRunResult(
        suite_name="runs",
        provider=LiteLLMProvider("openai/fake").config,
        prompts=list(suite.prompts),
        llm_responses=[
            LLMResponse(
                prompt_id=suite.prompts[0].id,
                provider_model_id="openai/fake",
                content="OK from baseline",
            )
        ],
    )
    snapshot = BaselineSnapshot(suite_name="runs", provider=run.provider, run_result=run)
    path = tmp_path / "baseline.json"
    path.write_text(snapshot.model_dump_json(), encoding="utf-8")
    for source in (path, run):
        result = suite.run(ReplayProvider(source), show_progress=False)
        assert result.llm_responses[0].content == "OK from baseline"
        assert result.pass_rate == 1.0
