"""The watch issue: one open issue per suite and model, found by its author and marker."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from promptcanary.action.comment import starts_with_marker
from promptcanary.action.github_calls import call
from promptcanary.action.github_repo import RepoClient

if TYPE_CHECKING:
    from github.Issue import Issue


@dataclass(frozen=True)
class IssueRef:
    """An issue we opened, updated or closed."""

    number: int
    html_url: str


class WatchIssues(RepoClient):
    """Opening, updating and closing the watch issue."""

    def find_open_issue(self, *, marker: str, label: str | None = None) -> Issue | None:
        """Our open issue (not a PR) whose body starts with ``marker``.

        Found by its author and marker, not by its label (people remove or rename labels): the
        issues carrying ``label`` are searched first, then every open issue.
        """

        def matches(issue: Issue) -> bool:
            return (
                issue.pull_request is None
                and starts_with_marker(issue.body, marker)
                and self.is_ours(issue.user)
            )

        def find() -> Issue | None:
            if label:
                for issue in self.repo.get_issues(state="open", labels=[label]):
                    if matches(issue):
                        return issue
            for issue in self.repo.get_issues(state="open"):
                if matches(issue):
                    return issue
            return None

        return call("list open issues", find)

    def open_or_update_issue(self, *, marker: str, label: str, title: str, body: str) -> IssueRef:
        """Update our open issue holding ``marker`` (putting ``label`` back when someone took it
        off), or open one with ``label``."""
        existing = self.find_open_issue(marker=marker, label=label)
        if existing is not None:
            issue = existing
            self.send(
                f"update issue #{issue.number}",
                lambda: issue.edit(title=title, body=body),
                safe=True,
            )
            if label not in {lab.name for lab in issue.labels}:
                self.send(
                    f"label issue #{issue.number} '{label}'",
                    lambda: issue.add_to_labels(label),
                    safe=True,
                )
            return IssueRef(issue.number, str(issue.html_url))
        # GitHub creates a label that does not exist yet when an issue is opened with it.
        created = self.send(
            "open an issue",
            lambda: self.repo.create_issue(title=title, body=body, labels=[label]),
            read_back=lambda: self.find_open_issue(marker=marker, label=label),
        )
        return IssueRef(created.number, str(created.html_url))

    def close_issue(self, issue: Issue, *, comment: str) -> IssueRef:
        """Comment on ``issue`` and close it as completed."""

        def commented() -> Any:
            return next(
                (
                    c
                    for c in reversed(list(issue.get_comments()))
                    if c.body == comment and self.is_ours(c.user)
                ),
                None,
            )

        self.send(
            f"comment on issue #{issue.number}",
            lambda: issue.create_comment(comment),
            read_back=commented,
        )
        self.send(
            f"close issue #{issue.number}",
            lambda: issue.edit(state="closed", state_reason="completed"),
            safe=True,
        )
        return IssueRef(issue.number, str(issue.html_url))
