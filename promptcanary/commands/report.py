"""`promptcanary report`: render a saved run or drift report as terminal, Markdown, HTML or JSON."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from promptcanary.commands.common import load_run, read_json, say, stdout_console, write_text, wrote
from promptcanary.errors import EXIT_OK, ConfigError, InputError, validation_message

if TYPE_CHECKING:
    from rich.console import Console

    from promptcanary.core.reporter import DriftReporter, RunReporter


def report_command(
    *,
    input: Path,
    format: str,
    output: Path | None,
    budget: int | None,
    open_browser: bool = False,
    full_answers: bool = False,
    verbose: bool = False,
) -> int:
    from promptcanary.core.models import ReportFormat
    from promptcanary.core.reporter import MARKDOWN_BUDGET, report_format

    try:
        fmt = report_format(format)
    except ValueError as exc:
        raise ConfigError(str(exc), field="--format") from None
    if open_browser:
        if fmt.name is not ReportFormat.HTML:
            raise ConfigError("only opens HTML reports; add --format html", field="--open")
        # promptcanary 0.2's `report X --format html --open`: the page goes next to the input.
        output = output or input.with_suffix(fmt.suffix)
    if output is not None:
        from promptcanary.files import check_writable_file

        check_writable_file(output, flag="--output")
    data = read_json(input, "report file")
    reporter = _reporter_for(input, data)
    if fmt.name is ReportFormat.TERMINAL:
        # A run's (or baseline's) report ends with its answers: what the scores were about.
        if output is None:
            console = stdout_console()  # in colour on a terminal
            _print_terminal(reporter, console, verbose=verbose)
            _print_answers(reporter, console, full=full_answers)
        else:
            import io

            from rich.console import Console

            buffer = io.StringIO()
            console = Console(file=buffer, width=100, force_terminal=False)
            _print_terminal(reporter, console, verbose=verbose)
            _print_answers(reporter, console, full=full_answers)
            write_text(output, buffer.getvalue())
            wrote(fmt.title, output)
        return EXIT_OK
    text = reporter.render(fmt, budget=budget or MARKDOWN_BUDGET)
    if output is not None:
        write_text(output, text)
        wrote(fmt.title, output)
        if open_browser:
            import webbrowser

            webbrowser.open(output.resolve().as_uri())
            say(f"Opened {output} in a browser")
    else:
        stdout_console().file.write(text if text.endswith("\n") else text + "\n")
    return EXIT_OK


def _print_terminal(
    reporter: DriftReporter | RunReporter, console: Console, *, verbose: bool
) -> None:
    """The terminal report; a drift report whole with ``verbose`` (a run's is never shortened)."""
    from promptcanary.core.reporter import DriftReporter

    if isinstance(reporter, DriftReporter):
        reporter.print_terminal(console, verbose=verbose)
    else:
        reporter.print_terminal(console)


def _print_answers(reporter: DriftReporter | RunReporter, console: Console, *, full: bool) -> None:
    """A run's (or baseline's) answers after its report (a drift report has none of its own)."""
    from promptcanary.core.reporter import RunReporter

    if isinstance(reporter, RunReporter):
        from promptcanary.core.render.answers import render_answers

        console.print()
        render_answers(reporter.run, console, full=full)


def _reporter_for(path: Path, data: Any) -> DriftReporter | RunReporter:
    """A DriftReporter for a drift report JSON, a RunReporter for a run (or baseline) JSON."""
    if isinstance(data, dict) and "comparisons" in data and "baseline_snapshot_id" in data:
        from pydantic import ValidationError

        from promptcanary.core.models import DriftReport
        from promptcanary.core.reporter import DriftReporter

        try:
            return DriftReporter(DriftReport.model_validate(data))
        except ValidationError as exc:
            raise InputError(
                f"{path}: not a valid drift report: {validation_message(exc)}"
            ) from exc
    if isinstance(data, dict) and ("probe_results" in data or "run_result" in data):
        from promptcanary.core.reporter import RunReporter

        return RunReporter(load_run(path))
    raise InputError(
        f"{path}: neither a run nor a drift report",
        hint="Pass a file written by `run -o`, `compare --output-json` or a baseline file.",
    )
