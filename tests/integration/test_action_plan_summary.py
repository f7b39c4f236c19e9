"""The Action shows the plan (requests, estimated cost) in the step summary before the report:
the same announcement the CLI prints, from the same pipeline step. In process, loopback GitHub
and LLM servers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from promptcanary.action.main import main
from tests.fakes.action_runner import load_event
from tests.integration.action_support import MODEL, seed_baseline
from tests.integration.action_world import World, make_world


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with make_world(tmp_path) as made:
        yield made


def test_a_check_shows_its_plan_before_the_report(world: World) -> None:
    seed_baseline(world.runner.workspace)
    run = world.run("pull_request", load_event("pull_request.opened"))
    assert run.outputs["result"] == "passed", run.summary[:2000]
    first = run.summary.lstrip().splitlines()[0]
    # samples: auto against a baseline: every prompt screened, confirmed only where it differs.
    assert first.startswith("**PromptCanary** · Plan: ") and "(4 prompt(s) x " in first
    assert MODEL in first
    assert "if every prompt needs confirming" in first
    assert len(world.llm.requests) >= 4


def test_a_promotion_shows_the_baseline_samples_it_sends(world: World) -> None:
    event = load_event("pull_request.labeled")
    event["label"]["name"] = "promptcanary:promote"
    run = world.run("pull_request", event)
    assert run.outputs["result"] == "promoted", run.summary[:2000]
    first = run.summary.lstrip().splitlines()[0]
    assert first.startswith("**PromptCanary** · Plan: 120 request(s) (4 prompt(s) x 30)")
    assert len(world.llm.requests) == 120


def test_a_replay_sends_nothing_and_shows_no_plan(world: World) -> None:
    seed_baseline(world.runner.workspace)
    baseline = next((world.runner.workspace / "baselines").glob("*.json"))
    run = world.runner.run_in_process(
        main,
        main_kwargs={"github_factory": world.github, "make_provider": world.provider},
        event_name="push",
        event=load_event("push"),
        inputs={"replay": f"baselines/{baseline.name}"},
    )
    assert run.outputs["result"] == "passed", run.stdout
    assert "Plan: " not in run.summary and world.llm.requests == []
