"""The use cases both front-ends call: the CLI (``commands/``) and the GitHub Action (``action/``).

Each use case is one function that reads top to bottom. It takes a request (what to do) and its
:class:`Ports` (the I/O: the baseline store, the provider factory, progress, who is told the plan
and who keeps the measured run, prices) and returns what it found; the front-ends translate flags
or inputs into the request, and print or comment what comes back::

    check(CheckRequest(config, overrides, policy), ports) -> Check
        suite    = CanarySuite.from_yaml(config)
        provider = make_provider(resolve_model(overrides, suite), overrides)
        baseline = find_baseline(store, suite, model)         # before the first request
        missing_baseline(MissingBaseline(...)) if none        # Action: may stop (emptied gate)
        announce(Ready(suite, model, plan_run(...)))          # CLI: may ask; Action: summary
        run      = measure(suite, provider, overrides, baseline=baseline)
        keep(run)                                             # never lost, whatever follows
        report   = compare_with_settings(baseline, run, settings, overrides)
        report   = retest_finding(...) if confirm_behaviour   # the watch: fresh answers first
        verdict  = gate(report, policy)                       # result word + exit code

    baseline_run(BaselineRunRequest(config, overrides, save=True), ports) -> BaselineRun
        suite, provider, the newest baseline (prices the plan), announce, measure (or one
        shard: measure_shard), keep, unusable_reason -> save_baseline when asked and usable

    plan(PlanRequest(effect, baseline_rate, alpha, power, config, model), store) -> Advice
        suite, its newest baseline -> samples and cost, fixed and adaptive; the answer test

Shards run on the machines of a CI matrix; ``merge_parts`` joins them into the run to compare.
Nothing here prints, reads the environment or knows about GitHub.

The names are loaded on first use, as the package root's are: a command imports the use case it
runs (``baselines list`` only where baselines live, ``compare --current`` no measuring), and the
data models and renderers those modules need, not every use case's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from promptcanary._lazy import lazy_exports

# Loaded at once (it imports nothing heavy): ``measure`` is also the name of its module, which an
# import of ``promptcanary.pipeline.measure`` would otherwise leave in this package's namespace.
from promptcanary.pipeline.measure import (
    measure as measure,
    merge_parts as merge_parts,
    unusable_reason as unusable_reason,
)

_EXPORTS: dict[str, str] = {
    "BaselineRun": "promptcanary.pipeline.usecases.baseline_run",
    "BaselineRunRequest": "promptcanary.pipeline.usecases.baseline_run",
    "Check": "promptcanary.pipeline.usecases.check",
    "CheckRequest": "promptcanary.pipeline.usecases.check",
    "GatePolicy": "promptcanary.pipeline.verdict",
    "MissingBaseline": "promptcanary.pipeline.ports",
    "Overrides": "promptcanary.pipeline.overrides",
    "PlanRequest": "promptcanary.pipeline.usecases.plan",
    "Ports": "promptcanary.pipeline.ports",
    "ProviderFactory": "promptcanary.pipeline.ports",
    "Ready": "promptcanary.pipeline.ports",
    "Retesting": "promptcanary.pipeline.ports",
    "RunPlan": "promptcanary.pipeline.cost",
    "Verdict": "promptcanary.pipeline.verdict",
    "baseline_dir": "promptcanary.pipeline.locations",
    "baseline_run": "promptcanary.pipeline.usecases.baseline_run",
    "check": "promptcanary.pipeline.usecases.check",
    "compare_with_settings": "promptcanary.pipeline.verdict",
    "gate": "promptcanary.pipeline.verdict",
    "history": "promptcanary.pipeline.baselines",
    "latest_baseline": "promptcanary.pipeline.baselines",
    "litellm_price": "promptcanary.pipeline.pricing",
    "load_run": "promptcanary.pipeline.provider",
    "make_provider": "promptcanary.pipeline.provider",
    "open_store": "promptcanary.pipeline.baselines",
    "over_threshold": "promptcanary.pipeline.verdict",
    "parse_duration": "promptcanary.pipeline.overrides",
    "parse_samples": "promptcanary.pipeline.overrides",
    "plan": "promptcanary.pipeline.usecases.plan",
    "plan_run": "promptcanary.pipeline.cost",
    "resolve_model": "promptcanary.pipeline.provider",
}

__all__ = ["measure", "merge_parts", "unusable_reason", *_EXPORTS]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


# `Name as Name`: explicit re-exports, for type checkers (promptcanary/_lazy.py says why).
if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from promptcanary.pipeline.baselines import (
        history as history,
        latest_baseline as latest_baseline,
        open_store as open_store,
    )
    from promptcanary.pipeline.cost import RunPlan as RunPlan, plan_run as plan_run
    from promptcanary.pipeline.locations import baseline_dir as baseline_dir
    from promptcanary.pipeline.overrides import (
        Overrides as Overrides,
        parse_duration as parse_duration,
        parse_samples as parse_samples,
    )
    from promptcanary.pipeline.ports import (
        MissingBaseline as MissingBaseline,
        Ports as Ports,
        ProviderFactory as ProviderFactory,
        Ready as Ready,
        Retesting as Retesting,
    )
    from promptcanary.pipeline.pricing import litellm_price as litellm_price
    from promptcanary.pipeline.provider import (
        load_run as load_run,
        make_provider as make_provider,
        resolve_model as resolve_model,
    )
    from promptcanary.pipeline.usecases.baseline_run import (
        BaselineRun as BaselineRun,
        BaselineRunRequest as BaselineRunRequest,
        baseline_run as baseline_run,
    )
    from promptcanary.pipeline.usecases.check import (
        Check as Check,
        CheckRequest as CheckRequest,
        check as check,
    )
    from promptcanary.pipeline.usecases.plan import PlanRequest as PlanRequest, plan as plan
    from promptcanary.pipeline.verdict import (
        GatePolicy as GatePolicy,
        Verdict as Verdict,
        compare_with_settings as compare_with_settings,
        gate as gate,
        over_threshold as over_threshold,
    )
