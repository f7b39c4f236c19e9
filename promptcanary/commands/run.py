"""`promptcanary run`: run a suite, show scores, optionally save the run and a baseline."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from promptcanary.commands.common import (
    RunFlags,
    cli_ports,
    default_baseline_dir,
    load_env_files,
    save_baseline_hint,
    say,
    start_litellm_warm_up,
    stdout_console,
    write_text,
    wrote,
)
from promptcanary.errors import (
    EXIT_DRIFT,
    EXIT_OK,
    ConfigError,
    MeasurementError,
    StorageError,
)

if TYPE_CHECKING:
    from promptcanary.core.models import CanaryRunResult
    from promptcanary.core.run.shards import Shard


@dataclass
class RunArgs(RunFlags):
    """The options of `promptcanary run` (see cli.py for their help)."""

    config: Path = Path("canary.yaml")
    save_baseline: bool = False
    note: str = ""
    output: Path | None = None
    fail_on_failure: bool = False
    baseline_samples: int | None = None
    shard: str | None = None


def run_command(args: RunArgs) -> int:
    from promptcanary.pipeline import BaselineRunRequest, baseline_run, open_store

    shard = _check_shard(args)
    start_litellm_warm_up(args.replay)
    load_env_files(args.config, env_file=args.env_file)
    folder = default_baseline_dir(args.baseline_dir, args.config)
    from promptcanary.files import check_destinations

    # Before any request is paid for: every destination of this run must be writable.
    check_destinations(
        {
            "--output": args.output,
            "--output-md": args.output_md,
            "--output-html": args.output_html,
            "--output-junit": args.output_junit,
        },
        {"--baseline-dir": folder} if args.save_baseline else {},
    )
    request = BaselineRunRequest(
        config=args.config,
        overrides=args.overrides(baseline_samples=args.baseline_samples),
        save=args.save_baseline,
        note=args.note,
        shard=shard,
    )
    # The run is written (-o) as soon as it is measured, so a measured run is never lost. If
    # that fails anyway (its text is then kept elsewhere), the reports and the baseline are
    # still written, and the failure is raised last.
    unsaved: list[StorageError] = []

    def keep(run: CanaryRunResult) -> None:
        if args.output is None:
            return
        try:
            write_text(args.output, run.model_dump_json(indent=2))
        except StorageError as exc:
            unsaved.append(exc)
        else:
            if shard is None:  # a shard's part is named below, with how to join the parts
                wrote("the run", args.output)

    measured = baseline_run(request, cli_ports(args, open_store(folder), keep=keep))
    run, unusable = measured.run, measured.unusable

    from promptcanary.core.reporter import RunReporter

    # No "make this the baseline" hint right after saving one, nor for a run that cannot be one
    # (a shard is only part of one). The hint replays this very run: from -o's file, the replayed
    # file, or a copy kept for it (a hint that measured again would make another run the
    # baseline, and pay for its requests a second time).
    accept_hint = ""
    if not (args.save_baseline or unusable or shard):
        replay = args.output or args.replay or _kept_for_the_hint(run, args)
        if replay is not None:
            accept_hint = save_baseline_hint(
                args.config,
                provider=args.provider,
                baseline_dir=args.baseline_dir,
                replay=replay,
                flags=args,
            )
    reporter = RunReporter(run, accept_hint=accept_hint)
    if args.output_md:
        reporter.to_markdown(args.output_md)
        wrote("the Markdown report", args.output_md)
    if args.output_html:
        reporter.to_html(args.output_html)
        wrote("the HTML report", args.output_html)
    if args.output_junit:
        reporter.to_junit(args.output_junit)
        wrote("the JUnit XML report", args.output_junit)
    reporter.print_terminal(stdout_console(), quiet=args.quiet)

    if args.save_baseline and unusable:
        raise MeasurementError(
            f"not saving a baseline: {unusable}",
            hint="A baseline must be a run that measured the model. Fix the provider errors "
            "shown above and run again.",
        )
    if measured.saved is not None:
        saved = measured.saved
        say(f"Saved baseline {saved.snapshot.snapshot_id} → {saved.path}")
        for path in saved.files:
            if path == saved.summary:
                wrote("the baselines' summary", path)
            elif path != saved.path:
                wrote(f"the folder's {path.name}", path)
        say("Commit them: git add " + " ".join(_quoted(p) for p in saved.files))
    if unsaved:
        raise unsaved[0]
    if shard is not None and run.shard is not None:
        say(
            f"Wrote shard {shard} ({len(run.prompts)} of {len(run.shard.suite_prompt_ids)} "
            f"prompts) → {args.output}; join the parts with `promptcanary merge`."
        )

    if run.aborted or (run.llm_responses and not any(r.ok for r in run.llm_responses)):
        raise MeasurementError(
            unusable or "the run measured nothing",
            hint="Check the provider, its API key and --api-base.",
        )
    if args.fail_on_failure and run.failed_probes:
        return EXIT_DRIFT
    return EXIT_OK


def _quoted(path: Path) -> str:
    """``path`` as a shell word (a path with spaces still pastes)."""
    import shlex

    return shlex.quote(str(path))


def _check_shard(args: RunArgs) -> Shard | None:
    """``--shard i/n``, refused where a partial run cannot go (before anything is sent)."""
    if args.shard is None:
        return None
    from promptcanary.core.run.shards import parse_shard

    shard = parse_shard(args.shard)
    if args.batch or args.batch_id:
        raise ConfigError(
            "--batch sends the whole suite as one job; it cannot be combined with --shard",
            field="--shard",
            hint="Drop --shard: a batch does not need splitting across machines.",
        )
    if args.save_baseline:
        raise ConfigError(
            "a shard is part of a run and cannot be saved as a baseline",
            field="--shard",
            hint="Merge the parts (`promptcanary merge part-*.json -o run.json`), then save the "
            "merged run: `promptcanary run --replay run.json --save-baseline`.",
        )
    if args.output is None:
        raise ConfigError(
            "a shard's run must be written to a file for `promptcanary merge`",
            field="--shard",
            hint=f"Add -o part-{shard.index}.json.",
        )
    return shard


def _kept_for_the_hint(run: CanaryRunResult, args: RunArgs) -> Path | None:
    """Keep the run (.promptcanary/last-run/) so that the accept hint can replay it; when it
    cannot be written, say how to record a baseline instead (measuring again) and return None."""
    from promptcanary.core.render.safety import plain_hint
    from promptcanary.pipeline.resume import keep_last_run

    kept = keep_last_run(run, args.config)
    if kept is None:
        hint = save_baseline_hint(
            args.config, provider=args.provider, baseline_dir=args.baseline_dir, flags=args
        )
        say(
            "Could not keep this run to accept it later (.promptcanary/ next to canary.yaml is "
            f"not writable). To record a baseline, {plain_hint(hint)} (it asks the model again)."
        )
        return None
    wrote("this run", kept)
    return kept
