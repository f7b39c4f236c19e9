"""Commands that call no model never pay for LiteLLM's import (seconds of CPU), nor scipy's.

Each command runs in a fresh interpreter, through the CLI's entry point, and reports which heavy
modules it loaded; benchmarks/loop_speed.py times the same commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLMServer

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "examples" / "quickstart"
HEAVY = ("litellm", "openai", "scipy", "aiohttp", "tiktoken")


def after_cli(args: list[str], cwd: Path, env: dict[str, str] | None, report: str) -> Any:
    """Run ``promptcanary <args>`` in a fresh interpreter, then the lines ``report`` (with
    ``code`` the exit code), which set ``seen``; returns ``seen`` (JSON-serialisable)."""
    code = (
        "import json, sys\n"
        "from promptcanary.cli import main\n"
        "try:\n"
        f"    code = main({args!r})\n"
        "except SystemExit as exc:\n"
        "    code = exc.code if isinstance(exc.code, int) else 1\n"
        f"{report}\n"
        "print('\\nSEEN:' + json.dumps(seen))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )
    marked = [line for line in done.stdout.splitlines() if line.startswith("SEEN:")]
    assert marked, done.stdout + done.stderr
    return json.loads(marked[-1].removeprefix("SEEN:"))


def loaded_by(
    args: list[str], cwd: Path, env: dict[str, str] | None = None
) -> tuple[int, list[str]]:
    """(exit code, heavy modules loaded) of ``promptcanary <args>`` in a fresh interpreter."""
    report = (
        f"heavy = sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))\n"
        "seen = [code, heavy]"
    )
    exit_code, heavy = after_cli(args, cwd, env, report)
    return exit_code, heavy


def one_prompt_suite(folder: Path, samples: int) -> None:
    (folder / "canary.yaml").write_text(
        f"name: s\nsamples: {samples}\nprompts:\n  - hi\nprobes:\n  - type: keyword_presence\n"
        "    required_keywords: [OK]\n",
        encoding="utf-8",
    )


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["init"],
        [
            "compare",
            "-c",
            str(QUICKSTART / "canary.yaml"),
            "--current",
            str(QUICKSTART / "current-run.json"),
        ],
        ["baselines", "list", "-c", str(QUICKSTART / "canary.yaml")],
        ["report", str(QUICKSTART / "current-run.json")],
    ],
    ids=["help", "init", "compare --current", "baselines list", "report"],
)
def test_a_command_that_calls_no_model_imports_no_model_client(
    args: list[str], tmp_path: Path
) -> None:
    exit_code, heavy = loaded_by(args, tmp_path)
    assert exit_code in (0, 1)  # 1: compare found regressions in the quickstart, as designed
    assert heavy == []


# Imports LiteLLM in a fresh interpreter (seconds of CPU): out of the quick subset.
@pytest.mark.e2e
def test_a_command_that_calls_a_model_does_import_it(tmp_path: Path) -> None:
    # The guard above is not vacuous: the same check sees LiteLLM where a model is called.
    one_prompt_suite(tmp_path, samples=1)
    with FakeLLMServer() as server:
        args = ["run", "-c", "canary.yaml", "-p", "openai/gpt-4o-mini", "--api-base"]
        exit_code, heavy = loaded_by(
            [*args, server.base_url, "-q"], tmp_path, {"OPENAI_API_KEY": "sk-test"}
        )
        answered = len(server.requests)
    assert (exit_code, answered) == (0, 1)
    assert "litellm" in heavy


# Imports LiteLLM in a fresh interpreter (seconds of CPU): out of the quick subset.
@pytest.mark.e2e
def test_the_fast_route_never_builds_the_tokenizer_it_does_not_use(tmp_path: Path) -> None:
    # LiteLLM's aiohttp_openai/ dispatch asks for its default tokenizer on every call (0.15-0.4 s
    # of CPU to build); the fast route reads the usage the server sent and counts nothing, so a
    # run through it leaves the tokenizer unbuilt — and a later reader still gets the real one.
    one_prompt_suite(tmp_path, samples=2)
    report = (
        "built = 'litellm.litellm_core_utils.default_encoding' in sys.modules\n"
        "from litellm import main as m\n"
        "from litellm._lazy_imports import get_default_encoding\n"
        "tokens = m._get_encoding().encode('hello world')\n"
        "same = tokens == get_default_encoding().encode('hello world')\n"
        "seen = [code, built, same, type(m._get_encoding()).__name__]"
    )
    with FakeLLMServer() as server:
        args = ["run", "-c", "canary.yaml", "-p", "openai/gpt-4o-mini", "--api-base"]
        env = {"OPENAI_API_KEY": "sk-test"}
        seen = after_cli([*args, server.base_url, "-q"], tmp_path, env, report)
        answered = len(server.requests)
    exit_code, built, same, after = seen
    assert (exit_code, answered) == (0, 2)
    assert built is False
    assert same is True and after != "LazyEncoding"
