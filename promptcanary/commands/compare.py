"""`promptcanary compare`: compare a run (fresh or saved) with the newest baseline."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from promptcanary.commands.common import (
    RunFlags,
    announce_plan,
    default_baseline_dir,
    load_suite,
    measure,
    start_litellm_warm_up,
    stdout_console,
    write_report_files,
    write_text,
)
from promptcanary.errors import ConfigError


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
        # Like `run`: ./canary.yaml unless -c says otherwise. Without it, say where we looked.
        if Path("canary.yaml").is_file():
            args.config = Path("canary.yaml")
            return
        raise ConfigError(
            f"nothing to compare: no canary.yaml in {Path.cwd()}, and neither -c nor --current "
            "was given",
            field="--config",
            hint="Run from the suite's folder, or pass -c path/to/canary.yaml with -p MODEL to "
            "run the suite, or --current run.json to compare a saved run.",
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
    store = pipeline.open_store(default_baseline_dir(args.baseline_dir, args.config))
    if args.current is not None:
        # Comparing a saved run: only the suite's name and thresholds are needed.
        suite_name, settings = (
            load_header(args.config) if args.config is not None else (None, SuiteSettings())
        )
        current = pipeline.load_current(args.current, suite_name)
        snapshot = pipeline.find_baseline(
            store, current.suite_name, current.provider.model_id, args.baseline
        )
    else:
        assert args.config is not None
        suite = load_suite(args.config, env_file=args.env_file)
        settings = suite.settings
        provider = pipeline.make_provider(pipeline.resolve_model(overrides, suite), overrides)
        # Find the baseline before calling the model: no point paying for a run that has
        # nothing to be compared with.
        snapshot = pipeline.find_baseline(
            store, suite.name, provider.config.model_id, args.baseline
        )
        if overrides.replay is None:
            from promptcanary.providers.litellm import token_price

            plan = pipeline.plan_run(
                suite, overrides, provider.config.model_id, baseline=snapshot, pricer=token_price
            )
            announce_plan(plan, yes=args.yes, quiet=args.quiet)
        current = measure(suite, args, overrides, provider, baseline=snapshot)
    if args.save_run:
        write_text(args.save_run, current.model_dump_json(indent=2))

    where = str(args.baseline) if args.baseline is not None else "the newest baseline"
    report = pipeline.compare_with_settings(snapshot, current, settings, overrides, where=where)
    write_report_files(
        report,
        output_md=args.output_md,
        output_html=args.output_html,
        output_json=args.output_json,
        # The HTML report's trend chart: the stored baselines (none for an explicit file).
        history=pipeline.history(store, current)
        if args.output_html and args.baseline is None
        else None,
    )
    from promptcanary.core.reporter import DriftReporter

    DriftReporter(report).print_terminal(stdout_console(), quiet=args.quiet)
    return pipeline.gate(report, policy).exit_code
