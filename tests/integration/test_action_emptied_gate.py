"""A pull request cannot empty the gate it is judged by: a check whose head has no baseline of
(suite, model) asks the base branch, through the contents API, and fails before any model call
when the base has one. In process, through the real PyGithub and LiteLLM on the loopback
servers; the head's checkout is the runner's workspace, the base branch lives in the fake."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.action_runner import load_event
from tests.fakes.github_server import HEAD_SHA
from tests.integration.action_support import BOT, REPO, seed_baseline
from tests.integration.action_world import PR, World, make_world

NAME = "PromptCanary: support-bot (openai/fake)"
BASE = "master"  # the base branch of the webhook examples' pull request


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with make_world(tmp_path) as made:
        yield made


def commit_baseline_on_base(world: World) -> str:
    """The repository's committed baseline: on the base branch in GitHub, and in the head's
    checkout as the pull request found it. Returns its path in the repository."""
    folder = seed_baseline(world.runner.workspace)
    [path] = folder.glob("*.json")
    repo_path = f"baselines/{path.name}"
    world.gh.push(REPO, BASE, {repo_path: path.read_bytes()})
    return repo_path


def opened() -> dict[str, object]:
    return load_event("pull_request.opened")


def test_deleting_the_committed_baseline_fails_the_check_without_a_model_call(
    world: World,
) -> None:
    repo_path = commit_baseline_on_base(world)
    (world.runner.workspace / repo_path).unlink()  # the pull request deletes it

    run = world.run("pull_request", opened())

    assert run.returncode == 1, run.stdout
    assert run.outputs["result"] == "baseline-removed"
    assert world.llm.requests == []
    assert f"`{BASE}`" in run.summary and f"`{repo_path}`" in run.summary
    assert "allow-baseline-removal: true" in run.summary
    [comment] = world.bot_comments()
    assert "the baseline was removed" in comment["body"] and repo_path in comment["body"]
    assert world.gh.required_check(REPO, HEAD_SHA, NAME) == "failure"
    [check_run] = world.gh.repos[REPO].check_runs.values()
    assert check_run["conclusion"] == "failure"
    assert check_run["output"]["title"] == "The baseline was removed: no model was called"
    assert any("has a baseline of this suite" in e for e in run.commands("error"))
    # Listed on the base branch, by the folder the store searched.
    assert world.gh.count("GET", rf"/repos/{REPO}/contents/baselines$") == 1


def test_renaming_it_out_of_the_folder_fails_the_same_way(world: World) -> None:
    repo_path = commit_baseline_on_base(world)
    moved = world.runner.workspace / "baselines" / "archive" / Path(repo_path).name
    moved.parent.mkdir()
    shutil.move(world.runner.workspace / repo_path, moved)

    run = world.run("pull_request", opened())

    assert (run.returncode, run.outputs["result"]) == (1, "baseline-removed")
    assert world.llm.requests == []


def test_the_first_baseline_ever_is_no_baseline_as_before(world: World) -> None:
    run = world.run("pull_request", opened())  # neither the base nor the head has one

    assert run.returncode == 0 and run.outputs["result"] == "no-baseline"
    assert len(world.llm.requests) > 0
    assert world.gh.required_check(REPO, HEAD_SHA, NAME) == "success"
    # The base branch was asked, and its missing folder (404) counts as empty.
    assert world.gh.count("GET", rf"/repos/{REPO}/contents/baselines$") == 1


def test_another_suites_baseline_on_the_base_is_not_this_ones(world: World) -> None:
    world.gh.push(
        REPO,
        BASE,
        {"baselines/other-suite__openai-fake__20260101T000000000000Z_0123abcd.json": b"{}"},
    )
    run = world.run("pull_request", opened())
    assert run.outputs["result"] == "no-baseline" and world.llm.requests != []


def test_the_workflow_may_allow_removing_it(world: World) -> None:
    repo_path = commit_baseline_on_base(world)
    (world.runner.workspace / repo_path).unlink()

    run = world.run("pull_request", opened(), **{"allow-baseline-removal": "true"})

    assert run.returncode == 0 and run.outputs["result"] == "no-baseline"
    assert world.llm.requests != []
    assert "the workflow allows that" in run.summary
    assert any("allows that" in n for n in run.commands("notice"))


def test_a_base_branch_github_will_not_list_fails_closed(world: World) -> None:
    world.retries = 0
    world.gh.fail("GET", r"/contents/baselines$", 502, message="Server Error")

    run = world.run("pull_request", opened())

    assert (run.returncode, run.outputs["result"]) == (1, "baseline-removed")
    assert world.llm.requests == []
    assert "cannot tell whether the pull request removed" in run.summary
    assert "Re-run the job" in world.bot_comments()[0]["body"]


def test_a_check_with_its_baseline_never_asks_the_base_branch(world: World) -> None:
    commit_baseline_on_base(world)
    run = world.run("pull_request", opened())
    assert run.outputs["result"] == "passed"
    assert world.gh.count("GET", r"/contents") == 0


def test_a_push_has_no_base_branch_to_ask(world: World) -> None:
    run = world.run("push", load_event("push"))
    assert run.outputs["result"] == "no-baseline"
    assert world.gh.count("GET", r"/contents") == 0


def test_the_comment_is_the_bots_sticky_one(world: World) -> None:
    repo_path = commit_baseline_on_base(world)
    (world.runner.workspace / repo_path).unlink()
    world.run("pull_request", opened())
    world.run("pull_request", opened())  # the next push: still removed
    [comment] = world.bot_comments()
    assert comment["user"]["login"] == BOT and comment["issue_number"] == PR
