"""The use cases both front-ends call: the CLI (``commands/``) and the GitHub Action (``action/``).

One path from settings to a verdict, written once so the two front-ends cannot drift apart::

    overrides = Overrides(model=..., samples=..., regression_threshold=...)
    model     = resolve_model(overrides, suite)          # flag/input, else replay, else canary.yaml
    provider  = make_provider(model, overrides)          # LiteLLM, or a replay of a saved run
    run       = measure(suite, provider, overrides)      # the suite with the overrides applied
    reason    = unusable_reason(run, settings)           # aborted / measured nothing / too many errors
    baseline  = latest_baseline(store, suite, model)     # or None
    report    = compare_with_settings(baseline, run, settings, overrides)
    verdict   = gate(report, GatePolicy(...))            # result word + exit code

A suite too large for one machine runs in slices: ``measure_shard`` on each machine of a CI
matrix, then ``merge_parts`` joins the partial runs into the run to compare.

Front-ends turn flags or inputs into an :class:`Overrides`, call these functions, and print or
comment what comes back. Nothing here prints, reads the environment or knows about GitHub.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from promptcanary.errors import (
    EXIT_DRIFT,
    EXIT_INCONCLUSIVE,
    EXIT_OK,
    BaselineNotFoundError,
    ConfigError,
    SuiteMismatchError,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from promptcanary.core.config import SuiteSettings
    from promptcanary.core.models import BaselineSnapshot, CanaryRunResult, DriftReport
    from promptcanary.core.run.options import ProgressCallback, RunOptions
    from promptcanary.core.run.shards import Shard
    from promptcanary.core.suite import CanarySuite
    from promptcanary.providers.base import BaseLLMProvider
    from promptcanary.storage.file import FileBaselineStore

__all__ = [
    "SEVERITIES",
    "GatePolicy",
    "Overrides",
    "Verdict",
    "check_suite_matches",
    "compare_with_settings",
    "gate",
    "latest_baseline",
    "load_run",
    "make_provider",
    "measure",
    "measure_batch",
    "measure_shard",
    "merge_parts",
    "parse_duration",
    "parse_samples",
    "resolve_model",
    "unusable_reason",
]

#: Severity names a gate accepts, lowest first.
SEVERITIES = ("low", "medium", "high", "critical")


@dataclass(frozen=True)
class Overrides:
    """What a command line or the Action's inputs change for one run; None keeps canary.yaml's."""

    model: str | None = None
    """LiteLLM model string; None: the replayed run's model, else the suite's ``provider:``."""
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    samples: int | str | None = None
    """Times each prompt is sent, or ``"auto"`` (adaptive checks); None: the suite's setting (a
    replay: as many as were saved)."""
    baseline_samples: int | None = None
    """Samples per prompt when recording a baseline with ``samples: auto``; None: the suite's."""
    concurrency: int | None = None
    workers: int | None = None
    """Processes that share a fixed-sample run (see core/run/workers.py); None: one."""
    max_cost_usd: float | None = None
    api_base: str | None = None
    """Base URL of an OpenAI-compatible server (LiteLLM's ``api_base``)."""
    replay: Path | None = None
    """Answer from this saved run (or baseline file) instead of calling a model."""
    batch: bool = False
    """Send the suite as one provider batch job (about half the price, answers within 24 h)
    instead of request by request; see :func:`measure_batch`."""
    batch_timeout_s: float = 24 * 3600.0
    """Stop waiting for the batch after this long (it keeps running at the provider)."""
    batch_poll_s: float = 10.0
    """First wait between batch status checks (grows by half each poll, up to 5 min)."""
    batch_id: str | None = None
    """Fetch this earlier batch instead of submitting a new one (implies ``batch``)."""
    regression_threshold: float | None = None
    improvement_threshold: float | None = None
    alpha: float | None = None
    min_effect: float | None = None
    max_error_rate: float | None = None

    def __post_init__(self) -> None:
        for name in (
            "regression_threshold",
            "improvement_threshold",
            "min_effect",
            "max_error_rate",
        ):
            value = getattr(self, name)
            if value is not None and not 0.0 <= value <= 1.0:
                raise ConfigError(f"must be between 0 and 1 (got {value})", field=name)
        if self.batch_timeout_s <= 0 or self.batch_poll_s <= 0:
            raise ConfigError("must be a positive duration", field="--batch-timeout")
        if (self.batch or self.batch_id) and self.max_cost_usd is not None:
            raise ConfigError(
                "a batch is sent whole: a spending cap cannot stop it part-way",
                field="--max-cost",
                hint="Drop --max-cost and size the batch beforehand (prompts × samples; "
                "`promptcanary plan`), or run without --batch.",
            )
        if (self.batch or self.batch_id) and self.replay is not None:
            raise ConfigError(
                "--batch sends requests; --replay sends none",
                field="--batch",
                hint="Use one of the two.",
            )
        if self.alpha is not None and not 0.0 < self.alpha < 1.0:
            raise ConfigError(
                f"must be between 0 and 1, exclusive (got {self.alpha})", field="alpha"
            )

    def thresholds(self, settings: SuiteSettings) -> dict[str, float]:
        """compare()'s keyword arguments: each override, else the suite's setting."""

        def pick(value: float | None, default: float) -> float:
            return default if value is None else value

        return {
            "regression_threshold": pick(self.regression_threshold, settings.regression_threshold),
            "improvement_threshold": pick(
                self.improvement_threshold, settings.improvement_threshold
            ),
            "alpha": pick(self.alpha, settings.alpha),
            "min_effect": pick(self.min_effect, settings.min_effect),
            "max_error_rate": pick(self.max_error_rate, settings.max_error_rate),
        }

    def error_limit(self, settings: SuiteSettings) -> float:
        """The error rate above which a run is not evidence about the model."""
        return settings.max_error_rate if self.max_error_rate is None else self.max_error_rate


# ── Model and provider ───────────────────────────────────────────────────────────────────────────


def resolve_model(overrides: Overrides, suite: CanarySuite | None) -> str:
    """The model to call: the override, else the replayed run's, else canary.yaml's ``provider:``.

    Raises:
        ConfigError: no model is named anywhere.
    """
    if overrides.model:
        return overrides.model
    if overrides.replay is not None:
        return load_run(overrides.replay).provider.model_id
    if suite is not None and suite.settings.provider:
        return suite.settings.provider
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


# ── Measuring ────────────────────────────────────────────────────────────────────────────────────


def parse_samples(value: int | str | None, *, field: str = "samples") -> int | str | None:
    """A samples setting: ``"auto"`` or an integer from 1 to 1000 (None: not given).

    Raises:
        ConfigError: anything else, naming ``field``.
    """
    if value is None or (
        isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 1000
    ):
        return value
    text = str(value).strip().lower()
    if text == "auto":
        return "auto"
    if text.isdigit() and 1 <= int(text) <= 1000:
        return int(text)
    raise ConfigError(f'must be "auto" or an integer from 1 to 1000 (got {value!r})', field=field)


def parse_duration(value: str | float, *, field: str) -> float:
    """Seconds from ``90``, ``90s``, ``30m`` or ``24h``.

    Raises:
        ConfigError: anything else, or a duration that is not positive, naming ``field``.
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
    else:
        text = str(value).strip().lower()
        unit = {"s": 1.0, "m": 60.0, "h": 3600.0}.get(text[-1:])
        number = text[:-1] if unit is not None else text
        try:
            seconds = float(number) * (unit or 1.0)
        except ValueError:
            seconds = -1.0
    if not seconds > 0 or seconds != seconds or seconds == float("inf"):
        raise ConfigError(
            f"must be a positive duration such as 90s, 30m or 24h (got {value!r})", field=field
        )
    return seconds


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
        temperature=overrides.temperature,
        max_tokens=overrides.max_tokens,
        seed=overrides.seed,
        concurrency=overrides.concurrency,
        samples=samples,
        max_cost_usd=overrides.max_cost_usd,
        show_progress=False,
        progress=progress,
        workers=overrides.workers,
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
    from promptcanary.providers.batch import (
        BatchResultsProvider,
        BatchSettings,
        resume_batch,
        run_batch,
    )
    from promptcanary.providers.litellm import LiteLLMProvider

    if not isinstance(provider, LiteLLMProvider):
        raise ConfigError(
            f"--batch needs a LiteLLM model, not {type(provider).__name__}", field="--batch"
        )
    samples = overrides.samples if isinstance(overrides.samples, int) else None
    if samples is None:
        samples = suite.settings.samples if isinstance(suite.settings.samples, int) else 1
    options = _run_options(suite, overrides)
    config = effective_config(provider, options)
    configured = provider.with_config(config) if config != provider.config else provider
    assert isinstance(configured, LiteLLMProvider)
    settings = BatchSettings(timeout_s=overrides.batch_timeout_s, poll_s=overrides.batch_poll_s)
    if overrides.batch_id:
        results = resume_batch(
            configured,
            overrides.batch_id,
            suite.prompts,
            samples,
            suite.system_prompt_for,
            settings,
            notify=notify,
        )
    else:
        results = run_batch(
            configured, suite.prompts, samples, suite.system_prompt_for, settings, notify=notify
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
        temperature=overrides.temperature,
        max_tokens=overrides.max_tokens,
        seed=overrides.seed,
        concurrency=overrides.concurrency,
        samples=samples if isinstance(samples, int) else None,
        max_cost_usd=overrides.max_cost_usd,
        show_progress=False,
        progress=progress,
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

    return RunOptions.from_settings(
        suite.settings,
        temperature=overrides.temperature,
        max_tokens=overrides.max_tokens,
        seed=overrides.seed,
        concurrency=overrides.concurrency,
        max_cost_usd=overrides.max_cost_usd,
        show_progress=False,
    )


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


# ── Comparing and gating ─────────────────────────────────────────────────────────────────────────


def latest_baseline(
    store: FileBaselineStore, suite_name: str, model: str
) -> BaselineSnapshot | None:
    """The newest baseline for (suite, model), or None when there is none yet."""
    try:
        return store.load_latest(suite_name, model)
    except BaselineNotFoundError:
        return None


def check_suite_matches(baseline: BaselineSnapshot, run: CanaryRunResult, where: str) -> None:
    """Refuse to compare runs of two different suites.

    Raises:
        SuiteMismatchError: the baseline was recorded for another suite (``where`` names its
            file); exit 2.
    """
    theirs, ours = baseline.run_result.suite_name, run.suite_name
    if theirs != ours:
        raise SuiteMismatchError(
            f"{where} is a baseline of suite '{theirs}', not of suite '{ours}'",
            hint="Compare with a baseline of the same suite (its `name:` in canary.yaml), or "
            "record one with `promptcanary run --save-baseline`.",
        )


def compare_with_settings(
    baseline: BaselineSnapshot,
    run: CanaryRunResult,
    settings: SuiteSettings,
    overrides: Overrides,
    *,
    where: str = "the baseline",
) -> DriftReport:
    """compare() with each threshold taken from the overrides, else from canary.yaml."""
    from promptcanary.core.comparator import compare

    check_suite_matches(baseline, run, where)
    return compare(baseline, run, **overrides.thresholds(settings))


@dataclass(frozen=True)
class GatePolicy:
    """When a comparison fails the command or the check."""

    fail_on_severity: str | None = None
    """Fail at or over this severity (low, medium, high, critical); None or "never": not on it."""
    fail_on_drift: bool = False
    """Fail on any drift, whatever its severity."""
    fail_on_inconclusive: bool = True
    """An unmeasurable comparison exits 3 (else 0)."""
    fail_on_suite_change: bool = False
    """Fail when canary.yaml gained, lost or edited prompts or probes since the baseline (so a
    pull request that edits the suite must promote a new baseline)."""

    def __post_init__(self) -> None:
        value = self.fail_on_severity
        if value is not None and value.lower() not in (*SEVERITIES, "never"):
            raise ConfigError(
                f"must be one of {', '.join(SEVERITIES)} or never (got {value!r})",
                field="fail-on-severity",
            )


@dataclass(frozen=True)
class Verdict:
    """A gate's decision: a word for people and outputs, and the process exit code."""

    result: str
    """passed | failed | suite-changed | inconclusive"""
    exit_code: int


def gate(report: DriftReport, policy: GatePolicy) -> Verdict:
    """Inconclusive first (never drift), then the severity threshold and ``fail_on_drift``, then
    suite changes (only with ``fail_on_suite_change``)."""
    if report.is_inconclusive:
        return Verdict(
            "inconclusive", EXIT_INCONCLUSIVE if policy.fail_on_inconclusive else EXIT_OK
        )
    if over_threshold(report, policy.fail_on_severity) or (
        policy.fail_on_drift and report.has_drift
    ):
        return Verdict("failed", EXIT_DRIFT)
    if policy.fail_on_suite_change and report.suite_changed:
        return Verdict("suite-changed", EXIT_DRIFT)
    return Verdict("passed", EXIT_OK)


def over_threshold(report: DriftReport, fail_on_severity: str | None) -> bool:
    """True when the report has drift at or over ``fail_on_severity`` (never with None/"never")."""
    if fail_on_severity is None or fail_on_severity.lower() == "never" or not report.has_drift:
        return False
    return report.severity.at_least(fail_on_severity.lower())
