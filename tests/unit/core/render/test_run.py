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


def test_a_cost_is_unknown_for_want_of_a_price_or_for_want_of_tokens_and_says_which() -> None:
    """Recorded answers (the README's try-it) carry no token counts: no price would help, so
    telling the user to set one would send them the wrong way."""
    from promptcanary.core.models import ProviderConfig, UsageSummary
    from promptcanary.core.render.fmt import provider_notes

    model = ProviderConfig(model_id="openai/gpt-4")
    counted = UsageSummary(requests=3, prompt_tokens=30, completion_tokens=12, total_tokens=42)
    uncounted = UsageSummary(requests=3)
    assert provider_notes(model, counted) == [
        "no price known for openai/gpt-4 (set price: in canary.yaml)"
    ]
    assert provider_notes(model, uncounted) == [
        "cost unknown: the answers came without token counts"
    ]
    priced = counted.model_copy(update={"cost_usd": 0.01})
    assert provider_notes(model, priced) == []
    assert provider_notes(model, UsageSummary(requests=2, errors=2)) == []
