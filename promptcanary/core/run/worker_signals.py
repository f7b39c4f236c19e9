"""Ctrl-C across forked workers: every worker stops exactly once, and its answers come back.

A worker stops the way a single run does: its ``asyncio.run`` takes the first SIGINT as "cancel
the run, keep what arrived" and a second one as "raise at once, keep nothing". So each worker
must see exactly one SIGINT, however Ctrl-C arrives:

* from a terminal, SIGINT goes to the whole process group, parent and workers at once;
* from ``kill -INT PID`` or a CI runner cancelling the job, it reaches the parent alone.

The parent is the one that always hears it, so the parent tells the workers. A worker starts
with SIGINT blocked (held pending, never delivered, in every thread it starts), so the
terminal's SIGINT waits; on the parent's word (SIGUSR1) the worker raises SIGINT at its own
process, where it merges with the terminal's if one is pending (a blocked signal is pending
once, however often it is sent), and unblocks it: one SIGINT, whichever way Ctrl-C came.

The parent takes the first Ctrl-C as "collect": it tells every worker still running and keeps
waiting for their parts. A second Ctrl-C raises KeyboardInterrupt in the parent at once (the
caller kills the workers). Both signals are blocked in the parent while it forks, so a worker
is born with them blocked and no Ctrl-C is lost between a fork and the handlers taking over.

Only in the main thread, with Python's own SIGINT handler in place (as ``asyncio.run`` decides):
elsewhere the parent hears no Ctrl-C (or an application's handler does), and the workers keep
the default, stopping on a SIGINT of their own.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

__all__ = ["can_collect", "collecting", "forking", "hold_stop_signals", "listen_for_stop"]

#: The parent's word to a worker: stop as Ctrl-C stops a run.
STOP = signal.SIGUSR1
_HELD = {signal.SIGINT, STOP}


def can_collect() -> bool:
    """True where the parent can hear Ctrl-C and tell its workers (see the module's docstring)."""
    return (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )


@contextlib.contextmanager
def forking(collect: bool) -> Iterator[Callable[[], None]]:
    """Around starting the workers: SIGINT and the stop signal blocked (inherited by each
    worker) when ``collect``. Yields ``release``, which restores this thread's mask, to be
    called once :func:`collecting` handles SIGINT (a Ctrl-C held meanwhile is delivered then);
    the mask is restored on the way out in any case."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD) if collect else None

    def release() -> None:
        nonlocal before
        if before is not None:
            mask, before = before, None
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)

    try:
        yield release
    finally:
        release()


@contextlib.contextmanager
def collecting(collect: bool, workers: Sequence[Any]) -> Iterator[threading.Event]:
    """While the parent waits for ``workers`` (multiprocessing processes): the first Ctrl-C sets
    the event and tells each worker still running to stop; a second raises KeyboardInterrupt."""
    noted = threading.Event()
    if not collect:
        yield noted
        return

    def note(signum: int, frame: Any) -> None:
        if noted.is_set():
            raise KeyboardInterrupt
        noted.set()
        for process in workers:
            # exitcode polls without blocking: a worker that has exited is reaped here and
            # skipped, so a pid the system may since have given to another process is never
            # signalled (an unreaped worker keeps its pid).
            if process.exitcode is None:
                with contextlib.suppress(OSError):
                    os.kill(process.pid, STOP)

    signal.signal(signal.SIGINT, note)
    try:
        yield noted
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def listen_for_stop(collect: bool) -> None:
    """In a worker, first thing: stop on the parent's word (SIGINT stays blocked until then)."""
    if collect:
        signal.signal(STOP, _stop_requested)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {STOP})


def hold_stop_signals() -> None:
    """In a worker holding what it will send: no later Ctrl-C or word may cut the sending short
    (a second Ctrl-C stops the parent, which kills its workers)."""
    signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)


def _stop_requested(signum: int, frame: Any) -> None:
    # Process-directed, so it is pending once with a SIGINT the terminal sent (a thread-directed
    # one would be pending a second time, on the thread: two SIGINTs, the second losing the run).
    os.kill(os.getpid(), signal.SIGINT)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
