"""The connection every GitHub feature of the Action goes through: one repository, over PyGithub.

Reads are retried by PyGithub (a 429 too: :mod:`.github_retry`); writes go through
:class:`~promptcanary.action.github_calls.Sender`, which waits out rate limits and never sends a
write twice blindly. Every method raises
:class:`promptcanary.errors.GitHubError` (with the HTTP status) when GitHub refuses or fails.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from promptcanary.action.github_calls import SECONDARY_RATE_WAIT_S, Sender, call
from promptcanary.errors import GitHubError

if TYPE_CHECKING:
    from github import Github
    from github.Repository import Repository

#: Who comments with the workflow's default token (what GraphQL ``viewer`` answers for it).
DEFAULT_BOT_LOGIN = "github-actions[bot]"
#: GitHub's prefix of an App installation token (server-to-server): the workflow's
#: ``GITHUB_TOKEN`` and every App token. ``GET /user`` refuses them all.
INSTALLATION_TOKEN_PREFIX = "ghs_"

T = TypeVar("T")
C = TypeVar("C", bound="RepoClient")


def same_login(a: str, b: str) -> bool:
    """True when two logins name the same account: REST says ``my-app[bot]`` where a GraphQL
    ``author.login`` says ``my-app``, so the ``[bot]`` suffix is ignored (case too: logins are
    case-insensitive)."""
    return a.lower().removesuffix("[bot]") == b.lower().removesuffix("[bot]")


class RepoClient:
    """A connection to one repository: raw calls, the write policy and who we are.

    The GitHub features (:mod:`.github_issues`, :mod:`.github_commit`, :mod:`.github_runs`,
    :mod:`.github_statuses`, pull requests in :mod:`.github`) are classes built on this one;
    :class:`~promptcanary.action.github.GitHubClient` has them all.

    Args:
        gh: A PyGithub ``Github`` instance (its base URL decides which server is talked to).
        repository: ``owner/name``.
    """

    def __init__(
        self,
        gh: Github,
        repository: str,
        *,
        sender: Sender | None = None,
        installation_token: bool = False,
    ) -> None:
        self._gh = gh
        #: The token is an App's (``ghs_``): never ask ``GET /user``, which refuses it.
        self.installation_token = installation_token
        self.repository = repository
        self.sender = sender or Sender()
        #: Every write goes through the sender (retries, read-back; see :meth:`Sender.send`).
        self.send = self.sender.send
        self._repo: Repository | None = None
        self._login: str | None = None
        self._login_known = False

    @classmethod
    def connect(
        cls: type[C],
        *,
        token: str,
        api_url: str,
        repository: str,
        retries: int = 3,
        backoff_s: float = 1.0,
        throttle: bool = True,
        secondary_rate_wait_s: float = SECONDARY_RATE_WAIT_S,
        sleep: Callable[[float], None] = time.sleep,
    ) -> C:
        """A client for ``repository`` on the API at ``api_url`` (``GITHUB_API_URL``).

        Reads: 5xx answers and rate limits (403 or 429) are retried ``retries`` times with
        exponential backoff (:class:`~.github_retry.ReadRetry`). Writes: see :class:`Sender`
        (``retries`` more sends at most, pausing through ``sleep``). A ``Retry-After`` header is
        honoured; a secondary rate limit without one waits ``secondary_rate_wait_s`` (GitHub: at
        least one minute).
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
        return cls(
            gh,
            repository,
            sender=sender,
            installation_token=token.startswith(INSTALLATION_TOKEN_PREFIX),
        )

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

    # ── identity ──

    def login(self) -> str | None:
        """The login the token writes as, or None when GitHub will not say (asked once).

        GraphQL ``viewer { login }`` answers for every kind of token: a person's login for a
        personal token, ``github-actions[bot]`` / ``my-app[bot]`` for an App installation token
        (the workflow's ``GITHUB_TOKEN`` is one). ``GET /user`` answers personal tokens only and
        refuses installation tokens with 403 "Resource not accessible by integration", so it is
        only a fallback for a personal token GraphQL did not answer (never for a ``ghs_`` token:
        a request bound to fail, and a refusal in the organisation's audit log, on every run).
        """
        if not self._login_known:
            self._login_known = True
            self._login = self._viewer_login()
            if self._login is None and not self.installation_token:
                self._login = self._user_login()
        return self._login

    def _viewer_login(self) -> str | None:
        try:
            _, data = self.send(
                "read the token's GraphQL viewer",
                lambda: self._gh.requester.graphql_query("query { viewer { login } }", {}),
                safe=True,  # a query
            )
            login = data["data"]["viewer"]["login"]
        except (GitHubError, KeyError, TypeError):
            return None
        return login if isinstance(login, str) and login else None

    def _user_login(self) -> str | None:
        try:
            return str(call("read the token's user", lambda: self._gh.get_user().login))
        except GitHubError:
            return None

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
