"""The Docker action's entrypoint on pull requests, run as the runner runs it: a subprocess with
the runner's environment, against the loopback LLM server (through the real LiteLLM stack) and
the loopback GitHub API (through the real PyGithub)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


from tests.fakes.action_runner import load_event
from tests.fakes.github_server import READ_ONLY_TOKEN, FakeGitHubServer
from tests.integration.action_support import (
    BOT,
    MODEL,
    REPO,
    seed_baseline,
)

#: Each test starts the entrypoint as the runner does: a fresh process (slow, end to end).
pytestmark = pytest.mark.e2e

PR = 2  # the pull request number in the @octokit/webhooks-examples payloads


def bot_comments(gh: FakeGitHubServer) -> list[dict[str, Any]]:
    return [c for c in gh.repos[REPO].comments_on(PR) if c["user"]["login"] == BOT]


def test_first_run_comments_then_a_drifting_run_edits_that_comment_and_fails(world: Any) -> None:
    runner, gh, llm, answers = world
    seed_baseline(runner.workspace)
    # Other people's comments fill more than one page, one of them quoting our marker.
    for i in range(120):
        gh.add_comment(REPO, PR, f"review note {i}", login="octocat")
    gh.add_comment(REPO, PR, "quoting <!-- promptcanary: suite=support-bot", login="mallory")

    first = runner.run(
        event_name="pull_request",
        event=load_event("pull_request.opened"),
        inputs={"provider": MODEL},
    )
    assert first.returncode == 0, first.stdout + first.stderr
    assert first.outputs["result"] == "passed"
    assert first.outputs["severity"] == "none" and first.outputs["has-drift"] == "false"
    mine = bot_comments(gh)
    assert len(mine) == 1
    assert mine[0]["body"].startswith("<!-- promptcanary: suite=support-bot, model=openai/fake")
    assert first.outputs["comment-url"] == mine[0]["html_url"]
    assert "No drift" in first.summary and "No drift" in mine[0]["body"]
    assert len(llm.requests) == 4 * 3  # samples: auto screens each of the 4 prompts 3 times

    # The model drifts on two of four prompts: 50 % regressions, critical.
    answers["capital"] = "I would rather not say."
    answers["boiling"] = "It depends on the altitude."
    second = runner.run(
        event_name="pull_request",
        event=load_event("pull_request.synchronize"),
        inputs={"provider": MODEL, "fail-on-severity": "high"},
    )

    assert second.returncode == 1, second.stdout + second.stderr
    out = second.outputs
    assert out["result"] == "failed"
    assert out["severity"] == "critical" and out["has-drift"] == "true"
    assert out["regressions"] == "2" and out["improvements"] == "0"
    assert out["overall-score"] == "0.5000" and out["baseline-score"] == "1.0000"
    assert out["score-delta"] == "-0.5000"
    assert out["baseline-path"].startswith("baselines/support-bot__openai-fake__")
    report = Path(out["report-path"]).read_text(encoding="utf-8")
    assert report.startswith("<!-- promptcanary: suite=support-bot")
    assert "capital" in report and "boiling" in report
    data = json.loads(Path(out["json-path"]).read_text(encoding="utf-8"))
    assert data["suite_name"] == "support-bot"
    assert "CRITICAL drift" in second.summary

    mine_after = bot_comments(gh)
    assert len(mine_after) == 1, "a second comment was posted instead of editing the first"
    assert mine_after[0]["id"] == mine[0]["id"]
    assert out["comment-url"] == mine[0]["html_url"]
    body = mine_after[0]["body"]
    assert "CRITICAL" in body and "/actions/runs/4002" in body and len(body) <= 65_536
    assert gh.count("PATCH", rf"/issues/comments/{mine[0]['id']}$") == 1
    # Both searches went past the first page of comments (Link header followed).
    assert gh.count("GET", rf"/issues/{PR}/comments$") == 4
    assert len(gh.repos[REPO].comments_on(PR)) == 122  # nobody else's comment was touched


def test_a_refused_comment_keeps_the_report_and_the_gate(world: Any) -> None:
    runner, gh, _, answers = world
    seed_baseline(runner.workspace)
    answers["capital"] = "I would rather not say."
    runner.token = READ_ONLY_TOKEN

    run = runner.run(
        event_name="pull_request",
        event=load_event("pull_request.opened"),
        inputs={"provider": MODEL},
    )

    assert run.returncode == 1, "the gate decision must stand when GitHub refuses the comment"
    assert run.outputs["result"] == "failed"
    assert run.outputs["comment-url"] == ""
    warnings = run.commands("warning")
    assert any("comment on pull request #2" in w and "403" in w for w in warnings), warnings
    assert "CRITICAL drift" in run.summary and "GitHub refused some operations" in run.summary
    assert Path(run.outputs["report-path"]).is_file()
    kept = Path(run.outputs["report-path"]).with_name("support-bot__openai-fake.comment.md")
    assert kept.read_text(encoding="utf-8").startswith("<!-- promptcanary:")
    assert bot_comments(gh) == []


def test_fork_pull_request_is_skipped_without_calling_the_model(world: Any) -> None:
    runner, gh, llm, _ = world
    seed_baseline(runner.workspace)
    event = load_event("pull_request.opened")
    event["pull_request"]["head"]["repo"]["full_name"] = "forker/Hello-World"
    event["pull_request"]["head"]["repo"]["fork"] = True

    run = runner.run(event_name="pull_request", event=event, inputs={"provider": MODEL})

    assert run.returncode == 0
    assert run.outputs["result"] == "skipped"
    assert llm.requests == []
    assert "from a fork" in run.summary
    assert gh.repos[REPO].comments == {}


def test_a_missing_provider_key_fails_the_check_naming_the_env_line(world: Any) -> None:
    # Exit 0 would be a green check forever after a typo in the secret's name: only forks and
    # Dependabot (where GitHub withholds secrets) may skip.
    runner, _, llm, _ = world
    seed_baseline(runner.workspace)
    runner.provider_env["OPENAI_API_KEY"] = ""

    run = runner.run(
        event_name="pull_request",
        event=load_event("pull_request.opened"),
        inputs={"provider": MODEL},
    )

    assert run.returncode == 2, run.stdout + run.stderr
    [error] = run.commands("error")
    assert "OPENAI_API_KEY" in error and "${{ secrets.OPENAI_API_KEY }}" in error
    assert "Traceback" not in run.stdout + run.stderr
    assert llm.requests == []


def test_bad_input_fails_naming_the_input_and_the_choices(world: Any) -> None:
    runner, _, llm, _ = world

    run = runner.run(
        event_name="pull_request",
        event=load_event("pull_request.opened"),
        inputs={"provider": MODEL, "fail-on-severity": "severe"},
    )

    assert run.returncode == 2
    errors = run.commands("error")
    assert errors and "'fail-on-severity' input must be one of 'low', 'medium'" in errors[0]
    assert "'never'" in errors[0] and "'severe'" in errors[0]
    assert llm.requests == []
