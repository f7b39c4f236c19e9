"""Retry policy: what is retried, how long we wait, and how Retry-After headers are read."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from promptcanary.core.run.retry import RetryPolicy, error_type_for, is_retryable
from promptcanary.errors import ProviderAuthError, ProviderError
from promptcanary.providers.base import parse_retry_after


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 529, None])
def test_transient_statuses_are_retried(status: int | None) -> None:
    assert is_retryable(ProviderError("boom", status_code=status))


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_client_errors_are_never_retried_even_if_flagged(status: int) -> None:
    assert not is_retryable(ProviderError("boom", status_code=status, retryable=True))


def test_auth_error_and_unknown_exceptions_are_not_retried() -> None:
    assert not is_retryable(ProviderAuthError("no", status_code=401))
    assert not is_retryable(ValueError("bug in a custom provider"))
    assert is_retryable(TimeoutError("slow"))
    assert is_retryable(ConnectionResetError("reset"))


def test_should_retry_stops_at_max_attempts() -> None:
    policy = RetryPolicy(max_attempts=3)
    err = ProviderError("busy", status_code=503)
    assert policy.should_retry(err, 1)
    assert policy.should_retry(err, 2)
    assert not policy.should_retry(err, 3)


def test_backoff_is_full_jitter_within_exponential_ceiling() -> None:
    policy = RetryPolicy(base_delay_s=0.5, max_delay_s=3.0)
    rng = random.Random(7)
    for attempt, ceiling in [(1, 0.5), (2, 1.0), (3, 2.0), (4, 3.0), (10, 3.0)]:
        draws = [policy.backoff(attempt, rng) for _ in range(300)]
        assert all(0.0 <= d <= ceiling for d in draws)
        # Full jitter spreads over the whole range, not just near the ceiling.
        assert min(draws) < ceiling * 0.1
        assert max(draws) > ceiling * 0.9


def test_retry_after_is_a_floor() -> None:
    policy = RetryPolicy(base_delay_s=0.01, max_delay_s=0.02)
    err = ProviderError("slow down", status_code=429, retry_after_s=2.0)
    rng = random.Random(1)
    delays = [policy.delay(err, 1, rng) for _ in range(100)]
    assert all(2.0 <= d <= 2.0 + 0.01 for d in delays)


def test_retry_after_is_capped() -> None:
    policy = RetryPolicy(max_retry_after_s=5.0, base_delay_s=0.1)
    err = ProviderError("later", status_code=429, retry_after_s=3600)
    assert 5.0 <= policy.delay(err, 1) <= 5.1


def test_parse_retry_after_variants() -> None:
    assert parse_retry_after({"Retry-After": "3"}) == 3.0
    assert parse_retry_after({"retry-after": "1.5"}) == 1.5
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    # The millisecond header is more precise and wins.
    assert parse_retry_after({"Retry-After": "1", "Retry-After-Ms": "1200"}) == 1.2
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=timezone.utc)
    http_date = format_datetime(now + timedelta(seconds=30), usegmt=True)
    assert parse_retry_after({"Retry-After": http_date}, now=now) == 30.0
    assert parse_retry_after({"Retry-After": "soon"}) is None
    assert parse_retry_after({"Retry-After": "-4"}) is None
    assert parse_retry_after({}) is None
    assert parse_retry_after(None) is None


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (ProviderAuthError("no", status_code=401), "auth"),
        (ProviderError("forbidden", status_code=403), "auth"),
        (ProviderError("slow down", status_code=429), "rate_limit"),
        (ProviderError("Request timed out", status_code=408), "timeout"),
        (ProviderError("InternalServerError: Connection error.", status_code=500), "connection"),
        (ProviderError("bad gateway", status_code=502), "server"),
        (ProviderError("unprocessable", status_code=422), "bad_request"),
        (ProviderError("no status"), "connection"),
        (TimeoutError("x"), "timeout"),
        (KeyError("x"), "unknown"),
    ],
)
def test_error_type_for(error: BaseException, kind: str) -> None:
    assert error_type_for(error) == kind
