"""resample_flagged(): a behaviour finding tested again on fresh answers before a watch accuses."""

from __future__ import annotations

from promptcanary.core.behaviour.adaptive import SCREENING_SAMPLES, TOPUP_SAMPLES
from promptcanary.core.comparator import compare
from promptcanary.core.run.adaptive import measure_adaptive
from promptcanary.core.run.retest import (
    RETEST_PURPOSE,
    needs_retest,
    resample_flagged,
    retest_plan,
)
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


# ── Whether to re-test, and what it sends ─────────────────────────────────────────────────────


def test_only_a_behaviour_only_finding_is_retested() -> None:
    knobs, model = _paraphrasing()
    snap, report = _flagged(knobs, model)
    assert needs_retest(report)  # type: ignore[arg-type]
    a = report.attribution  # type: ignore[attr-defined]
    # A settings edit or a served model name that rules out chance is evidence of its own.
    edited = report.model_copy(  # type: ignore[attr-defined]
        update={"attribution": a.model_copy(update={"settings_changes": ["temperature 0 → 1"]})}
    )
    swapped = report.model_copy(  # type: ignore[attr-defined]
        update={"attribution": a.model_copy(update={"identity_changed": True})}
    )
    assert not needs_retest(edited) and not needs_retest(swapped)
    # A probe regression is reported as it is, with no re-test.
    knobs.chatty, knobs.broken = set(), {"b"}
    broken = compare(snap, measure_adaptive(SUITE, model, snap, AdaptivePolicy(), OPTIONS))
    assert broken.has_drift and not needs_retest(broken)
    # Nothing moved: nothing to confirm.
    knobs.broken = set()
    quiet = compare(snap, measure_adaptive(SUITE, model, snap, AdaptivePolicy(), OPTIONS))
    assert not quiet.behaviour_changed and not needs_retest(quiet)


def test_the_plan_names_the_flagged_prompts_and_a_fresh_screening_when_the_suite_moved() -> None:
    knobs, model = _paraphrasing()
    snap, report = _flagged(knobs, model)
    ids = [p.id for p in SUITE.prompts]
    suite = report.behaviour_suite  # type: ignore[attr-defined]
    alone = report.model_copy(  # type: ignore[attr-defined]
        update={"behaviour_suite": suite.model_copy(update={"changed": False})}
    )
    assert retest_plan(SUITE, snap, alone) == {ids[0]: TOPUP_SAMPLES}
    pooled = report.model_copy(  # type: ignore[attr-defined]
        update={"behaviour_suite": suite.model_copy(update={"changed": True})}
    )
    assert retest_plan(SUITE, snap, pooled) == {
        ids[0]: TOPUP_SAMPLES,
        ids[1]: SCREENING_SAMPLES,
        ids[2]: SCREENING_SAMPLES,
    }
    # What the plan says is what is sent, and the usage counts it.
    model.requests.clear()
    retest = resample_flagged(SUITE, model, snap, pooled, OPTIONS)
    assert len(model.requests) == sum(retest_plan(SUITE, snap, pooled).values())
    assert retest.requests == len(model.requests)
    assert retest.usage is not None and retest.usage.errors == 0


def test_a_retest_whose_requests_fail_neither_confirms_nor_calls_it_noise() -> None:
    knobs, model = _paraphrasing()
    snap, report = _flagged(knobs, model)
    knobs.refuse = True
    retest = resample_flagged(SUITE, model, snap, report, OPTIONS)  # type: ignore[arg-type]
    assert retest.unmeasured == [SUITE.prompts[0].id] and retest.not_confirmed == []
    assert not retest.accuses and "noise" not in retest.sentence
    assert "not re-tested" in retest.sentence
    assert retest.usage is not None and retest.usage.errors == retest.requests > 0
