"""A check featurises each prompt's screening answers once: the gate of ``samples: auto`` and
``compare``'s answer test share them (issue 30), through the real CLI, LiteLLM and a loopback
server. Counted at the featuriser, the one place every answer test's texts pass through."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from promptcanary.core.behaviour import features
from tests.fakes.cli import run_cli
from tests.fakes.llm_server import FakeLLMServer, last_user_text

PROMPTS = ["Name a colour", "Name a fruit", "Name a river"]
SUITE = "name: shared-spaces\nprobes:\n  - refusal\nprompts:\n" + "".join(
    f'  - "{p}"\n' for p in PROMPTS
)


def reply(request: dict[str, Any]) -> str:
    # One answer per prompt, always the same: nothing moves, so no prompt is topped up.
    return f"My answer to “{last_user_text(request)}” is this one."


def test_the_gate_and_compare_featurise_the_screening_answers_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "canary.yaml").write_text(SUITE, encoding="utf-8")
    with FakeLLMServer(reply) as server:
        flags = ["-c", "canary.yaml", "-p", "openai/fake", "--api-base", server.base_url]
        saved = run_cli("run", *flags, "--save-baseline", "--baseline-samples", "4",
                        "--no-progress", cwd=tmp_path)  # fmt: skip
        assert saved.returncode == 0, saved.stderr
        calls: list[int] = []
        real = features.featurise

        def counted(answers: Sequence[str]) -> Any:
            calls.append(len(answers))
            return real(answers)

        monkeypatch.setattr(features, "featurise", counted)
        done = run_cli("compare", *flags, "--output-json", "report.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "report.json").is_file()
    # The gate featurised each prompt's one distinct answer; compare's answer test found them
    # (without the check's scope it featurises them again: [3, 3]).
    assert calls == [len(PROMPTS)]
