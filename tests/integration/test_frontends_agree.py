"""The CLI and the Action reach the same verdict on the same cases: both call promptcanary.pipeline.

Each case runs the suite through the real LiteLLM stack against the loopback LLM server, once with
``promptcanary.cli.main`` (in process) and once with the Action's ``main`` (in process, loopback
GitHub), and compares what each front-end decided.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from promptcanary import cli
from tests.fakes.action_runner import FakeRunner, load_event
from tests.fakes.github_server import FakeGitHubServer
from tests.fakes.llm_server import FakeLLMServer, Reply, last_user_text
from tests.integration.action_support import (
    GOOD,
    MODEL,
    REPO,
    SUITE,
    answers_for,
    seed_baseline,
)
from tests.integration.action_world import KEY, PR, World

#: The Action's suite with every request tried once and any error rate tolerated: the setting
#: under which the Action once promoted a run in which every request had failed.
TOLERANT_SUITE = SUITE.replace(
    "name: support-bot\n", "name: support-bot\nmax_attempts: 1\nmax_error_rate: 1.0\n"
)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    answers: dict[str, Any] = dict(GOOD)

    def reply(request: dict[str, Any]) -> Reply | str:
        if "status" in answers:
            return Reply(status=answers["status"], error_message="upstream unavailable")
        return answers_for(answers, last_user_text(request))

    with FakeGitHubServer() as gh, FakeLLMServer(reply) as llm:
        gh.add_repo(REPO, branches=("master", "changes"))
        gh.add_pull_request(REPO, PR, head_ref="changes")
        runner = FakeRunner(tmp_path, api_url=gh.base_url, provider_env={"OPENAI_API_KEY": KEY})
        (runner.workspace / "canary.yaml").write_text(TOLERANT_SUITE, encoding="utf-8")
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        yield World(runner, gh, llm, answers)


def run_cli(world: World, *args: str) -> int:
    ws = world.runner.workspace
    cwd = os.getcwd()
    os.chdir(ws)
    try:
        return cli.main(
            [
                *args,
                "-c",
                "canary.yaml",
                "-p",
                MODEL,
                "--api-base",
                world.llm.base_url,
                "--no-progress",
            ]
        )
    finally:
        os.chdir(cwd)


def baseline_files(world: World) -> list[Path]:
    return sorted((world.runner.workspace / "baselines").glob("*.json"))


def test_a_run_where_every_request_failed_is_never_a_baseline(world: World) -> None:
    world.answers["status"] = 500
    # 3 samples a prompt, not the 30 a baseline gets by default: every request fails whatever
    # their number, and a failed request costs more CPU than an answered one.
    few = "3"

    assert run_cli(world, "run", "--save-baseline", "--baseline-samples", few) == 3
    assert baseline_files(world) == []

    event = load_event("pull_request.labeled")
    event["label"]["name"] = "promptcanary:promote"
    run = world.run("pull_request", event, **{"baseline-samples": few})
    assert run.outputs["result"] == "inconclusive"
    assert "measured nothing" in run.summary
    assert baseline_files(world) == [] and world.gh.repos[REPO].commits == []


@pytest.mark.parametrize(
    ("answer", "cli_code", "action_result", "action_code"),
    [
        ("Paris.", 0, "passed", 0),  # unchanged
        ("I would rather not say.", 1, "failed", 1),  # one of four prompts regresses: high
        ("status", 3, "inconclusive", 0),  # provider down: never drift (Action: not failing)
    ],
)
def test_cli_and_action_gate_alike(
    world: World, answer: str, cli_code: int, action_result: str, action_code: int
) -> None:
    seed_baseline(world.runner.workspace)
    if answer == "status":
        world.answers["status"] = 503
    elif answer != "Paris.":
        world.answers["capital"] = answer

    assert run_cli(world, "compare", "--fail-on-severity", "medium") == cli_code
    run = world.run(
        "pull_request", load_event("pull_request.opened"), **{"fail-on-severity": "medium"}
    )
    assert (run.outputs["result"], run.returncode) == (action_result, action_code)


@pytest.mark.parametrize("strict", [False, True])
def test_a_suite_edit_is_not_drift_for_either_front_end_unless_asked(
    world: World, strict: bool
) -> None:
    seed_baseline(world.runner.workspace)
    suite = world.runner.workspace / "canary.yaml"
    text = suite.read_text(encoding="utf-8")
    suite.write_text(text[: text.index("  - id: author")], encoding="utf-8")  # a prompt removed

    flags = ["--fail-on-suite-change"] if strict else []
    assert run_cli(world, "compare", "--fail-on-severity", "low", *flags) == (1 if strict else 0)
    inputs = {"fail-on-severity": "low", "fail-on-suite-change": "true" if strict else "false"}
    run = world.run("pull_request", load_event("pull_request.opened"), **inputs)
    expected = ("suite-changed", 1) if strict else ("passed", 0)
    assert (run.outputs["result"], run.returncode) == expected
    body = world.bot_comments()[0]["body"]
    assert "suite changed" in body.split("\n")[1] and "### Suite changes (1)" in body
    assert "prompt author removed" in body and "Not present" not in body


@pytest.mark.parametrize(
    ("severity", "strict", "fails"),
    [("medium", False, False), ("medium", True, True), ("low", False, True)],
)
def test_a_behaviour_change_fails_either_front_end_only_when_asked(
    world: World, severity: str, strict: bool, fails: bool
) -> None:
    # One rule: a behaviour change is severity low, so --fail-on-severity low fails on it;
    # --fail-on-behaviour-change fails on it whatever the severity threshold.
    suite = world.runner.workspace / "canary.yaml"
    suite.write_text(
        TOLERANT_SUITE.replace("name: support-bot\n", "name: support-bot\nsamples: 8\n"),
        encoding="utf-8",
    )
    assert run_cli(world, "run", "--save-baseline") == 0
    # The answer still holds the keyword (the probe passes) but it turned chatty.
    world.answers["capital"] = (
        "Sure! Great question. The capital of France is Paris. Would you like to know more?"
    )
    flags = ["--fail-on-behaviour-change"] if strict else []
    assert run_cli(world, "compare", "--fail-on-severity", severity, *flags) == int(fails)
    inputs = {
        "fail-on-severity": severity,
        "fail-on-behaviour-change": "true" if strict else "false",
    }
    run = world.run("pull_request", load_event("pull_request.opened"), **inputs)
    expected = ("failed", 1) if fails else ("passed", 0)
    assert (run.outputs["result"], run.returncode) == expected
    body = world.bot_comments()[0]["body"]
    assert "who changed: the model" in body.split("\n")[1]
    assert "### Behaviour changes (1)" in body
    assert "sk-test" not in body  # a key never reaches a report, settings compared or not


def test_a_watch_says_the_provider_changed_the_model_and_since_when(world: World) -> None:
    suite = world.runner.workspace / "canary.yaml"
    suite.write_text(
        TOLERANT_SUITE.replace("name: support-bot\n", "name: support-bot\nsamples: 8\n"),
        encoding="utf-8",
    )
    assert run_cli(world, "run", "--save-baseline") == 0
    [saved] = baseline_files(world)
    day = json.loads(saved.read_text(encoding="utf-8"))["created_at"][:10]
    # Behind the same name: a new fingerprint, and one answer turned chatty (probes still pass).
    chatty = "Sure! Great question. The capital of France is Paris. Would you like to know more?"
    for key, text in list(world.answers.items()):
        world.answers[key] = Reply(
            content=chatty if key == "capital" else text, system_fingerprint="fp_new"
        )
    run = world.run("schedule", load_event("schedule"))
    assert (run.outputs["result"], run.returncode) == ("passed", 0)  # low: reported, not failing
    [issue] = [i for i in world.gh.repos[REPO].issues.values() if "pull_request" not in i]
    body = issue["body"]
    assert (
        f"The provider changed the model behind {MODEL} on or after {day} (the last stable run"
        in body
    )
    assert "system fingerprint fp\\_test → fp\\_new" in body  # Markdown-escaped
    assert "answers changed on 1 prompt(s): capital" in body
    assert issue["title"].startswith("PromptCanary: behaviour change in 'support-bot'")
