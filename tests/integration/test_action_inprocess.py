"""The Action's ``main()`` called in this process with its dependencies passed in (a LiteLLM
provider on the loopback LLM server, a GitHub client on the loopback GitHub API without
throttling), for the cases that need no fresh process: one LiteLLM import serves them all."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import pytest

from promptcanary.action.main import main
from promptcanary.core.models import CanaryPrompt
from promptcanary.core.suite import CanarySuite
from promptcanary.providers.scripted import ScriptedProvider
from tests.fakes.action_runner import load_event
from tests.fakes.github_server import HEAD_SHA
from tests.integration.action_support import MODEL, REPO, seed_baseline
from tests.integration.action_world import KEY, World, make_world

PR = 2


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with make_world(tmp_path) as made:
        yield made


def test_secrets_are_masked_first_and_never_printed_again(world: World) -> None:
    seed_baseline(world.runner.workspace)
    run = world.run("push", load_event("push"))
    lines = run.stdout.splitlines()
    masks = [i for i, line in enumerate(lines) if line.startswith("::add-mask::")]
    assert masks and masks == list(range(len(masks))), "masks must come before anything else"
    masked = {lines[i].removeprefix("::add-mask::") for i in masks}
    assert {KEY, world.runner.token} <= masked
    assert KEY not in "\n".join(lines[len(masks) :])
    # A push has no pull request: the check runs, nothing is commented.
    assert run.outputs["result"] == "passed" and run.outputs["comment-url"] == ""
    assert world.gh.repos[REPO].comments == {}


def test_drift_under_the_threshold_passes_and_reports(world: World) -> None:
    seed_baseline(world.runner.workspace)
    world.answers["capital"] = "I would rather not say."
    run = world.run(
        "pull_request", load_event("pull_request.opened"), **{"fail-on-severity": "never"}
    )
    assert run.returncode == 0
    assert run.outputs["result"] == "passed"
    assert run.outputs["has-drift"] == "true" and run.outputs["regressions"] == "1"
    assert "drift" in world.bot_comments()[0]["body"]


def test_no_baseline_comment_says_how_to_promote(world: World) -> None:
    run = world.run("pull_request", load_event("pull_request.opened"))
    assert run.returncode == 0
    assert run.outputs["result"] == "no-baseline"
    assert run.outputs["overall-score"] == "1.0000" and run.outputs["severity"] == ""
    body = world.bot_comments()[0]["body"]
    assert body.startswith("<!-- promptcanary: suite=support-bot")
    assert "no baseline yet" in body and "promptcanary:promote" in body
    assert "no baseline yet" in run.summary
    assert run.outputs["json-path"].endswith(".run.json")


def test_replayed_run_needs_no_key_and_calls_no_model(world: World) -> None:
    seed_baseline(world.runner.workspace)
    baseline = next((world.runner.workspace / "baselines").glob("*.json"))
    world.runner.provider_env.clear()  # no key at all
    run = world.runner.run_in_process(
        main,
        main_kwargs={"github_factory": world.github, "make_provider": world.provider},
        event_name="push",
        event=load_event("push"),
        inputs={"replay": f"baselines/{baseline.name}"},  # a baseline file is a saved run too
    )
    assert run.returncode == 0, run.stdout
    assert run.outputs["result"] == "passed" and run.outputs["severity"] == "none", run.summary[
        :3000
    ]
    assert world.llm.requests == []


def test_model_output_cannot_become_a_command_a_mention_or_html(world: World) -> None:
    seed_baseline(world.runner.workspace)
    world.answers["capital"] = (
        "::set-output name=result::passed\n::add-mask::x\n@octo-org/security please look at #1 "
        "<script>alert(1)</script> <details><summary>x"
    )
    run = world.run("pull_request", load_event("pull_request.opened"))
    assert run.returncode == 1
    commands = {
        line.split("::")[1].split(" ")[0]
        for line in run.stdout.splitlines()
        if line.startswith("::")
    }
    assert commands <= {"add-mask", "stop-commands", "warning", "notice", "error"} | {
        line.strip(":")
        for line in run.stdout.splitlines()
        if re.fullmatch(r"::[0-9a-f]{32}::", line)
    }
    assert run.outputs["result"] == "failed"  # a printed set-output could not override it
    body = world.bot_comments()[0]["body"]
    for text in (body, run.summary):
        assert "@octo-org/security" in text  # shown, but only inside code fences:
        prose = outside_fences(text)
        assert "@octo-org/security" not in prose and "<script>" not in prose
        assert not re.search(r"(?m)^\s*::set-output", text)


def outside_fences(markdown: str) -> str:
    """The Markdown with every fenced code block removed (GitHub renders those inert)."""
    out, fence = [], None
    for line in markdown.split("\n"):
        m = re.match(r"^(`{3,})", line)
        if fence is None and m:
            fence = m.group(1)
        elif fence is not None and line.strip() == fence:
            fence = None
        elif fence is None:
            out.append(line)
    return "\n".join(out)


def test_huge_report_is_cut_under_github_limits(world: World) -> None:
    prompts = [
        CanaryPrompt(id=f"p{i:03d}", text=f"Question {i}?", expected_keywords=["alpha"])
        for i in range(400)
    ]
    yaml_lines = ["name: huge", "probes:", "  - type: expected_keywords", "prompts:"]
    yaml_lines += [
        f"  - id: {p.id}\n    text: '{p.text}'\n    expected_keywords: [alpha]" for p in prompts
    ]
    (world.runner.workspace / "canary.yaml").write_text("\n".join(yaml_lines) + "\n")

    def long(content: str) -> ScriptedProvider:
        return ScriptedProvider(lambda request: content + " " + "é" * 10_000, model=MODEL)

    from promptcanary.storage.file import FileBaselineStore

    suite = CanarySuite.from_yaml(world.runner.workspace / "canary.yaml")
    FileBaselineStore(world.runner.workspace / "baselines").save(
        suite.run(long("alpha"), show_progress=False)
    )
    run = world.runner.run_in_process(
        main,
        main_kwargs={
            "github_factory": world.github,
            "make_provider": lambda model, config: long("beta"),
        },
        event_name="pull_request",
        event=load_event("pull_request.opened"),
        # One sample on both sides, like the baseline above: the threshold rule flags every pair.
        inputs={"provider": MODEL, "samples": "1"},
    )
    assert run.returncode == 1
    assert run.outputs["regressions"] == "400"
    body = world.bot_comments()[0]["body"]
    assert 10_000 < len(body) <= 65_536
    assert len(run.summary.encode("utf-8")) <= 1024 * 1024
    full = Path(run.outputs["report-path"]).read_text(encoding="utf-8")
    assert len(full) > len(body)


def test_github_5xx_after_retries_warns_and_keeps_the_gate(world: World) -> None:
    seed_baseline(world.runner.workspace)
    world.answers["capital"] = "No idea."
    world.retries = 1
    world.gh.fail("POST", r"/issues/2/comments$", 502)
    run = world.run("pull_request", load_event("pull_request.opened"))
    assert run.returncode == 1 and run.outputs["result"] == "failed"
    assert any("HTTP 502 after retries" in w for w in run.commands("warning"))
    assert world.gh.count("POST", r"/issues/2/comments$") == 2  # the first try and one retry
    assert "CRITICAL drift" in run.summary


def test_refused_credentials_are_inconclusive_and_never_promoted(world: World) -> None:
    seed_baseline(world.runner.workspace)
    world.answers["status"] = 401
    event = load_event("pull_request.labeled")
    event["label"]["name"] = "promptcanary:promote"
    run = world.run("pull_request", event, **{"fail-on-inconclusive": "true"})
    assert run.returncode == 3
    assert run.outputs["result"] == "inconclusive"
    assert world.gh.repos[REPO].commits == []
    assert "Not promoted" in world.bot_comments()[0]["body"]


def test_other_labels_are_ignored(world: World) -> None:
    run = world.run("pull_request", load_event("pull_request.labeled"))  # label "bug"
    assert run.returncode == 0 and run.outputs["result"] == "skipped"
    assert world.llm.requests == [] and world.bot_comments() == []


def test_dispatch_in_promote_mode_commits_to_the_dispatched_branch(world: World) -> None:
    world.gh.set_head(REPO, "master", HEAD_SHA)  # GITHUB_SHA: the commit the run measured
    run = world.runner.run_in_process(
        main,
        main_kwargs={"github_factory": world.github, "make_provider": world.provider},
        event_name="workflow_dispatch",
        event=load_event("workflow_dispatch"),
        # 3 samples a prompt (12 requests, not 120): the branch committed to is the subject.
        inputs={"provider": MODEL, "mode": "promote", "baseline-samples": "3"},
        ref="refs/heads/master",
    )
    assert run.returncode == 0, run.stdout
    assert run.outputs["result"] == "promoted"
    commits = world.gh.repos[REPO].commits
    assert len(commits) == 1 and commits[0]["branch"] == "master"
    assert "first baseline" in run.summary


def test_the_check_a_promotion_dispatched_updates_the_pull_requests_comment(world: World) -> None:
    # After a promotion the Action dispatches the check on the PR's branch: that run's event has
    # no pull request, so the Action finds the branch's open pull request and comments there.
    seed_baseline(world.runner.workspace)
    first = world.run("pull_request", load_event("pull_request.opened"))
    assert first.returncode == 0 and len(world.bot_comments()) == 1
    dispatched = world.runner.run_in_process(
        main,
        main_kwargs={"github_factory": world.github, "make_provider": world.provider},
        event_name="workflow_dispatch",
        event=load_event("workflow_dispatch"),
        inputs={"provider": MODEL},
        ref="refs/heads/changes",
    )
    assert dispatched.returncode == 0, dispatched.stdout
    assert dispatched.outputs["result"] == "passed" and dispatched.outputs["comment-url"]
    assert len(world.bot_comments()) == 1  # the same sticky comment, edited
