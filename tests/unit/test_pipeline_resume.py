"""pipeline/resume.py and the interrupted line's command: where a partial run is kept, which file
an interruption may overwrite, what the plan of a resumed run counts, and the command that
resumes."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from promptcanary.commands.errors import resume_command
from promptcanary.core.models import CanaryPrompt, CanaryRunResult, LLMResponse, ProviderConfig
from promptcanary.errors import RunInterruptedError
from promptcanary.pipeline.cost import RunPlan
from promptcanary.pipeline.resume import interrupted_path, keep_interrupted, resumed_plan


def _partial(answers: int) -> CanaryRunResult:
    prompt = CanaryPrompt(id="p", text="Say p")
    run = CanaryRunResult(
        suite_name="my suite",
        provider=ProviderConfig(model_id="openai/gpt-4o-mini"),
        started_at=datetime(2026, 12, 4, tzinfo=timezone.utc),
        prompts=[prompt],
        samples=2,
        aborted="Interrupted (Ctrl-C). 1 of 2 request(s) were not sent.",
    )
    for sample in range(2):
        sent = sample < answers
        run.llm_responses.append(
            LLMResponse(
                prompt_id="p",
                provider_model_id="openai/gpt-4o-mini",
                sample=sample,
                content="answer" if sent else "",
                error=None if sent else "Not sent: the run was interrupted (Ctrl-C).",
                error_type=None if sent else "interrupted",
            )
        )
    return run


def test_the_partial_run_goes_next_to_the_suite_outside_its_baselines(tmp_path: Path) -> None:
    config = tmp_path / "suite" / "canary.yaml"
    path = interrupted_path(config, "my suite", "openai/gpt-4o-mini")
    assert path == tmp_path / "suite" / ".promptcanary" / "interrupted" / (
        "my-suite__openai-gpt-4o-mini.json"
    )
    kept = keep_interrupted(RunInterruptedError("stopped", _partial(1)), config)
    assert kept.path == path and kept.kept == 1
    assert json.loads(path.read_text(encoding="utf-8"))["llm_responses"][0]["content"] == "answer"
    assert (path.parent.parent / ".gitignore").read_text(encoding="utf-8") == "*\n"


def test_an_earlier_interruption_is_overwritten_only_by_the_run_that_resumed_it(
    tmp_path: Path,
) -> None:
    config = tmp_path / "canary.yaml"
    first = keep_interrupted(RunInterruptedError("stopped", _partial(1)), config).path
    assert first is not None
    fresh = keep_interrupted(RunInterruptedError("stopped", _partial(1)), config).path
    assert fresh is not None and fresh != first and fresh.parent == first.parent
    assert fresh.name.startswith(first.stem + "__")  # a timestamped name beside it
    resumed = keep_interrupted(RunInterruptedError("stopped", _partial(2)), config, resumed=first)
    assert resumed.path == first
    assert json.loads(first.read_text(encoding="utf-8"))["llm_responses"][1]["error"] is None


def test_nothing_is_written_when_no_answer_arrived(tmp_path: Path) -> None:
    kept = keep_interrupted(RunInterruptedError("stopped", _partial(0)), tmp_path / "canary.yaml")
    assert kept.path is None and not (tmp_path / ".promptcanary").exists()


def test_the_plan_of_a_resumed_run_counts_and_prices_only_the_requests_left() -> None:
    plan = RunPlan(
        model="m", prompts=4, samples=12, requests=48, most=48, cost_usd=1.2, ceiling_usd=4.8
    )
    left = resumed_plan(plan, 36)
    assert left is not None
    assert (left.requests, left.most) == (12, 12)
    assert left.cost_usd is not None and abs(left.cost_usd - 0.3) < 1e-12
    assert left.ceiling_usd is not None and abs(left.ceiling_usd - 1.2) < 1e-12
    assert resumed_plan(plan, 0) is plan and resumed_plan(None, 3) is None


def test_the_resume_command_is_the_interrupted_one_with_the_new_file() -> None:
    kept = Path(".promptcanary/interrupted/s__m.json")
    words = ["run", "-c", "my suite/canary.yaml", "--resume", "old.json", "-s"]
    assert resume_command(words, kept) == (
        "promptcanary run -c 'my suite/canary.yaml' -s --resume .promptcanary/interrupted/s__m.json"
    )
    assert resume_command(["compare", "--resume=old.json"], kept) == (
        "promptcanary compare --resume .promptcanary/interrupted/s__m.json"
    )


def test_the_resume_command_shows_no_credentials_of_the_base_url() -> None:
    kept = Path("k.json")
    words = ["run", "--api-base", "https://me:s3cret@llm.example/v1?key=abc", "-p", "openai/x"]
    command = resume_command(words, kept)
    assert "s3cret" not in command and "abc" not in command
    assert (
        command == "promptcanary run --api-base https://llm.example/v1 -p openai/x --resume k.json"
    )
    assert "s3cret" not in resume_command(["run", "--api-base=https://me:s3cret@h/v1"], kept)
