"""Ctrl-C during a `--workers 2` run keeps what the workers received, as one process does.

A real process (the installed console script, forking its two workers) in a session of its
own, against a loopback LLM server that answers some prompts at once and holds the others.
SIGINT goes to the whole process group, as a terminal sends it, or to the main process alone,
as ``kill -INT`` does: either way the kept file must hold exactly the answers the server gave,
the line must be the single-process one, and the command it prints must send exactly the
requests that were not answered.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from promptcanary.core.run.workers import can_fork
from tests.fakes.cli import console_script, process_env, run_cli, wait_until
from tests.fakes.llm_server import FakeLLMServer, Reply, last_user_text

PROMPTS = [f"Say {n}" for n in range(1, 7)]
SUITE = (
    "name: workers-stop\nsamples: 1\nconcurrency: 4\nprobes:\n  - response_length\nprompts:\n"
    + ("".join(f"  - '{text}'\n" for text in PROMPTS))
)
#: Held by the server (in flight when Ctrl-C comes); the others are answered at once.
HELD = {"Say 5", "Say 6"}
KEPT = Path(".promptcanary") / "interrupted" / "workers-stop__openai-x.json"

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not can_fork(), reason="worker processes need fork (Linux)"),
]


class Served:
    """The server's side of the story: which prompts it answered (not merely received)."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> Reply | str:
        text = last_user_text(request)
        if text in HELD:
            return Reply("late", delay_s=30)
        with self._lock:
            self.texts.append(text)
        return f"OK {text}"


def _start(tmp_path: Path, server: FakeLLMServer, *extra: str) -> subprocess.Popen[str]:
    env = process_env()
    args = ["-c", "canary.yaml", "-p", "openai/x", "--api-base", server.base_url]
    return subprocess.Popen(
        [console_script(), "run", *args, "--workers", "2", "-o", "run.json", *extra],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, which the test signals as a terminal
    )


def _ctrl_c(process: subprocess.Popen[str], sent_to: str = "terminal") -> None:
    """SIGINT as a terminal sends Ctrl-C, to every process of the foreground group (``terminal``),
    or as ``kill -INT PID`` or a CI runner cancelling a job does, to the main process alone
    (``process``): the workers then hear it only from their parent."""
    if sent_to == "terminal":
        os.killpg(process.pid, signal.SIGINT)
    else:
        process.send_signal(signal.SIGINT)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a process group is POSIX")
@pytest.mark.parametrize("sent_to", ["terminal", "process"])
def test_ctrl_c_keeps_what_the_workers_received_and_resume_sends_the_rest(
    tmp_path: Path, sent_to: str
) -> None:
    (tmp_path / "canary.yaml").write_text(SUITE, encoding="utf-8")
    served = Served()
    with FakeLLMServer(served) as server:
        slow_url = server.base_url
        process = _start(tmp_path, server)
        # Every prompt asked (both workers busy), the held ones still in flight.
        wait_until(lambda: len(server.requests) == len(PROMPTS))
        time.sleep(1.0)  # the answers reach the workers
        _ctrl_c(process, sent_to)
        started = time.monotonic()
        out, err = process.communicate(timeout=30)
        asked = [last_user_text(r) for r in server.requests]
    assert time.monotonic() - started < 10  # stopped, not waiting out the 30 s held answers
    assert process.returncode == 130, err
    assert "Traceback" not in err + out
    assert sorted(asked) == sorted(PROMPTS)  # each sent once, whichever worker had it
    assert sorted(served.texts) == ["Say 1", "Say 2", "Say 3", "Say 4"]

    lines = [line for line in err.splitlines() if line.startswith("Interrupted")]
    assert len(lines) == 1, err
    prefix = f"Interrupted: `promptcanary run` stopped; kept 4 answer(s) in {KEPT}; "
    assert lines[0].startswith(prefix), lines[0]
    resume = shlex.split(lines[0].removeprefix(prefix).removeprefix("resume with: "))
    assert resume[:2] == ["promptcanary", "run"] and "--workers" in resume
    assert resume[-2:] == ["--resume", str(KEPT)]
    assert not (tmp_path / "run.json").exists()  # an interrupted run writes no -o

    # The kept file: one run of the whole suite, in its order, holding exactly what was served.
    kept = json.loads((tmp_path / KEPT).read_text(encoding="utf-8"))
    assert kept["aborted"] == "Interrupted (Ctrl-C). 2 of 6 request(s) were not sent."
    assert kept["shard"] is None
    texts = {p["id"]: p["text"] for p in kept["prompts"]}
    assert [texts[r["prompt_id"]] for r in kept["llm_responses"]] == PROMPTS
    answered = {
        texts[r["prompt_id"]]: r["content"] for r in kept["llm_responses"] if not r["error"]
    }
    assert answered == {text: f"OK {text}" for text in served.texts}
    unsent = [r for r in kept["llm_responses"] if r["error"]]
    assert {texts[r["prompt_id"]] for r in unsent} == HELD
    assert all(r["error_type"] == "interrupted" and r["attempts"] == 0 for r in unsent)

    # The command it printed, with its --workers 2, asks exactly what the server did not answer.
    with FakeLLMServer(lambda r: f"OK {last_user_text(r)}") as fast:
        words = [w if w != slow_url else fast.base_url for w in resume[1:]]
        resumed = run_cli(*words, "--no-progress", cwd=tmp_path)
        assert resumed.returncode == 0, resumed.stderr
        assert sorted(last_user_text(r) for r in fast.requests) == sorted(HELD)
    assert "Plan: 2 request(s) (4 answered by the interrupted run; " in resumed.stderr
    run = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    assert run["aborted"] is None
    assert [r["content"] for r in run["llm_responses"]] == [f"OK {text}" for text in PROMPTS]


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a process group is POSIX")
def test_a_second_ctrl_c_exits_at_once_with_workers(tmp_path: Path) -> None:
    (tmp_path / "canary.yaml").write_text(SUITE, encoding="utf-8")
    with FakeLLMServer(lambda r: "OK", latency_s=30) as server:
        process = _start(tmp_path, server)
        wait_until(lambda: len(server.requests) >= 2)  # both workers have a request in flight
        _ctrl_c(process)
        _ctrl_c(process)
        started = time.monotonic()
        out, err = process.communicate(timeout=30)
    assert time.monotonic() - started < 10  # not the 30 s the requests in flight would take
    assert process.returncode == 130, err
    assert "Traceback" not in err + out
    lines = [line for line in err.splitlines() if line.startswith("Interrupted")]
    assert lines == ["Interrupted: `promptcanary run` stopped; nothing was saved."], err
