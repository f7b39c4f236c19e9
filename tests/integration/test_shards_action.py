"""The sharded example workflow's last job, in this process: slices run through the CLI against
the loopback LLM server, `promptcanary merge` joins them, and the Action (``main()`` with the
loopback GitHub) compares, comments and gates the merged run through its ``replay`` input."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import pytest

from promptcanary.action.main import main
from tests.fakes.action_runner import ActionRun, load_event
from tests.fakes.cli import run_cli
from tests.integration.action_support import MODEL, seed_baseline
from tests.integration.action_world import World, make_world


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with make_world(tmp_path) as made:
        yield made


def shard_and_merge(world: World, count: int) -> None:
    workspace = world.runner.workspace
    flags = ["-p", MODEL, "--api-base", world.llm.base_url, "--no-progress", "-q"]
    for i in range(1, count + 1):
        proc = run_cli(
            "run", *flags, "--shard", f"{i}/{count}", "-o", f"part-{i}.json", cwd=workspace
        )
        assert proc.returncode == 0, proc.stderr
    parts = [f"part-{i}.json" for i in range(1, count + 1)]
    proc = run_cli("merge", *parts, "-o", "run.json", cwd=workspace)
    assert proc.returncode == 0, proc.stderr


def replay(world: World, path: str) -> ActionRun:
    world.runner.provider_env.clear()  # the merge job holds no key: the run was measured already
    return world.runner.run_in_process(
        main,
        main_kwargs={"github_factory": world.github, "make_provider": world.provider},
        event_name="pull_request",
        event=load_event("pull_request.opened"),
        inputs={"replay": path, "fail-on-severity": "medium"},
    )


def test_merged_run_is_compared_commented_and_gated(world: World) -> None:
    # The slices send every prompt once: a one-sample baseline, so the threshold rule decides.
    seed_baseline(world.runner.workspace, samples=1)
    world.answers["capital"] = "I would rather not say."
    shard_and_merge(world, 2)
    requests = len(world.llm.requests)
    assert requests == 4  # every prompt once, across the two slices

    run = replay(world, "run.json")
    assert run.returncode == 1, run.stdout
    assert run.outputs["result"] == "failed"
    assert run.outputs["regressions"] == "1"
    assert "drift" in world.bot_comments()[0]["body"]
    assert len(world.llm.requests) == requests  # the Action called no model


def test_a_lone_part_is_refused_with_the_merge_command(world: World) -> None:
    seed_baseline(world.runner.workspace)
    shard_and_merge(world, 2)
    run = replay(world, "part-1.json")
    assert run.returncode == 2
    assert "part-1.json is shard 1/2 of a sharded run" in run.stdout
    assert "promptcanary merge" in run.stdout
