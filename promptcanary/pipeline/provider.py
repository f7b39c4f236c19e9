"""Which model runs and through what: LiteLLM after the pre-flight checks, or a saved run."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from promptcanary.errors import (
    ConfigError,
)

if TYPE_CHECKING:
    from promptcanary.core.models import CanaryRunResult
    from promptcanary.core.suite import CanarySuite
    from promptcanary.pipeline.overrides import Overrides
    from promptcanary.providers.base import BaseLLMProvider


def named_model(overrides: Overrides, suite: CanarySuite | None) -> str | None:
    """The model named for this run: the override, else the replayed run's, else canary.yaml's
    ``provider:``; None when nothing names one (``plan`` then prices no model)."""
    if overrides.model:
        return overrides.model
    if overrides.replay is not None:
        return load_run(overrides.replay).provider.model_id
    if suite is not None and suite.settings.provider:
        return suite.settings.provider
    return None


def resolve_model(overrides: Overrides, suite: CanarySuite | None) -> str:
    """The model to call (see :func:`named_model`).

    Raises:
        ConfigError: no model is named anywhere.
    """
    model = named_model(overrides, suite)
    if model is not None:
        return model
    raise ConfigError(
        "no model given",
        field="provider",
        hint="Name one with -p/--provider (CLI) or the `provider` input (Action), e.g. "
        "openai/gpt-4o-mini, or set `provider:` in canary.yaml.",
    )


def make_provider(model: str, overrides: Overrides) -> BaseLLMProvider:
    """A replay of the saved run when ``overrides.replay`` is set, else LiteLLM for ``model``.

    LiteLLM is imported only here, so paths that never call a model never pay for it.

    Raises:
        ConfigError: the model cannot be called as configured (exit 2, nothing sent).
    """
    if overrides.replay is not None:
        from promptcanary.providers.replay import ReplayProvider

        return ReplayProvider(load_run(overrides.replay))
    from promptcanary.providers.litellm import LiteLLMProvider
    from promptcanary.providers.preflight import preflight

    # Before the first request: a missing key, a model LiteLLM cannot route or a base URL
    # without a scheme would otherwise cost a run of retried requests to find out.
    preflight(model, api_base=overrides.api_base)
    if overrides.batch or overrides.batch_id:
        from promptcanary.providers.batch import check_batch_support

        check_batch_support(model)
    extra: dict[str, Any] = {"api_base": overrides.api_base} if overrides.api_base else {}
    return LiteLLMProvider(model, **extra)


def load_run(path: Path) -> CanaryRunResult:
    """A saved run: a file written by ``run -o``, or the run inside a baseline file.

    Raises:
        InputError: the file is not a run, or is one part of a sharded run (merge it first).
    """
    from promptcanary.errors import InputError
    from promptcanary.storage.runs import load_run as _load

    run = _load(path)
    if run.shard is not None:
        raise InputError(
            f"{path} is shard {run.shard.index}/{run.shard.count} of a sharded run, not a whole "
            "run",
            hint="Join the parts first: `promptcanary merge part-*.json -o run.json`, then use "
            "run.json.",
        )
    return run
