"""Score history for the HTML trend chart and heat strip.

A :class:`TrendPoint` is a tiny summary of one run (a stored baseline, a saved check, or the
current run). :func:`trend_points_from_snapshots` builds them from loaded :class:`BaselineSnapshot`
objects, :func:`trend_point_from_run` from a run saved with ``compare --save-run``;
loading the snapshot files is the caller's job (``FileBaselineStore.list_baselines`` gives paths).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from promptcanary.core.models import BaselineSnapshot, CanaryRunResult, DriftReport, ProbeResult

#: At most this many points are drawn (the newest ones).
MAX_TREND_POINTS = 60


@dataclass(frozen=True)
class TrendPoint:
    """One run in the score history of a (suite, model)."""

    created_at: datetime
    """When the run was saved (baselines) or compared (the current run)."""
    overall_score: float
    """Mean score of the run, 0..1."""
    category_scores: dict[str, float] = field(default_factory=dict)
    """Mean score per probe category (category value -> score)."""
    probe_scores: dict[str, float] = field(default_factory=dict)
    """Mean score per probe id."""
    label: str = ""
    """Short label shown on hover (the baseline note, or "current run")."""
    snapshot_id: str | None = None
    """Snapshot id for stored baselines; None for the current run."""
    is_current: bool = False
    """True for the run this report is about."""
    run_id: str | None = None
    """Run id of a saved check (a run compared with a baseline, not one); None otherwise."""


def _means(results: Iterable[ProbeResult]) -> tuple[dict[str, float], dict[str, float]]:
    by_category: dict[str, list[float]] = defaultdict(list)
    by_probe: dict[str, list[float]] = defaultdict(list)
    for r in results:
        if r.errored:
            continue
        by_category[r.category.value].append(r.score)
        by_probe[r.probe_id].append(r.score)
    return (
        {k: sum(v) / len(v) for k, v in sorted(by_category.items())},
        {k: sum(v) / len(v) for k, v in sorted(by_probe.items())},
    )


def trend_point_from_snapshot(snapshot: BaselineSnapshot) -> TrendPoint:
    """Summarise one stored baseline."""
    categories, probes = _means(snapshot.run_result.probe_results)
    return TrendPoint(
        created_at=snapshot.created_at,
        overall_score=snapshot.run_result.overall_score,
        category_scores=categories,
        probe_scores=probes,
        label=snapshot.note or "baseline",
        snapshot_id=snapshot.snapshot_id,
    )


def trend_point_from_run(run: CanaryRunResult) -> TrendPoint:
    """Summarise a saved check (``compare --save-run``), dated when it finished."""
    categories, probes = _means(run.probe_results)
    return TrendPoint(
        created_at=run.finished_at or run.started_at,
        overall_score=run.overall_score,
        category_scores=categories,
        probe_scores=probes,
        label="check",
        run_id=run.run_id,
    )


def trend_points_from_snapshots(
    snapshots: Iterable[BaselineSnapshot],
    *,
    suite_name: str | None = None,
    model_id: str | None = None,
) -> list[TrendPoint]:
    """Trend points for the snapshots of one suite and model, oldest first.

    ``suite_name`` / ``model_id`` filter the snapshots when given, so a caller can pass everything
    a store holds.
    """
    points = [
        trend_point_from_snapshot(s)
        for s in snapshots
        if (suite_name is None or s.suite_name == suite_name)
        and (model_id is None or s.provider.model_id == model_id)
    ]
    return sorted(points, key=lambda p: p.created_at)


def _report_side(report: DriftReport, *, current: bool) -> TrendPoint:
    by_category: dict[str, list[float]] = defaultdict(list)
    by_probe: dict[str, list[float]] = defaultdict(list)
    for c in report.comparisons:
        if not c.measured:  # the pairs the overall scores average
            continue
        score = c.headline_current_score if current else c.baseline_score
        by_category[c.category.value].append(score)
        by_probe[c.probe_id].append(score)
    return TrendPoint(
        created_at=report.created_at if current else report.baseline_created_at,
        overall_score=report.overall_current_score if current else report.overall_baseline_score,
        category_scores={k: sum(v) / len(v) for k, v in sorted(by_category.items())},
        probe_scores={k: sum(v) / len(v) for k, v in sorted(by_probe.items())},
        label="current run" if current else "baseline",
        snapshot_id=None if current else report.baseline_snapshot_id,
        is_current=current,
    )


def trend_for_report(
    report: DriftReport, history: Sequence[TrendPoint | BaselineSnapshot] | None
) -> list[TrendPoint]:
    """History (snapshots or points) plus this report's baseline and current run, oldest first.

    The compared baseline is added from the report when the history does not already hold it.
    """
    points: list[TrendPoint] = []
    for item in history or []:
        if isinstance(item, BaselineSnapshot):
            if item.suite_name != report.suite_name:
                continue
            points.append(trend_point_from_snapshot(item))
        else:
            points.append(item)
    if not any(p.snapshot_id == report.baseline_snapshot_id for p in points):
        points.append(_report_side(report, current=False))
    points.sort(key=lambda p: p.created_at)
    points.append(_report_side(report, current=True))
    return points[-MAX_TREND_POINTS:]
