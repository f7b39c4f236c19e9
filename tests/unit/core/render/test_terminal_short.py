"""A large drift report in the terminal: regressions grouped by probe and cause, the behaviour
changes no regression explains (core/render/groups.py, terminal.py); --verbose lists all."""

from __future__ import annotations

from promptcanary.core.models import DriftReport, ProbeComparison
from promptcanary.core.render.context import build_report_view
from promptcanary.core.render.groups import group_regressions, unexplained_behaviour
from promptcanary.core.reporter import DriftReporter
from tests.unit.core.render.samples import (
    assert_golden,
    behaviour_change,
    comparison,
    drift_report,
    plain_console,
)


def regression(n: int, probe: str, reason: str, *, current: float = 0.0) -> ProbeComparison:
    return comparison(n, baseline=1.0, current=current, samples=10, method="fisher").model_copy(
        update={"probe_id": probe, "probe_name": probe.title(), "current_details": reason}
    )


def large_report() -> DriftReport:
    """14 regressions of two probes (the first for two reasons), 8 prompts whose answers changed
    (4 of them among the regressed prompts)."""
    pairs = [regression(n, "refusal", "refused: I can't help with that") for n in range(1, 10)]
    pairs += [regression(n, "refusal", "refused: As an AI") for n in (10, 11)]
    pairs += [regression(n, "json_validity", "not valid JSON", current=0.4) for n in (12, 13, 14)]
    pairs += [comparison(15, kind="stable", baseline=1.0, current=1.0, samples=10)]
    changes = [behaviour_change(i) for i in range(1, 9)]
    changes = [
        c.model_copy(update={"prompt_id": f"p{n:04d}"})
        for c, n in zip(changes, (1, 2, 12, 13, 15, 16, 17, 18), strict=True)
    ]
    report = drift_report(pairs, samples=10)
    return report.model_copy(update={"behaviour_changes": changes, "behaviour_tested": 15})


def render(report: DriftReport, width: int = 100, *, verbose: bool = False) -> str:
    console = plain_console(width)
    DriftReporter(report).print_terminal(console, verbose=verbose)
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_regressions_are_grouped_by_probe_then_cause() -> None:
    view = build_report_view(large_report())
    groups = group_regressions(view.regressions)
    assert [g.worst.probe_id for g in groups] == ["refusal", "json_validity"]
    refusal, json_validity = groups
    assert [(c.reason, len(c.pairs)) for c in refusal.causes] == [
        ("refused: I can't help with that", 9),
        ("refused: As an AI", 2),
    ]
    assert refusal.same_scores and len(refusal.pairs) == 11
    assert [len(c.pairs) for c in json_validity.causes] == [3]


def test_behaviour_a_regression_explains_is_told_by_the_probe() -> None:
    view = build_report_view(large_report())
    rest = unexplained_behaviour(view)
    assert [bv.prompt_id for bv, _ in rest] == ["p0015", "p0016", "p0017", "p0018"]
    old, new = rest[0][1]
    assert old == "The capital of France is Paris."
    assert new.startswith("Sure! Great question. The capital of France is Paris.")


def test_the_golden_shortened_report() -> None:
    out = render(large_report())
    assert_golden("terminal_grouped_100.txt", out)
    assert len(out.splitlines()) < 50  # 14 regressions and 8 changes; --verbose: 100 lines
    flat = " ".join(out.split())
    assert "11 prompts" in flat and "9 × refused: I can't help with that" in flat
    assert "answers changed too on 2 of these 11 prompts" in flat
    assert "4 where no probe regressed, 2 shown" in flat
    assert "… and 2 more where no probe regressed" in flat
    assert "--verbose" in flat


def test_verbose_and_small_reports_list_every_pair() -> None:
    full = render(large_report(), verbose=True)
    assert "Regressions (14, worst first)" in full
    assert all(f"Return the user {n} as JSON" in full for n in range(1, 15))
    assert len(full.splitlines()) > 100
    assert "Shortened" not in full
    small = render(drift_report())
    assert "Shortened" not in small and "by cause" not in small


def test_the_summary_of_a_drift_also_says_the_answers_changed() -> None:
    report = large_report()
    assert report.has_drift and report.behaviour_changes
    n = len(report.behaviour_changes)
    assert f"Answers changed on {n} prompt(s) as well." in report.summary
