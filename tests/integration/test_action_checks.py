"""The Action on GitHub's APIs as GitHub answers them: the named check run (with and without
`checks: write`), who may promote, the promote label's permission, rate limits, 5xx answers to
writes that landed, and protected branches. In process, through the real PyGithub and LiteLLM
on loopback servers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.action_runner import load_event
from tests.fakes.github_server import HEAD_SHA, Token
from tests.integration.action_support import BOT, REPO, SUITE, seed_baseline
from tests.integration.action_world import PR, World, make_world

LABEL = "promptcanary:promote"
NAME = "PromptCanary: support-bot (openai/fake)"
#: What `permissions:` leave the GITHUB_TOKEN in the example workflows (before this change).
NO_CHECKS = "ghs_nochecks00000000000000000000000000"
PR_ONLY = "ghs_pronly0000000000000000000000000000"
TOKENS = {
    NO_CHECKS: Token(BOT, permissions={"contents": "write", "pull-requests": "write"}),
    PR_ONLY: Token(BOT, permissions={"contents": "read", "pull-requests": "write"}),
}


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with make_world(tmp_path, tokens=TOKENS) as made:
        made.runner.workflow_file = "promptcanary-promote.yml"
        # These tests are about what the Action asks of GitHub; what a promotion measures (30
        # samples a prompt by default) is test_action_plan_summary's. 3 samples: 12 requests a
        # promotion instead of 120, and no assertion here depends on the count.
        made.inputs["baseline-samples"] = "3"
        yield made


def labeled(sender: str = "Codertocat") -> dict[str, Any]:
    event = load_event("pull_request.labeled")
    event["label"]["name"] = LABEL
    event["sender"]["login"] = sender
    return event


def check_runs(world: World) -> list[dict[str, Any]]:
    return list(world.gh.repos[REPO].check_runs.values())


def line_of(text: str) -> int:
    return SUITE.splitlines().index(text) + 1


# ── the check run ──────────────────────────────────────────────────────────────────────────────


def test_a_passing_check_is_a_successful_check_run_on_the_pull_requests_head(
    world: World,
) -> None:
    seed_baseline(world.runner.workspace)
    run = world.run("pull_request", load_event("pull_request.opened"))
    assert run.returncode == 0 and run.outputs["result"] == "passed"
    [check] = check_runs(world)
    assert (check["name"], check["head_sha"], check["conclusion"]) == (NAME, HEAD_SHA, "success")
    assert check["output"]["title"].startswith("✅")
    assert "<!-- promptcanary" not in check["output"]["summary"]  # no sticky marker in it
    assert "support-bot" in check["output"]["summary"] and check["annotations"] == []


def test_drift_fails_the_check_run_and_annotates_the_prompt_in_canary_yaml(world: World) -> None:
    seed_baseline(world.runner.workspace)
    world.answers["author"] = "Hamlet was written by Christopher Marlowe."
    run = world.run("pull_request", load_event("pull_request.opened"))
    assert run.returncode == 1 and run.outputs["result"] == "failed"
    [check] = check_runs(world)
    assert check["conclusion"] == "failure" and check["output"]["title"].startswith("⚠️")
    [note] = check["annotations"]
    assert note["path"] == "canary.yaml" and note["annotation_level"] == "failure"
    assert note["start_line"] == note["end_line"] == line_of("  - id: author")
    assert "'author'" in note["message"] and "1.00 → 0.00" in note["message"]


def test_no_baseline_is_a_neutral_check_run(world: World) -> None:
    run = world.run("pull_request", load_event("pull_request.opened"))
    assert run.outputs["result"] == "no-baseline"
    [check] = check_runs(world)
    assert check["conclusion"] == "neutral" and "No baseline yet" in check["output"]["title"]


def seed_renamed_baseline(workspace: Path) -> None:
    """A committed baseline of the suite as it was before every prompt was renamed: no
    (probe, prompt) pair, and no prompt's answers, in common with the suite now."""
    suite_file = workspace / "canary.yaml"
    suite_file.write_text(SUITE.replace("  - id: ", "  - id: old-"), encoding="utf-8")
    seed_baseline(workspace, samples=3)
    suite_file.write_text(SUITE, encoding="utf-8")


@pytest.mark.parametrize(
    ("fail_on_inconclusive", "code", "conclusion"),
    [("false", 0, "neutral"), ("true", 3, "failure")],
)
def test_a_check_that_compared_nothing_is_inconclusive_never_green(
    world: World, fail_on_inconclusive: str, code: int, conclusion: str
) -> None:
    seed_renamed_baseline(world.runner.workspace)
    run = world.run(
        "pull_request",
        load_event("pull_request.opened"),
        **{"fail-on-inconclusive": fail_on_inconclusive},
    )
    assert run.returncode == code and run.outputs["result"] == "inconclusive"
    assert run.outputs["baseline-score"] == "" and run.outputs["score-delta"] == ""
    [check] = check_runs(world)
    assert check["conclusion"] == conclusion  # neutral when it may not fail: never "success"
    assert check["output"]["title"].startswith("❔ Inconclusive: nothing compared")
    assert "suite changed: prompts 4 added, 4 removed" in check["output"]["title"]
    # What to do, in the Action's words: the promote label.
    body = world.bot_comments()[0]["body"]
    for text in (body, check["output"]["summary"]):
        assert "Inconclusive: nothing compared, suite changed" in text
        assert f"To record a baseline of the suite as it is now, add the label `{LABEL}`" in text
    assert "No drift" not in body and "1.00 → 1.00" not in body


def test_fail_on_suite_change_fails_a_check_that_compared_nothing_as_a_suite_change(
    world: World,
) -> None:
    seed_renamed_baseline(world.runner.workspace)
    run = world.run(
        "pull_request", load_event("pull_request.opened"), **{"fail-on-suite-change": "true"}
    )
    assert run.returncode == 1 and run.outputs["result"] == "suite-changed"
    [check] = check_runs(world)
    assert check["conclusion"] == "failure"
    assert check["output"]["title"].startswith("❔ Inconclusive: nothing compared")


@pytest.mark.parametrize(
    ("fail_on_skip", "conclusion"), [("false", "neutral"), ("true", "failure")]
)
def test_a_dependabot_skip_is_a_check_run_matching_the_exit(
    world: World, fail_on_skip: str, conclusion: str
) -> None:
    world.runner.provider_env["OPENAI_API_KEY"] = ""
    world.runner.actor = "dependabot[bot]"
    run = world.run(
        "pull_request", load_event("pull_request.opened"), **{"fail-on-skip": fail_on_skip}
    )
    assert run.outputs["result"] == "skipped" and world.llm.requests == []
    [check] = check_runs(world)
    assert check["conclusion"] == conclusion and check["name"] == NAME


def test_a_forks_pull_request_gets_no_check_run(world: World) -> None:
    event = load_event("pull_request.opened")
    event["pull_request"]["head"]["repo"].update(full_name="forker/Hello-World", id=7)
    run = world.run("pull_request", event)
    assert run.outputs["result"] == "skipped" and world.gh.count("POST", "/check-runs$") == 0


def test_without_checks_write_it_says_so_once_and_reports_as_before(world: World) -> None:
    world.runner.token = NO_CHECKS
    run = world.run("pull_request", labeled())
    assert run.returncode == 0 and run.outputs["result"] == "promoted"
    assert check_runs(world) == [] and world.gh.count("POST", "/check-runs$") == 1
    [notice] = [n for n in run.commands("notice") if "checks: write" in n]
    assert "Resource not accessible by integration" in notice
    assert not any("check run" in w for w in run.commands("warning"))
    assert "Published the required check" not in world.bot_comments()[0]["body"]


def test_a_promotion_leaves_a_successful_check_run_on_its_commit(world: World) -> None:
    run = world.run("pull_request", labeled())
    assert run.outputs["result"] == "promoted"
    [commit] = world.gh.repos[REPO].commits
    [check] = check_runs(world)
    assert (check["name"], check["head_sha"], check["conclusion"]) == (
        NAME,
        commit["sha"],
        "success",
    )
    body = world.bot_comments()[0]["body"]
    assert (
        f"Published the required check `{NAME}` (commit status and check run) as **success**"
        in body
    )
    assert "Approve workflows to run" in body  # the default token: other workflows wait


def test_the_comment_id_output_names_the_sticky_comment(world: World) -> None:
    first = world.run("pull_request", load_event("pull_request.opened"))
    second = world.run("pull_request", load_event("pull_request.synchronize"))
    [comment] = world.bot_comments()
    assert first.outputs["comment-id"] == second.outputs["comment-id"] == str(comment["id"])


# ── the promote label and who may promote ──────────────────────────────────────────────────────


def test_label_creation_without_issues_write_names_the_permission(world: World) -> None:
    world.runner.token = PR_ONLY  # pull-requests: write only, as the old examples granted
    run = world.run("pull_request", load_event("pull_request.opened"))
    assert run.returncode == 0 and LABEL not in world.gh.repos[REPO].labels
    [notice] = [n for n in run.commands("notice") if LABEL in n]
    assert "HTTP 403" in notice and "`issues: write`" in notice
    assert world.bot_comments()  # the comment itself only needs pull-requests: write


@pytest.mark.parametrize("role", ["triage", "read"])
def test_a_label_from_someone_without_write_permission_promotes_nothing(
    world: World, role: str
) -> None:
    world.gh.repos[REPO].collaborators["helper"] = role
    run = world.run("pull_request", labeled("helper"))
    assert run.returncode == 0 and run.outputs["result"] == "skipped"
    assert world.llm.requests == [] and world.gh.repos[REPO].commits == []
    assert f"`helper` added the label `{LABEL}` but has the `{role}` role" in run.summary
    assert "write, maintain or admin" in run.summary and check_runs(world) == []


def test_a_maintainer_may_promote(world: World) -> None:
    world.gh.repos[REPO].collaborators["keeper"] = "maintain"
    run = world.run("pull_request", labeled("keeper"))
    assert run.outputs["result"] == "promoted" and len(world.gh.repos[REPO].commits) == 1


def test_an_unreadable_permission_promotes_nothing(world: World) -> None:
    world.retries = 0
    world.gh.fail("GET", r"/collaborators/.+/permission$", 404, message="Not Found")
    run = world.run("pull_request", labeled())
    assert run.outputs["result"] == "skipped" and world.gh.repos[REPO].commits == []
    assert "could not read the repository permission of `Codertocat`" in run.summary


# ── GitHub's refusals ─────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("status", "retry_after", "wait"), [(403, 7, 7.0), (403, None, 60.0), (429, None, 60.0)]
)
def test_a_rate_limited_comment_edit_is_sent_again_after_the_wait(
    world: World, status: int, retry_after: int | None, wait: float
) -> None:
    seed_baseline(world.runner.workspace)
    world.run("pull_request", load_event("pull_request.opened"))
    world.answers["author"] = "Hamlet was written by Christopher Marlowe."
    world.gh.rate_limit("PATCH", r"/issues/comments/\d+$", retry_after=retry_after, status=status)
    run = world.run("pull_request", load_event("pull_request.synchronize"))
    assert run.outputs["result"] == "failed" and not run.commands("warning")
    [comment] = world.bot_comments()
    assert "Marlowe" in comment["body"]  # the edit landed on the second try
    assert wait in world.sleeps and world.gh.count("PATCH", r"/issues/comments/\d+$") == 2


def test_a_rate_limited_comment_creation_is_sent_again(world: World) -> None:
    world.gh.rate_limit("POST", rf"/issues/{PR}/comments$", retry_after=3)
    world.run("pull_request", load_event("pull_request.opened"))
    assert len(world.bot_comments()) == 1 and 3.0 in world.sleeps


@pytest.mark.parametrize("landed", [True, False])
def test_a_dispatch_answered_502_is_read_back_before_it_is_sent_again(
    world: World, landed: bool
) -> None:
    world.gh.fail("POST", r"/dispatches$", 502, times=1, after=landed)
    run = world.run("pull_request", labeled(), **{"check-workflow": "promptcanary-pr.yml"})
    assert run.outputs["result"] == "promoted"
    # Landed: the runs list shows it and nothing is resent. Lost: sent once more.
    assert len(world.gh.repos[REPO].dispatches) == 1
    assert world.gh.count("POST", r"/dispatches$") == (1 if landed else 2)
    assert "Started the check workflow" in world.bot_comments()[0]["body"]


@pytest.mark.parametrize("ruleset", [False, True])
def test_a_protected_branch_is_named_as_such(world: World, ruleset: bool) -> None:
    world.gh.protect(REPO, "changes", ruleset=ruleset)
    run = world.run("pull_request", labeled())
    assert run.returncode == 5 and run.outputs["result"] == "promotion-failed"
    body = world.bot_comments()[0]["body"]
    assert "branch protection rule or repository ruleset" in body
    assert "too long" not in body and "bypass list" in body
    assert world.gh.repos[REPO].commits == [] and check_runs(world) == []


# ── the workflows `promptcanary init` writes grant what the action needs ──────────────────────


def job_token(world: World, workflow: str, job: str) -> None:
    """Run as the GITHUB_TOKEN that job's `permissions:` leave (examples == init's files)."""
    import yaml

    from tests.fakes.action_runner import ROOT

    spec = yaml.safe_load((ROOT / "examples" / "workflows" / workflow).read_text("utf-8"))
    token = f"ghs_{job}token".ljust(40, "0")
    world.gh.tokens[token] = Token(BOT, permissions=dict(spec["jobs"][job]["permissions"]))
    world.runner.token = token


def test_the_check_jobs_permissions_create_the_label_and_publish_the_check(world: World) -> None:
    job_token(world, "promptcanary-pr.yml", "check")
    run = world.run("pull_request", load_event("pull_request.opened"))
    assert LABEL in world.gh.repos[REPO].labels and len(check_runs(world)) == 1
    assert not run.commands("warning") and world.bot_comments()


def test_the_promote_jobs_permissions_commit_and_publish_without_actions_write(
    world: World,
) -> None:
    job_token(world, "promptcanary-promote.yml", "promote")
    run = world.run("pull_request", labeled())
    assert run.outputs["result"] == "promoted" and not run.commands("warning")
    assert not [n for n in run.commands("notice") if "write`" in n]  # no permission missing
    repo = world.gh.repos[REPO]
    assert len(repo.commits) == 1 and len(check_runs(world)) == 1 and repo.dispatches == []
    assert [s["state"] for s in repo.statuses] == ["success"]
