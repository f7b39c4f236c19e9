"""Probe (temporary)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.action_runner import load_event
from tests.fakes.github_server import Token
from tests.integration.action_support import BOT, seed_baseline
from tests.integration.action_world import World, make_world

NO_PR_WRITE = "ghs_noprwrite0000000000000000000000000"
TOKENS = {NO_PR_WRITE: Token(BOT, permissions={"contents": "read", "checks": "write", "statuses": "write"})}


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with make_world(tmp_path, tokens=TOKENS) as made:
        yield made


def test_probe(world: World) -> None:
    seed_baseline(world.runner.workspace)
    world.answers["capital"] = "I would rather not say."
    world.runner.token = NO_PR_WRITE
    run = world.run("pull_request", load_event("pull_request.opened"))
    print(run.stdout)
    print("=====SUMMARY")
    print(run.summary[-3000:])
    assert False
