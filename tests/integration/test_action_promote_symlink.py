"""Writing the promoted baseline never leaves the workspace: a checked-out ``baselines`` symlink
(or any symlinked folder on the way) pointing outside is refused before anything is written or
any model is paid for. Real symlinks in a temp workspace, in-process Action, loopback GitHub."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from promptcanary.action.comment import DEFAULT_PROMOTE_LABEL
from tests.fakes.action_runner import load_event
from tests.integration.action_support import REPO
from tests.integration.action_world import PR, World, make_world


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with make_world(tmp_path) as made:
        yield made


def labeled(world: World) -> dict[str, Any]:
    event = load_event("pull_request.labeled")
    event["label"]["name"] = DEFAULT_PROMOTE_LABEL
    event["pull_request"]["labels"] = [{"name": DEFAULT_PROMOTE_LABEL}]
    repo = world.gh.repos[REPO]
    repo.issues[PR]["labels"].append(world.gh._label(repo, DEFAULT_PROMOTE_LABEL))
    return event


def error_line(stdout: str) -> str:
    return next(line for line in stdout.splitlines() if line.startswith("::error"))


def test_a_baselines_symlink_out_of_the_workspace_is_refused_before_anything_is_written(
    world: World, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (world.runner.workspace / "baselines").symlink_to(outside, target_is_directory=True)

    run = world.run("pull_request", labeled(world), **{"check-workflow": "none"})

    assert run.returncode == 2
    error = error_line(run.stdout)
    assert "baselines is a symlink to" in error and str(outside) in error
    assert "with.baseline-dir" in error
    assert list(outside.iterdir()) == []
    assert world.gh.repos[REPO].commits == [] and world.llm.requests == []


def test_a_symlinked_folder_on_the_way_is_refused_too(world: World, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    (outside / "baselines").mkdir(parents=True)
    (world.runner.workspace / "llm").symlink_to(outside, target_is_directory=True)

    run = world.run(
        "pull_request",
        labeled(world),
        **{"check-workflow": "none", "baseline-dir": "llm/baselines"},
    )

    assert run.returncode == 2
    assert "llm is a symlink to" in error_line(run.stdout)
    assert list((outside / "baselines").iterdir()) == []
    assert world.gh.repos[REPO].commits == []


def test_a_symlink_that_stays_inside_the_workspace_is_fine(world: World) -> None:
    real = world.runner.workspace / "data" / "baselines"
    real.mkdir(parents=True)
    (world.runner.workspace / "baselines").symlink_to(real, target_is_directory=True)

    run = world.run("pull_request", labeled(world), **{"check-workflow": "none", "samples": "2"})

    assert run.returncode == 0, run.stdout
    assert run.outputs["result"] == "promoted"
    assert len(list(real.glob("*.json"))) == 1
