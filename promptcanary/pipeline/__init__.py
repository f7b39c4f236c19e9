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

The names (``__init__.pyi``) are loaded on first use, as the package root's are: a command
imports the use case it runs (``baselines list`` only where baselines live, ``compare --current``
no measuring), and the data models and renderers those modules need, not every use case's.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
