"""The loopback GitHub answers commit statuses and check suites as GitHub documents them: these
tests pin the fake itself, so the Action's tests stand on a GitHub that refuses what GitHub
refuses (docs.github.com/rest/commits/statuses, /rest/guides/using-the-rest-api-to-interact-
with-checks, and the troubleshooting page of required status checks)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.fakes.github_server import (
    DEFAULT_TOKEN,
    HEAD_SHA,
    FakeGitHubServer,
    Token,
)

REPO = "octo/repo"
NO_STATUSES = "ghs_nostatuses000000000000000000000000"
PAT = "ghp_personal000000000000000000000000000"
NAME = "PromptCanary: s (m)"


@pytest.fixture
def gh() -> Iterator[FakeGitHubServer]:
    tokens = {
        NO_STATUSES: Token("github-actions[bot]", permissions={"checks": "write"}),
        PAT: Token("octo-maintainer", can_read_user=True),
    }
    with FakeGitHubServer(tokens=tokens) as server:
        server.add_repo(REPO, branches=("main", "feature"))
        server.add_pull_request(REPO, 5, head_ref="feature")
        yield server


def call(
    gh: FakeGitHubServer, method: str, path: str, body: Any = None, token: str = DEFAULT_TOKEN
) -> requests.Response:
    return requests.request(
        method,
        f"{gh.base_url}/repos/{REPO}{path}",
        json=body,
        headers={"Authorization": f"token {token}"},
        timeout=10,
    )


def status(gh: FakeGitHubServer, state: str, context: str = NAME, **extra: Any) -> Any:
    return call(gh, "POST", f"/statuses/{HEAD_SHA}", {"state": state, "context": context, **extra})


# ── commit statuses ───────────────────────────────────────────────────────────────────────────


def test_a_status_is_kept_on_the_commit_and_listed_newest_first(gh: FakeGitHubServer) -> None:
    first = status(gh, "pending", description="measuring", target_url="https://x.test/run/1")
    assert first.status_code == 201
    assert first.json()["creator"]["login"] == "github-actions[bot]"
    assert status(gh, "success", description="passed").status_code == 201
    listed = call(gh, "GET", f"/commits/{HEAD_SHA}/statuses").json()
    assert [s["state"] for s in listed] == ["success", "pending"]
    # A branch name reads the statuses of its head commit.
    assert call(gh, "GET", "/commits/feature/statuses").json() == listed


def test_the_combined_status_counts_the_newest_status_of_each_context(
    gh: FakeGitHubServer,
) -> None:
    assert call(gh, "GET", f"/commits/{HEAD_SHA}/status").json()["state"] == "pending"  # none
    status(gh, "pending")
    status(gh, "success", context="ci")
    assert call(gh, "GET", f"/commits/{HEAD_SHA}/status").json()["state"] == "pending"
    status(gh, "success")
    combined = call(gh, "GET", f"/commits/{HEAD_SHA}/status").json()
    assert (combined["state"], combined["total_count"]) == ("success", 2)
    status(gh, "error", context="ci")
    assert call(gh, "GET", f"/commits/{HEAD_SHA}/status").json()["state"] == "failure"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"state": "neutral"}, "state is not included in the list"),
        ({"state": "success", "description": "x" * 141}, "maximum is 140 characters"),
        ({"state": "success", "target_url": "not a url"}, "target_url must be a valid URL"),
    ],
)
def test_an_invalid_status_is_refused_with_422(
    gh: FakeGitHubServer, body: dict[str, Any], message: str
) -> None:
    answer = call(gh, "POST", f"/statuses/{HEAD_SHA}", body)
    assert answer.status_code == 422 and message in answer.json()["errors"][0]["message"]
    assert gh.repos[REPO].statuses == []
    # 140 characters is still fine.
    assert status(gh, "success", description="x" * 140).status_code == 201


def test_a_status_needs_an_existing_commit_and_the_statuses_permission(
    gh: FakeGitHubServer,
) -> None:
    missing = call(gh, "POST", "/statuses/" + "0" * 40, {"state": "success"})
    assert missing.status_code == 422 and "No commit found" in missing.json()["message"]
    refused = call(gh, "POST", f"/statuses/{HEAD_SHA}", {"state": "success"}, token=NO_STATUSES)
    assert refused.status_code == 403
    assert refused.json()["message"] == "Resource not accessible by integration"
    assert gh.repos[REPO].statuses == []


def test_at_most_1000_statuses_per_commit_and_context(gh: FakeGitHubServer) -> None:
    gh.repos[REPO].statuses.extend(
        {"sha": HEAD_SHA, "context": NAME, "state": "pending"} for _ in range(1000)
    )
    assert status(gh, "success").status_code == 422
    assert status(gh, "success", context="other").status_code == 201


# ── check suites ──────────────────────────────────────────────────────────────────────────────


def test_an_api_check_run_lands_in_the_oldest_suite_of_its_app_not_its_own_workflows(
    gh: FakeGitHubServer,
) -> None:
    tests_run = gh.add_workflow_run(REPO, "Tests", jobs=("unit",))
    canary_run = gh.add_workflow_run(REPO, "PromptCanary", jobs=("check",))
    created = call(gh, "POST", "/check-runs", {"name": NAME, "head_sha": HEAD_SHA}).json()
    # Created from the PromptCanary job, filed under the Tests workflow's suite.
    assert created["check_suite"]["id"] == tests_run["id"] != canary_run["id"]
    runs = call(gh, "GET", f"/check-suites/{tests_run['id']}/check-runs").json()["check_runs"]
    assert sorted(r["name"] for r in runs) == [NAME, "unit"]
    suites = call(gh, "GET", f"/commits/{HEAD_SHA}/check-suites").json()["check_suites"]
    assert [s["workflow"] for s in suites] == ["Tests", "PromptCanary"]
    assert all(s["status"] == "in_progress" for s in suites)  # their jobs still run


def test_without_a_workflow_run_an_api_check_run_gets_a_suite_of_its_own(
    gh: FakeGitHubServer,
) -> None:
    created = call(gh, "POST", "/check-runs", {"name": NAME, "head_sha": HEAD_SHA}).json()
    suite = call(gh, "GET", f"/check-suites/{created['check_suite']['id']}").json()
    assert (suite["app"]["slug"], suite["workflow"]) == ("github-actions", None)


def test_only_a_github_app_creates_check_runs(gh: FakeGitHubServer) -> None:
    answer = call(gh, "POST", "/check-runs", {"name": NAME, "head_sha": HEAD_SHA}, token=PAT)
    assert answer.status_code == 403 and "GitHub App" in answer.json()["message"]


# ── the merge box ─────────────────────────────────────────────────────────────────────────────


def test_a_required_check_nobody_reports_is_expected(gh: FakeGitHubServer) -> None:
    assert gh.required_check(REPO, HEAD_SHA, NAME) == "expected"


def test_a_required_check_needs_the_status_and_the_check_run_of_that_name(
    gh: FakeGitHubServer,
) -> None:
    status(gh, "pending")
    assert gh.required_check(REPO, HEAD_SHA, NAME) == "pending"
    run = call(
        gh, "POST", "/check-runs", {"name": NAME, "head_sha": HEAD_SHA, "status": "in_progress"}
    ).json()
    status(gh, "success")
    # The status passed, but the check run of the same name is still running.
    assert gh.required_check(REPO, HEAD_SHA, NAME) == "pending"
    call(gh, "PATCH", f"/check-runs/{run['id']}", {"conclusion": "neutral"})
    assert gh.required_check(REPO, HEAD_SHA, NAME) == "success"  # neutral passes
    status(gh, "failure")
    assert gh.required_check(REPO, HEAD_SHA, NAME) == "failure"


def test_a_cancelled_job_fails_its_own_check_and_leaves_its_status_pending(
    gh: FakeGitHubServer,
) -> None:
    run = gh.add_workflow_run(REPO, "PromptCanary", jobs=("check",))
    status(gh, "pending")
    started = call(
        gh, "POST", "/check-runs", {"name": NAME, "head_sha": HEAD_SHA, "status": "in_progress"}
    ).json()
    assert gh.required_check(REPO, HEAD_SHA, "check") == "pending"  # the job's own check
    gh.finish_workflow_run(REPO, run, "cancelled")
    assert gh.required_check(REPO, HEAD_SHA, "check") == "failure"
    # Nothing sets the status again or completes the API's check run: the merge box waits.
    assert gh.required_check(REPO, HEAD_SHA, NAME) == "pending"
    assert gh.repos[REPO].check_runs[started["id"]]["status"] == "in_progress"
