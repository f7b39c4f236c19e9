"""Big runs say what they will send and cost, and ask first in a terminal.

Through the CLI in process and the real LiteLLM stack against the loopback server; a terminal is
a stand-in stdin that says it is a TTY and answers the question.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from tests.fakes.cli import run_cli
from tests.fakes.llm_server import FakeLLMServer, Reply


class Terminal(io.StringIO):
    """stdin of a person at a terminal, who will type ``answer``."""

    def isatty(self) -> bool:
        return True


def _suite(prompts: int, samples: str = "auto") -> str:
    lines = "\n".join(f"  - 'Say OK {i}'" for i in range(prompts))
    return (
        f"name: big-run\nsamples: {samples}\nbaseline_samples: 10\n"
        f"probes:\n  - response_length\nprompts:\n{lines}\n"
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "canary.yaml").write_text(_suite(4), encoding="utf-8")
    return tmp_path


#: 4 prompts x 10 baseline samples = 40 requests: over a threshold of 30. (Only the run's size
#: against the threshold matters; a small run keeps the tests that send it cheap.)
SMALL_THRESHOLD = {"PROMPTCANARY_CONFIRM_REQUESTS": "30", "CI": None}


def _run(project: Path, server: FakeLLMServer, *flags: str, env: dict | None = None):  # type: ignore[no-untyped-def]
    return run_cli(
        "run", "-s", "-p", "openai/x", "--api-base", server.base_url, "--no-progress", *flags,
        cwd=project, env_extra=env or SMALL_THRESHOLD,
    )  # fmt: skip


def test_a_big_run_in_a_terminal_asks_and_no_sends_nothing(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", Terminal("n\n"))
    with FakeLLMServer() as server:
        result = _run(project, server)
        assert server.requests == []
    assert result.returncode == 2, result.stderr
    assert "Plan: 40 request(s) (4 prompt(s) x 10) on openai/x" in result.stderr
    assert "Send them? [y/N]" in result.stderr
    assert "not confirmed: nothing was sent" in result.stderr
    assert not (project / "baselines").exists() or not any((project / "baselines").iterdir())


def test_yes_at_the_question_sends_the_run(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", Terminal("y\n"))
    with FakeLLMServer() as server:
        result = _run(project, server)
        assert len(server.requests) == 40
    assert result.returncode == 0, result.stderr
    assert "Send them? [y/N]" in result.stderr


@pytest.mark.parametrize(
    ("flags", "env"),
    [
        (["--yes"], SMALL_THRESHOLD),
        (["-y"], SMALL_THRESHOLD),
        ([], {**SMALL_THRESHOLD, "CI": "true"}),  # CI never asks
        ([], {"CI": None}),  # under the default threshold of 1,000 requests
    ],
)
def test_no_question_with_yes_in_ci_or_under_the_threshold(
    project: Path, monkeypatch: pytest.MonkeyPatch, flags: list[str], env: dict
) -> None:
    stdin = Terminal("n\n")
    monkeypatch.setattr(sys, "stdin", stdin)
    with FakeLLMServer() as server:
        result = _run(project, server, *flags, env=env)
        assert len(server.requests) == 40
    assert result.returncode == 0, result.stderr
    assert "Plan: 40 request(s)" in result.stderr  # the plan is always told
    assert "Send them?" not in result.stderr
    assert stdin.tell() == 0  # nothing was read


def test_without_a_terminal_a_big_run_is_sent_after_its_plan(project: Path) -> None:
    with FakeLLMServer() as server:  # pytest's stdin is not a terminal
        result = _run(project, server)
        assert len(server.requests) == 40
    assert result.returncode == 0, result.stderr
    assert "Plan: 40 request(s)" in result.stderr and "Send them?" not in result.stderr


def test_compare_prices_its_screening_from_the_baseline_and_asks_over_a_dollar(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # gpt-4o-mini is in LiteLLM's local price map: 100k in + 10k out tokens cost about $0.021 a
    # request, so 12 prompts x 3 screening samples come to about $0.77 ... x 10 would be over $1.
    reply = Reply(content="OK", prompt_tokens=100_000, completion_tokens=10_000)
    (project / "canary.yaml").write_text(
        _suite(12).replace("baseline_samples: 10", "baseline_samples: 2\nscreening_samples: 5"),
        encoding="utf-8",
    )
    model = ["-p", "openai/gpt-4o-mini"]
    with FakeLLMServer(lambda r: reply) as server:
        args = (*model, "--api-base", server.base_url, "--no-progress")
        saved = run_cli("run", "-s", *args, "-y", cwd=project, env_extra={"CI": None})
        assert saved.returncode == 0, saved.stderr
        assert (
            "Plan: 24 request(s) (12 prompt(s) x 2) on openai/gpt-4o-mini; cost unknown: "
            "no baseline yet" in saved.stderr
        )
        sent = len(server.requests)
        monkeypatch.setattr(sys, "stdin", Terminal("no\n"))
        result = run_cli("compare", "-c", "canary.yaml", *args, cwd=project, env_extra={"CI": None})
        assert len(server.requests) == sent  # nothing sent
    assert result.returncode == 2, result.stderr
    plan = next(line for line in result.stderr.splitlines() if line.startswith("Plan:"))
    assert plan.startswith("Plan: 60 request(s) (12 prompt(s) x 5) on openai/gpt-4o-mini")
    assert "up to 660 if every prompt needs confirming; estimated $" in plan
    assert float(plan.rsplit("$", 1)[1].rstrip(".")) > 1.0
    assert "not confirmed" in result.stderr


def test_a_bad_threshold_is_named(project: Path) -> None:
    with FakeLLMServer() as server:
        result = _run(project, server, env={"PROMPTCANARY_CONFIRM_USD": "lots"})
        assert server.requests == []
    assert result.returncode == 2
    assert "PROMPTCANARY_CONFIRM_USD: must be a number >= 0 (got 'lots')" in result.stderr
