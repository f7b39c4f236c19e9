"""The use cases (pipeline.check, baseline_run, plan): the order of their steps, with their I/O
passed in as Ports (a scripted provider, a baseline folder in a temp dir, recording hooks)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest

from promptcanary import pipeline
from promptcanary.core.models import CanaryPrompt, CanaryRunResult, LLMResponse, ProviderConfig
from promptcanary.errors import EXIT_INCONCLUSIVE, EXIT_OK, BaselineNotFoundError, ConfigError
from promptcanary.providers.base import BaseLLMProvider
from promptcanary.storage.file import FileBaselineStore

MODEL = "openai/scripted"
SUITE = f"""\
name: usecases
provider: {MODEL}
samples: 1
max_attempts: 1
probes:
  - type: keyword_presence
    required_keywords: [Paris]
prompts:
  - id: capital
    text: What is the capital of France?
  - id: city
    text: Name a large French city.
"""


class Scripted(BaseLLMProvider):
    """Answers every prompt with ``answer`` (an HTTP 500 error when it is None); logs each
    request in ``events``."""

    def __init__(self, events: list[str], answer: str | None = "Paris.") -> None:
        super().__init__(ProviderConfig(model_id=MODEL))
        self.events, self.answer = events, answer

    def complete(self, prompt: CanaryPrompt, *, system_prompt: str | None = None) -> LLMResponse:
        self.events.append(f"request {prompt.id}")
        if self.answer is None:
            return LLMResponse(
                prompt_id=prompt.id, provider_model_id=MODEL, error="HTTP 500", error_status=500
            )
        return LLMResponse(
            prompt_id=prompt.id,
            provider_model_id=MODEL,
            content=self.answer,
            prompt_tokens=12,
            completion_tokens=3,
        )


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "canary.yaml"
    path.write_text(SUITE, encoding="utf-8")
    return path


def ports_for(
    store: FileBaselineStore,
    events: list[str],
    answer: str | None = "Paris.",
    announce: Callable[[pipeline.Ready], None] | None = None,
) -> pipeline.Ports:
    def told(ready: pipeline.Ready) -> None:
        events.append(f"announce {ready.model} {ready.plan.requests if ready.plan else None}")
        if announce is not None:
            announce(ready)

    def kept(run: CanaryRunResult) -> None:
        events.append(f"keep {len(run.llm_responses)}")

    return pipeline.Ports(
        store=store,
        make_provider=lambda model, overrides: Scripted(events, answer),
        announce=told,
        keep=kept,
    )


def record_baseline(config: Path, store: FileBaselineStore) -> pipeline.BaselineRun:
    request = pipeline.BaselineRunRequest(config, save=True, note="first")
    return pipeline.baseline_run(request, ports_for(store, []))


def test_a_check_without_a_baseline_is_refused_before_the_plan_or_any_request(
    config: Path, tmp_path: Path
) -> None:
    events: list[str] = []
    store = FileBaselineStore(tmp_path / "baselines")
    with pytest.raises(BaselineNotFoundError):
        pipeline.check(pipeline.CheckRequest(config), ports_for(store, events))
    assert events == []


def test_a_check_announces_then_measures_then_keeps_the_run_then_judges(
    config: Path, tmp_path: Path
) -> None:
    store = FileBaselineStore(tmp_path / "baselines")
    first = record_baseline(config, store)
    events: list[str] = []

    checked = pipeline.check(pipeline.CheckRequest(config), ports_for(store, events))

    assert events == [
        f"announce {MODEL} 2",
        "request capital",
        "request city",
        "keep 2",
    ]
    assert first.saved is not None and checked.baseline == first.saved.snapshot
    assert checked.baseline_path == first.saved.path and first.saved.path.is_file()
    assert checked.report is not None and checked.verdict == pipeline.Verdict("passed", EXIT_OK)


def test_a_plan_refused_at_the_announcement_sends_nothing(config: Path, tmp_path: Path) -> None:
    store = FileBaselineStore(tmp_path / "baselines")
    record_baseline(config, store)
    events: list[str] = []

    def refuse(ready: pipeline.Ready) -> None:
        raise ConfigError("not confirmed: nothing was sent", field="--yes")

    with pytest.raises(ConfigError, match="not confirmed"):
        pipeline.check(pipeline.CheckRequest(config), ports_for(store, events, announce=refuse))
    assert [e for e in events if e.startswith("request")] == []


@pytest.mark.parametrize(
    ("answer", "fail_on_inconclusive", "verdict"),
    [
        ("Paris.", True, pipeline.Verdict("no-baseline", EXIT_OK)),
        (None, True, pipeline.Verdict("inconclusive", EXIT_INCONCLUSIVE)),
        (None, False, pipeline.Verdict("inconclusive", EXIT_OK)),
    ],
)
def test_without_a_required_baseline_the_run_is_reported_alone(
    config: Path, tmp_path: Path, answer: str | None, fail_on_inconclusive: bool, verdict: object
) -> None:
    store = FileBaselineStore(tmp_path / "baselines")
    request = pipeline.CheckRequest(
        config,
        policy=pipeline.GatePolicy(fail_on_inconclusive=fail_on_inconclusive),
        require_baseline=False,
    )
    checked = pipeline.check(request, ports_for(store, [], answer))
    assert checked.report is None and checked.baseline is None
    assert checked.verdict == verdict
    assert (checked.unusable is None) == (answer is not None)


def test_a_missing_baseline_is_told_before_the_plan_and_may_stop_the_check(
    config: Path, tmp_path: Path
) -> None:
    store = FileBaselineStore(tmp_path / "baselines")
    events: list[str] = []
    told: list[pipeline.MissingBaseline] = []

    def stop(missing: pipeline.MissingBaseline) -> None:
        told.append(missing)
        events.append("missing")
        raise ConfigError("the baseline was removed", field="baseline")

    ports = dataclasses.replace(ports_for(store, events), missing_baseline=stop)
    with pytest.raises(ConfigError, match="removed"):
        pipeline.check(pipeline.CheckRequest(config, require_baseline=False), ports)
    assert events == ["missing"]  # no announcement, no request
    assert told == [pipeline.MissingBaseline("usecases", MODEL, store.directory)]


def test_a_missing_baseline_port_that_returns_lets_the_run_be_reported_alone(
    config: Path, tmp_path: Path
) -> None:
    store = FileBaselineStore(tmp_path / "baselines")
    events: list[str] = []
    ports = dataclasses.replace(
        ports_for(store, events), missing_baseline=lambda missing: events.append("missing")
    )
    checked = pipeline.check(pipeline.CheckRequest(config, require_baseline=False), ports)
    assert events[:2] == ["missing", f"announce {MODEL} 2"]
    assert checked.verdict == pipeline.Verdict("no-baseline", EXIT_OK)


def test_a_check_with_a_baseline_never_tells_the_missing_baseline_port(
    config: Path, tmp_path: Path
) -> None:
    store = FileBaselineStore(tmp_path / "baselines")
    record_baseline(config, store)
    events: list[str] = []
    ports = dataclasses.replace(
        ports_for(store, events), missing_baseline=lambda missing: events.append("missing")
    )
    pipeline.check(pipeline.CheckRequest(config, require_baseline=False), ports)
    assert "missing" not in events


def test_a_saved_run_is_checked_without_a_provider_or_a_plan(config: Path, tmp_path: Path) -> None:
    store = FileBaselineStore(tmp_path / "baselines")
    first = record_baseline(config, store)
    saved = tmp_path / "run.json"
    saved.write_text(first.run.model_dump_json(), encoding="utf-8")
    events: list[str] = []

    checked = pipeline.check(pipeline.CheckRequest(config, current=saved), ports_for(store, events))
    assert events == ["keep 2"]
    assert checked.suite is None and checked.verdict.result == "passed"


def test_a_baseline_run_saves_a_usable_run_and_compares_it_with_the_one_it_replaces(
    config: Path, tmp_path: Path
) -> None:
    store = FileBaselineStore(tmp_path / "baselines")
    first = record_baseline(config, store)
    assert first.previous is None and first.saved is not None

    request = pipeline.BaselineRunRequest(config, save=True, compare_with_previous=True)
    second = pipeline.baseline_run(request, ports_for(store, []))

    assert second.previous == first.saved.snapshot
    assert second.change is not None and not second.change.has_drift
    assert second.saved is not None and second.saved.path == store.path_of(second.saved.snapshot)
    assert len(store.load_all()) == 2


def test_an_unusable_run_is_never_saved(config: Path, tmp_path: Path) -> None:
    store = FileBaselineStore(tmp_path / "baselines")
    events: list[str] = []
    request = pipeline.BaselineRunRequest(config, save=True)
    measured = pipeline.baseline_run(request, ports_for(store, events, answer=None))
    assert measured.unusable == "the run measured nothing: every request errored"
    assert measured.saved is None and store.load_all() == []
    assert "keep 2" in events  # the run itself is still handed over, so it is never lost


def test_a_newest_baseline_that_cannot_be_read_does_not_stop_a_new_one(
    config: Path, tmp_path: Path
) -> None:
    store = FileBaselineStore(tmp_path / "baselines")
    first = record_baseline(config, store)
    assert first.saved is not None
    Turning.chatty = False
    first.saved.path.write_text("{ not json", encoding="utf-8")

    again = pipeline.baseline_run(
        pipeline.BaselineRunRequest(config, save=True), ports_for(store, [])
    )
    assert again.previous is None and again.saved is not None and again.saved.path.is_file()


def test_the_plan_prices_a_run_with_the_newest_baseline_of_the_suites_model(
    config: Path, tmp_path: Path
) -> None:
    store = FileBaselineStore(tmp_path / "baselines")
    request = pipeline.PlanRequest(0.3, 0.9, 0.05, 0.95, config=config)

    def price(model: str, prompt_tokens: int, completion_tokens: int) -> float:
        return 0.001

    before = pipeline.plan(request, store, pricer=price)
    assert before.fixed.prompts == 2 and before.fixed.cost_usd is None  # no tokens to go by
    record_baseline(config, store)
    after = pipeline.plan(request, store, pricer=price)
    assert after.fixed.samples == before.fixed.samples and after.fixed.cost_usd is not None
    assert after.adaptive is None  # the suite sets an integer sample count


ADAPTIVE = SUITE.replace("samples: 1\n", "samples: auto\nbaseline_samples: 30\n")
CHATTY = (
    "Sure! Great question. The capital of France is Paris, a city of museums and cafés. Let me "
    "know if you would like to hear more!"
)


class Turning(Scripted):
    """Answers "Paris.", but a chatty answer to ``capital`` while ``chatty`` is set (the probe
    still passes: only the answer test sees it)."""

    chatty = False

    def complete(self, prompt: CanaryPrompt, *, system_prompt: str | None = None) -> LLMResponse:
        response = super().complete(prompt, system_prompt=system_prompt)
        if prompt.id == "capital" and Turning.chatty:
            return response.model_copy(update={"content": CHATTY})
        return response


def retest_ports(
    store: FileBaselineStore, events: list[str], *, noise: bool = False
) -> pipeline.Ports:
    def retesting(retest: pipeline.Retesting) -> None:
        events.append(f"retesting {retest.requests}")
        if noise:
            Turning.chatty = False  # the fresh answers are the baseline's again

    return dataclasses.replace(
        ports_for(store, events),
        make_provider=lambda model, overrides: Turning(events),
        retesting=retesting,
    )


def test_a_check_asked_to_confirm_announces_the_retest_before_sending_it(
    tmp_path: Path,
) -> None:
    config = tmp_path / "canary.yaml"
    config.write_text(ADAPTIVE, encoding="utf-8")
    store = FileBaselineStore(tmp_path / "baselines")
    Turning.chatty = False
    pipeline.baseline_run(pipeline.BaselineRunRequest(config, save=True), retest_ports(store, []))
    events: list[str] = []
    Turning.chatty = True  # for the check's own answers; back to normal when the re-test starts
    request = pipeline.CheckRequest(config, confirm_behaviour=True)

    checked = pipeline.check(request, retest_ports(store, events, noise=True))

    report = checked.report
    assert report is not None and report.retest is not None
    [told] = [i for i, e in enumerate(events) if e.startswith("retesting")]
    announced = int(events[told].split()[1])
    # Told first, then exactly that many requests, all counted in the report's usage.
    assert events[told - 1].startswith("keep")
    assert len([e for e in events[told + 1 :] if e.startswith("request")]) == announced
    assert report.retest.requests == announced and report.current_usage is not None
    assert report.current_usage.requests == len([e for e in events if e.startswith("request")])
    # The fresh answers are the baseline's again: withdrawn, and the gate passes.
    assert not report.retest.accuses and report.retest.not_confirmed == ["capital"]
    assert checked.verdict == pipeline.Verdict("passed", EXIT_OK)


def test_a_check_not_asked_to_confirm_or_a_replay_never_retests(tmp_path: Path) -> None:
    config = tmp_path / "canary.yaml"
    config.write_text(ADAPTIVE, encoding="utf-8")
    store = FileBaselineStore(tmp_path / "baselines")
    Turning.chatty = False
    first = pipeline.baseline_run(
        pipeline.BaselineRunRequest(config, save=True), retest_ports(store, [])
    )
    events: list[str] = []
    Turning.chatty = True
    plain = pipeline.check(pipeline.CheckRequest(config), retest_ports(store, events))
    assert plain.report is not None and plain.report.behaviour_changed
    assert plain.report.retest is None and not any(e.startswith("retesting") for e in events)
    # A replay of a run whose answers changed has no fresh answers to give.
    saved = tmp_path / "changed.json"
    saved.write_text(plain.run.model_dump_json(), encoding="utf-8")
    events.clear()
    replay = pipeline.check(
        pipeline.CheckRequest(config, pipeline.Overrides(replay=saved), confirm_behaviour=True),
        retest_ports(store, events),
    )
    assert replay.report is not None and replay.report.retest is None
    assert not any(e.startswith("retesting") for e in events)
    assert first.saved is not None
    Turning.chatty = False
