"""DriftReporter: a drift report as terminal output, Markdown, HTML, JSON or JUnit XML.

Glue only: :func:`~promptcanary.core.render.context.build_report_view` prepares one view-model,
each renderer in :mod:`promptcanary.core.render` turns it into its format. :class:`RunReporter`
does the same for a run with no baseline. :data:`FORMATS` is the one table of the formats (name,
file suffix, which renderer draws a drift report and which a run, whether stored baselines add
to it); both reporters, ``promptcanary report`` and every writer of report files go through it.

Example::

    reporter = DriftReporter(drift_report)
    reporter.print_terminal()
    reporter.to_markdown("drift_report.md")
    reporter.to_html("drift_report.html")
    reporter.to_json("drift_report.json")
"""

from __future__ import annotations

import abc
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from promptcanary.core import render as renderers
from promptcanary.core.models import BaselineSnapshot, CanaryRunResult, DriftReport, ReportFormat
from promptcanary.core.render.budget import MARKDOWN_BUDGET
from promptcanary.core.render.context import ReportView, build_report_view
from promptcanary.core.render.json_report import drift_to_json, run_to_json
from promptcanary.core.render.placement import Placement, placed
from promptcanary.core.render.run import RunView, build_run_view
from promptcanary.core.render.trend import (
    TrendPoint,
    trend_point_from_snapshot,
    trend_points_from_snapshots,
)
from promptcanary.errors import ConfigError

if TYPE_CHECKING:
    from rich.console import Console
    from typing_extensions import Unpack

__all__ = [
    "FORMATS",
    "MARKDOWN_BUDGET",
    "DriftReporter",
    "Format",
    "Reporter",
    "RunReporter",
    "TrendPoint",
    "drift_to_json",
    "print_run_terminal",
    "report_format",
    "run_to_html",
    "run_to_json",
    "run_to_markdown",
    "trend_point_from_snapshot",
    "trend_points_from_snapshots",
]

History = Sequence[TrendPoint | BaselineSnapshot]


def _write(path: str | Path | None, text: str) -> str:
    if path is not None:
        target = Path(path)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise ConfigError(
                f"cannot write the report: {exc.strerror or exc}", file=target
            ) from exc
    return text


def _console(console: Console | None) -> Console:
    if console is not None:
        return console
    from promptcanary.core.render.terminal import default_console

    return default_console()


class _Report(abc.ABC):
    """One report (a drift report or a run) in every format of :data:`FORMATS`.

    Where it is shown is the same for both kinds: a link to the CI run, how to accept the
    change, a hidden Markdown marker, where the full report is (a
    :class:`~promptcanary.core.render.placement.Placement`, kept as ``_shown``).
    """

    _shown: Placement

    @abc.abstractmethod
    def print_terminal(self, console: Console | None = None, *, quiet: bool = False) -> None:
        """Print the report (colour-coded on a terminal); ``quiet``: the summary only."""

    @abc.abstractmethod
    def render(self, fmt: Format | ReportFormat | str, *, budget: int = MARKDOWN_BUDGET) -> str:
        """The report as text in ``fmt`` (a name of :data:`FORMATS`; ``budget``: Markdown's)."""

    def to_markdown(self, path: str | Path | None = None, *, budget: int = MARKDOWN_BUDGET) -> str:
        """GitHub-flavoured Markdown of at most ``budget`` characters; written to ``path``.

        Past the budget the least important parts are cut and the cut is said in the text.
        """
        return _write(path, self.render(ReportFormat.MARKDOWN, budget=budget))

    def to_html(self, path: str | Path | None = None) -> str:
        """A self-contained dark-theme HTML page; written to ``path`` when given."""
        return _write(path, self.render(ReportFormat.HTML))

    def to_json(self, path: str | Path | None = None) -> str:
        """The full structured report as JSON; written to ``path`` when given."""
        return _write(path, self.render(ReportFormat.JSON))

    def to_junit(self, path: str | Path | None = None) -> str:
        """JUnit XML for CI test reporters (a test case per probe and prompt, and per prompt
        whose answers changed); written to ``path`` when given."""
        return _write(path, self.render(ReportFormat.JUNIT))

    def write(
        self, fmt: Format | ReportFormat | str, path: str | Path, *, budget: int = MARKDOWN_BUDGET
    ) -> str:
        """Write the report in ``fmt`` to ``path``; returns the text."""
        return _write(path, self.render(fmt, budget=budget))


def _terminal_text(report: _Report, width: int = 100) -> str:
    """What :meth:`_Report.print_terminal` prints without a terminal, ``width`` columns wide."""
    from rich.console import Console

    buffer = io.StringIO()
    report.print_terminal(Console(file=buffer, width=width, force_terminal=False))
    return buffer.getvalue()


@dataclass(frozen=True)
class Format:
    """One report format: its name, the file it is written to, and how each kind of report is
    rendered in it (the renderers of :mod:`promptcanary.core.render`, loaded on first use)."""

    name: ReportFormat
    suffix: str
    """The file suffix of a report in this format (``report --open`` writes ``INPUT.html``)."""
    drift: Callable[[DriftReporter, int], str]
    """A drift report's text in this format, given a Markdown budget in characters."""
    run: Callable[[Reporter, int], str]
    """A run's text in this format, given a Markdown budget in characters."""
    uses_history: bool = False
    """Whether the stored baselines add to it (the HTML trend chart), so are worth loading."""
    aliases: tuple[str, ...] = ()
    """Other names ``--format`` accepts."""
    title: str = ""
    """What a file in this format is, in words: ``Wrote the HTML report → drift.html``."""


#: The report formats, in the order ``--format`` lists them.
FORMATS: dict[ReportFormat, Format] = {
    f.name: f
    for f in (
        Format(
            ReportFormat.TERMINAL,
            ".txt",
            drift=lambda r, _budget: _terminal_text(r),
            run=lambda r, _budget: _terminal_text(r),
            title="the terminal report",
        ),
        Format(
            ReportFormat.MARKDOWN,
            ".md",
            drift=lambda r, budget: renderers.render_markdown(r.view, budget=budget),
            # With how to promote the run (accept_hint).
            run=lambda r, budget: renderers.render_run_markdown(r.view, budget=budget),
            aliases=("md",),
            title="the Markdown report",
        ),
        Format(
            ReportFormat.HTML,
            ".html",
            drift=lambda r, _budget: renderers.render_html(r.view),
            run=lambda r, _budget: renderers.render_run_html(r.view),
            uses_history=True,
            title="the HTML report",
        ),
        Format(
            ReportFormat.JSON,
            ".json",
            drift=lambda r, _budget: drift_to_json(r.report),
            run=lambda r, _budget: run_to_json(r.run),
            title="the JSON report",
        ),
        Format(
            ReportFormat.JUNIT,
            ".xml",
            drift=lambda r, _budget: renderers.drift_to_junit(r.view),
            run=lambda r, _budget: renderers.run_to_junit(r.view),
            aliases=("xml",),
            title="the JUnit XML report",
        ),
    )
}


def report_format(name: Format | ReportFormat | str) -> Format:
    """The format called ``name`` (or one of its aliases), case-insensitively.

    Raises:
        ValueError: no format has that name (the message lists them).
    """
    if isinstance(name, Format):
        return name
    wanted = str(getattr(name, "value", name)).lower()
    for fmt in FORMATS.values():
        if wanted == fmt.name.value or wanted in fmt.aliases:
            return fmt
    names = ", ".join(f.name.value for f in FORMATS.values())
    raise ValueError(f"must be one of {names} (got {name!r})")


class DriftReporter(_Report):
    """Renders one :class:`DriftReport` in every format."""

    report: DriftReport  # declared here for FORMATS, which reads it (above the class)

    def __init__(
        self,
        report: DriftReport,
        *,
        history: History | None = None,
        **shown: Unpack[Placement],
    ) -> None:
        """
        Args:
            report:          The drift report to render.
            history:         Stored baselines of this suite and model (snapshots or
                             :class:`TrendPoint`), for the HTML trend chart.
            run_url:         Link to the CI run, shown in the footer.
            accept_hint:     How to accept the change as the new baseline (Markdown).
            marker:          A hidden first line for the Markdown (e.g. a sticky-comment key).
            report_location: Where the full report is, in words (named when Markdown is cut).
        """
        self._shown = placed(shown)
        self.report = report
        self.history = history

    @cached_property
    def view(self) -> ReportView:
        """The prepared view-model (built once, shared by every format)."""
        return build_report_view(self.report, history=self.history, **self._shown)

    def print_terminal(
        self, console: Console | None = None, *, quiet: bool = False, verbose: bool = False
    ) -> None:
        """Print a colour-coded report (plain without a TTY); ``quiet``: the summary only. A
        large report is shortened (regressions grouped by probe and cause, the behaviour
        changes no regression explains) unless ``verbose``."""
        renderers.render_terminal(self.view, _console(console), quiet=quiet, verbose=verbose)

    def render(self, fmt: Format | ReportFormat | str, *, budget: int = MARKDOWN_BUDGET) -> str:
        """The report as text in ``fmt`` (a name of :data:`FORMATS`; ``budget``: Markdown's)."""
        return report_format(fmt).drift(self, budget)


# ── Runs without a baseline ──────────────────────────────────────────────────────────────────


def run_to_markdown(
    run: CanaryRunResult,
    *,
    budget: int = MARKDOWN_BUDGET,
    no_baseline: bool = True,
    **shown: Unpack[Placement],
) -> str:
    """Markdown for a run with no baseline; says how to make it one (``accept_hint``)."""
    return Reporter(run, no_baseline=no_baseline, **shown).to_markdown(budget=budget)


def run_to_html(
    run: CanaryRunResult, *, no_baseline: bool = False, **shown: Unpack[Placement]
) -> str:
    """A self-contained HTML page for a run."""
    return Reporter(run, no_baseline=no_baseline, **shown).to_html()


def print_run_terminal(
    run: CanaryRunResult,
    console: Console | None = None,
    *,
    quiet: bool = False,
    no_baseline: bool = True,
    **shown: Unpack[Placement],
) -> None:
    """Print a run to the terminal (summary only when ``quiet``)."""
    Reporter(run, no_baseline=no_baseline, **shown).print_terminal(console, quiet=quiet)


class Reporter(_Report):
    """Renders one run (no baseline to compare with): the :class:`DriftReporter` interface.

    ``Reporter(run_result)`` is promptcanary 0.2's run reporter; :data:`RunReporter` is the
    same class under the name the rest of this package uses.
    """

    run: CanaryRunResult  # declared here for FORMATS, which reads it (above the class)

    def __init__(
        self,
        run: CanaryRunResult,
        *,
        no_baseline: bool = False,
        **shown: Unpack[Placement],
    ) -> None:
        """
        Args:
            run:         The run to render.
            no_baseline: Say there is no baseline yet (else: "this run was not compared").
            shown:       Where the report is shown, as for :class:`DriftReporter`.
        """
        self._shown = placed(shown)
        self.run = run
        self.no_baseline = no_baseline

    @property
    def result(self) -> CanaryRunResult:
        """The run (promptcanary 0.2's attribute name)."""
        return self.run

    @cached_property
    def view(self) -> RunView:
        """The prepared view-model (built once, shared by every format)."""
        return build_run_view(self.run, no_baseline=self.no_baseline, **self._shown)

    def print_terminal(self, console: Console | None = None, *, quiet: bool = False) -> None:
        """Print the run."""
        renderers.render_run_terminal(self.view, _console(console), quiet=quiet)

    def render(self, fmt: Format | ReportFormat | str, *, budget: int = MARKDOWN_BUDGET) -> str:
        """The run as text in ``fmt`` (a name of :data:`FORMATS`; ``budget``: Markdown's)."""
        return report_format(fmt).run(self, budget)


#: The run reporter under its descriptive name (same class as :class:`Reporter`).
RunReporter = Reporter
