"""Markdown drift report: golden files, content, and the size budget at its edges."""

from __future__ import annotations

import re

import pytest

from promptcanary.core.models import ProbeComparison, SuiteChange
from promptcanary.core.render.budget import MIN_BUDGET
from promptcanary.core.reporter import DriftReporter
from tests.unit.core.render.samples import (
    adaptive_report,
    assert_golden,
    comparison,
    drift_report,
    sampled_report,
)


def test_golden_mixed_report() -> None:
    assert_golden("drift_mixed.md", DriftReporter(drift_report()).to_markdown())


def test_golden_sampled_report() -> None:
    reporter = DriftReporter(
        sampled_report(), run_url="https://github.com/acme/shop/actions/runs/42"
    )
    assert_golden("drift_sampled.md", reporter.to_markdown())


def test_golden_adaptive_report() -> None:
    md = DriftReporter(adaptive_report()).to_markdown()
    assert_golden("drift_adaptive.md", md)
    assert "baseline 27/30 → screening 1/3 → confirmation 9/30, p = 0.003 (adjusted)" in md
    assert "1 pair looked different" not in md and "2 pairs looked different" in md
    assert "costing 40 extra requests" in md and "re-record" not in md


def test_adaptive_report_on_a_thin_baseline_suggests_a_richer_one() -> None:
    md = DriftReporter(adaptive_report(baseline_samples=5)).to_markdown()
    assert "The baseline has 5 samples per prompt" in md and "single-sample" not in md
    assert "caught 11% of the time with it, 81% with a baseline of 30" in md


def test_golden_inconclusive_report() -> None:
    report = drift_report(error_rate=0.35, changed_model=False)
    assert_golden("drift_inconclusive.md", DriftReporter(report).to_markdown())


def test_a_marker_given_is_the_first_line_and_none_is_added_by_default() -> None:
    marker = "<!-- promptcanary: suite=shop, model=openai/gpt-4o -->"
    md = DriftReporter(drift_report(suite="shop", model="openai/gpt-4o"), marker=marker)
    assert md.to_markdown().split("\n", 1)[0] == marker
    plain = DriftReporter(drift_report(suite="shop", model="openai/gpt-4o")).to_markdown()
    assert plain.startswith("## ") and "<!--" not in plain.split("\n", 1)[0]


def test_without_a_hint_the_report_speaks_of_no_pull_request_or_label() -> None:
    md = DriftReporter(drift_report()).to_markdown().lower()
    assert "pull request" not in md and "label" not in md
    assert "to accept this change as the new baseline, run `promptcanary run --save-baseline`" in md


def test_regressions_come_first_worst_first_with_details() -> None:
    comps = [
        comparison(1, baseline=1.0, current=0.8),
        comparison(2, baseline=1.0, current=0.0),
        comparison(3, kind="improvement", baseline=0.0, current=1.0),
    ]
    md = DriftReporter(drift_report(comps)).to_markdown()
    assert md.index("### Regressions") < md.index("Improvements (1)")
    rows = re.findall(r"^\| (\d) \| .*\| (−\d\.\d\d) \|", md, flags=re.M)
    assert rows[:2] == [("1", "−1.00"), ("2", "−0.20")]
    assert md.count("<details><summary>") == 3  # two regressions + the improvements block
    assert "**Diff** (baseline → current)" in md
    assert "```diff" in md


def test_usage_compares_per_request_and_says_how_many_requests_each_side_made() -> None:
    # Issue 21: a 30-sample baseline (90 requests) against a check (49 requests) with the same
    # tokens and price per request read "tokens 2,700 → 1,470 (−46%)"; per request nothing moved.
    md = DriftReporter(adaptive_report()).to_markdown()
    (line,) = [x for x in md.splitlines() if x.startswith("**Usage**")]
    assert "tokens/request 30.0 → 30.0 ·" in line
    assert "cost/request $0.000900 → $0.000900 ·" in line
    assert "requests 90 → 49 ·" in line and "−" not in line.split("requests")[1]


def test_counts_usage_thresholds_footer_and_run_link() -> None:
    md = DriftReporter(
        drift_report(),
        run_url="https://github.com/acme/shop/actions/runs/42",
        accept_hint="add the label `canary:accept` to this pull request",
    ).to_markdown()
    assert "**2 regressions** · **1 improvement** · **2 stable** · **1 inconclusive**" in md
    # Per request (40 requests a side here): 12,000 / 40 = 300 tokens, $0.0123 / 40.
    assert "tokens/request 300 → 338 (+12%)" in md
    assert "latency p95 900 ms → 1,400 ms (+56%)" in md
    assert "cost/request $0.000307 → $0.000353 (+15%)" in md
    assert "requests 40 → 40 ·" in md
    assert "add the label `canary:accept`" in md
    assert "Thresholds: regression Δ ≥ 0.05" in md
    assert "[Workflow run](https://github.com/acme/shop/actions/runs/42)" in md
    assert "Model identity changed" in md and "gpt-4o-mini-2025-01-01" in md


def test_sampled_report_shows_counts_p_values_method_and_flaky() -> None:
    md = DriftReporter(sampled_report()).to_markdown()
    assert "9/10 → 3/10, p = 0.003 (adjusted), Fisher" in md
    assert "Fisher's exact test (pass counts)" in md and "Mann–Whitney U (scores)" in md
    assert "⚠️ flaky" in md
    assert "### Flaky baselines (2)" in md
    assert "baseline passed 6/10 (60%) → current 5/10" in md
    assert "Single-sample verdict" not in md
    assert "α = 0.05 (Benjamini–Hochberg)" in md


def test_single_sample_note_recommends_samples() -> None:
    md = DriftReporter(drift_report()).to_markdown()
    assert "Single-sample verdict" in md and "`samples: auto`" in md
    # ... and the first line of the report already says which rule decided.
    assert "drift (single-sample threshold rule)" in md.split("\n")[0]


def test_tested_verdict_has_no_single_sample_words() -> None:
    md = DriftReporter(sampled_report()).to_markdown()
    assert "single-sample" not in md.split("\n")[1] and "Single-sample verdict" not in md


def test_inconclusive_wording() -> None:
    md = DriftReporter(drift_report(aborted="authentication refused (401)")).to_markdown()
    assert "could not be measured — not evidence of drift" in md
    assert "authentication refused (401)" in md
    assert "CRITICAL drift" not in md.split("\n")[1]


def test_no_drift_report() -> None:
    md = DriftReporter(drift_report([comparison(1, kind="stable")])).to_markdown()
    assert "## ✅ PromptCanary: No drift" in md
    assert "### Regressions" not in md
    assert "**Stable:** 1 pair unchanged" in md


def test_stable_pairs_say_which_still_fail() -> None:
    def stable(i: int, passed: bool) -> ProbeComparison:
        return comparison(i, kind="stable").model_copy(
            update={"baseline_passed": passed, "current_passed": passed}
        )

    md = DriftReporter(drift_report([stable(1, True), stable(2, False)])).to_markdown()
    assert "**Stable:** 2 pairs unchanged: 1 passing on both sides, 1 failing on both sides." in md


# ── Budget ──────────────────────────────────────────────────────────────────────────────────


def _huge(n_regressions: int = 5_000, size: int = 10_000) -> list[ProbeComparison]:
    text = ("The model said something long. " * (size // 30 + 1))[:size]
    other = ("A different answer entirely! " * (size // 28 + 1))[:size]
    comps = [
        comparison(i, baseline=1.0, current=(i % 20) / 40).model_copy(
            update={"prompt_text": text, "baseline_response": other, "current_response": text}
        )
        for i in range(n_regressions)
    ]
    comps += [
        comparison(10_000 + i, kind="improvement", current=1.0, baseline=0.0) for i in range(500)
    ]
    return comps


@pytest.mark.parametrize("budget", [65_000, 1_000_000])
def test_budget_holds_for_5000_regressions_with_10kb_responses(budget: int) -> None:
    report = drift_report(_huge())
    marker = "<!-- promptcanary: suite=s, model=m -->"
    md = DriftReporter(report, report_location="the job summary", marker=marker).to_markdown(
        budget=budget
    )
    assert len(md) <= budget
    assert md.startswith(marker)
    assert "Shortened to fit" in md and "The full report is in the job summary." in md
    assert "regression details" in md
    # Cut from the tail: the worst regression is always there, with its details.
    assert "| 1 | " in md and "<details><summary>1. " in md
    # Everything that was opened is closed again.
    assert md.count("<details>") == md.count("</details>")
    assert len(re.findall(r"^`{3,}\w*$", md, flags=re.M)) % 2 == 0
    assert md.rstrip().endswith("</sub>")


def test_cut_order_diffs_first_then_improvements_then_regressions() -> None:
    report = drift_report(_huge(n_regressions=12, size=3_000))
    reporter = DriftReporter(report)
    full = reporter.to_markdown(budget=10_000_000)
    assert "Shortened" not in full
    assert full.count("```diff") == 12 and "| 10 | " in full
    # Slightly smaller: a diff goes first, improvements and regressions stay.
    md = reporter.to_markdown(budget=len(full) - 1)
    assert len(md) <= len(full) - 1
    assert "diffs" in md and "improvements" not in md.split("left out")[1].split(".")[0]
    assert md.count("```diff") < 12 and "<details><summary>12. " in md
    # No diffs at all leaves room only for fewer improvements, then the regressions' tail.
    no_diffs = len(full) - sum(len(x) for x in re.findall(r"\*\*Diff\*\*.*?```\n\n", full, re.S))
    md = reporter.to_markdown(budget=no_diffs - 3_000)
    assert "```diff" not in md and "improvements" in md.split("left out")[1]
    assert "<details><summary>12. " in md


def test_every_cut_section_is_named_in_the_note() -> None:
    changes = [
        SuiteChange(kind="added", what="prompt", prompt_id=f"p{i}", text="x" * 300)
        for i in range(60)
    ]
    report = drift_report().model_copy(update={"suite_changes": changes})
    md = DriftReporter(report).to_markdown(budget=6_000)
    listed = len(re.findall(r"^- prompt p\d+ added", md, flags=re.M))
    assert "### Suite changes (60)" in md and 0 < listed < 60
    note = md.split("left out")[1].split(". The full report")[0]
    assert f"{60 - listed} suite changes" in note


def test_budget_exactly_the_full_length_cuts_nothing() -> None:
    reporter = DriftReporter(drift_report())
    full = reporter.to_markdown(budget=1_000_000)
    assert reporter.to_markdown(budget=len(full)) == full
    shorter = reporter.to_markdown(budget=len(full) - 1)
    assert len(shorter) <= len(full) - 1 and "Shortened to fit" in shorter


@pytest.mark.parametrize("budget", [MIN_BUDGET, MIN_BUDGET + 1, 1_500, 2_500])
def test_tiny_budgets_are_never_exceeded(budget: int) -> None:
    report = drift_report(_huge(n_regressions=50, size=2_000), suite="s" * 500, model="m" * 500)
    md = DriftReporter(report).to_markdown(budget=budget)
    assert len(md) <= budget
    assert md.startswith("## ")


def test_budget_below_minimum_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1,000 characters"):
        DriftReporter(drift_report()).to_markdown(budget=MIN_BUDGET - 1)


def test_to_markdown_writes_the_file(tmp_path) -> None:
    target = tmp_path / "out" / "drift.md"
    text = DriftReporter(drift_report()).to_markdown(target)
    assert target.read_text(encoding="utf-8") == text


def test_no_accept_hint_when_there_is_nothing_to_accept() -> None:
    quiet = DriftReporter(drift_report([comparison(1, kind="stable")])).to_markdown()
    assert "To accept this change" not in quiet and "Thresholds:" in quiet
    unmeasured = DriftReporter(drift_report(error_rate=0.35)).to_markdown()
    assert "To accept this change" not in unmeasured
    drifted = DriftReporter(drift_report()).to_markdown()
    assert "To accept this change as the new baseline" in drifted
