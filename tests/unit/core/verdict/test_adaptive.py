"""The adaptive policy (samples: auto): selection, confirmation rounds, decision on fresh data."""

from __future__ import annotations

import random

import pytest

from promptcanary.core.comparator import Side, compare
from promptcanary.core.models import (
    BaselineSnapshot,
    CanaryRunResult,
    ConfirmedPair,
    LLMResponse,
    ProbeCategory,
    ProbeResult,
    ProviderConfig,
)
from promptcanary.core.models.drift import FISHER, MANN_WHITNEY
from promptcanary.core.models.run import Phase
from promptcanary.core.render.wording import evidence
from promptcanary.core.verdict import adaptive, stats
from promptcanary.core.verdict.adaptive import AdaptivePolicy
from promptcanary.errors import ConfigError

POLICY = AdaptivePolicy()
PROVIDER = ProviderConfig(model_id="sim/model")


def result(
    passed: bool,
    *,
    prompt: str = "p0",
    sample: int = 0,
    phase: Phase | None = None,
    score: float | None = None,
    errored: bool = False,
) -> ProbeResult:
    return ProbeResult(
        probe_id="json_validity",
        probe_name="JSON validity",
        category=ProbeCategory.FORMAT,
        prompt_id=prompt,
        passed=passed,
        score=(1.0 if passed else 0.0) if score is None else score,
        sample=sample,
        phase=phase,
        errored=errored,
    )


def results(
    passes: int, n: int, *, prompt: str = "p0", offset: int = 0, phase: Phase | None = None
) -> list[ProbeResult]:
    return [result(i < passes, prompt=prompt, sample=offset + i, phase=phase) for i in range(n)]


def side(passes: int, n: int, **kw: object) -> Side:
    return Side(results(passes, n, **kw))  # type: ignore[arg-type]


KEY = ("json_validity", "p0")


def pair(direction: str = "drop", method: str = FISHER) -> ConfirmedPair:
    return ConfirmedPair(
        probe_id="json_validity", prompt_id="p0", direction=direction, method=method
    )


# ── Selection ────────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("baseline", "screening", "expected"),
    [
        ((27, 30), (1, 3), "drop"),
        ((27, 30), (2, 3), "drop"),  # drops always go: 2/3 cannot be told from noise
        ((30, 30), (2, 3), "drop"),
        ((27, 30), (3, 3), None),  # a "gain" of 0.1 on a healthy prompt: p = 0.74, not sent
        ((15, 30), (3, 3), "gain"),  # p = 0.15 <= screen_alpha 0.3
        ((20, 30), (2, 3), None),  # moved 0.0
        ((24, 30), (2, 3), "drop"),  # 0.8 -> 0.67 is a drop of 0.13 >= min_effect
    ],
)
def test_selection(
    baseline: tuple[int, int], screening: tuple[int, int], expected: str | None
) -> None:
    chosen = adaptive.select_pairs({KEY: side(*baseline)}, {KEY: side(*screening)}, POLICY)
    assert [p.direction for p in chosen] == ([expected] if expected else [])
    if chosen:
        assert chosen[0].method == FISHER and (chosen[0].probe_id, chosen[0].prompt_id) == KEY


def test_min_effect_zero_screens_in_only_pairs_that_moved() -> None:
    # "At least 0" holds for an unchanged pair too; confirming it would spend a round of
    # requests on every prompt that did not move.
    policy = AdaptivePolicy(min_effect=0.0)
    assert adaptive.select_pairs({KEY: side(20, 30)}, {KEY: side(2, 3)}, policy) == []
    assert adaptive.select_pairs({KEY: side(30, 30)}, {KEY: side(3, 3)}, policy) == []
    (chosen,) = adaptive.select_pairs({KEY: side(30, 30)}, {KEY: side(2, 3)}, policy)
    assert chosen.direction == "drop"


def test_selection_needs_a_baseline_with_samples_and_measured_screening() -> None:
    assert adaptive.select_pairs({KEY: side(1, 1)}, {KEY: side(0, 3)}, POLICY) == []
    errored = Side([result(False, errored=True, sample=i) for i in range(3)])
    assert adaptive.select_pairs({KEY: side(27, 30)}, {KEY: errored}, POLICY) == []
    assert adaptive.select_pairs({}, {KEY: side(0, 3)}, POLICY) == []


def test_selection_fixes_mann_whitney_when_scores_moved_within_passes() -> None:
    base = Side([result(True, score=1.0, sample=i) for i in range(20)])
    screen = Side([result(True, score=0.6, sample=i) for i in range(3)])
    (chosen,) = adaptive.select_pairs({KEY: base}, {KEY: screen}, POLICY)
    assert chosen.method == MANN_WHITNEY and chosen.direction == "drop"


# ── Confirmation rounds ──────────────────────────────────────────────────────────────────────


def test_rounds_stop_at_the_cap_and_never_draw_past_it() -> None:
    policy = AdaptivePolicy(batch=10, cap=25)
    chosen = [pair()]
    refs = {KEY: side(29, 33)}
    draws: list[tuple[list[str], int, int]] = []

    def draw(ids: list[str], count: int, offset: int) -> tuple[list[ProbeResult], None]:
        draws.append((ids, count, offset))
        return results(0, count, offset=offset, phase="confirmation"), None  # keeps failing

    got, drawn, stopped = adaptive.confirm(chosen, refs, draw, policy)
    assert [(c, o) for _, c, o in draws] == [(10, 3), (10, 13), (5, 23)]
    assert drawn["p0"] == 25 and len(got) == 25 and stopped is None


def test_a_confirmation_that_looks_like_the_baseline_stops_after_one_round() -> None:
    draws = []

    def draw(ids: list[str], count: int, offset: int) -> tuple[list[ProbeResult], None]:
        draws.append(count)
        return results(count, count, offset=offset), None  # all pass: no sign of a drop

    _, drawn, _ = adaptive.confirm([pair()], {KEY: side(28, 33)}, draw, POLICY)
    assert draws == [POLICY.batch] and drawn["p0"] == POLICY.batch


def test_a_draw_that_stops_the_run_ends_confirmation() -> None:
    def draw(ids: list[str], count: int, offset: int) -> tuple[list[ProbeResult], str]:
        return [], "authentication refused (401)"

    _, drawn, stopped = adaptive.confirm([pair()], {KEY: side(28, 33)}, draw, POLICY)
    assert stopped == "authentication refused (401)" and drawn["p0"] == POLICY.batch


def test_open_pairs_and_next_draws() -> None:
    chosen = [pair()]
    refs = {KEY: side(28, 33)}
    assert adaptive.open_pairs(chosen, refs, {}, {}, POLICY) == chosen  # nothing drawn yet
    bad = {KEY: side(3, 10)}
    assert adaptive.open_pairs(chosen, refs, bad, {"p0": 10}, POLICY) == chosen
    assert adaptive.open_pairs(chosen, refs, bad, {"p0": POLICY.cap}, POLICY) == []
    assert adaptive.next_draws(chosen, {"p0": 45}, POLICY) == {"p0": 5}


# ── Decision on fresh data ───────────────────────────────────────────────────────────────────


def test_decision_uses_the_confirmation_samples_only() -> None:
    # Screening 0/3 was terrible, but the fresh samples look like the baseline: no regression.
    ref = Side(results(27, 30) + results(0, 3, phase="screening"))
    (fine,) = adaptive.decide_confirmed(
        [(ref, side(29, 30, phase="confirmation"), pair())], alpha=0.05, min_effect=0.1
    )
    assert not fine.regression and fine.p_value == pytest.approx(
        stats.fisher_p(27, 33, 29, 30, direction="drop")
    )
    (bad,) = adaptive.decide_confirmed(
        [(ref, side(9, 30, phase="confirmation"), pair())], alpha=0.05, min_effect=0.1
    )
    assert bad.regression and bad.method == FISHER
    assert bad.p_value == pytest.approx(stats.fisher_p(27, 33, 9, 30, direction="drop"))


def test_direction_is_fixed_at_screening() -> None:
    # Selected as a drop; the confirmation shows a big gain: that is not tested, nothing flagged.
    (verdict,) = adaptive.decide_confirmed(
        [(side(10, 30), side(30, 30), pair("drop"))], alpha=0.05, min_effect=0.1
    )
    assert not verdict.regression and not verdict.improvement and verdict.p_value == 1.0
    (gain,) = adaptive.decide_confirmed(
        [(side(10, 30), side(30, 30), pair("gain"))], alpha=0.05, min_effect=0.1
    )
    assert gain.improvement and not gain.regression


def test_correction_over_the_confirmed_pairs() -> None:
    # 25/33 vs 13/30 alone: p ~ 0.009, flagged. With nine more confirmed pairs that could show
    # a change (25/33 vs 22/30, p ~ 0.5), Benjamini–Hochberg multiplies it by 10: not flagged.
    strong = (side(25, 33), side(13, 30), pair())
    (alone,) = adaptive.decide_confirmed([strong], alpha=0.05, min_effect=0.1)
    assert alone.regression and alone.p_adjusted == pytest.approx(alone.p_value)
    crowd = [(side(25, 33), side(22, 30), pair()) for _ in range(9)]
    verdicts = adaptive.decide_confirmed([strong, *crowd], alpha=0.05, min_effect=0.1)
    assert verdicts[0].p_adjusted == pytest.approx(min(1.0, 10 * alone.p_value))
    assert not verdicts[0].regression


def test_a_pair_without_measured_confirmation_is_inconclusive() -> None:
    (verdict,) = adaptive.decide_confirmed(
        [(side(27, 30), Side(), pair())], alpha=0.05, min_effect=0.1
    )
    assert verdict.inconclusive and "stopped early" in (verdict.inconclusive_reason or "")


# ── Through compare() ────────────────────────────────────────────────────────────────────────


def adaptive_run(screen: tuple[int, int], confirm: tuple[int, int] | None) -> CanaryRunResult:
    probe = results(*screen, phase="screening")
    probe += results(screen[1], screen[1], prompt="p1", phase="screening")
    confirmed = []
    if confirm is not None:
        probe += results(*confirm, offset=screen[1], phase="confirmation")
        confirmed = [pair()]
    responses = [
        LLMResponse(prompt_id=r.prompt_id, provider_model_id="m", sample=r.sample, phase=r.phase)
        for r in probe
    ]
    record = POLICY.record(
        confirmed=confirmed,
        screening_requests=2 * screen[1],
        confirmation_requests=confirm[1] if confirm else 0,
    )
    return CanaryRunResult(
        suite_name="s",
        provider=PROVIDER,
        probe_results=probe,
        llm_responses=responses,
        samples=screen[1],
        adaptive=record,
    )


def baseline(passes: int = 27, n: int = 30) -> BaselineSnapshot:
    run = CanaryRunResult(
        suite_name="s",
        provider=PROVIDER,
        probe_results=results(passes, n) + results(n, n, prompt="p1"),
        samples=n,
    )
    return BaselineSnapshot(suite_name="s", provider=PROVIDER, run_result=run)


def test_compare_reports_the_evidence_of_a_confirmed_drop() -> None:
    report = compare(baseline(), adaptive_run((1, 3), (9, 30)))
    (reg,) = report.regressions
    assert reg.confirmed and reg.screening_pass_count == 1 and reg.screening_samples == 3
    assert (reg.current_pass_count, reg.current_samples) == (9, 30)
    assert evidence(reg).startswith("baseline 27/30 → screening 1/3 → confirmation 9/30, p < 0.001")
    assert report.adaptive and report.confirmation_requests == 30
    assert not report.single_sample
    (other,) = [c for c in report.comparisons if c.prompt_id == "p1"]
    assert other.method == "screening" and other.stable
    assert evidence(other) == "baseline 30/30 → screening 3/3 (not confirmed)"


def test_compare_of_a_healthy_confirmation_is_no_drift() -> None:
    report = compare(baseline(), adaptive_run((2, 3), (10, 10)))
    assert not report.has_drift and not report.improvements
    (c,) = [c for c in report.comparisons if c.confirmed]
    assert c.stopped_early and "stopped early" in evidence(c)


def test_an_unselected_pair_is_never_flagged_even_if_it_moved() -> None:
    # The run recorded no confirmation for p0 (e.g. measured against another baseline).
    report = compare(baseline(), adaptive_run((0, 3), None))
    assert not report.has_drift
    assert all(c.method == "screening" for c in report.comparisons)


def test_old_files_without_phase_or_adaptive_load() -> None:
    old = {"probe_id": "x", "probe_name": "x", "category": "format", "prompt_id": "p"}
    assert ProbeResult.model_validate({**old, "passed": True, "score": 1.0}).phase is None
    assert LLMResponse.model_validate({"prompt_id": "p", "provider_model_id": "m"}).phase is None
    run = CanaryRunResult.model_validate({"suite_name": "s", "provider": {"model_id": "m"}})
    assert run.adaptive is None


def test_round_trip_keeps_the_record() -> None:
    run = adaptive_run((1, 3), (9, 30))
    assert CanaryRunResult.model_validate_json(run.model_dump_json()) == run


# ── The policy's own settings ────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"screening": 1}, "screening"),
        ({"cap": 1}, "cap"),
        ({"batch": 0}, "batch"),
        ({"screen_alpha": 1.0}, "screen_alpha"),
        ({"futility": 0.0}, "futility"),
        ({"futility": 0.04}, "futility"),  # not above alpha
    ],
)
def test_policy_rejects_bad_values(kwargs: dict[str, float], field: str) -> None:
    with pytest.raises(ConfigError) as info:
        AdaptivePolicy(**kwargs)  # type: ignore[arg-type]
    assert info.value.field == field


def test_false_alarms_stay_low_for_flaky_prompts_too() -> None:
    # Small version of the benchmark at pass rate 0.7 (flaky): any flag, improvements counted.
    rng = random.Random(5)
    base_rates = [0.7] * 10
    flagged = 0
    reps = 150
    for _ in range(reps):
        b = CanaryRunResult(
            suite_name="s",
            provider=PROVIDER,
            probe_results=[
                result(rng.random() < r, prompt=f"p{i}", sample=s)
                for i, r in enumerate(base_rates)
                for s in range(30)
            ],
            samples=30,
        )
        screening = [
            result(rng.random() < r, prompt=f"p{i}", sample=s, phase="screening")
            for i, r in enumerate(base_rates)
            for s in range(3)
        ]
        b_sides, s_sides = adaptive.group(b.probe_results), adaptive.group(screening)
        chosen = adaptive.select_pairs(b_sides, s_sides, POLICY)
        refs = {
            (p.probe_id, p.prompt_id): adaptive.reference_side(
                b_sides[(p.probe_id, p.prompt_id)], s_sides[(p.probe_id, p.prompt_id)]
            )
            for p in chosen
        }

        def draw(ids: list[str], count: int, offset: int) -> tuple[list[ProbeResult], None]:
            return [
                result(rng.random() < 0.7, prompt=i, sample=offset + s, phase="confirmation")
                for i in ids
                for s in range(count)
            ], None

        got, _, _ = adaptive.confirm(chosen, refs, draw, POLICY)
        run = CanaryRunResult(
            suite_name="s",
            provider=PROVIDER,
            probe_results=screening + got,
            samples=3,
            adaptive=POLICY.record(confirmed=chosen),
        )
        report = compare(BaselineSnapshot(suite_name="s", provider=PROVIDER, run_result=b), run)
        flagged += bool(report.regressions or report.improvements)
    assert flagged / reps <= 0.05  # 3.1 % in the benchmark (20 prompts at 0.7, 1,000 runs)


def test_a_record_keeps_each_recorded_setting_of_its_policy() -> None:
    from dataclasses import fields

    from promptcanary.core.models import AdaptiveRecord
    from promptcanary.core.verdict.adaptive import RECORDED

    assert set(RECORDED) <= {f.name for f in fields(AdaptivePolicy)}
    assert set(RECORDED) <= set(AdaptiveRecord.model_fields)
    policy = AdaptivePolicy(screening=4, batch=3, cap=9, screen_alpha=0.2, futility=0.6)
    record = policy.record(behaviour_requests=5)
    assert (record.screening, record.batch, record.cap) == (4, 3, 9)
    assert (record.screen_alpha, record.futility, record.behaviour_requests) == (0.2, 0.6, 5)


def test_a_confirmation_cut_too_short_to_show_anything_is_not_called_stable() -> None:
    # The run stopped (a budget, an outage) after 2 confirmation samples, both failing, against a
    # reference passing 25 of 33: one-sided Fisher's best p with 2 samples is 45/595 = 0.076 >
    # 0.05, so no outcome could be significant. Stable would claim a knowledge nobody has.
    ref = Side(results(25, 30) + results(0, 3, phase="screening"))
    (cut,) = adaptive.decide_confirmed(
        [(ref, side(0, 2, phase="confirmation"), pair())], alpha=0.05, min_effect=0.1
    )
    assert not cut.regression and cut.inconclusive
    assert (cut.inconclusive_reason or "").startswith("not enough evidence: 33 baseline and 2")
    # The same two samples passing agree with the reference: stable, as before.
    (agree,) = adaptive.decide_confirmed(
        [(ref, side(2, 2, phase="confirmation"), pair())], alpha=0.05, min_effect=0.1
    )
    assert not agree.inconclusive and not agree.regression
    # Enough samples to show a change, and none shown: stable, not "not enough evidence".
    (enough,) = adaptive.decide_confirmed(
        [(ref, side(5, 8, phase="confirmation"), pair())], alpha=0.05, min_effect=0.1
    )
    assert not enough.inconclusive
