"""How reads (``GET``) are retried: PyGithub's :class:`GithubRetry`, plus a 429 without
``Retry-After``.

GitHub answers a secondary rate limit with 403 *or 429*, and says: "If the ``retry-after`` response
header is present, you should not retry your request until after that many seconds has elapsed. If
the ``x-ratelimit-remaining`` header is ``0``, you should not retry your request until after the
time … specified by the ``x-ratelimit-reset`` header. Otherwise, wait for at least one minute before
retrying" (docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api). PyGithub retries a
403 that says so, and urllib3 a 429 only when it carries ``Retry-After``: a GET answered 429 without
it failed at once. Here it waits as GitHub asks (:func:`.github_calls.rate_limit_wait`) and is
sent again, as writes already are (:class:`.github_calls.Sender`). A wait longer than
:data:`.github_calls.MAX_RATE_WAIT_S` is reported instead of waited out.

Every pause goes through ``pause`` (``time.sleep`` in the Action), so tests record the waits
instead of sleeping through them.

Imported only when a client is made (PyGithub is imported with it).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from github import GithubException, GithubRetry

from promptcanary.action.github_calls import MAX_RATE_WAIT_S, rate_limit_wait

if TYPE_CHECKING:
    from types import TracebackType

    from typing_extensions import Self
    from urllib3.connectionpool import ConnectionPool
    from urllib3.response import BaseHTTPResponse, HTTPResponse
    from urllib3.util.retry import Retry

#: The statuses a read is sent again after: 5xx (PyGithub's default), and 429 (here).
RETRIED_STATUSES = [*range(500, 600), 429]


class ReadRetry(GithubRetry):
    """PyGithub's retry of reads, which also waits out a 429 without ``Retry-After``."""

    def __init__(self, *, pause: Callable[[float], None] = time.sleep, **kwargs: Any) -> None:
        self.pause = pause
        kwargs.setdefault("status_forcelist", list(RETRIED_STATUSES))
        kwargs.setdefault("max_rate_limit_wait", MAX_RATE_WAIT_S)
        super().__init__(**kwargs)

    def new(self, **kw: Any) -> Self:
        kw["pause"] = self.pause
        return super().new(**kw)

    def increment(  # type: ignore[override]
        self,
        method: str | None = None,
        url: str | None = None,
        response: HTTPResponse | None = None,
        error: Exception | None = None,
        _pool: ConnectionPool | None = None,
        _stacktrace: TracebackType | None = None,
    ) -> Retry:
        if response is None or response.status != 429 or "Retry-After" in response.headers:
            return super().increment(method, url, response, error, _pool, _stacktrace)
        message = _message(response, url)
        wait = rate_limit_wait(message, response.headers, secondary_wait_s=self.secondary_rate_wait)
        if wait > MAX_RATE_WAIT_S:
            raise GithubException(429, {"message": message}, dict(response.headers))
        retry = super().increment(method, url, response, error, _pool, _stacktrace)
        retry.get_backoff_time = lambda: wait  # type: ignore[method-assign]
        return retry

    def sleep(self, response: BaseHTTPResponse | None = None) -> None:
        """Pause before the next attempt: ``Retry-After`` when given, else the backoff."""
        wait = self.get_retry_after(response) if response is not None else None
        if wait is None:
            wait = self.get_backoff_time()
        if wait > 0:
            self.pause(wait)


def _message(response: HTTPResponse, url: str | None) -> str:
    """GitHub's ``message`` of a refused request ('' when the body is not GitHub's JSON)."""
    try:
        data = json.loads(GithubRetry.get_content(response, url or ""))
    except (ValueError, TypeError, OSError):
        return ""
    return str(data.get("message") or "") if isinstance(data, dict) else ""
