"""compare(): match a current run against a baseline, pair by pair, and decide what changed.

Pairs are (probe_id, prompt_id), order-independent. Each side is summarised over its samples (mean
score, pass count). Errored samples are left out; a side with no measured sample makes the pair
*inconclusive* — a provider outage is never reported as a regression. A pair present on only one side
counts the missing side as score 0 / failed, as documented, so removing a prompt or probe shows.
"""

from __future__ import annotations

import gc
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager

from promptcanary.core.config import DEFAULT_BASELINE_SAMPLES
from promptcanary.core.models import (
    BaselineSnapshot,
    CanaryRunResult,
    DriftReport,
    LLMResponse,
    ProbeCategory,
    ProbeComparison,
    ProbeResult,
    SuiteChange,
)
from promptcanary.core.text import clip
from promptcanary.core.verdict.pairs import Side

#: Longest excerpt of a prompt/response kept in a report for a changed pair.
EXCERPT_CHARS = 4000


@contextmanager
def _gc_paused() -> Iterator[None]:
    # compare() allocates tens of thousands of small objects while two large runs are alive; the
    # cyclic collector's passes over those runs cost as much as the comparison itself (measured:
    # 0.85 s -> 0.45 s CPU for 10,000 pairs x 5 samples), and nothing here creates cycles.
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@_gc_paused()  # a fresh pause for every call (contextmanager objects decorate as ContextDecorator)
def compare(
    baseline: BaselineSnapshot,
    current: CanaryRunResult,
    *,
    regression_threshold: float = 0.05,
    improvement_threshold: float = 0.05,
    alpha: float = 0.05,
    min_effect: float = 0.1,
    max_error_rate: float = 0.2,
) -> DriftReport:
    """Compare a current run against a saved baseline snapshot.

    Args:
        baseline:               Saved :class:`BaselineSnapshot`.
        current:                Fresh :class:`CanaryRunResult` from the same suite.
        regression_threshold:   Minimum score drop (Δ) to declare a regression.
        improvement_threshold:  Minimum score gain (Δ) to declare an improvement.
        alpha:                  False discovery rate for multi-sample tests.
        min_effect:             Minimum drop/gain in pass rate or mean score (multi-sample).
        max_error_rate:         Above this fraction of errored requests the verdict is
                                inconclusive.

    Returns:
        A :class:`DriftReport` with full comparison data.

    Raises:
        SuiteMismatchError: (a ``ValueError``) if suite names do not match (guards against
            comparing incompatible suites).
    """
    if baseline.suite_name != current.suite_name:
        from promptcanary.errors import SuiteMismatchError

        raise SuiteMismatchError(
            f"Suite name mismatch: baseline {baseline.snapshot_id[:8]} is for "
            f"'{baseline.suite_name}' but current run is for '{current.suite_name}'. "
            "Cannot compare results from different suites.",
            hint="Compare with a baseline of the same suite (see `promptcanary baselines list`).",
        )
    from promptcanary.core.verdict.suite_changes import split_pairs

    base_run = baseline.run_result
    b_sides = _group(base_run.probe_results)
    c_sides = _group(current.probe_results)
    # Only pairs both runs measured are compared: a prompt or probe added, removed or edited in
    # canary.yaml is a suite change, reported as such, never a regression.
    keys, suite_changes = split_pairs(base_run, current)

    from promptcanary.core.verdict import rules as decision

    # Routed pair by pair: a pair is tested when a side has >= 2 measured samples (whatever the
    # runs' nominal `samples`, since errors thin them out); a pair with one sample on both sides
    # gets the documented threshold rule, so single-sample runs behave exactly as before.
    pairs = [(b_sides.get(k) or Side(), c_sides.get(k) or Side()) for k in keys]
    record = current.adaptive
    if record is not None:
        # An adaptive run: confirmed pairs are decided on their fresh confirmation samples,
        # the others on screening (see core/verdict/adaptive.py).
        from promptcanary.core.verdict.adaptive import judge

        judged = judge(
            pairs,
            keys,
            record,
            regression_threshold=regression_threshold,
            improvement_threshold=improvement_threshold,
            alpha=alpha,
            min_effect=min_effect,
        )
        verdicts = [j.verdict for j in judged]
        pairs = [(b, j.current) for (b, _), j in zip(pairs, judged)]
    else:
        judged = None
        verdicts = decision.decide_multi(
            pairs,
            regression_threshold=regression_threshold,
            improvement_threshold=improvement_threshold,
            alpha=alpha,
            min_effect=min_effect,
        )

    texts = _Texts(base_run, current)
    comparisons: list[ProbeComparison] = []
    for index, ((probe_id, prompt_id), (b, c), verdict) in enumerate(zip(keys, pairs, verdicts)):
        adaptive = judged[index] if judged is not None else None
        meta = (c.results or b.results or (adaptive.screening.results if adaptive else []))[0]
        changed = verdict.regression or verdict.improvement or verdict.inconclusive
        comparisons.append(
            ProbeComparison(
                probe_id=probe_id,
                probe_name=meta.probe_name,
                category=meta.category
                if isinstance(meta.category, ProbeCategory)
                else ProbeCategory(meta.category),
                prompt_id=prompt_id,
                baseline_score=b.mean,
                current_score=c.mean,
                score_delta=c.mean - b.mean,
                baseline_passed=b.passed,
                current_passed=c.passed,
                regression=verdict.regression,
                improvement=verdict.improvement,
                baseline_details=b.details if b.present else "Not present in baseline.",
                current_details=c.details if c.present else "Not present in current run.",
                inconclusive=verdict.inconclusive,
                inconclusive_reason=verdict.inconclusive_reason,
                baseline_samples=b.n,
                current_samples=c.n,
                baseline_pass_count=b.passes,
                current_pass_count=c.passes,
                method=verdict.method,
                p_value=verdict.p_value,
                p_adjusted=verdict.p_adjusted,
                flaky=0 < b.passes < b.n,
                screening_samples=adaptive.screening.n if adaptive else None,
                screening_pass_count=adaptive.screening.passes if adaptive else None,
                screening_score=adaptive.screening.mean if adaptive else None,
                confirmed=adaptive.confirmed if adaptive else False,
                stopped_early=adaptive.stopped_early if adaptive else False,
                prompt_text=texts.prompt(prompt_id) if changed else None,
                baseline_response=texts.baseline(prompt_id) if changed else None,
                current_response=texts.current(prompt_id) if changed else None,
            )
        )

    from promptcanary.core.verdict.attribution import attribute
    from promptcanary.core.verdict.behaviour import behaviour_changes

    changes, tested, suite = behaviour_changes(base_run, current, suite_changes, alpha=alpha)
    attribution = attribute(
        base_run,
        current,
        suite_changes=suite_changes,
        changes=changes,
        regressions=sum(1 for c in comparisons if c.regression),
        edit_words=[_edit_words(c) for c in suite_changes],
        suite_answers_moved=suite is not None and suite.beyond_known_shifts,
    )
    return DriftReport(
        suite_name=current.suite_name,
        provider=current.provider,
        baseline_provider=baseline.provider,
        baseline_snapshot_id=baseline.snapshot_id,
        baseline_created_at=baseline.created_at,
        current_run_id=current.run_id,
        comparisons=comparisons,
        suite_changes=suite_changes,
        regression_threshold=regression_threshold,
        improvement_threshold=improvement_threshold,
        alpha=alpha,
        min_effect=min_effect,
        max_error_rate=max_error_rate,
        baseline_usage=base_run.usage,
        current_usage=current.usage,
        error_rate=current.error_rate,
        baseline_samples=base_run.samples,
        current_samples=current.samples,
        aborted=current.aborted,
        adaptive=record is not None,
        confirmation_requests=record.confirmation_requests if record is not None else 0,
        behaviour_requests=record.behaviour_requests if record is not None else 0,
        thin_baseline=_thin_baseline(base_run.samples, current.samples)
        if record is not None
        else None,
        recommended_baseline_samples=DEFAULT_BASELINE_SAMPLES,
        behaviour_changes=changes,
        behaviour_tested=tested,
        behaviour_suite=suite,
        attribution=attribution,
    )


def _edit_words(change: SuiteChange) -> str:
    """``prompt 1a2b3c4d edited`` / ``probe tone added``: a suite change as evidence."""
    name = change.probe_id if change.what == "probe" else change.prompt_id
    return f"{change.what} {name or '(all prompts)'} {change.kind}"


def _group(results: list[ProbeResult]) -> dict[tuple[str, str], Side]:
    grouped: dict[tuple[str, str], list[ProbeResult]] = defaultdict(list)
    for r in results:
        grouped[(r.probe_id, r.prompt_id)].append(r)
    return {key: Side(group) for key, group in grouped.items()}


def excerpt(text: str | None, limit: int = EXCERPT_CHARS) -> str | None:
    """The first ``limit`` characters of ``text`` (with an ellipsis when cut)."""
    return None if text is None else clip(text, limit)


class _Texts:
    """Lazily indexed prompt and response texts of both runs (first sample, first success)."""

    def __init__(self, baseline: CanaryRunResult, current: CanaryRunResult) -> None:
        self._base_run, self._cur_run = baseline, current
        self._prompts: dict[str, str] | None = None
        self._base: dict[str, LLMResponse] | None = None
        self._cur: dict[str, LLMResponse] | None = None

    @staticmethod
    def _index(run: CanaryRunResult) -> dict[str, LLMResponse]:
        index: dict[str, LLMResponse] = {}
        for r in run.llm_responses:
            known = index.get(r.prompt_id)
            if known is None or (known.error is not None and r.error is None):
                index[r.prompt_id] = r
        return index

    def prompt(self, prompt_id: str) -> str | None:
        if self._prompts is None:
            self._prompts = {p.id: p.text for p in self._base_run.prompts}
            self._prompts.update({p.id: p.text for p in self._cur_run.prompts})
        return excerpt(self._prompts.get(prompt_id))

    def baseline(self, prompt_id: str) -> str | None:
        if self._base is None:
            self._base = self._index(self._base_run)
        return _response_text(self._base.get(prompt_id))

    def current(self, prompt_id: str) -> str | None:
        if self._cur is None:
            self._cur = self._index(self._cur_run)
        return _response_text(self._cur.get(prompt_id))


def _response_text(response: LLMResponse | None) -> str | None:
    if response is None:
        return None
    if response.error is not None:
        return None
    if not response.content and response.tool_calls:
        import json

        return excerpt(json.dumps(response.tool_calls, ensure_ascii=False))
    return excerpt(response.content)


def score_to_emoji(score: float) -> str:
    """A coloured dot for a 0..1 score (🟢 ≥ 0.95, 🟡 ≥ 0.8, 🟠 ≥ 0.6, else 🔴).

    Kept for code written for promptcanary 0.2, which exported it from this module.
    """
    if score >= 0.95:
        return "🟢"
    if score >= 0.80:
        return "🟡"
    if score >= 0.60:
        return "🟠"
    return "🔴"


def _thin_baseline(baseline_samples: int, screening: int) -> tuple[float, float] | None:
    """(detection now, detection with a recommended baseline) when the baseline is thin."""
    if not 2 <= baseline_samples < DEFAULT_BASELINE_SAMPLES:
        return None
    from promptcanary.core.verdict.planning import baseline_strength

    return baseline_strength(baseline_samples, screening=screening)
