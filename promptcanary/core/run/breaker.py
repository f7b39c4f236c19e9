"""Stopping a run early when the server is not there at all.

A server that refuses every connection (wrong port, nothing started, a DNS name that does not
resolve) would otherwise cost every request its full set of retries before the run ends with
"every request errored": 200 prompts took 51 s and 600 retries. The breaker trips when

* ``threshold`` attempts in a row failed to *connect* (error kind ``connection``: refused, reset,
  DNS; see :func:`~promptcanary.core.run.retry.error_type_for`),
* for at least ``min_span_s`` seconds (a blip while a server restarts is retried as before), and
* nothing has answered yet in this run.

Once anything answered — a completion, or any HTTP status, even a 500 — the server exists and the
breaker never trips again: a server that drops out mid-run is retried as before, and the run's
error rate (``max_error_rate``) decides whether the run can be used. Timeouts are not counted:
LiteLLM reports a connect timeout and a slow answer alike, and a slow server is not a dead one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

__all__ = ["ConnectionBreaker", "display_url"]


@dataclass
class ConnectionBreaker:
    """Counts connection failures; :attr:`tripped` once the server looks absent."""

    threshold: int = 5
    """Connection failures in a row (with nothing answered) that stop the run; 0: never."""
    min_span_s: float = 1.0
    """The streak must last this long: a server that is starting up gets a moment."""
    clock: Callable[[], float] = time.monotonic
    answered: int = 0
    streak: int = 0
    tripped: bool = False
    _since: float | None = field(default=None, repr=False)

    def on_answer(self) -> None:
        """The server answered something (a completion or an HTTP error status)."""
        self.answered += 1
        self.streak = 0
        self._since = None

    def on_connection_failure(self) -> bool:
        """One attempt could not connect. Returns True when this failure trips the breaker."""
        now = self.clock()
        if self._since is None:
            self._since = now
        self.streak += 1
        if (
            not self.tripped
            and self.threshold > 0
            and self.answered == 0
            and self.streak >= self.threshold
            and now - self._since >= self.min_span_s
        ):
            self.tripped = True
            return True
        return False


def display_url(url: str) -> str:
    """``url`` fit to be printed: no user name, password, query or fragment (where keys hide)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "the configured base URL"
    host = parts.hostname or ""
    if ":" in host:  # IPv6
        host = f"[{host}]"
    if port is not None:
        host += f":{port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))
