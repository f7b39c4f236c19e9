"""measure_adaptive() in process: phases, sample numbering, budget and a run that stops early.

The provider is a ScriptedProvider (a function answers, no wire to fake); the loopback-server version through
LiteLLM is tests/integration/test_adaptive_e2e.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from promptcanary.core.comparator import compare
from promptcanary.core.models import BaselineSnapshot, CanaryPrompt, LLMResponse
from promptcanary.core.probes.base import build_probe
from promptcanary.core.run.adaptive import measure_adaptive
from promptcanary.core.run.runner import RunOptions, run_suite
from promptcanary.core.suite import CanarySuite
from promptcanary.core.verdict.adaptive import AdaptivePolicy
from promptcanary.errors import ProviderError
from promptcanary.providers.scripted import ScriptedProvider, ScriptedRequest

OPTIONS = RunOptions(show_progress=False, concurrency=2, max_attempts=1, retry_base_delay=0.0)


@dataclass
class Knobs:
    """What the model does: valid JSON, except for prompts listed in ``broken``; each call costs
    ``price``; ``refuse``: every call is refused (401); ``paraphrase``: the valid JSON in one of two
    wordings, alternating."""

    broken: set[str] = field(default_factory=set)
    price: float = 0.0
    refuse: bool = False
    paraphrase: bool = False


def scripted(knobs: Knobs) -> ScriptedProvider:
    def answer(request: ScriptedRequest) -> LLMResponse:
        if knobs.refuse:
            raise ProviderError("invalid api key", status_code=401)
        content = "prose" if request.text in knobs.broken else '{"ok": true}'
        if knobs.paraphrase and len(provider.requests) % 2 == 0:
            content = '{ "ok": true }'
        return request.reply(content, cost_usd=knobs.price or None)

    provider = ScriptedProvider(answer, model="test/model")
    return provider


SUITE = CanarySuite(
    "m",
    [CanaryPrompt(text=t) for t in ("a", "b", "c")],
    [build_probe("json_validity", {})],
)


def baseline(model: ScriptedProvider) -> BaselineSnapshot:
    run = run_suite(SUITE, model, RunOptions(show_progress=False, samples=10))
    return BaselineSnapshot(suite_name="m", provider=run.provider, run_result=run)


def test_only_the_broken_prompt_is_confirmed_and_numbered_after_screening() -> None:
    knobs = Knobs()
    model = scripted(knobs)
    snap = baseline(model)
    knobs.broken = {"a"}
    model.requests.clear()
    run = measure_adaptive(SUITE, model, snap, AdaptivePolicy(cap=20), OPTIONS)
    assert len(model.requests) == 9 + 20
    a = SUITE.prompts[0].id
    samples = sorted(r.sample for r in run.llm_responses if r.prompt_id == a)
    assert samples == list(range(23))
    assert {r.phase for r in run.llm_responses if r.sample < 3} == {"screening"}
    assert {r.phase for r in run.probe_results if r.sample >= 3} == {"confirmation"}
    assert run.samples == 3 and run.adaptive is not None
    assert (run.adaptive.screening_requests, run.adaptive.confirmation_requests) == (9, 20)
    assert compare(snap, run).regressions[0].prompt_id == a


def test_without_a_baseline_the_check_is_the_screening() -> None:
    model = scripted(Knobs(broken={"a"}))
    run = measure_adaptive(SUITE, model, None, AdaptivePolicy(), OPTIONS)
    assert len(model.requests) == 9 and run.adaptive is not None and run.adaptive.confirmed == []


def test_the_budget_stops_confirmation() -> None:
    knobs = Knobs(price=0.01)
    model = scripted(knobs)
    snap = baseline(model)
    knobs.broken = {"a"}
    model.requests.clear()
    options = RunOptions(show_progress=False, concurrency=1, max_attempts=1, max_cost_usd=0.15)
    run = measure_adaptive(SUITE, model, snap, AdaptivePolicy(cap=50), options)
    assert run.aborted is not None
    assert len(model.requests) < 9 + 50  # stopped long before the cap
    assert (run.usage.cost_usd or 0) <= 0.15 + 0.01 * options.concurrency


def test_a_refused_key_during_screening_confirms_nothing() -> None:
    knobs = Knobs()
    model = scripted(knobs)
    snap = baseline(model)
    knobs.refuse = True
    model.requests.clear()
    run = measure_adaptive(SUITE, model, snap, AdaptivePolicy(), OPTIONS)
    assert run.aborted and len(model.requests) == 1  # the first request goes alone
    assert run.adaptive is not None and run.adaptive.confirmed == []
    assert compare(snap, run).is_inconclusive


def test_varied_answers_are_topped_up_to_twelve_for_the_answer_test() -> None:
    model = scripted(Knobs(paraphrase=True))  # answers vary, probes always pass
    snap = baseline(model)
    model.requests.clear()
    run = measure_adaptive(SUITE, model, snap, AdaptivePolicy(), OPTIONS)
    assert (
        len(model.requests) == 3 * 12
    )  # no probe moved: 3 screening + 9 top-up per prompt, no more
    assert run.adaptive is not None and run.adaptive.confirmed == []
    assert run.adaptive.behaviour_confirmed == [p.id for p in SUITE.prompts]
    for p in SUITE.prompts:
        assert sorted(r.sample for r in run.llm_responses if r.prompt_id == p.id) == list(range(12))
    report = compare(snap, run)
    assert report.behaviour_tested == 3 and report.behaviour_changes == []
