"""JSON drift report: exact round trip, stable key order, derived values, documented fields."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptcanary.core.models import CanaryRunResult, DriftReport
from promptcanary.core.reporter import DriftReporter, run_to_json
from tests.unit.core.render.samples import (
    HOSTILE,
    adaptive_report,
    comparison,
    drift_report,
    run_result,
    sampled_report,
)

DOC = Path(__file__).resolve().parents[4] / "docs" / "report-json.md"


def test_round_trip_gives_an_equal_report() -> None:
    for report in (drift_report(), sampled_report(), drift_report(aborted="stopped")):
        text = DriftReporter(report).to_json()
        assert DriftReport.model_validate_json(text) == report


def test_round_trip_with_hostile_content() -> None:
    comps = [comparison(1, response=HOSTILE).model_copy(update={"prompt_text": HOSTILE})]
    report = drift_report(comps)
    text = DriftReporter(report).to_json()
    assert DriftReport.model_validate_json(text) == report
    # Bidi overrides, NUL and line separators are escaped, not written raw.
    for raw in ("\u202e", "\u2066", "\x00", "\u2028", "\x85", "\U000e0041"):
        assert raw not in text
    assert "\\u202e" in text and "\\u0000" in text


def test_key_order_is_stable_and_model_order_first() -> None:
    text = DriftReporter(drift_report()).to_json()
    keys = list(json.loads(text))
    stored = ["report_id", *DriftReport.model_fields]  # report_id first, as in 0.2's files
    assert keys[: len(stored)] == stored
    assert keys[len(stored) :] == [
        "verdict",
        "severity",
        "has_drift",
        "is_inconclusive",
        "single_sample",
        "summary",
        "overall_baseline_score",
        "overall_current_score",
        "overall_score_delta",
        "regression_rate",
        "worst_delta",
        "model_changed",
        "nothing_compared",
        "counts",
    ]
    assert DriftReporter(drift_report()).to_json() == text


def test_derived_values() -> None:
    data = json.loads(DriftReporter(drift_report()).to_json())
    assert data["severity"] == "critical" and data["verdict"] == "drift"
    assert data["counts"] == {
        "regressions": 2,
        "improvements": 1,
        "stable": 2,
        "inconclusive": 1,
        "flaky": 0,
    }
    assert data["model_changed"].startswith("The provider changed the model")


def test_every_top_level_key_is_documented() -> None:
    doc = DOC.read_text(encoding="utf-8")
    data = json.loads(DriftReporter(sampled_report()).to_json())
    keys = set(data) | set(data["comparisons"][0]) | set(data["counts"])
    missing = sorted(k for k in keys if f"`{k}`" not in doc)
    assert not missing, f"undocumented JSON fields in docs/report-json.md: {missing}"


def test_run_json_round_trip(tmp_path) -> None:
    run = run_result()
    text = run_to_json(run)
    assert CanaryRunResult.model_validate_json(text) == run


def test_to_json_writes_the_file(tmp_path) -> None:
    target = tmp_path / "drift.json"
    text = DriftReporter(drift_report()).to_json(target)
    assert target.read_text(encoding="utf-8") == text


def test_usage_keeps_its_totals_and_adds_per_request_figures() -> None:
    report = adaptive_report()
    data = json.loads(DriftReporter(report).to_json())
    base, cur = data["baseline_usage"], data["current_usage"]
    assert (base["requests"], base["total_tokens"], cur["requests"]) == (90, 2700, 49)
    assert base["answered"] == 90 and base["tokens_per_request"] == 30.0
    assert cur["tokens_per_request"] == 30.0
    assert base["cost_per_request"] == pytest.approx(0.0009)
    assert cur["cost_per_request"] == pytest.approx(0.0009)
    # Derived, so ignored on load: the round trip still gives an equal report.
    assert DriftReport.model_validate_json(DriftReporter(report).to_json()) == report
