"""measure_adaptive(): one check run with ``samples: auto`` — screen, then confirm where needed.

The decisions (which pairs to confirm, when to stop) are pure functions in
:mod:`promptcanary.core.verdict.adaptive`; this module only calls the provider and puts the
phases together into one :class:`CanaryRunResult`:

* every response and probe result carries its ``phase`` (``screening`` or ``confirmation``), and
  sample indices continue across rounds (screening 0–2, first confirmation round 3–12, ...);
* ``run.adaptive`` records the pairs sent to confirmation, their direction and test, and the
  requests each phase cost, so a later ``compare()`` never remakes the choice from the data.

Confirmation rounds run only the prompts that still need samples, through the same runner (same
concurrency, retries, budget). A run that stops early (refused key, budget) stops confirming.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from promptcanary.core.behaviour.adaptive import TOPUP_SAMPLES
from promptcanary.core.models import CanaryRunResult, ConfirmedPair, LLMResponse, ProbeResult
from promptcanary.core.run.runner import ProgressCallback, RunOptions, run_suite
from promptcanary.core.verdict.adaptive import (
    AdaptivePolicy,
    Draw,
    confirm,
    group,
    reference_side,
    select_pairs,
    split_phases,
)
from promptcanary.core.verdict.behaviour import topup_prompts
from promptcanary.errors import RunInterruptedError

if TYPE_CHECKING:
    from promptcanary.core.models import BaselineSnapshot
    from promptcanary.core.models.run import Phase
    from promptcanary.core.suite import CanarySuite
    from promptcanary.providers.base import BaseLLMProvider


def measure_adaptive(
    suite: CanarySuite,
    provider: BaseLLMProvider,
    baseline: BaselineSnapshot | None,
    policy: AdaptivePolicy,
    options: RunOptions,
    *,
    progress: ProgressCallback | None = None,
) -> CanaryRunResult:
    """Screen every prompt, confirm the pairs that look changed, return one merged run.

    Args:
        suite:    The suite to run.
        provider: Where requests go.
        baseline: The baseline the check compares with. Without one (or when it has fewer than
                  two samples per prompt) nothing can be selected: the result is the screening.
        policy:   Screening size, confirmation batch and cap, thresholds
                  (:meth:`AdaptivePolicy.from_settings` reads them from canary.yaml).
        options:  Everything else that shapes a run; its ``samples`` is ignored.
        progress: Progress callback, called for every phase.

    Returns:
        A :class:`CanaryRunResult` with ``samples`` = the screening size and ``adaptive`` set.
        Pass it to :func:`promptcanary.core.comparator.compare` with the same baseline.
    """
    screening_run = run_suite(
        suite,
        provider,
        replace(options, samples=policy.screening, sample_offset=0),
        progress=labelled(progress, SCREENING_PURPOSE),
    )
    screening_run = _stamped(screening_run, "screening")
    selected: list[ConfirmedPair] = []
    if baseline is not None and not screening_run.aborted:
        selected = select_pairs(
            group(baseline.run_result.probe_results), group(screening_run.probe_results), policy
        )

    rounds: list[CanaryRunResult] = []
    aborted = screening_run.aborted
    drawn: Counter[str] = Counter()
    spent = [screening_run.usage.cost_usd or 0.0]

    purpose = [CONFIRMATION_PURPOSE]
    kinds: list[str] = []

    def draw(
        prompt_ids: list[str], count: int, offset: int
    ) -> tuple[list[ProbeResult], str | None]:
        budget: float | None = None
        if options.max_cost_usd is not None:
            budget = options.max_cost_usd - spent[0]
            if budget <= 0:
                return [], "max_cost_usd was spent before the confirmation finished"
        sub_options = replace(options, samples=count, sample_offset=offset, max_cost_usd=budget)
        try:
            answered = run_suite(
                subset_of(suite, prompt_ids),
                provider,
                sub_options,
                progress=labelled(progress, purpose[0]),
            )
        except RunInterruptedError as exc:  # Ctrl-C: keep the screening and earlier rounds too
            so_far = [*rounds, _stamped(exc.partial, "confirmation")]
            whole = _merged(suite, screening_run, so_far, record=None, aborted=exc.partial.aborted)
            raise RunInterruptedError(str(exc), whole) from exc
        part = _stamped(answered, "confirmation")
        rounds.append(part)
        kinds.append(purpose[0])
        spent[0] += part.usage.cost_usd or 0.0
        return part.probe_results, part.aborted

    if selected and baseline is not None:
        b_sides = group(baseline.run_result.probe_results)
        s_sides = group(screening_run.probe_results)
        references = {
            (p.probe_id, p.prompt_id): reference_side(
                b_sides[(p.probe_id, p.prompt_id)], s_sides[(p.probe_id, p.prompt_id)]
            )
            for p in selected
        }
        _, drawn, aborted = confirm(
            selected, references, draw, policy, prompt_order=[p.id for p in suite.prompts]
        )

    stopped = {p for p in selected if drawn[p.prompt_id] < policy.cap}
    behaviour: list[str] = []
    if baseline is not None and not aborted:
        # The answer test's gate: prompts whose screening answers look moved, and those the
        # probes' confirmation drew for (tested on their first fresh answers; topped up to
        # them when the confirmation stopped short).
        behaviour = topup_prompts(baseline.run_result, screening_run, drawn=set(+drawn))
        purpose[0] = TOPUP_PURPOSE
        aborted = _top_up(behaviour, drawn, draw, policy)
    record = policy.record(
        baseline_snapshot_id=baseline.snapshot_id if baseline is not None else None,
        confirmed=[p.model_copy(update={"stopped_early": p in stopped}) for p in selected],
        behaviour_confirmed=behaviour,
        screening_requests=len(screening_run.llm_responses),
        confirmation_requests=sum(
            len(r.llm_responses) for r, k in zip(rounds, kinds) if k == CONFIRMATION_PURPOSE
        ),
        behaviour_requests=sum(
            len(r.llm_responses) for r, k in zip(rounds, kinds) if k == TOPUP_PURPOSE
        ),
    )
    return _merged(suite, screening_run, rounds, record=record, aborted=aborted)


def _top_up(
    prompt_ids: list[str], drawn: Counter[str], draw: Draw, policy: AdaptivePolicy
) -> str | None:
    """Fresh answers for every gated prompt, so each has ``TOPUP_SAMPLES`` with the screening's
    (never past ``cap``): the answers the exact always-top-up scheme would test. A prompt the
    probes' confirmation drew for already has them (at least ``batch``, 10 by default) and
    costs nothing more; one whose confirmation stopped short gets the rest."""
    wanted = min(TOPUP_SAMPLES - policy.screening, policy.cap)
    rounds: dict[tuple[int, int], list[str]] = {}
    for prompt_id in prompt_ids:
        count = wanted - drawn[prompt_id]
        if count > 0:
            key = (count, policy.screening + drawn[prompt_id])
            rounds.setdefault(key, []).append(prompt_id)
    for (count, offset), ids in rounds.items():
        _, stopped = draw(ids, count, offset)
        for prompt_id in ids:
            drawn[prompt_id] += count
        if stopped:
            return stopped
    return None


#: What each batch of requests is for, as progress shows it.
SCREENING_PURPOSE = "screening: every prompt"
CONFIRMATION_PURPOSE = "probe confirmation: prompts whose probes moved"
TOPUP_PURPOSE = "answer test: prompts whose answers look moved"


def labelled(progress: ProgressCallback | None, purpose: str) -> ProgressCallback | None:
    """``progress`` with ``purpose`` added to its start event: the display says what a batch of
    requests is for (an adaptive check sends up to three kinds)."""
    if progress is None:
        return None
    inner = progress

    def callback(event: str, data: dict[str, Any]) -> None:
        inner(event, {**data, "purpose": purpose} if event == "start" else data)

    return callback


def subset_of(suite: CanarySuite, prompt_ids: list[str]) -> CanarySuite:
    from promptcanary.core.suite import CanarySuite

    wanted = set(prompt_ids)
    return CanarySuite(
        name=suite.name,
        prompts=[p for p in suite.prompts if p.id in wanted],
        probes=suite.probes,
        description=suite.description,
        tags=suite.tags,
        default_system_prompt=suite.default_system_prompt,
        settings=suite.settings,
        probe_ids=list(suite.probe_ids),
        probe_scopes=list(suite.probe_scopes),
    )


def _stamped(run: CanaryRunResult, phase: Phase) -> CanaryRunResult:
    update: dict[str, Any] = {"phase": phase}
    return run.model_copy(
        update={
            "llm_responses": [r.model_copy(update=update) for r in run.llm_responses],
            "probe_results": [r.model_copy(update=update) for r in run.probe_results],
        }
    )


def _merged(
    suite: CanarySuite,
    screening: CanaryRunResult,
    rounds: list[CanaryRunResult],
    *,
    record: Any,
    aborted: str | None,
) -> CanaryRunResult:
    """One run: the screening and every confirmation round, in suite order (prompt, sample,
    probe), like a fixed run."""
    order = {p.id: i for i, p in enumerate(suite.prompts)}
    probe_order = {pid: i for i, pid in enumerate(suite.probe_ids)}
    responses: list[LLMResponse] = list(screening.llm_responses)
    results: list[ProbeResult] = list(screening.probe_results)
    for part in rounds:
        responses.extend(part.llm_responses)
        results.extend(part.probe_results)
    responses.sort(key=lambda r: (order.get(r.prompt_id, len(order)), r.sample))
    results.sort(
        key=lambda r: (
            order.get(r.prompt_id, len(order)),
            r.sample,
            probe_order.get(r.probe_id, len(probe_order)),
        )
    )
    finished = rounds[-1].finished_at if rounds else screening.finished_at
    return screening.model_copy(
        update={
            "llm_responses": responses,
            "probe_results": results,
            "finished_at": finished,
            "aborted": aborted,
            "adaptive": record,
        }
    )


def replay_adaptive(
    suite: CanarySuite,
    provider: BaseLLMProvider,
    saved: CanaryRunResult,
    options: RunOptions,
    *,
    progress: ProgressCallback | None = None,
) -> CanaryRunResult:
    """Re-score a saved adaptive run: the same (prompt, sample) requests, answered from it.

    An adaptive run has 3 samples of most prompts and more of a few, so a plain replay of N
    samples per prompt would ask for answers that were never given. Only the samples the saved
    run holds are kept, with their phase, and its record of what went to confirmation.
    """
    held = {(r.prompt_id, r.sample): r.phase for r in saved.llm_responses}
    count = max((sample for _, sample in held), default=0) + 1
    run = run_suite(suite, provider, replace(options, samples=count), progress=progress)
    responses = [
        r.model_copy(update={"phase": held[(r.prompt_id, r.sample)]})
        for r in run.llm_responses
        if (r.prompt_id, r.sample) in held
    ]
    results = [
        r.model_copy(update={"phase": held[(r.prompt_id, r.sample)]})
        for r in run.probe_results
        if (r.prompt_id, r.sample) in held
    ]
    return run.model_copy(
        update={
            "llm_responses": responses,
            "probe_results": results,
            "samples": saved.samples,
            "adaptive": saved.adaptive,
        }
    )


__all__ = ["measure_adaptive", "replay_adaptive", "split_phases"]
