"""The plan (``promptcanary plan``): the samples a suite needs to detect a drop, and what a run
of it costs. Nothing is sent: the newest baseline gives the tokens per request (and the prompt
count when there is no suite), the pricer the model's price."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from promptcanary.pipeline.baselines import latest_baseline
from promptcanary.pipeline.overrides import Overrides
from promptcanary.pipeline.provider import named_model

if TYPE_CHECKING:
    from promptcanary.core.verdict.behaviour_plan import BehaviourPlan
    from promptcanary.core.verdict.planning import AdaptivePlan, Plan, Pricer
    from promptcanary.storage.file import FileBaselineStore


@dataclass(frozen=True)
class PlanRequest:
    """The drop to detect, and the suite and model to size (both optional)."""

    effect: float
    baseline_rate: float
    alpha: float
    power: float
    config: Path | None = None
    model: str | None = None
    """The model to price; None: the newest baseline's (the one of canary.yaml's ``provider:``,
    else of any model)."""


@dataclass(frozen=True)
class Advice:
    """What ``plan`` advises."""

    fixed: Plan
    """Samples and cost with a fixed sample count (``samples: N``)."""
    adaptive: AdaptivePlan | None
    """The same for ``samples: auto``; None for a suite that sets an integer."""
    behaviour: BehaviourPlan
    """What the answer test detects at these samples."""


def plan(request: PlanRequest, store: FileBaselineStore, *, pricer: Pricer | None) -> Advice:
    """Load the suite (if any), find its newest baseline, size a fixed run, an adaptive one and
    the answer test. Raises ConfigError: the suite is invalid, or the drop cannot be planned."""
    from promptcanary.core.config import DEFAULT_BASELINE_SAMPLES
    from promptcanary.core.suite import CanarySuite
    from promptcanary.core.verdict import planning
    from promptcanary.core.verdict.behaviour_plan import plan_behaviour

    suite = CanarySuite.from_yaml(request.config) if request.config is not None else None
    baseline = None
    if suite is not None:
        model = named_model(Overrides(model=request.model), suite)
        baseline = latest_baseline(store, suite.name, model)
    fixed = planning.plan(
        request.effect,
        baseline_rate=request.baseline_rate,
        alpha=request.alpha,
        power=request.power,
        suite=suite,
        baseline=baseline,
        model=request.model,
        pricer=pricer,
    )
    adaptive = None
    if suite is None or suite.settings.adaptive:
        adaptive = planning.plan_adaptive(
            request.effect,
            baseline_rate=request.baseline_rate,
            alpha=request.alpha,
            power=request.power,
            suite=suite,
        )
    behaviour = plan_behaviour(
        samples=None if adaptive is not None else fixed.samples,
        baseline_samples=suite.settings.baseline_samples if suite else DEFAULT_BASELINE_SAMPLES,
        alpha=request.alpha,
        prompts=len(suite.prompts) if suite else None,
    )
    return Advice(fixed, adaptive, behaviour)
