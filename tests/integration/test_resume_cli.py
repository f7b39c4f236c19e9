"""`run --resume FILE` / `compare --resume FILE`: the answers of an interrupted run are reused and
only the rest is asked (the loopback server counts the requests); a file that answers another
question is refused before the first request.

The interrupted run is made as the engine writes one on Ctrl-C (tests/integration/test_interrupt.py
makes a real one with SIGINT): a whole run with some (prompt, sample) recorded as not sent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.cli import run_cli
from tests.fakes.llm_server import FakeLLMServer, last_user_text

SUITE = """\
name: resumable
samples: 2
probes:
  - response_length
prompts:
  - {id: one, text: 'Say one'}
  - {id: two, text: 'Say two'}
  - {id: three, text: 'Say three'}
"""

#: (prompt id, sample) the interrupted run did not get an answer for.
MISSING = {("two", 1), ("three", 0), ("three", 1)}


def _answer(prefix: str) -> Any:
    counter = {"n": 0}

    def reply(request: dict[str, Any]) -> str:
        counter["n"] += 1
        return f"{prefix} {last_user_text(request)} #{counter['n']}"

    return reply


@pytest.fixture
def interrupted(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """canary.yaml, and an interrupted run of it (``interrupted.json``) whose answers are those
    of a whole run (returned) but for :data:`MISSING`, recorded as not sent."""
    (tmp_path / "canary.yaml").write_text(SUITE, encoding="utf-8")
    with FakeLLMServer(_answer("first")) as server:
        whole = run_cli(
            "run", "-p", "openai/x", "--api-base", server.base_url, "--no-progress",
            "-o", "whole.json", cwd=tmp_path,
        )  # fmt: skip
    assert whole.returncode == 0, whole.stderr
    run = json.loads((tmp_path / "whole.json").read_text(encoding="utf-8"))
    partial = json.loads(json.dumps(run))
    for response in partial["llm_responses"]:
        if (response["prompt_id"], response["sample"]) in MISSING:
            response.update(
                content="",
                error="Not sent: the run was interrupted (Ctrl-C).",
                error_type="interrupted",
                attempts=0,
                latency_ms=None,
                usage=None,
                cost_usd=None,
            )
    partial["aborted"] = "Interrupted (Ctrl-C). 3 of 6 request(s) were not sent."
    (tmp_path / "interrupted.json").write_text(json.dumps(partial), encoding="utf-8")
    return tmp_path, run


def test_resume_asks_only_what_the_interrupted_run_did_not_answer(
    interrupted: tuple[Path, dict[str, Any]],
) -> None:
    folder, whole = interrupted
    with FakeLLMServer(_answer("second")) as server:
        resumed = run_cli(
            "run", "-p", "openai/x", "--api-base", server.base_url, "--no-progress",
            "--resume", "interrupted.json", "-o", "resumed.json", "--save-baseline",
            cwd=folder,
        )  # fmt: skip
        assert resumed.returncode == 0, resumed.stderr
        asked = sorted(last_user_text(r) for r in server.requests)
    assert asked == ["Say three", "Say three", "Say two"]  # exactly the missing ones
    assert (
        "Plan: 3 request(s) (3 answered by the interrupted run; 3 prompt(s) x 2 in all) on openai/x"
        in resumed.stderr
    )
    run = json.loads((folder / "resumed.json").read_text(encoding="utf-8"))
    assert run["aborted"] is None and run["samples"] == 2
    by_key = {(r["prompt_id"], r["sample"]): r for r in run["llm_responses"]}
    assert set(by_key) == {(p, s) for p in ("one", "two", "three") for s in (0, 1)}
    for response in whole["llm_responses"]:
        key = (response["prompt_id"], response["sample"])
        if key in MISSING:
            assert by_key[key]["content"].startswith("second ")
            assert by_key[key]["error"] is None
        else:  # what the uninterrupted run recorded, unchanged
            assert by_key[key] == response
    # One ordinary run: every answer scored by the suite's probe, and saved as the baseline.
    scored = {(r["prompt_id"], r["sample"]) for r in run["probe_results"]}
    assert scored == set(by_key)
    assert "Saved baseline" in resumed.stderr
    assert len(list((folder / "baselines").glob("*.json"))) == 1


def test_compare_resumes_too(interrupted: tuple[Path, dict[str, Any]]) -> None:
    folder, _ = interrupted
    with FakeLLMServer(_answer("base")) as server:
        base = run_cli(
            "run", "-s", "-p", "openai/x", "--api-base", server.base_url, "--no-progress",
            cwd=folder,
        )  # fmt: skip
        assert base.returncode == 0, base.stderr
    with FakeLLMServer(_answer("second")) as server:
        compared = run_cli(
            "compare", "-c", "canary.yaml", "-p", "openai/x", "--api-base", server.base_url,
            "--no-progress", "--resume", "interrupted.json", "--save-run", "current.json",
            cwd=folder,
        )  # fmt: skip
        assert compared.returncode == 0, compared.stderr
        assert len(server.requests) == len(MISSING)
    current = json.loads((folder / "current.json").read_text(encoding="utf-8"))
    assert len([r for r in current["llm_responses"] if r["error"] is None]) == 6


@pytest.mark.parametrize(
    ("change", "field", "flags"),
    [
        (("name: resumable", "name: another"), "suite_name", []),
        (None, "provider.model_id", ["-p", "openai/y"]),
        (None, "provider.temperature", ["--temperature", "0.7"]),
        (("text: 'Say two'", "text: 'Say 2'"), "prompts.two.text", []),
    ],
    ids=["other-suite", "other-model", "other-temperature", "changed-prompt"],
)
def test_a_resume_file_that_answers_another_question_is_refused(
    interrupted: tuple[Path, dict[str, Any]],
    change: tuple[str, str] | None,
    field: str,
    flags: list[str],
) -> None:
    folder, _ = interrupted
    if change is not None:
        config = folder / "canary.yaml"
        config.write_text(config.read_text(encoding="utf-8").replace(*change), encoding="utf-8")
    with FakeLLMServer(_answer("second")) as server:
        refused = run_cli(
            "run", "-p", "openai/x", *flags, "--api-base", server.base_url, "--no-progress",
            "--resume", "interrupted.json", cwd=folder,
        )  # fmt: skip
        assert not server.requests  # refused before the first request
    assert refused.returncode == 2, refused.stderr
    first = refused.stderr.splitlines()[0]
    assert first.startswith("error: ") and "interrupted.json" in first and field in first, first
    assert "Traceback" not in refused.stderr


def test_resume_and_replay_together_are_refused(interrupted: tuple[Path, dict[str, Any]]) -> None:
    folder, _ = interrupted
    refused = run_cli(
        "run", "--replay", "whole.json", "--resume", "interrupted.json", cwd=folder
    )
    assert refused.returncode == 2
    assert "--resume" in refused.stderr.splitlines()[0]
