"""Ctrl-C during a run: one line, exit 130, no traceback; the answers received are kept.

A real process (the installed console script) against a slow loopback LLM server, interrupted
with SIGINT while a request is in flight: the answers that arrived go to
.promptcanary/interrupted/, the line names the file and the command that resumes, and that
command (run here in process against a fast server) asks only what is missing.
"""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.cli import console_script, process_env, run_cli, wait_until
from tests.fakes.llm_server import FakeLLMServer, Reply, last_user_text

SUITE = """\
name: interrupted
samples: 1
concurrency: 4
probes:
  - response_length
prompts:
  - 'Say one'
  - 'Say two'
  - 'Say three'
"""

KEPT = Path(".promptcanary") / "interrupted" / "interrupted__openai-x.json"


def _slow_on_three(request: dict[str, Any]) -> Reply | str:
    """'Say three' hangs (in flight when Ctrl-C comes); the others answer at once."""
    text = last_user_text(request)
    return Reply("OK three", delay_s=30) if "three" in text else f"OK {text.split()[-1]}"


def _start(
    tmp_path: Path, command: str, server: FakeLLMServer, *extra: str
) -> subprocess.Popen[str]:
    args = ["-c", "canary.yaml", "-p", "openai/x", "--api-base", server.base_url, *extra]
    if command == "run":
        args += ["-o", "run.json", "--save-baseline"]
    else:
        args += ["--save-run", "run.json", "--output-json", "report.json"]
    env = process_env()
    return subprocess.Popen(
        [console_script(), command, *args],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _baseline(tmp_path: Path) -> None:
    """A baseline to compare with, so that compare starts measuring."""
    with FakeLLMServer(lambda r: "OK") as fast:
        saved = run_cli(
            "run", "-s", "-p", "openai/x", "--api-base", fast.base_url, "--no-progress",
            cwd=tmp_path,
        )  # fmt: skip
        assert saved.returncode == 0, saved.stderr


@pytest.mark.e2e
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
@pytest.mark.parametrize("command", ["run", "compare"])
def test_ctrl_c_keeps_the_answers_received_and_says_how_to_resume(
    tmp_path: Path, command: str
) -> None:
    (tmp_path / "canary.yaml").write_text(SUITE, encoding="utf-8")
    if command == "compare":
        _baseline(tmp_path)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    with FakeLLMServer(_slow_on_three) as server:
        slow_url = server.base_url
        process = _start(tmp_path, command, server)
        wait_until(lambda: len(server.requests) == 3)  # two answered, 'Say three' in flight
        time.sleep(1.0)  # the two answers reach the run
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert "Traceback" not in err + out
    lines = [line for line in err.splitlines() if line.startswith("Interrupted")]
    assert len(lines) == 1, err
    prefix = f"Interrupted: `promptcanary {command}` stopped; kept 2 answer(s) in {KEPT}; "
    assert lines[0].startswith(prefix), lines[0]
    resume = shlex.split(lines[0].removeprefix(prefix).removeprefix("resume with: "))
    assert resume[0] == "promptcanary" and resume[1] == command
    assert resume[-2:] == ["--resume", str(KEPT)]

    # Only the kept run and the folder's .gitignore are new: no run.json, baseline or report.
    after = sorted(p.name for p in tmp_path.rglob("*"))
    assert sorted(set(after) - set(before)) == sorted(
        [".promptcanary", ".gitignore", "interrupted", KEPT.name]
    )
    kept = json.loads((tmp_path / KEPT).read_text(encoding="utf-8"))
    assert kept["aborted"] == "Interrupted (Ctrl-C). 1 of 3 request(s) were not sent."
    answers = {r["prompt_id"]: r for r in kept["llm_responses"]}
    texts = {p["id"]: p["text"] for p in kept["prompts"]}
    assert {texts[i]: r["content"] for i, r in answers.items() if r["error"] is None} == {
        "Say one": "OK one",
        "Say two": "OK two",
    }
    three = next(r for i, r in answers.items() if texts[i] == "Say three")
    assert three["error_type"] == "interrupted"
    assert three["error"] == "Not sent: the run was interrupted (Ctrl-C)."

    # The command it printed asks only 'Say three', and is one ordinary run.
    with FakeLLMServer(lambda r: "OK three") as fast:
        words = [w if w != slow_url else fast.base_url for w in resume[1:]]
        resumed = run_cli(*words, "--no-progress", cwd=tmp_path)
        assert resumed.returncode == 0, resumed.stderr
        assert [last_user_text(r) for r in fast.requests] == ["Say three"]
    assert "Plan: 1 request(s) (2 answered by the interrupted run; " in resumed.stderr
    run = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    assert run["aborted"] is None
    assert sorted(r["content"] for r in run["llm_responses"]) == ["OK one", "OK three", "OK two"]


@pytest.mark.e2e
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
def test_ctrl_c_before_any_answer_saves_nothing(tmp_path: Path) -> None:
    (tmp_path / "canary.yaml").write_text(SUITE, encoding="utf-8")
    before = sorted(p.name for p in tmp_path.rglob("*"))
    with FakeLLMServer(lambda r: "OK", latency_s=30) as server:
        process = _start(tmp_path, "run", server)
        wait_until(lambda: bool(server.requests))
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert "Traceback" not in err + out
    lines = [line for line in err.splitlines() if line.startswith("Interrupted")]
    assert lines == ["Interrupted: `promptcanary run` stopped; nothing was saved."]
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # no file written


@pytest.mark.e2e
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
def test_a_second_ctrl_c_exits_at_once(tmp_path: Path) -> None:
    (tmp_path / "canary.yaml").write_text(SUITE, encoding="utf-8")
    with FakeLLMServer(lambda r: "OK", latency_s=30) as server:
        process = _start(tmp_path, "run", server)
        wait_until(lambda: bool(server.requests))
        process.send_signal(signal.SIGINT)
        process.send_signal(signal.SIGINT)
        started = time.monotonic()
        out, err = process.communicate(timeout=30)
    assert time.monotonic() - started < 10  # not the 30 s the request in flight would take
    assert process.returncode == 130, err
    assert "Traceback" not in err + out
    assert len([line for line in err.splitlines() if line.startswith("Interrupted")]) == 1
