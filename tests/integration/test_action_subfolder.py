"""A suite in a subfolder is gated: `promptcanary init my-suite`'s layout, a baseline saved by the
CLI, then the Action (in process, real PyGithub on the loopback GitHub, real LiteLLM on the
loopback LLM) finds it — both front-ends ask promptcanary.pipeline.baseline_dir."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import pytest

from promptcanary.action.comment import DEFAULT_PROMOTE_LABEL
from tests.fakes.action_runner import FakeRunner, load_event
from tests.fakes.cli import run_cli
from tests.fakes.github_server import FakeGitHubServer
from tests.fakes.llm_server import FakeLLMServer, last_user_text
from tests.integration.action_support import BOT, MODEL, REPO, WORKFLOWS
from tests.integration.action_world import KEY, PR, World

SUITE = "my-suite/canary.yaml"


def correct_answer(request: dict[str, Any]) -> str:
    text = last_user_text(request)
    if "Return only JSON" in text:
        return '{"city": "Paris", "country": "France"}'
    return "Paris"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with FakeGitHubServer() as gh, FakeLLMServer(correct_answer) as llm:
        gh.add_repo(REPO, branches=("master", "changes"), workflows=WORKFLOWS)
        gh.add_pull_request(REPO, PR, head_ref="changes")
        runner = FakeRunner(tmp_path, api_url=gh.base_url, provider_env={"OPENAI_API_KEY": KEY})
        assert run_cli("init", "my-suite", cwd=runner.workspace).returncode == 0
        yield World(runner, gh, llm, {})


def save_baseline_with_the_cli(world: World) -> Path:
    result = run_cli(
        "run",
        "-c",
        SUITE,
        "-p",
        MODEL,
        "--api-base",
        world.llm.base_url,
        "--no-progress",
        "--save-baseline",
        cwd=world.runner.workspace,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    saved = sorted((world.runner.workspace / "my-suite" / "baselines").glob("*.json"))
    assert len(saved) == 1
    return saved[0]


def test_the_init_workflow_names_the_suite_in_its_folder(world: World) -> None:
    workflows = world.runner.workspace / ".github" / "workflows"
    written = "".join(p.read_text(encoding="utf-8") for p in workflows.glob("*.yml"))
    assert f"config: {SUITE}" in written
    # The workflow does not set baseline-dir: the Action's default must be the suite's folder.
    assert "baseline-dir" not in written


def test_the_action_check_finds_the_baseline_the_cli_saved_next_to_the_suite(
    world: World,
) -> None:
    saved = save_baseline_with_the_cli(world)
    world.answers.clear()

    run = world.run("pull_request", load_event("pull_request.opened"), config=SUITE)

    assert run.returncode == 0, run.stdout + run.stderr
    assert run.outputs["result"] == "passed"
    assert run.outputs["baseline-path"] == f"my-suite/baselines/{saved.name}"
    assert run.outputs["severity"] == "none"


def test_no_baseline_says_which_folder_was_searched(world: World) -> None:
    run = world.run("pull_request", load_event("pull_request.opened"), config=SUITE)

    assert run.outputs["result"] == "no-baseline"
    body = next(c for c in world.gh.repos[REPO].comments_on(PR) if c["user"]["login"] == BOT)
    assert "`my-suite/baselines/`" in body["body"]
    assert "`my-suite/baselines/`" in run.summary
    notices = [line for line in run.stdout.splitlines() if line.startswith("::notice")]
    assert any("my-suite/baselines/ (the folder searched)" in line for line in notices)


def summary_path(baseline: str) -> str:
    """The summary beside a baseline: ``{suite}__{model}.summary.md``."""
    folder, name = baseline.rsplit("/", 1)
    suite, model, _ = name.split("__")
    return f"{folder}/{suite}__{model}.summary.md"


def test_a_label_promotion_commits_into_the_suites_baselines_folder(world: World) -> None:
    event = load_event("pull_request.labeled")
    event["label"]["name"] = DEFAULT_PROMOTE_LABEL
    event["pull_request"]["labels"] = [{"name": DEFAULT_PROMOTE_LABEL}]
    repo = world.gh.repos[REPO]
    repo.issues[PR]["labels"].append(world.gh._label(repo, DEFAULT_PROMOTE_LABEL))

    run = world.run(
        "pull_request", event, config=SUITE, **{"check-workflow": "none", "samples": "2"}
    )

    assert run.returncode == 0, run.stdout + run.stderr
    assert run.outputs["result"] == "promoted"
    path = run.outputs["baseline-path"]
    assert path.startswith("my-suite/baselines/") and path.endswith(".json")
    # One commit: the baseline, its summary and the folder's first .gitattributes.
    [commit] = repo.commits
    assert sorted(commit["paths"]) == sorted(
        [path, "my-suite/baselines/.gitattributes", summary_path(path)]
    )
    assert repo.files["changes"][path]["content"] == (world.runner.workspace / path).read_bytes()
    assert not (world.runner.workspace / "baselines").exists()
