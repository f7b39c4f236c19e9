"""The CLI's optional background LiteLLM import (PROMPTCANARY_WARMUP=1; off by default)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from promptcanary.commands.common import start_litellm_warm_up


@pytest.mark.parametrize("value", [None, "0", "false", "off", ""])
def test_off_unless_asked(monkeypatch: pytest.MonkeyPatch, value: str | None) -> None:
    if value is None:
        monkeypatch.delenv("PROMPTCANARY_WARMUP", raising=False)
    else:
        monkeypatch.setenv("PROMPTCANARY_WARMUP", value)
    assert start_litellm_warm_up(None) is False


def test_never_for_a_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROMPTCANARY_WARMUP", "1")
    assert start_litellm_warm_up(Path("run.json")) is False


def test_on_starts_a_daemon_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[threading.Thread] = []

    class Recorded(threading.Thread):
        def start(self) -> None:
            started.append(self)
            super().start()

    monkeypatch.setattr(threading, "Thread", Recorded)
    monkeypatch.setenv("PROMPTCANARY_WARMUP", "yes")
    assert start_litellm_warm_up(None) is True
    assert [t.name for t in started] == ["litellm-warm-up"] and started[0].daemon
    started[0].join(timeout=60)
    import sys

    assert "litellm" in sys.modules
