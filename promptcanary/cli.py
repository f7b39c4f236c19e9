"""The ``promptcanary`` command line.

This module only declares commands and options; the work is in :mod:`promptcanary.commands`.
Imports stay lazy so ``promptcanary --help`` and ``compare --current`` start fast and never load
LiteLLM. Every :class:`PromptCanaryError` becomes one message and an exit code (see
:mod:`promptcanary.errors`); no traceback reaches the user.
"""

import gc
import os
import sys
from pathlib import Path
from typing import Annotated

# No ``from __future__ import annotations`` in this module: typer reads every command's
# annotations when the CLI starts, and string annotations make it compile and evaluate each one
# (~250 options and arguments: 3.3 % of the instructions of `compare --current`).

# A command keeps nearly every object its start builds (typer's commands, pydantic's schemas,
# numpy): at CPython's default threshold of 700 new objects the cyclic collector ran about a
# hundred times in `compare --current` and found next to nothing (2.2 % of its instructions;
# docs/benchmarks.md). One young collection per 200,000 new objects instead, as mypy does; cycles
# are still collected. Set before the imports that build those objects, so when this module is
# imported (as the environment below): this module is the program, and a library user imports
# `promptcanary`, which does not import it.
if sys.implementation.name == "cpython":
    gc.set_threshold(200_000, 30, 30)

import typer

# Pydantic scans installed distributions for plugins on first import; we use none.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "1")
# numpy's OpenBLAS starts a thread per core when numpy is imported (the answer test, `plan`):
# 40-60 ms of CPU at every such start, for matrix products too small to share out (the answer
# test computes its kernels with einsum for that reason; core/behaviour/features.py). A user's
# own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

app = typer.Typer(
    name="promptcanary",
    help="Catch silent behaviour drift in LLMs: run a canary suite, compare with a baseline.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
baselines_app = typer.Typer(
    help="List, show and delete stored baselines, and chart their history.",
    invoke_without_command=True,
)
app.add_typer(baselines_app, name="baselines")


def _print_version(wanted: bool) -> None:
    """``--version``: the same line as ``promptcanary version``, then stop."""
    if wanted:
        from promptcanary import __version__

        typer.echo(f"PromptCanary {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print the PromptCanary version and exit.",
        ),
    ] = False,
) -> None:
    """Options before any command."""


# ── Shared option types ──────────────────────────────────────────────────────────────────────
ConfigOpt = Annotated[Path, typer.Option("--config", "-c", help="Path to canary.yaml.")]
ProviderOpt = Annotated[
    str | None,
    typer.Option(
        "--provider",
        "-p",
        help="LiteLLM model string, e.g. openai/gpt-4o-mini (default: `provider:` in canary.yaml).",
    ),
]
BaselineDirOpt = Annotated[
    Path | None,
    typer.Option(
        "--baseline-dir",
        help="Directory of baseline JSON files [default: baselines/ "
        "next to canary.yaml, else ./baselines].",
    ),
]
NoProgressOpt = Annotated[bool, typer.Option("--no-progress", help="Do not show progress.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print only the one-line summary.")]
VerboseOpt = Annotated[
    bool,
    typer.Option(
        "--verbose",
        "-v",
        help="List every regression and behaviour change in the terminal (a large report is "
        "shortened: regressions grouped by probe and cause).",
    ),
]
YesOpt = Annotated[
    bool,
    typer.Option(
        "--yes",
        "-y",
        help="Send without asking, however large the run (in a terminal, a run over 1,000 "
        "requests or $1 asks first; CI never asks).",
    ),
]


def _positive(value: float | None) -> float | None:
    """Option callback: refuse 0 and below (click ranges cannot express an open bound here)."""
    if value is not None and not value > 0:
        raise typer.BadParameter(f"must be greater than 0 (got {value})")
    return value


def _open_unit(value: float | None) -> float | None:
    """Option callback: a probability strictly between 0 and 1."""
    if value is not None and not 0.0 < value < 1.0:
        raise typer.BadParameter(f"must be between 0 and 1, exclusive (got {value})")
    return value


# The ranges are those of canary.yaml's settings (core/config.py SuiteSettings): a flag is refused
# before anything is sent, never passed on to the provider or stored in a run.
TemperatureOpt = Annotated[
    float | None,
    typer.Option(
        "--temperature", "-t", min=0.0, max=2.0, help="Sampling temperature override (0-2)."
    ),
]
MaxTokensOpt = Annotated[
    int | None, typer.Option("--max-tokens", min=1, help="max_tokens override.")
]
SeedOpt = Annotated[
    str | None,
    typer.Option(
        help='Seed override: a whole number, or "none" to send no seed [default: canary.yaml, '
        "else 42]. Models that take no seed (Anthropic) are sent none."
    ),
]
ConcurrencyOpt = Annotated[
    int | None,
    typer.Option(min=1, max=512, help="Requests in flight at once [default: 8 or canary.yaml]."),
]
SamplesOpt = Annotated[
    str | None,
    typer.Option(
        help='Times each prompt is sent, or "auto": screen, then confirm where it looks '
        "changed [default: canary.yaml, else auto]."
    ),
]
WorkersOpt = Annotated[
    int | None,
    typer.Option(
        min=1,
        max=64,
        help="Processes sharing a fixed-sample run, one per core (Linux; each holds its own "
        "LiteLLM, ~200 MB) [default: 1].",
    ),
]
MaxCostOpt = Annotated[
    float | None,
    typer.Option(
        "--max-cost", callback=_positive, help="Stop sending requests after this many USD."
    ),
]
ApiBaseOpt = Annotated[
    str | None, typer.Option("--api-base", help="Base URL of an OpenAI-compatible endpoint.")
]
ReplayOpt = Annotated[
    Path | None,
    typer.Option("--replay", help="Re-score the responses of a saved run JSON (no model calls)."),
]
ResumeOpt = Annotated[
    Path | None,
    typer.Option(
        "--resume",
        help="Answer from a run interrupted with Ctrl-C (.promptcanary/interrupted/...) what it "
        "answered, and ask the model only the rest.",
    ),
]
BatchOpt = Annotated[
    bool,
    typer.Option(
        "--batch",
        help="Send the suite as one provider batch job (OpenAI-compatible providers: about half "
        "the price, answers within 24 h) and wait for it. Fixed samples only.",
    ),
]
BatchTimeoutOpt = Annotated[
    str,
    typer.Option(
        "--batch-timeout",
        metavar="DURATION",
        help="Stop waiting for a --batch job after this long: 90s, 30m, 24h [default: 24h]; "
        "the batch keeps running and --batch-id fetches it later.",
    ),
]
BatchPollOpt = Annotated[
    str,
    typer.Option(
        "--batch-poll",
        metavar="DURATION",
        help="First wait between batch status checks, growing by half up to 5m [default: 10s].",
    ),
]
BatchIdOpt = Annotated[
    str | None,
    typer.Option(
        "--batch-id",
        help="Fetch and score a batch submitted earlier (same suite and model) instead of "
        "submitting a new one.",
    ),
]
EnvFileOpt = Annotated[
    Path | None,
    typer.Option(
        "--env-file",
        help="Read provider keys from this .env file [default: .env next to canary.yaml and "
        "in the current folder; none when CI is set].",
    ),
]
OutMdOpt = Annotated[Path | None, typer.Option("--output-md", help="Write a Markdown report.")]
OutHtmlOpt = Annotated[Path | None, typer.Option("--output-html", help="Write an HTML report.")]
OutJunitOpt = Annotated[
    Path | None,
    typer.Option(
        "--output-junit",
        help="Write JUnit XML for CI test reporters: a test case per probe and prompt (and per "
        "prompt whose answers changed).",
    ),
]


@app.command()
def init(
    name: Annotated[
        str | None,
        typer.Argument(help="Suite name; its files go into a new folder NAME/ [default: none]."),
    ] = None,
    directory: Annotated[
        Path, typer.Option("--dir", help="Repository folder to scaffold into [default: .].")
    ] = Path("."),
    force: Annotated[bool, typer.Option("--force", "-f", help="Overwrite existing files.")] = False,
) -> None:
    """Create canary.yaml, baselines/, .env.example and a GitHub workflow.

    With NAME, the suite goes into a new folder NAME/ (with a README.md); without, into the
    current folder (or --dir). The workflow always goes to .github/workflows/ of that folder
    (--dir), where GitHub looks for it.
    """
    from promptcanary.commands.init import run_init

    _done(run_init(name=name, directory=directory, force=force))


@app.command()
def run(
    config: ConfigOpt = Path("canary.yaml"),
    provider: ProviderOpt = None,
    temperature: TemperatureOpt = None,
    max_tokens: MaxTokensOpt = None,
    seed: SeedOpt = None,
    concurrency: ConcurrencyOpt = None,
    samples: SamplesOpt = None,
    workers: WorkersOpt = None,
    max_cost: MaxCostOpt = None,
    api_base: ApiBaseOpt = None,
    env_file: EnvFileOpt = None,
    replay: ReplayOpt = None,
    resume: ResumeOpt = None,
    batch: BatchOpt = False,
    batch_timeout: BatchTimeoutOpt = "24h",
    batch_poll: BatchPollOpt = "10s",
    batch_id: BatchIdOpt = None,
    save_baseline: Annotated[
        bool, typer.Option("--save-baseline", "-s", help="Save this run as the new baseline.")
    ] = False,
    baseline_dir: BaselineDirOpt = None,
    note: Annotated[str, typer.Option(help="Note stored with a saved baseline.")] = "",
    baseline_samples: Annotated[
        int | None,
        typer.Option(
            "--baseline-samples",
            min=1,
            max=1000,
            help="Samples per prompt for --save-baseline with samples: auto "
            "[default: canary.yaml, else 30].",
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", "--output-json", help="Write the run as JSON."),
    ] = None,
    output_md: OutMdOpt = None,
    output_html: OutHtmlOpt = None,
    output_junit: OutJunitOpt = None,
    fail_on_failure: Annotated[
        bool, typer.Option("--fail-on-failure", help="Exit 1 if any probe failed.")
    ] = False,
    shard: Annotated[
        str | None,
        typer.Option(
            "--shard",
            metavar="I/N",
            help="Run only slice I of N (e.g. 2/4) and write it with -o as a partial run; "
            "join the parts with `promptcanary merge`.",
        ),
    ] = None,
    no_progress: NoProgressOpt = False,
    quiet: QuietOpt = False,
    yes: YesOpt = False,
) -> None:
    """Run the suite against a model and show the scores (optionally save a baseline)."""
    options = dict(locals())
    from promptcanary.commands.run import RunArgs, run_command

    _done(run_command(RunArgs(**options)))


@app.command()
def compare(
    config: Annotated[
        Path | None, typer.Option("--config", "-c", help="Path to canary.yaml.")
    ] = None,
    provider: ProviderOpt = None,
    current: Annotated[
        Path | None,
        typer.Option("--current", help="A saved run JSON to compare instead of running."),
    ] = None,
    baseline: Annotated[
        Path | None,
        typer.Option("--baseline", "-b", help="A baseline JSON file to compare with."),
    ] = None,
    baseline_dir: BaselineDirOpt = None,
    temperature: TemperatureOpt = None,
    max_tokens: MaxTokensOpt = None,
    seed: SeedOpt = None,
    concurrency: ConcurrencyOpt = None,
    samples: SamplesOpt = None,
    workers: WorkersOpt = None,
    max_cost: MaxCostOpt = None,
    api_base: ApiBaseOpt = None,
    env_file: EnvFileOpt = None,
    replay: ReplayOpt = None,
    resume: ResumeOpt = None,
    batch: BatchOpt = False,
    batch_timeout: BatchTimeoutOpt = "24h",
    batch_poll: BatchPollOpt = "10s",
    batch_id: BatchIdOpt = None,
    output_md: OutMdOpt = None,
    output_html: OutHtmlOpt = None,
    output_junit: OutJunitOpt = None,
    output_json: Annotated[
        Path | None, typer.Option("--output-json", help="Write the drift report as JSON.")
    ] = None,
    save_run: Annotated[
        Path | None, typer.Option("--save-run", help="Also write the current run as JSON.")
    ] = None,
    fail_on_drift: Annotated[
        bool, typer.Option("--fail-on-drift", help="Exit 1 on any regression.")
    ] = False,
    fail_on_severity: Annotated[
        str | None,
        typer.Option(
            help="Exit 1 when severity is at least this: low|medium|high|critical. Answers that "
            "changed while every probe held are severity low."
        ),
    ] = None,
    fail_on_suite_change: Annotated[
        bool,
        typer.Option(
            "--fail-on-suite-change",
            help="Exit 1 when canary.yaml gained, lost or edited prompts or probes since the "
            "baseline (require a new baseline with every suite edit).",
        ),
    ] = False,
    fail_on_behaviour_change: Annotated[
        bool,
        typer.Option(
            "--fail-on-behaviour-change",
            help="Exit 1 when the answers changed although every probe held: a prompt named, "
            "or the suite-level answer test (reported as severity low; without this flag only "
            "--fail-on-severity low fails on it).",
        ),
    ] = False,
    regression_threshold: Annotated[
        float | None, typer.Option(help="Min score drop for a regression [default: 0.05].")
    ] = None,
    improvement_threshold: Annotated[
        float | None, typer.Option(help="Min score gain for an improvement [default: 0.05].")
    ] = None,
    alpha: Annotated[
        float | None,
        typer.Option(
            callback=_open_unit, help="False discovery rate with samples [default: 0.05]."
        ),
    ] = None,
    min_effect: Annotated[
        float | None, typer.Option(help="Min effect with samples [default: 0.1].")
    ] = None,
    max_error_rate: Annotated[
        float | None,
        typer.Option(help="Error rate above which the verdict is inconclusive [default: 0.2]."),
    ] = None,
    no_progress: NoProgressOpt = False,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
    yes: YesOpt = False,
) -> None:
    """Compare a run (fresh, or saved with --current) with the newest baseline."""
    options = dict(locals())
    from promptcanary.commands.compare import CompareArgs, compare_command

    _done(compare_command(CompareArgs(**options)))


@app.command()
def merge(
    parts: Annotated[
        list[Path],
        typer.Argument(help="The partial runs written by `run --shard i/n -o ...`, all of them."),
    ],
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Write the merged run here (JSON).")
    ],
) -> None:
    """Join the partial runs of a sharded run into one run for `compare --current`."""
    from promptcanary.commands.merge import merge_command

    _done(merge_command(parts=parts, output=output))


@app.command()
def report(
    input: Annotated[Path, typer.Argument(help="A run JSON or a drift report JSON.")],
    format: Annotated[
        str, typer.Option("--format", "-f", help="terminal | markdown | html | json | junit")
    ] = "terminal",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write here instead of stdout.")
    ] = None,
    budget: Annotated[
        int | None,
        typer.Option(min=1000, help="Max characters of Markdown output [default: none]."),
    ] = None,
    open_browser: Annotated[
        bool,
        typer.Option(
            "--open", help="HTML: write next to INPUT (or to -o) and open it in a browser."
        ),
    ] = False,
    full: Annotated[
        bool,
        typer.Option(
            "--full", help="Terminal, run or baseline: every distinct answer, whole (not clipped)."
        ),
    ] = False,
    verbose: VerboseOpt = False,
) -> None:
    """Render a saved run or drift report in another format (a run's answers too)."""
    from promptcanary.commands.report import report_command

    _done(
        report_command(
            input=input,
            format=format,
            output=output,
            budget=budget,
            open_browser=open_browser,
            full_answers=full,
            verbose=verbose,
        )
    )


@app.command()
def plan(
    effect: Annotated[
        float | None,
        typer.Option(help="Drop in pass rate to detect, e.g. 0.3: how many samples catch it."),
    ] = None,
    baseline_rate: Annotated[float, typer.Option(help="Baseline pass rate.")] = 0.9,
    alpha: Annotated[float, typer.Option(help="False-alarm rate per pair.")] = 0.05,
    power: Annotated[float, typer.Option(help="Chance to detect the drop.")] = 0.95,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config", "-c", help="canary.yaml (for request counts) [default: ./canary.yaml]."
        ),
    ] = None,
    provider: ProviderOpt = None,
    baseline_dir: BaselineDirOpt = None,
) -> None:
    """What the next check will cost; with --effect, how many samples detect a drop.

    Without options: the requests and estimated cost of the next `compare` of ./canary.yaml
    (or -c) against its newest baseline, and of recording a new baseline. With --effect: the
    samples per prompt that detect a drop of that size, and what a run of them costs.
    """
    if config is None and Path("canary.yaml").is_file():
        config = Path("canary.yaml")  # like run and compare
    from promptcanary.commands.plan import plan_command

    _done(
        plan_command(
            effect=effect,
            baseline_rate=baseline_rate,
            alpha=alpha,
            power=power,
            config=config,
            provider=provider,
            baseline_dir=baseline_dir,
        )
    )


@baselines_app.callback()
def baselines_default(
    ctx: typer.Context,
    directory: Annotated[
        Path | None,
        typer.Option("--dir", "-d", help="Baseline directory (as `baselines list`).", hidden=True),
    ] = None,
    suite: Annotated[
        str | None, typer.Option("--suite", "-s", help="Only this suite.", hidden=True)
    ] = None,
) -> None:
    """Without a subcommand: list baselines (promptcanary 0.2's `baselines --dir D --suite S`)."""
    if ctx.invoked_subcommand is not None:
        if directory is not None or suite is not None:
            from promptcanary.errors import ConfigError

            # Silently ignoring them would list or chart another directory than the one meant.
            raise ConfigError(
                "only applies to a bare `promptcanary baselines`",
                field="--dir/--suite",
                hint=f"Pass --baseline-dir / --suite after `{ctx.invoked_subcommand}`.",
            )
        return
    from promptcanary.commands.baselines import list_command

    _done(list_command(baseline_dir=directory, suite=suite, model=None))


#: `baselines` subcommands find the folder as `run` does: baselines/ next to -c canary.yaml.
BaselinesConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--config", "-c", help="canary.yaml: its baselines/ folder, and only its suite's baselines."
    ),
]


@baselines_app.command("list")
def baselines_list(
    config: BaselinesConfigOpt = None,
    baseline_dir: BaselineDirOpt = None,
    suite: Annotated[str | None, typer.Option(help="Only this suite.")] = None,
    provider: ProviderOpt = None,
) -> None:
    """List baselines, newest first, a table per suite (every suite below here without -c)."""
    from promptcanary.commands.baselines import list_command

    _done(list_command(baseline_dir=baseline_dir, suite=suite, model=provider, config=config))


@baselines_app.command("show")
def baselines_show(
    snapshot: Annotated[str, typer.Argument(help="Snapshot id, or a baseline file path.")],
    config: BaselinesConfigOpt = None,
    baseline_dir: BaselineDirOpt = None,
    answers: Annotated[
        bool,
        typer.Option("--answers", "-a", help="Also show each prompt's typical answers."),
    ] = False,
    full: Annotated[
        bool, typer.Option("--full", help="Show every distinct answer, whole (implies --answers).")
    ] = False,
) -> None:
    """Show one baseline's scores (and, with --answers, what the model answered)."""
    from promptcanary.commands.baselines import show_command

    _done(
        show_command(
            snapshot=snapshot, baseline_dir=baseline_dir, config=config, answers=answers, full=full
        )
    )


@baselines_app.command("delete")
def baselines_delete(
    snapshot: Annotated[str, typer.Argument(help="Full snapshot id.")],
    config: BaselinesConfigOpt = None,
    baseline_dir: BaselineDirOpt = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete one baseline."""
    from promptcanary.commands.baselines import delete_command

    _done(delete_command(snapshot=snapshot, baseline_dir=baseline_dir, yes=yes, config=config))


@baselines_app.command("history")
def baselines_history(
    config: BaselinesConfigOpt = None,
    baseline_dir: BaselineDirOpt = None,
    suite: Annotated[str | None, typer.Option(help="Only this suite.")] = None,
    provider: ProviderOpt = None,
    chart: Annotated[
        str, typer.Option(help="all | scores | probes | drift (between successive baselines).")
    ] = "all",
    runs: Annotated[
        list[Path] | None,
        typer.Option(
            "--runs",
            help="Saved checks to include (`compare --save-run FILE`): a run file, or a folder "
            "of them; repeatable [default: checks/ next to the baselines folder].",
        ),
    ] = None,
) -> None:
    """Chart the stored baselines (and saved checks) over time: scores, heatmap, drift."""
    from promptcanary.commands.baselines import history_command

    _done(
        history_command(
            baseline_dir=baseline_dir,
            suite=suite,
            model=provider,
            chart=chart,
            config=config,
            runs=runs,
        )
    )


@app.command()
def version() -> None:
    """Print the PromptCanary version."""
    from promptcanary import __version__

    typer.echo(f"PromptCanary {__version__}")  # promptcanary 0.2's wording


def _done(code: int) -> None:
    """End a command with its exit code (click ignores return values in standalone mode)."""
    raise typer.Exit(code)


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point: run the CLI and turn errors into messages + exit codes."""
    from promptcanary.commands.errors import run_cli

    return run_cli(app, argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
