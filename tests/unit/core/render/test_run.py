"""Reports for a run with no baseline (the `report` command, the Action's first comment)."""

from __future__ import annotations

import pytest

from promptcanary.core.reporter import (
    RunReporter,
    run_to_html,
    run_to_markdown,
)
from tests.unit.core.render.samples import HOSTILE, assert_golden, run_result


def test_golden_no_baseline_markdown() -> None:
    assert_golden("run_no_baseline.md", run_to_markdown(run_result()))


def test_no_baseline_markdown_says_how_to_promote() -> None:
    md = run_to_markdown(run_result(), accept_hint="add the label `canary:accept` to this PR")
    assert "no baseline yet" in md
    assert "To make this run the baseline, add the label `canary:accept` to this PR." in md
    default = run_to_markdown(run_result())
    assert "--save-baseline" in default and "pull request" not in default.lower()


def test_failing_pairs_errors_and_usage() -> None:
    md = run_to_markdown(run_result(failing=(0, 1), error=2, response="not json"))
    assert "### Failing pairs (2, worst first)" in md
    assert "`HTTP 500 from provider`" in md
    assert "**Usage:** tokens 60" in md


@pytest.mark.parametrize("budget", [1_000, 5_000, 65_000])
def test_run_markdown_budget(budget: int) -> None:
    run = run_result(n_prompts=400, failing=tuple(range(400)), response=HOSTILE * 20)
    md = run_to_markdown(run, budget=budget, marker="<!-- promptcanary: x -->")
    assert len(md) <= budget
    assert md.startswith("<!-- promptcanary: x -->")
    if budget > 1_000:
        assert "Shortened to fit" in md


def test_run_reporter_interface(tmp_path) -> None:
    reporter = RunReporter(run_result())
    md = reporter.to_markdown(tmp_path / "run.md")
    assert (tmp_path / "run.md").read_text(encoding="utf-8") == md
    assert "run of" in md  # the report command does not claim there is no baseline
    html = reporter.to_html(tmp_path / "run.html")
    assert html.startswith("<!DOCTYPE html>") and "Failing pairs (1)" in html
    assert reporter.to_json(tmp_path / "run.json").startswith("{")


def test_run_html_is_escaped() -> None:
    html = run_to_html(run_result(response=HOSTILE))
    assert "<script>document" not in html and "&lt;script&gt;document" in html


def test_a_misspelt_placement_keyword_is_refused() -> None:
    with pytest.raises(TypeError, match="'acept_hint'"):
        run_to_markdown(run_result(), acept_hint="x")  # type: ignore[call-arg]
