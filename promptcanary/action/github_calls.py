"""How one GitHub request is made safely: errors translated at the edge, writes retried only when
repeating them cannot do harm.

PyGithub's own retry is left to reads (``GET``). A write goes through :class:`Sender`:

- refused by a rate limit (a 429, or a 403 saying "rate limit" or carrying ``Retry-After``): the
  write was not applied, so it is sent again after ``Retry-After`` seconds, or at least a minute
  without one (GitHub's advice for secondary rate limits);
- answered 5xx or cut off: the write may have been applied. A write that is *safe* to repeat
  (the same edit again, a query) is repeated; any other is read back first and only sent again
  when the read-back shows it did not land (a comment posted twice, or a second workflow run
  paid for, is worse than one lost answer).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from promptcanary.errors import GitHubError

T = TypeVar("T")

#: GitHub's advice for a secondary rate limit without ``Retry-After``: wait at least a minute.
SECONDARY_RATE_WAIT_S = 60.0
#: A rate limit asking for a longer wait than this is reported instead of waited out (a job
#: should not sit for an hour on a primary rate limit reset).
MAX_RATE_WAIT_S = 900.0


def poll(
    probe: Callable[[], T | None], *, pauses: Sequence[float], pause: Callable[[float], None]
) -> T | None:
    """``probe()`` after each of ``pauses`` until it finds something; None when it never does.
    For reading back a write whose effect GitHub creates after answering (a dispatched run)."""
    for seconds in pauses:
        pause(seconds)
        found = probe()
        if found is not None:
            return found
    return None


def call(what: str, fn: Callable[[], T]) -> T:
    """``fn()`` with PyGithub and transport failures turned into :class:`GitHubError`."""
    with translate(what):
        return fn()


@contextmanager
def translate(what: str) -> Iterator[None]:
    """Turn PyGithub / transport failures into :class:`GitHubError` saying what failed."""
    from github import GithubException
    from requests import RequestException

    try:
        yield
    except GithubException as exc:
        raise github_error(what, exc) from None
    except RequestException as exc:
        raise transport_error(what, exc) from None


def github_error(what: str, exc: Any) -> GitHubError:
    """The :class:`GitHubError` for a PyGithub ``GithubException``."""
    message = exc.data.get("message") if isinstance(exc.data, dict) else None
    limited = is_rate_limit(exc.status, str(message or ""), exc.headers)
    return GitHubError(
        f"GitHub refused to {what}: HTTP {exc.status}" + (f" ({message})" if message else ""),
        status=exc.status,
        hint=hint_for(exc.status, message or "", rate_limited=limited),
        github_message=str(message or ""),
        rate_limited=limited,
    )


def transport_error(what: str, exc: Exception) -> GitHubError:
    """The :class:`GitHubError` for a failed connection or retries used up on 5xx answers."""
    # Retries used up on 5xx answers surface as a RetryError naming the last status.
    found = re.search(r"too many (\d{3}) error", str(exc))
    status = int(found.group(1)) if found else None
    reason = f"HTTP {status} after retries" if status else type(exc).__name__
    return GitHubError(
        f"GitHub failed to {what}: {reason}",
        status=status,
        hint="GitHub may be having an outage.",
    )


def hint_for(status: int, message: str = "", *, rate_limited: bool = False) -> str | None:
    """What to do about a refusal, from its status and GitHub's message. A caller that knows
    the operation names its one permission instead (:mod:`.permissions`)."""
    if rate_limited or is_rate_limit(status, message, {}):
        return "GitHub rate-limited this token; the next run will try again."
    if status == 401:
        return (
            "GitHub did not accept the token (expired, revoked or mistyped): check the "
            "`github-token` input."
        )
    if status == 404:
        return (
            "Either it does not exist, or the token may not see it (a private repository "
            "answers 404 to a token without access): check the `github-token` input and the "
            "job's `permissions:`."
        )
    if status == 403:
        return (
            "Give the workflow the permissions PromptCanary needs (pull-requests: write for "
            "comments, issues: write for the promote label and watch issues, checks: write for "
            "the check run, contents: write for promotion, actions: write to start the check "
            "after a promotion) or pass a token that has them as `github-token`."
        )
    if status == 422:
        return "GitHub rejected the request as invalid (for a comment: usually too long)."
    return None


def _header(headers: Mapping[str, Any] | None, name: str) -> str | None:
    for key, value in (headers or {}).items():
        if str(key).lower() == name.lower():
            return str(value)
    return None


def is_rate_limit(status: int | None, message: str, headers: Mapping[str, Any] | None) -> bool:
    """A refusal that only says "not now": 429, or a 403 about a rate limit."""
    if status == 429:
        return True
    return status == 403 and (
        "rate limit" in message.lower() or _header(headers, "Retry-After") is not None
    )


def rate_limit_wait(
    message: str,
    headers: Mapping[str, Any] | None,
    *,
    secondary_wait_s: float,
    now: float | None = None,
) -> float:
    """Seconds to wait before sending a rate-limited request again: ``Retry-After`` when GitHub
    gives it, the reset time of a primary limit, else ``secondary_wait_s``."""
    retry_after = _header(headers, "Retry-After")
    if retry_after is not None and retry_after.strip().isdigit():
        return float(retry_after)
    reset = _header(headers, "X-RateLimit-Reset")
    if "api rate limit exceeded" in message.lower() and reset and reset.isdigit():
        return max(1.0, int(reset) - (time.time() if now is None else now) + 1)
    return secondary_wait_s


@dataclass
class Sender:
    """Sends writes under the rules in the module docstring.

    Args:
        attempts: How many times one write may be sent in all.
        backoff_s: First pause before repeating a write after a 5xx (doubled each time).
        secondary_wait_s: Pause after a secondary rate limit without ``Retry-After``.
        sleep: How to pause (tests pass a recorder instead of waiting).
    """

    attempts: int = 4
    backoff_s: float = 1.0
    secondary_wait_s: float = SECONDARY_RATE_WAIT_S
    sleep: Callable[[float], None] = time.sleep
    waits: list[float] = field(default_factory=list)
    """Every pause taken, in order (read by tests and by nobody else)."""

    def pause(self, seconds: float) -> None:
        """Wait ``seconds`` (recorded in :attr:`waits`)."""
        self.waits.append(seconds)
        self.sleep(seconds)

    def send(
        self,
        what: str,
        fn: Callable[[], T],
        *,
        safe: bool = False,
        read_back: Callable[[], T | None] | None = None,
    ) -> T:
        """``fn()``; see the module docstring for when it is sent again.

        ``read_back`` returns the write's result when it was applied after all, None when it
        was not. A write that is neither ``safe`` nor readable back is never repeated after a
        5xx.
        """
        from github import GithubException
        from requests import RequestException

        attempt = 0
        while True:
            attempt += 1
            last = attempt >= self.attempts
            try:
                return fn()
            except GithubException as exc:
                data = exc.data if isinstance(exc.data, dict) else {}
                message = str(data.get("message") or "")
                if is_rate_limit(exc.status, message, exc.headers) and not last:
                    wait = rate_limit_wait(
                        message, exc.headers, secondary_wait_s=self.secondary_wait_s
                    )
                    if wait <= MAX_RATE_WAIT_S:
                        self.pause(wait)
                        continue
                if exc.status < 500:
                    raise github_error(what, exc) from None
                failure: GitHubError = GitHubError(
                    f"GitHub failed to {what}: HTTP {exc.status} after retries"
                    if attempt > 1
                    else github_error(what, exc).message,
                    status=exc.status,
                    hint="GitHub may be having an outage.",
                )
                if last:
                    raise failure from None
            except RequestException as exc:
                if last:
                    raise transport_error(what, exc) from None
                failure = transport_error(what, exc)
            # A 5xx or a lost answer: the write may have landed.
            if not safe:
                if read_back is None:
                    raise failure
                applied = call(f"look up whether the earlier attempt to {what} landed", read_back)
                if applied is not None:
                    return applied
            self.pause(self.backoff_s * 2 ** (attempt - 1))
