"""`promptcanary compare`: compare a run (fresh or saved) with the newest baseline."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from promptcanary.commands.common import (
    RunFlags,
    default_baseline_dir,
    load_run,
    load_suite,
    measure,
    start_litellm_warm_up,
    stdout_console,
    write_report_files,
    write_text,
)
from promptcanary.errors import ConfigError, CorruptBaselineError, InputError, SuiteMismatchError

if TYPE_CHECKING:
    from promptcanary.core.models import BaselineSnapshot
    from promptcanary.storage.file import FileBaselineStore


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
    fail_on_suite_change: bool = False
    fail_on_behaviour_change: bool = False
    regression_threshold: float | None = None
    improvement_threshold: float | None = None
    alpha: float | None = None
    min_effect: float | None = None
    max_error_rate: float | None = None


def _check_args(args: CompareArgs) -> None:
    if args.current is not None and (args.provider or args.replay or args.batch or args.batch_id):
        raise ConfigError(
            "--current compares a saved run; it cannot be combined with -p/--provider, "
            "--replay or --batch",
            field="--current",
        )
    if args.current is None and args.config is None:
        raise ConfigError(
            "nothing to compare",
            field="--config",
            hint="Pass -c canary.yaml with -p MODEL to run the suite, or --current run.json.",
        )


def compare_command(args: CompareArgs) -> int:
    from promptcanary import pipeline
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

    _check_args(args)
    try:
        policy = pipeline.GatePolicy(
            fail_on_severity=args.fail_on_severity,
            fail_on_drift=args.fail_on_drift,
            fail_on_suite_change=args.fail_on_suite_change,
            fail_on_behaviour_change=args.fail_on_behaviour_change,
        )
        overrides = args.overrides(
            regression_threshold=args.regression_threshold,
            improvement_threshold=args.improvement_threshold,
            alpha=args.alpha,
            min_effect=args.min_effect,
            max_error_rate=args.max_error_rate,
        )
    except ConfigError as exc:  # name the flag, as the user typed it
        flag = "--" + (exc.field or "").lstrip("-").replace("_", "-")
        raise ConfigError(exc.detail, field=flag, hint=exc.hint) from exc

    if args.current is None:
        start_litellm_warm_up(args.replay)
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
        provider = pipeline.make_provider(pipeline.resolve_model(overrides, suite), overrides)
        # Find the baseline before calling the model: no point paying for a run that has
        # nothing to be compared with.
        snapshot = _baseline(args, store, suite.name, provider.config.model_id)
        current = measure(suite, args, overrides, provider, baseline=snapshot)
    if args.save_run:
        write_text(args.save_run, current.model_dump_json(indent=2))

    where = str(args.baseline) if args.baseline is not None else "the newest baseline"
    report = pipeline.compare_with_settings(snapshot, current, settings, overrides, where=where)

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
    return pipeline.gate(report, policy).exit_code


def _baseline(
    args: CompareArgs, store: FileBaselineStore, suite_name: str, model_id: str
) -> BaselineSnapshot:
    if args.baseline is None:
        return store.load_latest(suite_name, model_id)
    try:
        snapshot = store.load_from_path(args.baseline)
    except CorruptBaselineError:
        _refuse_a_run_as_baseline(args.baseline)
        raise
    if snapshot.suite_name != suite_name:  # refused before any request is paid for
        raise SuiteMismatchError(
            f"{args.baseline} is a baseline of suite '{snapshot.suite_name}', not '{suite_name}'",
            hint="Pass a baseline of this suite with --baseline (see `promptcanary baselines "
            "list`), or leave --baseline out to use the newest one.",
        )
    return snapshot


def _refuse_a_run_as_baseline(path: Path) -> None:
    """A saved run passed as --baseline: say so, rather than calling the file corrupt."""
    import json

    try:
        data = json.loads(path.read_bytes())
        if not isinstance(data, dict) or "run_result" in data:
            return  # a baseline (of a newer schema, or broken): the baseline error stands
        load_run(path)
    except (InputError, OSError, ValueError, RecursionError):
        return  # not a run either: the corrupt-baseline error stands
    raise InputError(
        f"{path} is a saved run, not a baseline",
        hint=f"Compare it with --current {path}, or make it a baseline: "
        f"promptcanary run -c canary.yaml --replay {path} --save-baseline.",
    )
