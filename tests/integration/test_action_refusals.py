"""No report is lost when GitHub says no, and each refusal names what fixes it.

GitHub answers a write the job's token may not make with 403 "Resource not accessible by
integration" (the workflow's token is an installation token). Whatever refuses the comment, the
watch issue or the check run — a missing permission, 404, 422, 5xx after retries, a rate limit —
the full report still reaches the job: the step summary, the report files and the log. In
process, through the real PyGithub and LiteLLM on loopback servers.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.action_runner import ActionRun, load_event
from tests.fakes.github_server import Token
from tests.integration.action_support import BOT, REPO, seed_baseline
from tests.integration.action_world import PR, World, make_world

LABEL = "promptcanary:promote"
#: Tokens as a job's `permissions:` block leaves them (every scope not listed is none).
NO_PR_WRITE = "ghs_noprwrite0000000000000000000000000"
NO_CHECKS = "ghs_nochecks00000000000000000000000000"
NO_ISSUES = "ghs_noissues00000000000000000000000000"
NO_CONTENTS = "ghs_nocontents000000000000000000000000"
NO_ACTIONS = "ghs_noactions0000000000000000000000000"
TOKENS = {
    NO_PR_WRITE: Token(BOT, permissions={"contents": "read", "checks": "write"}),
    NO_CHECKS: Token(
        BOT, permissions={"contents": "read", "pull-requests": "write", "statuses": "write"}
    ),
    NO_ISSUES: Token(BOT, permissions={"contents": "read", "checks": "write"}),
    NO_CONTENTS: Token(
        BOT, permissions={"contents": "read", "pull-requests": "write", "issues": "write"}
    ),
    NO_ACTIONS: Token(
        BOT, permissions={"contents": "write", "pull-requests": "write", "issues": "write"}
    ),
}
#: What the Action used to say for every 403: all the permissions, none singled out.
GENERIC = "Give the workflow the permissions PromptCanary needs"
GROUP = re.compile(r"^::group::PromptCanary report \((.*)\)$", re.M)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with make_world(tmp_path, tokens=TOKENS) as made:
        yield made


def drifting(world: World) -> None:
    """A committed baseline and a model that no longer names Paris: a failing check."""
    seed_baseline(world.runner.workspace)
    world.answers["capital"] = "I would rather not say."


def logged_report(run: ActionRun) -> str:
    """The report printed in the log's group (between the stop-commands markers)."""
    lines = run.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if GROUP.match(line))
    token = lines[start + 1].removeprefix("::stop-commands::")
    end = lines.index(f"::{token}::", start + 2)
    assert lines[end + 1] == "::endgroup::"
    return "\n".join(lines[start + 2 : end])


def failure_note(run: ActionRun) -> str:
    """The summary's list of refused operations (its last section)."""
    start = run.summary.index("### ⚠️ GitHub refused some operations")
    return run.summary[start:]


def comment_file(run: ActionRun) -> str:
    kept = Path(run.outputs["report-path"]).with_name("support-bot__openai-fake.comment.md")
    return kept.read_text(encoding="utf-8")


# ── the comment ──────────────────────────────────────────────────────────────────────────────


def test_a_comment_refused_for_want_of_permission_names_it_and_the_log_has_the_report(
    world: World,
) -> None:
    drifting(world)
    world.runner.token = NO_PR_WRITE
    run = world.run("pull_request", load_event("pull_request.opened"))

    assert run.returncode == 1 and run.outputs["result"] == "failed"  # the gate stands
    assert run.outputs["comment-url"] == "" and world.bot_comments() == []
    refused = [w for w in run.commands("warning") if "comment on pull request #2" in w]
    assert len(refused) == 1
    assert refused[0].startswith(
        "Could not comment on pull request #2: GitHub answered HTTP 403 (Resource not accessible by "
        "integration). The token lacks `pull-requests: write`: add `pull-requests: write` to "
        "the job's `permissions:` (keeping the lines already there: a permission left out is "
        "`none`)"
    )
    assert GENERIC not in run.stdout and "Traceback" not in run.stdout
    # The very comment that was refused, in full, in the log and in the summary.
    assert GROUP.findall(run.stdout) == [
        "the comment on pull request #2 was not posted: here in full"
    ]
    assert logged_report(run) == comment_file(run)
    assert "CRITICAL drift" in logged_report(run) and "capital" in logged_report(run)
    # Our own line is Markdown in the summary: the permission is a code span, not `\``.
    note = failure_note(run)
    assert "CRITICAL drift" in run.summary and "\\`" not in note
    assert "The token lacks `pull-requests: write`: add `pull-requests: write` to" in note
    # The token is masked before anything else and never printed again.
    assert run.stdout.count(NO_PR_WRITE) == 1
    assert run.stdout.startswith("::add-mask::") and f"::add-mask::{NO_PR_WRITE}" in run.stdout


@pytest.mark.parametrize(
    ("status", "message", "said"),
    [
        (404, "Not Found", "HTTP 404 (Not Found) Either it does not exist, or the token may not"),
        (422, "Validation Failed", "HTTP 422 (Validation Failed) GitHub rejected the request"),
        (502, "Bad Gateway", "HTTP 502 after retries GitHub may be having an outage."),
        # A rate limit asking for an hour is reported, not waited out; a 403 one is no
        # missing permission.
        (429, "rate", "GitHub rate-limited this token; the next run will try again."),
        (403, "rate", "GitHub rate-limited this token; the next run will try again."),
    ],
)
def test_any_other_refused_comment_keeps_its_reason_and_the_log_has_the_report(
    world: World, status: int, message: str, said: str
) -> None:
    drifting(world)
    world.retries = 1
    if message == "rate":
        world.gh.rate_limit(
            "POST", r"/issues/2/comments$", times=5, retry_after=3600, status=status
        )
    else:
        world.gh.fail("POST", r"/issues/2/comments$", status, message=message)
    run = world.run("pull_request", load_event("pull_request.opened"))

    assert run.returncode == 1 and run.outputs["comment-url"] == ""
    refused = [w for w in run.commands("warning") if "comment on pull request #2" in w]
    assert len(refused) == 1 and said in refused[0], refused
    assert "The token lacks" not in refused[0]  # no permission would change this answer
    assert logged_report(run) == comment_file(run)
    assert "CRITICAL drift" in run.summary and "GitHub refused some operations" in run.summary
    assert max(world.sleeps, default=0) < 3600


def test_the_summary_renders_our_words_and_escapes_githubs(world: World) -> None:
    """GitHub's answer is not ours: its backticks, emphasis and mentions stay inert in the
    summary's list, while the permission line we wrote keeps its code spans."""
    drifting(world)
    said = "Resource not accessible by `integration` **now** @octocat"
    world.gh.fail("POST", r"/issues/2/comments$", 403, message=said)
    run = world.run("pull_request", load_event("pull_request.opened"))

    assert run.returncode == 1  # the gate stands
    [refused] = [w for w in run.commands("warning") if "comment on pull request #2" in w]
    assert f"HTTP 403 ({said})" in refused  # the log shows GitHub's words as they came
    note = failure_note(run)
    assert "(Resource not accessible by \\`integration\\` \\*\\*now\\*\\* @\u200boctocat)" in note
    assert "`integration`" not in note.replace("\\`", "") and "@octocat" not in note
    assert "add `pull-requests: write` to the job's `permissions:`" in note


def test_without_a_token_the_log_has_the_report(world: World) -> None:
    drifting(world)
    run = world.run("pull_request", load_event("pull_request.opened"), **{"github-token": ""})
    assert run.returncode == 1 and world.gh.requests == []  # nothing was asked of GitHub
    [warned] = [w for w in run.commands("warning") if "comment on pull request #2" in w]
    assert "no GitHub token (set the `github-token` input)" in warned
    assert logged_report(run) == comment_file(run)


def test_a_posted_comment_prints_no_report_to_the_log(world: World) -> None:
    drifting(world)
    run = world.run("pull_request", load_event("pull_request.opened"))
    assert run.returncode == 1 and len(world.bot_comments()) == 1
    assert GROUP.findall(run.stdout) == []  # the report went where it belongs


# ── the check run, the label, the watch issue ────────────────────────────────────────────────


def test_a_refused_check_run_names_checks_write_and_the_log_has_the_report(world: World) -> None:
    drifting(world)
    world.runner.token = NO_CHECKS
    run = world.run("pull_request", load_event("pull_request.opened"))

    assert run.returncode == 1 and len(world.bot_comments()) == 1
    notices = [n for n in run.commands("notice") if "check run" in n]
    assert len(notices) == 1 and "the token lacks `checks: write`" in notices[0]
    assert GROUP.findall(run.stdout) == ["the check run was not published: here in full"]
    assert "CRITICAL drift" in logged_report(run)
    assert world.gh.repos[REPO].check_runs == {}


def test_a_refused_promote_label_names_issues_write(world: World) -> None:
    world.runner.token = NO_ISSUES
    run = world.run("pull_request", load_event("pull_request.opened"))
    notices = [n for n in run.commands("notice") if LABEL in n]
    assert len(notices) == 1
    assert notices[0].startswith(
        f"Could not check or create the label '{LABEL}': GitHub answered HTTP 403 (Resource not "
        "accessible by integration). The token lacks `issues: write`: add `issues: write`"
    )
    assert GENERIC not in run.stdout


def test_a_refused_watch_issue_names_issues_write_and_the_log_has_the_report(
    world: World,
) -> None:
    drifting(world)
    world.runner.token = NO_ISSUES
    run = world.run("schedule", load_event("schedule"), **{"fail-on-severity": "high"})

    assert run.returncode == 1 and run.outputs["result"] == "failed"
    assert list(world.gh.repos[REPO].issues) == [PR]  # no watch issue: only the pull request
    refused = [w for w in run.commands("warning") if "watch issue" in w]
    assert len(refused) == 1 and "The token lacks `issues: write`" in refused[0]
    report = logged_report(run)
    assert "CRITICAL drift" in report and report.startswith("<!-- promptcanary-watch")
    assert "CRITICAL drift" in run.summary


# ── promotion ────────────────────────────────────────────────────────────────────────────────


def labeled() -> dict[str, object]:
    event = load_event("pull_request.labeled")
    event["label"]["name"] = LABEL
    return event


def test_a_refused_promotion_commit_names_contents_write_and_what_the_pr_waits_for(
    world: World,
) -> None:
    world.runner.token = NO_CONTENTS
    run = world.run("pull_request", labeled(), **{"baseline-samples": "3"})

    assert run.returncode == 5 and run.outputs["result"] == "promotion-failed"
    assert world.gh.repos[REPO].commits == []
    refused = [w for w in run.commands("warning") if "commit the new baseline" in w]
    assert len(refused) == 1 and "The token lacks `contents: write`" in refused[0]
    assert "add `contents: write` to the job's `permissions:`" in refused[0]
    body = world.bot_comments()[0]["body"]
    # Our own line is Markdown (a code span); only what GitHub said around it is escaped.
    assert "The token lacks `contents: write`" in body and "\\`contents" not in body
    assert "keeps the verdict of the last check of this head" in body
    assert "the label stays on it" in body and "removed and added again" in body
    assert LABEL in {label["name"] for label in world.gh.repos[REPO].issues[PR]["labels"]}


def test_an_unusable_promotion_says_not_promoted_and_what_the_pr_waits_for(world: World) -> None:
    world.answers["status"] = 401  # the provider refuses the key: nothing usable was measured
    run = world.run("pull_request", labeled(), **{"baseline-samples": "3"})

    assert run.outputs["result"] == "inconclusive" and world.gh.repos[REPO].commits == []
    body = world.bot_comments()[0]["body"]
    assert "## 🐤 PromptCanary: not promoted" in body and "skipped" not in body
    assert "keeps the verdict of the last check of this head" in body
    warned = [w for w in run.commands("warning") if w.startswith("Not promoted:")]
    assert len(warned) == 1 and "the label stays on it" in warned[0]


def test_a_refused_dispatch_names_actions_write(world: World) -> None:
    world.runner.token = NO_ACTIONS
    inputs = {"baseline-samples": "3", "check-workflow": "promptcanary-pr.yml"}
    run = world.run("pull_request", labeled(), **inputs)

    assert run.outputs["result"] == "promoted" and world.gh.repos[REPO].dispatches == []
    [warned] = [w for w in run.commands("warning") if "check workflow" in w]
    assert "The token lacks `actions: write`: add `actions: write` to the job's" in warned


def test_a_pull_request_read_refused_names_pull_requests_read(world: World) -> None:
    world.gh.fail("GET", rf"/pulls/{PR}$", 403)
    run = world.run("pull_request", labeled(), **{"baseline-samples": "3"})

    assert run.outputs["result"] == "promoted"  # as the event says: still a compare-and-swap
    [warned] = [w for w in run.commands("warning") if f"pull request #{PR} before" in w]
    assert warned.startswith(f"Could not read pull request #{PR} before promoting: GitHub")
    assert "The token lacks `pull-requests: read`" in warned
    assert warned.endswith("Promoting as the event says.")


def test_a_promotion_commit_left_without_any_check_says_the_pr_waits_for_it(world: World) -> None:
    world.runner.token = NO_ACTIONS  # contents, pull-requests, issues: no statuses, no checks
    run = world.run("pull_request", labeled(), **{"baseline-samples": "3"})

    assert run.outputs["result"] == "promoted" and len(world.gh.repos[REPO].commits) == 1
    repo = world.gh.repos[REPO]
    assert repo.statuses == []
    assert repo.check_runs == {}
    body = world.bot_comments()[0]["body"]
    assert "The new commit carries no PromptCanary check." in body
    assert "a branch rule requiring the PromptCanary check waits for it" in body
    assert "What this leaves to a person" in body  # how the check runs again on the new head
