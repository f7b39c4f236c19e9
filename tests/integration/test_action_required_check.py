"""The required check `PromptCanary: <suite> (<model>)` as the merge box sees it: a commit status
beside the check run of the same name, pending / in progress before the model is called, the
verdict at the end, and a job that stops in the middle leaving "Pending", never "Expected". In
process, through the real PyGithub and LiteLLM on the loopback servers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from promptcanary.action.required_check import PENDING_DESCRIPTION
from promptcanary.core.models import CanaryPrompt, LLMResponse, ProviderConfig
from promptcanary.pipeline import Overrides
from promptcanary.providers.base import BaseLLMProvider
from tests.fakes.action_runner import load_event
from tests.fakes.github_server import HEAD_SHA, Token
from tests.integration.action_support import BOT, MODEL, REPO, seed_baseline
from tests.integration.action_world import World, make_world

NAME = "PromptCanary: support-bot (openai/fake)"
NO_STATUSES = "ghs_nostatuses0000000000000000000000000"
RUN_URL_PREFIX = "https://github.test/Codertocat/Hello-World/actions/runs/"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    tokens = {
        NO_STATUSES: Token(
            BOT, permissions={"contents": "read", "pull-requests": "write", "checks": "write"}
        )
    }
    with make_world(tmp_path, tokens=tokens) as made:
        yield made


def statuses(world: World, sha: str = HEAD_SHA) -> list[dict[str, Any]]:
    return [s for s in world.gh.repos[REPO].statuses if s["sha"] == sha]


class _Watching(BaseLLMProvider):
    """A provider that records what the merge box showed when the first request arrived."""

    def __init__(self, world: World, crash: bool = False) -> None:
        super().__init__(ProviderConfig(model_id=MODEL))
        self.world, self.crash = world, crash
        self.seen: list[str] = []

    def complete(self, prompt: CanaryPrompt, *, system_prompt: str | None = None) -> LLMResponse:
        if not self.seen:
            self.seen.append(self.world.gh.required_check(REPO, HEAD_SHA, NAME))
        if self.crash:  # the job is cancelled (or the runner dies) in the middle of the run
            raise KeyboardInterrupt
        from tests.integration.action_support import GOOD, answers_for

        return LLMResponse(
            prompt_id=prompt.id, provider_model_id=MODEL, content=answers_for(GOOD, prompt.text)
        )


def watch(world: World, *, crash: bool = False) -> _Watching:
    provider = _Watching(world, crash=crash)

    def make(model: str, overrides: Overrides) -> BaseLLMProvider:
        return provider

    world.provider = make  # type: ignore[method-assign]
    return provider


def test_the_check_is_pending_while_the_suite_runs_and_passes_at_the_end(world: World) -> None:
    seed_baseline(world.runner.workspace)
    provider = watch(world)
    run = world.run("pull_request", load_event("pull_request.opened"))
    assert run.returncode == 0 and run.outputs["result"] == "passed"
    assert provider.seen == ["pending"]  # before the first model request
    pending, final = statuses(world)
    assert (pending["context"], pending["state"]) == (NAME, "pending")
    assert pending["description"] == PENDING_DESCRIPTION and len(PENDING_DESCRIPTION) <= 140
    assert pending["target_url"].startswith(RUN_URL_PREFIX)
    assert (final["state"], final["target_url"]) == ("success", pending["target_url"])
    assert final["description"].startswith("✅") and len(final["description"]) <= 140
    # One check run: started in progress, then completed with the report (not a second one).
    [check] = world.gh.repos[REPO].check_runs.values()
    assert (check["status"], check["conclusion"], check["requests"]) == ("completed", "success", 2)
    assert world.gh.required_check(REPO, HEAD_SHA, NAME) == "success"


def test_drift_fails_both_the_status_and_the_check_run(world: World) -> None:
    seed_baseline(world.runner.workspace)
    world.answers["author"] = "Hamlet was written by Christopher Marlowe."
    run = world.run("pull_request", load_event("pull_request.opened"))
    assert run.returncode == 1
    assert [s["state"] for s in statuses(world)] == ["pending", "failure"]
    [check] = world.gh.repos[REPO].check_runs.values()
    assert check["conclusion"] == "failure" and len(check["annotations"]) == 1
    assert world.gh.required_check(REPO, HEAD_SHA, NAME) == "failure"


def test_no_baseline_passes_the_status_as_the_step_passes(world: World) -> None:
    run = world.run("pull_request", load_event("pull_request.opened"))
    assert run.outputs["result"] == "no-baseline"
    assert [s["state"] for s in statuses(world)] == ["pending", "success"]
    [check] = world.gh.repos[REPO].check_runs.values()
    assert check["conclusion"] == "neutral"  # a check run can say "neutral"; a status cannot
    assert "No baseline yet" in statuses(world)[-1]["description"]


def test_a_job_stopped_in_the_middle_leaves_pending_not_expected(world: World) -> None:
    seed_baseline(world.runner.workspace)
    watch(world, crash=True)
    with pytest.raises(KeyboardInterrupt):
        world.run("pull_request", load_event("pull_request.opened"))
    assert world.gh.required_check(REPO, HEAD_SHA, NAME) == "pending"
    [pending] = statuses(world)
    assert "re-run the job" in pending["description"]
    [check] = world.gh.repos[REPO].check_runs.values()
    assert check["status"] == "in_progress" and "Re-run jobs" in check["output"]["summary"]
    # Re-running the job sets it again and ends it.
    watch(world)
    rerun = world.run("pull_request", load_event("pull_request.opened"))
    assert rerun.returncode == 0 and world.gh.required_check(REPO, HEAD_SHA, NAME) == "success"
    assert [s["state"] for s in statuses(world)] == ["pending", "pending", "success"]


def test_without_statuses_write_it_says_so_once_and_the_check_run_carries_it(
    world: World,
) -> None:
    seed_baseline(world.runner.workspace)
    world.runner.token = NO_STATUSES
    run = world.run("pull_request", load_event("pull_request.opened"))
    assert run.returncode == 0 and statuses(world) == []
    [notice] = [n for n in run.commands("notice") if "statuses: write" in n]
    assert "Resource not accessible by integration" in notice
    assert world.gh.count("POST", "/statuses/") == 1  # asked once, not again at the end
    assert not run.commands("warning")
    assert world.gh.required_check(REPO, HEAD_SHA, NAME) == "success"


def test_a_promotion_sets_a_successful_status_on_its_commit(world: World) -> None:
    event = load_event("pull_request.labeled")
    event["label"]["name"] = "promptcanary:promote"
    # 3 samples a prompt (12 requests, not 120): the status does not depend on the count.
    run = world.run("pull_request", event, **{"baseline-samples": "3"})
    assert run.outputs["result"] == "promoted"
    [commit] = world.gh.repos[REPO].commits
    [status] = statuses(world, commit["sha"])
    assert (status["context"], status["state"]) == (NAME, "success")
    assert statuses(world) == []  # the measured head keeps the verdict its own check gave
    assert world.gh.required_check(REPO, commit["sha"], NAME) == "success"


def test_the_example_check_jobs_permissions_set_the_status(world: World) -> None:
    import yaml

    from tests.fakes.action_runner import ROOT

    spec = yaml.safe_load((ROOT / "examples/workflows/promptcanary-pr.yml").read_text("utf-8"))
    world.gh.tokens["ghs_checkjob".ljust(40, "0")] = Token(
        BOT, permissions=dict(spec["jobs"]["check"]["permissions"])
    )
    world.runner.token = "ghs_checkjob".ljust(40, "0")
    seed_baseline(world.runner.workspace)
    run = world.run("pull_request", load_event("pull_request.opened"))
    assert run.returncode == 0 and not run.commands("warning")
    assert not [n for n in run.commands("notice") if "write`" in n]  # no permission missing
    assert [s["state"] for s in statuses(world)] == ["pending", "success"]
