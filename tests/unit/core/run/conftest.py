"""Fixtures of the run's tests."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator

import pytest


@pytest.fixture
def python_default_sigint() -> Iterator[None]:
    """SIGINT handled as a terminal program starts with it: Python's default handler, in the main
    thread — where asyncio.run takes Ctrl-C as a cancellation (pytest-xdist workers may have
    another handler)."""
    assert threading.current_thread() is threading.main_thread()
    saved = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, saved)
