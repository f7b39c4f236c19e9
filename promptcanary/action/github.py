"""The GitHub client of the Action: every GitHub operation it needs, over PyGithub.

:class:`GitHubClient` is one repository's client with all the features, each written where its
reason to change is: the connection, identity and write policy (:mod:`.github_repo`,
:mod:`.github_calls`), the watch issue (:mod:`.github_issues`), promotion commits
(:mod:`.github_commit`), files at a ref (:mod:`.github_contents`), check runs and workflow
dispatches (:mod:`.github_runs`), commit statuses (:mod:`.github_statuses`), and, here, the pull request: the sticky comment, labels, who
may promote. A new feature is a method of one of them, or a class of its own added to
:class:`GitHubClient`'s bases.

Every method raises :class:`promptcanary.errors.GitHubError` (with the HTTP status) when GitHub
refuses or fails, so the caller can keep the report and warn instead of crashing.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from promptcanary.action.comment import starts_with_marker
from promptcanary.action.github_calls import SECONDARY_RATE_WAIT_S, call
from promptcanary.action.github_commit import CommitResult, Commits
from promptcanary.action.github_contents import Contents
from promptcanary.action.github_issues import IssueRef, WatchIssues
from promptcanary.action.github_repo import DEFAULT_BOT_LOGIN, RepoClient, same_login
from promptcanary.action.github_runs import CheckRunRef, Runs
from promptcanary.action.github_statuses import Statuses
from promptcanary.action.guards import PullRequestNow
from promptcanary.action.permissions import ISSUES, with_permission
from promptcanary.errors import (
    BranchMovedError,
    BranchNotFoundError,
    BranchProtectedError,
    GitHubError,
)

__all__ = [
    "DEFAULT_BOT_LOGIN",
    "SECONDARY_RATE_WAIT_S",
    "BranchMovedError",
    "BranchNotFoundError",
    "BranchProtectedError",
    "CheckRunRef",
    "CommentRef",
    "CommitResult",
    "GitHubClient",
    "IssueRef",
    "RepoClient",
    "same_login",
]


@dataclass(frozen=True)
class CommentRef:
    """A comment we created or edited."""

    id: int
    html_url: str


class GitHubClient(WatchIssues, Commits, Contents, Runs, Statuses):
    """Narrow client for one repository (``GitHubClient.connect(token=..., api_url=...,
    repository=...)``, or ``GitHubClient(Github(...), "owner/name")``).

    Its pull request operations are below; the others come from its bases.
    """

    # ── pull request comments ──

    def upsert_comment(self, number: int, *, marker: str, body: str) -> CommentRef:
        """Edit our comment holding ``marker`` on issue/PR ``number``, or create it.

        All pages of comments are searched; a comment counts as ours when its author is the
        token's account and its body starts with the marker, so neither a user quoting the marker
        nor another suite's comment quoting a model answer that holds it is ever edited. A comment
        someone hid (minimized) is left alone and a new one is posted. When several of ours hold
        the marker (left by an older version that repeated a POST answered 5xx), the newest is
        kept and the others are deleted. A creation answered 5xx is read back (our comment with
        this exact body) before it is sent again.
        """
        issue = self.repo.get_issue(number)

        def find() -> list[Any]:
            return [
                c
                for c in issue.get_comments()
                if starts_with_marker(c.body, marker) and self.is_ours(c.user)
            ]

        candidates = call(f"list the comments of #{number}", find)
        hidden = self._minimized([str(c.node_id) for c in candidates])
        visible = sorted(
            (c for c in candidates if str(c.node_id) not in hidden),
            key=lambda c: (c.created_at, c.id),
        )
        for extra in visible[:-1]:
            with suppress(GitHubError):  # a duplicate left behind is untidy, not wrong
                self.send(f"delete duplicate comment {extra.id}", extra.delete, safe=True)
        if visible:
            existing = visible[-1]
            # The same edit twice is the same edit: safe to repeat.
            self.send(
                f"edit comment {existing.id} on #{number}", lambda: existing.edit(body), safe=True
            )
            return CommentRef(int(existing.id), str(existing.html_url))

        def posted() -> Any:
            return next((c for c in reversed(find()) if c.body == body), None)

        created = self.send(
            f"comment on #{number}", lambda: issue.create_comment(body), read_back=posted
        )
        return CommentRef(int(created.id), str(created.html_url))

    def _minimized(self, node_ids: list[str]) -> set[str]:
        """Which of these comments are hidden. REST does not say; GraphQL ``isMinimized`` does.
        When GraphQL is refused, none is taken as hidden (editing one is the lesser harm)."""
        if not node_ids:
            return set()
        query = (
            "query($ids: [ID!]!) { nodes(ids: $ids) { ... on IssueComment { id isMinimized } } }"
        )
        try:
            _, data = self.send(
                "read which comments are hidden",
                lambda: self._gh.requester.graphql_query(query, {"ids": node_ids}),
                safe=True,  # a query
            )
        except GitHubError:
            return set()
        nodes = (data.get("data") or {}).get("nodes") or []
        return {str(n["id"]) for n in nodes if isinstance(n, dict) and n.get("isMinimized")}

    def remove_label(self, number: int, label: str) -> None:
        """Take ``label`` off issue/PR ``number`` (so adding it again triggers a new run).

        A label that is already gone (404) is not an error.
        """
        issue = self.repo.get_issue(number)
        try:
            self.send(
                f"remove label '{label}' from #{number}",
                lambda: issue.remove_from_labels(label),
                safe=True,
            )
        except GitHubError as exc:
            if exc.status != 404:
                raise

    def ensure_label(self, name: str, *, color: str, description: str) -> bool:
        """Create the repository label ``name`` when it does not exist. True when created.

        Creating a label needs ``issues: write`` (``pull-requests: write`` is not enough): a
        403 says so in its hint.
        """
        from urllib.parse import quote

        def exists() -> bool | None:
            try:
                call(
                    f"read the label '{name}'",
                    lambda: self.request("GET", f"/labels/{quote(name, safe='')}"),
                )
            except GitHubError as exc:
                if exc.status != 404:
                    raise
                return None
            return True

        if exists():
            return False
        body = {"name": name, "color": color, "description": description}
        try:
            self.send(
                f"create the label '{name}'",
                lambda: self.request("POST", "/labels", body),
                read_back=exists,
            )
        except GitHubError as exc:
            # GitHub no longer accepts `pull-requests: write` for creating a label.
            raise with_permission(exc, ISSUES) from None
        return True

    # ── who may promote ──

    def permission_of(self, login: str) -> tuple[str, str]:
        """(permission, role) of ``login`` on this repository: ``permission`` is admin, write,
        read or none (maintain reads as write, triage as read); ``role`` is the role's own name
        (``maintain``, ``triage``, a custom role) when GitHub gives it."""
        from urllib.parse import quote

        data = call(
            f"read the permission of '{login}'",
            lambda: self.request("GET", f"/collaborators/{quote(login, safe='')}/permission"),
        )
        permission = str(data.get("permission") or "none")
        return permission, str(data.get("role_name") or permission)

    def pull_request_now(self, number: int) -> PullRequestNow:
        """Pull request ``number`` as it is now (state, labels, head) and its head commit's
        parents and message: what a replayed event no longer says."""
        data = call(f"read pull request #{number}", lambda: self.request("GET", f"/pulls/{number}"))
        head = str((data.get("head") or {}).get("sha") or "")
        commit = call(
            f"read the head commit {head[:12]} of #{number}",
            lambda: self.request("GET", f"/git/commits/{head}"),
        )
        return PullRequestNow(
            state=str(data.get("state") or ""),
            merged=bool(data.get("merged")),
            labels=tuple(str(label.get("name") or "") for label in data.get("labels") or []),
            head_sha=head,
            head_parents=tuple(str(p.get("sha") or "") for p in commit.get("parents") or []),
            head_message=str(commit.get("message") or ""),
        )

    def open_pull_for(self, branch: str) -> int | None:
        """The number of the open pull request whose head is ``branch`` of this repository.

        A check started by ``workflow_dispatch`` (after a promotion) has no pull request in its
        event; this finds the one to update the sticky comment on.
        """
        owner = self.repository.split("/", 1)[0]
        pulls: list[Any] = call(
            f"find the open pull request of '{branch}'",
            lambda: list(self.repo.get_pulls(state="open", head=f"{owner}:{branch}")[:2]),
        )
        return pulls[0].number if len(pulls) == 1 else None
