"""The narrow GitHub client, through the real PyGithub, against the loopback GitHub fake."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest

from promptcanary.action.github import DEFAULT_BOT_LOGIN, GitHubClient
from promptcanary.errors import GitHubError
from tests.fakes.github_server import (
    BODY_LIMIT,
    DEFAULT_TOKEN,
    READ_ONLY_TOKEN,
    FakeGitHubServer,
    Token,
)

REPO = "octo/repo"
PAT = "ghp_personaltoken000000000000000000000"
MARKER = "<!-- promptcanary: suite=s, model=m -->"


@pytest.fixture
def gh() -> Iterator[FakeGitHubServer]:
    with FakeGitHubServer(tokens={PAT: Token("octo-maintainer", can_read_user=True)}) as server:
        server.add_repo(REPO, branches=("main", "feature"))
        server.add_pull_request(REPO, 5, head_ref="feature")
        yield server


def client(gh: FakeGitHubServer, token: str = DEFAULT_TOKEN, retries: int = 2) -> GitHubClient:
    return GitHubClient.connect(
        token=token,
        api_url=gh.base_url,
        repository=REPO,
        retries=retries,
        backoff_s=0,
        throttle=False,
    )


def test_default_token_falls_back_to_the_actions_bot(gh: FakeGitHubServer) -> None:
    assert client(gh).bot_login() == DEFAULT_BOT_LOGIN
    assert gh.count("GET", "^/user$") == 1


def test_personal_token_uses_its_own_login(gh: FakeGitHubServer) -> None:
    c = client(gh, PAT)
    assert c.bot_login() == "octo-maintainer"
    url = c.upsert_comment(5, marker=MARKER, body=f"{MARKER}\nhi")
    assert gh.repos[REPO].comments_on(5)[0]["user"]["login"] == "octo-maintainer"
    assert c.upsert_comment(5, marker=MARKER, body=f"{MARKER}\nagain") == url


def test_upsert_searches_every_page_and_edits_only_its_own_comment(gh: FakeGitHubServer) -> None:
    c = client(gh)
    for i in range(250):  # three pages of 100
        gh.add_comment(REPO, 5, f"note {i}", login="someone")
    gh.add_comment(REPO, 5, f"{MARKER} copied by a human", login="someone")
    gh.add_comment(REPO, 5, f"{MARKER}\nold report", login=DEFAULT_BOT_LOGIN)
    gh.add_comment(REPO, 5, "<!-- promptcanary: suite=other, model=m -->", login=DEFAULT_BOT_LOGIN)

    c.upsert_comment(5, marker=MARKER, body=f"{MARKER}\nnew report")

    bodies = {x["body"] for x in gh.repos[REPO].comments_on(5)}
    assert f"{MARKER}\nnew report" in bodies and f"{MARKER}\nold report" not in bodies
    assert f"{MARKER} copied by a human" in bodies
    assert len(bodies) == 253
    assert gh.count("GET", "/issues/5/comments$") == 3
    assert gh.count("POST", "/issues/5/comments$") == 0


def test_too_long_bodies_and_read_only_tokens_are_refused(gh: FakeGitHubServer) -> None:
    with pytest.raises(GitHubError) as too_long:
        client(gh).upsert_comment(5, marker=MARKER, body="x" * (BODY_LIMIT + 1))
    assert too_long.value.status == 422 and "HTTP 422" in str(too_long.value)
    client(gh).upsert_comment(5, marker=MARKER, body="x" * BODY_LIMIT)  # exactly the limit is fine
    with pytest.raises(GitHubError) as read_only:
        client(gh, READ_ONLY_TOKEN).upsert_comment(5, marker="<!-- other -->", body="y")
    assert read_only.value.status == 403
    assert "Resource not accessible by integration" in str(read_only.value)
    assert "pull-requests: write" in (read_only.value.hint or "")


def test_server_errors_are_retried_then_reported_with_their_status(gh: FakeGitHubServer) -> None:
    gh.fail("GET", "/issues/5/comments$", 503, times=1)
    client(gh).upsert_comment(5, marker=MARKER, body=MARKER)  # one 503, then success
    gh.fail("POST", "/issues/5/comments$", 502)
    with pytest.raises(GitHubError) as failed:
        client(gh, retries=2).upsert_comment(5, marker="<!-- x -->", body="x")
    assert failed.value.status == 502 and "after retries" in str(failed.value)
    assert gh.count("POST", "/issues/5/comments$") == 4  # 1 created + 3 failed tries


def test_commit_file_creates_then_updates_on_the_branch(gh: FakeGitHubServer) -> None:
    c = client(gh)
    first = c.commit_file(
        path="baselines/a.json", content=b'{"v": 1}', branch="feature", message="add"
    )
    second = c.commit_file(
        path="baselines/a.json", content=b'{"v": 2}', branch="feature", message="update"
    )
    files = gh.repos[REPO].files
    assert files["feature"]["baselines/a.json"]["content"] == b'{"v": 2}'
    assert "baselines/a.json" not in files["main"]
    assert first.sha != second.sha and second.branch == "feature"
    assert [c["message"] for c in gh.repos[REPO].commits] == ["add", "update"]
    with pytest.raises(GitHubError) as missing:
        c.commit_file(path="x.json", content=b"{}", branch="gone", message="m")
    assert missing.value.status == 404


def test_watch_issue_lifecycle_ignores_prs_and_other_markers(gh: FakeGitHubServer) -> None:
    c = client(gh)
    gh.repos[REPO].issues[5]["labels"].append(gh._label(gh.repos[REPO], "promptcanary"))
    gh.repos[REPO].issues[5]["body"] = "<!-- w -->"  # a PR carrying the marker is not our issue
    opened = c.open_or_update_issue(
        marker="<!-- w -->", label="promptcanary", title="t1", body="<!-- w -->\nreport 1"
    )
    again = c.open_or_update_issue(
        marker="<!-- w -->", label="promptcanary", title="t2", body="<!-- w -->\nreport 2"
    )
    assert again.number == opened.number
    issue = gh.repos[REPO].issues[opened.number]
    assert issue["title"] == "t2" and issue["body"].endswith("report 2")
    assert [lab["name"] for lab in issue["labels"]] == ["promptcanary"]
    found = c.find_open_issue(marker="<!-- w -->", label="promptcanary")
    assert found is not None and found.number == opened.number
    c.close_issue(found, comment="healthy")
    assert issue["state"] == "closed"
    assert c.find_open_issue(marker="<!-- w -->", label="promptcanary") is None


def test_remove_label_ignores_a_label_already_gone(gh: FakeGitHubServer) -> None:
    issue = gh.repos[REPO].issues[5]
    issue["labels"].append(gh._label(gh.repos[REPO], "promptcanary:promote"))
    c = client(gh)
    c.remove_label(5, "promptcanary:promote")
    assert issue["labels"] == []
    c.remove_label(5, "promptcanary:promote")  # 404 is fine


def test_committed_content_is_sent_base64_encoded_once(gh: FakeGitHubServer) -> None:
    payload = "é\n".encode() * 3
    client(gh).commit_file(path="f.json", content=payload, branch="main", message="m")
    stored = gh.repos[REPO].files["main"]["f.json"]["content"]
    assert stored == payload and base64.b64encode(stored) != stored
