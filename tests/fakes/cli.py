"""Run the ``promptcanary`` CLI in this process, as a user would from a shell.

``promptcanary.cli.main(argv)`` is the console script's own entry point, so everything but the
interpreter start is exercised: argument parsing, the error boundary, exit codes, stdout/stderr.
One process imports LiteLLM once for every test instead of once per command (seconds each).
A few end-to-end tests still start the real console script (marked ``e2e``).
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

#: The environment every CLI test starts from: no real keys, a fixed width, no colour.
BASE_ENV = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "OPENAI_API_KEY": "sk-test-cli-key-123",
    "COLUMNS": "100",
    "NO_COLOR": "1",
}


@dataclass
class CliResult:
    """What a command left behind (the shape of ``subprocess.CompletedProcess``)."""

    returncode: int
    stdout: str
    stderr: str


@contextlib.contextmanager
def _environment(extra: Mapping[str, str | None]) -> Iterator[None]:
    saved = dict(os.environ)
    try:
        for key in [k for k in os.environ if k.endswith("_API_KEY")]:
            del os.environ[key]
        os.environ.update(BASE_ENV)
        for key, value in extra.items():  # None: the variable is not set at all
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def run_cli(*args: str, cwd: Path, env_extra: Mapping[str, str | None] | None = None) -> CliResult:
    """``promptcanary ARGS`` in ``cwd``, in this process."""
    from promptcanary import cli

    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    with (
        _environment(env_extra or {}),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        os.chdir(cwd)
        try:
            code = cli.main(list(args))
        finally:
            os.chdir(here)
    return CliResult(code, out.getvalue(), err.getvalue())


def console_script() -> str:
    """The installed ``promptcanary`` console script next to this Python."""
    found = shutil.which("promptcanary", path=str(Path(sys.executable).parent))
    assert found, "the promptcanary console script is not installed next to this Python"
    return found


def run_process(
    *args: str, cwd: Path, env_extra: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``promptcanary ARGS`` as a fresh process through the console script (slow: end to end)."""
    env = process_env()
    env.update(env_extra or {})
    return subprocess.run(
        [console_script(), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def process_env() -> dict[str, str]:
    """The environment of a ``promptcanary`` process: this one's without its provider keys, and
    :data:`BASE_ENV`."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(BASE_ENV)
    return env


def wait_until(condition: Callable[[], bool], seconds: float = 60) -> None:
    """Poll ``condition`` (e.g. the requests a loopback server got from a process started
    apart) until it holds; fail the test if it does not within ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert condition(), "the run never got that far"
