"""The Action's GitHub flows against a GitHub that says no: promotion that ends with a checked
head (or says exactly why not), honest skips, and a sticky comment for every kind of token.
In process (one LiteLLM import), through the real PyGithub and LiteLLM on loopback servers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from promptcanary.action.main import main
from promptcanary.pipeline import make_provider as default_provider
from tests.fakes.action_runner import load_event
from tests.fakes.github_server import APP_LOGIN, APP_TOKEN, HEAD_SHA, Token
from tests.integration.action_support import BOT, GOOD, REPO, seed_baseline
from tests.integration.action_world import World, make_world

PR = 2
LABEL = "promptcanary:promote"
#: Tokens with some scopes only (what a job's `permissions:` block leaves the GITHUB_TOKEN).
CONTENTS_READ = "ghs_contentsread000000000000000000000"
NO_ACTIONS = "ghs_noactions0000000000000000000000000"
TOKENS = {
    CONTENTS_READ: Token(BOT, permissions={"contents": "read", "pull-requests": "write"}),
    NO_ACTIONS: Token(BOT, permissions={"contents": "write", "pull-requests": "write"}),
}
PROMOTE_INPUTS = {"check-workflow": "promptcanary-pr.yml"}


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with make_world(tmp_path, tokens=TOKENS) as made:
        made.runner.workflow_file = "promptcanary-promote.yml"
        # These tests are about what the Action asks of GitHub; what a promotion measures (30
        # samples a prompt by default) is test_action_plan_summary's. 3 samples: 12 requests a
        # promotion instead of 120, and no assertion here depends on the count.
        made.inputs["baseline-samples"] = "3"
        yield made


def labeled(label: str = LABEL, **pull_request: Any) -> dict[str, Any]:
    event = load_event("pull_request.labeled")
    event["label"]["name"] = label
    event["pull_request"]["labels"] = [{"name": label}]
    event["pull_request"].update(pull_request)
    return event


def put_label_on_pr(world: World) -> dict[str, Any]:
    repo = world.gh.repos[REPO]
    issue = repo.issues[PR]
    issue["labels"].append(world.gh._label(repo, LABEL))
    return issue


def label_names(issue: dict[str, Any]) -> set[str]:
    return {lab["name"] for lab in issue["labels"]}


# ── promotion ──────────────────────────────────────────────────────────────────────────────────


def test_promotion_commits_on_the_measured_head_and_starts_the_check(world: World) -> None:
    seed_baseline(world.runner.workspace)
    issue = put_label_on_pr(world)
    run = world.run("pull_request", labeled(), **PROMOTE_INPUTS)
    assert run.returncode == 0, run.stdout
    assert run.outputs["result"] == "promoted"
    repo = world.gh.repos[REPO]
    [commit] = repo.commits
    assert commit["branch"] == "changes" and commit["parents"] == [HEAD_SHA]
    assert repo.heads["changes"] == commit["sha"]
    assert run.outputs["baseline-path"] in commit["paths"]
    # A commit made with GITHUB_TOKEN starts no workflow: the check is dispatched on the branch.
    assert repo.dispatches == [
        {"workflow": "promptcanary-pr.yml", "ref": "changes", "inputs": {}, "login": BOT}
    ]
    assert LABEL not in label_names(issue)  # the next labelling promotes again
    body = world.bot_comments()[0]["body"]
    assert "Started the check workflow `promptcanary-pr.yml` on `changes`" in body
    assert "re-run" not in body


def test_a_push_after_the_label_is_a_moved_branch_not_a_promotion(world: World) -> None:
    issue = put_label_on_pr(world)
    pushed = world.gh.push(REPO, "changes", {"prompt.txt": b"edited after labelling"})
    run = world.run("pull_request", labeled(), **PROMOTE_INPUTS)
    assert run.returncode == 5 and run.outputs["result"] == "branch-moved"
    assert world.llm.requests == []  # the pull request was read first: nothing measured
    repo = world.gh.repos[REPO]
    assert repo.heads["changes"] == pushed and repo.commits == [] and repo.dispatches == []
    body = world.bot_comments()[0]["body"]
    assert "moved since the label was added" in body and "Remove and re-add the label" in body
    assert LABEL in label_names(issue)


def test_two_queued_promotions_of_one_head_commit_only_once(world: World) -> None:
    first = world.run("pull_request", labeled(), **PROMOTE_INPUTS)
    requests = len(world.llm.requests)
    # The label added twice: the second run finds the first one's promotion on the head.
    second = world.run("pull_request", labeled(), **PROMOTE_INPUTS)
    assert (first.outputs["result"], second.outputs["result"]) == ("promoted", "skipped")
    assert second.returncode == 0 and len(world.llm.requests) == requests
    assert len(world.gh.repos[REPO].commits) == 1


@pytest.mark.parametrize(
    ("fail", "status"),
    [(None, 403), (("POST", r"/git/commits$", 502), 502), (("PATCH", r"/git/refs/", 409), 409)],
)
def test_a_refused_commit_is_a_failed_promotion(
    world: World, fail: tuple[str, str, int] | None, status: int
) -> None:
    issue = put_label_on_pr(world)
    if fail is None:
        world.runner.token = CONTENTS_READ  # `contents: read` in the job's permissions
    else:
        world.retries = 1
        world.gh.fail(fail[0], fail[1], fail[2])
    run = world.run("pull_request", labeled(), **PROMOTE_INPUTS)
    assert run.returncode == 5, run.stdout
    assert run.outputs["result"] == "promotion-failed"
    assert world.gh.repos[REPO].commits == [] and world.gh.repos[REPO].dispatches == []
    body = world.bot_comments()[0]["body"]
    assert "promotion failed" in body and f"HTTP {status}" in body
    assert "To retry" in body and "remove and re-add the label" in body
    assert LABEL in label_names(issue)
    assert any(f"HTTP {status}" in w for w in run.commands("warning"))


def test_a_deleted_branch_is_named(world: World) -> None:
    world.gh.fail("GET", rf"/git/commits/{HEAD_SHA}$", 404, message="Not Found")
    run = world.run("pull_request", labeled(), **PROMOTE_INPUTS)
    assert run.returncode == 5 and run.outputs["result"] == "promotion-failed"
    assert "is not in Codertocat/Hello-World any more" in world.bot_comments()[0]["body"]


def test_without_actions_write_the_comment_says_how_to_get_the_check(world: World) -> None:
    world.runner.token = NO_ACTIONS
    run = world.run("pull_request", labeled(), **PROMOTE_INPUTS)
    assert run.returncode == 0 and run.outputs["result"] == "promoted"
    assert len(world.gh.repos[REPO].commits) == 1 and world.gh.repos[REPO].dispatches == []
    body = world.bot_comments()[0]["body"]
    assert "check workflow was **not** started" in body and "`actions: write`" in body
    assert "push a commit to the branch, or close and reopen the pull request" in body


def test_a_check_workflow_without_a_dispatch_trigger_is_named(world: World) -> None:
    run = world.run("pull_request", labeled(), **{"check-workflow": "promptcanary-promote.yml"})
    assert run.outputs["result"] == "promoted"
    body = world.bot_comments()[0]["body"]
    assert "has no `workflow_dispatch` trigger" in body
    assert "only dispatches a workflow whose file, with that trigger, is on the default" in body


def test_by_default_a_promotion_starts_no_workflow(world: World) -> None:
    # The promotion publishes the required check itself; a dispatch is a second paid model run.
    run = world.run("pull_request", labeled())
    assert run.outputs["result"] == "promoted" and world.gh.repos[REPO].dispatches == []
    assert world.gh.count("GET", "/actions/workflows/") == 0  # not even looked up


def test_a_check_workflow_named_is_the_one_started(world: World) -> None:
    run = world.run("pull_request", labeled(), **PROMOTE_INPUTS)
    assert run.outputs["result"] == "promoted"
    assert [d["workflow"] for d in world.gh.repos[REPO].dispatches] == ["promptcanary-pr.yml"]
    assert "one more model run" in world.bot_comments()[0]["body"]


def test_a_check_workflow_that_does_not_exist_is_a_note_not_a_refusal(world: World) -> None:
    del world.gh.repos[REPO].workflows["promptcanary-pr.yml"]
    run = world.run("pull_request", labeled(), **PROMOTE_INPUTS)
    assert run.returncode == 0 and run.outputs["result"] == "promoted"
    assert world.gh.repos[REPO].dispatches == [] and world.gh.count("POST", "/dispatches$") == 0
    body = world.bot_comments()[0]["body"]
    assert "No workflow `promptcanary-pr.yml` on the default branch" in body
    assert not run.commands("warning")


@pytest.mark.parametrize(("state", "merged"), [("closed", False), ("closed", True)])
def test_a_closed_pull_request_is_not_promoted(world: World, state: str, merged: bool) -> None:
    run = world.run("pull_request", labeled(state=state, merged=merged), **PROMOTE_INPUTS)
    assert run.returncode == 0 and run.outputs["result"] == "skipped"
    assert world.llm.requests == [] and world.gh.repos[REPO].commits == []
    assert ("is merged" if merged else "is closed") in run.summary


def test_the_label_is_compared_ignoring_case(world: World) -> None:
    run = world.run("pull_request", labeled("PromptCanary:Promote"), **PROMOTE_INPUTS)
    assert run.outputs["result"] == "promoted"


# ── forks, Dependabot, missing keys ────────────────────────────────────────────────────────────


def test_a_pull_request_inside_a_forked_repository_is_measured(world: World) -> None:
    seed_baseline(world.runner.workspace)
    event = load_event("pull_request.opened")
    event["pull_request"]["head"]["repo"]["fork"] = True  # the repository itself is a fork
    event["pull_request"]["base"]["repo"]["fork"] = True
    run = world.run("pull_request", event)
    assert run.outputs["result"] == "passed" and len(world.llm.requests) == 4 * 3  # screened


def test_a_missing_key_outside_forks_is_a_configuration_error(world: World) -> None:
    world.runner.provider_env["OPENAI_API_KEY"] = ""  # secrets.OPENAI_APY_KEY: a typo
    run = world.run("schedule", load_event("schedule"))
    assert run.returncode == 2 and run.outputs == {}
    [error] = run.commands("error")
    assert "OPENAI_API_KEY" in error and "secrets.OPENAI_API_KEY" in error and "env:" in error
    assert world.llm.requests == []


def test_dependabot_without_a_key_is_skipped_and_fail_on_skip_fails_it(world: World) -> None:
    world.runner.provider_env["OPENAI_API_KEY"] = ""
    world.runner.actor = "dependabot[bot]"
    run = world.run("pull_request", load_event("pull_request.opened"))
    assert run.returncode == 0 and run.outputs["result"] == "skipped"
    assert "passes unmeasured" in run.summary
    strict = world.run(
        "pull_request", load_event("pull_request.opened"), **{"fail-on-skip": "true"}
    )
    assert strict.returncode == 3 and strict.outputs["result"] == "skipped"


#: Claude on Bedrock: no API key, but AWS credentials and a region, all secrets in a workflow.
BEDROCK = "bedrock/anthropic.claude-3-5-haiku-20241022-v1:0"


def test_dependabot_without_aws_credentials_is_skipped_naming_them(world: World) -> None:
    world.runner.actor = "dependabot[bot]"
    world.runner.provider_env.update(AWS_ACCESS_KEY_ID="", AWS_SECRET_ACCESS_KEY="")
    run = world.run("pull_request", load_event("pull_request.opened"), provider=BEDROCK)
    assert run.returncode == 0, run.stdout
    assert run.outputs["result"] == "skipped" and world.llm.requests == []
    # What GitHub withheld, by name: not "no provider key" for a provider that has none.
    assert "No provider credentials: AWS credentials (" in run.summary
    assert "AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY" in run.summary
    assert "AWS region (" in run.summary and "AWS_REGION" in run.summary
    assert "passes unmeasured" in run.summary
    strict = world.run(
        "pull_request",
        load_event("pull_request.opened"),
        provider=BEDROCK,
        **{"fail-on-skip": "true"},
    )
    assert strict.returncode == 3 and strict.outputs["result"] == "skipped"


def test_dependabot_without_azure_settings_is_skipped_naming_them(world: World) -> None:
    world.runner.actor = "dependabot[bot]"
    world.runner.provider_env.update(AZURE_API_KEY="k", AZURE_API_BASE="", AZURE_API_VERSION="")
    run = world.run("pull_request", load_event("pull_request.opened"), provider="azure/canary")
    assert run.returncode == 0 and run.outputs["result"] == "skipped"
    assert "endpoint (`AZURE_API_BASE`) and API version (`AZURE_API_VERSION`)" in run.summary
    assert world.llm.requests == []


def test_credentials_only_preflight_can_tell_are_recognised_by_their_class(
    world: World, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A bare Bedrock model id names no provider prefix: only LiteLLM's routing, in the real
    # provider factory's preflight, finds that it needs AWS credentials.
    for name in ("AWS_ACCESS_KEY_ID", "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION",
                 "AWS_REGION_NAME", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE",
                 "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
                 "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_BEARER_TOKEN_BEDROCK"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "empty-home"))
    world.runner.actor = "dependabot[bot]"
    run = world.runner.run_in_process(
        main,
        main_kwargs={"github_factory": world.github, "make_provider": default_provider},
        event_name="pull_request",
        event=load_event("pull_request.opened"),
        inputs={"provider": BEDROCK.removeprefix("bedrock/")},
    )
    assert run.returncode == 0, run.stdout
    assert run.outputs["result"] == "skipped" and "AWS credentials" in run.summary
    assert world.llm.requests == []


def test_a_forks_skip_names_what_github_withheld(world: World) -> None:
    world.runner.provider_env.update(AWS_ACCESS_KEY_ID="", AWS_SECRET_ACCESS_KEY="", AWS_REGION="")
    event = load_event("pull_request.opened")
    event["pull_request"]["head"]["repo"].update(full_name="forker/Hello-World", id=7)
    run = world.run("pull_request", event, provider=BEDROCK)
    assert run.returncode == 0 and run.outputs["result"] == "skipped"
    assert "comes from a fork" in run.summary
    assert "Withheld from this run: AWS credentials (" in run.summary
    assert "AWS region (" in run.summary and world.llm.requests == []


def test_missing_aws_credentials_outside_forks_are_a_configuration_error(world: World) -> None:
    run = world.run("schedule", load_event("schedule"), provider=BEDROCK)
    assert run.returncode == 2 and run.outputs == {}
    [error] = run.commands("error")
    assert "AWS_ACCESS_KEY_ID" in error and "AWS_REGION" in error
    assert "secrets.AWS_ACCESS_KEY_ID" in error and "env:" in error
    assert world.llm.requests == []


def test_fail_on_skip_fails_a_fork_pull_request(world: World) -> None:
    event = load_event("pull_request.opened")
    event["pull_request"]["head"]["repo"].update(full_name="forker/Hello-World", id=7)
    run = world.run("pull_request", event, **{"fail-on-skip": "true"})
    assert run.returncode == 3 and run.outputs["result"] == "skipped"
    assert world.llm.requests == []


# ── the sticky comment and the watch issue ─────────────────────────────────────────────────────


def test_an_app_token_keeps_one_comment_over_three_runs(world: World) -> None:
    world.runner.token = APP_TOKEN
    for _ in range(3):
        run = world.run("pull_request", load_event("pull_request.synchronize"))
        assert run.returncode == 0, run.stdout
    comments = world.gh.repos[REPO].comments_on(PR)
    assert [c["user"]["login"] for c in comments] == [APP_LOGIN]


def test_a_hidden_comment_is_not_reused(world: World) -> None:
    world.run("pull_request", load_event("pull_request.opened"))
    [old] = world.bot_comments()
    world.gh.minimize(REPO, old["id"])
    world.run("pull_request", load_event("pull_request.synchronize"))
    comments = world.bot_comments()
    assert len(comments) == 2 and comments[0]["body"] == old["body"]


def test_a_comment_post_answered_502_is_read_back_not_posted_twice(world: World) -> None:
    world.gh.fail("POST", rf"/issues/{PR}/comments$", 502, times=1, after=True)
    run = world.run("pull_request", load_event("pull_request.opened"))
    [comment] = world.bot_comments()  # the write landed: found by reading back, not resent
    assert world.gh.count("POST", rf"/issues/{PR}/comments$") == 1
    assert run.outputs["comment-id"] == str(comment["id"])


def test_the_check_creates_the_promote_label_once(world: World) -> None:
    first = world.run("pull_request", load_event("pull_request.opened"))
    assert LABEL in world.gh.repos[REPO].labels
    assert any(f"Created the label '{LABEL}'" in n for n in first.commands("notice"))
    second = world.run("pull_request", load_event("pull_request.synchronize"))
    assert not any("Created the label" in n for n in second.commands("notice"))
    assert world.gh.count("POST", "/labels$") == 1


def test_the_watch_issue_is_found_without_its_label_and_relabelled(world: World) -> None:
    seed_baseline(world.runner.workspace)
    world.answers["author"] = "Hamlet was written by Christopher Marlowe."
    world.run("schedule", load_event("schedule"))
    [issue] = [i for i in world.gh.repos[REPO].issues.values() if "pull_request" not in i]
    issue["labels"] = []  # someone removed (or renamed) the label
    world.run("schedule", load_event("schedule"))
    issues = [i for i in world.gh.repos[REPO].issues.values() if "pull_request" not in i]
    assert issues == [issue] and label_names(issue) == {"promptcanary"}
    issue["labels"] = []
    world.answers["author"] = GOOD["author"]
    healthy = world.run("schedule", load_event("schedule"))
    assert healthy.outputs["result"] == "passed" and issue["state"] == "closed"


def test_check_workflow_none_says_what_is_left_to_a_person(world: World) -> None:
    run = world.run("pull_request", labeled(), **{"check-workflow": "none"})
    assert run.outputs["result"] == "promoted" and world.gh.repos[REPO].dispatches == []
    body = world.bot_comments()[0]["body"]
    assert "Started the check workflow" not in body
    assert "**Approve workflows to run**" in body and "GitHub Enterprise Server" in body
    assert "dismisses stale pull request approvals" in body


def test_a_502_after_the_branch_moved_is_still_a_promotion(world: World) -> None:
    # The ref update was applied, then the answer failed: re-reading the branch tells.
    world.gh.fail("PATCH", r"/git/refs/heads/changes$", 502, times=1, after=True)
    run = world.run("pull_request", labeled(), **PROMOTE_INPUTS)
    assert run.returncode == 0 and run.outputs["result"] == "promoted", run.stdout
    assert len(world.gh.repos[REPO].commits) == 1 and len(world.gh.repos[REPO].dispatches) == 1
