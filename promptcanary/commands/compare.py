"""`promptcanary compare`: compare a run (fresh or saved) with the newest baseline."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from promptcanary.commands.common import (
    RunFlags,
    cli_ports,
    default_baseline_dir,
    load_env_files,
    save_baseline_hint,
    start_litellm_warm_up,
    stdout_console,
    write_report_files,
    write_text,
    wrote,
)
from promptcanary.errors import ConfigError

if TYPE_CHECKING:
    from promptcanary.core.models import CanaryRunResult, DriftReport
    from promptcanary.pipeline import CheckRequest


#: The flags of `compare` that decide its exit code, as GatePolicy names them.
GATE_FLAGS = (
    "fail_on_severity",
    "fail_on_drift",
    "fail_on_suite_change",
    "fail_on_behaviour_change",
)


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
    verbose: bool = False


def _check_args(args: CompareArgs) -> None:
    if args.current is not None and (
        args.provider or args.replay or args.resume or args.batch or args.batch_id
    ):
        raise ConfigError(
            "--current compares a saved run; it cannot be combined with -p/--provider, "
            "--replay, --resume or --batch",
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
    from promptcanary.files import check_destinations
    from promptcanary.pipeline import check, history, open_store

    request = _request(args)
    # Before any request is paid for: every destination of this comparison must be writable.
    check_destinations(
        {
            "--output-md": args.output_md,
            "--output-html": args.output_html,
            "--output-json": args.output_json,
            "--output-junit": args.output_junit,
            "--save-run": args.save_run,
        }
    )
    if args.current is None:
        start_litellm_warm_up(args.replay)
        load_env_files(args.config, env_file=args.env_file)
    store = open_store(default_baseline_dir(args.baseline_dir, args.config))
    checked = check(request, cli_ports(args, store, keep=partial(_save_run, args.save_run)))
    assert checked.report is not None  # the CLI requires a baseline
    # The command that records the compared behaviour as the baseline: the saved run compared
    # (--current) replayed with its model, else a fresh baseline run of the suite as checked.
    accept_hint = save_baseline_hint(
        args.config,
        provider=checked.run.provider.model_id if args.current is not None else args.provider,
        baseline_dir=args.baseline_dir,
        replay=args.current,
        flags=args,
    )
    write_report_files(
        checked.report,
        output_md=args.output_md,
        output_html=args.output_html,
        output_json=args.output_json,
        output_junit=args.output_junit,
        # The HTML report's trend chart: the stored baselines (none for an explicit file).
        history=history(store, checked.run) if args.output_html and args.baseline is None else None,
        accept_hint=accept_hint,
    )
    from promptcanary.core.reporter import DriftReporter

    DriftReporter(checked.report, accept_hint=accept_hint).print_terminal(
        stdout_console(), quiet=args.quiet, verbose=args.verbose
    )
    _say_why_it_passed(args, checked.report, checked.verdict.exit_code)
    return checked.verdict.exit_code


def _say_why_it_passed(args: CompareArgs, report: DriftReport, exit_code: int) -> None:
    """A drift that exits 0 because no gate was asked for says so on stderr: a CI job running
    `compare` without --fail-on-* shows green on a CRITICAL report (the Action's default gate is
    medium; the command line's is none)."""
    from promptcanary.commands.common import say
    from promptcanary.core.models import DriftSeverity

    asked = any(getattr(args, name) for name in GATE_FLAGS)
    if exit_code != 0 or asked or report.is_inconclusive:
        return
    if report.severity == DriftSeverity.NONE:
        return
    say(
        f"note: exit 0 with {report.severity.value.upper()} drift: compare fails only when "
        "asked to (--fail-on-severity medium, as the Action does, or --fail-on-drift)."
    )


def _save_run(path: Path | None, run: CanaryRunResult) -> None:
    """``--save-run``: the run compared, written as soon as it is measured."""
    if path is not None:
        write_text(path, run.model_dump_json(indent=2))
        wrote("the run", path)


def _request(args: CompareArgs) -> CheckRequest:
    """The flags as a check, each error naming the flag as the user typed it."""
    from promptcanary.pipeline import CheckRequest, GatePolicy
    from promptcanary.pipeline.overrides import THRESHOLDS

    _check_args(args)
    try:
        return CheckRequest(
            config=args.config,
            overrides=args.overrides(**{name: getattr(args, name) for name in THRESHOLDS}),
            # The --fail-on-* flags are GatePolicy's fields by name (an unmeasurable comparison
            # always exits 3 on the command line: fail_on_inconclusive keeps its default).
            policy=GatePolicy(**{name: getattr(args, name) for name in GATE_FLAGS}),
            baseline=args.baseline,
            current=args.current,
        )
    except ConfigError as exc:
        flag = "--" + (exc.field or "").lstrip("-").replace("_", "-")
        raise ConfigError(exc.detail, field=flag, hint=exc.hint) from exc
