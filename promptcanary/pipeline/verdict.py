"""Comparing a run with its baseline under the suite's settings, and the gate's decision."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from promptcanary.errors import (
    EXIT_DRIFT,
    EXIT_INCONCLUSIVE,
    EXIT_OK,
    ConfigError,
    SuiteMismatchError,
)

if TYPE_CHECKING:
    from promptcanary.core.config import SuiteSettings
    from promptcanary.core.models import BaselineSnapshot, CanaryRunResult, DriftReport
    from promptcanary.pipeline.overrides import Overrides


#: Severity names a gate accepts, lowest first.
SEVERITIES = ("low", "medium", "high", "critical")


def check_suite_matches(baseline: BaselineSnapshot, run: CanaryRunResult, where: str) -> None:
    """Refuse to compare runs of two different suites.

    Raises:
        SuiteMismatchError: the baseline was recorded for another suite (``where`` names its
            file); exit 2.
    """
    theirs, ours = baseline.run_result.suite_name, run.suite_name
    if theirs != ours:
        raise SuiteMismatchError(
            f"{where} is a baseline of suite '{theirs}', not of suite '{ours}'",
            hint="Compare with a baseline of the same suite (its `name:` in canary.yaml), or "
            "record one with `promptcanary run --save-baseline`.",
        )


def compare_with_settings(
    baseline: BaselineSnapshot,
    run: CanaryRunResult,
    settings: SuiteSettings,
    overrides: Overrides,
    *,
    where: str = "the baseline",
) -> DriftReport:
    """compare() with each threshold taken from the overrides, else from canary.yaml."""
    from promptcanary.core.comparator import compare

    check_suite_matches(baseline, run, where)
    return compare(baseline, run, **overrides.thresholds(settings))


@dataclass(frozen=True)
class GatePolicy:
    """When a comparison fails the command or the check."""

    fail_on_severity: str | None = None
    """Fail at or over this severity (low, medium, high, critical); None or "never": not on it."""
    fail_on_drift: bool = False
    """Fail on any drift, whatever its severity."""
    fail_on_inconclusive: bool = True
    """An unmeasurable comparison exits 3 (else 0)."""
    fail_on_suite_change: bool = False
    """Fail when canary.yaml gained, lost or edited prompts or probes since the baseline (so a
    pull request that edits the suite must promote a new baseline)."""
    fail_on_behaviour_change: bool = False
    """Fail when the answers changed (a named prompt, or the suite-level answer test) although
    every probe held, whatever ``fail_on_severity`` says (a behaviour change is severity low:
    ``fail_on_severity="low"`` fails on it too)."""

    def __post_init__(self) -> None:
        value = self.fail_on_severity
        if value is not None and value.lower() not in (*SEVERITIES, "never"):
            import difflib

            close = difflib.get_close_matches(value.lower(), (*SEVERITIES, "never"), n=1)
            raise ConfigError(
                f"must be one of {', '.join(SEVERITIES)} or never (got {value!r})",
                field="fail-on-severity",
                hint=f"Did you mean '{close[0]}'?" if close else None,
            )


@dataclass(frozen=True)
class Verdict:
    """A gate's decision: a word for people and outputs, and the process exit code."""

    result: str
    """passed | failed | suite-changed | inconclusive | no-baseline"""
    exit_code: int


def gate(report: DriftReport | None, policy: GatePolicy, *, unusable: str | None = None) -> Verdict:
    """The one gate of both front-ends.

    With a report: inconclusive first (never drift; but a report that compared nothing because
    the suite changed entirely is ``suite-changed`` under ``fail_on_suite_change``), then the
    severity threshold and ``fail_on_drift``, then behaviour changes (only with
    ``fail_on_behaviour_change``; not one a re-test on fresh answers withdrew,
    :attr:`DriftReport.behaviour_stands`), then suite changes (only with
    ``fail_on_suite_change``). Without one (nothing to compare with): ``inconclusive`` when the
    run is ``unusable`` (see
    :func:`~promptcanary.pipeline.measure.unusable_reason`), else ``no-baseline``.
    """
    inconclusive = Verdict(
        "inconclusive", EXIT_INCONCLUSIVE if policy.fail_on_inconclusive else EXIT_OK
    )
    if report is None:
        return inconclusive if unusable else Verdict("no-baseline", EXIT_OK)
    suite_changed = Verdict("suite-changed", EXIT_DRIFT)
    if report.is_inconclusive:
        # Nothing compared because the suite changed entirely: the run was measured, and the
        # suite change asked to fail on is a fact, not a guess.
        return (
            suite_changed if report.suite_replaced and policy.fail_on_suite_change else inconclusive
        )
    if over_threshold(report, policy.fail_on_severity) or (
        policy.fail_on_drift and report.has_drift
    ):
        return Verdict("failed", EXIT_DRIFT)
    if policy.fail_on_behaviour_change and report.behaviour_stands:
        return Verdict("failed", EXIT_DRIFT)
    if policy.fail_on_suite_change and report.suite_changed:
        return suite_changed
    return Verdict("passed", EXIT_OK)


def over_threshold(report: DriftReport, fail_on_severity: str | None) -> bool:
    """True when the report's severity is at or over ``fail_on_severity`` (never with
    None/"never"). One rule: a behaviour change that every report calls "severity low" fails
    ``low`` like any other low drift."""
    from promptcanary.core.models import DriftSeverity

    if fail_on_severity is None or fail_on_severity.lower() == "never":
        return False
    if report.severity == DriftSeverity.NONE:
        return False
    return report.severity.at_least(fail_on_severity.lower())
