"""A server that is not there stops the run in seconds; one that comes back is measured as usual.

Through the CLI in process and the real LiteLLM stack: a closed loopback port (bound, then
closed: nothing listens) and the loopback LLM server resetting its first connections.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from tests.fakes.cli import run_cli
from tests.fakes.llm_server import FakeLLMServer

PROMPTS = 60


def _suite(prompts: int) -> str:
    lines = "\n".join(f"  - 'Say OK number {i}'" for i in range(prompts))
    return f"name: dead-server\nsamples: 1\nprobes:\n  - response_length\nprompts:\n{lines}\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "canary.yaml").write_text(_suite(PROMPTS), encoding="utf-8")
    return tmp_path


def closed_port() -> int:
    """A loopback port nothing listens on: bound by us, then closed."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_server_that_refuses_every_connection_stops_the_run_within_seconds(
    project: Path,
) -> None:
    import litellm  # noqa: F401  (imported before the clock starts: seconds, paid once)

    base = f"http://127.0.0.1:{closed_port()}/v1"
    started = time.monotonic()
    result = run_cli(
        "run", "-c", "canary.yaml", "-p", "openai/x", "--api-base", base, "--no-progress",
        cwd=project,
    )  # fmt: skip
    elapsed = time.monotonic() - started
    assert result.returncode == 3, result.stderr
    assert f"Could not connect to {base}" in result.stderr
    assert "request(s) were not sent" in result.stderr
    assert "sk-test-cli-key-123" not in result.stderr + result.stdout
    assert "Traceback" not in result.stderr
    # Without the breaker each of the 60 requests spends 4 attempts and up to 3.5 s of backoff
    # (~15 s at concurrency 8); the breaker needs about a second of failures. The bound is
    # generous for a loaded machine; benchmarks/dead_server.py records the real figure.
    assert elapsed < 8, elapsed


def test_the_stop_can_be_turned_off_in_canary_yaml(project: Path) -> None:
    (project / "canary.yaml").write_text(
        _suite(2) + "max_attempts: 1\nstop_after_connection_failures: 0\n", encoding="utf-8"
    )
    base = f"http://127.0.0.1:{closed_port()}/v1"
    result = run_cli(
        "run", "-c", "canary.yaml", "-p", "openai/x", "--api-base", base, "--no-progress",
        cwd=project,
    )  # fmt: skip
    assert result.returncode == 3, result.stderr
    assert "every request errored" in result.stderr
    assert "Could not connect to" not in result.stderr


def test_a_server_that_resets_its_first_connections_then_serves_is_measured(
    project: Path,
) -> None:
    with FakeLLMServer(lambda r: "OK", refuse_first=3) as server:
        result = run_cli(
            "run", "-c", "canary.yaml", "-p", "openai/x", "--api-base", server.base_url,
            "--no-progress", cwd=project,
        )  # fmt: skip
        assert server.refused == 3
        assert len(server.requests) == PROMPTS
    assert result.returncode == 0, result.stderr
    assert "Could not connect" not in result.stderr + result.stdout


def test_compare_against_a_dead_server_is_inconclusive_and_names_it(project: Path) -> None:
    with FakeLLMServer(lambda r: "OK") as server:
        saved = run_cli(
            "run", "-s", "--baseline-samples", "2", "-p", "openai/x", "--api-base",
            server.base_url, "--no-progress", cwd=project,
        )  # fmt: skip
        assert saved.returncode == 0, saved.stderr
    base = f"http://127.0.0.1:{closed_port()}/v1"
    result = run_cli("compare", "-p", "openai/x", "--api-base", base, "--no-progress", cwd=project)
    assert result.returncode == 3, result.stderr
    assert f"{base} could not be reached" in " ".join(result.stdout.split())
    assert "Traceback" not in result.stderr
