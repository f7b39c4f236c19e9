"""The Action's side of the shared pipeline: its inputs as :class:`~promptcanary.pipeline.Overrides`.

Every use case — pick the model, build the provider, run, judge whether the run is usable, find
the baseline, compare, gate — is :mod:`promptcanary.pipeline`'s, the same code the CLI calls. This
module only turns :class:`ActionConfig` into the pipeline's values. The provider is made by a
factory passed in (:data:`ProviderFactory`), so tests can hand in any provider.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from promptcanary import pipeline
from promptcanary.action.settings import ActionConfig

if TYPE_CHECKING:
    from promptcanary.core.models import BaselineSnapshot, CanaryRunResult, DriftReport
    from promptcanary.core.suite import CanarySuite
    from promptcanary.providers.base import BaseLLMProvider
    from promptcanary.storage.file import FileBaselineStore

#: (model, config) -> provider. The Action's default is :func:`default_provider`.
ProviderFactory = Callable[[str, ActionConfig], "BaseLLMProvider"]


@dataclass(frozen=True)
class Target:
    """The suite and the model this run measures."""

    suite: CanarySuite
    model: str
    replay: bool


def overrides_for(config: ActionConfig) -> pipeline.Overrides:
    """The inputs that change the run or the comparison (empty inputs keep canary.yaml's)."""
    return pipeline.Overrides(
        model=config.provider,
        temperature=config.temperature,
        max_tokens=config.max_tokens,
        seed=config.seed,
        samples=config.samples,
        baseline_samples=config.baseline_samples,
        concurrency=config.concurrency,
        replay=config.replay_path,
        regression_threshold=config.regression_threshold,
        improvement_threshold=config.improvement_threshold,
    )


def gate_policy(config: ActionConfig) -> pipeline.GatePolicy:
    """When the check fails: ``fail-on-severity``, ``fail-on-inconclusive``,
    ``fail-on-suite-change``, ``fail-on-behaviour-change``."""
    return pipeline.GatePolicy(
        fail_on_severity=config.fail_on_severity,
        fail_on_inconclusive=config.fail_on_inconclusive,
        fail_on_suite_change=config.fail_on_suite_change,
        fail_on_behaviour_change=config.fail_on_behaviour_change,
    )


def load_target(config: ActionConfig) -> Target:
    """Load canary.yaml and settle which model runs (see :func:`pipeline.resolve_model`).

    Raises:
        ConfigError: the suite is invalid, or no model is named anywhere.
    """
    from promptcanary.core.suite import CanarySuite

    suite = CanarySuite.from_yaml(config.config_path)
    model = pipeline.resolve_model(overrides_for(config), suite)
    return Target(suite=suite, model=model, replay=config.replay_path is not None)


def default_provider(model: str, config: ActionConfig) -> BaseLLMProvider:
    """A replay of the saved run when ``replay`` is set, else LiteLLM for ``model``."""
    return pipeline.make_provider(model, overrides_for(config))


def run_suite(
    target: Target,
    config: ActionConfig,
    provider: BaseLLMProvider,
    *,
    baseline: BaselineSnapshot | None = None,
    for_baseline: bool = False,
) -> CanaryRunResult:
    """Run the suite under the sampling policy (see :func:`pipeline.measure`): an adaptive check
    against ``baseline``, or ``baseline_samples`` per prompt for a run to be promoted."""
    return pipeline.measure(
        target.suite,
        provider,
        overrides_for(config),
        baseline=baseline,
        for_baseline=for_baseline,
    )


def store_for(config: ActionConfig) -> FileBaselineStore:
    """The baseline store in the checked-out workspace."""
    from promptcanary.storage.file import FileBaselineStore

    return FileBaselineStore(config.baseline_dir)


def latest_baseline(
    store: FileBaselineStore, suite_name: str, model: str
) -> BaselineSnapshot | None:
    """The newest baseline for (suite, model), or None when there is none yet."""
    return pipeline.latest_baseline(store, suite_name, model)


def compare_run(
    baseline: BaselineSnapshot, run: CanaryRunResult, suite: CanarySuite, config: ActionConfig
) -> DriftReport:
    """compare() with thresholds from the inputs, else from canary.yaml."""
    return pipeline.compare_with_settings(baseline, run, suite.settings, overrides_for(config))


def run_is_unusable(run: CanaryRunResult, suite: CanarySuite, config: ActionConfig) -> str | None:
    """Why a run cannot be trusted (aborted, measured nothing, too many errors), or None."""
    return pipeline.unusable_reason(run, overrides_for(config).error_limit(suite.settings))
