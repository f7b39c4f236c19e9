"""`promptcanary baselines list|show|delete|history`."""

from __future__ import annotations

import sys
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from promptcanary.commands.common import default_baseline_dir, stdout_console
from promptcanary.errors import EXIT_OK, BaselineNotFoundError

if TYPE_CHECKING:
    from promptcanary.core.models import BaselineSnapshot
    from promptcanary.storage.file import FileBaselineStore


def _store(baseline_dir: Path | None, config: Path | None = None) -> FileBaselineStore:
    """--baseline-dir, else baselines/ next to -c canary.yaml, else ./baselines (as `run`)."""
    from promptcanary.storage.file import FileBaselineStore

    return FileBaselineStore(default_baseline_dir(baseline_dir, config))


def _suite_of(config: Path | None, suite: str | None) -> str | None:
    """--suite, else the name of -c canary.yaml (so `-c` lists that suite's baselines)."""
    if suite is not None or config is None:
        return suite
    from promptcanary.core.config import load_header

    return load_header(config)[0]


def list_command(
    *, baseline_dir: Path | None, suite: str | None, model: str | None, config: Path | None = None
) -> int:
    from rich.table import Table

    store = _store(baseline_dir, config)
    suite = _suite_of(config, suite)
    rows = store.list_baselines(suite_name=suite, model_id=model)
    console = stdout_console()
    if not rows:
        console.print(f"No baselines in {store.directory}.")
        console.print("Save one with: promptcanary run -c canary.yaml -p MODEL --save-baseline")
        return EXIT_OK
    table = Table(title=f"Baselines in {store.directory}", title_justify="left")
    for col in ("snapshot id", "suite", "model", "created (UTC)", "score", "samples", "note"):
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(
            row["snapshot_id"],
            row["suite_name"],
            row["model_id"],
            row["created_at"][:19].replace("T", " "),
            f"{row['overall_score']:.2f}",
            str(row["samples"]),
            row["note"],
        )
    console.print(table)
    return EXIT_OK


def _find(
    snapshot: str, baseline_dir: Path | None, config: Path | None = None
) -> tuple[FileBaselineStore, BaselineSnapshot]:
    store = _store(baseline_dir, config)
    as_path = Path(snapshot)
    if as_path.suffix == ".json" and as_path.exists():
        return store, store.load_from_path(as_path)
    matches = [r for r in store.list_baselines() if r["snapshot_id"].startswith(snapshot)]
    if len(matches) > 1:
        from promptcanary.errors import ConfigError

        raise ConfigError(
            f"'{snapshot}' matches {len(matches)} baselines; give more of the id",
            field="SNAPSHOT",
        )
    if not matches:
        raise BaselineNotFoundError(
            f"no baseline with id '{snapshot}' in {store.directory}",
            hint="List them with `promptcanary baselines list`.",
        )
    return store, store.load(matches[0]["snapshot_id"])


def show_command(*, snapshot: str, baseline_dir: Path | None, config: Path | None = None) -> int:
    from promptcanary.core.reporter import RunReporter

    _, snap = _find(snapshot, baseline_dir, config)
    console = stdout_console()
    console.print(
        f"Baseline {snap.snapshot_id} · suite {snap.suite_name} · model {snap.provider.model_id}"
        f" · saved {snap.created_at:%Y-%m-%d %H:%M:%S} UTC"
        + (f" · note: {snap.note}" if snap.note else "")
    )
    # It is a baseline already: no "make this run the baseline" hint.
    RunReporter(snap.run_result, accept_hint="").print_terminal(console)
    return EXIT_OK


def delete_command(
    *, snapshot: str, baseline_dir: Path | None, yes: bool, config: Path | None = None
) -> int:
    store, snap = _find(snapshot, baseline_dir, config)
    if not yes:
        if not sys.stdin.isatty():
            from promptcanary.errors import ConfigError

            raise ConfigError(
                "refusing to delete without confirmation",
                field="--yes",
                hint="Pass --yes to delete non-interactively.",
            )
        import typer

        typer.confirm(
            f"Delete baseline {snap.snapshot_id} ({snap.suite_name}, {snap.provider.model_id})?",
            abort=True,
        )
    store.delete(snap.snapshot_id)
    stdout_console().print(f"Deleted baseline {snap.snapshot_id}.")
    return EXIT_OK


CHARTS = ("all", "scores", "probes", "drift")


def history_command(
    *,
    baseline_dir: Path | None,
    suite: str | None,
    model: str | None,
    chart: str,
    config: Path | None = None,
) -> int:
    """Text charts of the stored baselines: scores, probe heatmap, drift between neighbours."""
    from promptcanary.errors import ConfigError

    if chart not in CHARTS:
        raise ConfigError(f"must be one of {', '.join(CHARTS)} (got {chart!r})", field="--chart")
    from promptcanary.utils import visualization as viz

    store = _store(baseline_dir, config)
    suite = _suite_of(config, suite)
    snapshots = store.load_all(suite, model)
    out = stdout_console().file
    if not snapshots:
        out.write(f"No baselines in {store.directory}.\n")
        return EXIT_OK
    if chart in ("all", "scores"):
        viz.plot_score_history(snapshots, mode="text", file=out)
    if chart in ("all", "probes"):
        out.write("\n" if chart == "all" else "")
        viz.plot_probe_heatmap(snapshots, mode="text", file=out)
    if chart in ("all", "drift"):
        out.write("\n" if chart == "all" else "")
        reports = successive_drift(snapshots)
        if reports:
            viz.plot_drift_timeline(reports, mode="text", file=out)
        else:
            out.write("Drift timeline: needs two baselines of the same suite and model.\n")
    return EXIT_OK


def successive_drift(snapshots: list[BaselineSnapshot]) -> list[Any]:
    """Each baseline compared with the one saved before it (same suite and model), dated when
    the newer one was saved: how the accepted behaviour moved over time."""
    from promptcanary.core.comparator import compare

    by_key: dict[tuple[str, str], list[BaselineSnapshot]] = {}
    for snap in sorted(snapshots, key=lambda s: s.created_at):
        by_key.setdefault((snap.suite_name, snap.provider.model_id), []).append(snap)
    reports = []
    for series in by_key.values():
        for older, newer in pairwise(series):
            report = compare(older, newer.run_result)
            reports.append(report.model_copy(update={"created_at": newer.created_at}))
    return reports
