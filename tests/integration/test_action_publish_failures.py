"""A reply PyGithub cannot read after the gate has decided keeps the gate's exit code.

The comment or the check run's completion landed, but GitHub's answer came back cut off (a
body that starts as JSON and ends mid-way): PyGithub raises a ``JSONDecodeError`` nothing
translates. The verdict was reached; only telling GitHub failed, so the step ends with the
gate's code, warns naming what failed and prints the report in the log. The same failure before
the verdict (the check run created when the suite starts) is a bug and stays exit 4. In process,
through the real PyGithub and LiteLLM on loopback servers.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.action_runner import ActionRun, load_event
from tests.integration.action_support import REPO, seed_baseline
from tests.integration.action_world import World, make_world

CUT_OFF = b'{"id": 7, "html_url": "https://github.test/'
REPORT_GROUP = "::group::PromptCanary report (publishing the verdict failed: here in full)"
TRACEBACK_GROUP = "::group::PromptCanary: traceback of the failure to publish"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with make_world(tmp_path) as made:
        yield made


def drifting(world: World) -> None:
    """A committed baseline and a model that no longer names Paris: a failing check (exit 1)."""
    seed_baseline(world.runner.workspace)
    world.answers["capital"] = "I would rather not say."


def warnings_about(run: ActionRun, what: str) -> list[str]:
    return [
        w
        for w in run.commands("warning")
        if w.startswith(f"Could not {what}") and "JSONDecodeError" in w
    ]


def test_a_garbled_comment_reply_keeps_the_failing_verdict(world: World) -> None:
    drifting(world)
    world.gh.garble("POST", r"/issues/2/comments$", CUT_OFF)
    run = world.run("pull_request", load_event("pull_request.opened"))

    assert run.returncode == 1 and run.outputs["result"] == "failed"  # not 4: the gate stands
    [warned] = warnings_about(run, "comment on pull request #2")
    assert "The verdict stands (exit code 1)" in warned
    # The rest is still published: the check run carries the failing verdict.
    [check] = world.gh.repos[REPO].check_runs.values()
    assert (check["status"], check["conclusion"]) == ("completed", "failure")
    assert REPORT_GROUP in run.stdout and TRACEBACK_GROUP in run.stdout
    assert "CRITICAL drift" in run.stdout.split(REPORT_GROUP, 1)[1]
    assert "PromptCanary crashed" not in run.stdout
    assert "GitHub refused some operations" in run.summary and "JSONDecodeError" in run.summary


def test_a_garbled_check_run_reply_keeps_the_passing_verdict(world: World) -> None:
    seed_baseline(world.runner.workspace)
    world.gh.garble("PATCH", r"/check-runs/\d+$", CUT_OFF)
    run = world.run("pull_request", load_event("pull_request.opened"))

    assert run.returncode == 0 and run.outputs["result"] == "passed"
    [warned] = warnings_about(run, "publish the check run and the commit status")
    assert "The verdict stands (exit code 0)" in warned
    assert run.outputs["comment-url"]  # the comment was posted before
    # The commit status went first and carries the verdict; the check run's completion landed.
    assert world.gh.repos[REPO].statuses[-1]["state"] == "success"
    [check] = world.gh.repos[REPO].check_runs.values()
    assert check["conclusion"] == "success"
    assert "JSONDecodeError" in run.summary and REPORT_GROUP in run.stdout


def test_a_garbled_check_run_reply_after_a_promotion_keeps_it_promoted(world: World) -> None:
    world.runner.workflow_file = "promptcanary-promote.yml"
    event = load_event("pull_request.labeled")
    event["label"]["name"] = "promptcanary:promote"
    world.gh.garble("POST", r"/check-runs$", CUT_OFF)
    run = world.run("pull_request", event, **{"baseline-samples": "3"})

    # The commit landed, so the promotion is decided: publishing it is what failed.
    assert run.returncode == 0 and run.outputs["result"] == "promoted"
    assert len(world.gh.repos[REPO].commits) == 1
    [warned] = warnings_about(run, "publish the check run and the commit status")
    assert "The verdict stands (exit code 0)" in warned
    assert world.bot_comments() and REPORT_GROUP in run.stdout


def test_the_same_failure_before_the_verdict_is_a_bug(world: World) -> None:
    drifting(world)
    world.gh.garble("POST", r"/check-runs$", CUT_OFF)  # the in-progress run, before any request
    run = world.run("pull_request", load_event("pull_request.opened"))

    assert run.returncode == 4
    assert any("PromptCanary crashed: JSONDecodeError" in e for e in run.commands("error"))
    assert run.outputs.get("result", "") == "" and REPORT_GROUP not in run.stdout


def test_a_check_started_then_stopped_by_an_error_is_settled_as_that_error(world: World) -> None:
    """The pending status said "Still pending after the job ended? It stopped early: re-run the
    job" — true of a cancelled job, not of one that ended on an error its log names."""
    drifting(world)
    world.gh.garble("POST", r"/check-runs$", CUT_OFF)
    run = world.run("pull_request", load_event("pull_request.opened"))

    assert run.returncode == 4
    statuses = [s for s in world.gh.repos[REPO].statuses]
    assert [s["state"] for s in statuses] == ["pending", "error"]
    assert statuses[-1]["description"] == "PromptCanary stopped: JSONDecodeError"
