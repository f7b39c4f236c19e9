"""What to do next: how to accept a change, shown only when something changed, beside what to do
when it is unwanted."""

from __future__ import annotations

from promptcanary.core.models import Attribution, DriftReport
from promptcanary.core.render.context import build_report_view
from promptcanary.core.reporter import DriftReporter
from tests.unit.core.render.samples import comparison, drift_report, plain_console

HINT = "run `promptcanary run -c my-suite/canary.yaml --save-baseline` and commit the files"


def terminal(report: DriftReport) -> str:
    console = plain_console(100)
    DriftReporter(report, accept_hint=HINT).print_terminal(console)
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_no_change_offers_nothing_to_accept_or_undo() -> None:
    stable = [comparison(1, kind="stable", baseline=1.0, current=1.0)]
    out = terminal(drift_report(stable, changed_model=False))
    assert "No drift" in out
    assert "To accept" not in out and "unwanted" not in out
    md = DriftReporter(drift_report(stable, changed_model=False), accept_hint=HINT).to_markdown()
    assert "To accept" not in md and "unwanted" not in md


def test_an_improvement_alone_is_named_in_the_headline_beside_the_hint() -> None:
    better = [comparison(1, kind="improvement", baseline=0.2, current=1.0)]
    view = build_report_view(drift_report(better, changed_model=False), accept_hint=HINT)
    assert view.headline.startswith("No drift") and ", 1 improvement" in view.headline
    assert view.offer_accept
    # An improvement is not a change anyone undoes.
    assert view.unwanted_hint == ""


def test_a_regression_says_how_to_accept_it_as_a_command_to_paste_and_how_to_undo_it() -> None:
    out = terminal(drift_report())
    lines = out.splitlines()
    assert (
        "To accept this change as the new baseline, run promptcanary run -c "
        "my-suite/canary.yaml --save-baseline and commit the files." in lines
    )
    unwanted = " ".join(out[out.index("If the change is unwanted") :].split())
    assert "(openai/gpt-4o-mini-2024-07-18)" in unwanted  # the model the baseline had
    assert "change the prompt" in unwanted
    md = DriftReporter(drift_report(), accept_hint=HINT).to_markdown()
    assert (
        "pin the dated model the baseline was answered by (`openai/gpt-4o-mini-2024-07-18`)" in md
    )
    html = DriftReporter(drift_report(), accept_hint=HINT).to_html()
    assert "<code>openai/gpt-4o-mini-2024-07-18</code>" in html


def test_without_a_known_served_model_the_advice_stays_general() -> None:
    report = drift_report().model_copy(update={"attribution": Attribution(who_changed="model")})
    view = build_report_view(report, accept_hint=HINT)
    assert view.unwanted_hint.startswith("pin a dated model version as the suite's model")


def test_an_inconclusive_run_offers_neither() -> None:
    view = build_report_view(drift_report(error_rate=0.9), accept_hint=HINT)
    assert view.inconclusive and not view.offer_accept and view.unwanted_hint == ""


def nothing_compared(*, suite_changed: bool = True) -> DriftReport:
    """A report with no pair on both sides: every prompt renamed, or an empty baseline."""
    from promptcanary.core.models import SuiteChange

    changes = (
        [
            SuiteChange(kind="added", what="prompt", prompt_id="new-1", text="New?", pairs=1),
            SuiteChange(kind="removed", what="prompt", prompt_id="old-1", text="Old?", pairs=1),
        ]
        if suite_changed
        else []
    )
    return drift_report([], changed_model=False).model_copy(update={"suite_changes": changes})


def test_nothing_compared_says_so_and_how_to_record_a_baseline_in_every_format() -> None:
    report = nothing_compared()
    assert report.is_inconclusive and report.nothing_compared and report.verdict == "inconclusive"
    advice = f"To record a baseline of the suite as it is now, {HINT}."
    view = build_report_view(report, accept_hint=HINT)
    assert view.headline == "Inconclusive: nothing compared, suite changed"
    assert view.inconclusive_note == advice and not view.offer_accept
    assert (view.baseline_score, view.current_score) == ("–", "–")  # no average of no pair
    out = " ".join(terminal(report).replace("│", " ").split())
    assert "Inconclusive: nothing compared, suite changed" in out and "No drift" not in out
    assert advice.replace("`", "") in out and "1.00 → 1.00" not in out
    md = DriftReporter(report, accept_hint=HINT).to_markdown()
    assert "PromptCanary: Inconclusive: nothing compared, suite changed" in md
    assert advice in md and "### Suite changes (2) — not compared" in md
    html = DriftReporter(report, accept_hint=HINT).to_html()
    assert "Inconclusive: nothing compared, suite changed</h1>" in html
    assert "<code>promptcanary run -c my-suite/canary.yaml --save-baseline</code>" in html
    junit = DriftReporter(report).to_junit()
    assert '<testcase name="nothing compared" classname="checkout-agent.probes"' in junit
    assert 'tests="1" failures="0" errors="0" skipped="1"' in junit
    assert '<skipped message="❔ Inconclusive: nothing compared' in junit
    import json

    data = json.loads(DriftReporter(report).to_json())
    assert data["nothing_compared"] is True and data["verdict"] == "inconclusive"
    assert data["summary"].startswith("❔ Inconclusive: nothing compared")
    assert "the suite changed: prompts 1 added, 1 removed" in data["summary"]


def test_an_empty_baseline_compares_nothing_and_says_the_baseline_holds_nothing() -> None:
    report = nothing_compared(suite_changed=False)
    assert report.is_inconclusive
    assert build_report_view(report).headline == "Inconclusive: nothing compared"
    assert "the baseline holds no result of this suite to compare with" in report.summary


def test_a_run_that_errored_is_still_unmeasured_not_nothing_compared() -> None:
    # Too many errors is the older, stronger reason: the words stay those of a failed run.
    report = nothing_compared().model_copy(update={"error_rate": 0.9})
    assert report.is_inconclusive and not report.nothing_compared
    assert "could not be measured" in build_report_view(report).headline
