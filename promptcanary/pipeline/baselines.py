"""Which baseline a check compares with, which saved run it compares, and saving a new one.

Each is decided here once: :func:`find_baseline` before the first request of a check (a
comparison with nothing to compare against is refused, or reported, before a model is paid for),
:func:`save_baseline` for the CLI's ``run --save-baseline`` and the Action's promotion alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from promptcanary.errors import (
    BaselineNotFoundError,
    ConfigError,
    CorruptBaselineError,
    InputError,
    SuiteMismatchError,
)

if TYPE_CHECKING:
    from promptcanary.core.models import BaselineSnapshot, CanaryRunResult
    from promptcanary.storage.file import (
        FileBaselineStore,
        SavedBaseline as SavedBaseline,  # what a save returns
    )


def open_store(directory: Path) -> FileBaselineStore:
    """The baseline store in ``directory`` (nothing is read until asked)."""
    from promptcanary.storage.file import FileBaselineStore

    return FileBaselineStore(directory)


def find_baseline(
    store: FileBaselineStore,
    suite_name: str,
    model: str,
    path: Path | None = None,
    *,
    required: bool = True,
) -> BaselineSnapshot | None:
    """The baseline file at ``path``, else the newest in ``store`` for (suite, model); None
    when there is none and it is not ``required`` (the Action then reports the run alone).

    Raises:
        BaselineNotFoundError: nothing in the store and ``required`` (exit 3; the message says
            what is there).
        SuiteMismatchError: ``path`` is a baseline of another suite (before any request).
        InputError: ``path`` is a saved run, not a baseline (the hint says how to use it).
        CorruptBaselineError: ``path`` is neither.
    """
    if path is None:
        return (
            store.load_latest(suite_name, model)
            if required
            else latest_baseline(store, suite_name, model)
        )
    try:
        snapshot = store.load_from_path(path)
    except CorruptBaselineError:
        _refuse_a_run_as_baseline(path)
        raise
    if snapshot.suite_name != suite_name:  # refused before any request is paid for
        raise SuiteMismatchError(
            f"{path} is a baseline of suite '{snapshot.suite_name}', not '{suite_name}'",
            hint="Pass a baseline of this suite with --baseline (see `promptcanary baselines "
            "list`), or leave --baseline out to use the newest one.",
        )
    return snapshot


def latest_baseline(
    store: FileBaselineStore, suite_name: str, model: str | None
) -> BaselineSnapshot | None:
    """The newest baseline for (suite, model; any model with None), or None when there is none
    yet."""
    try:
        return store.load_latest(suite_name, model)
    except BaselineNotFoundError:
        return None


def save_baseline(store: FileBaselineStore, run: CanaryRunResult, *, note: str) -> SavedBaseline:
    """Save ``run`` as the newest baseline of its suite and model: the snapshot, its file, and
    every file the save wrote (:attr:`SavedBaseline.files`: the JSON, the summary, a new
    ``.gitattributes``), for the front-end to name.

    Raises:
        StorageError: a file could not be written (its text is kept elsewhere, and the
            message says where).
    """
    return store.write(run, note=note)


def load_current(path: Path, suite_name: str | None = None) -> CanaryRunResult:
    """A saved run to compare (``--current``), checked to be a run of ``suite_name`` if given.

    Raises:
        InputError: not a run, or one part of a sharded run.
        ConfigError: a run of another suite (naming both).
    """
    from promptcanary.pipeline.provider import load_run

    current = load_run(path)
    if suite_name is not None and suite_name != current.suite_name:
        raise ConfigError(
            f"{path} is a run of suite '{current.suite_name}', not '{suite_name}'",
            field="--current",
        )
    return current


def history(store: FileBaselineStore, run: CanaryRunResult) -> list[BaselineSnapshot]:
    """Every stored baseline of the run's suite and model, oldest first (the trend chart)."""
    return store.load_all(run.suite_name, run.provider.model_id)


def _refuse_a_run_as_baseline(path: Path) -> None:
    """A saved run passed as --baseline: say so, rather than calling the file corrupt."""
    import json

    from promptcanary.pipeline.provider import load_run

    try:
        data = json.loads(path.read_bytes())
        if not isinstance(data, dict) or "run_result" in data:
            return  # a baseline (of a newer schema, or broken): the baseline error stands
        load_run(path)
    except (InputError, OSError, ValueError, RecursionError):
        return  # not a run either: the corrupt-baseline error stands
    raise InputError(
        f"{path} is a saved run, not a baseline",
        hint=f"Compare it with --current {path}, or make it a baseline: "
        f"promptcanary run -c canary.yaml --replay {path} --save-baseline.",
    )
