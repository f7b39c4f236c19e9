"""A finished promotion costs nothing to re-run: GitHub's "Re-run jobs" replays the same
`labeled` payload, and a queued run may find its label gone. The promotion reads the pull
request first and, when there is nothing left to promote, calls no model and leaves the sticky
comment as it was. In process, through the real PyGithub and LiteLLM on the loopback servers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.action_runner import load_event
from tests.fakes.github_server import HEAD_SHA
from tests.integration.action_support import REPO, seed_baseline
from tests.integration.action_world import PR, World, make_world

LABEL = "promptcanary:promote"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with make_world(tmp_path) as made:
        made.runner.workflow_file = "promptcanary-promote.yml"
        # Re-runs and unreadable pull requests do not depend on how many samples a promotion
        # measures: 3 a prompt (12 requests) instead of 30 (120).
        made.inputs["baseline-samples"] = "3"
        yield made


def labeled() -> dict[str, Any]:
    event = load_event("pull_request.labeled")
    event["label"]["name"] = LABEL
    event["pull_request"]["labels"] = [{"name": LABEL}]
    return event


def test_re_running_a_finished_promotion_calls_no_model_and_leaves_the_comment(
    world: World,
) -> None:
    seed_baseline(world.runner.workspace)
    event = labeled()
    first = world.run("pull_request", event)
    assert first.outputs["result"] == "promoted", first.stdout
    requests = len(world.llm.requests)
    assert requests > 0
    [comment] = world.bot_comments()
    body, edited = comment["body"], comment["updated_at"]
    repo = world.gh.repos[REPO]
    commits, check_runs, statuses = len(repo.commits), len(repo.check_runs), len(repo.statuses)

    # "Re-run jobs": the same payload; the promotion took the label off and nobody re-added it.
    again = world.run("pull_request", event, label_on_pr=False)

    assert again.returncode == 0 and again.outputs["result"] == "skipped"
    assert len(world.llm.requests) == requests  # not one model request
    [same] = world.bot_comments()
    assert (same["id"], same["body"], same["updated_at"]) == (comment["id"], body, edited)
    assert "Already promoted" in again.summary and "No model was called" in again.summary
    assert len(repo.commits) == commits and repo.heads["changes"] == repo.commits[-1]["sha"]
    assert (len(repo.check_runs), len(repo.statuses)) == (check_runs, statuses)
    assert again.outputs["comment-id"] == ""  # no comment was touched


def test_a_label_taken_off_before_the_run_promotes_nothing(world: World) -> None:
    run = world.run("pull_request", labeled(), label_on_pr=False)
    assert run.returncode == 0 and run.outputs["result"] == "skipped"
    assert world.llm.requests == [] and world.bot_comments() == []
    assert "no longer on the pull request" in run.summary
    assert world.gh.repos[REPO].commits == []


def test_a_pull_request_closed_since_the_event_promotes_nothing(world: World) -> None:
    world.gh.repos[REPO].issues[PR]["state"] = "closed"  # the event still says open
    run = world.run("pull_request", labeled())
    assert run.outputs["result"] == "skipped" and world.llm.requests == []
    assert "is closed now" in run.summary


def test_a_head_moved_since_the_label_is_branch_moved_without_measuring(world: World) -> None:
    pushed = world.gh.push(REPO, "changes", {"prompt.txt": b"edited after labelling"})
    run = world.run("pull_request", labeled())
    assert (run.returncode, run.outputs["result"]) == (5, "branch-moved")
    assert world.llm.requests == []
    assert world.gh.repos[REPO].heads["changes"] == pushed
    [comment] = world.bot_comments()
    assert "not promoted" in comment["body"] and pushed[:12] in comment["body"]


def test_a_pull_request_github_will_not_read_is_promoted_as_the_event_says(
    world: World,
) -> None:
    world.retries = 0
    world.gh.fail("GET", rf"/pulls/{PR}$", 502, message="Server Error")
    run = world.run("pull_request", labeled())
    assert run.returncode == 0 and run.outputs["result"] == "promoted", run.stdout
    assert any(f"Could not read pull request #{PR}" in w for w in run.commands("warning"))
    # The commit is still a compare-and-swap on the measured head.
    assert world.gh.repos[REPO].commits[-1]["parents"] == [HEAD_SHA]
