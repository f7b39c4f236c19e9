"""The use cases both front-ends call: the CLI (``commands/``) and the GitHub Action (``action/``).

One path from settings to a verdict, written once so the two front-ends cannot drift apart::

    overrides = Overrides(model=..., samples=..., regression_threshold=...)
    model     = resolve_model(overrides, suite)          # flag/input, else replay, else canary.yaml
    provider  = make_provider(model, overrides)          # LiteLLM, or a replay of a saved run
    plan      = plan_run(suite, overrides, model, ...)   # requests and estimated cost, beforehand
    run       = measure(suite, provider, overrides)      # the suite with the overrides applied
    reason    = unusable_reason(run, settings)           # aborted / measured nothing / too many errors
    folder    = baseline_dir(given, config_path)         # baselines/ next to canary.yaml
    store     = open_store(folder)                       # the baseline folder
    baseline  = latest_baseline(store, suite, model)     # or None (find_baseline: or raise,
                                                         # or the --baseline file, checked)
    report    = compare_with_settings(baseline, run, settings, overrides)
    verdict   = gate(report, GatePolicy(...))            # result word + exit code

A suite too large for one machine runs in slices: ``measure_shard`` on each machine of a CI
matrix, then ``merge_parts`` joins the partial runs into the run to compare.

Front-ends turn flags or inputs into an :class:`Overrides`, call these functions, and print or
comment what comes back. Nothing here prints, reads the environment or knows about GitHub.
"""

from __future__ import annotations

from promptcanary.pipeline.baselines import find_baseline, history, load_current, open_store
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
from promptcanary.pipeline.provider import load_run, make_provider, resolve_model
from promptcanary.pipeline.verdict import (
    SEVERITIES,
    GatePolicy,
    Verdict,
    check_suite_matches,
    compare_with_settings,
    gate,
    latest_baseline,
    over_threshold,
)

__all__ = [
    "DEFAULT_BASELINE_FOLDER",
    "SEVERITIES",
    "GatePolicy",
    "Overrides",
    "RunPlan",
    "Verdict",
    "baseline_dir",
    "check_suite_matches",
    "compare_with_settings",
    "find_baseline",
    "gate",
    "history",
    "latest_baseline",
    "load_current",
    "load_run",
    "make_provider",
    "measure",
    "measure_batch",
    "measure_shard",
    "merge_parts",
    "open_store",
    "over_threshold",
    "parse_duration",
    "parse_samples",
    "plan_run",
    "resolve_model",
    "unusable_reason",
]
