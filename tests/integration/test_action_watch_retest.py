"""The scheduled watch confirms before it accuses: a run whose only finding is a behaviour change
re-tests the flagged prompts on fresh answers and opens the issue only when they confirm it.
In process, through the real PyGithub and LiteLLM on the loopback servers."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from promptcanary.core.behaviour.adaptive import SCREENING_SAMPLES, TOPUP_SAMPLES
from promptcanary.core.suite import CanarySuite
from promptcanary.providers.scripted import ScriptedProvider
from promptcanary.storage.file import FileBaselineStore
from tests.fakes.action_runner import ActionRun, load_event
from tests.integration.action_support import GOOD, MODEL, REPO, seed_baseline
from tests.integration.action_world import World, make_world

#: Still passes the `Paris` probe: only the answer test sees it.
CHATTY = (
    "Sure! Great question. The capital of France is Paris, a city of museums and cafés. "
    "Let me know if you would like to hear more about France!"
)
#: A second way of answering that a lucky baseline holds a few times.
OTHER = "Paris is the capital of France."


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with make_world(tmp_path) as made:
        yield made


def watch(world: World, **inputs: str) -> ActionRun:
    return world.run("schedule", load_event("schedule"), **inputs)


def watch_issues(world: World) -> list[dict[str, Any]]:
    return [i for i in world.gh.repos[REPO].issues.values() if "pull_request" not in i]


def report_of(world: World, run: ActionRun) -> dict[str, Any]:
    path = Path(run.outputs["json-path"])
    path = path if path.is_absolute() else world.runner.workspace / path
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def announced(run: ActionRun) -> int:
    """The requests the summary's re-test line announced before they were sent."""
    match = re.search(
        r"Re-test of the behaviour finding on fresh answers: (\d+) more request", run.summary
    )
    assert match, run.summary
    return int(match.group(1))


def first_then(first: str, then: str, times: int) -> Callable[[], str]:
    """``first`` for the first ``times`` requests, ``then`` after."""
    calls = [0]

    def answer() -> str:
        calls[0] += 1
        return first if calls[0] <= times else then

    return answer


def test_a_behaviour_change_that_holds_on_fresh_answers_opens_the_issue(world: World) -> None:
    seed_baseline(world.runner.workspace)
    world.answers["capital"] = CHATTY

    run = watch(world, **{"fail-on-behaviour-change": "true"})

    assert run.returncode == 1, run.stdout
    assert run.outputs["result"] == "failed" and run.outputs["severity"] == "low"
    [issue] = watch_issues(world)
    body = issue["body"]
    assert issue["state"] == "open" and "behaviour change" in issue["title"]
    assert "Re-test on fresh answers" in body and "confirmed on fresh answers: capital" in body
    assert run.outputs["comment-url"] == issue["html_url"]
    # The re-test was announced, sent, and counted in the report's usage.
    report = report_of(world, run)
    sent = len(world.llm.requests)
    assert report["retest"]["accuses"] is True and report["retest"]["confirmed"] == ["capital"]
    assert report["retest"]["usage"]["requests"] == announced(run) >= TOPUP_SAMPLES
    assert report["current_usage"]["requests"] == sent
    assert "Who changed: the model" in report["attribution"]["sentence"]
    assert "Confirmed on" in report["attribution"]["sentence"]
    assert not run.commands("notice")


def test_a_flag_the_fresh_answers_do_not_repeat_opens_no_issue(world: World) -> None:
    seed_baseline(world.runner.workspace)
    # Chatty for the check's own answers (screening and top-up), back to normal afterwards.
    world.answers["capital"] = first_then(CHATTY, GOOD["capital"], TOPUP_SAMPLES)

    run = watch(world, **{"fail-on-behaviour-change": "true"})

    # The finding was noise: no issue, no failure, and the log and summary say why.
    assert run.returncode == 0, run.stdout
    assert run.outputs["result"] == "passed" and run.outputs["severity"] == "none"
    assert watch_issues(world) == [] and run.outputs["comment-url"] == ""
    [notice] = [n for n in run.commands("notice") if "re-tested" in n]
    assert "not confirmed" in notice and "capital" in notice and "No watch issue" in notice
    assert (
        "Re-test on fresh answers" in run.summary
        and "Not confirmed as a model change" in run.summary
    )
    report = report_of(world, run)
    assert report["retest"]["accuses"] is False
    assert report["retest"]["not_confirmed"] == ["capital"]
    assert report["current_usage"]["requests"] == len(world.llm.requests)
    assert report["retest"]["usage"]["requests"] == announced(run)
    assert report["attribution"]["who_changed"] == "neither"
    assert "did not confirm" in report["summary"]


def test_an_unconfirmed_flag_leaves_an_open_issue_as_it_is(world: World) -> None:
    seed_baseline(world.runner.workspace)
    world.answers["author"] = "Hamlet was written by Christopher Marlowe."
    watch(world)
    [issue] = watch_issues(world)
    before = (issue["state"], issue["body"])
    world.answers["author"] = GOOD["author"]
    world.answers["capital"] = first_then(CHATTY, GOOD["capital"], TOPUP_SAMPLES)

    run = watch(world)

    assert run.outputs["result"] == "passed"
    assert (issue["state"], issue["body"]) == before  # neither an accusation nor an all-clear
    assert world.gh.repos[REPO].comments_on(issue["number"]) == []


def test_a_probe_regression_opens_the_issue_without_a_retest(world: World) -> None:
    seed_baseline(world.runner.workspace)
    world.answers["author"] = "Hamlet was written by Christopher Marlowe."

    run = watch(world)

    assert run.returncode == 1 and run.outputs["result"] == "failed"
    [issue] = watch_issues(world)
    assert "critical drift" in issue["title"] and "Re-test" not in issue["body"]
    assert "Re-test" not in run.summary
    report = report_of(world, run)
    assert report.get("retest") is None
    # Only the check's own requests: a screening of every prompt and the confirmation.
    assert report["current_usage"]["requests"] == len(world.llm.requests)


def test_a_shift_the_baseline_already_holds_names_the_baseline_not_the_model(
    world: World,
) -> None:
    # A committed baseline that drew the second wording only 3 times in 30.
    suite = CanarySuite.from_yaml(world.runner.workspace / "canary.yaml")

    def answer(request: Any) -> str:
        if request.prompt.id == "capital" and request.sample % 10 == 0:
            return OTHER
        return GOOD[request.prompt.id]

    run = suite.run(ScriptedProvider(answer, model=MODEL), samples=30, show_progress=False)
    FileBaselineStore(world.runner.workspace / "baselines").save(run, note="unlucky")
    world.answers["capital"] = OTHER  # the model now answers the rarer way, check after check

    watched = watch(world)

    assert watched.outputs["result"] == "passed" and watch_issues(world) == []
    report = report_of(world, watched)
    assert report["retest"]["baseline_suspects"] == ["capital"]
    assert report["attribution"]["who_changed"] == "unclear"
    # The summary says what to do about it.
    summary = watched.summary.replace("\\", "")  # Markdown escapes the underscore
    assert "the baseline may not represent capital" in summary
    assert "baseline_samples" in summary
    assert report["retest"]["usage"]["requests"] == announced(watched)
    assert announced(watched) in (TOPUP_SAMPLES, TOPUP_SAMPLES + 3 * SCREENING_SAMPLES)
