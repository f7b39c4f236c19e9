"""Measuring a suite under the sampling policy: fixed, baseline, adaptive, replayed, sharded or batched."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from promptcanary.errors import (
    ConfigError,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from promptcanary.core.models import BaselineSnapshot, CanaryRunResult, DriftReport
    from promptcanary.core.run.options import ProgressCallback, RunOptions
    from promptcanary.core.run.shards import Shard
    from promptcanary.core.suite import CanarySuite
    from promptcanary.pipeline.overrides import Overrides
    from promptcanary.pipeline.ports import Retesting
    from promptcanary.providers.base import BaseLLMProvider


def measure(
    suite: CanarySuite,
    provider: BaseLLMProvider,
    overrides: Overrides,
    *,
    progress: ProgressCallback | None = None,
    baseline: BaselineSnapshot | None = None,
    for_baseline: bool = False,
    notify: Callable[[str], None] | None = None,
) -> CanaryRunResult:
    """Run ``suite`` with the overrides applied, under the sampling policy.

    With ``overrides.batch`` the suite goes to the provider's batch API (:func:`measure_batch`;
    ``notify`` receives its status lines).

    With ``samples: auto`` (the default): a run recorded as a baseline (``for_baseline``) sends
    every prompt ``baseline_samples`` times (override, else canary.yaml, default 30); a run that
    will be compared with ``baseline`` is an adaptive check (screen every prompt, confirm only the
    pairs that look different: :func:`~promptcanary.core.run.adaptive.measure_adaptive`); any
    other run sends each prompt once. An integer ``samples`` is a fixed count. A replay repeats
    the samples it saved, whatever the setting: it cannot answer new ones.
    """
    if overrides.batch or overrides.batch_id:
        return measure_batch(suite, provider, overrides, progress=progress, notify=notify)
    from promptcanary.pipeline.pricing import priced

    provider = priced(suite, provider, overrides)
    samples = overrides.samples
    saved = getattr(provider, "run_result", None) if overrides.replay is not None else None
    if (samples is None or samples == "auto") and saved is not None and saved.adaptive is not None:
        from promptcanary.core.run.adaptive import replay_adaptive

        return replay_adaptive(
            suite, provider, saved, _run_options(suite, overrides), progress=progress
        )
    if (samples is None or samples == "auto") and overrides.replay is not None:
        samples = getattr(provider, "samples", None)
    if samples == "auto" or (samples is None and suite.settings.adaptive):
        samples = None
        if for_baseline:
            samples = overrides.baseline_samples or suite.settings.baseline_samples
        elif baseline is not None:
            from promptcanary.core.run.adaptive import measure_adaptive
            from promptcanary.core.verdict.adaptive import AdaptivePolicy

            policy = AdaptivePolicy.from_settings(suite.settings)
            options = _run_options(suite, overrides)
            return measure_adaptive(suite, provider, baseline, policy, options, progress=progress)
    assert samples is None or isinstance(samples, int)
    return suite.run(
        provider,
        show_progress=False,
        progress=progress,
        workers=overrides.workers,
        **overrides.run_settings(samples),
    )


def measure_batch(
    suite: CanarySuite,
    provider: BaseLLMProvider,
    overrides: Overrides,
    *,
    progress: ProgressCallback | None = None,
    notify: Callable[[str], None] | None = None,
) -> CanaryRunResult:
    """Send the whole suite as one batch job, wait for it, then score it through the engine.

    A batch has a fixed sample count: ``--samples N``, else the suite's integer ``samples``,
    else 1 (``samples: auto`` cannot adapt: every request is decided before the batch is sent).

    Raises:
        ConfigError: the provider has no batch API here (exit 2, nothing sent).
        MeasurementError: the batch failed, expired, or did not finish in time (exit 3).
    """
    from promptcanary.core.run.runner import effective_config
    from promptcanary.providers.batch import BatchResultsProvider, BatchSettings, run_batch
    from promptcanary.providers.litellm import LiteLLMProvider

    if not isinstance(provider, LiteLLMProvider):
        raise ConfigError(
            f"--batch needs a LiteLLM model, not {type(provider).__name__}", field="--batch"
        )
    from promptcanary.core.pricing import priced

    # canary.yaml's price, halved per answer like any batch price (providers/batch.py). No cap
    # is checked: a batch is sent whole, so --max-cost is refused and max_cost_usd not applied.
    provider = priced(provider, suite.settings.price, None)
    assert isinstance(provider, LiteLLMProvider)
    samples = overrides.samples if isinstance(overrides.samples, int) else None
    if samples is None:
        samples = suite.settings.samples if isinstance(suite.settings.samples, int) else 1
    options = _run_options(suite, overrides)
    config = effective_config(provider, options)
    configured = provider.with_config(config) if config != provider.config else provider
    assert isinstance(configured, LiteLLMProvider)
    settings = BatchSettings(timeout_s=overrides.batch_timeout_s, poll_s=overrides.batch_poll_s)
    results = run_batch(
        configured,
        suite.prompts,
        samples,
        suite.system_prompt_for,
        settings,
        batch_id=overrides.batch_id or None,
        notify=notify,
    )
    # The money is spent once the batch is done: canary.yaml's max_cost_usd must not abort the
    # scoring of answers already paid for (and file them as a run that "stopped early").
    scored = suite
    if suite.settings.max_cost_usd is not None:
        import copy

        scored = copy.copy(suite)
        scored.settings = suite.settings.model_copy(update={"max_cost_usd": None})
        if notify is not None:
            notify("max_cost_usd from canary.yaml does not apply to a batch (it is sent whole).")
    return scored.run(
        BatchResultsProvider(configured.config, results),
        concurrency=overrides.concurrency,
        samples=samples,
        show_progress=False,
        progress=progress,
    )


def measure_shard(
    suite: CanarySuite,
    provider: BaseLLMProvider,
    overrides: Overrides,
    shard: Shard,
    *,
    progress: ProgressCallback | None = None,
) -> CanaryRunResult:
    """Run slice ``shard`` of ``suite`` (see :mod:`promptcanary.core.run.shards`): a partial run
    that records the whole suite, so :func:`merge_parts` can check the parts and restore order.

    Every shard samples the same fixed number of times: ``samples: auto`` means one sample per
    prompt here, as for any run that is not compared on the spot (an adaptive check needs the
    baseline and the whole suite in one process).
    """
    import copy

    from promptcanary.core.run.shards import shard_prompts, shard_record
    from promptcanary.pipeline.pricing import priced

    provider = priced(suite, provider, overrides)
    samples = overrides.samples
    if samples == "auto":
        samples = None
    if samples is None and overrides.replay is not None:
        samples = getattr(provider, "samples", None)
    count = samples if isinstance(samples, int) else suite.settings.samples
    count = count if isinstance(count, int) else 1
    part = copy.copy(suite)  # same probes and settings, fewer prompts
    part.prompts = shard_prompts(suite.prompts, count, shard)
    if not part.prompts:
        raise ConfigError(
            f"shard {shard} has no prompts: the suite has only {len(suite.prompts)}",
            field="--shard",
            hint="Use at most as many shards as the suite has prompts.",
        )
    run = part.run(
        provider,
        show_progress=False,
        progress=progress,
        **overrides.run_settings(samples if isinstance(samples, int) else None),
    )
    run.shard = shard_record(shard, suite.prompts, run.probes)
    return run


def merge_parts(paths: list[Path]) -> CanaryRunResult:
    """Load the partial runs at ``paths`` and join them (see
    :func:`~promptcanary.core.run.shards.merge_runs`).

    Raises:
        InputError: a file cannot be read or is not a run; the parts do not make one run
            (the message names the files).
    """
    from promptcanary.core.run.shards import merge_runs
    from promptcanary.storage.runs import load_run as _load

    return merge_runs([(str(path), _load(path)) for path in paths])


def retest_finding(
    suite: CanarySuite,
    provider: BaseLLMProvider,
    overrides: Overrides,
    baseline: BaselineSnapshot,
    report: DriftReport,
    *,
    announce: Callable[[Retesting], None],
    progress: ProgressCallback | None = None,
) -> DriftReport:
    """``report`` with its behaviour-only finding re-tested on fresh answers (see
    :mod:`promptcanary.core.run.retest`): ``announce`` is told the requests first, they are
    sent under the check's settings, and the report records the outcome and counts them in its
    usage. Unchanged when the finding is not behaviour-only, or for a replay (it has no fresh
    answers to give)."""
    from promptcanary.core.run.retest import needs_retest, resample_flagged, retest_plan
    from promptcanary.core.verdict.behaviour import with_retest
    from promptcanary.pipeline.ports import Retesting
    from promptcanary.pipeline.pricing import priced

    if overrides.replay is not None or not needs_retest(report):
        return report
    announce(Retesting(retest_plan(suite, baseline, report)))
    retest = resample_flagged(
        suite,
        priced(suite, provider, overrides),
        baseline,
        report,
        _run_options(suite, overrides),
        progress=progress,
    )
    return with_retest(report, retest)


def unusable_reason(run: CanaryRunResult, max_error_rate: float) -> str | None:
    """Why ``run`` says nothing about the model (so it is never compared or promoted), or None.

    A run that measured nothing is unusable whatever ``max_error_rate`` allows: a limit of 1.0
    tolerates errors, it does not turn an outage into a baseline.
    """
    if run.aborted:
        return f"the run stopped early: {run.aborted}"
    if run.llm_responses and not any(r.ok for r in run.llm_responses):
        return "the run measured nothing: every request errored"
    if run.llm_responses and run.error_rate > max_error_rate:
        return f"{run.error_rate:.0%} of requests errored (limit {max_error_rate:.0%})"
    return None


def _run_options(suite: CanarySuite, overrides: Overrides) -> RunOptions:
    from promptcanary.core.run.options import RunOptions

    return RunOptions.from_settings(suite.settings, show_progress=False, **overrides.run_settings())
