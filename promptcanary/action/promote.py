"""Promotion: commit the baseline the pipeline saved through the Git Data API.

The commit goes through GitHub's API, so no git credentials, no checkout state and no git in the
image are involved: the token's ``contents: write`` is all it takes. It is a compare-and-swap:
the commit's parent is the commit that was measured and the branch only moves if it still points
there, so a baseline never lands on code it did not measure. The file committed is byte for byte
the one :class:`FileBaselineStore` wrote (made readable by the runner's user, see
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
    repo_path: str
    commit: CommitResult | None
    error: GitHubError | None


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
    """Commit the baseline file the pipeline saved to ``branch`` on top of ``parent`` (the
    measured commit).

    A GitHub refusal is returned in :attr:`Promotion.error` (the file stays in the workspace);
    it never raises :class:`GitHubError`.

    Raises:
        ConfigError: the baseline folder is outside the repository checkout.
    """
    from promptcanary.action.workflow import hand_over

    snapshot, local = saved.snapshot, saved.path
    hand_over(local, workspace, folders_up_to=workspace)
    repo_path = repo_path_for(local, workspace)
    if github is None:
        return Promotion(
            snapshot,
            local,
            repo_path,
            None,
            GitHubError("no GitHub token: the baseline was not committed"),
        )
    if not parent:
        return Promotion(
            snapshot,
            local,
            repo_path,
            None,
            GitHubError(
                "the measured commit is unknown (no pull request head SHA and no GITHUB_SHA): "
                "the baseline was not committed"
            ),
        )
    model = run.provider.model_id
    message = f"PromptCanary: promote baseline for {run.suite_name} on {model}"
    from promptcanary.errors import StorageError
    from promptcanary.files import read_bytes

    content = read_bytes(local, what="baseline file", error=StorageError)
    try:
        commit = github.commit_file(
            path=repo_path,
            content=content,
            branch=branch,
            parent=parent,
            message=" ".join(message.split())[:200],
        )
    except GitHubError as exc:
        return Promotion(snapshot, local, repo_path, None, exc)
    return Promotion(snapshot, local, repo_path, commit, None)
