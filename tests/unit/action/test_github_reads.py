"""Reads (GET) retried as GitHub asks: a 429 without Retry-After waits a minute, one with it
waits that long, a primary limit waits for its reset (or is reported when that is too far), and
every pause goes through the client's `sleep`; and a dispatch's read-back waits for a run GitHub
creates after answering — through the real PyGithub and urllib3 against the loopback GitHub."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from promptcanary.action.github import GitHubClient
from promptcanary.errors import GitHubError
from tests.fakes.github_server import DEFAULT_TOKEN, FakeGitHubServer

REPO = "octo/repo"
PERMISSION = r"/collaborators/octocat/permission$"


@pytest.fixture
def gh() -> Iterator[FakeGitHubServer]:
    with FakeGitHubServer() as server:
        server.add_repo(REPO, branches=("main", "feature"), workflows={"check.yml": True})
        server.repos[REPO].collaborators["octocat"] = "write"
        yield server


def client(gh: FakeGitHubServer, waits: list[float], retries: int = 2) -> GitHubClient:
    return GitHubClient.connect(
        token=DEFAULT_TOKEN,
        api_url=gh.base_url,
        repository=REPO,
        retries=retries,
        backoff_s=0,
        throttle=False,
        sleep=waits.append,
    )


@pytest.mark.parametrize(("retry_after", "wait"), [(None, 60.0), (7, 7.0)])
def test_a_read_answered_429_is_sent_again_after_the_wait(
    gh: FakeGitHubServer, retry_after: int | None, wait: float
) -> None:
    gh.rate_limit("GET", PERMISSION, status=429, retry_after=retry_after)
    waits: list[float] = []
    assert client(gh, waits).permission_of("octocat") == ("write", "write")
    assert waits == [wait] and gh.count("GET", PERMISSION) == 2


def test_a_403_secondary_limit_is_still_waited_out_through_the_same_pause(
    gh: FakeGitHubServer,
) -> None:
    gh.rate_limit("GET", PERMISSION, status=403, retry_after=3)
    waits: list[float] = []
    assert client(gh, waits).permission_of("octocat")[0] == "write"
    assert waits == [3.0]


def test_a_primary_limit_waits_for_its_reset(gh: FakeGitHubServer) -> None:
    reset = int(time.time()) + 30
    gh.fail(
        "GET",
        PERMISSION,
        429,
        times=1,
        message="API rate limit exceeded for installation ID 1.",
        headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)},
    )
    waits: list[float] = []
    assert client(gh, waits).permission_of("octocat")[0] == "write"
    [wait] = waits
    assert 28 <= wait <= 32


def test_a_reset_too_far_away_is_reported_not_waited_out(gh: FakeGitHubServer) -> None:
    gh.fail(
        "GET",
        PERMISSION,
        429,
        message="API rate limit exceeded for installation ID 1.",
        headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()) + 3600)},
    )
    waits: list[float] = []
    with pytest.raises(GitHubError) as raised:
        client(gh, waits).permission_of("octocat")
    assert raised.value.status == 429 and waits == [] and gh.count("GET", PERMISSION) == 1


def test_a_limit_that_never_lifts_ends_after_the_retries(gh: FakeGitHubServer) -> None:
    gh.rate_limit("GET", PERMISSION, status=429, times=10)
    waits: list[float] = []
    with pytest.raises(GitHubError) as raised:
        client(gh, waits, retries=2).permission_of("octocat")
    assert raised.value.status == 429
    assert waits == [60.0, 60.0] and gh.count("GET", PERMISSION) == 3


# ── a dispatch's read-back ────────────────────────────────────────────────────────────────────


def test_poll_stops_at_the_first_answer_and_gives_up_after_the_last_pause() -> None:
    from promptcanary.action.github_calls import poll

    answers = iter([None, None, "found", "later"])
    waits: list[float] = []
    assert poll(lambda: next(answers), pauses=(1, 2, 3, 4), pause=waits.append) == "found"
    assert waits == [1, 2, 3]
    waits.clear()
    assert poll(lambda: None, pauses=(1, 2), pause=waits.append) is None and waits == [1, 2]


@pytest.mark.parametrize(("delay", "sent"), [(0, 1), (3, 1), (4, 2)])
def test_a_dispatch_answered_502_waits_for_its_run_before_sending_again(
    gh: FakeGitHubServer, delay: int, sent: int
) -> None:
    from promptcanary.action.github_runs import DISPATCH_READ_BACK_S

    # GitHub answers before it creates the run: it shows in the runs list `delay` reads later.
    gh.repos[REPO].run_delay = delay
    gh.fail("POST", "/dispatches$", 502, times=1, after=True)
    waits: list[float] = []
    client(gh, waits).dispatch_workflow("check.yml", ref="feature")
    # Within the read-back (four looks) the run shows and nothing is sent again; a run that has
    # not shown after a minute is taken as lost.
    assert gh.count("POST", "/dispatches$") == sent
    assert len(gh.repos[REPO].dispatches) == sent
    assert sum(waits[: len(DISPATCH_READ_BACK_S)]) <= sum(DISPATCH_READ_BACK_S) == 60.0
