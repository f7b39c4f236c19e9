"""FileBaselineStore: baselines as JSON files in a directory, meant to be committed with the suite.

Files are named as :mod:`.names` says (suite, model, creation time, snapshot id prefix). Writes
are atomic (temporary file + rename): a crash never leaves half a baseline behind.

Beside the JSON (the stored form of :mod:`.compact`: every answer, nothing repeated), each save
rewrites ``{suite_slug}__{model_slug}.summary.md``, the newest baseline's summary per prompt
(:mod:`promptcanary.core.render.baseline_summary`): its diff is what a reviewer reads when a
baseline is promoted. The first save into a folder also writes a ``.gitattributes`` there that
marks the JSON files ``linguist-generated``, so GitHub collapses them in pull request diffs.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from promptcanary.core.models.scores import mean_score
from promptcanary.errors import (
    BaselineNotFoundError,
    CorruptBaselineError,
    StorageError,
    validation_message,
)
from promptcanary.storage import compact
from promptcanary.storage.names import (
    NAME_RE,
    filename_for,
    is_baseline_name,
    slug as slug,  # this module's name for it since 0.2
    summary_name,
    timestamp_of,
)

if TYPE_CHECKING:
    # Imported where a snapshot is built or checked: listing baselines reads no model.
    from promptcanary.core.models import BaselineSnapshot, CanaryRunResult

logger = logging.getLogger(__name__)

#: Written into a baseline folder on its first save (an existing file is never touched).
GITATTRIBUTES = """\
# Written by PromptCanary. Baseline JSON files are machine-written: GitHub collapses them in
# pull request diffs. Review the *.summary.md files instead: they say what changed.
*.json linguist-generated
"""


@dataclass(frozen=True)
class SavedBaseline:
    """What :meth:`FileBaselineStore.write` saved."""

    snapshot: BaselineSnapshot
    """The snapshot, as it will load."""
    path: Path
    """Its JSON file."""
    summary: Path
    """The summary of the newest baseline of its suite and model (rewritten by this save)."""
    files: tuple[Path, ...]
    """Every file this save wrote, to print or commit: the JSON, the summary, and the folder's
    ``.gitattributes`` when this save created it."""


class FileBaselineStore:
    """Stores and retrieves :class:`BaselineSnapshot` objects as JSON files.

    Args:
        directory: Directory where baseline JSON files are stored. Created when the first baseline
            is saved (reading a missing directory just finds nothing).

    Example::

        store = FileBaselineStore("baselines/")
        snapshot = store.save(run_result)
        loaded = store.load(snapshot.snapshot_id)
        latest = store.load_latest("my-suite", "openai/gpt-4o")
    """

    def __init__(self, directory: str | Path = "baselines") -> None:
        self.directory = Path(directory)
        if self.directory.exists() and not self.directory.is_dir():
            raise StorageError(f"{self.directory}: exists and is not a directory")

    def __repr__(self) -> str:
        return f"FileBaselineStore({str(self.directory)!r})"

    # ── Writing ──

    def save(
        self,
        run_result: CanaryRunResult,
        *,
        note: str = "",
        snapshot_id: str | None = None,
    ) -> BaselineSnapshot:
        """Save a :class:`CanaryRunResult` as a baseline snapshot.

        Args:
            run_result:  The run to persist.
            note:        Optional human note (stored in the JSON).
            snapshot_id: Override the auto-generated ID (useful for testing).

        Returns:
            The saved :class:`BaselineSnapshot`. :meth:`write` does the same and also says
            which files it wrote.
        """
        return self.write(run_result, note=note, snapshot_id=snapshot_id).snapshot

    def write(
        self,
        run_result: CanaryRunResult,
        *,
        note: str = "",
        snapshot_id: str | None = None,
    ) -> SavedBaseline:
        """Save ``run_result`` as a baseline; return the snapshot and every file written.

        Writes the baseline's JSON, rewrites the summary of the newest baseline of its suite and
        model, and creates the folder's ``.gitattributes`` when it has none. Commit every file in
        :attr:`SavedBaseline.files`.
        """
        from promptcanary.core.models import BaselineSnapshot

        fields: dict[str, Any] = {
            "suite_name": run_result.suite_name,
            "provider": run_result.provider,
            "run_result": run_result,
            "note": note,
        }
        if snapshot_id:
            fields["snapshot_id"] = snapshot_id
        snapshot = BaselineSnapshot(**fields)
        snapshot = self._ensure_after_latest(snapshot)
        previous = self._previous_summary(snapshot)
        path = self.path_of(snapshot)
        self.write_atomic(path, compact.dump_snapshot(snapshot))
        # What loads back: the stored form keeps no raw provider replies.
        snapshot = _without_raw_replies(snapshot)
        summary = self._write_summary(snapshot, path, previous)
        files = [path, summary]
        attributes = self.directory / ".gitattributes"
        if not attributes.exists():
            self.write_atomic(attributes, GITATTRIBUTES)
            files.append(attributes)
        return SavedBaseline(snapshot, path, summary, tuple(files))

    def _previous_summary(
        self, snapshot: BaselineSnapshot
    ) -> tuple[BaselineSnapshot, str, str] | None:
        """(newest baseline of the pair so far, its file name, the summary's text), if any."""
        summary = self.directory / summary_name(snapshot.suite_name, snapshot.provider.model_id)
        if not summary.is_file():
            return None
        try:
            earlier = self.load_latest(snapshot.suite_name, snapshot.provider.model_id)
            text = summary.read_text(encoding="utf-8")
        except (StorageError, OSError, UnicodeDecodeError):
            return None  # a broken earlier file: the summary is written afresh
        return earlier, filename_for(earlier), text

    def _write_summary(
        self,
        snapshot: BaselineSnapshot,
        path: Path,
        previous: tuple[BaselineSnapshot, str, str] | None = None,
    ) -> Path:
        from promptcanary.storage.summary import summary_text

        summary = self.directory / summary_name(snapshot.suite_name, snapshot.provider.model_id)
        text = summary_text(snapshot, file_name=path.name, previous=previous)
        self.write_atomic(summary, text)
        return summary

    def path_of(self, snapshot: BaselineSnapshot) -> Path:
        """The file :meth:`save` writes ``snapshot`` to in this store."""
        return self.directory / filename_for(snapshot)

    def _ensure_after_latest(self, snapshot: BaselineSnapshot) -> BaselineSnapshot:
        # Clocks can be coarse or step back: keep "newest file = newest baseline" true by never
        # giving a new snapshot a timestamp at or before the newest existing one of its pair.
        existing = self._files(snapshot.suite_name, snapshot.provider.model_id)
        if not existing:
            return snapshot
        newest = max(timestamp_of(f) for f in existing)
        if snapshot.created_at <= newest:
            from datetime import timedelta

            return snapshot.model_copy(update={"created_at": newest + timedelta(microseconds=1)})
        return snapshot

    def write_atomic(self, path: Path, text: str) -> None:
        """Write ``text`` to ``path`` via a temporary file and an atomic rename."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=path.suffix, dir=path.parent)
            try:
                # mkstemp makes the file private (0600); a baseline is meant to be committed and
                # read by other tools, so it gets the mode any new file would (0644 by default).
                os.fchmod(fd, 0o666 & ~_umask())
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    fh.write(text)
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            # A measured run is never lost: keep it where it can be found and say where.
            from promptcanary.files import save_elsewhere

            kept = save_elsewhere(path, text)
            where = f"; saved it to {kept} instead" if kept else "; nothing was saved"
            raise StorageError(
                f"{path}: cannot write baseline ({exc.strerror or exc}){where}",
                hint=f"Make the baseline folder writable, then move the file to {path}."
                if kept
                else "Check that the baseline directory is writable.",
            ) from exc

    def delete(self, snapshot_id: str) -> bool:
        """Delete the baseline with exactly this snapshot ID. Returns True if one was deleted.

        The summary of its suite and model then describes the newest remaining baseline (it is
        removed with the last one).
        """
        try:
            path = self._path_for_id(snapshot_id)
        except BaselineNotFoundError:
            return False
        snapshot = self._load_file(path)
        path.unlink(missing_ok=True)
        self.refresh_summary(snapshot.suite_name, snapshot.provider.model_id)
        return True

    def refresh_summary(self, suite_name: str, model_id: str) -> Path | None:
        """Rewrite the summary of (suite, model) from its newest baseline, or remove it when
        none is left. Returns the summary's path, None when removed."""
        summary = self.directory / summary_name(suite_name, model_id)
        try:
            newest = self.load_latest(suite_name, model_id)
        except BaselineNotFoundError:
            summary.unlink(missing_ok=True)
            return None
        return self._write_summary(newest, self._path_for_id(newest.snapshot_id))

    # ── Reading ──

    def load(self, snapshot_id: str) -> BaselineSnapshot:
        """Load a snapshot by its full ID.

        Raises:
            BaselineNotFoundError: (a ``FileNotFoundError``) if no snapshot has that ID.
            CorruptBaselineError: if the file is not a valid snapshot.
        """
        return self._load_file(self._path_for_id(snapshot_id))

    def load_from_path(self, path: str | Path) -> BaselineSnapshot:
        """Load a snapshot directly from a JSON file path."""
        return self._load_file(Path(path))

    def load_latest(self, suite_name: str, model_id: str | None = None) -> BaselineSnapshot:
        """Load the most recently saved baseline for a given suite (and model, if given).

        Raises:
            BaselineNotFoundError: (a ``FileNotFoundError``) if no matching baseline exists.
        """
        candidates = self._files(suite_name, model_id)
        if not candidates:
            detail, hint = self._near_misses(suite_name, model_id)
            raise BaselineNotFoundError(
                f"No baseline found for suite={suite_name!r}"
                + (f", model={model_id!r}" if model_id else "")
                + f" in {self.directory}"
                + detail,
                hint=hint or "Save one with `promptcanary run --save-baseline` and commit it.",
            )
        # File names hold slugs ("a b" and "a-b" share one) and files can be renamed or copied:
        # the newest file whose *content* is this suite wins; the others are not its baselines.
        others: list[str] = []
        for path in sorted(candidates, key=timestamp_of, reverse=True):
            snapshot = self._load_file(path)
            if snapshot.suite_name == suite_name:
                return snapshot
            others.append(f"{path.name} holds suite '{snapshot.suite_name}'")
        raise BaselineNotFoundError(
            f"No baseline found for suite={suite_name!r}"
            + (f", model={model_id!r}" if model_id else "")
            + f" in {self.directory}: "
            + "; ".join(others[:3]),
            hint="Save one with `promptcanary run --save-baseline`; rename suites whose "
            "names differ only in punctuation.",
        )

    def list_baselines(
        self,
        suite_name: str | None = None,
        model_id: str | None = None,
    ) -> list[dict[str, Any]]:
        """List stored baselines, newest first, with lightweight metadata.

        Returns dicts with keys: path, snapshot_id, suite_name, model_id, created_at, note,
        overall_score, samples. A corrupt file is skipped with a warning.
        """
        rows: list[dict[str, Any]] = []
        for path in sorted(self._files(suite_name, model_id), key=timestamp_of, reverse=True):
            try:
                rows.append(_read_meta(path))
            except CorruptBaselineError as exc:
                logger.warning("skipping %s", exc)
        return rows

    def load_all(
        self, suite_name: str | None = None, model_id: str | None = None
    ) -> list[BaselineSnapshot]:
        """Every valid snapshot matching the filters, oldest first (corrupt files skipped)."""
        out: list[BaselineSnapshot] = []
        for path in sorted(self._files(suite_name, model_id), key=timestamp_of):
            try:
                out.append(self._load_file(path))
            except CorruptBaselineError as exc:
                logger.warning("skipping %s", exc)
        return out

    # ── Internals ──

    def _near_misses(self, suite_name: str, model_id: str | None) -> tuple[str, str | None]:
        """What the folder holds instead, when nothing matches: the models this suite has
        baselines for (``-p gpt-4o-mini`` against files of ``openai/gpt-4o-mini``), else the
        files of other suites (a renamed suite, a file copied from another project). Read only
        on this error path: it opens the files to read their suite and model."""
        if model_id is not None:
            rows = self.list_baselines(suite_name)
            models = sorted(
                {r["model_id"] for r in rows if r["suite_name"] == suite_name} - {model_id}
            )
            if models:
                shown = ", ".join(models[:5]) + (" …" if len(models) > 5 else "")
                return (
                    f"; this suite has baselines for: {shown}",
                    f"Model strings must match exactly: pass -p {models[0]} to compare with "
                    f"those, or save a baseline for {model_id} with `promptcanary run -p "
                    f"{model_id} --save-baseline`.",
                )
        others = [r for r in self.list_baselines(None, model_id) if r["suite_name"] != suite_name]
        if not others:
            return "", None
        shown = "; ".join(
            f"{Path(r['path']).name} is a baseline of suite {r['suite_name']!r}" for r in others[:3]
        )
        return (
            f": {shown}" + (f" (and {len(others) - 3} more)" if len(others) > 3 else ""),
            "A baseline belongs to the suite named in canary.yaml (`name:`). If the suite was "
            "renamed, save a new baseline with `promptcanary run --save-baseline`; files of "
            "another suite belong in that suite's own folder.",
        )

    def _files(self, suite_name: str | None = None, model_id: str | None = None) -> list[Path]:
        """Baseline files whose *name* matches the filters (contents are never scanned)."""
        if not self.directory.is_dir():
            return []
        return [
            path
            for path in self.directory.glob("*.json")
            if is_baseline_name(path.name, suite_name, model_id)
        ]

    def _path_for_id(self, snapshot_id: str) -> Path:
        # The file name holds the id's first 8 characters; the match is then confirmed on the full
        # id stored in the file, so a prefix never selects the wrong snapshot.
        prefix = snapshot_id[:8]
        for path in self._files():
            m = NAME_RE.match(path.name)
            if m and m["id"] == prefix and len(snapshot_id) >= 8:
                try:
                    if self._load_file(path).snapshot_id == snapshot_id:
                        return path
                except CorruptBaselineError:
                    continue
        raise BaselineNotFoundError(
            f"No baseline with snapshot id '{snapshot_id}' in {self.directory}",
            hint="List them with `promptcanary baselines list`.",
        )

    def _load_file(self, path: Path) -> BaselineSnapshot:
        # Here, not at the top: listing baselines reads a few fields and never needs pydantic.
        from pydantic import ValidationError

        from promptcanary.core.models import SCHEMA_VERSION
        from promptcanary.files import read_bytes

        if not path.exists():
            raise BaselineNotFoundError(f"{path}: baseline file not found")
        raw = read_bytes(path, what="baseline file", error=CorruptBaselineError)
        try:
            snapshot = compact.parse_snapshot(raw)
        except (ValidationError, compact.StoredFormError, ValueError, RecursionError):
            # Slow path, only to say precisely what is wrong.
            raise _explain_invalid(path, raw) from None
        if snapshot.schema_version > SCHEMA_VERSION:
            raise _newer_schema(path, snapshot.schema_version)
        return snapshot


def _newer_schema(path: Path, version: object) -> CorruptBaselineError:
    return CorruptBaselineError(
        f"{path}: schema_version {version!r} is newer than this PromptCanary supports "
        f"({compact.FILE_VERSION})",
        hint="Upgrade PromptCanary: `pip install -U promptcanary-drift`.",
    )


def _explain_invalid(path: Path, raw: bytes) -> CorruptBaselineError:
    from pydantic import ValidationError

    hint = "Restore the file from git, or delete it and save a new baseline."
    try:
        data = json.loads(raw)
    except ValueError as exc:
        return CorruptBaselineError(f"{path}: not valid JSON ({exc})", hint=hint)
    except RecursionError:
        return CorruptBaselineError(f"{path}: not valid JSON (nested too deeply)", hint=hint)
    if not isinstance(data, dict):
        return CorruptBaselineError(f"{path}: not a PromptCanary baseline (expected an object)")
    version = data.get("schema_version", 1)
    if not isinstance(version, (int, str)) or (
        isinstance(version, int) and version > compact.FILE_VERSION
    ):
        return _newer_schema(path, version)
    try:
        compact.snapshot_from_dict(data)
    except compact.StoredFormError as exc:
        return CorruptBaselineError(f"{path}: not a valid baseline: {exc}", hint=hint)
    except ValidationError as exc:
        return CorruptBaselineError(
            f"{path}: not a valid baseline: {validation_message(exc)}", hint=hint
        )
    return CorruptBaselineError(f"{path}: not a valid baseline", hint=hint)


def _read_meta(path: Path) -> dict[str, Any]:
    """Listing metadata from a baseline file without building the pydantic models."""
    from promptcanary.files import read_bytes

    raw = read_bytes(path, what="baseline file", error=CorruptBaselineError)
    try:
        data = json.loads(raw)
        run = data["run_result"]
        if data.get("schema_version") == compact.FILE_VERSION:
            run = compact.unpack_run(run, suite_name=None, provider=None)
        results = run.get("probe_results", [])
        score = mean_score(float(r["score"]) for r in results if not r.get("errored"))
        return {
            "path": str(path),
            "snapshot_id": str(data["snapshot_id"]),
            "suite_name": str(data["suite_name"]),
            "model_id": str(data["provider"]["model_id"]),
            "created_at": str(data["created_at"]),
            "note": str(data.get("note") or data.get("_note") or ""),
            "overall_score": score,
            "samples": int(run.get("samples", 1)),
        }
    except (ValueError, KeyError, TypeError, AttributeError, OverflowError, RecursionError) as exc:
        # (compact.StoredFormError is a ValueError)
        raise CorruptBaselineError(
            f"{path}: not a valid baseline ({type(exc).__name__}: {exc})"
        ) from exc


def _umask() -> int:
    """The process's umask (reading it means setting it; it is set straight back)."""
    current = os.umask(0o022)
    os.umask(current)
    return current


def _without_raw_replies(snapshot: BaselineSnapshot) -> BaselineSnapshot:
    run = snapshot.run_result
    if not any(r.raw_response for r in run.llm_responses):
        return snapshot
    responses = [
        r.model_copy(update={"raw_response": {}}) if r.raw_response else r
        for r in run.llm_responses
    ]
    return snapshot.model_copy(
        update={"run_result": run.model_copy(update={"llm_responses": responses})}
    )
