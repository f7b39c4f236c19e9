"""`promptcanary plan`: what the next check will cost; with ``--effect``, the samples needed to
detect a drop and what a run of them would cost."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from promptcanary.commands.common import default_baseline_dir, load_env_files
from promptcanary.errors import EXIT_OK, ConfigError

if TYPE_CHECKING:
    from promptcanary.pipeline.usecases.plan import Advice, NextCheck


def plan_command(
    *,
    effect: float | None,
    baseline_rate: float,
    alpha: float,
    power: float,
    config: Path | None,
    provider: str | None,
    baseline_dir: Path | None,
) -> int:
    for name, value in (
        ("--effect", effect),
        ("--baseline-rate", baseline_rate),
        ("--alpha", alpha),
        ("--power", power),
    ):
        if value is None:
            continue
        if not 0.0 < value < 1.0 and not (name == "--baseline-rate" and value == 1.0):
            raise ConfigError(f"must be between 0 and 1 (got {value})", field=name)
    if effect is not None and effect > baseline_rate:
        raise ConfigError(
            f"a drop of {effect} from a pass rate of {baseline_rate} is impossible",
            field="--effect",
        )
    from promptcanary.pipeline import PlanRequest, litellm_price, open_store, plan

    if config is not None:
        load_env_files(config)
    advice = plan(
        PlanRequest(effect, baseline_rate, alpha, power, config=config, model=provider),
        open_store(default_baseline_dir(baseline_dir, config)),
        pricer=litellm_price,
    )
    if advice.next_check is not None:
        assert config is not None  # a next check is planned for a suite file
        text = _next_check_text(advice.next_check, config, provider, baseline_dir)
    else:
        text = _sizing_text(advice)
    # Plain lines, never wrapped and never styled: rich (~30 ms to import) would add nothing.
    sys.stdout.write(text + "\n")
    return EXIT_OK


def _next_check_text(
    nxt: NextCheck, config: Path, provider: str | None, baseline_dir: Path | None
) -> str:
    """What `compare` will send and cost, the baseline it compares with, and what next."""
    import shlex

    flags = ["-c", str(config)] + (["-p", provider] if provider else [])
    flags += ["--baseline-dir", str(baseline_dir)] if baseline_dir is not None else []
    lines = [f"Suite {nxt.suite} on {nxt.model}."]
    if nxt.check is not None and nxt.baseline is not None:
        b = nxt.baseline
        samples = b.run_result.samples
        lines += [
            f"Next check (`{shlex.join(['promptcanary', 'compare', *flags])}`), against baseline "
            f"{b.snapshot_id[:8]} of {b.created_at:%Y-%m-%d %H:%M} UTC "
            f"({samples} sample(s) per prompt):",
            f"  {nxt.check.line()}",
            f"A new baseline (`{shlex.join(['promptcanary', 'run', *flags, '--save-baseline'])}`):",
            f"  {nxt.baseline_run.line()}",
        ]
    else:
        lines += [
            f"No baseline of this suite and model yet: a check (`promptcanary compare`) has "
            "nothing to compare with and stops before its first request. Record one first "
            f"(`{shlex.join(['promptcanary', 'run', *flags, '--save-baseline'])}`):",
            f"  {nxt.baseline_run.line()}",
        ]
    lines.append(
        "How many samples catch a drop of a given size: `promptcanary plan --effect 0.3` "
        "(a drop in pass rate from 0.9 to 0.6)."
    )
    return "\n".join(lines)


def _sizing_text(advice: Advice) -> str:
    """Samples and cost to detect the drop asked, and what the answer test detects."""
    from promptcanary.core.verdict import planning

    assert advice.fixed is not None and advice.behaviour is not None
    text = planning.describe(advice.fixed)
    if advice.adaptive is not None:
        # One piece of advice: samples: auto first (the default), the fixed count as the
        # alternative for suites that set an integer.
        text = (
            "\n".join(advice.adaptive.lines())
            + "\n\nWith a fixed sample count instead (samples: N):\n"
            + text
        )
    return text + "\n\n" + "\n".join(advice.behaviour.lines())
