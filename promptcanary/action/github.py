"""The few GitHub operations the Action needs, over PyGithub, with errors translated at the edge.

Every method raises :class:`promptcanary.errors.GitHubError` (with the HTTP status) when GitHub
refuses or fails, so the caller can keep the report and warn instead of crashing.
"""

from __future__ import annotations

import base64
import logging
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from promptcanary.action.comment import starts_with_marker
from promptcanary.errors import GitHubError

if TYPE_CHECKING:
    from github import Github
    from github.Issue import Issue
    from github.Repository import Repository

#: Who comments with the workflow's default token (what GraphQL ``viewer`` answers for it).
DEFAULT_BOT_LOGIN = "github-actions[bot]"

#: GitHub's advice for a secondary rate limit without ``Retry-After``: wait at least a minute.
SECONDARY_RATE_WAIT_S = 60.0

T = TypeVar("T")


class BranchMovedError(GitHubError):
    """The branch no longer points at the commit that was measured (a push came in between)."""


class BranchNotFoundError(GitHubError):
    """The branch (or the measured commit) no longer exists."""


@dataclass(frozen=True)
class CommitResult:
    """A file committed on top of a known parent."""

    path: str
    branch: str
    sha: str
    html_url: str


@dataclass(frozen=True)
class IssueRef:
    """An issue we opened, updated or closed."""

    number: int
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

    def __init__(self, gh: Github, repository: str) -> None:
        self._gh = gh
        self.repository = repository
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
    ) -> GitHubClient:
        """A client for ``repository`` on the API at ``api_url`` (``GITHUB_API_URL``).

        5xx answers and rate-limit 403s are retried ``retries`` times with exponential backoff;
        other refusals surface at once. A ``Retry-After`` header is honoured; a secondary rate
        limit without one waits ``secondary_rate_wait_s`` (GitHub: at least one minute).
        ``throttle`` keeps PyGithub's pauses between requests (GitHub's advice against secondary
        rate limits); tests turn it off.
        """
        from github import Auth, Github, GithubRetry

        # PyGithub logs every refused request at INFO to stderr on import; our own warnings say
        # what failed, so only its real problems are let through.
        logging.getLogger("github").setLevel(logging.WARNING)
        retry = GithubRetry(
            total=retries,
            backoff_factor=backoff_s,
            secondary_rate_wait=secondary_rate_wait_s,
            respect_retry_after_header=True,
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
        return cls(gh, repository)

    @property
    def repo(self) -> Repository:
        if self._repo is None:
            self._repo = self._gh.get_repo(self.repository)  # lazy: no request
        return self._repo

    def _request(self, verb: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """A REST call PyGithub has no convenient method for (``path`` under the repository)."""
        _, data = self._gh.requester.requestJsonAndCheck(
            verb, f"/repos/{self.repository}{path}", input=body
        )
        return data

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
                    _, data = _call(
                        "read the token's GraphQL viewer",
                        lambda: self._gh.requester.graphql_query("query { viewer { login } }", {}),
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

    def upsert_comment(self, number: int, *, marker: str, body: str) -> str:
        """Edit our comment holding ``marker`` on issue/PR ``number``, or create it. Returns its URL.

        All pages of comments are searched; a comment counts as ours when its author is the
        token's account and its body starts with the marker, so neither a user quoting the marker
        nor another suite's comment quoting a model answer that holds it is ever edited. A comment someone hid (minimized) is left alone and a new one is posted. When
        several of ours hold the marker (a POST retried after a 5xx that had in fact succeeded),
        the newest is kept and the others are deleted.
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
                _call(f"delete duplicate comment {extra.id}", extra.delete)
        if visible:
            existing = visible[-1]
            _call(f"edit comment {existing.id} on #{number}", lambda: existing.edit(body))
            return str(existing.html_url)
        created = _call(f"comment on #{number}", lambda: issue.create_comment(body))
        return str(created.html_url)

    def _minimized(self, node_ids: list[str]) -> set[str]:
        """Which of these comments are hidden. REST does not say; GraphQL ``isMinimized`` does.
        When GraphQL is refused, none is taken as hidden (editing one is the lesser harm)."""
        if not node_ids:
            return set()
        query = (
            "query($ids: [ID!]!) { nodes(ids: $ids) { ... on IssueComment { id isMinimized } } }"
        )
        try:
            _, data = _call(
                "read which comments are hidden",
                lambda: self._gh.requester.graphql_query(query, {"ids": node_ids}),
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
            _call(f"remove label '{label}' from #{number}", lambda: issue.remove_from_labels(label))
        except GitHubError as exc:
            if exc.status != 404:
                raise

    def ensure_label(self, name: str, *, color: str, description: str) -> bool:
        """Create the repository label ``name`` when it does not exist. True when created."""
        from urllib.parse import quote

        try:
            _call(
                f"read the label '{name}'",
                lambda: self._request("GET", f"/labels/{quote(name, safe='')}"),
            )
            return False
        except GitHubError as exc:
            if exc.status != 404:
                raise
        body = {"name": name, "color": color, "description": description}
        _call(f"create the label '{name}'", lambda: self._request("POST", "/labels", body))
        return True

    # ── watch issues ──

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

        return _call("list open issues", find)

    def open_or_update_issue(self, *, marker: str, label: str, title: str, body: str) -> IssueRef:
        """Update our open issue holding ``marker`` (putting ``label`` back when someone took it
        off), or open one with ``label``."""
        existing = self.find_open_issue(marker=marker, label=label)
        if existing is not None:
            issue = existing
            _call(f"update issue #{issue.number}", lambda: issue.edit(title=title, body=body))
            if label not in {lab.name for lab in issue.labels}:
                _call(f"label issue #{issue.number} '{label}'", lambda: issue.add_to_labels(label))
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

    # ── commits: compare-and-swap through the Git Data API ──

    def commit_file(
        self, *, path: str, content: bytes, branch: str, parent: str, message: str
    ) -> CommitResult:
        """Commit ``content`` at ``path`` as a child of ``parent`` and move ``branch`` to it,
        only if the branch still points at ``parent`` (or an ancestor of it).

        blob → tree (on the parent's tree) → commit (parent = the measured commit) → ref update
        with ``force: false``, which GitHub refuses unless it is a fast forward: a push that came
        in after ``parent`` was measured makes it fail instead of landing the file on code that
        was never measured.

        Raises:
            BranchMovedError: the branch moved on since ``parent``.
            BranchNotFoundError: the branch or the parent commit is gone.
            GitHubError: any other refusal or failure.
        """
        from urllib.parse import quote

        try:
            parent_commit = _call(
                f"read commit {parent[:12]}", lambda: self._request("GET", f"/git/commits/{parent}")
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
        encoded = base64.b64encode(content).decode("ascii")
        blob = _call(
            f"upload {path}",
            lambda: self._request("POST", "/git/blobs", {"content": encoded, "encoding": "base64"}),
        )
        tree = _call(
            f"build the tree for {path}",
            lambda: self._request(
                "POST",
                "/git/trees",
                {
                    "base_tree": parent_commit["tree"]["sha"],
                    "tree": [{"path": path, "mode": "100644", "type": "blob", "sha": blob["sha"]}],
                },
            ),
        )
        commit = _call(
            f"create the commit for {path}",
            lambda: self._request(
                "POST",
                "/git/commits",
                {"message": message, "tree": tree["sha"], "parents": [parent]},
            ),
        )
        ref = f"/git/refs/heads/{quote(branch, safe='/')}"
        try:
            _call(
                f"move branch '{branch}' to the new commit",
                lambda: self._request("PATCH", ref, {"sha": commit["sha"], "force": False}),
            )
        except GitHubError as exc:
            text = exc.message.lower()
            if (exc.status is None or exc.status >= 500) and self._branch_at(branch, commit["sha"]):
                pass  # the update was applied before the answer failed: the promotion stands
            elif exc.status == 422 and "fast forward" in text:
                raise BranchMovedError(
                    f"the branch '{branch}' moved after the run started: it no longer points "
                    f"at the measured commit {parent[:12]}",
                    status=422,
                    hint="Nothing was committed. Measure the new head and promote it: on a pull "
                    "request, remove and re-add the label.",
                ) from None
            elif exc.status == 404 or (exc.status == 422 and "does not exist" in text):
                raise BranchNotFoundError(
                    f"the branch '{branch}' was not found in {self.repository}",
                    status=exc.status,
                    hint="Nothing was committed. The branch was deleted; push it again and "
                    "re-add the label.",
                ) from None
            else:
                raise
        return CommitResult(
            path=path,
            branch=branch,
            sha=str(commit["sha"]),
            html_url=str(commit.get("html_url") or ""),
        )

    def _branch_at(self, branch: str, sha: str) -> bool:
        """True when ``branch`` points at ``sha`` now (False when that cannot be read)."""
        from urllib.parse import quote

        try:
            ref = _call(
                f"read branch '{branch}'",
                lambda: self._request("GET", f"/git/ref/heads/{quote(branch, safe='/')}"),
            )
        except GitHubError:
            return False
        return bool((ref.get("object") or {}).get("sha") == sha)

    # ── workflow dispatch ──

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

    def dispatch_workflow(self, workflow: str, *, ref: str) -> None:
        """Start ``workflow`` (a file name under .github/workflows, or an id) on ``ref``.

        A commit made with an installation token starts no workflow, but a dispatch does: this
        is how the promoted head gets its check. Needs ``actions: write`` and an
        ``on: workflow_dispatch`` trigger in that workflow.
        """
        from urllib.parse import quote

        _call(
            f"start the workflow '{workflow}' on '{ref}'",
            lambda: self._request(
                "POST", f"/actions/workflows/{quote(workflow, safe='')}/dispatches", {"ref": ref}
            ),
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
            "comments, issues: write for watch issues, contents: write for promotion, actions: "
            "write to start the check after a promotion) or pass a token that has them as "
            "`github-token`."
        )
    if status == 422:
        return "GitHub rejected the content (too long or invalid)."
    return None
