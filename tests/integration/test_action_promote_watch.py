"""The Docker action's entrypoint promoting a baseline by label and watching on a schedule, run as
a subprocess with the runner's environment against the loopback LLM and GitHub servers."""

from __future__ import annotations

import os
import stat
from typing import Any

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


from promptcanary.storage.compact import parse_snapshot
from promptcanary.storage.file import FileBaselineStore
from tests.fakes.action_runner import load_event
from tests.fakes.github_server import HEAD_SHA
from tests.integration.action_support import (
    BOT,
    GOOD,
    MODEL,
    REPO,
    seed_baseline,
)

#: Each test starts the entrypoint as the runner does: a fresh process (slow, end to end).
pytestmark = pytest.mark.e2e

PR = 2
LABEL = "promptcanary:promote"


def labeled_event(label: str = LABEL) -> dict[str, Any]:
    event = load_event("pull_request.labeled")
    event["label"]["name"] = label
    event["pull_request"]["labels"] = [{"name": label}]
    return event


def snapshot_named_in(summary: bytes, path: str) -> bool:
    """The summary names the baseline file it summarises."""
    return path.rsplit("/", 1)[-1] in summary.decode("utf-8")


def test_label_promotion_commits_the_baseline_to_the_pr_branch(world: Any) -> None:
    runner, gh, llm, answers = world
    seed_baseline(runner.workspace)
    previous = FileBaselineStore(runner.workspace / "baselines").load_latest("support-bot", MODEL)
    answers["capital"] = "Paris, of course."  # still passes: the new behaviour is accepted
    answers["planet"] = "The red planet is Jupiter."  # a change the reviewer accepts
    issue = gh.repos[REPO].issues[PR]
    issue["labels"].append(gh._label(gh.repos[REPO], LABEL))
    # As in examples/workflows: promotion runs in its own workflow and starts the check workflow.
    runner.workflow_file = "promptcanary-promote.yml"

    run = runner.run(
        event_name="pull_request",
        event=labeled_event(),
        inputs={"provider": MODEL, "check-workflow": "promptcanary-pr.yml"},
    )

    assert run.returncode == 0, run.stdout + run.stderr
    assert run.outputs["result"] == "promoted"
    assert len(llm.requests) == 4 * 30  # a promoted baseline: baseline_samples (30) per prompt
    # One commit on the PR's head branch, on top of the measured head, holding exactly the file
    # saved in the workspace (readable by the runner's later steps).
    commits = gh.repos[REPO].commits
    assert [(c["branch"], c["author"]) for c in commits] == [("changes", BOT)]
    assert commits[0]["parents"] == [HEAD_SHA]
    path = run.outputs["baseline-path"]
    assert path.startswith("baselines/support-bot__openai-fake__") and path.endswith(".json")
    # With it, in the same commit, the summary reviewers read (the folder's .gitattributes was
    # committed with the first baseline).
    summary = "baselines/support-bot__openai-fake.summary.md"
    assert sorted(commits[0]["paths"]) == sorted([path, summary])
    for committed_path in (path, summary):
        local = runner.workspace / committed_path
        assert gh.repos[REPO].files["changes"][committed_path]["content"] == local.read_bytes()
        assert stat.S_IMODE(local.stat().st_mode) == 0o644
    assert snapshot_named_in(gh.repos[REPO].files["changes"][summary]["content"], path)
    committed = gh.repos[REPO].files["changes"][path]["content"]
    snapshot = parse_snapshot(committed)
    assert snapshot.suite_name == "support-bot" and snapshot.provider.model_id == MODEL
    assert snapshot.snapshot_id != previous.snapshot_id
    assert "master" not in {c["branch"] for c in commits}
    # The comment says what changed against the previous baseline and links the commit.
    comments = [c for c in gh.repos[REPO].comments_on(PR) if c["user"]["login"] == BOT]
    assert len(comments) == 1
    body = comments[0]["body"]
    assert "new baseline" in body and commits[0]["html_url"] in body
    assert "Changes against the previous baseline" in body and "planet" in body
    assert "Started the check workflow `promptcanary-pr.yml` on `changes`" in body
    assert gh.repos[REPO].dispatches == [
        {"workflow": "promptcanary-pr.yml", "ref": "changes", "inputs": {}, "login": BOT}
    ]
    # The label is taken off, so adding it again promotes again.
    assert LABEL not in {lab["name"] for lab in issue["labels"]}


def test_a_fork_pull_request_cannot_be_promoted(world: Any) -> None:
    runner, gh, llm, _ = world
    event = labeled_event()
    event["pull_request"]["head"]["repo"]["full_name"] = "forker/Hello-World"

    run = runner.run(event_name="pull_request", event=event, inputs={"provider": MODEL})

    assert run.returncode == 0
    assert run.outputs["result"] == "skipped"
    assert "fork cannot be promoted" in run.summary
    assert llm.requests == [] and gh.repos[REPO].commits == []


def test_schedule_opens_one_issue_on_drift_and_closes_it_when_healthy(world: Any) -> None:
    runner, gh, _, answers = world
    seed_baseline(runner.workspace)
    answers["author"] = "Hamlet was written by Christopher Marlowe."
    schedule = load_event("schedule")

    drifting = runner.run(event_name="schedule", event=schedule, inputs={"provider": MODEL})

    assert drifting.returncode == 1, drifting.stdout + drifting.stderr
    assert drifting.outputs["result"] == "failed"
    issues = list(gh.repos[REPO].issues.values())
    opened = [i for i in issues if "pull_request" not in i]
    assert len(opened) == 1
    issue = opened[0]
    assert issue["state"] == "open" and [lab["name"] for lab in issue["labels"]] == ["promptcanary"]
    assert issue["body"].startswith("<!-- promptcanary-watch: suite=support-bot")
    assert "author" in issue["body"] and "critical drift" in issue["title"]
    assert drifting.outputs["comment-url"] == issue["html_url"]
    assert gh.repos[REPO].comments_on(PR) == []  # a watch never comments on pull requests

    answers["author"] = GOOD["author"]
    healthy = runner.run(event_name="schedule", event=schedule, inputs={"provider": MODEL})

    assert healthy.returncode == 0, healthy.stdout + healthy.stderr
    assert healthy.outputs["result"] == "passed"
    assert issue["state"] == "closed" and issue["state_reason"] == "completed"
    closing = gh.repos[REPO].comments_on(issue["number"])
    assert len(closing) == 1 and "healthy again" in closing[0]["body"]
    assert len([i for i in gh.repos[REPO].issues.values() if "pull_request" not in i]) == 1
