"""The few GitHub operations the Action needs, over PyGithub, with errors translated at the edge.

Every method raises :class:`promptcanary.errors.GitHubError` (with the HTTP status) when GitHub
refuses or fails, so the caller can keep the report and warn instead of crashing.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from promptcanary.errors import GitHubError

if TYPE_CHECKING:
    from github import Github
    from github.Issue import Issue
    from github.Repository import Repository

#: Who comments when the token is the workflow's default one (GET /user is refused for it).
DEFAULT_BOT_LOGIN = "github-actions[bot]"

T = TypeVar("T")


@dataclass(frozen=True)
class CommitResult:
    """A file committed through the contents API."""

    path: str
    branch: str
    sha: str
    html_url: str


@dataclass(frozen=True)
class IssueRef:
    """An issue we opened, updated or closed."""

    number: int
    html_url: str


class GitHubClient:
    """Narrow client for one repository.

    Args:
        gh: A PyGithub ``Github`` instance (its base URL decides which server is talked to).
        repository: ``owner/name``.
    """

    def __init__(self, gh: Github, repository: str) -> None:
        self._gh = gh
        self.repository = repository
        self._repo: Repository | None = None
        self._login: str | None = None

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
    ) -> GitHubClient:
        """A client for ``repository`` on the API at ``api_url`` (``GITHUB_API_URL``).

        5xx answers and rate-limit 403s are retried ``retries`` times with exponential backoff;
        other refusals surface at once. ``throttle`` keeps PyGithub's pauses between requests
        (GitHub's advice against secondary rate limits); tests turn it off.
        """
        from github import Auth, Github, GithubRetry

        # PyGithub logs every refused request at INFO to stderr on import; our own warnings say
        # what failed, so only its real problems are let through.
        logging.getLogger("github").setLevel(logging.WARNING)
        retry = GithubRetry(total=retries, backoff_factor=backoff_s, secondary_rate_wait=backoff_s)
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
        return cls(gh, repository)

    @property
    def repo(self) -> Repository:
        if self._repo is None:
            self._repo = self._gh.get_repo(self.repository)  # lazy: no request
        return self._repo

    # ── identity ──

    def bot_login(self) -> str:
        """The login the token comments as; ``github-actions[bot]`` when GET /user is refused."""
        if self._login is None:
            try:
                self._login = _call("read the token's user", lambda: self._gh.get_user().login)
            except GitHubError:
                self._login = DEFAULT_BOT_LOGIN
        return self._login

    # ── pull request comments ──

    def upsert_comment(self, number: int, *, marker: str, body: str) -> str:
        """Edit our comment holding ``marker`` on issue/PR ``number``, or create it. Returns its URL.

        All pages of comments are searched; a comment counts as ours when its author is the
        token's login and its body holds the marker, so a user quoting the marker is never edited.
        """
        login = self.bot_login()
        issue = self.repo.get_issue(number)

        def find() -> Any:
            mine = None
            for comment in issue.get_comments():
                if (
                    comment.user is not None
                    and comment.user.login == login
                    and marker in (comment.body or "")
                ):
                    mine = comment  # keep the newest if several exist
            return mine

        existing = _call(f"list the comments of #{number}", find)
        if existing is not None:
            _call(f"edit comment {existing.id} on #{number}", lambda: existing.edit(body))
            return str(existing.html_url)
        created = _call(f"comment on #{number}", lambda: issue.create_comment(body))
        return str(created.html_url)

    def remove_label(self, number: int, label: str) -> None:
        """Take ``label`` off issue/PR ``number`` (so adding it again triggers a new run).

        A label that is already gone (404) is not an error.
        """
        issue = self.repo.get_issue(number)
        try:
            _call(f"remove label '{label}' from #{number}", lambda: issue.remove_from_labels(label))
        except GitHubError as exc:
            if exc.status != 404:
                raise

    # ── watch issues ──

    def find_open_issue(self, *, marker: str, label: str) -> Issue | None:
        """The open issue (not PR) carrying ``label`` whose body holds ``marker``."""

        def find() -> Issue | None:
            for issue in self.repo.get_issues(state="open", labels=[label]):
                if issue.pull_request is None and marker in (issue.body or ""):
                    return issue
            return None

        return _call(f"list open issues labeled '{label}'", find)

    def open_or_update_issue(self, *, marker: str, label: str, title: str, body: str) -> IssueRef:
        """Update the open issue holding ``marker``, or open one with ``label``."""
        existing = self.find_open_issue(marker=marker, label=label)
        if existing is not None:
            issue = existing
            _call(f"update issue #{issue.number}", lambda: issue.edit(title=title, body=body))
            return IssueRef(issue.number, str(issue.html_url))
        # GitHub creates a label that does not exist yet when an issue is opened with it.
        created = _call(
            "open an issue", lambda: self.repo.create_issue(title=title, body=body, labels=[label])
        )
        return IssueRef(created.number, str(created.html_url))

    def close_issue(self, issue: Issue, *, comment: str) -> IssueRef:
        """Comment on ``issue`` and close it as completed."""
        _call(f"comment on issue #{issue.number}", lambda: issue.create_comment(comment))
        _call(
            f"close issue #{issue.number}",
            lambda: issue.edit(state="closed", state_reason="completed"),
        )
        return IssueRef(issue.number, str(issue.html_url))

    # ── contents API ──

    def commit_file(self, *, path: str, content: bytes, branch: str, message: str) -> CommitResult:
        """Create or update ``path`` on ``branch`` through the contents API (no git checkout)."""
        from github import UnknownObjectException

        def existing_sha() -> str | None:
            try:
                found = self.repo.get_contents(path, ref=branch)
            except UnknownObjectException:
                return None
            return None if isinstance(found, list) else str(found.sha)

        sha = _call(f"read {path} on branch '{branch}'", existing_sha)

        def write() -> dict[str, Any]:
            # PyGithub base64-encodes the bytes itself.
            if sha is None:
                return self.repo.create_file(path, message, content, branch=branch)
            return self.repo.update_file(path, message, content, sha, branch=branch)

        result = _call(f"commit {path} to branch '{branch}'", write)
        commit = result["commit"]
        return CommitResult(
            path=path, branch=branch, sha=str(commit.sha), html_url=str(commit.html_url or "")
        )


def _call(what: str, fn: Callable[[], T]) -> T:
    with _translate(what):
        return fn()


@contextmanager
def _translate(what: str) -> Iterator[None]:
    """Turn PyGithub / transport failures into :class:`GitHubError` saying what failed."""
    from github import GithubException
    from requests import RequestException

    try:
        yield
    except GithubException as exc:
        message = exc.data.get("message") if isinstance(exc.data, dict) else None
        raise GitHubError(
            f"GitHub refused to {what}: HTTP {exc.status}" + (f" ({message})" if message else ""),
            status=exc.status,
            hint=_hint_for(exc.status),
        ) from None
    except RequestException as exc:
        # Retries used up on 5xx answers surface as a RetryError naming the last status.
        found = re.search(r"too many (\d{3}) error", str(exc))
        status = int(found.group(1)) if found else None
        reason = f"HTTP {status} after retries" if status else type(exc).__name__
        raise GitHubError(
            f"GitHub failed to {what}: {reason}",
            status=status,
            hint="GitHub may be having an outage; the report is in the job summary.",
        ) from None


def _hint_for(status: int) -> str | None:
    if status in (401, 403, 404):
        return (
            "Give the workflow the permissions PromptCanary needs (pull-requests: write for "
            "comments, issues: write for watch issues, contents: write for promotion) or pass a "
            "token that has them as `github-token`."
        )
    if status == 422:
        return "GitHub rejected the content (too long or invalid)."
    return None
