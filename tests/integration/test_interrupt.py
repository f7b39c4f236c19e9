"""Ctrl-C during a run: one line, exit 130, no traceback, nothing written.

A real process (the installed console script) against a slow loopback LLM server, interrupted
with SIGINT while its requests are in flight.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakes.cli import BASE_ENV, console_script, run_cli
from tests.fakes.llm_server import FakeLLMServer

SUITE = """\
name: interrupted
samples: 1
probes:
  - response_length
prompts:
  - 'Say one'
  - 'Say two'
  - 'Say three'
"""


@pytest.mark.e2e
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
@pytest.mark.parametrize("command", ["run", "compare"])
def test_ctrl_c_mid_run_says_so_in_one_line_and_saves_nothing(tmp_path: Path, command: str) -> None:
    (tmp_path / "canary.yaml").write_text(SUITE, encoding="utf-8")
    if command == "compare":  # a baseline to compare with, so that compare starts measuring
        with FakeLLMServer(lambda r: "OK") as fast:
            saved = run_cli(
                "run", "-s", "-p", "openai/x", "--api-base", fast.base_url, "--no-progress",
                cwd=tmp_path,
            )  # fmt: skip
            assert saved.returncode == 0, saved.stderr
    before = sorted(p.name for p in tmp_path.rglob("*"))
    with FakeLLMServer(lambda r: "OK", latency_s=30) as server:
        args = ["-c", "canary.yaml", "-p", "openai/x", "--api-base", server.base_url]
        if command == "run":
            args += ["-o", "run.json", "--save-baseline"]
        else:
            args += ["--save-run", "run.json", "--output-json", "report.json"]
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env.update(BASE_ENV)
        process = subprocess.Popen(
            [console_script(), command, *args],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while not server.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.requests, "the run never reached the server"
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert "Traceback" not in err + out
    lines = [line for line in err.splitlines() if "Interrupted" in line]
    assert lines == [f"Interrupted: `promptcanary {command}` stopped; nothing was saved."]
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # no file written
