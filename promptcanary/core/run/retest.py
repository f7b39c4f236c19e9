"""Re-sampling a check's behaviour finding before anyone is told: what a scheduled watch calls.

A scheduled watch runs unattended, several times a week; at 3–5 % false alarms per run it would
open a false "the provider changed the model" issue about once a month. :func:`resample_flagged`
draws fresh answers for what the check flagged — ``TOPUP_SAMPLES`` for every named prompt and,
when the suite-level test fired, a fresh screening of every other compared prompt — and tests
them again (:func:`promptcanary.core.verdict.behaviour.retest_flagged`). Open or update the issue
only when :attr:`Retest.accuses`; a prompt flagged twice whose answers only shifted among ones
the baseline holds is reported as "the baseline may not represent this prompt" instead.

    report = pipeline.compare(...)
    if report.behaviour_changed and not report.has_drift:
        retest = resample_flagged(suite, provider, baseline, report, options)
        if retest.accuses: open_or_update_issue(..., retest.sentence)
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

    Sends ``TOPUP_SAMPLES`` (12) requests per named prompt, plus ``SCREENING_SAMPLES`` (3) per
    other compared prompt when the suite-level test fired; nothing when there is no finding.
    """
    flagged = [c.prompt_id for c in report.behaviour_changes]
    suite_finding = report.suite_answers_changed
    fresh: list[CanaryRunResult] = []
    if flagged:
        fresh.append(_draw(suite, provider, flagged, TOPUP_SAMPLES, options, progress))
    if suite_finding:
        base = baseline.run_result
        others = [p for p in testable_prompts(base, base, []) if p not in set(flagged)]
        if others:
            fresh.append(_draw(suite, provider, others, SCREENING_SAMPLES, options, progress))
    if not fresh:
        return Retest([], [], [], None)
    merged = fresh[0].model_copy(
        update={"llm_responses": [r for run in fresh for r in run.llm_responses]}
    )
    identity = report.attribution is not None and report.attribution.identity_changed
    return retest_flagged(
        baseline.run_result,
        merged,
        report.behaviour_changes,
        suite_finding=suite_finding,
        alpha=report.alpha,
        other_findings=report.has_drift or identity,
    )


def _draw(
    suite: CanarySuite,
    provider: BaseLLMProvider,
    prompt_ids: list[str],
    samples: int,
    options: RunOptions,
    progress: ProgressCallback | None,
) -> CanaryRunResult:
    wanted = set(prompt_ids)
    ids = [p.id for p in suite.prompts if p.id in wanted]
    return run_suite(
        subset_of(suite, ids),
        provider,
        replace(options, samples=samples, sample_offset=0),
        progress=labelled(progress, RETEST_PURPOSE),
    )


__all__ = ["RETEST_PURPOSE", "resample_flagged"]
