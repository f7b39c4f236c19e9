"""core/reporter.py's FORMATS: the one table of report formats, and both reporters through it."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptcanary.core.models import ReportFormat
from promptcanary.core.reporter import (
    FORMATS,
    DriftReporter,
    RunReporter,
    report_format,
)
from tests.unit.core.render.samples import drift_report, plain_console, run_result


def test_every_report_format_is_in_the_table_once_with_its_suffix() -> None:
    assert list(FORMATS) == list(ReportFormat)
    assert {f.name.value: f.suffix for f in FORMATS.values()} == {
        "terminal": ".txt",
        "markdown": ".md",
        "html": ".html",
        "json": ".json",
        "junit": ".xml",
    }
    # Only the HTML report draws the stored baselines (its trend chart).
    assert [f.name for f in FORMATS.values() if f.uses_history] == [ReportFormat.HTML]


def test_names_and_aliases_are_found_whatever_their_case() -> None:
    assert report_format("MD") is FORMATS[ReportFormat.MARKDOWN]
    assert report_format("Html") is FORMATS[ReportFormat.HTML]
    assert report_format(ReportFormat.JSON) is FORMATS[ReportFormat.JSON]
    assert report_format("XML") is FORMATS[ReportFormat.JUNIT]
    with pytest.raises(
        ValueError, match=r"must be one of terminal, markdown, html, json, junit \(got 'pdf'\)"
    ):
        report_format("pdf")


@pytest.mark.parametrize(
    "reporter",
    [DriftReporter(drift_report()), RunReporter(run_result())],
    ids=["drift", "run"],
)
def test_each_format_renders_and_writes_what_the_reporter_methods_give(
    reporter: DriftReporter | RunReporter, tmp_path: Path
) -> None:
    expected = {
        ReportFormat.MARKDOWN: reporter.to_markdown(),
        ReportFormat.HTML: reporter.to_html(),
        ReportFormat.JSON: reporter.to_json(),
        ReportFormat.JUNIT: reporter.to_junit(),
    }
    console = plain_console(100)
    reporter.print_terminal(console)
    expected[ReportFormat.TERMINAL] = console.file.getvalue()  # type: ignore[attr-defined]
    for fmt, text in expected.items():
        assert text and reporter.render(fmt) == text, fmt
        path = tmp_path / f"report{FORMATS[fmt].suffix}"
        assert reporter.write(fmt, path) == text
        assert path.read_text(encoding="utf-8") == text
    short = reporter.render("markdown", budget=2_000)
    assert len(short) <= 2_000 and short == reporter.to_markdown(budget=2_000)
