"""Showing a run's progress: a rich bar on a terminal, plain periodic lines elsewhere (CI logs).

The runner reports events to a :data:`~promptcanary.core.run.runner.ProgressCallback`
``(event, data)``:

* ``"start"``: ``{"total", "concurrency"}``, and ``"purpose"`` when the caller says what the
  batch is for (an adaptive check: screening, probe confirmation, answer-test top-up)
* ``"done"``: ``{"done", "errors", "retries", "total"}`` after each response is probed
* ``"retry"``: ``{"retries", "status"}`` when a request is about to be tried again
* ``"end"``: ``{"done", "errors", "retries", "total", "aborted"}`` once, when the run stops

:func:`make_progress` returns such a callback (or None when progress is off)::

    progress = make_progress(enabled=not no_progress)
    result = suite.run(provider, progress=progress, show_progress=False)
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any, Literal

ProgressMode = Literal["auto", "rich", "plain", "off"]


def make_progress(
    enabled: bool = True,
    *,
    mode: ProgressMode = "auto",
    stream: IO[str] | None = None,
    interval_s: float = 5.0,
    label: str = "Running canaries",
) -> ProgressDisplay | None:
    """A progress callback for a run, or None when progress is disabled.

    Args:
        enabled: False (``--no-progress``) returns None: nothing is shown.
        mode: ``auto`` picks ``rich`` when ``stream`` is a terminal and ``plain`` otherwise.
        stream: Where to write (default: standard error, so stdout stays clean for JSON).
        interval_s: Seconds between two plain lines.
        label: Text in front of the bar / lines.
    """
    if not enabled or mode == "off":
        return None
    out = stream if stream is not None else sys.stderr
    if mode == "auto":
        mode = "rich" if _isatty(out) else "plain"
    if mode == "rich":
        return RichProgress(stream=out, label=label)
    return PlainProgress(stream=out, interval_s=interval_s, label=label)


def _isatty(stream: IO[str]) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class ProgressDisplay:
    """Base of the displays: keeps the counts and the rate; subclasses draw them."""

    def __init__(self, *, label: str) -> None:
        self.label = label
        self._base_label = label
        self.total = 0
        self.done = 0
        self.errors = 0
        self.retries = 0
        self.aborted: str | None = None
        self.started = time.monotonic()
        self.finished = False

    def __call__(self, event: str, data: dict[str, Any]) -> None:
        if event == "start":
            # A display may serve several runs in a row (an adaptive check's screening and
            # confirmation rounds): each start begins a fresh count.
            self.total = int(data.get("total", 0))
            purpose = data.get("purpose")
            self.label = f"{self._base_label} ({purpose})" if purpose else self._base_label
            self.done = self.errors = self.retries = 0
            self.aborted = None
            self.finished = False
            self.started = time.monotonic()
            self.on_start()
            return
        self.done = int(data.get("done", self.done))
        self.errors = int(data.get("errors", self.errors))
        self.retries = int(data.get("retries", self.retries))
        if event == "end":
            self.aborted = data.get("aborted")
            if not self.finished:
                self.finished = True
                self.on_end()
        else:
            self.on_update()

    # ── derived figures ──
    @property
    def elapsed(self) -> float:
        """Seconds since the run started."""
        return max(1e-9, time.monotonic() - self.started)

    @property
    def rate(self) -> float:
        """Responses per second so far."""
        return self.done / self.elapsed

    @property
    def eta(self) -> float | None:
        """Seconds left at the current rate (None before the first response)."""
        if not self.done:
            return None
        return max(0.0, (self.total - self.done) / self.rate)

    def line(self) -> str:
        """One line of text: counts, rate, errors, ETA."""
        eta = self.eta
        parts = [
            f"{self.label}: {self.done}/{self.total}",
            f"{self.rate:.1f}/s",
            f"{self.errors} error(s)",
        ]
        if self.retries:
            parts.append(f"{self.retries} retr{'y' if self.retries == 1 else 'ies'}")
        if self.finished:
            parts.append(f"in {self.elapsed:.1f}s")
        elif eta is not None:
            parts.append(f"ETA {eta:.0f}s")
        text = ", ".join(parts)
        if self.aborted:
            text += f" — stopped: {self.aborted}"
        return text

    # ── hooks ──
    def on_start(self) -> None:
        """The run started (``total`` is known)."""

    def on_update(self) -> None:
        """Counts changed."""

    def on_end(self) -> None:
        """The run stopped."""


class PlainProgress(ProgressDisplay):
    """One line every ``interval_s`` seconds, and a final line; for logs without a terminal."""

    def __init__(self, *, stream: IO[str], interval_s: float = 5.0, label: str) -> None:
        super().__init__(label=label)
        self.stream = stream
        self.interval_s = interval_s
        self._last = 0.0

    def _write(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()

    def on_start(self) -> None:
        self._last = time.monotonic()
        self._write(f"{self.label}: {self.total} request(s)")

    def on_update(self) -> None:
        now = time.monotonic()
        if now - self._last >= self.interval_s:
            self._last = now
            self._write(self.line())

    def on_end(self) -> None:
        self._write(self.line())


class RichProgress(ProgressDisplay):
    """A live rich progress bar: done/total, rate, errors, ETA."""

    def __init__(self, *, stream: IO[str], label: str) -> None:
        super().__init__(label=label)
        self.stream = stream
        self._progress: Any = None
        self._task: Any = None

    def on_start(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            TextColumn("[cyan]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}/s"),
            TextColumn("[red]{task.fields[errors]} err"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(file=self.stream),
            transient=False,
        )
        self._progress.start()
        self._task = self._progress.add_task(self.label, total=self.total, rate="0.0", errors=0)

    def on_update(self) -> None:
        if self._progress is None:
            return
        self._progress.update(
            self._task, completed=self.done, rate=f"{self.rate:.1f}", errors=self.errors
        )

    def on_end(self) -> None:
        if self._progress is None:
            return
        self.on_update()
        self._progress.stop()
        self._progress = None
        if self.aborted:
            self.stream.write(f"Run stopped early: {self.aborted}\n")
