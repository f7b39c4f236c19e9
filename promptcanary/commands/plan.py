"""`promptcanary plan`: samples needed to detect a drop, and what a run would cost."""

from __future__ import annotations

from pathlib import Path

from promptcanary.commands.common import default_baseline_dir, load_env_files, stdout_console
from promptcanary.errors import EXIT_OK, ConfigError


def plan_command(
    *,
    effect: float,
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
        if not 0.0 < value < 1.0 and not (name == "--baseline-rate" and value == 1.0):
            raise ConfigError(f"must be between 0 and 1 (got {value})", field=name)
    if effect > baseline_rate:
        raise ConfigError(
            f"a drop of {effect} from a pass rate of {baseline_rate} is impossible",
            field="--effect",
        )
    from promptcanary.core.verdict import planning
    from promptcanary.pipeline import PlanRequest, litellm_price, open_store, plan

    if config is not None:
        load_env_files(config)
    advice = plan(
        PlanRequest(effect, baseline_rate, alpha, power, config=config, model=provider),
        open_store(default_baseline_dir(baseline_dir, config)),
        pricer=litellm_price,
    )
    text = planning.describe(advice.fixed)
    if advice.adaptive is not None:
        # One piece of advice: samples: auto first (the default), the fixed count as the
        # alternative for suites that set an integer.
        text = (
            "\n".join(advice.adaptive.lines())
            + "\n\nWith a fixed sample count instead (samples: N):\n"
            + text
        )
    text += "\n\n" + "\n".join(advice.behaviour.lines())
    stdout_console().print(text, markup=False, soft_wrap=True)
    return EXIT_OK
