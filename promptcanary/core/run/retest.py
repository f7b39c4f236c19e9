"""Re-sampling a check's behaviour finding before anyone is told: what a scheduled watch calls.

A scheduled watch runs unattended, several times a week; at 3–5 % false alarms per run it would
open a false "the provider changed the model" issue about once a month. :func:`resample_flagged`
draws fresh answers for what the check flagged — ``TOPUP_SAMPLES`` for every named prompt and,
when the suite-level test fired, a fresh screening of every other compared prompt — and tests
them again (:func:`promptcanary.core.verdict.behaviour.retest_flagged`). Open or update the issue
only when :attr:`Retest.accuses`; a prompt flagged twice whose answers only shifted among ones
the baseline holds is reported as "the baseline may not represent this prompt" instead.

    report = pipeline.compare(...)
    if needs_retest(report):
        retest = resample_flagged(suite, provider, baseline, report, options)
        report = with_retest(report, retest)  # core.verdict.behaviour
        if retest.accuses: open_or_update_issue(..., retest.sentence)

(:func:`promptcanary.pipeline.check` runs this sequence when asked to confirm; the Action's watch
asks.)
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from promptcanary.core.behaviour.adaptive import SCREENING_SAMPLES, TOPUP_SAMPLES
from promptcanary.core.models import CanaryRunResult
from promptcanary.core.run.adaptive import labelled, subset_of
from promptcanary.core.run.runner import ProgressCallback, RunOptions, run_suite
from promptcanary.core.verdict.behaviour import Retest, retest_flagged, testable_prompts

if TYPE_CHECKING:
    from promptcanary.core.models import BaselineSnapshot, DriftReport
    from promptcanary.core.suite import CanarySuite
    from promptcanary.providers.base import BaseLLMProvider

#: What the re-test's requests are for, as progress shows it.
RETEST_PURPOSE = "re-test: fresh answers for the behaviour finding"


def needs_retest(report: DriftReport) -> bool:
    """Whether the check's only finding is a behaviour change: answers moved (a named prompt or
    the suite-level test) while every probe held, canary.yaml and the request settings are the
    baseline's and no served model name ruled out chance. Anything else is evidence of its own
    and is reported as it is."""
    a = report.attribution
    return (
        report.behaviour_changed
        and not report.is_inconclusive
        and not report.has_drift
        and not report.suite_changed
        and (a is None or (not a.settings_changes and not a.identity_changed))
    )


def retest_plan(
    suite: CanarySuite, baseline: BaselineSnapshot, report: DriftReport
) -> dict[str, int]:
    """prompt id -> fresh answers :func:`resample_flagged` will ask for, in suite order: the
    named prompts ``TOPUP_SAMPLES`` each; when the suite-level test fired, every other prompt
    compared ``SCREENING_SAMPLES``. Empty when there is no finding."""
    flagged = {c.prompt_id for c in report.behaviour_changes}
    others: set[str] = set()
    if report.suite_answers_changed:
        base = baseline.run_result
        others = set(testable_prompts(base, base, [])) - flagged
    plan = {}
    for prompt in suite.prompts:
        if prompt.id in flagged:
            plan[prompt.id] = TOPUP_SAMPLES
        elif prompt.id in others:
            plan[prompt.id] = SCREENING_SAMPLES
    return plan


def resample_flagged(
    suite: CanarySuite,
    provider: BaseLLMProvider,
    baseline: BaselineSnapshot,
    report: DriftReport,
    options: RunOptions,
    *,
    progress: ProgressCallback | None = None,
) -> Retest:
    """Fresh answers for the behaviour finding of ``report``, and its re-test.

    Sends what :func:`retest_plan` says (``TOPUP_SAMPLES`` per named prompt, plus
    ``SCREENING_SAMPLES`` per other compared prompt when the suite-level test fired; nothing
    when there is no finding). :attr:`Retest.usage` is what those requests cost.
    """
    plan = retest_plan(suite, baseline, report)
    fresh: list[CanaryRunResult] = []
    for samples in (TOPUP_SAMPLES, SCREENING_SAMPLES):
        ids = [p for p, n in plan.items() if n == samples]
        if ids:
            fresh.append(_draw(suite, provider, ids, samples, options, progress))
    if not fresh:
        return Retest()
    merged = fresh[0].model_copy(
        update={"llm_responses": [r for run in fresh for r in run.llm_responses]}
    )
    identity = report.attribution is not None and report.attribution.identity_changed
    retest = retest_flagged(
        baseline.run_result,
        merged,
        report.behaviour_changes,
        suite_finding=report.suite_answers_changed,
        alpha=report.alpha,
        other_findings=report.has_drift or identity,
    )
    # Judge calls of LLM probes on the fresh answers cost money too: the run's usage has them.
    extra = [r for run in fresh[1:] for r in run.probe_results]
    spent = merged.model_copy(update={"probe_results": [*merged.probe_results, *extra]})
    return retest.model_copy(update={"usage": spent.usage})


def _draw(
    suite: CanarySuite,
    provider: BaseLLMProvider,
    prompt_ids: list[str],
    samples: int,
    options: RunOptions,
    progress: ProgressCallback | None,
) -> CanaryRunResult:
    return run_suite(
        subset_of(suite, prompt_ids),
        provider,
        replace(options, samples=samples, sample_offset=0),
        progress=labelled(progress, RETEST_PURPOSE),
    )


__all__ = ["RETEST_PURPOSE", "needs_retest", "resample_flagged", "retest_plan"]
