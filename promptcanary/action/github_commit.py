"""Files committed as a compare-and-swap through GitHub's Git Data API (no git, no checkout).

a blob per file → one tree (on the parent's tree) → one commit (parent = the measured commit) →
ref update with ``force: false``, which GitHub refuses unless it is a fast forward: a push that
came in after the parent was measured makes it fail instead of landing the files on code that was
never measured. All the files land in that one commit, or none does.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass

from promptcanary.action.github_calls import call
from promptcanary.action.github_repo import RepoClient
from promptcanary.errors import (
    BranchMovedError,
    BranchNotFoundError,
    BranchProtectedError,
    GitHubError,
)

#: What GitHub says when a branch protection rule or a repository ruleset refuses a ref update
#: (lower case; matched as substrings of its message).
PROTECTION_MESSAGES = (
    "protected branch",
    "repository rule violation",
    "required status check",
    "changes must be made through a pull request",
    "not authorized to push",
)


@dataclass(frozen=True)
class CommitResult:
    """Files committed on top of a known parent."""

    paths: tuple[str, ...]
    """Every file of the commit, in the order given."""
    branch: str
    sha: str
    html_url: str


class Commits(RepoClient):
    """Files committed as a compare-and-swap on a branch (see the module docstring)."""

    def commit_files(
        self, files: Mapping[str, bytes], *, branch: str, parent: str, message: str
    ) -> CommitResult:
        """Commit ``files`` (repository path → content) in one commit, a child of ``parent``,
        and move ``branch`` to it, only if the branch still points at ``parent`` (or an ancestor
        of it).

        Raises:
            BranchMovedError: the branch moved on since ``parent``.
            BranchNotFoundError: the branch or the parent commit is gone.
            BranchProtectedError: a protection rule or ruleset refused the update.
            GitHubError: any other refusal or failure.
        """
        from urllib.parse import quote

        try:
            parent_commit = call(
                f"read commit {parent[:12]}", lambda: self.request("GET", f"/git/commits/{parent}")
            )
        except GitHubError as exc:
            if exc.status in (404, 422):
                raise BranchNotFoundError(
                    f"the measured commit {parent[:12]} is not in {self.repository} any more "
                    f"(the branch '{branch}' was deleted or force-pushed)",
                    status=exc.status,
                    hint="Nothing was committed. Push the branch again and re-add the label.",
                ) from None
            raise
        # Blobs, trees and commits are content-addressed and reach no branch: sending one twice
        # is harmless, so they count as safe to repeat.
        entries = [
            {"path": path, "mode": "100644", "type": "blob", "sha": self._upload(path, content)}
            for path, content in files.items()
        ]
        named = ", ".join(files)
        tree = self.send(
            f"build the tree for {named}",
            lambda: self.request(
                "POST",
                "/git/trees",
                {"base_tree": parent_commit["tree"]["sha"], "tree": entries},
            ),
            safe=True,
        )
        commit = self.send(
            f"create the commit for {named}",
            lambda: self.request(
                "POST",
                "/git/commits",
                {"message": message, "tree": tree["sha"], "parents": [parent]},
            ),
            safe=True,
        )
        ref = f"/git/refs/heads/{quote(branch, safe='/')}"

        def landed() -> bool | None:
            return True if self.branch_at(branch, commit["sha"]) else None

        try:
            # A 5xx answer is checked by reading the branch back: if the update was applied, the
            # promotion stands.
            self.send(
                f"move branch '{branch}' to the new commit",
                lambda: self.request("PATCH", ref, {"sha": commit["sha"], "force": False}),
                read_back=landed,
            )
        except GitHubError as exc:
            raise _ref_refusal(exc, branch, parent, self.repository) from None
        return CommitResult(
            paths=tuple(files),
            branch=branch,
            sha=str(commit["sha"]),
            html_url=str(commit.get("html_url") or ""),
        )

    def _upload(self, path: str, content: bytes) -> str:
        """The blob of ``content`` (its SHA), uploaded for the file at ``path``."""
        encoded = base64.b64encode(content).decode("ascii")
        blob = self.send(
            f"upload {path}",
            lambda: self.request("POST", "/git/blobs", {"content": encoded, "encoding": "base64"}),
            safe=True,
        )
        return str(blob["sha"])

    def branch_at(self, branch: str, sha: str) -> bool:
        """True when ``branch`` points at ``sha`` now (False when that cannot be read)."""
        from urllib.parse import quote

        try:
            ref = call(
                f"read branch '{branch}'",
                lambda: self.request("GET", f"/git/ref/heads/{quote(branch, safe='/')}"),
            )
        except GitHubError:
            return False
        return bool((ref.get("object") or {}).get("sha") == sha)


def _ref_refusal(exc: GitHubError, branch: str, parent: str, repository: str) -> GitHubError:
    """The ref update's refusal in words: moved, gone, protected, or as GitHub said it."""
    text = exc.message.lower()
    if exc.status == 422 and "fast forward" in text:
        return BranchMovedError(
            f"the branch '{branch}' moved after the run started: it no longer points at the "
            f"measured commit {parent[:12]}",
            status=422,
            hint="Nothing was committed. Measure the new head and promote it: on a pull "
            "request, remove and re-add the label.",
        )
    if exc.status in (403, 409, 422) and any(m in text for m in PROTECTION_MESSAGES):
        return BranchProtectedError(
            f"a branch protection rule or repository ruleset of '{branch}' refused the "
            f"baseline commit ({exc.message})",
            status=exc.status,
            hint="Nothing was committed. Let the token bypass the rule (a GitHub App or a "
            "deploy key can be added to the ruleset's bypass list), or commit the baseline file "
            "from this run's workspace yourself.",
        )
    if exc.status == 404 or (exc.status == 422 and "does not exist" in text):
        return BranchNotFoundError(
            f"the branch '{branch}' was not found in {repository}",
            status=exc.status,
            hint="Nothing was committed. The branch was deleted; push it again and re-add the "
            "label.",
        )
    return exc
