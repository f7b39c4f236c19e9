"""The baseline run: measure the suite and, when asked and the run is usable, save it as the new
baseline. ``promptcanary run`` (whole, or one ``--shard``) and the Action's promotion run it; a
run that says nothing about the model is never saved, whatever asked for it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from promptcanary.pipeline.baselines import latest_baseline, save_baseline
from promptcanary.pipeline.cost import plan_run
from promptcanary.pipeline.measure import measure, measure_shard, unusable_reason
from promptcanary.pipeline.overrides import Overrides
from promptcanary.pipeline.ports import Ports, Ready
from promptcanary.pipeline.provider import resolve_model
from promptcanary.pipeline.resume import kept_on_interrupt, resuming, still_to_send
from promptcanary.pipeline.verdict import compare_with_settings

if TYPE_CHECKING:
    from promptcanary.core.models import BaselineSnapshot, CanaryRunResult, DriftReport
    from promptcanary.core.run.shards import Shard
    from promptcanary.storage.file import SavedBaseline


@dataclass(frozen=True)
class BaselineRunRequest:
    """What to measure, and whether to keep it as the baseline."""

    config: Path
    overrides: Overrides = field(default_factory=Overrides)
    save: bool = False
    """Save the run as the newest baseline (when it is usable)."""
    note: str = ""
    compare_with_previous: bool = False
    """Also compare the run with the baseline it replaces (the Action's promotion comment)."""
    shard: Shard | None = None
    """Measure only this slice of the suite: a part of a run, never saved."""


@dataclass(frozen=True)
class BaselineRun:
    """What a baseline run measured and kept."""

    run: CanaryRunResult
    unusable: str | None
    """Why the run cannot be a baseline (see :func:`unusable_reason`), or None."""
    previous: BaselineSnapshot | None
    """The newest baseline before this run (None: the first, or one that cannot be read)."""
    change: DriftReport | None
    """The run against ``previous`` (with ``compare_with_previous``)."""
    saved: SavedBaseline | None
    """The snapshot and every file written (commit them all); None when not asked, or the run
    is unusable."""


def baseline_run(request: BaselineRunRequest, ports: Ports) -> BaselineRun:
    """Load the suite, make the provider (answering first from an interrupted run with
    ``--resume``), find the baseline it replaces, announce the plan, measure, keep the run, judge
    whether it is usable, save it.

    Raises:
        ConfigError: the suite or the overrides are invalid, no model is named, or the plan was
            not confirmed (exit 2, nothing sent).
        StorageError: the baseline could not be written (its text is kept elsewhere).
        RunInterruptedError: Ctrl-C stopped the measurement; its answers were kept (``path``).
    """
    from promptcanary.core.suite import CanarySuite
    from promptcanary.errors import PromptCanaryError

    overrides, shard = request.overrides, request.shard
    suite = CanarySuite.from_yaml(request.config)
    provider = ports.make_provider(resolve_model(overrides, suite), overrides)
    provider, resume = resuming(overrides, suite, provider)
    model = provider.config.model_id
    try:  # it prices the plan and shows the change: one that cannot be read stops nothing
        previous = latest_baseline(ports.store, suite.name, model)
    except PromptCanaryError:
        previous = None
    plan = None  # one slice of a sharded run: each machine of the matrix sends it unasked
    if shard is None:
        plan = plan_run(
            suite,
            overrides,
            model,
            for_baseline=request.save,
            priced_by=previous,
            pricer=ports.pricer,
        )
    ports.announce(Ready(suite, model, still_to_send(plan, resume)))
    with kept_on_interrupt(request.config, overrides):
        if shard is not None:
            run = measure_shard(suite, provider, overrides, shard, progress=ports.progress)
        else:
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
    change = saved = None
    if request.compare_with_previous and previous is not None and not unusable:
        change = compare_with_settings(previous, run, suite.settings, overrides)
    if request.save and not unusable and shard is None:
        saved = save_baseline(ports.store, run, note=request.note)
    return BaselineRun(run, unusable, previous, change, saved)
