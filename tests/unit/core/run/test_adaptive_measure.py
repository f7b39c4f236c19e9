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


#: The valid JSON of a paraphrasing model, in turn: answers vary, probes always pass.
WORDINGS = ('{"ok": true}', '{"ok": true, "note": "fine"}', '{"status": "ok", "ok": true}')
#: A chatty answer (still valid JSON: the probes pass, the answer test sees it).
CHATTY = (
    '{"ok": true, "message": "Sure! Great question, happy to help with that. '
    'Let me know if you need anything else, I am always here for you!"}'
)


@dataclass
class Knobs:
    """What the model does: valid JSON, except for prompts listed in ``broken``; each call costs
    ``price``; ``refuse``: every call is refused (401); ``paraphrase``: the valid JSON in one of
    :data:`WORDINGS`, in turn; prompts in ``chatty`` answer :data:`CHATTY`."""

    broken: set[str] = field(default_factory=set)
    price: float = 0.0
    refuse: bool = False
    paraphrase: bool = False
    chatty: set[str] = field(default_factory=set)


def scripted(knobs: Knobs) -> ScriptedProvider:
    def answer(request: ScriptedRequest) -> LLMResponse:
        if knobs.refuse:
            raise ProviderError("invalid api key", status_code=401)
        content = "prose" if request.text in knobs.broken else '{"ok": true}'
        if knobs.paraphrase and request.text not in knobs.broken:
            content = WORDINGS[len(provider.requests) % len(WORDINGS)]
        if request.text in knobs.chatty:
            content = CHATTY
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


def test_answers_like_the_baseline_s_cost_only_the_screening() -> None:
    model = scripted(Knobs(paraphrase=True))
    snap = baseline(model)
    model.requests.clear()
    events: list[tuple[str, dict[str, object]]] = []
    run = measure_adaptive(
        SUITE, model, snap, AdaptivePolicy(), OPTIONS, progress=lambda e, d: events.append((e, d))
    )
    assert len(model.requests) == 9  # nothing looked moved: the answer test needs no fresh answer
    assert run.adaptive is not None and run.adaptive.behaviour_confirmed == []
    assert run.adaptive.behaviour_requests == 0
    assert [d["purpose"] for e, d in events if e == "start"] == ["screening: every prompt"]
    report = compare(snap, run)
    assert report.behaviour_tested == 0 and report.behaviour_changes == []
    assert report.behaviour_suite is not None and report.behaviour_suite.family == 3


def test_a_prompt_whose_answers_moved_is_topped_up_to_twelve() -> None:
    knobs = Knobs(paraphrase=True)
    model = scripted(knobs)
    snap = baseline(model)
    model.requests.clear()
    knobs.chatty = {"a"}
    events: list[tuple[str, dict[str, object]]] = []
    run = measure_adaptive(
        SUITE, model, snap, AdaptivePolicy(), OPTIONS, progress=lambda e, d: events.append((e, d))
    )
    a = SUITE.prompts[0].id
    assert len(model.requests) == 9 + 9  # 3 screening each, 9 fresh for the moved prompt only
    assert run.adaptive is not None and run.adaptive.behaviour_confirmed == [a]
    assert (run.adaptive.confirmation_requests, run.adaptive.behaviour_requests) == (0, 9)
    assert sorted(r.sample for r in run.llm_responses if r.prompt_id == a) == list(range(12))
    assert [d["purpose"] for e, d in events if e == "start"] == [
        "screening: every prompt",
        "answer test: prompts whose answers look moved",
    ]
    report = compare(snap, run)
    assert [c.prompt_id for c in report.behaviour_changes] == [a]
    assert report.behaviour_requests == 9


def test_a_probe_confirmed_prompt_is_answer_tested_on_its_first_fresh_answers() -> None:
    knobs = Knobs()
    model = scripted(knobs)
    snap = baseline(model)
    knobs.broken = {"a"}
    model.requests.clear()
    run = measure_adaptive(SUITE, model, snap, AdaptivePolicy(cap=20), OPTIONS)
    a = SUITE.prompts[0].id
    assert len(model.requests) == 9 + 20  # the probes' confirmation; the answer test adds nothing
    assert run.adaptive is not None and run.adaptive.behaviour_confirmed == [a]
    report = compare(snap, run)
    assert [(c.prompt_id, c.current_samples) for c in report.behaviour_changes] == [(a, 12)]
