"""Ctrl-C cancels a run, on every Python we support: what ``asyncio.run`` does since 3.11.

Since Python 3.11, ``asyncio.run`` takes the first SIGINT as "cancel the main task" (the run
catches the cancellation and keeps every answer that arrived) and raises KeyboardInterrupt once
the task has ended; a second SIGINT raises at once. Python 3.10's ``asyncio.run`` does neither:
the KeyboardInterrupt is raised inside whatever coroutine is running and leaves the loop at
once, so a run interrupted there would lose its answers (and ``--workers`` its workers' parts).

:func:`cancelled_on_sigint` wraps the main coroutine to do the same on 3.10. It installs its
handler under the same conditions as ``asyncio.run`` (main thread, Python's own SIGINT handler
in place), so on 3.11 and later, where ``asyncio.run`` has already replaced that handler, it
only awaits the coroutine.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Coroutine
from types import FrameType
from typing import Any, TypeVar

__all__ = ["cancelled_on_sigint"]

T = TypeVar("T")


async def cancelled_on_sigint(main: Coroutine[Any, Any, T]) -> T:
    """Await ``main``; the first SIGINT cancels it and then raises KeyboardInterrupt, as
    ``asyncio.run`` of Python 3.11 does. Must be the loop's main task (what ``asyncio.run``
    is given): the cancellation is of the task running it."""
    if not (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    ):
        return await main
    task = asyncio.current_task()
    assert task is not None  # awaited inside a running loop
    loop = asyncio.get_running_loop()
    interrupts = 0

    def on_sigint(signum: int, frame: FrameType | None) -> None:
        nonlocal interrupts
        interrupts += 1
        if interrupts == 1 and not task.done():
            task.cancel()
            # Wakes the loop if it is waiting in select() with nothing else due (as 3.11 does).
            loop.call_soon_threadsafe(lambda: None)
            return
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_sigint)
    try:
        return await main
    except asyncio.CancelledError:
        if interrupts:
            raise KeyboardInterrupt from None
        raise
    finally:
        if signal.getsignal(signal.SIGINT) is on_sigint:
            signal.signal(signal.SIGINT, signal.default_int_handler)
