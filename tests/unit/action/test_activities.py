"""What the Action decides to do for each event (real webhook payloads) and mode."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from promptcanary.action.activities import (
    decide,
    is_fork,
    missing_provider_credentials,
    secrets_withheld,
)
from promptcanary.action.settings import ActionConfig, GitHubContext, load_config
from promptcanary.errors import ConfigError
from tests.fakes.action_runner import load_event


def config(tmp_path: Path, **inputs: str) -> ActionConfig:
    values = {"GITHUB_WORKSPACE": str(tmp_path)}
    values.update({f"INPUT_{k.replace('-', '_').upper()}": v for k, v in inputs.items()})
    return load_config(values)


def context(
    event_name: str, event: dict[str, Any], ref: str = "refs/heads/master"
) -> GitHubContext:
    return GitHubContext(
        event_name=event_name,
        event=event,
        repository="Codertocat/Hello-World",
        api_url="http://127.0.0.1:1",
        server_url="https://github.test",
        run_id="1",
        sha="x",
        ref=ref,
        workspace=Path("/tmp"),
        runner_temp=None,
    )


@pytest.mark.parametrize("name", ["pull_request.opened", "pull_request.synchronize"])
def test_pull_request_updates_are_checked_and_commented(tmp_path: Path, name: str) -> None:
    plan = decide(config(tmp_path), context("pull_request", load_event(name)))
    assert plan.activity == "check" and plan.pr_number == 2


def test_labeled_with_the_promote_label_promotes_to_the_head_branch(tmp_path: Path) -> None:
    event = load_event("pull_request.labeled")
    event["label"]["name"] = "promptcanary:promote"
    plan = decide(config(tmp_path), context("pull_request", event))
    assert plan.activity == "promote" and plan.promote_branch == "changes" and plan.pr_number == 2


def test_labeled_with_another_label_is_skipped(tmp_path: Path) -> None:
    plan = decide(config(tmp_path), context("pull_request", load_event("pull_request.labeled")))
    assert plan.activity == "skip" and "`bug`" in plan.reason


def test_custom_promote_label(tmp_path: Path) -> None:
    plan = decide(
        config(tmp_path, **{"promote-label": "bug"}),
        context("pull_request", load_event("pull_request.labeled")),
    )
    assert plan.activity == "promote"


def test_fork_pull_requests_are_skipped_with_a_reason(tmp_path: Path) -> None:
    event = load_event("pull_request.opened")
    event["pull_request"]["head"]["repo"]["full_name"] = "forker/Hello-World"
    plan = decide(config(tmp_path), context("pull_request", event))
    assert plan.activity == "skip" and "from a fork" in plan.reason
    secrets = "executes the fork's canary.yaml and custom probes with this repository's secrets"
    assert secrets in plan.reason
    event["action"], event["label"] = "labeled", {"name": "promptcanary:promote"}
    plan = decide(config(tmp_path), context("pull_request", event))
    assert plan.activity == "skip" and "fork cannot be promoted" in plan.reason
    assert secrets in plan.reason
    event["pull_request"]["head"]["repo"] = None  # the fork was deleted
    assert decide(config(tmp_path), context("pull_request", event)).activity == "skip"


def test_push_and_dispatch_are_checks_without_a_pull_request(tmp_path: Path) -> None:
    for name in ("push", "workflow_dispatch"):
        plan = decide(config(tmp_path), context(name, load_event(name)))
        assert plan.activity == "check" and plan.pr_number is None


def test_schedule_watches(tmp_path: Path) -> None:
    plan = decide(config(tmp_path), context("schedule", load_event("schedule")))
    assert plan.activity == "watch" and plan.pr_number is None


def test_explicit_modes_override_the_event(tmp_path: Path) -> None:
    push = context("push", load_event("push"))
    assert decide(config(tmp_path, mode="watch"), push).activity == "watch"
    promote = decide(config(tmp_path, mode="promote"), push)
    assert promote.activity == "promote" and promote.promote_branch == "master"
    schedule = context("schedule", load_event("schedule"))
    assert decide(config(tmp_path, mode="check"), schedule).activity == "check"


def test_promote_mode_without_a_branch_is_a_config_error(tmp_path: Path) -> None:
    tag = context("push", load_event("push"), ref="refs/tags/v1")
    with pytest.raises(ConfigError, match="'mode: promote' needs a pull request or a branch"):
        decide(config(tmp_path, mode="promote"), tag)


@pytest.mark.parametrize(
    ("model", "environ", "missing"),
    [
        ("openai/gpt-4o-mini", {}, (("OPENAI_API_KEY",),)),
        ("openai/gpt-4o-mini", {"OPENAI_API_KEY": ""}, (("OPENAI_API_KEY",),)),
        ("openai/gpt-4o-mini", {"OPENAI_API_KEY": "sk-x"}, ()),
        ("gpt-4o", {}, (("OPENAI_API_KEY",),)),
        ("claude-3-5-haiku", {}, (("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),)),
        ("gemini/gemini-2.0-flash", {"GOOGLE_API_KEY": "k"}, ()),
        ("ollama/llama3", {}, ()),  # local servers need no key
        ("somethingnew/model", {}, ()),  # unknown: let the provider say
        # Not only keys: a withheld secret can be any credential a provider needs.
        ("bedrock/anthropic.claude", {"AWS_ACCESS_KEY_ID": "", "AWS_REGION": "eu-west-1"}, 1),
        ("vertex_ai/gemini-2.0-flash", {"VERTEXAI_PROJECT": "p"}, 1),
        ("azure/dep", {"AZURE_API_KEY": "k", "AZURE_API_VERSION": "2024-10-21"}, 1),
    ],
)
def test_missing_provider_credentials(
    model: str, environ: dict[str, str], missing: tuple | int, tmp_path: Path
) -> None:
    environ = {"HOME": str(tmp_path), **environ}  # no ~/.aws or gcloud file counts
    error = missing_provider_credentials(model, environ)
    if isinstance(missing, int):
        assert error is not None and len(error.needs) == missing and error.exit_code == 2
    else:
        assert (tuple(need.names for need in error.needs) if error else ()) == missing


def test_promotion_parent_is_the_pull_requests_measured_head(tmp_path: Path) -> None:
    event = load_event("pull_request.labeled")
    event["label"]["name"] = "PromptCanary:Promote"  # GitHub compares label names ignoring case
    plan = decide(config(tmp_path), context("pull_request", event))
    assert plan.activity == "promote"
    assert plan.promote_parent == event["pull_request"]["head"]["sha"]


def test_dispatch_promotion_parent_is_the_runs_commit(tmp_path: Path) -> None:
    plan = decide(
        config(tmp_path, mode="promote"),
        context("workflow_dispatch", load_event("workflow_dispatch")),
    )
    assert plan.promote_branch == "master" and plan.promote_parent == "x"  # GITHUB_SHA


@pytest.mark.parametrize(
    ("state", "merged", "word"), [("closed", False, "closed"), ("closed", True, "merged")]
)
def test_a_closed_or_merged_pull_request_is_never_promoted(
    tmp_path: Path, state: str, merged: bool, word: str
) -> None:
    event = load_event("pull_request.labeled")
    event["label"]["name"] = "promptcanary:promote"
    event["pull_request"].update(state=state, merged=merged)
    plan = decide(config(tmp_path), context("pull_request", event))
    assert plan.activity == "skip" and f"pull request #2 is {word}" in plan.reason
    assert not plan.unmeasured


def test_a_same_repository_pull_request_in_a_forked_repository_is_no_fork(tmp_path: Path) -> None:
    # head.repo.fork means "this repository is a fork": true on both sides here.
    event = load_event("pull_request.opened")
    event["pull_request"]["head"]["repo"]["fork"] = True
    event["pull_request"]["base"]["repo"]["fork"] = True
    assert not is_fork(event["pull_request"])
    assert decide(config(tmp_path), context("pull_request", event)).activity == "check"


def test_a_fork_is_known_by_the_repository_id(tmp_path: Path) -> None:
    event = load_event("pull_request.opened")
    event["pull_request"]["head"]["repo"]["id"] = 999  # same name, another repository
    plan = decide(config(tmp_path), context("pull_request", event))
    assert plan.activity == "skip" and plan.unmeasured


def test_secrets_are_withheld_only_for_forks_and_dependabot(tmp_path: Path) -> None:
    opened = load_event("pull_request.opened")
    assert not secrets_withheld(context("pull_request", opened))
    assert not secrets_withheld(context("schedule", load_event("schedule")))
    dependabot = replace(context("pull_request", opened), actor="dependabot[bot]")
    assert secrets_withheld(dependabot)
    opened["pull_request"]["head"]["repo"]["full_name"] = "forker/Hello-World"
    assert secrets_withheld(context("pull_request", opened))


# ── the fork companion (workflow_run) ─────────────────────────────────────────────────────────


def test_a_workflow_run_after_a_forks_check_marks_the_forks_head(tmp_path: Path) -> None:
    event = load_event("workflow_run.fork")
    plan = decide(config(tmp_path), context("workflow_run", event))
    assert plan.activity == "fork" and plan.unmeasured and plan.pr_number is None
    assert plan.head_sha == event["workflow_run"]["head_sha"]
    assert "`forker/Hello-World`" in plan.reason and "fail-on-skip" in plan.reason


def test_a_workflow_run_after_a_deleted_forks_check_still_marks_it(tmp_path: Path) -> None:
    event = load_event("workflow_run.fork")
    event["workflow_run"]["head_repository"] = None
    plan = decide(config(tmp_path), context("workflow_run", event))
    assert plan.activity == "fork" and "a deleted fork" in plan.reason


@pytest.mark.parametrize(
    "change",
    [
        {"event": "push"},
        {"event": "pull_request", "head_sha": ""},
        {"head_repository": {"id": 186853002, "full_name": "Codertocat/Hello-World"}},
    ],
)
def test_a_workflow_run_that_is_not_a_forks_check_is_left_alone(
    tmp_path: Path, change: dict[str, Any]
) -> None:
    event = load_event("workflow_run.fork")
    event["workflow_run"].update(change)
    plan = decide(config(tmp_path), context("workflow_run", event))
    assert plan.activity == "skip" and not plan.unmeasured and plan.head_sha is None


def test_an_explicit_mode_on_workflow_run_is_obeyed(tmp_path: Path) -> None:
    plan = decide(
        config(tmp_path, mode="check"), context("workflow_run", load_event("workflow_run.fork"))
    )
    assert plan.activity == "check" and plan.head_sha is None
