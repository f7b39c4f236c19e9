"""The check: measure the suite and judge it against its baseline.

Both front-ends run this sequence and nothing else: ``promptcanary compare`` and the Action's
check and watch. The baseline is found before the first request (no point paying for a run that
has nothing to be compared with), the plan is announced just before it, and the measured run is
handed to the front-end before anything else can fail.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from promptcanary.pipeline.baselines import find_baseline, load_current
from promptcanary.pipeline.cost import plan_run
from promptcanary.pipeline.measure import measure, unusable_reason
from promptcanary.pipeline.overrides import Overrides
from promptcanary.pipeline.ports import Ports, Ready
from promptcanary.pipeline.provider import resolve_model
from promptcanary.pipeline.verdict import GatePolicy, Verdict, compare_with_settings, gate

if TYPE_CHECKING:
    from promptcanary.core.config import SuiteSettings
    from promptcanary.core.models import BaselineSnapshot, CanaryRunResult, DriftReport
    from promptcanary.core.suite import CanarySuite


@dataclass(frozen=True)
class CheckRequest:
    """What to check, and when the check fails."""

    config: Path | None
    """canary.yaml. Only a check of a saved run (``current``) may go without it: it then
    compares under the default settings."""
    overrides: Overrides = field(default_factory=Overrides)
    policy: GatePolicy = field(default_factory=GatePolicy)
    baseline: Path | None = None
    """Compare with this baseline file instead of the newest in the store."""
    current: Path | None = None
    """Compare this saved run instead of measuring (nothing is sent)."""
    require_baseline: bool = True
    """Without a baseline: refuse before any request (the CLI), or measure anyway and report
    the run alone (False: the Action, whose first run on a repository has no baseline yet)."""


@dataclass(frozen=True)
class Check:
    """What a check found."""

    run: CanaryRunResult
    suite: CanarySuite | None
    """The suite measured (None when a saved run was compared)."""
    baseline: BaselineSnapshot | None
    """The baseline compared with; None: there is none yet (see ``require_baseline``)."""
    baseline_path: Path | None
    report: DriftReport | None
    """The comparison; None without a baseline."""
    unusable: str | None
    """Why the run says nothing about the model, or None (see :func:`unusable_reason`)."""
    verdict: Verdict


def check(request: CheckRequest, ports: Ports) -> Check:
    """Load the suite, make the provider, find the baseline, announce the plan, measure, keep
    the run, compare, gate.

    Raises:
        ConfigError: the suite or the overrides are invalid, no model is named, or the plan was
            not confirmed (exit 2, nothing sent).
        BaselineNotFoundError: no baseline and ``require_baseline`` (exit 3, nothing sent).
        SuiteMismatchError: ``request.baseline`` is another suite's (exit 2, nothing sent).
    """
    if request.current is not None:
        return _check_saved_run(request, ports)
    from promptcanary.core.suite import CanarySuite

    assert request.config is not None
    overrides = request.overrides
    suite = CanarySuite.from_yaml(request.config)
    provider = ports.make_provider(resolve_model(overrides, suite), overrides)
    model = provider.config.model_id
    baseline = find_baseline(
        ports.store, suite.name, model, request.baseline, required=request.require_baseline
    )
    plan = plan_run(suite, overrides, model, baseline=baseline, pricer=ports.pricer)
    ports.announce(Ready(suite, model, baseline, plan))
    run = measure(
        suite,
        provider,
        overrides,
        progress=ports.progress,
        baseline=baseline,
        notify=ports.notify,
    )
    ports.keep(run)
    return _judged(request, ports, run, suite.settings, baseline, suite)


def _check_saved_run(request: CheckRequest, ports: Ports) -> Check:
    """Compare a saved run: only the suite's name and thresholds are read from canary.yaml."""
    from promptcanary.core.config import SuiteSettings, load_header

    assert request.current is not None
    suite_name, settings = (
        load_header(request.config) if request.config is not None else (None, SuiteSettings())
    )
    run = load_current(request.current, suite_name)
    baseline = find_baseline(
        ports.store,
        run.suite_name,
        run.provider.model_id,
        request.baseline,
        required=request.require_baseline,
    )
    ports.keep(run)
    return _judged(request, ports, run, settings, baseline, None)


def _judged(
    request: CheckRequest,
    ports: Ports,
    run: CanaryRunResult,
    settings: SuiteSettings,
    baseline: BaselineSnapshot | None,
    suite: CanarySuite | None,
) -> Check:
    unusable = unusable_reason(run, request.overrides.error_limit(settings))
    if baseline is None:
        verdict = gate(None, request.policy, unusable=unusable)
        return Check(run, suite, None, None, None, unusable, verdict)
    given = request.baseline
    where = str(given) if given is not None else "the newest baseline"
    report = compare_with_settings(baseline, run, settings, request.overrides, where=where)
    path = given if given is not None else ports.store.path_of(baseline)
    return Check(run, suite, baseline, path, report, unusable, gate(report, request.policy))
