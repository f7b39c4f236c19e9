"""The narrow GitHub client, through the real PyGithub, against the loopback GitHub fake."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest

from promptcanary.action.github import (
    DEFAULT_BOT_LOGIN,
    BranchMovedError,
    BranchNotFoundError,
    GitHubClient,
    same_login,
)
from promptcanary.errors import GitHubError
from tests.fakes.github_server import (
    APP_LOGIN,
    APP_TOKEN,
    BODY_LIMIT,
    DEFAULT_TOKEN,
    HEAD_SHA,
    READ_ONLY_TOKEN,
    FakeGitHubServer,
    Token,
)

REPO = "octo/repo"
PAT = "ghp_personaltoken000000000000000000000"
#: A personal token on a server whose GraphQL refuses it: GET /user is its only way to say who.
PAT_NO_GRAPHQL = "ghp_nographqlpersonal0000000000000000"
MARKER = "<!-- promptcanary: suite=s, model=m -->"
NO_GRAPHQL = "ghs_nographqltoken000000000000000000"
CONTENTS_READ = "ghs_contentsreadtoken00000000000000"


@pytest.fixture
def gh() -> Iterator[FakeGitHubServer]:
    tokens = {
        PAT: Token("octo-maintainer", can_read_user=True),
        PAT_NO_GRAPHQL: Token("octo-dev", can_read_user=True, graphql=False),
        NO_GRAPHQL: Token("other-app[bot]", graphql=False),
        CONTENTS_READ: Token(
            "github-actions[bot]", permissions={"contents": "read", "pull-requests": "write"}
        ),
    }
    with FakeGitHubServer(tokens=tokens) as server:
        server.add_repo(
            REPO,
            branches=("main", "feature"),
            workflows={"promptcanary-pr.yml": True, "no-dispatch.yml": False},
        )
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


def test_default_token_is_the_actions_bot_through_graphql(gh: FakeGitHubServer) -> None:
    c = client(gh)
    assert c.login() == DEFAULT_BOT_LOGIN and c.login() == DEFAULT_BOT_LOGIN
    # GraphQL first: GET /user refuses every installation token, so it is never asked (it was
    # asked first before, one 403 per run in the organisation's audit log).
    assert gh.count("GET", "^/user$") == 0 and gh.count("POST", "^/graphql$") == 1


def test_an_app_token_finds_its_own_comment_on_every_run(gh: FakeGitHubServer) -> None:
    # GET /user is refused for installation tokens; assuming github-actions[bot] never found
    # the App's comment and posted a new one on every run.
    for run in range(3):
        client(gh, APP_TOKEN).upsert_comment(5, marker=MARKER, body=f"{MARKER}\nrun {run}")
    mine = gh.repos[REPO].comments_on(5)
    assert [c["user"]["login"] for c in mine] == [APP_LOGIN]
    assert mine[0]["body"].endswith("run 2")
    # Runs 2 and 3 had a comment to judge: GraphQL viewer answered, GET /user was never asked.
    assert gh.count("GET", "^/user$") == 0 and gh.count("POST", "^/graphql$") >= 2


def test_our_comment_quoting_another_suites_marker_is_not_that_suites_comment(
    gh: FakeGitHubServer,
) -> None:
    """Suite A's comment quotes a model answer that holds suite B's marker mid-body: suite B's
    update must post its own comment, not overwrite A's (the marker must start the body)."""
    other = "<!-- promptcanary: suite=a, model=m -->"
    c = client(gh)
    c.upsert_comment(5, marker=other, body=f"{other}\nThe model answered:\n> {MARKER}\n")
    c.upsert_comment(5, marker=MARKER, body=f"{MARKER}\nsuite s")
    c.upsert_comment(5, marker=MARKER, body=f"{MARKER}\nsuite s again")
    bodies = [x["body"] for x in gh.repos[REPO].comments_on(5)]
    assert bodies == [f"{other}\nThe model answered:\n> {MARKER}\n", f"{MARKER}\nsuite s again"]


def test_a_watch_issue_is_found_only_by_a_marker_that_starts_its_body(gh: FakeGitHubServer) -> None:
    watch = "<!-- promptcanary-watch: suite=s, model=m -->"
    c = client(gh)
    quoting = c.open_or_update_issue(
        marker="<!-- promptcanary-watch: suite=a, model=m -->",
        label="promptcanary",
        title="a drifts",
        body=f"<!-- promptcanary-watch: suite=a, model=m -->\nquoted: {watch}",
    )
    assert c.find_open_issue(marker=watch, label="promptcanary") is None
    own = c.open_or_update_issue(marker=watch, label="promptcanary", title="s", body=f"{watch}\n")
    assert own.number != quoting.number


def test_a_personal_token_graphql_refuses_falls_back_to_get_user(gh: FakeGitHubServer) -> None:
    c = client(gh, PAT_NO_GRAPHQL)
    assert c.login() == "octo-dev" and c.login() == "octo-dev"  # asked once
    assert gh.count("POST", "^/graphql$") == 1 and gh.count("GET", "^/user$") == 1


def test_logins_match_with_or_without_the_bot_suffix() -> None:
    assert same_login("my-app[bot]", "my-app") and same_login("My-App", "my-app[bot]")
    assert not same_login("my-app[bot]", "my-apps[bot]")


def test_without_any_identity_a_bot_comment_with_the_marker_counts(gh: FakeGitHubServer) -> None:
    # This token can read neither GET /user nor GraphQL: the marker plus a Bot author decide.
    gh.add_comment(REPO, 5, f"{MARKER}\nquoted by a human", login="mallory")
    c = client(gh, NO_GRAPHQL)
    assert c.login() is None
    # An installation token (ghs_): GET /user would refuse it, so it is not asked either.
    assert gh.count("GET", "^/user$") == 0 and gh.count("POST", "^/graphql$") == 1
    c.upsert_comment(5, marker=MARKER, body=f"{MARKER}\none")
    c.upsert_comment(5, marker=MARKER, body=f"{MARKER}\ntwo")
    bodies = [x["body"] for x in gh.repos[REPO].comments_on(5)]
    assert bodies == [f"{MARKER}\nquoted by a human", f"{MARKER}\ntwo"]


def test_a_hidden_comment_is_left_alone_and_a_new_one_posted(gh: FakeGitHubServer) -> None:
    old = gh.add_comment(REPO, 5, f"{MARKER}\nold", login=DEFAULT_BOT_LOGIN)
    gh.minimize(REPO, old["id"])
    client(gh).upsert_comment(5, marker=MARKER, body=f"{MARKER}\nnew")
    comments = gh.repos[REPO].comments_on(5)
    assert [c["body"] for c in comments] == [f"{MARKER}\nold", f"{MARKER}\nnew"]
    assert gh.count("PATCH", "/issues/comments/") == 0


def test_a_comment_post_answered_502_is_read_back_not_repeated(gh: FakeGitHubServer) -> None:
    # The POST landed but answered 502: reading the comments back finds it, nothing is resent.
    gh.fail("POST", "/issues/5/comments$", 502, times=1, after=True)
    ref = client(gh).upsert_comment(5, marker=MARKER, body=f"{MARKER}\nfirst")
    [comment] = gh.repos[REPO].comments_on(5)
    assert ref.id == comment["id"] and gh.count("POST", "/issues/5/comments$") == 1


def test_duplicates_left_by_older_versions_are_cleaned_up(gh: FakeGitHubServer) -> None:
    for body in ("first", "first again"):
        gh.add_comment(REPO, 5, f"{MARKER}\n{body}", login=DEFAULT_BOT_LOGIN)
    client(gh).upsert_comment(5, marker=MARKER, body=f"{MARKER}\nsecond")
    comments = gh.repos[REPO].comments_on(5)
    assert [c["body"] for c in comments] == [f"{MARKER}\nsecond"]
    assert gh.count("DELETE", "/issues/comments/") == 1


def test_personal_token_uses_its_own_login(gh: FakeGitHubServer) -> None:
    c = client(gh, PAT)
    assert c.login() == "octo-maintainer"
    assert gh.count("POST", "^/graphql$") == 1 and gh.count("GET", "^/user$") == 0
    ref = c.upsert_comment(5, marker=MARKER, body=f"{MARKER}\nhi")
    assert gh.repos[REPO].comments_on(5)[0]["user"]["login"] == "octo-maintainer"
    assert c.upsert_comment(5, marker=MARKER, body=f"{MARKER}\nagain") == ref


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
    # 1 created + 3 tries, each read back first (a 502 that did not land is sent again).
    assert gh.count("POST", "/issues/5/comments$") == 4


def test_commit_lands_on_the_measured_commit_only(gh: FakeGitHubServer) -> None:
    c = client(gh)
    first = c.commit_files(
        {"baselines/a.json": b'{"v": 1}'},
        branch="feature",
        parent=HEAD_SHA,
        message="add",
    )
    repo = gh.repos[REPO]
    assert repo.heads["feature"] == first.sha
    assert repo.git_commits[first.sha]["parents"] == [HEAD_SHA]
    assert repo.files["feature"]["baselines/a.json"]["content"] == b'{"v": 1}'
    assert "baselines/a.json" not in repo.files["main"]
    assert gh.count("PATCH", "/git/refs/heads/feature$") == 1
    # A second promotion from the same (now stale) measured commit is refused, not stacked.
    with pytest.raises(BranchMovedError) as moved:
        c.commit_files(
            {"baselines/a.json": b'{"v": 2}'},
            branch="feature",
            parent=HEAD_SHA,
            message="m",
        )
    assert moved.value.status == 422 and "moved" in moved.value.message
    assert repo.heads["feature"] == first.sha


def test_several_files_land_in_one_commit_or_none_does(gh: FakeGitHubServer) -> None:
    files = {
        "baselines/a.json": b"{}",
        "baselines/a.summary.md": b"# a\n",
        "baselines/.gitattributes": b"*.json linguist-generated\n",
    }
    done = client(gh).commit_files(files, branch="feature", parent=HEAD_SHA, message="m")
    repo = gh.repos[REPO]
    assert done.paths == tuple(files)
    assert {p: repo.files["feature"][p]["content"] for p in files} == files
    [commit] = repo.commits
    assert sorted(commit["paths"]) == sorted(files) and commit["parents"] == [HEAD_SHA]
    assert gh.count("POST", "/git/trees$") == 1 and gh.count("POST", "/git/commits$") == 1
    # A refused ref update leaves none of them on the branch.
    gh.push(REPO, "feature", {"other.txt": b"pushed"})
    with pytest.raises(BranchMovedError):
        client(gh).commit_files(
            {"baselines/b.json": b"{}", "baselines/b.summary.md": b"# b\n"},
            branch="feature",
            parent=done.sha,
            message="m",
        )
    assert not {"baselines/b.json", "baselines/b.summary.md"} & set(repo.files["feature"])


def test_a_push_after_the_measurement_blocks_the_commit(gh: FakeGitHubServer) -> None:
    pushed = gh.push(REPO, "feature", {"prompt.txt": b"changed after the label"})
    with pytest.raises(BranchMovedError):
        client(gh).commit_files(
            {"baselines/a.json": b"{}"}, branch="feature", parent=HEAD_SHA, message="m"
        )
    assert gh.repos[REPO].heads["feature"] == pushed
    assert "baselines/a.json" not in gh.repos[REPO].files["feature"]


def test_a_deleted_branch_or_commit_is_named(gh: FakeGitHubServer) -> None:
    with pytest.raises(BranchNotFoundError) as gone:
        client(gh).commit_files({"a.json": b"{}"}, branch="gone", parent=HEAD_SHA, message="m")
    assert "'gone' was not found" in gone.value.message
    with pytest.raises(BranchNotFoundError) as unknown:
        client(gh).commit_files({"a.json": b"{}"}, branch="feature", parent="f" * 40, message="m")
    assert "ffffffffffff" in unknown.value.message


def test_a_contents_read_token_cannot_commit(gh: FakeGitHubServer) -> None:
    with pytest.raises(GitHubError) as refused:
        client(gh, CONTENTS_READ).commit_files(
            {"a.json": b"{}"}, branch="feature", parent=HEAD_SHA, message="m"
        )
    assert refused.value.status == 403 and "contents: write" in (refused.value.hint or "")
    assert gh.repos[REPO].heads["feature"] == HEAD_SHA
    # ...but the same token may comment (pull-requests: write).
    client(gh, CONTENTS_READ).upsert_comment(5, marker=MARKER, body=MARKER)


def test_the_fake_refuses_a_contents_put_without_a_message(gh: FakeGitHubServer) -> None:
    from github import GithubException

    with pytest.raises(GithubException) as refused:
        client(gh).repo.create_file("x.json", "", b"{}", branch="main")
    assert refused.value.status == 422 and "message" in str(refused.value)


def test_workflow_dispatch_is_recorded_and_refusals_say_why(gh: FakeGitHubServer) -> None:
    client(gh).dispatch_workflow("promptcanary-pr.yml", ref="feature")
    assert gh.repos[REPO].dispatches == [
        {
            "workflow": "promptcanary-pr.yml",
            "ref": "feature",
            "inputs": {},
            "login": DEFAULT_BOT_LOGIN,
        }
    ]
    for workflow, status in (("no-dispatch.yml", 422), ("missing.yml", 404)):
        with pytest.raises(GitHubError) as refused:
            client(gh).dispatch_workflow(workflow, ref="feature")
        assert refused.value.status == status
    with pytest.raises(GitHubError) as no_actions:
        client(gh, CONTENTS_READ).dispatch_workflow("promptcanary-pr.yml", ref="feature")
    assert no_actions.value.status == 403 and "actions: write" in (no_actions.value.hint or "")


def test_the_promote_label_is_created_once(gh: FakeGitHubServer) -> None:
    c = client(gh)
    assert c.ensure_label("PromptCanary:Promote", color="fbca04", description="d") is True
    assert c.ensure_label("PromptCanary:Promote", color="fbca04", description="d") is False
    assert gh.repos[REPO].labels["PromptCanary:Promote"]["color"] == "fbca04"
    assert gh.count("POST", "/labels$") == 1


def test_secondary_rate_limits_wait_a_minute_without_retry_after(gh: FakeGitHubServer) -> None:
    slept: list[float] = []  # reads pause through the client's `sleep`, as writes do
    gh.fail(
        "GET",
        "/issues/5/comments$",
        403,
        times=1,
        message="You have exceeded a secondary rate limit. Please wait a few minutes.",
    )
    GitHubClient.connect(
        token=DEFAULT_TOKEN,
        api_url=gh.base_url,
        repository=REPO,
        throttle=False,
        sleep=slept.append,
    ).upsert_comment(5, marker=MARKER, body=MARKER)
    assert slept and max(slept) >= 60
    assert gh.count("GET", "/issues/5/comments$") == 2


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
    # Someone takes the label off: the issue is still ours (creator + marker), the label returns.
    issue["labels"] = []
    third = c.open_or_update_issue(
        marker="<!-- w -->", label="promptcanary", title="t3", body="<!-- w -->\nreport 3"
    )
    assert third.number == opened.number and issue["title"] == "t3"
    assert [lab["name"] for lab in issue["labels"]] == ["promptcanary"]
    # An issue a human opened with the same marker is not ours.
    gh.repos[REPO].issues[opened.number]["user"] = gh._user("mallory")
    assert c.find_open_issue(marker="<!-- w -->", label="promptcanary") is None
    gh.repos[REPO].issues[opened.number]["user"] = gh._user(DEFAULT_BOT_LOGIN)
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
    client(gh).commit_files({"f.json": payload}, branch="feature", parent=HEAD_SHA, message="m")
    stored = gh.repos[REPO].files["feature"]["f.json"]["content"]
    assert stored == payload and base64.b64encode(stored) != stored


# ── check runs, as the Checks API takes them ──


def annotation(i: int) -> dict[str, object]:
    return {
        "path": "canary.yaml",
        "start_line": i + 1,
        "end_line": i + 1,
        "annotation_level": "warning",
        "message": f"regression {i}",
    }


def test_more_than_50_annotations_go_in_batches_of_50(gh: FakeGitHubServer) -> None:
    notes = [annotation(i) for i in range(120)]
    ref = client(gh).create_check_run(
        name="PromptCanary: s (m)",
        head_sha=HEAD_SHA,
        conclusion="failure",
        title="t",
        summary="s",
        annotations=notes,
    )
    run = gh.repos[REPO].check_runs[ref.id]
    assert run["annotations"] == notes and run["requests"] == 3  # POST 50, PATCH 50, PATCH 20
    assert gh.count("PATCH", r"/check-runs/\d+$") == 2


def test_the_fake_refuses_check_runs_as_github_does(gh: FakeGitHubServer) -> None:
    c = client(gh)
    base = {"name": "n", "head_sha": HEAD_SHA, "status": "completed", "conclusion": "success"}
    for output, needle in (
        ({"title": "t", "summary": "x" * 65_536}, "65535 characters"),
        ({"title": "t", "summary": "s", "annotations": [annotation(i) for i in range(51)]}, "50"),
        ({"title": "t", "summary": "s", "annotations": [{"path": "a"}]}, "Invalid annotation"),
    ):
        with pytest.raises(GitHubError) as refused:
            c.send(
                "create", lambda o=output: c.request("POST", "/check-runs", {**base, "output": o})
            )
        assert refused.value.status == 422 and needle in str(refused.value)
    with pytest.raises(GitHubError) as no_commit:
        c.send("create", lambda: c.request("POST", "/check-runs", {**base, "head_sha": "0" * 40}))
    assert no_commit.value.status == 422
    with pytest.raises(GitHubError) as no_checks:
        client(gh, CONTENTS_READ).create_check_run(
            name="n",
            head_sha=HEAD_SHA,
            conclusion="success",
            title="t",
            summary="s",
            annotations=[],
        )
    assert no_checks.value.status == 403 and "checks: write" in (no_checks.value.hint or "")


def test_a_check_run_post_answered_502_is_read_back(gh: FakeGitHubServer) -> None:
    gh.fail("POST", "/check-runs$", 502, times=1, after=True)
    ref = client(gh).create_check_run(
        name="n", head_sha=HEAD_SHA, conclusion="success", title="t", summary="s", annotations=[]
    )
    assert list(gh.repos[REPO].check_runs) == [ref.id] and gh.count("POST", "/check-runs$") == 1


def test_a_label_refused_for_want_of_issues_write_says_so(gh: FakeGitHubServer) -> None:
    with pytest.raises(GitHubError) as refused:
        client(gh, CONTENTS_READ).ensure_label(
            "promptcanary:promote", color="fbca04", description="d"
        )
    assert refused.value.status == 403 and "`issues: write`" in (refused.value.hint or "")


def test_rate_limit_waits_follow_retry_after_and_a_minute_without() -> None:
    from promptcanary.action.github_calls import is_rate_limit, rate_limit_wait

    assert is_rate_limit(429, "", {}) and is_rate_limit(403, "", {"retry-after": "5"})
    assert is_rate_limit(403, "You have exceeded a secondary rate limit", {})
    assert not is_rate_limit(403, "Resource not accessible by integration", {})
    assert rate_limit_wait("", {"Retry-After": "12"}, secondary_wait_s=60) == 12
    assert rate_limit_wait("secondary rate limit", {}, secondary_wait_s=60) == 60
    reset = {"X-RateLimit-Reset": "1000"}
    assert rate_limit_wait("API rate limit exceeded", reset, secondary_wait_s=60, now=900) == 101
