"""`promptcanary compare`: compare a run (fresh or saved) with the newest baseline."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from promptcanary.commands.common import (
    RunFlags,
    default_baseline_dir,
    execute_run,
    load_run,
    load_suite,
    make_provider,
    resolve_model,
    stdout_console,
    write_report_files,
    write_text,
)
from promptcanary.errors import (
    EXIT_DRIFT,
    EXIT_INCONCLUSIVE,
    EXIT_OK,
    ConfigError,
    SuiteMismatchError,
)

if TYPE_CHECKING:
    from promptcanary.core.models import BaselineSnapshot
    from promptcanary.storage.file import FileBaselineStore

SEVERITIES = ("low", "medium", "high", "critical")


@dataclass
class CompareArgs(RunFlags):
    """The options of `promptcanary compare` (see cli.py for their help)."""

    config: Path | None = None
    current: Path | None = None
    baseline: Path | None = None
    output_json: Path | None = None
    save_run: Path | None = None
    fail_on_drift: bool = False
    fail_on_severity: str | None = None
    regression_threshold: float | None = None
    improvement_threshold: float | None = None
    alpha: float | None = None
    min_effect: float | None = None
    max_error_rate: float | None = None


def _check_args(args: CompareArgs) -> None:
    if args.fail_on_severity is not None and args.fail_on_severity.lower() not in SEVERITIES:
        raise ConfigError(
            f"must be one of {', '.join(SEVERITIES)} (got {args.fail_on_severity!r})",
            field="--fail-on-severity",
        )
    if args.current is not None and (args.provider or args.replay):
        raise ConfigError(
            "--current compares a saved run; it cannot be combined with -p/--provider or --replay",
            field="--current",
        )
    if args.current is None and args.config is None:
        raise ConfigError(
            "nothing to compare",
            field="--config",
            hint="Pass -c canary.yaml with -p MODEL to run the suite, or --current run.json.",
        )
    for name in ("regression_threshold", "improvement_threshold", "min_effect", "max_error_rate"):
        value = getattr(args, name)
        if value is not None and not 0.0 <= value <= 1.0:
            raise ConfigError(
                f"must be between 0 and 1 (got {value})", field="--" + name.replace("_", "-")
            )


def compare_command(args: CompareArgs) -> int:
    _check_args(args)
    from promptcanary.files import check_destinations

    # Before any request is paid for: every destination of this comparison must be writable.
    check_destinations(
        {
            "--output-md": args.output_md,
            "--output-html": args.output_html,
            "--output-json": args.output_json,
            "--save-run": args.save_run,
        }
    )
    from promptcanary.core.config import SuiteSettings, load_header

    suite = None
    settings = SuiteSettings()
    suite_name: str | None = None
    if args.config is not None and args.current is not None:
        # Comparing a saved run: only the suite's name and thresholds are needed.
        suite_name, settings = load_header(args.config)
    elif args.config is not None:
        suite = load_suite(args.config)
        suite_name, settings = suite.name, suite.settings

    from promptcanary.storage.file import FileBaselineStore

    store = FileBaselineStore(default_baseline_dir(args.baseline_dir, args.config))

    if args.current is not None:
        current = load_run(args.current)
        if suite_name is not None and suite_name != current.suite_name:
            raise ConfigError(
                f"{args.current} is a run of suite '{current.suite_name}', not '{suite_name}'",
                field="--current",
            )
        snapshot = _baseline(args, store, current.suite_name, current.provider.model_id)
    else:
        assert suite is not None
        model = resolve_model(args.provider, suite, replay=args.replay)
        provider = make_provider(model, api_base=args.api_base, replay=args.replay)
        # Find the baseline before calling the model: no point paying for a run that has
        # nothing to be compared with.
        snapshot = _baseline(args, store, suite.name, provider.config.model_id)
        current = execute_run(suite, provider, args)
    if args.save_run:
        write_text(args.save_run, current.model_dump_json(indent=2))

    from promptcanary.core.comparator import compare

    def pick(value: float | None, default: float) -> float:
        return default if value is None else value

    report = compare(
        snapshot,
        current,
        regression_threshold=pick(args.regression_threshold, settings.regression_threshold),
        improvement_threshold=pick(args.improvement_threshold, settings.improvement_threshold),
        alpha=pick(args.alpha, settings.alpha),
        min_effect=pick(args.min_effect, settings.min_effect),
        max_error_rate=pick(args.max_error_rate, settings.max_error_rate),
    )

    history = None
    if args.output_html and args.baseline is None:
        history = store.load_all(current.suite_name, current.provider.model_id)
    write_report_files(
        report,
        output_md=args.output_md,
        output_html=args.output_html,
        output_json=args.output_json,
        history=history,
    )
    from promptcanary.core.reporter import DriftReporter

    DriftReporter(report).print_terminal(stdout_console(), quiet=args.quiet)
    return gate(report, fail_on_drift=args.fail_on_drift, fail_on_severity=args.fail_on_severity)


def _baseline(
    args: CompareArgs, store: FileBaselineStore, suite_name: str, model_id: str
) -> BaselineSnapshot:
    if args.baseline is None:
        return store.load_latest(suite_name, model_id)
    snapshot = store.load_from_path(args.baseline)
    if snapshot.suite_name != suite_name:  # refused before any request is paid for
        raise SuiteMismatchError(
            f"{args.baseline} is a baseline of suite '{snapshot.suite_name}', not '{suite_name}'",
            hint="Pass a baseline of this suite with --baseline (see `promptcanary baselines "
            "list`), or leave --baseline out to use the newest one.",
        )
    return snapshot


def gate(report: object, *, fail_on_drift: bool, fail_on_severity: str | None) -> int:
    """Exit code for a drift report: 3 inconclusive, 1 at/over the threshold, else 0."""
    from promptcanary.core.models import DriftReport

    assert isinstance(report, DriftReport)
    if report.is_inconclusive:
        return EXIT_INCONCLUSIVE
    if fail_on_severity is not None and report.severity.at_least(fail_on_severity.lower()):
        return EXIT_DRIFT
    if fail_on_drift and report.has_drift:
        return EXIT_DRIFT
    return EXIT_OK
