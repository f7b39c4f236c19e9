"""resample_flagged(): a behaviour finding tested again on fresh answers before a watch accuses."""

from __future__ import annotations

from promptcanary.core.comparator import compare
from promptcanary.core.run.adaptive import measure_adaptive
from promptcanary.core.run.retest import RETEST_PURPOSE, resample_flagged
from promptcanary.core.verdict.adaptive import AdaptivePolicy
from promptcanary.providers.scripted import ScriptedProvider
from tests.unit.core.run.test_adaptive_measure import OPTIONS, SUITE, Knobs, baseline, scripted


def _paraphrasing() -> tuple[Knobs, ScriptedProvider]:
    knobs = Knobs(paraphrase=True)
    return knobs, scripted(knobs)


def _flagged(knobs: Knobs, model: ScriptedProvider) -> tuple[object, object]:
    snap = baseline(model)
    knobs.chatty = {"a"}
    report = compare(snap, measure_adaptive(SUITE, model, snap, AdaptivePolicy(), OPTIONS))
    assert [c.prompt_id for c in report.behaviour_changes] == [SUITE.prompts[0].id]
    return snap, report


def test_a_change_that_holds_on_fresh_answers_is_confirmed() -> None:
    knobs, model = _paraphrasing()
    snap, report = _flagged(knobs, model)
    model.requests.clear()
    events: list[tuple[str, dict[str, object]]] = []
    retest = resample_flagged(
        SUITE,
        model,
        snap,
        report,
        OPTIONS,
        progress=lambda e, d: events.append((e, d)),  # type: ignore[arg-type]
    )
    # The named prompt, and a fresh screening of the others when the suite-level test fired.
    others = 3 * (len(SUITE.prompts) - 1) if report.suite_answers_changed else 0  # type: ignore[attr-defined]
    assert len(model.requests) == 12 + others
    assert retest.confirmed == [SUITE.prompts[0].id] and retest.accuses
    assert retest.baseline_suspects == []
    assert "confirmed on fresh answers" in retest.sentence
    assert {d["purpose"] for e, d in events if e == "start"} == {RETEST_PURPOSE}


def test_a_flag_the_fresh_answers_do_not_repeat_is_not_an_accusation() -> None:
    knobs, model = _paraphrasing()
    snap, report = _flagged(knobs, model)
    knobs.chatty = set()  # the answers are back to normal: the first flag was noise
    retest = resample_flagged(SUITE, model, snap, report, OPTIONS)  # type: ignore[arg-type]
    assert retest.confirmed == [] and not retest.accuses
    assert retest.not_confirmed == [SUITE.prompts[0].id]
    assert "not confirmed" in retest.sentence


def test_nothing_to_retest_sends_nothing() -> None:
    _, model = _paraphrasing()
    snap = baseline(model)
    report = compare(snap, measure_adaptive(SUITE, model, snap, AdaptivePolicy(), OPTIONS))
    model.requests.clear()
    retest = resample_flagged(SUITE, model, snap, report, OPTIONS)
    assert (
        len(model.requests) == 0 and not retest.accuses and retest.sentence == "Nothing to re-test."
    )
