"""Running the suite and comparing it with its baseline, as the Action needs it.

The provider is made by a factory passed in (:data:`ProviderFactory`), so tests can hand in any
provider; the default one builds a :class:`~promptcanary.providers.litellm.LiteLLMProvider`
(LiteLLM reads the key and base URL from the step's ``env:``) or, with the ``replay`` input, a
:class:`~promptcanary.providers.replay.ReplayProvider` that needs no key at all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from promptcanary.action.settings import ActionConfig
from promptcanary.errors import BaselineNotFoundError, ConfigError

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


def load_target(config: ActionConfig) -> Target:
    """Load canary.yaml and settle which model runs: input, else replayed run, else the suite's.

    Raises:
        ConfigError: the suite is invalid, or no model is named anywhere.
    """
    from promptcanary.core.suite import CanarySuite

    suite = CanarySuite.from_yaml(config.config_path)
    model = config.provider
    if model is None and config.replay_path is not None:
        from promptcanary.providers.replay import load_run

        model = load_run(config.replay_path).provider.model_id
    model = model or suite.settings.provider
    if not model:
        raise ConfigError(
            "no model to run: the 'provider' input is empty and the suite sets no `provider:`",
            field="with.provider",
            hint="Set `provider: openai/gpt-4o-mini` (any LiteLLM model string) under `with:`, "
            f"or `provider:` in {config.config_path.name}.",
        )
    return Target(suite=suite, model=model, replay=config.replay_path is not None)


def default_provider(model: str, config: ActionConfig) -> BaseLLMProvider:
    """A replay of the saved run when ``replay`` is set, else LiteLLM for ``model``."""
    if config.replay_path is not None:
        from promptcanary.providers.replay import ReplayProvider

        return ReplayProvider(config.replay_path)
    from promptcanary.providers.litellm import LiteLLMProvider

    return LiteLLMProvider(model)


def run_suite(
    target: Target, config: ActionConfig, make_provider: ProviderFactory
) -> CanaryRunResult:
    """Run every prompt of the suite (settings from the inputs, else from canary.yaml)."""
    provider = make_provider(target.model, config)
    samples = config.samples
    if samples is None and target.replay:
        samples = getattr(provider, "samples", None)  # replay as many samples as were saved
    return target.suite.run(
        provider,
        temperature=config.temperature,
        max_tokens=config.max_tokens,
        seed=config.seed,
        show_progress=False,
        concurrency=config.concurrency,
        samples=samples if isinstance(samples, int) else None,
    )


def store_for(config: ActionConfig) -> FileBaselineStore:
    """The baseline store in the checked-out workspace."""
    from promptcanary.storage.file import FileBaselineStore

    return FileBaselineStore(config.baseline_dir)


def latest_baseline(
    store: FileBaselineStore, suite_name: str, model: str
) -> BaselineSnapshot | None:
    """The newest baseline for (suite, model), or None when there is none yet."""
    try:
        return store.load_latest(suite_name, model)
    except BaselineNotFoundError:
        return None


def compare_run(
    baseline: BaselineSnapshot, run: CanaryRunResult, suite: CanarySuite, config: ActionConfig
) -> DriftReport:
    """compare() with thresholds from the inputs, else from canary.yaml."""
    from promptcanary.core.comparator import compare

    s = suite.settings
    return compare(
        baseline,
        run,
        regression_threshold=_first(config.regression_threshold, s.regression_threshold),
        improvement_threshold=_first(config.improvement_threshold, s.improvement_threshold),
        alpha=s.alpha,
        min_effect=s.min_effect,
        max_error_rate=s.max_error_rate,
    )


def run_is_unusable(run: CanaryRunResult, suite: CanarySuite) -> str | None:
    """Why a run cannot be trusted (aborted, too many errors), or None."""
    if run.aborted:
        return f"the run stopped early: {run.aborted}"
    limit = suite.settings.max_error_rate
    if run.llm_responses and run.error_rate > limit:
        return f"{run.error_rate:.0%} of requests errored (limit {limit:.0%})"
    return None


def _first(value: float | None, default: float) -> float:
    return default if value is None else value
