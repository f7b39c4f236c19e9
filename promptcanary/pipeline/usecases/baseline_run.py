"""The baseline run: measure the suite and, when asked and the run is usable, save it as the new
baseline.

``promptcanary run`` (with or without ``--save-baseline``, or one ``--shard``) and the Action's
promotion run this sequence. A run that says nothing about the model (it stopped early, measured
nothing or errored too often) is never saved, whatever asked for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from promptcanary.pipeline.baselines import SavedBaseline, latest_baseline, save_baseline
from promptcanary.pipeline.cost import plan_run
from promptcanary.pipeline.measure import measure, measure_shard, unusable_reason
from promptcanary.pipeline.overrides import Overrides
from promptcanary.pipeline.ports import Ports, Ready
from promptcanary.pipeline.provider import resolve_model
from promptcanary.pipeline.verdict import compare_with_settings

if TYPE_CHECKING:
    from promptcanary.core.models import BaselineSnapshot, CanaryRunResult, DriftReport
    from promptcanary.core.run.shards import Shard
    from promptcanary.core.suite import CanarySuite
    from promptcanary.storage.file import FileBaselineStore


@dataclass(frozen=True)
class BaselineRunRequest:
    """What to measure, and whether to keep it as the baseline."""

    config: Path
    overrides: Overrides = field(default_factory=Overrides)
    save: bool = False
    """Save the run as the newest baseline (when it is usable)."""
    note: str = ""
    """Stored with the baseline."""
    shard: Shard | None = None
    """Measure only this slice (a part of a run: never saved)."""
    compare_with_previous: bool = False
    """Also compare the run with the baseline it replaces (the Action's promotion comment)."""


@dataclass(frozen=True)
class BaselineRun:
    """What a baseline run measured and kept."""

    run: CanaryRunResult
    suite: CanarySuite
    unusable: str | None
    """Why the run cannot be a baseline, or None."""
    previous: BaselineSnapshot | None
    """The newest baseline before this run (None: the first, or unreadable)."""
    saved: SavedBaseline | None
    """The baseline written; None when not asked or the run is unusable."""
    change: DriftReport | None = None
    """The run against ``previous`` (with ``compare_with_previous``)."""


def baseline_run(request: BaselineRunRequest, ports: Ports) -> BaselineRun:
    """Load the suite, make the provider, find the baseline it replaces, announce the plan,
    measure, keep the run, judge whether it is usable, save it.

    Raises:
        ConfigError: the suite or the overrides are invalid, no model is named, or the plan was
            not confirmed (exit 2, nothing sent).
        StorageError: the baseline could not be written (its text is kept elsewhere).
    """
    from promptcanary.core.suite import CanarySuite

    overrides = request.overrides
    suite = CanarySuite.from_yaml(request.config)
    provider = ports.make_provider(resolve_model(overrides, suite), overrides)
    model = provider.config.model_id
    previous = _newest_readable(ports.store, suite.name, model)
    if request.shard is not None:
        ports.announce(Ready(suite, model, previous, None))
        run = measure_shard(suite, provider, overrides, request.shard, progress=ports.progress)
    else:
        plan = plan_run(
            suite,
            overrides,
            model,
            for_baseline=request.save,
            priced_by=previous,
            pricer=ports.pricer,
        )
        ports.announce(Ready(suite, model, previous, plan))
        run = measure(
            suite,
            provider,
            overrides,
            progress=ports.progress,
            for_baseline=request.save,
            notify=ports.notify,
        )
    ports.keep(run)
    unusable = unusable_reason(run, overrides.error_limit(suite.settings))
    change = None
    if request.compare_with_previous and previous is not None and not unusable:
        change = compare_with_settings(previous, run, suite.settings, overrides)
    saved = None
    if request.save and not unusable and request.shard is None:
        saved = save_baseline(ports.store, run, note=request.note)
    return BaselineRun(run, suite, unusable, previous, saved, change)


def _newest_readable(
    store: FileBaselineStore, suite_name: str, model: str
) -> BaselineSnapshot | None:
    """The newest baseline, for the plan's prices and the promotion's comparison; one that
    cannot be read is no reason to stop recording a new one."""
    from promptcanary.errors import PromptCanaryError

    try:
        return latest_baseline(store, suite_name, model)
    except PromptCanaryError:
        return None
