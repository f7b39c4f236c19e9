"""Terminal drift report: goldens at 100 and 60 columns, no TTY, quiet."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from promptcanary.core.reporter import DriftReporter, print_run_terminal
from tests.unit.core.render.samples import (
    assert_golden,
    drift_report,
    plain_console,
    run_result,
    sampled_report,
)


def _render(report, width: int, **kwargs) -> str:
    console = plain_console(width)
    DriftReporter(report).print_terminal(console, **kwargs)
    return console.file.getvalue()


@pytest.mark.parametrize("width", [100, 60])
def test_golden_terminal(width: int) -> None:
    assert_golden(f"terminal_mixed_{width}.txt", _render(drift_report(), width))


@pytest.mark.parametrize("width", [120, 100])
def test_golden_terminal_sampled(width: int) -> None:
    # 120 columns: a table with an evidence column; 100: stacked blocks.
    assert_golden(f"terminal_sampled_{width}.txt", _render(sampled_report(), width))


@pytest.mark.parametrize("width", [120, 100, 60])
def test_no_line_is_wider_than_the_terminal(width: int) -> None:
    out = _render(sampled_report(), width)
    # But the accept hint: a command to paste, never wrapped (the terminal folds it on screen).
    lines = [line for line in out.splitlines() if not line.startswith("To accept this change")]
    assert max(len(line) for line in lines) <= width
    assert (
        "To accept this change as the new baseline, run promptcanary run --save-baseline and "
        "commit the new baseline file." in out.splitlines()
    )


def test_narrow_terminal_stacks_pairs_instead_of_a_table() -> None:
    out = _render(sampled_report(), 60)
    assert "1. Keyword Presence (format) 0.90 → 0.30 −0.60" in out
    assert "evidence: 9/10 → 3/10, p = 0.003 (adjusted) ·" in out


def test_a_table_whose_rows_would_wrap_past_three_lines_is_printed_as_blocks() -> None:
    """120 columns is every CI log's width: an adaptive pair's evidence (baseline → screening →
    confirmation, p) in a table column there broke into a word a line."""
    from promptcanary.core.render.terminal import ROW_LINES
    from tests.unit.core.render.samples import adaptive_report

    report = adaptive_report()
    at_120 = _render(report, 120, verbose=True)
    assert "evidence: baseline 27/30 → screening 1/3 → confirmation 9/30, p = 0.003" in at_120
    assert "Evidence" not in at_120  # no table
    wide = _render(report, 220, verbose=True)
    assert "evidence:" not in wide
    lines = wide.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Regressions"))
    end = next(i for i, line in enumerate(lines) if line.startswith("Usage"))
    header, _rule, *rows = lines[start + 1 : end]
    assert "Evidence" in header and rows[0].startswith("1 ")
    assert "baseline 27/30 → screening 1/3" in rows[0]
    assert len(rows) <= ROW_LINES  # one pair


def test_without_a_tty_there_are_no_escape_sequences() -> None:
    buf = io.StringIO()
    # What rich picks by itself for a non-terminal file.
    console = Console(file=buf, width=100)
    DriftReporter(drift_report()).print_terminal(console)
    out = buf.getvalue()
    assert "\x1b" not in out
    assert "CRITICAL drift" in out


def test_colour_on_a_terminal() -> None:
    buf = io.StringIO()
    console = Console(file=buf, width=100, force_terminal=True, color_system="standard")
    DriftReporter(drift_report()).print_terminal(console)
    assert "\x1b[" in buf.getvalue()


def test_quiet_prints_only_the_summary() -> None:
    report = drift_report()
    out = _render(report, 100, quiet=True)
    assert out == report.summary + "\n"


def test_inconclusive_terminal_wording() -> None:
    out = _render(drift_report(error_rate=0.5), 100)
    assert "could not be measured — not evidence of drift" in out
    assert "Inconclusive" in out


def test_run_terminal_and_quiet() -> None:
    run = run_result()
    console = plain_console(200)
    print_run_terminal(run, console)
    out = console.file.getvalue()
    assert "1 of 3 pairs failing, 1 request errored." in out
    assert "HTTP 500 from provider" in out
    assert "run promptcanary run --save-baseline" in out and "pull request" not in out
    console = plain_console(100)
    print_run_terminal(run, console, quiet=True)
    assert console.file.getvalue().count("\n") == 1


def test_a_nested_line_that_wraps_stays_under_its_heading() -> None:
    import io

    from rich.console import Console
    from rich.table import Table

    from promptcanary.core.render.terminal import L

    console = Console(width=40, force_terminal=False, record=True, file=io.StringIO())
    console.print(L("    e.g. p1: “the answer that is long enough to wrap twice over here”"))
    console.print(L("top level: it wraps at the margin as it always did, unindented"))
    lines = console.export_text().splitlines()
    assert lines[:2] == [  # no trailing space either
        "    e.g. p1: “the answer that is long",
        "    enough to wrap twice over here”",
    ]
    assert [line.rstrip() for line in lines[2:]] == [
        "top level: it wraps at the margin as it",
        "always did, unindented",
    ]
    # Inside a table cell it measures as its text plus the indent.
    table = Table.grid()
    table.add_row(L("  ab cd"))
    narrow = Console(width=40, force_terminal=False, record=True, file=io.StringIO())
    narrow.print(table)
    assert narrow.export_text().splitlines() == ["  ab cd"]


def test_a_list_line_breaks_only_between_its_items() -> None:
    import io

    from rich.console import Console

    from promptcanary.core.render.terminal import _packed

    def packed(width: int, items: list[str]) -> list[str]:
        console = Console(width=width, force_terminal=False, record=True, file=io.StringIO())
        _packed(console, "Usage: ", items, " · ", "", end=".")
        return [line.rstrip() for line in console.export_text().splitlines()]

    items = ["latency p50 420 ms → 510 ms (+21%)", "requests 40 → 44", "errors 0 → 0"]
    assert packed(120, items) == [
        "Usage: latency p50 420 ms → 510 ms (+21%) · requests 40 → 44 · errors 0 → 0."
    ]
    # A figure never leaves its unit or its change; the separator ends the line it follows.
    assert packed(44, items) == [
        "Usage: latency p50 420 ms → 510 ms (+21%) ·",
        "  requests 40 → 44 · errors 0 → 0.",
    ]
    # An item too wide for any line stays where it is and wraps there.
    wide = ["x" * 10, "a b c d e f g h i j k l m n o p q r s t u v w x y z"]
    assert packed(30, wide)[0] == "Usage: xxxxxxxxxx · a b c d e"
    assert packed(30, []) == ["Usage:."]
