"""with_retest(): what a re-test on fresh answers does to a check's report — who changed, the
severity, the gate, the usage and the JSON report."""

from __future__ import annotations

import pytest

from promptcanary import pipeline
from promptcanary.core.models import DriftReport, DriftSeverity, Retest, UsageSummary
from promptcanary.core.verdict.behaviour import with_retest
from promptcanary.errors import EXIT_DRIFT, EXIT_OK
from tests.unit.core.run.test_retest import _flagged, _paraphrasing

SPENT = UsageSummary(requests=12, prompt_tokens=120, completion_tokens=60, total_tokens=180)


@pytest.fixture(scope="module")
def flagged() -> DriftReport:
    """A check whose only finding is a behaviour change on the first prompt."""
    knobs, model = _paraphrasing()
    _, report = _flagged(knobs, model)
    assert isinstance(report, DriftReport)
    assert not report.has_drift and report.behaviour_changed
    assert report.attribution is not None and report.attribution.who_changed == "model"
    return report


def _gate(report: DriftReport, **policy: object) -> int:
    return pipeline.gate(report, pipeline.GatePolicy(**policy)).exit_code  # type: ignore[arg-type]


def test_a_confirmed_finding_stands_and_says_what_confirmed_it(flagged: DriftReport) -> None:
    pid = flagged.behaviour_changes[0].prompt_id
    report = with_retest(flagged, Retest(confirmed=[pid], usage=SPENT))
    assert report.retest is not None and report.retest.accuses and report.behaviour_stands
    assert report.attribution is not None and report.attribution.who_changed == "model"
    assert report.attribution.sentence.endswith("Confirmed on 12 fresh answers.")
    assert report.severity is DriftSeverity.LOW
    assert _gate(report, fail_on_behaviour_change=True) == EXIT_DRIFT
    assert _gate(report, fail_on_severity="low") == EXIT_DRIFT


def test_a_finding_the_fresh_answers_do_not_confirm_fails_nothing(flagged: DriftReport) -> None:
    pid = flagged.behaviour_changes[0].prompt_id
    report = with_retest(flagged, Retest(not_confirmed=[pid], usage=SPENT))
    # What this check's answers showed is kept; it no longer counts as a behaviour change.
    assert report.behaviour_changed and not report.behaviour_stands
    assert report.severity is DriftSeverity.NONE
    assert _gate(flagged, fail_on_behaviour_change=True) == EXIT_DRIFT  # before the re-test
    assert _gate(report, fail_on_behaviour_change=True) == EXIT_OK
    assert _gate(report, fail_on_severity="low") == EXIT_OK
    a = report.attribution
    assert a is not None and a.who_changed == "neither"
    assert a.sentence.startswith("Who changed: no change detected")
    assert "the model" not in a.sentence
    assert "did not confirm" in report.summary and "severity low" not in report.summary


def test_a_prompt_flagged_again_among_known_answers_blames_the_baseline(
    flagged: DriftReport,
) -> None:
    pid = flagged.behaviour_changes[0].prompt_id
    retest = Retest(confirmed=[pid], baseline_suspects=[pid], usage=SPENT)
    report = with_retest(flagged, retest)
    assert not retest.accuses and not report.behaviour_stands
    a = report.attribution
    assert a is not None and a.who_changed == "unclear"
    assert "baseline may not represent" in a.sentence and "baseline_samples" in a.sentence
    assert _gate(report, fail_on_behaviour_change=True) == EXIT_OK


def test_a_retest_that_got_no_answers_is_unclear_not_all_clear(flagged: DriftReport) -> None:
    pid = flagged.behaviour_changes[0].prompt_id
    report = with_retest(flagged, Retest(unmeasured=[pid], usage=SPENT))
    a = report.attribution
    assert a is not None and a.who_changed == "unclear" and "requests failed" in a.sentence
    assert not report.behaviour_stands


def test_an_unclear_check_confirmed_on_new_answers_names_the_model(flagged: DriftReport) -> None:
    assert flagged.attribution is not None
    unclear = flagged.model_copy(
        update={"attribution": flagged.attribution.model_copy(update={"who_changed": "unclear"})}
    )
    pid = flagged.behaviour_changes[0].prompt_id
    report = with_retest(unclear, Retest(confirmed=[pid], usage=SPENT))
    assert report.attribution is not None and report.attribution.who_changed == "model"
    assert "confirmed on 12 fresh answers" in report.attribution.sentence


def test_the_retest_requests_are_counted_in_the_usage(flagged: DriftReport) -> None:
    before = flagged.current_usage
    assert before is not None
    report = with_retest(flagged, Retest(usage=SPENT))
    after = report.current_usage
    assert after is not None
    assert after.requests == before.requests + 12
    assert after.total_tokens == before.total_tokens + 180
    assert after.latency_p50_ms == before.latency_p50_ms


def test_the_json_report_round_trips_with_its_retest(flagged: DriftReport) -> None:
    pid = flagged.behaviour_changes[0].prompt_id
    report = with_retest(flagged, Retest(not_confirmed=[pid], usage=SPENT))
    text = report.model_dump_json()
    assert '"accuses":false' in text.replace(" ", "")  # derived, for jq readers
    again = DriftReport.model_validate_json(text)
    assert again.retest == report.retest and not again.behaviour_stands
    assert again.severity is DriftSeverity.NONE


def test_usage_plus_adds_counts_tokens_and_cost() -> None:
    a = UsageSummary(
        requests=10,
        errors=1,
        retries=2,
        prompt_tokens=100,
        completion_tokens=50,
        total_tokens=150,
        cost_usd=0.5,
        latency_p50_ms=80.0,
        models=["m-1"],
        fingerprints=["fp_a"],
    )
    b = UsageSummary(
        requests=4, errors=0, retries=1, total_tokens=40, models=["m-2"], fingerprints=["fp_a"]
    )
    both = a.plus(b)
    assert (both.requests, both.errors, both.retries, both.total_tokens) == (14, 1, 3, 190)
    assert both.cost_usd == 0.5  # an unknown cost on one side does not hide the other
    assert both.models == ["m-1", "m-2"] and both.fingerprints == ["fp_a"]
    assert both.latency_p50_ms == 80.0
    assert UsageSummary().plus(UsageSummary()).cost_usd is None
    assert a.plus(b.model_copy(update={"cost_usd": 0.25})).cost_usd == 0.75
