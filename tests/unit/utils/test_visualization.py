"""promptcanary.utils.visualization: text charts (golden), modes, and the plotly branch (stub)."""

from __future__ import annotations

import io
import sys
from itertools import pairwise
from pathlib import Path

import pytest

from promptcanary.core.comparator import compare
from promptcanary.core.render.trend import trend_points_from_snapshots
from promptcanary.utils import visualization as viz
from tests.unit.core.render.samples import assert_golden, run_result, snapshot

PLOTLY_STUB = Path(__file__).resolve().parents[2] / "fakes" / "plotly_stub"


@pytest.fixture
def history():
    """Three baselines of one suite: all passing, one failing prompt, two failing prompts."""
    return [
        snapshot(run_result(failing=(), error=None), days=0, note="v1", sid="aaaaaaaa-1"),
        snapshot(run_result(failing=(1,), error=None), days=1, note="v2", sid="bbbbbbbb-2"),
        snapshot(run_result(failing=(0, 1), error=None), days=2, note="v3", sid="cccccccc-3"),
    ]


@pytest.fixture
def no_plotly(monkeypatch):
    """Make sure `import plotly` fails, whatever is installed."""
    monkeypatch.setitem(sys.modules, "plotly", None)


@pytest.fixture
def stub_plotly(monkeypatch):
    for name in [m for m in sys.modules if m == "plotly" or m.startswith("plotly.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.syspath_prepend(str(PLOTLY_STUB))
    yield
    for name in [m for m in sys.modules if m == "plotly" or m.startswith("plotly.")]:
        sys.modules.pop(name, None)


def _timeline(history):
    reports = []
    for older, newer in pairwise(history):
        report = compare(older, newer.run_result)
        reports.append(report.model_copy(update={"created_at": newer.created_at}))
    return reports


def test_text_charts_golden(history, no_plotly):
    out = io.StringIO()
    charts = [
        viz.plot_score_history(history, file=out),
        viz.plot_probe_heatmap(history, file=out),
        viz.plot_drift_timeline(_timeline(history), file=out),
    ]
    assert_golden("history_text.txt", "\n".join(charts))
    # auto mode without plotly is text, and echo printed exactly what was returned
    assert out.getvalue() == "".join(charts)


def test_text_numbers_come_from_the_trend_data(history, no_plotly):
    text = viz.plot_score_history(history, mode="text", echo=False)
    for point in trend_points_from_snapshots(history):
        assert f"{point.overall_score:.2f}" in text
    assert "1.00" in text and "0.67" in text and "0.33" in text
    assert viz.sparkline([0.0, 1.0]) == "▁█"
    heat = viz.plot_probe_heatmap(history, mode="ascii", echo=False)
    assert "json_validity" in heat and "█1.00" in heat and "▒0.33" in heat


def test_timeline_marks_drift_and_inconclusive(history, no_plotly):
    reports = _timeline(history)
    text = viz.plot_drift_timeline(reports, mode="text", echo=False)
    assert "drift" in text and text.count("checkout-agent") == 2
    inconclusive = reports[0].model_copy(update={"aborted": "authentication refused"})
    strip = viz.plot_drift_timeline([inconclusive], mode="text", echo=False).splitlines()[1]
    assert strip.strip().startswith("severity ?")


def test_echo_false_prints_nothing_and_output_path_gets_the_text(
    history, no_plotly, tmp_path, capsys
):
    target = tmp_path / "history.txt"
    text = viz.plot_score_history(history, mode="text", echo=False, output_path=target)
    assert capsys.readouterr().out == ""
    assert target.read_text(encoding="utf-8") == text
    viz.plot_score_history(history, mode="text")  # default: printed, as in promptcanary 0.2
    assert capsys.readouterr().out == text


def test_snapshots_of_several_suites_and_models_are_charted_separately(history, no_plotly):
    other = history[0].model_copy(update={"suite_name": "other-suite"})
    text = viz.plot_score_history([*history, other], mode="text", echo=False)
    assert "checkout-agent · openai/gpt-4o-mini — 3 baselines" in text
    assert "other-suite · openai/gpt-4o-mini — 1 baseline," in text


def test_bad_inputs(history, no_plotly):
    with pytest.raises(ValueError, match="At least one snapshot"):
        viz.plot_score_history([])
    with pytest.raises(ValueError, match="At least one drift report"):
        viz.plot_drift_timeline([])
    with pytest.raises(ValueError, match="mode must be one of"):
        viz.plot_probe_heatmap(history, mode="svg")
    with pytest.raises(ImportError, match="pip install plotly"):
        viz.plot_score_history(history, mode="plotly")


def test_plotly_page_and_figure_when_plotly_is_installed(history, stub_plotly, tmp_path):
    html = viz.plot_score_history(history)  # auto picks plotly when it imports
    assert html.startswith("<!doctype html>") and "plotly.js" in html
    fig = viz.plot_score_history(history, mode="figure", output_path=tmp_path / "s.html")
    (trace,) = fig.data
    assert trace["type"] == "scatter"
    assert [round(y, 2) for y in trace["y"]] == [1.0, 0.67, 0.33]
    assert (tmp_path / "s.html").read_text().startswith("<!doctype html>")

    heat = viz.plot_probe_heatmap(history, mode="figure")
    assert heat.data[0]["type"] == "heatmap"
    assert heat.data[0]["y"] == ["checkout-agent · openai/gpt-4o-mini: json_validity"]
    assert [round(z, 2) for z in heat.data[0]["z"][0]] == [1.0, 0.67, 0.33]

    timeline = viz.plot_drift_timeline(
        _timeline(history), mode="plotly", output_path=tmp_path / "t.html"
    )
    assert (tmp_path / "t.html").read_text() == timeline
    assert '"regressions"' in timeline


def test_a_misspelt_keyword_is_refused(history, no_plotly):
    with pytest.raises(TypeError, match="'titel'"):
        viz.plot_score_history(history, titel="x")
