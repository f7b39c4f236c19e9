"""The few GitHub operations the Action needs, over PyGithub, with errors translated at the edge.

Every method raises :class:`promptcanary.errors.GitHubError` (with the HTTP status) when GitHub
refuses or fails, so the caller can keep the report and warn instead of crashing. Reads are
retried by PyGithub; writes go through :class:`~promptcanary.action.github_calls.Sender`, which
waits out rate limits and never sends a write twice blindly. Commits live in
:mod:`.github_commit`, check runs and workflow dispatches in :mod:`.github_runs`, the watch
issue in :mod:`.github_issues`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from promptcanary.action import github_commit, github_issues, github_runs
from promptcanary.action.comment import starts_with_marker
from promptcanary.action.github_calls import SECONDARY_RATE_WAIT_S, Sender
from promptcanary.action.github_calls import call as _call
from promptcanary.action.github_commit import (
    BranchMovedError,
    BranchNotFoundError,
    BranchProtectedError,
    CommitResult,
)
from promptcanary.action.github_issues import IssueRef
from promptcanary.action.github_runs import CheckRunRef
from promptcanary.errors import GitHubError

if TYPE_CHECKING:
    from github import Github
    from github.Issue import Issue
    from github.Repository import Repository

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
    "same_login",
]

#: Who comments with the workflow's default token (what GraphQL ``viewer`` answers for it).
DEFAULT_BOT_LOGIN = "github-actions[bot]"

T = TypeVar("T")


@dataclass(frozen=True)
class CommentRef:
    """A comment we created or edited."""

    id: int
    html_url: str


def same_login(a: str, b: str) -> bool:
    """True when two logins name the same account: REST says ``my-app[bot]`` where a GraphQL
    ``author.login`` says ``my-app``, so the ``[bot]`` suffix is ignored (case too: logins are
    case-insensitive)."""
    return a.lower().removesuffix("[bot]") == b.lower().removesuffix("[bot]")


class GitHubClient:
    """Narrow client for one repository.

    Args:
        gh: A PyGithub ``Github`` instance (its base URL decides which server is talked to).
        repository: ``owner/name``.
    """

    def __init__(self, gh: Github, repository: str, *, sender: Sender | None = None) -> None:
        self._gh = gh
        self.repository = repository
        self.sender = sender or Sender()
        self._repo: Repository | None = None
        self._login: str | None = None
        self._login_known = False

    @classmethod
    def connect(
        cls,
        *,
        token: str,
        api_url: str,
        repository: str,
        retries: int = 3,
        backoff_s: float = 1.0,
        throttle: bool = True,
        secondary_rate_wait_s: float = SECONDARY_RATE_WAIT_S,
        sleep: Callable[[float], None] = time.sleep,
    ) -> GitHubClient:
        """A client for ``repository`` on the API at ``api_url`` (``GITHUB_API_URL``).

        Reads: 5xx answers and rate limits (403 or 429) are retried ``retries`` times with
        exponential backoff (:class:`~.github_retry.ReadRetry`). Writes: see :class:`Sender` (``retries`` more sends at most,
        pausing through ``sleep``). A ``Retry-After`` header is honoured; a secondary rate
        limit without one waits ``secondary_rate_wait_s`` (GitHub: at least one minute).
        ``throttle`` keeps PyGithub's pauses between requests (GitHub's advice against secondary
        rate limits); tests turn it off.
        """
        from github import Auth, Github

        from promptcanary.action.github_retry import ReadRetry

        # PyGithub logs every refused request at INFO to stderr on import; our own warnings say
        # what failed, so only its real problems are let through.
        logging.getLogger("github").setLevel(logging.WARNING)
        retry = ReadRetry(  # PyGithub's GithubRetry, plus a 429 without Retry-After
            total=retries,
            backoff_factor=backoff_s,
            secondary_rate_wait=secondary_rate_wait_s,
            respect_retry_after_header=True,
            # Writes are never repeated by PyGithub: a POST answered 502 may have landed.
            allowed_methods=frozenset({"GET", "HEAD"}),
            pause=sleep,
        )
        gh = Github(
            auth=Auth.Token(token),
            base_url=api_url,
            retry=retry,
            per_page=100,
            lazy=True,
            timeout=30,
            seconds_between_requests=0.25 if throttle else None,
            seconds_between_writes=1.0 if throttle else None,
        )
        sender = Sender(
            attempts=retries + 1,
            backoff_s=backoff_s,
            secondary_wait_s=secondary_rate_wait_s,
            sleep=sleep,
        )
        return cls(gh, repository, sender=sender)

    @property
    def repo(self) -> Repository:
        if self._repo is None:
            self._repo = self._gh.get_repo(self.repository)  # lazy: no request
        return self._repo

    def request(self, verb: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """A REST call PyGithub has no convenient method for (``path`` under the repository)."""
        _, data = self._gh.requester.requestJsonAndCheck(
            verb, f"/repos/{self.repository}{path}", input=body
        )
        return data

    def send(
        self,
        what: str,
        fn: Callable[[], T],
        *,
        safe: bool = False,
        read_back: Callable[[], T | None] | None = None,
    ) -> T:
        """A write (see :meth:`Sender.send`)."""
        return self.sender.send(what, fn, safe=safe, read_back=read_back)

    # ── identity ──

    def login(self) -> str | None:
        """The login the token writes as, or None when GitHub will not say.

        ``GET /user`` answers for personal tokens only; installation tokens (the workflow's
        ``GITHUB_TOKEN``, GitHub App tokens) are refused there but GraphQL ``viewer { login }``
        answers for them (``github-actions[bot]``, ``my-app[bot]``).
        """
        if not self._login_known:
            self._login_known = True
            try:
                self._login = _call("read the token's user", lambda: self._gh.get_user().login)
            except GitHubError:
                try:
                    _, data = self.send(
                        "read the token's GraphQL viewer",
                        lambda: self._gh.requester.graphql_query("query { viewer { login } }", {}),
                        safe=True,  # a query
                    )
                    self._login = str(data["data"]["viewer"]["login"])
                except (GitHubError, KeyError, TypeError):
                    self._login = None
        return self._login

    def is_ours(self, user: Any) -> bool:
        """True when ``user`` (a PyGithub user of a comment or issue) is the token's account.

        When the token's login cannot be read at all, any bot counts: the marker in the body
        still has to match, so a human quoting it is never taken for us.
        """
        if user is None:
            return False
        login = self.login()
        if login is None:
            return str(getattr(user, "type", "")) == "Bot"
        return same_login(str(user.login), login)

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

        candidates = _call(f"list the comments of #{number}", find)
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
                _call(
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
            if exc.status in (401, 403):
                raise GitHubError(
                    exc.message,
                    status=exc.status,
                    hint="Creating a label needs the `issues: write` permission (GitHub no longer "
                    "accepts `pull-requests: write` for it): add `issues: write` to the job's "
                    "`permissions:`, or create the label once by hand.",
                ) from None
            raise
        return True

    # ── watch issues ──

    def find_open_issue(self, *, marker: str, label: str | None = None) -> Issue | None:
        """See :func:`promptcanary.action.github_issues.find_open_issue`."""
        return github_issues.find_open_issue(self, marker=marker, label=label)

    def open_or_update_issue(self, *, marker: str, label: str, title: str, body: str) -> IssueRef:
        """See :func:`promptcanary.action.github_issues.open_or_update_issue`."""
        return github_issues.open_or_update_issue(
            self, marker=marker, label=label, title=title, body=body
        )

    def close_issue(self, issue: Issue, *, comment: str) -> IssueRef:
        """See :func:`promptcanary.action.github_issues.close_issue`."""
        return github_issues.close_issue(self, issue, comment=comment)

    # ── who may promote ──

    def permission_of(self, login: str) -> tuple[str, str]:
        """(permission, role) of ``login`` on this repository: ``permission`` is admin, write,
        read or none (maintain reads as write, triage as read); ``role`` is the role's own name
        (``maintain``, ``triage``, a custom role) when GitHub gives it."""
        from urllib.parse import quote

        data = _call(
            f"read the permission of '{login}'",
            lambda: self.request("GET", f"/collaborators/{quote(login, safe='')}/permission"),
        )
        permission = str(data.get("permission") or "none")
        return permission, str(data.get("role_name") or permission)

    # ── commits, check runs, workflows ──

    def commit_file(
        self, *, path: str, content: bytes, branch: str, parent: str, message: str
    ) -> CommitResult:
        """See :func:`promptcanary.action.github_commit.commit_file`."""
        return github_commit.commit_file(
            self, path=path, content=content, branch=branch, parent=parent, message=message
        )

    def create_check_run(
        self,
        *,
        name: str,
        head_sha: str,
        conclusion: str,
        title: str,
        summary: str,
        annotations: list[dict[str, Any]],
    ) -> CheckRunRef:
        """See :func:`promptcanary.action.github_runs.create_check_run`."""
        return github_runs.create_check_run(
            self,
            name=name,
            head_sha=head_sha,
            conclusion=conclusion,
            title=title,
            summary=summary,
            annotations=annotations,
        )

    def workflow_exists(self, workflow: str) -> bool:
        """See :func:`promptcanary.action.github_runs.workflow_exists`."""
        return github_runs.workflow_exists(self, workflow)

    def dispatch_workflow(self, workflow: str, *, ref: str) -> None:
        """Start ``workflow`` (a file name under .github/workflows, or an id) on ``ref``.

        A commit made with an installation token starts no workflow, but a dispatch does. Needs
        ``actions: write`` and an ``on: workflow_dispatch`` trigger in that workflow (see
        :func:`promptcanary.action.github_runs.dispatch_workflow`).
        """
        github_runs.dispatch_workflow(self, workflow, ref=ref)

    def open_pull_for(self, branch: str) -> int | None:
        """The number of the open pull request whose head is ``branch`` of this repository.

        A check started by ``workflow_dispatch`` (after a promotion) has no pull request in its
        event; this finds the one to update the sticky comment on.
        """
        owner = self.repository.split("/", 1)[0]
        pulls: list[Any] = _call(
            f"find the open pull request of '{branch}'",
            lambda: list(self.repo.get_pulls(state="open", head=f"{owner}:{branch}")[:2]),
        )
        return pulls[0].number if len(pulls) == 1 else None
