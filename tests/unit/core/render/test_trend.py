"""Trend points from stored baselines, and the inline SVG built from them."""

from __future__ import annotations

import re

from promptcanary.core.render.svg import heat_strip, trend_chart
from promptcanary.core.render.trend import trend_for_report, trend_points_from_snapshots
from promptcanary.core.reporter import DriftReporter
from tests.unit.core.render.samples import drift_report, run_result, snapshot


def _history():
    return [
        snapshot(run_result(failing=(1,), error=None), days=-3, note="v2", sid="s2"),
        snapshot(run_result(failing=(), error=None), days=-9, note="v1", sid="s1"),
        snapshot(run_result(failing=(0, 1), error=2), days=-1, note="v3", sid="s3"),
    ]


def test_points_are_sorted_and_summarise_scores() -> None:
    points = trend_points_from_snapshots(_history())
    assert [p.label for p in points] == ["v1", "v2", "v3"]
    assert points[0].overall_score == 1.0
    assert round(points[1].overall_score, 3) == round(2 / 3, 3)
    # The errored result of v3 is not counted: 2 measured, both failing.
    assert points[2].overall_score == 0.0
    assert points[1].category_scores == {"format": points[1].overall_score}
    assert set(points[1].probe_scores) == {"json_validity"}


def test_points_filter_by_suite_and_model() -> None:
    assert trend_points_from_snapshots(_history(), suite_name="other") == []
    assert trend_points_from_snapshots(_history(), model_id="openai/other") == []
    assert len(trend_points_from_snapshots(_history(), suite_name="checkout-agent")) == 3


def test_report_trend_adds_baseline_and_current_run_last() -> None:
    report = drift_report()
    points = trend_for_report(report, _history())
    assert [p.label for p in points] == ["v1", "v2", "v3", "baseline", "current run"]
    assert points[-1].is_current and points[-1].overall_score == report.overall_current_score
    # Without history: the compared baseline and the current run.
    assert [p.label for p in trend_for_report(report, None)] == ["baseline", "current run"]


def test_svg_chart_and_heat_strip() -> None:
    points = trend_for_report(drift_report(), _history())
    chart = str(trend_chart(points))
    assert chart.startswith("<svg") and chart.count("<circle") == 5
    assert 'class="pt current"' in chart
    heat = str(heat_strip(points, {"json_validity": ("JSON <Validity>", "format")}))
    assert "format · JSON &lt;Validity&gt;" in heat
    assert heat.count("<rect") == 3 * 5  # three probes x five runs
    assert "not measured" in heat  # keyword/step probes are absent from stored runs
    # Each column is named: the run's month and day, "current" for this run.
    columns = re.findall(r'class="axis column"[^>]*><title>([^<]*)</title>([^<]*)</text>', heat)
    assert [name for _, name in columns] == [f"{p.created_at:%m-%d}" for p in points[:-1]] + [
        "current"
    ]
    assert all(
        title.startswith(f"{p.created_at:%Y-%m-%d}") for (title, _), p in zip(columns, points)
    )


def test_html_report_contains_the_trend(tmp_path) -> None:
    html = DriftReporter(drift_report(), history=_history()).to_html()
    assert '<svg class="trend"' in html and '<svg class="heat"' in html


def test_heat_strip_rows_of_two_probes_with_one_name_show_their_ids() -> None:
    # Two regex probes are both "Regex": their rows must not read the same.
    points = trend_for_report(drift_report(), _history())
    ids = sorted({pid for p in points for pid in p.probe_scores})[:2]
    names = {ids[0]: ("Regex", "format"), ids[1]: ("Regex", "format")}
    heat = str(heat_strip(points, names))
    labels = re.findall(r'text-anchor="end">([^<]*)</text>', heat)
    assert f"format · Regex [{ids[0]}]" in labels
    assert f"format · Regex [{ids[1]}]" in labels
    # A name no other row shares is shown alone.
    third = sorted({pid for p in points for pid in p.probe_scores})[2]
    heat = str(heat_strip(points, {**names, third: ("Keyword", "content")}))
    assert "content · Keyword" in re.findall(r'text-anchor="end">([^<]*)</text>', heat)
