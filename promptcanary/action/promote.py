"""Promotion: commit the baseline the pipeline saved through the Git Data API.

The commit goes through GitHub's API, so no git credentials, no checkout state and no git in the
image are involved: the token's ``contents: write`` is all it takes. It is a compare-and-swap:
the commit's parent is the commit that was measured and the branch only moves if it still points
there, so a baseline never lands on code it did not measure. One commit carries every file the
store wrote — the baseline's JSON, its summary (what a reviewer reads) and, on the folder's first
save, its ``.gitattributes`` — byte for byte (each made readable by the runner's user, see
:func:`promptcanary.action.workflow.hand_over`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from promptcanary.action.workflow import is_inside
from promptcanary.errors import ConfigError, GitHubError
from promptcanary.storage.file import FileBaselineStore

if TYPE_CHECKING:
    from promptcanary.action.github import CommitResult, GitHubClient
    from promptcanary.core.models import BaselineSnapshot, CanaryRunResult
    from promptcanary.storage.file import SavedBaseline


@dataclass(frozen=True)
class Promotion:
    """What a promotion did."""

    snapshot: BaselineSnapshot
    local_path: Path
    """The baseline's JSON in the workspace."""
    repo_path: str
    """The same file in the repository (the ``baseline-path`` output)."""
    commit: CommitResult | None
    error: GitHubError | None
    repo_paths: tuple[str, ...] = ()
    """Every file of the promotion in the repository: the JSON, the summary, and the folder's
    ``.gitattributes`` when this save created it."""


def repo_root(start: Path, workspace: Path) -> Path:
    """The repository checkout holding ``start``: the nearest folder with ``.git`` up to the
    workspace, else the workspace (actions/checkout puts the repository there by default)."""
    for folder in [start, *start.parents]:
        if (folder / ".git").exists():
            return folder
        if folder == workspace:
            break
    return workspace


def repo_path_for(path: Path, workspace: Path) -> str:
    """``path`` relative to its repository root, with ``/`` separators.

    Raises:
        ConfigError: the baseline directory is outside the checked-out repository.
    """
    root = repo_root(path.parent, workspace)
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        raise ConfigError(
            f"the baseline directory {path.parent} is outside the repository checkout "
            f"({root}), so a promoted baseline cannot be committed",
            field="with.baseline-dir",
            hint="Point `baseline-dir` at a folder inside the checked-out repository.",
        ) from None


def check_in_workspace(folder: Path, workspace: Path) -> None:
    """Refuse a baseline folder that leads outside the workspace, before anything is written.

    The checked-out repository decides what ``baselines`` is: a pull request can commit it as a
    symlink to any folder of the runner, and the Action writes (as root, in its container)
    wherever it points. Every component from the workspace down to ``folder`` must stay inside.

    Raises:
        ConfigError: naming the component that leaves the workspace and where it points (exit 2).
    """
    root = workspace.resolve()
    hint = (
        "Make the baseline folder a real folder inside the repository (not a symlink out of "
        "it), or point `baseline-dir` at one."
    )
    try:
        parts = folder.relative_to(workspace).parts
    except ValueError:
        parts = None
    if parts is not None:
        current = workspace
        for part in parts:
            current = current / part
            if current.is_symlink() and not is_inside(current, workspace):
                raise ConfigError(
                    f"the baseline folder {folder} leads outside the workspace ({root}): "
                    f"{current.relative_to(workspace).as_posix()} is a symlink to "
                    f"{current.resolve()}, so the promoted baseline was not written",
                    field="with.baseline-dir",
                    hint=hint,
                )
    if not is_inside(folder, workspace):
        raise ConfigError(
            f"the baseline folder {folder} is outside the workspace ({root}), so the promoted "
            "baseline was not written",
            field="with.baseline-dir",
            hint=hint,
        )


class WorkspaceStore(FileBaselineStore):
    """The baseline store of the checked-out workspace: a save never writes through a symlink
    out of it (see :func:`check_in_workspace`), however the folder changed while the suite ran
    (a custom probe is the repository's code)."""

    def __init__(self, directory: Path, workspace: Path) -> None:
        super().__init__(directory)
        self.workspace = workspace

    def write(
        self, run_result: CanaryRunResult, *, note: str = "", snapshot_id: str | None = None
    ) -> SavedBaseline:
        # write() is the one way in: save() goes through it, and so does the pipeline.
        check_in_workspace(self.directory, self.workspace)
        return super().write(run_result, note=note, snapshot_id=snapshot_id)


def commit_baseline(
    saved: SavedBaseline,
    run: CanaryRunResult,
    *,
    workspace: Path,
    branch: str,
    parent: str | None,
    github: GitHubClient | None,
) -> Promotion:
    """Commit every file the pipeline saved (:attr:`SavedBaseline.files`) to ``branch`` in one
    commit on top of ``parent`` (the measured commit).

    A GitHub refusal is returned in :attr:`Promotion.error` (the files stay in the workspace);
    it never raises :class:`GitHubError`.

    Raises:
        ConfigError: the baseline folder is outside the repository checkout.
    """
    from promptcanary.action.guards import promotion_message
    from promptcanary.action.permissions import CONTENTS, with_permission
    from promptcanary.action.workflow import hand_over

    snapshot, local = saved.snapshot, saved.path
    for path in saved.files:
        hand_over(path, workspace, folders_up_to=workspace)
    repo_paths = {path: repo_path_for(path, workspace) for path in saved.files}
    repo_path = repo_paths[local]

    def refused(error: GitHubError) -> Promotion:
        return Promotion(snapshot, local, repo_path, None, error, tuple(repo_paths.values()))

    if github is None:
        return refused(GitHubError("no GitHub token: the baseline was not committed"))
    if not parent:
        return refused(
            GitHubError(
                "the measured commit is unknown (no pull request head SHA and no GITHUB_SHA): "
                "the baseline was not committed"
            )
        )
    from promptcanary.errors import StorageError
    from promptcanary.files import read_bytes

    contents = {
        repo_paths[path]: read_bytes(path, what="baseline file", error=StorageError)
        for path in saved.files
    }
    try:
        commit = github.commit_files(
            contents,
            branch=branch,
            parent=parent,
            message=promotion_message(run.suite_name, run.provider.model_id),
        )
    except GitHubError as exc:
        # A moved, gone or protected branch says so itself; a bare 403 names `contents: write`.
        return refused(with_permission(exc, CONTENTS) if type(exc) is GitHubError else exc)
    return Promotion(snapshot, local, repo_path, commit, None, commit.paths)
