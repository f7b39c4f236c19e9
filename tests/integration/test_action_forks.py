"""Pull requests from forks and the required check: the fork's own run measures and publishes
nothing (no secrets, a read-only token); the `workflow_run` companion
(examples/workflows/promptcanary-fork.yml) marks `PromptCanary: <suite> (<model>)` on the fork's
head as not measured, without a secret and without a model call, so the pull request does not
wait for it forever. In process, through the real PyGithub on the loopback GitHub."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.fakes.action_runner import ROOT, load_event
from tests.fakes.github_server import READ_ONLY_TOKEN, Token
from tests.integration.action_support import BOT, REPO
from tests.integration.action_world import World, make_world

NAME = "PromptCanary: support-bot (openai/fake)"
FORK_SHA = "2c2ee5b2a3b1bd8b3ae7b0d5c6d8f4b7e3a9c1f0"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with make_world(tmp_path) as made:
        # GitHub keeps a fork's pull request head in the base repository (refs/pull/N/head).
        made.gh.set_head(REPO, "pull/2/head", FORK_SHA)
        made.runner.provider_env.clear()  # a workflow_run companion is given no secret
        made.runner.workflow_file = "promptcanary-fork.yml"
        yield made


def fork_pull_request() -> dict[str, Any]:
    event = load_event("pull_request.opened")
    event["pull_request"]["head"]["sha"] = FORK_SHA
    event["pull_request"]["head"]["repo"].update(full_name="forker/Hello-World", id=118)
    return event


def test_the_forks_own_run_leaves_the_required_check_expected(world: World) -> None:
    world.runner.token = READ_ONLY_TOKEN
    world.runner.workflow_file = "promptcanary-pr.yml"
    run = world.run("pull_request", fork_pull_request())
    assert run.returncode == 0 and run.outputs["result"] == "skipped"
    assert world.gh.required_check(REPO, FORK_SHA, NAME) == "expected"  # what the companion fixes


def test_the_companion_marks_the_forks_head_not_measured(world: World) -> None:
    run = world.run("workflow_run", load_event("workflow_run.fork"))
    assert run.returncode == 0 and run.outputs["result"] == "skipped"
    assert world.llm.requests == []
    [status] = world.gh.repos[REPO].statuses
    assert (status["sha"], status["context"], status["state"]) == (FORK_SHA, NAME, "success")
    assert status["description"].startswith("Not measured: pull request from a fork")
    [check] = world.gh.repos[REPO].check_runs.values()
    assert (check["head_sha"], check["name"], check["conclusion"]) == (FORK_SHA, NAME, "neutral")
    assert world.gh.required_check(REPO, FORK_SHA, NAME) == "success"
    assert "forker/Hello-World" in run.summary and "fail-on-skip" in run.summary
    assert world.bot_comments() == []  # GitHub names no pull request for a fork's run


def test_with_fail_on_skip_the_companion_fails_the_forks_check(world: World) -> None:
    run = world.run("workflow_run", load_event("workflow_run.fork"), **{"fail-on-skip": "true"})
    assert run.returncode == 3
    assert world.gh.required_check(REPO, FORK_SHA, NAME) == "failure"


def test_the_companion_leaves_a_pull_request_of_this_repository_alone(world: World) -> None:
    event = load_event("workflow_run.fork")
    event["workflow_run"]["head_repository"] = dict(event["workflow_run"]["repository"])
    run = world.run("workflow_run", event)
    assert run.returncode == 0 and run.outputs["result"] == "skipped"
    assert world.gh.repos[REPO].statuses == [] and world.gh.repos[REPO].check_runs == {}
    assert "not from a fork" in run.summary


def test_the_companion_ignores_runs_that_were_not_a_pull_requests(world: World) -> None:
    event = load_event("workflow_run.fork")
    event["workflow_run"]["event"] = "push"
    run = world.run("workflow_run", event)
    assert run.outputs["result"] == "skipped" and world.gh.repos[REPO].statuses == []


def test_the_example_companion_needs_no_secret_and_its_permissions_suffice(
    world: World,
) -> None:
    spec = yaml.safe_load((ROOT / "examples/workflows/promptcanary-fork.yml").read_text("utf-8"))
    assert spec[True]["workflow_run"]["workflows"] == ["PromptCanary"]  # the check's `name:`
    check = yaml.safe_load((ROOT / "examples/workflows/promptcanary-pr.yml").read_text("utf-8"))
    assert check["name"] == "PromptCanary"
    [job] = spec["jobs"].values()
    assert "secrets." not in yaml.safe_dump(spec)
    assert "github.event.workflow_run.head_repository.full_name != github.repository" in job["if"]
    checkout = job["steps"][0]
    assert checkout["with"] == {"persist-credentials": False}  # the default branch, not the fork
    token = "ghs_forkjob".ljust(40, "0")
    world.gh.tokens[token] = Token(BOT, permissions=dict(job["permissions"]))
    world.runner.token = token
    inputs = {k: str(v) for k, v in job["steps"][1]["with"].items() if k != "config"}
    run = world.run("workflow_run", load_event("workflow_run.fork"), **inputs)
    assert run.returncode == 0 and not run.commands("warning")
    assert (
        world.gh.required_check(REPO, FORK_SHA, "PromptCanary: support-bot (openai/gpt-4o-mini)")
        == "success"
    )
