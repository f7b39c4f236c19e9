"""`promptcanary baselines list|show|delete|history`."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from promptcanary.commands.common import default_baseline_dir, stdout_console
from promptcanary.errors import EXIT_OK, BaselineNotFoundError

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

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
    """The baselines of -c's suite, or of --baseline-dir; with neither, of every suite found
    below the current folder (``canary.yaml`` files, see :func:`find_suites`), grouped by suite."""
    if baseline_dir is not None or config is not None:
        places = [_Place(default_baseline_dir(baseline_dir, config), config)]
        suite = _suite_of(config, suite)
    else:
        places = find_places(Path.cwd())
    console = stdout_console()
    groups = [g for place in places for g in _groups(place, suite=suite, model=model)]
    for i, group in enumerate(groups):
        if i:
            console.print()
        console.print(group.heading(), soft_wrap=True, markup=False)
        console.print(_table(console, group.rows))
    if groups:
        return EXIT_OK
    where = ", ".join(str(p.folder) for p in places) or str(default_baseline_dir(None, None))
    console.print(f"No baselines in {where}.", soft_wrap=True, markup=False)
    configs = [p.config for p in places if p.config is not None] or [Path("canary.yaml")]
    for found in configs:
        console.print(
            f"Save one with: promptcanary run -c {found} -p MODEL --save-baseline",
            soft_wrap=True,
            markup=False,
        )
    return EXIT_OK


@dataclass(frozen=True)
class _Place:
    """A baselines folder, and the canary.yaml whose baselines it holds (None: not known)."""

    folder: Path
    config: Path | None


#: Folders never searched for suites: tools' and dependencies' trees, not the project's.
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", "site-packages", "venv"})
#: How deep below the current folder suites are looked for (``a/b/c/canary.yaml`` is 3).
SEARCH_DEPTH = 4


def find_places(root: Path) -> list[_Place]:
    """``baselines/`` of ``root`` and of every ``canary.yaml`` found below it (up to
    :data:`SEARCH_DEPTH` folders down, not in hidden folders like ``.git`` or ``.venv`` nor in
    :data:`SKIPPED_FOLDERS`), in path order, each folder once."""
    import os

    configs: list[Path] = []
    top = len(root.parts)
    for walked, subfolders, files in os.walk(root):
        here = Path(walked)
        if "canary.yaml" in files:
            configs.append(here / "canary.yaml")
        if len(here.parts) - top >= SEARCH_DEPTH - 1:
            subfolders.clear()
        subfolders[:] = sorted(
            d
            for d in subfolders
            if not d.startswith(".") and d not in SKIPPED_FOLDERS and d != "baselines"
        )
    places: dict[Path, _Place] = {}
    for config in sorted(configs, key=lambda c: (len(c.parts), c)):
        shown = config.relative_to(root)
        folder = default_baseline_dir(None, shown)
        places.setdefault(folder, _Place(folder, shown))
    bare = default_baseline_dir(None, None)
    if (root / bare).is_dir() and bare not in places:
        places[bare] = _Place(bare, None)
    return list(places.values())


def _groups(place: _Place, *, suite: str | None, model: str | None) -> list[_Group]:
    """The baselines of one folder, a group per suite (the one its canary.yaml names first)."""
    from promptcanary.storage.file import FileBaselineStore

    if not place.folder.is_dir():
        return []
    rows = FileBaselineStore(place.folder).list_baselines(suite_name=suite, model_id=model)
    by_suite: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_suite.setdefault(row["suite_name"], []).append(row)
    named = _suite_name(place.config)
    return [
        _Group(name, place.config if name == named else None, place.folder, group)
        for name, group in sorted(by_suite.items(), key=lambda item: (item[0] != named, item[0]))
    ]


@dataclass(frozen=True)
class _Group:
    """One suite's baselines in one folder."""

    suite: str
    config: Path | None
    folder: Path
    rows: list[dict[str, Any]]

    def heading(self) -> str:
        config = f" · {self.config}" if self.config is not None else ""
        return f"Suite {self.suite}{config} · baselines in {self.folder}"


def _suite_name(config: Path | None) -> str | None:
    """The name in ``config`` (None when there is none, or it cannot be read: the listing
    then shows the folder's suites without naming their file)."""
    if config is None:
        return None
    from promptcanary.core.config import load_header
    from promptcanary.errors import PromptCanaryError

    try:
        return load_header(config)[0]
    except PromptCanaryError:
        return None


def _table(console: Console, rows: list[dict[str, Any]]) -> Table:
    """One suite's baselines, newest first. In a CI log or a file (no terminal) no cell wraps
    and the console widens to the table, so an id or a model name is never split."""
    from rich import box
    from rich.table import Table

    log = not console.is_terminal
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for col in ("snapshot id", "model", "created (UTC)", "score", "samples", "note"):
        table.add_column(col, overflow="fold", no_wrap=log)
    for row in rows:
        table.add_row(
            row["snapshot_id"],
            row["model_id"],
            row["created_at"][:19].replace("T", " "),
            f"{row['overall_score']:.2f}",
            str(row["samples"]),
            row["note"],
        )
    if log:
        unbounded = console.options.update_width(1_000_000)
        console.width = max(console.width, table.__rich_measure__(console, unbounded).maximum)
    return table


def _find(
    snapshot: str, baseline_dir: Path | None, config: Path | None = None
) -> tuple[FileBaselineStore, BaselineSnapshot]:
    """The baseline ``snapshot`` names (a file, or an id or its start): in --baseline-dir or
    -c's folder, else in every folder `baselines list` shows from here."""
    from promptcanary.storage.file import FileBaselineStore

    as_path = Path(snapshot)
    if as_path.suffix == ".json" and as_path.exists():
        store = _store(baseline_dir, config)
        return store, store.load_from_path(as_path)
    if baseline_dir is not None or config is not None:
        stores = [_store(baseline_dir, config)]
    else:
        stores = [FileBaselineStore(p.folder) for p in find_places(Path.cwd())] or [_store(None)]
    matches = [
        (store, row["snapshot_id"])
        for store in stores
        if store.directory.is_dir()
        for row in store.list_baselines()
        if row["snapshot_id"].startswith(snapshot)
    ]
    if len(matches) > 1:
        from promptcanary.errors import ConfigError

        raise ConfigError(
            f"'{snapshot}' matches {len(matches)} baselines; give more of the id",
            field="SNAPSHOT",
        )
    if not matches:
        where = ", ".join(str(s.directory) for s in stores)
        raise BaselineNotFoundError(
            f"no baseline with id '{snapshot}' in {where}",
            hint="List them with `promptcanary baselines list`.",
        )
    store, found = matches[0]
    return store, store.load(found)


def show_command(
    *,
    snapshot: str,
    baseline_dir: Path | None,
    config: Path | None = None,
    answers: bool = False,
    full: bool = False,
) -> int:
    """One baseline's scores; with ``answers`` (or ``full``) its answers per prompt too."""
    from promptcanary.core.reporter import RunReporter

    _, snap = _find(snapshot, baseline_dir, config)
    console = stdout_console()
    console.print(
        f"Baseline {snap.snapshot_id} · suite {snap.suite_name} · model {snap.provider.model_id}"
        f" · saved {snap.created_at:%Y-%m-%d %H:%M:%S} UTC"
        + (f" · note: {snap.note}" if snap.note else ""),
        soft_wrap=True,
        markup=False,
    )
    # It is a baseline already: no "make this run the baseline" hint.
    RunReporter(snap.run_result, accept_hint="").print_terminal(console)
    if answers or full:
        from promptcanary.core.render.answers import render_answers

        console.print()
        render_answers(snap.run_result, console, full=full)
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
    stdout_console().print(f"Deleted baseline {snap.snapshot_id}.", soft_wrap=True, markup=False)
    return EXIT_OK


CHARTS = ("all", "scores", "probes", "drift")
#: Where `baselines history` looks for saved checks by default, next to the baselines folder.
CHECKS_FOLDER = "checks"


def history_command(
    *,
    baseline_dir: Path | None,
    suite: str | None,
    model: str | None,
    chart: str,
    config: Path | None = None,
    runs: list[Path] | None = None,
) -> int:
    """Text charts of the stored baselines, and of the checks saved with ``compare --save-run``
    found in ``runs`` (files or folders): scores, probe heatmap, drift over time."""
    from promptcanary.errors import ConfigError

    if chart not in CHARTS:
        raise ConfigError(f"must be one of {', '.join(CHARTS)} (got {chart!r})", field="--chart")
    from promptcanary.utils import visualization as viz

    store = _store(baseline_dir, config)
    suite = _suite_of(config, suite)
    snapshots = store.load_all(suite, model)
    if runs is None:
        # The convention: checks saved with `compare --save-run checks/NAME.json` sit in a
        # checks/ folder next to baselines/ (see docs/baselines.md, "History").
        default = store.directory.parent / CHECKS_FOLDER
        runs = [default] if default.is_dir() else []
    checks = saved_checks(runs, suite, model)
    out = stdout_console().file
    if not snapshots and not checks:
        out.write(f"No baselines in {store.directory}.\n")
        return EXIT_OK
    history: list[Any] = [*snapshots, *checks]
    if chart in ("all", "scores"):
        viz.plot_score_history(history, mode="text", file=out)
    if chart in ("all", "probes"):
        out.write("\n" if chart == "all" else "")
        viz.plot_probe_heatmap(history, mode="text", file=out)
    if chart in ("all", "drift"):
        out.write("\n" if chart == "all" else "")
        reports = successive_drift(snapshots) + checks_drift(snapshots, checks)
        if reports:
            viz.plot_drift_timeline(reports, mode="text", file=out)
        else:
            out.write(
                "Drift timeline: needs two baselines of the same suite and model, or a saved "
                "check and its baseline.\n"
            )
    return EXIT_OK


def saved_checks(paths: list[Path], suite: str | None, model: str | None) -> list[Any]:
    """The runs in ``paths`` (files, or the ``*.json`` of folders) of this suite and model.

    A folder may hold other JSON (reports, baselines): what is not a run is skipped. A file named
    on its own must be a run (a clear error otherwise).
    """
    from promptcanary.errors import InputError
    from promptcanary.storage.runs import load_run

    found = []
    for path in paths:
        if path.is_dir():
            for candidate in sorted(path.glob("*.json")):
                try:
                    found.append(load_run(candidate))
                except InputError:
                    continue
        else:
            found.append(load_run(path))
    return [
        r
        for r in found
        if (suite is None or r.suite_name == suite)
        and (model is None or r.provider.model_id == model)
        and r.shard is None
    ]


def checks_drift(snapshots: list[BaselineSnapshot], checks: list[Any]) -> list[Any]:
    """Each saved check compared with its baseline, dated when the check finished: the one its
    adaptive record names when it is stored, else the newest of its suite and model saved
    before the check started."""
    from promptcanary.core.comparator import compare

    by_id = {s.snapshot_id: s for s in snapshots}
    reports = []
    for run in checks:
        named = run.adaptive.baseline_snapshot_id if run.adaptive is not None else None
        baseline = by_id.get(named or "")
        if baseline is None:
            earlier = [
                s
                for s in snapshots
                if s.suite_name == run.suite_name
                and s.provider.model_id == run.provider.model_id
                and s.created_at <= run.started_at
            ]
            baseline = max(earlier, key=lambda s: s.created_at, default=None)
        if baseline is None:
            continue
        report = compare(baseline, run)
        reports.append(report.model_copy(update={"created_at": run.finished_at or run.started_at}))
    return reports


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
