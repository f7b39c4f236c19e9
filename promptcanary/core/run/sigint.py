"""Ctrl-C cancels a run, on every Python we support: what ``asyncio.run`` does since 3.11.

Since Python 3.11, ``asyncio.run`` takes the first SIGINT as "cancel the main task" (the run
catches the cancellation and keeps every answer that arrived) and raises KeyboardInterrupt once
the task has ended; a second SIGINT raises at once. Python 3.10's ``asyncio.run`` does neither:
the KeyboardInterrupt is raised inside whatever coroutine is running and leaves the loop at
once, so a run interrupted there would lose its answers (and ``--workers`` its workers' parts).

:func:`run` is ``asyncio.run`` on 3.11 and later, :func:`run_cancelling_on_sigint` on 3.10:
the same handling, installed under the same conditions (main thread, Python's own SIGINT
handler in place) and, as there, put back around the loop rather than inside the task, so a
task abandoned when the loop closes cannot leave it behind.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
from collections.abc import Coroutine
from types import FrameType
from typing import Any, TypeVar

__all__ = ["run", "run_cancelling_on_sigint"]

T = TypeVar("T")


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``, the first Ctrl-C cancelling ``main`` as on Python 3.11."""
    if sys.version_info >= (3, 11):
        return asyncio.run(main)
    return run_cancelling_on_sigint(main)


def run_cancelling_on_sigint(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` with 3.11's SIGINT handling installed by hand: the first SIGINT
    cancels ``main``'s task, and KeyboardInterrupt is raised once it has ended; a second one
    (or one before the task runs) raises at once. Works on 3.11+ too, where ``asyncio.run``,
    seeing a handler in place, leaves it alone: that is how the tests run it everywhere."""
    if not (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    ):
        return asyncio.run(main)
    running: list[tuple[asyncio.Task[Any], asyncio.AbstractEventLoop]] = []
    interrupts = 0

    def on_sigint(signum: int, frame: FrameType | None) -> None:
        nonlocal interrupts
        interrupts += 1
        if interrupts == 1 and running:
            task, loop = running[0]
            if not task.done() and not loop.is_closed():
                task.cancel()
                # Wakes the loop if it waits in select() with nothing else due (as 3.11 does).
                loop.call_soon_threadsafe(lambda: None)
                return
        raise KeyboardInterrupt

    async def main_task() -> T:
        task = asyncio.current_task()
        assert task is not None  # awaited by asyncio.run, inside its loop
        running.append((task, asyncio.get_running_loop()))
        return await main

    signal.signal(signal.SIGINT, on_sigint)
    try:
        result = asyncio.run(main_task())
    except asyncio.CancelledError:
        if interrupts:
            raise KeyboardInterrupt from None
        raise
    finally:
        if signal.getsignal(signal.SIGINT) is on_sigint:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    if interrupts:
        # The task caught the cancellation and returned: 3.11's asyncio.run still raises
        # KeyboardInterrupt once it has ended (the caller keeps what the task kept).
        raise KeyboardInterrupt
    return result
