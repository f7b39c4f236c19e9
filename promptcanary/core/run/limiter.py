"""Adaptive concurrency: additive increase, multiplicative decrease (AIMD), as TCP does.

The run starts with ``concurrency`` requests in flight. When the provider answers 429 the limit is
halved — once per "congestion event": the other requests that were already in flight when the
limit dropped and come back 429 too do not halve it again — and a pause is set until the
provider's ``Retry-After`` has passed, so nobody keeps hammering a server that asked us to wait.
Every success then adds ``1 / limit``, i.e. about one more slot per round of successful
requests, back up to the configured maximum.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Ticket:
    """A held slot. ``epoch`` is the limiter's decrease count when the slot was taken."""

    epoch: int


class AIMDLimiter:
    """An asyncio semaphore whose size adapts to rate limiting.

    Args:
        maximum: The configured concurrency; the limit never goes above it.
        minimum: The limit never goes below it.
        decrease_factor: Multiplier applied on a rate-limit event (0.5 halves).
        increase_step: Slots added per "round" of successes (``step / limit`` per success).

    Use :meth:`acquire` / :meth:`release` (or ``async with limiter.slot() as ticket``), and
    report outcomes with :meth:`on_success` and :meth:`on_rate_limited`.
    """

    def __init__(
        self,
        maximum: int,
        *,
        minimum: int = 1,
        decrease_factor: float = 0.5,
        increase_step: float = 1.0,
    ) -> None:
        if maximum < 1:
            raise ValueError("concurrency must be at least 1")
        self.maximum = maximum
        self.minimum = max(1, min(minimum, maximum))
        self.decrease_factor = decrease_factor
        self.increase_step = increase_step
        self._limit = float(maximum)
        self._in_flight = 0
        self._epoch = 0
        self._pause_until = 0.0
        self._cond: asyncio.Condition | None = None
        #: Smallest limit reached during the run (for reports and tests).
        self.lowest_limit = maximum
        #: Number of times the limit was lowered.
        self.decreases = 0

    @property
    def limit(self) -> int:
        """Current number of requests allowed in flight."""
        return max(self.minimum, int(self._limit))

    @property
    def in_flight(self) -> int:
        """Slots currently held."""
        return self._in_flight

    def _condition(self) -> asyncio.Condition:
        # Created lazily so the limiter can be built outside the event loop that uses it.
        if self._cond is None:
            self._cond = asyncio.Condition()
        return self._cond

    async def acquire(self) -> Ticket:
        """Wait for a free slot (and for any rate-limit pause to pass), then take it."""
        cond = self._condition()
        async with cond:
            await cond.wait_for(lambda: self._in_flight < self.limit)
            self._in_flight += 1
            ticket = Ticket(self._epoch)
        await self.wait_pause()
        return ticket

    async def release(self) -> None:
        """Give a slot back and wake a waiter."""
        cond = self._condition()
        async with cond:
            self._in_flight -= 1
            cond.notify_all()

    def slot(self) -> _Slot:
        """``async with limiter.slot() as ticket:`` — acquire, and release on exit."""
        return _Slot(self)

    async def wait_pause(self) -> None:
        """Sleep until the provider's last Retry-After has passed (no-op when none is pending)."""
        while True:
            remaining = self._pause_until - time.monotonic()
            if remaining <= 0:
                return
            await asyncio.sleep(remaining)

    def pause(self, seconds: float) -> None:
        """Hold every new attempt back for ``seconds`` (a provider's Retry-After)."""
        if seconds > 0:
            self._pause_until = max(self._pause_until, time.monotonic() + seconds)

    async def on_success(self) -> None:
        """Additive increase: about one more slot per round of successful requests."""
        if self._limit >= self.maximum:
            return
        cond = self._condition()
        async with cond:
            self._limit = min(float(self.maximum), self._limit + self.increase_step / self._limit)
            cond.notify_all()

    def on_rate_limited(self, ticket: Ticket, retry_after_s: float | None = None) -> None:
        """Multiplicative decrease, at most once per congestion event, and a pause."""
        if retry_after_s:
            self.pause(retry_after_s)
        if ticket.epoch != self._epoch:
            return  # the limit already dropped since this request was sent
        self._epoch += 1
        self.decreases += 1
        self._limit = max(float(self.minimum), self._limit * self.decrease_factor)
        self.lowest_limit = min(self.lowest_limit, self.limit)

    def refresh(self, ticket: Ticket) -> Ticket:
        """A ticket for the current epoch (for a request that is about to retry)."""
        return Ticket(self._epoch) if ticket.epoch != self._epoch else ticket


class _Slot:
    def __init__(self, limiter: AIMDLimiter) -> None:
        self._limiter = limiter

    async def __aenter__(self) -> Ticket:
        return await self._limiter.acquire()

    async def __aexit__(self, *exc: object) -> None:
        await self._limiter.release()
