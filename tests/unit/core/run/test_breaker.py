"""The dead-server breaker: when a streak of connection failures stops a run, and when not."""

from __future__ import annotations

from promptcanary.core.run.breaker import ConnectionBreaker, display_url


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_trips_after_the_threshold_once_the_streak_lasted_long_enough() -> None:
    clock = Clock()
    breaker = ConnectionBreaker(threshold=3, min_span_s=1.0, clock=clock)
    assert [breaker.on_connection_failure() for _ in range(5)] == [False] * 5  # all at once
    clock.now += 1.0
    assert breaker.on_connection_failure() is True
    assert breaker.tripped and breaker.streak == 6
    assert breaker.on_connection_failure() is False  # trips once


def test_never_trips_once_the_server_answered() -> None:
    clock = Clock()
    breaker = ConnectionBreaker(threshold=2, min_span_s=0.0, clock=clock)
    breaker.on_connection_failure()
    breaker.on_answer()
    assert breaker.streak == 0
    assert not any(breaker.on_connection_failure() for _ in range(50))


def test_zero_turns_it_off() -> None:
    breaker = ConnectionBreaker(threshold=0, min_span_s=0.0)
    assert not any(breaker.on_connection_failure() for _ in range(50))


def test_display_url_drops_what_may_hold_a_secret() -> None:
    assert display_url("http://u:pw-123@host:8000/v1?key=abc#x") == "http://host:8000/v1"
    assert display_url("https://[::1]:9/v1") == "https://[::1]:9/v1"
    assert display_url("http://host:notaport/v1") == "the configured base URL"
