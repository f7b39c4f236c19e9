"""When and how long to wait before trying a failed provider call again.

The policy is generic: it looks only at :class:`~promptcanary.errors.ProviderError` (its
``status_code``, ``retryable`` flag and ``retry_after_s``), so custom providers get the same retries
as LiteLLM. Rules:

* retried: 408, 409, 429, every 5xx, connection errors and timeouts (no status);
* never retried: 400, 401, 403, 404, 422 (and every other 4xx) — trying again cannot help;
* the wait is exponential backoff with *full jitter* (a uniform draw between 0 and
  ``base * 2**(attempt-1)``, capped), which spreads the retries of many concurrent requests;
* a ``Retry-After`` / ``retry-after-ms`` the provider sent is honoured: we never retry sooner.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from promptcanary.errors import ProviderAuthError, ProviderError, RequestNotSentError

#: Statuses that are never retried, whatever a provider says about them.
NEVER_RETRY = frozenset({400, 401, 403, 404, 422})


@dataclass(frozen=True)
class RetryPolicy:
    """How many attempts a request gets and how long to wait between them.

    Args:
        max_attempts: Attempts per request, the first one included (1 = no retry).
        base_delay_s: Backoff scale: the n-th retry waits up to ``base * 2**(n-1)`` seconds.
        max_delay_s: Cap of the jittered backoff.
        max_retry_after_s: Cap on a provider's ``Retry-After`` (a server asking for an hour is
            not waited on for an hour; the attempt after the cap will tell).
    """

    max_attempts: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0
    max_retry_after_s: float = 120.0

    def should_retry(self, error: BaseException, attempt: int) -> bool:
        """True when ``error`` (from attempt number ``attempt``, 1-based) deserves another try."""
        return attempt < self.max_attempts and is_retryable(error)

    def backoff(self, attempt: int, rng: random.Random | None = None) -> float:
        """Full-jitter backoff before retry number ``attempt`` (1 = first retry)."""
        ceiling = min(self.max_delay_s, self.base_delay_s * (2 ** max(0, attempt - 1)))
        return (rng or random).uniform(0.0, ceiling)

    def delay(self, error: BaseException, attempt: int, rng: random.Random | None = None) -> float:
        """Seconds to wait after ``error`` on attempt ``attempt`` before the next one.

        The provider's ``Retry-After`` is a floor: we wait at least that long, plus a little
        jitter so that every request told "retry in 1 s" does not come back in the same instant.
        """
        wait = self.backoff(attempt, rng)
        retry_after = getattr(error, "retry_after_s", None)
        if retry_after is not None and retry_after > 0:
            floor = min(float(retry_after), self.max_retry_after_s)
            spread = min(self.base_delay_s, 0.25 * floor)
            wait = max(wait, floor + (rng or random).uniform(0.0, spread))
        return wait


def is_retryable(error: BaseException) -> bool:
    """Whether trying again may succeed: the error's own verdict, minus the never-retry statuses."""
    if isinstance(error, ProviderAuthError):
        return False
    if isinstance(error, ProviderError):
        if error.status_code in NEVER_RETRY:
            return False
        return bool(error.retryable)
    # Custom providers may let low-level network errors through; those are worth another try.
    return isinstance(error, (TimeoutError, ConnectionError))


#: Failures whose class alone says their kind, checked in this order.
_KINDS_BY_CLASS: tuple[tuple[type[BaseException], str], ...] = (
    (RequestNotSentError, "not_sent"),  # refused by the client library: nothing was sent
    (ProviderAuthError, "auth"),
    (TimeoutError, "timeout"),
    (ConnectionError, "connection"),
)


def error_type_for(error: BaseException) -> str:
    """Machine-readable kind of a failure, stored on :attr:`LLMResponse.error_type`.

    One of: auth, rate_limit, timeout, server, connection, bad_request, bad_response, not_sent,
    unknown.
    """
    for kind, name in _KINDS_BY_CLASS:
        if isinstance(error, kind):
            return name
    if not isinstance(error, ProviderError):
        return "unknown"
    status = error.status_code
    text = str(error).lower()
    if status in (401, 403):
        return "auth"
    if status == 429:
        return "rate_limit"
    # Answered, but not with a readable chat completion (whatever words the body holds).
    if status is not None and 200 <= status < 300:
        return "bad_response"
    if status == 408 or "timed out" in text or "timeout" in text:
        return "timeout"
    # LiteLLM reports a refused connection as a 500 "Connection error."; name it for what it is.
    if status is None or "connection error" in text or "connection refused" in text:
        return "connection"
    if status >= 500:
        return "server"
    if 400 <= status < 500:
        return "bad_request"
    return "unknown"
