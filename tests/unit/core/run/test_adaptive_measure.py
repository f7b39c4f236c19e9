"""measure_adaptive() in process: phases, sample numbering, budget and a run that stops early.

The provider is a plain in-process class (no wire to fake); the loopback-server version through
LiteLLM is tests/integration/test_adaptive_e2e.py.
"""

from __future__ import annotations

import threading

from promptcanary.core.comparator import compare
from promptcanary.core.models import BaselineSnapshot, CanaryPrompt, LLMResponse, ProviderConfig
from promptcanary.core.probes.base import build_probe
from promptcanary.core.run.adaptive import measure_adaptive
from promptcanary.core.run.runner import RunOptions, run_suite
from promptcanary.core.suite import CanarySuite
from promptcanary.core.verdict.adaptive import AdaptivePolicy
from promptcanary.errors import ProviderError
from promptcanary.providers.base import BaseLLMProvider

OPTIONS = RunOptions(show_progress=False, concurrency=2, max_attempts=1, retry_base_delay=0.0)


class Model(BaseLLMProvider):
    """Valid JSON, except for prompts listed in ``broken``; each call costs ``price``."""

    def __init__(self, broken: set[str] | None = None, *, price: float = 0.0) -> None:
        super().__init__(ProviderConfig(model_id="test/model"))
        self.broken = broken or set()
        self.price = price
        self.calls = 0
        self.refuse = False
        self.lock = threading.Lock()

    def complete(self, prompt: CanaryPrompt, *, system_prompt: str | None = None) -> LLMResponse:
        with self.lock:
            self.calls += 1
        if self.refuse:
            raise ProviderError("invalid api key", status_code=401)
        content = "prose" if prompt.text in self.broken else '{"ok": true}'
        return LLMResponse(
            prompt_id=prompt.id,
            provider_model_id=self.config.model_id,
            content=content,
            cost_usd=self.price or None,
        )


SUITE = CanarySuite(
    "m",
    [CanaryPrompt(text=t) for t in ("a", "b", "c")],
    [build_probe("json_validity", {})],
)


def baseline(model: Model) -> BaselineSnapshot:
    run = run_suite(SUITE, model, RunOptions(show_progress=False, samples=10))
    return BaselineSnapshot(suite_name="m", provider=run.provider, run_result=run)


def test_only_the_broken_prompt_is_confirmed_and_numbered_after_screening() -> None:
    model = Model()
    snap = baseline(model)
    model.broken, model.calls = {"a"}, 0
    run = measure_adaptive(SUITE, model, snap, AdaptivePolicy(cap=20), OPTIONS)
    assert model.calls == 9 + 20
    a = SUITE.prompts[0].id
    samples = sorted(r.sample for r in run.llm_responses if r.prompt_id == a)
    assert samples == list(range(23))
    assert {r.phase for r in run.llm_responses if r.sample < 3} == {"screening"}
    assert {r.phase for r in run.probe_results if r.sample >= 3} == {"confirmation"}
    assert run.samples == 3 and run.adaptive is not None
    assert (run.adaptive.screening_requests, run.adaptive.confirmation_requests) == (9, 20)
    assert compare(snap, run).regressions[0].prompt_id == a


def test_without_a_baseline_the_check_is_the_screening() -> None:
    model = Model({"a"})
    run = measure_adaptive(SUITE, model, None, AdaptivePolicy(), OPTIONS)
    assert model.calls == 9 and run.adaptive is not None and run.adaptive.confirmed == []


def test_the_budget_stops_confirmation() -> None:
    model = Model(price=0.01)
    snap = baseline(model)
    model.broken, model.calls = {"a"}, 0
    options = RunOptions(show_progress=False, concurrency=1, max_attempts=1, max_cost_usd=0.15)
    run = measure_adaptive(SUITE, model, snap, AdaptivePolicy(cap=50), options)
    assert run.aborted is not None
    assert model.calls < 9 + 50  # stopped long before the cap
    assert (run.usage.cost_usd or 0) <= 0.15 + 0.01 * options.concurrency


def test_a_refused_key_during_screening_confirms_nothing() -> None:
    model = Model()
    snap = baseline(model)
    model.refuse, model.calls = True, 0
    run = measure_adaptive(SUITE, model, snap, AdaptivePolicy(), OPTIONS)
    assert run.aborted and model.calls == 1  # the first request goes alone
    assert run.adaptive is not None and run.adaptive.confirmed == []
    assert compare(snap, run).is_inconclusive


class Paraphrasing(Model):
    """Valid JSON in one of two wordings, alternating: answers vary, probes always pass."""

    def complete(self, prompt: CanaryPrompt, *, system_prompt: str | None = None) -> LLMResponse:
        response = super().complete(prompt, system_prompt=system_prompt)
        with self.lock:
            wording = '{"ok": true}' if self.calls % 2 else '{ "ok": true }'
        return response.model_copy(update={"content": wording})


def test_varied_answers_are_topped_up_to_twelve_for_the_answer_test() -> None:
    model = Paraphrasing()
    snap = baseline(model)
    model.calls = 0
    run = measure_adaptive(SUITE, model, snap, AdaptivePolicy(), OPTIONS)
    assert model.calls == 3 * 12  # no probe moved: 3 screening + 9 top-up per prompt, no more
    assert run.adaptive is not None and run.adaptive.confirmed == []
    assert run.adaptive.behaviour_confirmed == [p.id for p in SUITE.prompts]
    for p in SUITE.prompts:
        assert sorted(r.sample for r in run.llm_responses if r.prompt_id == p.id) == list(range(12))
    report = compare(snap, run)
    assert report.behaviour_tested == 3 and report.behaviour_changes == []
