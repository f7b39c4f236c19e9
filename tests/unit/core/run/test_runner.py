"""The runner with an in-process provider (ScriptedProvider: a function answers, no wire).

Wire-level behaviour through LiteLLM is in tests/integration/test_runs.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading
import time
from collections.abc import Callable

import pytest

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProbeResult
from promptcanary.core.probes.base import BaseProbe
from promptcanary.core.run.runner import RunOptions, abort_kind, run_suite
from promptcanary.core.suite import CanarySuite
from promptcanary.errors import ConfigError, ProviderAuthError, ProviderError
from promptcanary.providers.scripted import ScriptedProvider, ScriptedRequest

FAST = {"retry_base_delay": 0.001, "retry_max_delay": 0.005, "show_progress": False}


class Busy:
    """Counts the handlers inside it at once; ``most`` is the highest count seen."""

    def __init__(self) -> None:
        self.now = self.most = 0
        self.lock = threading.Lock()

    def __enter__(self) -> None:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.now -= 1


def echo(
    script: Callable[[CanaryPrompt, int], object] | None = None,
    *,
    delay: Callable[[CanaryPrompt], float] = lambda p: 0.0,
    cost: float | None = None,
    busy: Busy | None = None,
) -> ScriptedProvider:
    """Answers "echo: <text>" after ``delay``; ``script(prompt, attempt)`` may return an
    exception for the call to raise."""

    def handler(request: ScriptedRequest) -> LLMResponse:
        with busy or contextlib.nullcontext():
            time.sleep(delay(request.prompt))
            outcome = script(request.prompt, request.attempt) if script else None
            if isinstance(outcome, BaseException):
                raise outcome
            return request.reply(f"echo: {request.text}", cost_usd=cost)

    return ScriptedProvider(handler, model="test/echo")


def sent(provider: ScriptedProvider) -> list[str]:
    """The texts of the prompts the provider was asked, in order."""
    return [r.text for r in provider.requests]


class ContainsProbe(BaseProbe):
    probe_id = "contains_echo"
    name = "Contains echo"

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        ok = "echo" in response.content
        return self.result(prompt, passed=ok, score=1.0 if ok else 0.0)


class RaisingProbe(BaseProbe):
    probe_id = "raising"
    name = "Raising"

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        raise RuntimeError("probe bug")


class SlowProbe(BaseProbe):
    probe_id = "slow"
    name = "Slow"

    def __init__(self) -> None:
        self.release = threading.Event()

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        self.release.wait(5)
        return self.result(prompt, passed=True, score=1.0)


def make_suite(n: int, probes: list[BaseProbe] | None = None) -> CanarySuite:
    return CanarySuite(
        name="unit",
        prompts=[CanaryPrompt(text=f"prompt {i}") for i in range(n)],
        probes=probes or [ContainsProbe()],
    )


def test_order_and_samples_are_preserved_whatever_the_arrival_order() -> None:
    rng = random.Random(3)
    delays = {f"prompt {i}": rng.uniform(0, 0.02) for i in range(12)}
    provider = echo(delay=lambda p: delays[p.text])
    suite = make_suite(12)
    result = run_suite(suite, provider, RunOptions(concurrency=6, samples=2, **FAST))
    expected = [(p.id, s) for p in suite.prompts for s in range(2)]
    assert [(r.prompt_id, r.sample) for r in result.llm_responses] == expected
    assert [(r.prompt_id, r.sample) for r in result.probe_results] == expected
    assert all(
        r.content == f"echo: {suite.prompts[i // 2].text}"
        for i, r in enumerate(result.llm_responses)
    )
    assert result.samples == 2
    assert result.pass_rate == 1.0


def test_sync_provider_reaches_the_configured_concurrency() -> None:
    busy = Busy()
    provider = echo(delay=lambda p: 0.2, busy=busy)
    run_suite(make_suite(24), provider, RunOptions(concurrency=8, **FAST))
    assert busy.most == 8


def test_transient_errors_are_retried_and_attempts_recorded() -> None:
    def script(prompt: CanaryPrompt, attempt: int) -> object:
        if prompt.text == "prompt 1" and attempt < 3:
            return ProviderError("overloaded", status_code=503)
        return None

    provider = echo(script)
    result = run_suite(make_suite(3), provider, RunOptions(concurrency=2, **FAST))
    assert [r.attempts for r in result.llm_responses] == [1, 3, 1]
    assert result.error_rate == 0.0
    assert result.usage.retries == 2


def test_client_errors_are_not_retried_and_the_run_goes_on() -> None:
    def script(prompt: CanaryPrompt, attempt: int) -> object:
        if prompt.text == "prompt 0":
            return ProviderError("bad request: max_tokens too large", status_code=400)
        return None

    provider = echo(script)
    result = run_suite(make_suite(4), provider, RunOptions(concurrency=2, **FAST))
    assert sent(provider).count("prompt 0") == 1
    first = result.llm_responses[0]
    assert first.error is not None and "max_tokens too large" in first.error
    assert (first.error_status, first.error_type) == (400, "bad_request")
    assert result.error_rate == 0.25
    assert all(r.errored for r in result.probe_results if r.prompt_id == first.prompt_id)
    assert result.aborted is None


def test_exhausted_retries_record_the_last_error() -> None:
    provider = echo(lambda p, a: ProviderError("still down", status_code=502))
    result = run_suite(make_suite(1), provider, RunOptions(max_attempts=3, **FAST))
    response = result.llm_responses[0]
    assert len(sent(provider)) == 3
    assert response.attempts == 3
    assert response.error_type == "server"
    assert "gave up after 3 attempts" in (response.error or "")


def test_auth_failure_stops_the_run_after_one_request() -> None:
    provider = echo(lambda p, a: ProviderAuthError("invalid key", status_code=401))
    result = run_suite(make_suite(20), provider, RunOptions(concurrency=8, **FAST))
    assert len(sent(provider)) == 1
    assert result.error_rate == 1.0
    assert abort_kind(result) == "auth"
    assert result.aborted is not None and "HTTP 401" in result.aborted
    assert "19 of 20 request(s) were not sent" in result.aborted
    assert {r.error_type for r in result.llm_responses} == {"auth"}


def test_timeout_is_retried_then_recorded() -> None:
    provider = echo(delay=lambda p: 0.5 if p.text == "prompt 0" else 0.0)
    result = run_suite(make_suite(2), provider, RunOptions(timeout=0.05, max_attempts=2, **FAST))
    slow, fast = result.llm_responses
    assert slow.error_type == "timeout" and slow.attempts == 2
    assert "0.05s" in (slow.error or "")
    assert fast.ok


def test_budget_stops_new_requests() -> None:
    provider = echo(cost=0.01)
    result = run_suite(
        make_suite(10), provider, RunOptions(concurrency=1, max_cost_usd=0.025, **FAST)
    )
    assert len(sent(provider)) == 3  # 0.01, 0.02, 0.03 >= 0.025: stop
    assert abort_kind(result) == "budget"
    skipped = [r for r in result.llm_responses if r.error_type == "budget"]
    assert len(skipped) == 7
    assert "budget" in (skipped[0].error or "")
    assert result.usage.cost_usd == pytest.approx(0.03)


def test_raising_and_hanging_probes_never_kill_the_run() -> None:
    slow = SlowProbe()
    suite = make_suite(3, [ContainsProbe(), RaisingProbe(), slow])
    try:
        result = run_suite(suite, echo(), RunOptions(probe_timeout=0.05, **FAST))
    finally:
        slow.release.set()
    by_probe = {
        pid: [r for r in result.probe_results if r.probe_id == pid] for pid in suite.probe_ids
    }
    assert all(r.passed for r in by_probe["contains_echo"])
    assert all(not r.passed and "probe bug" in r.details for r in by_probe["raising"])
    assert all(r.errored and "still running" in r.details for r in by_probe["slow"])
    assert len(result.llm_responses) == 3


def test_unexpected_provider_exception_is_recorded_not_raised() -> None:
    provider = echo(lambda p, a: KeyError("oops"))
    result = run_suite(make_suite(2), provider, RunOptions(**FAST))
    assert all(
        r.error_type == "unknown" and "KeyError" in (r.error or "") for r in result.llm_responses
    )
    assert len(sent(provider)) == 2  # not retried


def test_progress_events() -> None:
    events: list[tuple[str, dict[str, object]]] = []
    provider = echo(lambda p, a: ProviderError("x", status_code=500) if a == 1 else None)
    run_suite(
        make_suite(3), provider, RunOptions(**FAST), progress=lambda e, d: events.append((e, d))
    )
    names = [e for e, _ in events]
    assert names[0] == "start" and events[0][1]["total"] == 3
    assert names[-1] == "end" and events[-1][1]["done"] == 3
    assert names.count("done") == 3 and names.count("retry") == 3


def test_run_from_inside_an_event_loop() -> None:
    async def inside() -> int:
        result = run_suite(make_suite(2), echo(), RunOptions(**FAST))
        return len(result.llm_responses)

    assert asyncio.run(inside()) == 2


def test_overrides_are_recorded_on_the_run() -> None:
    result = run_suite(make_suite(1), echo(), RunOptions(temperature=0.7, seed=1, **FAST))
    assert (result.provider.temperature, result.provider.seed) == (0.7, 1)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("concurrency", 0),
        ("samples", 0),
        ("max_attempts", 0),
        ("max_cost_usd", -1.0),
        ("timeout", 0.0),
    ],
)
def test_invalid_options_are_config_errors(field: str, value: object) -> None:
    with pytest.raises(ConfigError, match=field):
        RunOptions(**{field: value})  # type: ignore[arg-type]


def test_builtin_string_probes_run_on_the_loop_and_the_rest_in_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # issue 23: a thread hand-off costs more than a keyword test; a user's subclass (whose
    # evaluate may hang) keeps its thread and probe_timeout, and the results keep their order.
    from promptcanary.core.probes.keywords import KeywordPresenceProbe

    threads: dict[str, set[str]] = {"builtin": set(), "subclass": set()}
    original = KeywordPresenceProbe.evaluate

    def spied(self: KeywordPresenceProbe, p: CanaryPrompt, r: LLMResponse) -> ProbeResult:
        kind = "builtin" if type(self) is KeywordPresenceProbe else "subclass"
        threads[kind].add(threading.current_thread().name)
        return original(self, p, r)

    monkeypatch.setattr(KeywordPresenceProbe, "evaluate", spied)

    class Subclass(KeywordPresenceProbe):
        probe_id = "unit_keyword_subclass"

    slow = SlowProbe()
    probes = [
        KeywordPresenceProbe(required_keywords=["echo"]),
        slow,
        Subclass(required_keywords=["nope"]),
        ContainsProbe(),
    ]
    suite = make_suite(3, probes)
    try:
        result = run_suite(suite, echo(), RunOptions(probe_timeout=0.05, **FAST))
    finally:
        slow.release.set()
    assert threads["builtin"] == {threading.main_thread().name}
    assert threads["subclass"] and all(
        t.startswith("promptcanary-probe") for t in threads["subclass"]
    )
    rows = [result.probe_results[i : i + 4] for i in range(0, 12, 4)]
    for keyword, hung, subclass, contains in rows:
        assert keyword.passed and not keyword.errored
        assert hung.errored and "still running after 0.05s" in hung.details
        assert not subclass.passed and not subclass.errored
        assert contains.passed
    assert [r.probe_id for r in rows[0]] == suite.probe_ids


def test_a_run_collects_the_young_generation_less_often_and_restores_it() -> None:
    import gc

    seen: list[int] = []

    class Recording(BaseProbe):
        probe_id = "unit_gc_threshold"
        name = "Records the gc threshold"

        def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
            seen.append(gc.get_threshold()[0])
            return self.result(prompt, passed=True, score=1.0)

    before = gc.get_threshold()
    gc.set_threshold(700, *before[1:])
    try:
        run_suite(make_suite(2, [Recording()]), echo(), RunOptions(**FAST))
        after = gc.get_threshold()
    finally:
        gc.set_threshold(*before)
    assert seen == [20_000, 20_000]
    assert after == (700, *before[1:])
