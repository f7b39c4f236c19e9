"""The required check's pieces: the status for each outcome, and the REST calls that start and
complete it, through the real PyGithub against the loopback GitHub (5xx answers included)."""

from __future__ import annotations

from collections.abc import Iterator
from io import StringIO

import pytest

from promptcanary.action.github import GitHubClient
from promptcanary.action.outcome import Outcome
from promptcanary.action.required_check import (
    CheckRun,
    RequiredCheck,
    description_for,
    status_state,
)
from promptcanary.action.workflow import Workflow
from tests.fakes.github_server import DEFAULT_TOKEN, HEAD_SHA, FakeGitHubServer

REPO = "octo/repo"
NAME = "PromptCanary: s (m)"


@pytest.fixture
def gh() -> Iterator[FakeGitHubServer]:
    with FakeGitHubServer() as server:
        server.add_repo(REPO, branches=("main", "feature"))
        server.add_pull_request(REPO, 5, head_ref="feature")
        yield server


def client(gh: FakeGitHubServer) -> GitHubClient:
    return GitHubClient.connect(
        token=DEFAULT_TOKEN,
        api_url=gh.base_url,
        repository=REPO,
        retries=2,
        backoff_s=0,
        throttle=False,
        sleep=lambda _: None,
    )


@pytest.mark.parametrize(
    ("result", "code", "state"),
    [
        ("passed", 0, "success"),
        ("no-baseline", 0, "success"),  # a status has no neutral: the step passes, so it does
        ("skipped", 0, "success"),
        ("failed", 1, "failure"),
        ("suite-changed", 1, "failure"),
        ("inconclusive", 3, "failure"),
        ("skipped", 3, "failure"),  # fail-on-skip
        ("promotion-failed", 5, "failure"),
        ("", 2, "error"),
        ("", 4, "error"),
    ],
)
def test_the_status_follows_the_exit_code(result: str, code: int, state: str) -> None:
    assert status_state(result, code) == state


def test_a_description_is_one_line_within_githubs_140() -> None:
    text = description_for("⚠️ Drift detected\n" + "x" * 300)
    assert "\n" not in text and len(text) <= 140 and text.startswith("⚠️ Drift detected")


def test_a_status_answered_502_after_it_landed_is_simply_sent_again(
    gh: FakeGitHubServer,
) -> None:
    gh.fail("POST", "/statuses/", 502, times=1, after=True)
    client(gh).create_status(
        sha=HEAD_SHA, state="success", context=NAME, description="d", target_url=None
    )
    states = [s["state"] for s in gh.repos[REPO].statuses]
    assert states == ["success", "success"]  # the same verdict twice: the newest counts
    assert gh.required_check(REPO, HEAD_SHA, NAME) == "success"


def test_a_start_answered_502_after_it_landed_is_read_back_not_started_twice(
    gh: FakeGitHubServer,
) -> None:
    gh.fail("POST", "/check-runs$", 502, times=1, after=True)
    ref = client(gh).start_check_run(
        name=NAME, head_sha=HEAD_SHA, title="t", summary="s", details_url=None
    )
    [run] = gh.repos[REPO].check_runs.values()
    assert run["id"] == ref.id and run["status"] == "in_progress"


def test_a_completion_answered_502_after_it_landed_adds_no_annotation_twice(
    gh: FakeGitHubServer,
) -> None:
    c = client(gh)
    ref = c.start_check_run(
        name=NAME, head_sha=HEAD_SHA, title="t", summary="s", details_url="https://x.test/r"
    )
    notes = [
        {
            "path": "canary.yaml",
            "start_line": i + 1,
            "end_line": i + 1,
            "annotation_level": "failure",
            "message": f"regression {i}",
        }
        for i in range(60)
    ]
    gh.fail("PATCH", rf"/check-runs/{ref.id}$", 502, times=1, after=True)
    done = c.complete_check_run(
        ref.id, conclusion="failure", title="T", summary="S", annotations=notes
    )
    run = gh.repos[REPO].check_runs[ref.id]
    assert done.id == ref.id and (run["status"], run["conclusion"]) == ("completed", "failure")
    assert run["annotations"] == notes  # 50 with the completion, 10 after; none twice


def test_a_verdict_without_a_start_creates_the_check_run_and_the_status(
    gh: FakeGitHubServer,
) -> None:
    required = RequiredCheck(client(gh), Workflow({}, StringIO()), None, [])
    url = required.publish(
        CheckRun("s", "m", HEAD_SHA, title="✅ fine", summary="all good"), Outcome("passed", 0)
    )
    [run] = gh.repos[REPO].check_runs.values()
    assert url.endswith(f"/runs/{run['id']}") and run["conclusion"] == "success"
    [status] = gh.repos[REPO].statuses
    assert (status["state"], status["description"], status["target_url"]) == (
        "success",
        "✅ fine",
        None,
    )


@pytest.mark.parametrize("started", [True, False])
def test_the_check_run_s_details_link_is_the_workflow_run_started_or_not(
    gh: FakeGitHubServer, started: bool
) -> None:
    # Without a details_url GitHub's "Details" link goes to the app's page: a verdict published
    # without a start (the start was refused, or the model resolved to another name) must carry
    # the run's link as a started one does.
    run_url = "https://github.test/octo/repo/actions/runs/7"
    required = RequiredCheck(client(gh), Workflow({}, StringIO()), run_url, [])
    if started:
        required.start(HEAD_SHA, "s", "m")
    required.publish(
        CheckRun("s", "m", HEAD_SHA, title="✅ fine", summary="all good"), Outcome("passed", 0)
    )
    [run] = gh.repos[REPO].check_runs.values()
    assert run["conclusion"] == "success" and run["requests"] == (2 if started else 1)
    assert run.get("details_url") == run_url  # what GitHub was sent


def _required(gh: FakeGitHubServer) -> tuple[RequiredCheck, StringIO]:
    log = StringIO()
    return RequiredCheck(client(gh), Workflow({}, stream=log), None, []), log


def _notices(log: StringIO) -> list[str]:
    return [line for line in log.getvalue().splitlines() if line.startswith("::notice")]


def test_a_403_on_the_check_run_names_the_permission_and_that_only_app_tokens_may_create_it(
    gh: FakeGitHubServer,
) -> None:
    gh.fail("POST", "/check-runs$", 403, message="You must authenticate via a GitHub App.")
    required, log = _required(gh)
    required.start(HEAD_SHA, "s", "m")
    [notice] = _notices(log)
    assert "the token lacks `checks: write` (or it is a personal access token" in notice
    assert "such as the workflow's own GITHUB_TOKEN" in notice
    assert required.checks_refused and required.failures == []


def test_a_token_github_does_not_accept_is_not_called_a_missing_permission(
    gh: FakeGitHubServer,
) -> None:
    gh.fail("POST", "/statuses/", 401, message="Bad credentials")
    required, log = _required(gh)
    required.start(HEAD_SHA, "s", "m")
    [status_notice] = [n for n in _notices(log) if "commit status" in n]
    assert "lacks" not in status_notice and "did not accept the token" in status_notice
    assert required.statuses_refused and required.failures == []


def test_a_rate_limited_403_is_a_warning_not_a_permission(gh: FakeGitHubServer) -> None:
    gh.fail(
        "POST",
        "/statuses/",
        403,
        message="You have exceeded a secondary rate limit.",
        headers={"Retry-After": "0"},
    )
    required, log = _required(gh)
    required.start(HEAD_SHA, "s", "m")
    assert "lacks" not in log.getvalue()
    assert any("commit status" in f for f in required.failures)


def test_settling_a_started_check_as_an_error_completes_both_with_its_words(
    gh: FakeGitHubServer,
) -> None:
    from promptcanary.errors import ConfigError

    required, _ = _required(gh)
    required.start(HEAD_SHA, "s", "m")
    with pytest.raises(ConfigError), required.settled_on_error():
        raise ConfigError("the judge's host is not allowed", field="judge-hosts")
    states = [s["state"] for s in gh.repos[REPO].statuses]
    assert states == ["pending", "error"]
    [check] = gh.repos[REPO].check_runs.values()
    assert (check["status"], check["conclusion"]) == ("completed", "failure")
    assert check["output"]["title"].startswith("PromptCanary stopped: judge-hosts:")
    assert "exit code 2" in check["output"]["summary"]
    assert required.started is None


def test_a_cancelled_job_leaves_its_check_pending(gh: FakeGitHubServer) -> None:
    required, _ = _required(gh)
    required.start(HEAD_SHA, "s", "m")
    with pytest.raises(KeyboardInterrupt), required.settled_on_error():
        raise KeyboardInterrupt
    assert [s["state"] for s in gh.repos[REPO].statuses] == ["pending"]
