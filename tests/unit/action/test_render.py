"""The Action's own Markdown: markers, size caps, and the promotion body and the emptied gate's
failure against golden files."""

from __future__ import annotations

from datetime import datetime, timezone

from promptcanary.action import render
from promptcanary.core.models import (
    BaselineSnapshot,
    CanaryPrompt,
    CanaryRunResult,
    LLMResponse,
    ProbeCategory,
    ProbeResult,
    ProviderConfig,
)
from tests.unit.core.render.samples import assert_golden

WHERE = render.Where(
    run_url="https://github.test/o/r/actions/runs/7", promote_label="promptcanary:promote"
)


def snapshot(suite: str = "support-bot", model: str = "openai/fake") -> BaselineSnapshot:
    when = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    provider = ProviderConfig(model_id=model)
    run = CanaryRunResult(
        run_id="run-1",
        suite_name=suite,
        provider=provider,
        started_at=when,
        finished_at=when,
        prompts=[CanaryPrompt(id="p1", text="hi")],
        llm_responses=[LLMResponse(prompt_id="p1", provider_model_id=model, content="hello")],
        probe_results=[
            ProbeResult(
                probe_id="k",
                probe_name="K",
                category=ProbeCategory.FORMAT,
                prompt_id="p1",
                passed=True,
                score=1.0,
            )
        ],
    )
    return BaselineSnapshot(
        snapshot_id="0123abcd-0000-0000-0000-000000000000",
        suite_name=suite,
        provider=provider,
        run_result=run,
        created_at=when,
    )


def test_promoted_first_baseline_matches_the_golden_file() -> None:
    body = render.promoted_markdown(
        snapshot=snapshot(),
        baseline_path="baselines/support-bot__openai-fake__20260102T030405000000Z_0123abcd.json",
        commit_url="https://github.test/o/r/commit/abc123",
        branch="feature/x",
        previous=None,
        change=None,
        committed=True,
        where=WHERE,
        check_note=render.check_started_note("promptcanary-pr.yml", "feature/x"),
        check_run="PromptCanary: support-bot (openai/fake)",
        needs_person=render.needs_person_note(default_token=True),
        with_files=["baselines/support-bot__openai-fake.summary.md", "baselines/.gitattributes"],
    )
    assert_golden("action_promoted.md", body)


def test_a_failed_commit_says_so_instead_of_claiming_success() -> None:
    body = render.promoted_markdown(
        snapshot=snapshot(),
        baseline_path="baselines/x.json",
        commit_url=None,
        branch="b",
        previous=snapshot(),
        change=None,
        change_summary="No drift.",
        committed=False,
        where=WHERE,
    )
    assert "committing it to `b` failed**" in body and "committed to" not in body
    assert "promotion failed" in body.splitlines()[1]
    assert "remove and re-add the label" in body
    assert "Changes against the previous baseline" in body


def test_no_promotion_text_tells_anyone_to_re_run_the_check() -> None:
    # A re-run reuses the old SHA and a commit made with GITHUB_TOKEN starts no workflow: the
    # advice "re-run the check" could never work.
    bodies = [
        render.promoted_markdown(
            snapshot=snapshot(),
            baseline_path="b.json",
            commit_url=None,
            branch="b",
            previous=None,
            change=None,
            committed=committed,
            where=WHERE,
            check_note=note,
            branch_moved=moved,
        )
        for committed, moved, note in (
            (True, False, render.check_started_note("w.yml", "b")),
            (True, False, render.check_not_started_note("the token may not start workflows.")),
            (False, True, None),
            (False, False, None),
        )
    ]
    for body in bodies:
        assert "re-run" not in body.lower().replace("re-add", "")
    assert "Started the check workflow `w.yml` on `b`" in bodies[0]
    assert "close and reopen the pull request" in bodies[1]
    assert "moved since the label was added" in bodies[2] and "nothing was committed" in bodies[2]


def test_hostile_suite_and_model_names_stay_inert() -> None:
    body = render.promoted_markdown(
        snapshot=snapshot(suite="x` @team <img src=x> #1 -->", model="m\n::error::x"),
        baseline_path="b.json",
        commit_url="javascript:alert(1)",
        branch="b",
        previous=None,
        change=None,
        committed=True,
        where=WHERE,
    )
    marker, rest = body.split("\n", 1)
    assert marker.startswith("<!-- promptcanary: ") and marker.count("-->") == 1
    assert "javascript:" not in body  # not a link target
    assert "\n::error::" not in body
    for line in rest.splitlines():
        # Untrusted names only appear inside code spans.
        if "@team" in line:
            assert "``x` @team <img src=x> #1 -->``" in line


def test_fit_body_cuts_to_the_limit_and_closes_open_blocks() -> None:
    body = "<!-- m -->\n<details><summary>s</summary>\n\n```text\n" + "x\n" * 50_000
    fitted = render.fit_body(body, WHERE)
    assert len(fitted) <= render.GITHUB_BODY_LIMIT
    assert fitted.startswith("<!-- m -->")
    assert fitted.count("```") % 2 == 0 and fitted.count("</details>") == 1
    assert "Cut to fit GitHub's 65,536-character limit" in fitted
    assert "[workflow run](https://github.test/o/r/actions/runs/7)" in fitted
    assert render.fit_body("short", WHERE) == "short"


def test_markers_are_per_suite_and_model_and_added_once() -> None:
    a = render.comment_marker("s", "openai/gpt-4o")
    assert a != render.comment_marker("s", "openai/gpt-4o-mini")
    assert a != render.watch_marker("s", "openai/gpt-4o")
    assert render.with_marker(a, f"{a}\nbody") == f"{a}\nbody"
    assert render.with_marker(a, "body") == f"{a}\nbody"


def test_skipped_markdown_has_no_marker_unless_asked() -> None:
    assert render.skipped_markdown("why", WHERE).startswith("## 🐤 PromptCanary: skipped")
    assert render.skipped_markdown("why", WHERE, marker="<!-- m -->").startswith("<!-- m -->\n")


def test_the_check_run_summary_fits_githubs_limit_without_the_marker() -> None:
    from promptcanary.action import checks

    marker = "<!-- promptcanary: suite=s, model=m -->"
    summary = checks.summary_for(f"{marker}\n" + "x" * 200_000, marker)
    assert len(summary) <= checks.SUMMARY_LIMIT and not summary.startswith("<!--")
    assert "Cut to fit" in summary
    assert checks.conclusion_for("passed", 0) == "success"
    assert checks.conclusion_for("no-baseline", 0) == "neutral"
    assert checks.conclusion_for("skipped", 3) == "failure"


def test_a_removed_baseline_matches_the_golden_file() -> None:
    from promptcanary.action.guards import emptied_gate

    decision = emptied_gate(
        head_has_baseline=False,
        base_ref="main",
        base_baselines=["support-bot__openai-fake__20260102T030405000000Z_0123abcd.json"],
        baseline_folder="baselines",
        allowed=False,
    )
    marker = render.comment_marker("support-bot", "openai/fake")
    body = render.baseline_removed_markdown(decision.reason, WHERE, marker=marker)
    assert body.startswith(marker + "\n")
    assert_golden("action_baseline_removed.md", body)
