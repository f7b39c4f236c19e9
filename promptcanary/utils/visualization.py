"""Score history charts: plain text for the terminal, or plotly figures when plotly is installed.

The three functions of promptcanary 0.2, over this package's baselines and drift reports:

- :func:`plot_score_history` — overall score of each stored baseline (and saved check) over time;
- :func:`plot_probe_heatmap` — each probe's mean score per baseline (where a probe started to slip);
- :func:`plot_drift_timeline` — verdict, regressions and score change of a series of comparisons.

The numbers are the HTML report's trend data (:mod:`promptcanary.core.render.trend`), so a chart
here and the report's trend chart always agree. Plain text needs nothing extra and is always
available; plotly is optional (``pip install plotly``) and never a dependency of PromptCanary.

``mode`` picks the output: ``"text"`` (``"ascii"`` is the same) returns the chart as a string and,
with ``echo`` (the default, as in 0.2), prints it; ``"plotly"`` returns a self-contained HTML page;
``"figure"`` returns the plotly ``Figure`` itself; ``"auto"`` is ``"plotly"`` when plotly can be
imported, else ``"text"``. ``output_path`` also writes what was rendered (text or HTML) to a file.
``promptcanary baselines history`` prints the text charts.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Generic, TypedDict, TypeVar

from promptcanary.core.render.trend import (
    TrendPoint,
    trend_point_from_run,
    trend_points_from_snapshots,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from promptcanary.core.models import BaselineSnapshot, CanaryRunResult, DriftReport

__all__ = [
    "ChartOptions",
    "plot_drift_timeline",
    "plot_probe_heatmap",
    "plot_score_history",
    "render_drift_timeline",
    "render_probe_heatmap",
    "render_score_history",
]

#: Stored baselines, saved checks (runs written by ``compare --save-run``) or trend points.
History = Sequence["BaselineSnapshot | CanaryRunResult | TrendPoint"]

_MODES = ("auto", "text", "ascii", "plotly", "figure")
_SPARK = "▁▂▃▄▅▆▇█"
_SHADES = "░▒▓█"
_BAR_WIDTH = 20
#: One character per comparison in the drift strip: none, low, medium, high, critical.
_SEVERITY_MARKS = {"none": "·", "low": "▂", "medium": "▄", "high": "▆", "critical": "█"}
_INCONCLUSIVE_MARK = "?"
_T = TypeVar("_T")


# ── Public API ───────────────────────────────────────────────────────────────────────────────


class ChartOptions(TypedDict, total=False):
    """The keywords of every ``plot_*`` function."""

    title: str
    """Chart title (each function has its own default)."""
    output_path: str | Path | None
    """Also write the rendered text or HTML here."""
    mode: str
    """``auto`` (the default), ``text`` / ``ascii``, ``plotly`` or ``figure`` (module docs)."""
    echo: bool
    """In text mode, print the chart (to ``file``, default stdout); default True."""
    file: IO[str] | None
    """Where ``echo`` prints."""


def plot_score_history(snapshots: History, **options: Unpack[ChartOptions]) -> Any:
    """Overall score of each baseline over time, one series per (suite, model).

    Args:
        snapshots: Stored baselines (:class:`BaselineSnapshot`), saved checks
            (:class:`CanaryRunResult`, as ``compare --save-run`` writes them) or trend points, in
            any order.
        options: ``title``, ``output_path``, ``mode``, ``echo``, ``file`` (:class:`ChartOptions`).

    Returns:
        The text chart, the HTML page, or the plotly figure, depending on ``mode``.

    Raises:
        ValueError: no snapshots, or an unknown mode.
        ImportError: ``plotly`` / ``figure`` mode without plotly installed.
        TypeError: a keyword that is not one of :class:`ChartOptions`.
    """
    return _SCORE_HISTORY.deliver(_groups(snapshots, "snapshot"), options)


def plot_probe_heatmap(snapshots: History, **options: Unpack[ChartOptions]) -> Any:
    """Each probe's mean score in each baseline: probes down, baselines across.

    Same arguments and return values as :func:`plot_score_history`.
    """
    return _PROBE_HEATMAP.deliver(_groups(snapshots, "snapshot"), options)


def plot_drift_timeline(
    drift_reports: Sequence[DriftReport], **options: Unpack[ChartOptions]
) -> Any:
    """Verdict, regressions, improvements and overall score change of each comparison, by date.

    Same arguments and return values as :func:`plot_score_history`, over drift reports.
    """
    reports = sorted(drift_reports, key=lambda r: r.created_at)
    if not reports:
        raise ValueError("At least one drift report is required.")
    return _DRIFT_TIMELINE.deliver(reports, options)


# ── Plain text ───────────────────────────────────────────────────────────────────────────────

Group = tuple[str, list[TrendPoint]]


def render_score_history(groups: Sequence[Group], title: str) -> str:
    """The score history as plain text: a sparkline and a table per (suite, model)."""
    lines = [title]
    for label, points in groups:
        lines += ["", _group_heading(label, points)]
        scores = [p.overall_score for p in points]
        lines.append(f"  trend {sparkline(scores)}  (oldest → newest)")
        lines.append(f"  {'#':>3}  {'saved (UTC)':<16}  {'snapshot':<8}  {'score':<25}  note")
        for i, p in enumerate(points, 1):
            lines.append(
                f"  {i:>3}  {_when(p.created_at):<16}  {_short_id(p):<8}  "
                f"{p.overall_score:.2f} {score_bar(p.overall_score)}  {p.label}".rstrip()
            )
    return "\n".join(lines) + "\n"


def render_probe_heatmap(groups: Sequence[Group], title: str) -> str:
    """Probe scores per baseline as plain text: a shaded cell per probe and baseline."""
    lines = [title]
    for label, points in groups:
        lines += ["", _group_heading(label, points)]
        probes = sorted({probe for p in points for probe in p.probe_scores})
        if not probes:
            lines.append("  (no measured probe results)")
            continue
        width = max(len("probe"), *(len(p) for p in probes))
        lines.append(
            f"  {'probe':<{width}}" + "".join(f"  {f'#{i}':>5}" for i in range(1, len(points) + 1))
        )
        for probe in probes:
            cells = "".join(f"  {_cell(p.probe_scores.get(probe))}" for p in points)
            lines.append(f"  {probe:<{width}}{cells}")
        lines.append(
            f"  shades: {_SHADES[0]} <0.25  {_SHADES[1]} <0.5  {_SHADES[2]} <0.75  {_SHADES[3]} ≥0.75"
        )
        for i, p in enumerate(points, 1):
            lines.append(f"  #{i} {_when(p.created_at)} {_short_id(p)} {p.label}".rstrip())
    return "\n".join(lines) + "\n"


def render_drift_timeline(reports: Sequence[DriftReport], title: str) -> str:
    """Comparisons by date as plain text: a severity strip and one row per comparison."""
    strip = "".join(
        _INCONCLUSIVE_MARK if r.is_inconclusive else _SEVERITY_MARKS[r.severity.value]
        for r in reports
    )
    lines = [
        title,
        f"  severity {strip}  (· none ▂ low ▄ medium ▆ high █ critical ? inconclusive)",
        f"  {'when (UTC)':<16}  {'suite · model':<40}  {'verdict':<15}  "
        f"{'regr.':>5}  {'impr.':>5}  {'Δ score':>7}",
    ]
    for r in reports:
        if r.is_inconclusive:
            verdict = "inconclusive"
        elif r.has_drift:
            verdict = f"{r.severity.value.upper()} drift"
        else:
            verdict = "no drift"
        where = _clip(f"{r.suite_name} · {r.provider.model_id}", 40)
        lines.append(
            f"  {_when(r.created_at):<16}  {where:<40}  {verdict:<15}  "
            f"{len(r.regressions):>5}  {len(r.improvements):>5}  {r.overall_score_delta:>+7.2f}"
        )
    return "\n".join(lines) + "\n"


def sparkline(values: Sequence[float]) -> str:
    """One block character per value in 0..1 (▁ lowest, █ highest)."""
    top = len(_SPARK) - 1
    return "".join(_SPARK[round(min(1.0, max(0.0, v)) * top)] for v in values)


def score_bar(score: float, width: int = _BAR_WIDTH) -> str:
    """A bar of ``width`` cells, filled in proportion to a 0..1 score."""
    filled = round(min(1.0, max(0.0, score)) * width)
    return "█" * filled + "░" * (width - filled)


def _cell(score: float | None) -> str:
    if score is None:
        return "    –"
    shade = _SHADES[min(len(_SHADES) - 1, int(max(0.0, score) * len(_SHADES)))]
    return f"{shade}{score:.2f}"


def _group_heading(label: str, points: list[TrendPoint]) -> str:
    span = f"{_when(points[0].created_at)[:10]} → {_when(points[-1].created_at)[:10]}"
    checks = sum(1 for p in points if p.run_id is not None)
    baselines = len(points) - checks
    count = f"{baselines} baseline{'s' if baselines != 1 else ''}"
    if checks:
        count += f", {checks} check{'s' if checks != 1 else ''}"
    return f"{label} — {count}, {span}" if label else f"{count}, {span}"


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M")


def _short_id(point: TrendPoint) -> str:
    return (point.snapshot_id or point.run_id or "current")[:8]


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


# ── Data ─────────────────────────────────────────────────────────────────────────────────────


def _groups(items: History, what: str) -> list[Group]:
    """Trend points per (suite, model), oldest first; trend points given directly form one group."""
    items = list(items)  # a generator of snapshots works too
    if not items:
        raise ValueError(f"At least one {what} is required.")
    from promptcanary.core.models import BaselineSnapshot, CanaryRunResult

    snapshots = [s for s in items if isinstance(s, BaselineSnapshot)]
    checks = [r for r in items if isinstance(r, CanaryRunResult)]
    given = sorted((p for p in items if isinstance(p, TrendPoint)), key=lambda p: p.created_at)
    keys = sorted(
        {(s.suite_name, s.provider.model_id) for s in snapshots}
        | {(r.suite_name, r.provider.model_id) for r in checks}
    )
    groups: list[Group] = []
    for suite, model in keys:
        points = trend_points_from_snapshots(snapshots, suite_name=suite, model_id=model)
        points += [
            trend_point_from_run(r)
            for r in checks
            if r.suite_name == suite and r.provider.model_id == model
        ]
        groups.append((f"{suite} · {model}", sorted(points, key=lambda p: p.created_at)))
    if given:
        groups.append(("", given))
    return groups


# ── Output ───────────────────────────────────────────────────────────────────────────────────


def _plotly_installed() -> bool:
    try:
        import plotly  # noqa: F401
    except ImportError:
        return False
    return True


def _resolve(mode: str) -> str:
    chosen = mode.lower()
    if chosen not in _MODES:
        raise ValueError(f"mode must be one of {', '.join(_MODES)} (got {mode!r})")
    if chosen in ("text", "ascii"):
        return "text"
    if chosen == "auto":
        return "plotly" if _plotly_installed() else "text"
    if not _plotly_installed():
        raise ImportError(
            f"mode={mode!r} needs plotly, which is not installed: pip install plotly "
            "(or use mode='text')"
        )
    return chosen


@dataclass(frozen=True)
class _Chart(Generic[_T]):
    """One chart: its default title, its text and its plotly rendering of the same data."""

    title: str
    text: Callable[[_T, str], str]
    figure: Callable[[_T, str], Any]

    def deliver(self, data: _T, options: ChartOptions) -> Any:
        """Render ``data`` as ``options`` say (see :class:`ChartOptions`)."""
        unknown = options.keys() - ChartOptions.__annotations__.keys()
        if unknown:
            raise TypeError(f"unexpected keyword argument {min(unknown)!r}")
        chosen = _resolve(options.get("mode", "auto"))
        title = options.get("title", self.title)
        output_path = options.get("output_path")
        if chosen == "text":
            chart = self.text(data, title)
            if output_path is not None:
                Path(output_path).write_text(chart, encoding="utf-8")
            if options.get("echo", True):
                (options.get("file") or sys.stdout).write(chart)
            return chart
        fig = self.figure(data, title)
        if chosen == "figure":
            if output_path is not None:
                fig.write_html(str(output_path), include_plotlyjs=True)
            return fig
        # The page embeds plotly.js: it opens offline, like the HTML drift report.
        html = fig.to_html(full_html=True, include_plotlyjs=True)
        if output_path is not None:
            Path(output_path).write_text(html, encoding="utf-8")
        return html


# ── plotly figures (only built when plotly is installed) ─────────────────────────────────────


def _layout(title: str, **extra: Any) -> dict[str, Any]:
    return {"title": {"text": title}, "template": "plotly_white", **extra}


def _score_history_figure(groups: Sequence[Group], title: str) -> Any:
    import plotly.graph_objects as go

    traces = [
        go.Scatter(
            x=[p.created_at for p in points],
            y=[p.overall_score for p in points],
            mode="lines+markers",
            name=label or "score",
            text=[f"{_short_id(p)} {p.label}" for p in points],
        )
        for label, points in groups
    ]
    return go.Figure(
        data=traces,
        layout=_layout(title, yaxis={"title": {"text": "overall score"}, "range": [0, 1.05]}),
    )


def _heatmap_figure(groups: Sequence[Group], title: str) -> Any:
    import plotly.graph_objects as go

    columns = sorted({p.created_at for _, points in groups for p in points})
    rows: list[str] = []
    cells: list[list[float | None]] = []
    for label, points in groups:
        by_time = {p.created_at: p for p in points}
        for probe in sorted({probe for p in points for probe in p.probe_scores}):
            rows.append(f"{label}: {probe}" if label else probe)
            cells.append(
                [by_time[t].probe_scores.get(probe) if t in by_time else None for t in columns]
            )
    heatmap = go.Heatmap(
        x=[_when(t) for t in columns], y=rows, z=cells, zmin=0, zmax=1, colorscale="RdYlGn"
    )
    return go.Figure(data=[heatmap], layout=_layout(title))


def _timeline_figure(reports: Sequence[DriftReport], title: str) -> Any:
    import plotly.graph_objects as go

    when = [r.created_at for r in reports]
    return go.Figure(
        data=[
            go.Bar(x=when, y=[len(r.regressions) for r in reports], name="regressions"),
            go.Bar(x=when, y=[len(r.improvements) for r in reports], name="improvements"),
            go.Scatter(
                x=when,
                y=[r.overall_score_delta for r in reports],
                name="Δ overall score",
                mode="lines+markers",
                yaxis="y2",
            ),
        ],
        layout=_layout(
            title,
            yaxis={"title": {"text": "pairs"}},
            yaxis2={"title": {"text": "Δ score"}, "overlaying": "y", "side": "right"},
        ),
    )


# The three public charts (defined last: they name the renderers above).
_SCORE_HISTORY = _Chart("PromptCanary: score history", render_score_history, _score_history_figure)
_PROBE_HEATMAP = _Chart(
    "PromptCanary: probe scores over time", render_probe_heatmap, _heatmap_figure
)
_DRIFT_TIMELINE = _Chart("PromptCanary: drift timeline", render_drift_timeline, _timeline_figure)
