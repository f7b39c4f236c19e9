"""`promptcanary plan`: samples needed to detect a drop, and what a run would cost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from promptcanary.commands.common import default_baseline_dir, load_suite, stdout_console
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
    from promptcanary.providers.litellm import token_price

    suite = load_suite(config) if config is not None else None
    snapshot = None
    if suite is not None:
        from promptcanary.errors import BaselineNotFoundError
        from promptcanary.storage.file import FileBaselineStore

        model = provider or suite.settings.provider
        store = FileBaselineStore(default_baseline_dir(baseline_dir, config))
        try:
            snapshot = store.load_latest(suite.name, model)
        except BaselineNotFoundError:
            snapshot = None
    result = planning.plan(
        effect=effect,
        baseline_rate=baseline_rate,
        alpha=alpha,
        power=power,
        suite=suite,
        baseline=snapshot,
        model=provider,
        pricer=token_price,
    )
    text = planning.describe(result)
    if suite is None or suite.settings.adaptive:
        # One piece of advice: samples: auto first (the default), the fixed count as the
        # alternative for suites that set an integer.
        adaptive = planning.plan_adaptive(
            effect,
            baseline_rate=baseline_rate,
            alpha=alpha,
            power=power,
            suite=suite,
            baseline=snapshot,
        )
        text = (
            "\n".join(adaptive.lines())
            + "\n\nWith a fixed sample count instead (samples: N):\n"
            + text
        )
    text += "\n\n" + "\n".join(_behaviour_lines(result, suite, alpha=alpha))
    stdout_console().print(text, markup=False, soft_wrap=True)
    return EXIT_OK


def _behaviour_lines(result: Any, suite: Any, *, alpha: float) -> list[str]:
    """What the answer test detects at the samples this plan chose."""
    from promptcanary.core.verdict.adaptive import DEFAULT_BASELINE_SAMPLES
    from promptcanary.core.verdict.behaviour_plan import plan_behaviour

    adaptive = suite is None or suite.settings.adaptive
    plan = plan_behaviour(
        samples=None if adaptive else result.samples,
        baseline_samples=suite.settings.baseline_samples if suite else DEFAULT_BASELINE_SAMPLES,
        alpha=alpha,
        prompts=len(suite.prompts) if suite else None,
    )
    return plan.lines()
