"""AIMD limiter: halve on 429 (once per congestion event), grow back after successes."""

from __future__ import annotations

import asyncio

import pytest

from promptcanary.core.run.limiter import AIMDLimiter


def test_rate_limit_halves_once_per_congestion_event() -> None:
    async def scenario() -> AIMDLimiter:
        limiter = AIMDLimiter(16)
        tickets = [await limiter.acquire() for _ in range(8)]
        # Eight requests sent before the drop all come back 429: one decrease, not eight.
        for ticket in tickets:
            limiter.on_rate_limited(ticket)
        assert limiter.limit == 8
        # A request sent after the drop that is limited again halves again.
        fresh = limiter.refresh(tickets[0])
        limiter.on_rate_limited(fresh)
        assert limiter.limit == 4
        return limiter

    limiter = asyncio.run(scenario())
    assert limiter.decreases == 2
    assert limiter.lowest_limit == 4


def test_limit_never_below_minimum_and_grows_back_to_maximum() -> None:
    async def scenario() -> list[int]:
        limiter = AIMDLimiter(4, minimum=1)
        for _ in range(5):
            limiter.on_rate_limited(limiter.refresh(await limiter.acquire()))
            await limiter.release()
        seen = [limiter.limit]
        for _ in range(30):
            await limiter.on_success()
            seen.append(limiter.limit)
        return seen

    seen = asyncio.run(scenario())
    assert seen[0] == 1
    assert seen == sorted(seen)  # additive increase only goes up
    assert seen[-1] == 4  # and stops at the configured concurrency


def test_acquire_waits_when_the_limit_is_reached() -> None:
    async def scenario() -> tuple[bool, bool]:
        limiter = AIMDLimiter(2)
        await limiter.acquire()
        await limiter.acquire()
        third = asyncio.ensure_future(limiter.acquire())
        await asyncio.sleep(0.01)
        blocked = not third.done()
        await limiter.release()
        await asyncio.wait_for(third, 1.0)
        return blocked, third.done()

    blocked, admitted = asyncio.run(scenario())
    assert blocked and admitted


def test_pause_holds_new_acquisitions() -> None:
    async def scenario() -> bool:
        limiter = AIMDLimiter(4)
        limiter.pause(0.2)
        waiter = asyncio.ensure_future(limiter.acquire())
        await asyncio.sleep(0.05)
        held = not waiter.done()
        await asyncio.wait_for(waiter, 2.0)
        return held

    assert asyncio.run(scenario())


def test_concurrency_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        AIMDLimiter(0)
