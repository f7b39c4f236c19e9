"""A behaviour finding the watch re-tested on fresh answers, as every format shows it: a withdrawn
finding reads as withdrawn (never "behaviour change, severity low") and is no failing JUnit case;
a confirmed one says what confirmed it."""

from __future__ import annotations

from junitparser import Failure, JUnitXml

from promptcanary.core.models import DriftReport, Retest, UsageSummary
from promptcanary.core.reporter import DriftReporter
from tests.unit.core.render.samples import behaviour_report, plain_console

SPENT = UsageSummary(requests=30)


def _retested(**fields: object) -> DriftReport:
    return behaviour_report().model_copy(
        update={"retest": Retest(usage=SPENT, **fields)}  # type: ignore[arg-type]
    )


WITHDRAWN = {"not_confirmed": ["prompt-1", "prompt-2"], "suite_confirmed": False}
CONFIRMED = {"confirmed": ["prompt-1"], "not_confirmed": ["prompt-2"], "suite_confirmed": True}


def _terminal(report: DriftReport) -> str:
    console = plain_console(120)
    DriftReporter(report).print_terminal(console)
    out: str = console.file.getvalue()  # type: ignore[attr-defined]
    return out


def _failing(report: DriftReport) -> set[str]:
    return {
        case.name
        for suite in JUnitXml.fromstring(DriftReporter(report).to_junit())
        for case in suite
        if any(isinstance(r, Failure) for r in case.result)
    }


def test_a_withdrawn_finding_is_no_failing_junit_case() -> None:
    assert _failing(behaviour_report()) == {
        "answers of prompt-1",
        "answers of prompt-2",
        "answers across the suite",
    }
    assert _failing(_retested(**WITHDRAWN)) == set()
    text = DriftReporter(_retested(**WITHDRAWN)).to_junit()
    assert "not confirmed on fresh answers (the first flag was noise)" in text
    assert "not confirmed on fresh answers (the watch" in text  # the suite-level case
    # A confirmed prompt and the confirmed suite-level test still fail; the other prompt passes.
    assert _failing(_retested(**CONFIRMED)) == {"answers of prompt-1", "answers across the suite"}


def test_a_withdrawn_finding_reads_as_withdrawn_in_the_terminal_and_markdown() -> None:
    before = _terminal(behaviour_report())
    assert "not confirmed" not in before
    out = _terminal(_retested(**WITHDRAWN))
    first = out.strip().splitlines()[0]
    assert "not confirmed on fresh answers" in first
    assert "not confirmed on fresh answers" in out.split("Behaviour changes", 1)[1].splitlines()[0]
    assert "re-tested on 30 fresh answers" in out and "not confirmed as a model change" in out
    md = DriftReporter(_retested(**WITHDRAWN)).to_markdown()
    assert "(not confirmed on fresh answers)" in md.splitlines()[0] + md.splitlines()[1]
    assert "did not confirm them as a model change" in md
    assert "severity low: `--fail-on-severity low`" not in md
    assert DriftReporter(_retested(**WITHDRAWN)).to_html().count("the first flag was noise") >= 2


def test_a_confirmed_finding_says_so_beside_its_evidence() -> None:
    out = _terminal(_retested(**CONFIRMED))
    assert "re-test: confirmed on fresh answers" in out
    assert (
        "the finding stands" in out and "not confirmed on fresh answers)" not in out.splitlines()[0]
    )
    md = DriftReporter(_retested(**CONFIRMED)).to_markdown()
    assert "severity low: `--fail-on-severity low`" in md
