"""What a run of the Action ends with: the gate decision, its outputs and its report files."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from promptcanary.action.settings import GitHubContext
from promptcanary.errors import EXIT_OK

if TYPE_CHECKING:
    from promptcanary.core.models import CanaryRunResult, DriftReport

#: Every output action.yml declares, in its order.
OUTPUT_NAMES = (
    "result",
    "severity",
    "has-drift",
    "overall-score",
    "baseline-score",
    "score-delta",
    "regressions",
    "improvements",
    "report-path",
    "json-path",
    "comment-url",
    "comment-id",
    "baseline-path",
)


@dataclass
class Outcome:
    """The result of one run, turned into step outputs and an exit code."""

    result: str
    """passed | failed | suite-changed | inconclusive | no-baseline | baseline-removed |
    promoted | promotion-failed | branch-moved | skipped"""
    exit_code: int = EXIT_OK
    report: DriftReport | None = None
    run: CanaryRunResult | None = None
    report_path: str = ""
    json_path: str = ""
    comment_url: str = ""
    comment_id: str = ""
    """Id of the sticky pull-request comment (empty for the watch issue or no comment)."""
    baseline_path: str = ""

    def outputs(self) -> dict[str, str]:
        """The step outputs, every declared name present (empty when it does not apply)."""
        r, run = self.report, self.run
        # A report that compared nothing has no pair to average (its scores read 1.0 by
        # convention): the run's own score, as with no baseline, and no baseline score or delta.
        compared = r if r is not None and not r.nothing_compared else None
        score = compared.overall_current_score if compared else (run.overall_score if run else None)
        values = {
            "result": self.result,
            "severity": r.severity.value if r else "",
            "has-drift": "true" if r is not None and r.has_drift else "false",
            "overall-score": f"{score:.4f}" if score is not None else "",
            "baseline-score": f"{compared.overall_baseline_score:.4f}" if compared else "",
            "score-delta": f"{compared.overall_score_delta:+.4f}" if compared else "",
            "regressions": str(len(r.regressions)) if r else "0",
            "improvements": str(len(r.improvements)) if r else "0",
            "report-path": self.report_path,
            "json-path": self.json_path,
            "comment-url": self.comment_url,
            "comment-id": self.comment_id,
            "baseline-path": self.baseline_path,
        }
        return {name: values[name] for name in OUTPUT_NAMES}


#: Where the runner mounts its temp folder and the job's home folder into a Docker action.
RUNNER_MOUNTS = (Path("/github/runner_temp"), Path("/github/home"))
#: The report folder in the workspace, when no temp folder is shared with later steps.
WORKSPACE_REPORTS = ".promptcanary"


def in_container() -> bool:
    """True inside a Docker or Podman container (their marker files)."""
    return Path("/.dockerenv").exists() or Path("/run/.containerenv").exists()


def on_a_mount(path: Path, mountinfo: str | None = None) -> bool:
    """True when ``path`` lies on a mount of its own, not on the container's root file system:
    only a mounted folder outlives the container, where later steps can read it."""
    if mountinfo is None:
        try:
            mountinfo = Path("/proc/self/mountinfo").read_text(encoding="utf-8")
        except OSError:
            return True  # cannot tell: trust the runner
    target = path.resolve().as_posix()
    best = ""
    for line in mountinfo.splitlines():
        fields = line.split()
        if len(fields) < 5:
            continue
        point = fields[4].replace("\\040", " ")
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and len(point) > len(best):
            best = point
    return best not in ("", "/")


def _shared_folders(workspace: Path) -> Callable[[Path], bool]:
    if in_container() and on_a_mount(workspace):
        return on_a_mount
    return lambda path: True


def reports_dir(
    context: GitHubContext,
    *,
    warn: Callable[[str], None] | None = None,
    mounts: Sequence[Path] = RUNNER_MOUNTS,
    shared: Callable[[Path], bool] | None = None,
) -> Path:
    """Where report files go: ``$RUNNER_TEMP/promptcanary``.

    In a Docker action ``RUNNER_TEMP`` is a host path; runners from 2.329 mount it at
    ``/github/runner_temp`` (always from 2.331). Older runners do not, so the fallback is
    ``/github/home`` (the host's ``$RUNNER_TEMP/_github_home``, which later steps can read),
    with a warning. A runner emulator (nektos/act) sets ``RUNNER_TEMP=/tmp`` in the container
    without mounting anything there: the files would be lost with the container, so they go to
    ``.promptcanary/`` in the workspace (always mounted), with a warning saying where. The
    container's own temp folder is used only outside a runner (local runs).

    ``shared`` tells whether a folder outlives the container. By default it is decided only in
    a container whose workspace is a mount (a Docker action's is): there, a folder on the
    container's own root file system is not shared; anywhere else every folder counts as shared.
    """
    if shared is None:
        shared = _shared_folders(context.workspace)
    runner_temp, home = mounts[0], mounts[1]
    temp = context.runner_temp
    if temp is not None and temp.is_dir() and shared(temp):
        return temp / "promptcanary"
    if runner_temp.is_dir():
        return runner_temp / "promptcanary"
    if home.is_dir() and shared(home):
        if warn is not None:
            warn(
                f"RUNNER_TEMP ({context.runner_temp}) is not mounted in this container (runners "
                f"older than 2.329 do not mount it), so the report files are in {home}/"
                "promptcanary; later steps find them under ${{ runner.temp }}/_github_home/"
                "promptcanary. Update the runner to get them in ${{ runner.temp }}/promptcanary."
            )
        return home / "promptcanary"
    workspace = context.workspace
    if context.runner_temp is not None and workspace.is_dir() and shared(workspace):
        folder = workspace / WORKSPACE_REPORTS
        if warn is not None:
            warn(
                f"RUNNER_TEMP ({context.runner_temp}) is not shared with later steps here (a "
                f"runner emulator such as nektos/act mounts no temp folder), so the report files "
                f"are in {folder} (the `report-path` output names the file)."
            )
        return folder
    return Path(tempfile.gettempdir()) / "promptcanary"


class ReportFiles:
    """Writes the report files of one (suite, model) under :func:`reports_dir`."""

    def __init__(
        self, directory: Path, suite_name: str, model_id: str, *, owner_of: Path | None = None
    ) -> None:
        from promptcanary.storage.names import slug

        self.directory = directory
        self.stem = f"{slug(suite_name)}__{slug(model_id)}"
        self.owner_of = owner_of
        """Files and the report folder are handed to this folder's owner (the workspace)."""

    def write(self, suffix: str, text: str) -> str:
        """Write ``<stem><suffix>`` (readable by the runner's later steps) and return its path."""
        from promptcanary.action.workflow import hand_over

        self.directory.mkdir(parents=True, exist_ok=True)
        if self.directory.name == WORKSPACE_REPORTS:
            # Report files in the workspace must never be committed by a later `git add -A`.
            ignore = self.directory / ".gitignore"
            if not ignore.exists():
                ignore.write_text("*\n", encoding="utf-8")
                if self.owner_of is not None:  # a root-owned file would block the cleanup
                    hand_over(ignore, self.owner_of, folders_up_to=self.directory)
        path = self.directory / f"{self.stem}{suffix}"
        path.write_text(text, encoding="utf-8")
        if self.owner_of is not None:
            hand_over(path, self.owner_of, folders_up_to=self.directory)
        return str(path)
