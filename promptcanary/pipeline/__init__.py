"""The use cases both front-ends call: the CLI (``commands/``) and the GitHub Action (``action/``).

Each use case is one function that reads top to bottom, takes a request (what to do) and its
:class:`Ports` (the I/O: baseline store, provider factory, progress, the plan's announcement, who
keeps the measured run, prices), and returns what it found. The front-ends translate flags or
inputs into the request, and print or comment what comes back::

    check(CheckRequest(config, overrides, policy, baseline=..., current=...), ports) -> Check
        suite    = CanarySuite.from_yaml(config)
        provider = make_provider(resolve_model(overrides, suite), overrides)
        baseline = find_baseline(store, suite, model)   # before the first request
        announce(Ready(suite, model, baseline, plan_run(...)))   # CLI: asks; Action: summary
        run      = measure(suite, provider, overrides, baseline=baseline)
        keep(run)                                       # written before anything can fail
        report   = compare_with_settings(baseline, run, settings, overrides)
        verdict  = gate(report, policy)                 # result word + exit code

    baseline_run(BaselineRunRequest(config, overrides, save=..., shard=...), ports) -> BaselineRun
        suite, provider, previous = newest baseline; announce; measure (or measure_shard);
        keep(run); unusable_reason(run) -> save_baseline(store, run) when asked and usable

    plan(PlanRequest(effect, ..., config, model), store, pricer=...) -> Advice
        suite, newest baseline -> fixed plan, adaptive plan, what the answer test detects

A suite too large for one machine runs in slices (``baseline_run`` with a shard on each machine
of a CI matrix), then ``merge_parts`` joins the partial runs into the run to compare.

Nothing here prints, reads the environment or knows about GitHub.
"""

from __future__ import annotations

from promptcanary.pipeline.baselines import (
    SavedBaseline,
    find_baseline,
    history,
    latest_baseline,
    load_current,
    open_store,
    save_baseline,
)
from promptcanary.pipeline.cost import RunPlan, plan_run
from promptcanary.pipeline.locations import DEFAULT_BASELINE_FOLDER, baseline_dir
from promptcanary.pipeline.measure import (
    measure,
    measure_batch,
    measure_shard,
    merge_parts,
    unusable_reason,
)
from promptcanary.pipeline.overrides import Overrides, parse_duration, parse_samples
from promptcanary.pipeline.ports import Ports, ProviderFactory, Ready
from promptcanary.pipeline.pricing import litellm_price
from promptcanary.pipeline.provider import load_run, make_provider, named_model, resolve_model
from promptcanary.pipeline.usecases.baseline_run import (
    BaselineRun,
    BaselineRunRequest,
    baseline_run,
)
from promptcanary.pipeline.usecases.check import Check, CheckRequest, check
from promptcanary.pipeline.usecases.plan import Advice, PlanRequest, plan
from promptcanary.pipeline.verdict import (
    SEVERITIES,
    GatePolicy,
    Verdict,
    check_suite_matches,
    compare_with_settings,
    gate,
    over_threshold,
)

__all__ = [
    "DEFAULT_BASELINE_FOLDER",
    "SEVERITIES",
    "Advice",
    "BaselineRun",
    "BaselineRunRequest",
    "Check",
    "CheckRequest",
    "GatePolicy",
    "Overrides",
    "PlanRequest",
    "Ports",
    "ProviderFactory",
    "Ready",
    "RunPlan",
    "SavedBaseline",
    "Verdict",
    "baseline_dir",
    "baseline_run",
    "check",
    "check_suite_matches",
    "compare_with_settings",
    "find_baseline",
    "gate",
    "history",
    "latest_baseline",
    "litellm_price",
    "load_current",
    "load_run",
    "make_provider",
    "measure",
    "measure_batch",
    "measure_shard",
    "merge_parts",
    "named_model",
    "open_store",
    "over_threshold",
    "parse_duration",
    "parse_samples",
    "plan",
    "plan_run",
    "resolve_model",
    "save_baseline",
    "unusable_reason",
]
