"""Promotion: save the run as the new baseline and commit the file through the contents API.

The commit goes through GitHub's contents API (PyGithub), so no git credentials, no checkout
state and no push permissions of the runner's git are involved: the token's ``contents: write``
is all it takes. The file committed is byte for byte the one :class:`FileBaselineStore` wrote.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from promptcanary.errors import ConfigError, GitHubError

if TYPE_CHECKING:
    from promptcanary.action.github import CommitResult, GitHubClient
    from promptcanary.core.models import BaselineSnapshot, CanaryRunResult
    from promptcanary.storage.file import FileBaselineStore


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


def promote(
    run: CanaryRunResult,
    *,
    store: FileBaselineStore,
    workspace: Path,
    branch: str,
    github: GitHubClient | None,
    note: str,
) -> Promotion:
    """Save ``run`` as a baseline in ``store`` and commit the file to ``branch``.

    A GitHub refusal is returned in :attr:`Promotion.error` (the file stays in the workspace);
    it never raises :class:`GitHubError`.
    """
    from promptcanary.storage.file import filename_for

    snapshot = store.save(run, note=note)
    local = store.directory / filename_for(snapshot)
    repo_path = repo_path_for(local, workspace)
    if github is None:
        return Promotion(
            snapshot,
            local,
            repo_path,
            None,
            GitHubError("no GitHub token: the baseline was not committed"),
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
            message=" ".join(message.split())[:200],
        )
    except GitHubError as exc:
        return Promotion(snapshot, local, repo_path, None, exc)
    return Promotion(snapshot, local, repo_path, commit, None)
