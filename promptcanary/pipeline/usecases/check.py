"""The check: measure the suite (or take a saved run) and judge it against its baseline.

``promptcanary compare`` and the Action's check and watch run this sequence and no other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from promptcanary.pipeline.baselines import find_baseline, load_current
from promptcanary.pipeline.cost import plan_run
from promptcanary.pipeline.measure import measure, retest_finding, unusable_reason
from promptcanary.pipeline.overrides import Overrides
from promptcanary.pipeline.ports import MissingBaseline, Ports, Ready
from promptcanary.pipeline.provider import resolve_model
from promptcanary.pipeline.resume import kept_on_interrupt, resuming, still_to_send
from promptcanary.pipeline.verdict import GatePolicy, Verdict, compare_with_settings, gate

if TYPE_CHECKING:
    from promptcanary.core.models import BaselineSnapshot, CanaryRunResult, DriftReport
    from promptcanary.core.suite import CanarySuite


@dataclass(frozen=True)
class CheckRequest:
    """What to check, and when the check fails."""

    config: Path | None
    """canary.yaml; None only with ``current`` (compared under the default settings)."""
    overrides: Overrides = field(default_factory=Overrides)
    policy: GatePolicy = field(default_factory=GatePolicy)
    baseline: Path | None = None
    """Compare with this baseline file instead of the newest in the store."""
    current: Path | None = None
    """Compare this saved run instead of measuring (nothing is sent)."""
    require_baseline: bool = True
    """False: without a baseline, measure anyway and report the run alone (the Action: the
    first run on a repository has none); True: refuse before the first request."""
    confirm_behaviour: bool = False
    """True: a finding that is only a behaviour change is re-tested on fresh answers before it
    counts (the Action's scheduled watch, which must not accuse on one check's noise); the
    re-test's requests go through ``ports.retesting`` first."""


@dataclass(frozen=True)
class Check:
    """What a check found."""

    run: CanaryRunResult
    suite: CanarySuite | None
    """The suite measured; None when a saved run was compared."""
    baseline: BaselineSnapshot | None
    baseline_path: Path | None
    report: DriftReport | None
    """None without a baseline."""
    unusable: str | None
    """Why the run says nothing about the model (see :func:`unusable_reason`), or None."""
    verdict: Verdict


def check(request: CheckRequest, ports: Ports) -> Check:
    """Load the suite and make the provider (or load the saved run), find the baseline (none:
    tell ``ports.missing_baseline``), announce the plan, measure, keep the run, compare (and,
    when asked to confirm, re-test a behaviour-only finding on fresh answers), gate.

    Raises:
        ConfigError: the suite or the overrides are invalid, no model is named, or the plan was
            not confirmed (exit 2, nothing sent).
        BaselineNotFoundError: no baseline and ``require_baseline`` (exit 3, nothing sent).
        SuiteMismatchError: ``request.baseline`` is another suite's (exit 2, nothing sent).
        RunInterruptedError: Ctrl-C stopped the measurement; its answers were kept (``path``).
    """
    # One scope per check: the answers the gate of samples: auto featurised, grouped and
    # permuted serve compare's answer test of the same answers (the same numbers, computed
    # once). Imported here: the answer test's package stays out of commands that never run it.
    from promptcanary.core.behaviour.space import shared_spaces

    with shared_spaces():
        return _check(request, ports)


def _check(request: CheckRequest, ports: Ports) -> Check:
    from promptcanary.core.config import SuiteSettings, load_header

    overrides, config = request.overrides, request.config
    suite, provider, resume = None, None, None
    if request.current is None:
        # Only here: a saved run needs canary.yaml's header, not the probes (every probe module
        # and its patterns, ~15 ms of `compare --current`'s start).
        from promptcanary.core.suite import CanarySuite

        assert config is not None
        suite = CanarySuite.from_yaml(config)
        provider = ports.make_provider(resolve_model(overrides, suite), overrides)
        provider, resume = resuming(overrides, suite, provider)
        name, model, settings = suite.name, provider.config.model_id, suite.settings
    else:  # a saved run: canary.yaml gives only the suite's name and thresholds
        named, settings = load_header(config) if config is not None else (None, SuiteSettings())
        run = load_current(request.current, named)
        name, model = run.suite_name, run.provider.model_id
    # Before the first request: no point paying for a run that has nothing to be compared with.
    baseline = find_baseline(
        ports.store, name, model, request.baseline, required=request.require_baseline
    )
    if baseline is None:
        # Still before the first request: "none here" may not be the whole story (the Action
        # asks the base branch of the pull request), and the front-end may stop the check.
        ports.missing_baseline(MissingBaseline(name, model, ports.store.directory))
    if suite is not None and provider is not None:
        plan = plan_run(suite, overrides, model, baseline=baseline, pricer=ports.pricer)
        ports.announce(Ready(suite, model, still_to_send(plan, resume)))
        assert config is not None
        with kept_on_interrupt(config, overrides):
            run = measure(
                suite,
                provider,
                overrides,
                progress=ports.progress,
                baseline=baseline,
                notify=ports.notify,
            )
    ports.keep(run)
    unusable = unusable_reason(run, overrides.error_limit(settings))
    report, path = None, request.baseline
    if baseline is not None:
        where = str(path) if path is not None else "the newest baseline"
        report = compare_with_settings(baseline, run, settings, overrides, where=where)
        path = path or ports.store.path_of(baseline)
        if request.confirm_behaviour and suite is not None and provider is not None:
            report = retest_finding(
                suite,
                provider,
                overrides,
                baseline,
                report,
                announce=ports.retesting,
                progress=ports.progress,
            )
    verdict = gate(report, request.policy, unusable=unusable)
    return Check(run, suite, baseline, path, report, unusable, verdict)
