"""`promptcanary report`: render a saved run or drift report as terminal, Markdown, HTML or JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from promptcanary.commands.common import load_run, read_json, stdout_console, write_text
from promptcanary.errors import EXIT_OK, ConfigError, InputError, validation_message

FORMATS = ("terminal", "markdown", "html", "json")


def report_command(
    *,
    input: Path,
    format: str,
    output: Path | None,
    budget: int | None,
    open_browser: bool = False,
    full_answers: bool = False,
) -> int:
    fmt = format.lower()
    if fmt == "md":
        fmt = "markdown"
    if fmt not in FORMATS:
        raise ConfigError(f"must be one of {', '.join(FORMATS)} (got {format!r})", field="--format")
    if open_browser:
        if fmt != "html":
            raise ConfigError("only opens HTML reports; add --format html", field="--open")
        # promptcanary 0.2's `report X --format html --open`: the page goes next to the input.
        output = output or input.with_suffix(".html")
    if output is not None:
        from promptcanary.files import check_writable_file

        check_writable_file(output, flag="--output")
    data = read_json(input, "report file")
    reporter = _reporter_for(input, data)
    if fmt == "terminal":
        if output is not None:
            import io

            from rich.console import Console

            buffer = io.StringIO()
            console = Console(file=buffer, width=100, force_terminal=False)
            reporter.print_terminal(console)
            _print_answers(reporter, console, full=full_answers)
            write_text(output, buffer.getvalue())
        else:
            console = stdout_console()
            reporter.print_terminal(console)
            _print_answers(reporter, console, full=full_answers)
        return EXIT_OK
    if fmt == "markdown":
        text = reporter.to_markdown(budget=budget) if budget else reporter.to_markdown()
    elif fmt == "html":
        text = reporter.to_html()
    else:
        text = reporter.to_json()
    if output is not None:
        write_text(output, text)
        if open_browser:
            import webbrowser

            webbrowser.open(output.resolve().as_uri())
            stdout_console().print(f"opened {output}")
    else:
        stdout_console().file.write(text if text.endswith("\n") else text + "\n")
    return EXIT_OK


def _print_answers(reporter: Any, console: Any, *, full: bool) -> None:
    """A run's (or baseline's) answers after its report: what the scores were about."""
    from promptcanary.core.reporter import RunReporter

    if isinstance(reporter, RunReporter):
        from promptcanary.core.render.answers import render_answers

        console.print()
        render_answers(reporter.run, console, full=full)


def _reporter_for(path: Path, data: Any) -> Any:
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
