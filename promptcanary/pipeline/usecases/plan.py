"""The plan (``promptcanary plan``): what the next check of a suite sends and costs, and the
samples a suite needs to detect a drop. Nothing is sent: the newest baseline gives the tokens
per request (and the prompt count when there is no suite), the pricer the model's price."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from promptcanary.pipeline.baselines import latest_baseline
from promptcanary.pipeline.cost import RunPlan, plan_run
from promptcanary.pipeline.overrides import Overrides
from promptcanary.pipeline.provider import named_model, resolve_model

if TYPE_CHECKING:
    from promptcanary.core.models import BaselineSnapshot
    from promptcanary.core.suite import CanarySuite
    from promptcanary.core.verdict.behaviour_plan import BehaviourPlan
    from promptcanary.core.verdict.planning import AdaptivePlan, Plan, Pricer
    from promptcanary.storage.file import FileBaselineStore


@dataclass(frozen=True)
class PlanRequest:
    """The drop to detect (None: only what the next check costs), and the suite and model to
    size (both optional with a drop; the suite is needed without one)."""

    effect: float | None = None
    baseline_rate: float = 0.9
    alpha: float = 0.05
    power: float = 0.95
    config: Path | None = None
    model: str | None = None
    """The model to price; None: the newest baseline's (the one of canary.yaml's ``provider:``,
    else of any model)."""


@dataclass(frozen=True)
class NextCheck:
    """What the next check of a suite (``compare``) sends and costs."""

    suite: str
    model: str
    baseline: BaselineSnapshot | None
    """The baseline it compares with: the newest of the suite and model; None when there is
    none yet (a check then stops before its first request)."""
    check: RunPlan | None
    """The check's requests and cost (None without a baseline)."""
    baseline_run: RunPlan
    """What recording a baseline sends (``run --save-baseline``), priced with the newest
    baseline's tokens when there is one."""


@dataclass(frozen=True)
class Advice:
    """What ``plan`` advises."""

    fixed: Plan | None
    """Samples and cost with a fixed sample count (``samples: N``); None when no drop was
    asked for."""
    adaptive: AdaptivePlan | None
    """The same for ``samples: auto``; None for a suite that sets an integer, or no drop."""
    behaviour: BehaviourPlan | None
    """What the answer test detects at these samples; None when no drop was asked for."""
    next_check: NextCheck | None = None
    """What the next check costs: asked when no drop is (``promptcanary plan`` alone)."""


def plan(request: PlanRequest, store: FileBaselineStore, *, pricer: Pricer | None) -> Advice:
    """Load the suite (if any) and find its newest baseline; without a drop to detect, plan the
    next check as ``check`` will; with one, size a fixed run, an adaptive one and the answer
    test.

    Raises:
        ConfigError: the suite is invalid, the drop cannot be planned, or (for the next check)
            no suite is given or no model is named anywhere.
    """
    from promptcanary.core.suite import CanarySuite

    suite = CanarySuite.from_yaml(request.config) if request.config is not None else None
    if request.effect is None:
        return Advice(None, None, None, _next_check(request, suite, store, pricer))
    baseline = None
    if suite is not None:
        model = named_model(Overrides(model=request.model), suite)
        baseline = latest_baseline(store, suite.name, model)
    return _sizing(request, request.effect, suite, baseline, pricer)


def _next_check(
    request: PlanRequest,
    suite: CanarySuite | None,
    store: FileBaselineStore,
    pricer: Pricer | None,
) -> NextCheck:
    """The plan :func:`~promptcanary.pipeline.usecases.check.check` announces, for the model it
    would call (the newest baseline's when no model is named), and a baseline run's."""
    from promptcanary.errors import ConfigError

    if suite is None:
        raise ConfigError(
            "no suite to plan: no canary.yaml here and no -c given",
            field="--config",
            hint="Pass -c path/to/canary.yaml, or --effect 0.3 to size samples without a suite.",
        )
    overrides = Overrides(model=request.model)
    model = named_model(overrides, suite)
    baseline = latest_baseline(store, suite.name, model)
    if model is None and baseline is None:
        model = resolve_model(overrides, suite)  # raises: no model named anywhere
    if model is None:
        assert baseline is not None
        model = baseline.provider.model_id
    check = (
        plan_run(suite, overrides, model, baseline=baseline, pricer=pricer) if baseline else None
    )
    record = plan_run(suite, overrides, model, for_baseline=True, priced_by=baseline, pricer=pricer)
    assert record is not None  # no replay: a plan
    return NextCheck(suite.name, model, baseline, check, record)


def _sizing(
    request: PlanRequest,
    effect: float,
    suite: CanarySuite | None,
    baseline: BaselineSnapshot | None,
    pricer: Pricer | None,
) -> Advice:
    """Samples to detect a drop of ``effect``: fixed, adaptive, and the answer test's."""
    from promptcanary.core.config import DEFAULT_BASELINE_SAMPLES
    from promptcanary.core.verdict import planning
    from promptcanary.core.verdict.behaviour_plan import plan_behaviour

    # Both plans answer the same question (this drop, at this rate, alpha and power).
    question: dict[str, Any] = {
        "baseline_rate": request.baseline_rate,
        "alpha": request.alpha,
        "power": request.power,
        "suite": suite,
        "baseline": baseline,
    }
    fixed = planning.plan(effect, **question, model=request.model, pricer=pricer)
    adaptive = None
    if suite is None or suite.settings.adaptive:
        adaptive = planning.plan_adaptive(effect, **question)
    behaviour = plan_behaviour(
        samples=None if adaptive is not None else fixed.samples,
        baseline_samples=suite.settings.baseline_samples if suite else DEFAULT_BASELINE_SAMPLES,
        alpha=request.alpha,
        prompts=len(suite.prompts) if suite else None,
    )
    return Advice(fixed, adaptive, behaviour)
