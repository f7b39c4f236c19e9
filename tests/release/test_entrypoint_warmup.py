"""entrypoint.py's background LiteLLM import: when it starts, and that it can never hurt a run."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def entrypoint(monkeypatch: pytest.MonkeyPatch) -> tuple[ModuleType, list[Any]]:
    spec = importlib.util.spec_from_file_location("promptcanary_entrypoint", ROOT / "entrypoint.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    started: list[Any] = []

    class FakeThread:
        def __init__(self, **kwargs: Any) -> None:
            self.kwargs = kwargs

        def start(self) -> None:
            started.append(self.kwargs)

    monkeypatch.setattr(module.threading, "Thread", FakeThread)
    return module, started


@pytest.mark.parametrize("flag", ["1", "true", " ON "])
def test_starts_a_daemon_thread_when_asked(
    entrypoint: tuple[ModuleType, list[Any]], flag: str
) -> None:
    module, started = entrypoint
    assert module.start_warm_up({"PROMPTCANARY_WARMUP": flag}) is True
    assert len(started) == 1
    assert started[0]["daemon"] is True
    assert started[0]["target"] is module._warm_up_litellm


@pytest.mark.parametrize(
    "environ",
    [
        {},  # off by default: it measured no saving (docs/benchmarks.md)
        {"PROMPTCANARY_WARMUP": "0"},
        {"PROMPTCANARY_WARMUP": "false"},
        {"PROMPTCANARY_WARMUP": "1", "INPUT_REPLAY": "current-run.json"},  # no model call
    ],
)
def test_no_warm_up(entrypoint: tuple[ModuleType, list[Any]], environ: dict[str, str]) -> None:
    module, started = entrypoint
    assert module.start_warm_up(environ) is False
    assert started == []


def test_a_failing_import_is_silent(
    entrypoint: tuple[ModuleType, list[Any]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    module, _ = entrypoint
    # None in sys.modules makes `import litellm` raise ImportError.
    monkeypatch.setitem(sys.modules, "litellm", None)
    module._warm_up_litellm()
    assert capsys.readouterr() == ("", "")
