"""The CLI's optional background LiteLLM import (PROMPTCANARY_WARMUP=1; off by default)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from promptcanary.commands.common import start_litellm_warm_up


def warm_up_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "litellm-warm-up"]


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
    monkeypatch.setenv("PROMPTCANARY_WARMUP", "yes")
    assert start_litellm_warm_up(None) is True
    threads = warm_up_threads()
    assert threads and all(t.daemon for t in threads)
    for thread in threads:
        thread.join(timeout=60)
    import sys

    assert "litellm" in sys.modules
