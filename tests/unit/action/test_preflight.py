"""The reads before the first model request: the base branch a change is judged against, the
baseline folder as the contents API names it, listing it at a ref, and the pull request as it is
now — through the real PyGithub against the loopback GitHub."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from promptcanary.action.github import GitHubClient
from promptcanary.action.guards import PROMOTION_MESSAGE, PullRequestNow
from promptcanary.action.preflight import base_branch, repo_folder
from promptcanary.action.settings import GitHubContext
from promptcanary.errors import GitHubError
from tests.fakes.github_server import DEFAULT_TOKEN, HEAD_SHA, FakeGitHubServer

REPO = "octo/repo"
NAME = "s__m__20260101T000000000000Z_0123abcd.json"


@pytest.fixture
def gh() -> Iterator[FakeGitHubServer]:
    with FakeGitHubServer() as server:
        server.add_repo(REPO, branches=("main", "feature"))
        yield server


def client(gh: FakeGitHubServer) -> GitHubClient:
    return GitHubClient.connect(
        token=DEFAULT_TOKEN, api_url=gh.base_url, repository=REPO, backoff_s=0, throttle=False
    )


def context(event_name: str, event: dict[str, Any]) -> GitHubContext:
    return GitHubContext(
        event_name=event_name,
        event=event,
        repository=REPO,
        api_url="",
        server_url="",
        run_id="",
        sha="",
        ref="",
        workspace=Path("/w"),
        runner_temp=None,
    )


@pytest.mark.parametrize(
    ("event_name", "event", "base"),
    [
        ("pull_request", {"pull_request": {"base": {"ref": "main"}}}, "main"),
        ("pull_request_target", {"pull_request": {"base": {"ref": "release/2"}}}, "release/2"),
        ("merge_group", {"merge_group": {"base_ref": "refs/heads/main"}}, "main"),
        ("push", {"ref": "refs/heads/main"}, None),
        ("schedule", {}, None),
    ],
)
def test_the_base_branch_comes_from_a_pull_request_or_a_merge_group(
    event_name: str, event: dict[str, Any], base: str | None
) -> None:
    assert base_branch(context(event_name, event)) == base


def test_the_folder_is_named_from_the_root_of_its_checkout(tmp_path: Path) -> None:
    checkout = tmp_path / "repo"
    (checkout / ".git").mkdir(parents=True)
    assert repo_folder(checkout / "suite" / "baselines", tmp_path) == "suite/baselines"
    assert repo_folder(checkout / ".canary" / "baselines", tmp_path) == ".canary/baselines"
    assert repo_folder(checkout, tmp_path) == ""
    assert repo_folder(tmp_path.parent / "elsewhere", tmp_path) is None


def test_a_folder_is_listed_at_a_branch_or_a_commit(gh: FakeGitHubServer) -> None:
    first = gh.push(REPO, "main", {f"baselines/{NAME}": b"{}", "baselines/sub/x.json": b"{}"})
    gh.push(REPO, "main", {"baselines/later.json": b"{}"})
    c = client(gh)
    # Files only (a sub-folder is not a baseline), by name.
    assert c.folder_names("baselines", ref="main") == ["later.json", NAME]
    assert c.folder_names("baselines", ref=first) == [NAME]
    assert c.folder_names("baselines", ref="feature") == []  # 404: nothing there
    assert c.folder_names(f"baselines/{NAME}", ref="main") == []  # a file, not a folder
    assert "baselines" not in c.folder_names("", ref="main")  # the root lists files only


def test_a_listing_github_refuses_otherwise_is_an_error(gh: FakeGitHubServer) -> None:
    gh.fail("GET", r"/contents/baselines$", 403)
    with pytest.raises(GitHubError) as caught:
        client(gh).folder_names("baselines", ref="main")
    assert caught.value.status == 403


def test_the_pull_request_is_read_as_it_is_now(gh: FakeGitHubServer) -> None:
    issue = gh.add_pull_request(REPO, 7, head_ref="topic", head_sha=HEAD_SHA)
    issue["labels"].append(gh._label(gh.repos[REPO], "promptcanary:promote"))
    c = client(gh)
    assert c.pull_request_now(7) == PullRequestNow(
        state="open",
        merged=False,
        labels=("promptcanary:promote",),
        head_sha=HEAD_SHA,
        head_parents=(),
        head_message="seed",
    )
    # A promotion lands on the head: the pull request's head is its commit now.
    message = PROMOTION_MESSAGE.format(suite="s", model="m")
    parent_tree = gh.repos[REPO].git_commits[HEAD_SHA]["tree"]
    commit = c.request(
        "POST", "/git/commits", {"message": message, "tree": parent_tree, "parents": [HEAD_SHA]}
    )
    c.request("PATCH", "/git/refs/heads/topic", {"sha": commit["sha"], "force": False})
    now = c.pull_request_now(7)
    assert (now.head_sha, now.head_parents, now.head_message) == (
        commit["sha"],
        (HEAD_SHA,),
        message,
    )
