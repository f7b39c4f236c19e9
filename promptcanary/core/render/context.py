"""The one view-model every drift renderer receives: :class:`ReportView`.

Building it decides order (worst regression first), groups inconclusive pairs by their error,
and formats numbers. Text in it is *cleaned* (:func:`~.safety.clean_text`: no control or bidi
characters) but not escaped: each renderer escapes for its own format. Excerpts and diffs are
computed lazily, so a report with 5,000 regressions only pays for the ones a format shows.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from promptcanary.core.models import BaselineSnapshot, DriftReport, ProbeComparison
from promptcanary.core.render import fmt
from promptcanary.core.render.behaviour import (
    BehaviourView,
    attribution_notes,
    behaviour_views,
    suite_verdict,
    who_sentence,
    who_short,
)
from promptcanary.core.render.placement import DEFAULT_ACCEPT_HINT, Placement, placed
from promptcanary.core.render.safety import clean_text, excerpt, one_line
from promptcanary.core.render.trend import TrendPoint, trend_for_report
from promptcanary.errors import redact

if TYPE_CHECKING:
    from typing_extensions import Unpack

PROMPT_CHARS = 600
RESPONSE_CHARS = 1_500
RESPONSE_LINES = 40
DIFF_LINES = 60
REASON_CHARS = 160
MAX_INCONCLUSIVE_GROUPS = 20


class PairView:
    """One (probe, prompt) pair as the reports show it."""

    def __init__(self, c: ProbeComparison, *, index: int, kind: str, show_probe_id: bool) -> None:
        self.c = c
        self.index = index
        self.kind = kind
        self.category = c.category.value
        self._show_probe_id = show_probe_id
        self._rendered: dict[tuple[str, ...], str] = {}

    def rendered(self, key: tuple[str, ...], make: Callable[[], str]) -> str:
        """``make()``, computed once per key: renderers cache their pieces of this pair here, so
        rendering twice (comment and job summary, or a budget retry) costs one rendering."""
        try:
            return self._rendered[key]
        except KeyError:
            text = self._rendered[key] = make()
            return text

    # Everything else is computed on first use: a report with thousands of pairs only pays for
    # the ones a format actually shows.
    @cached_property
    def probe(self) -> str:
        """Probe name (with its id when another probe shares the name), one line."""
        name = one_line(self.c.probe_name or self.c.probe_id, 80)
        return f"{name} [{one_line(self.c.probe_id, 60)}]" if self._show_probe_id else name

    @cached_property
    def probe_id(self) -> str:
        """Probe id, one line."""
        return one_line(self.c.probe_id, 80)

    @cached_property
    def prompt_id(self) -> str:
        """Prompt id, one line."""
        return one_line(self.c.prompt_id, 60)

    @cached_property
    def scores(self) -> str:
        """``1.00 → 0.30``."""
        return f"{fmt.score(self.c.baseline_score)} → {fmt.score(self.c.current_score)}"

    @cached_property
    def delta(self) -> str:
        """Signed score change."""
        return fmt.delta(self.c.score_delta)

    @cached_property
    def evidence(self) -> str:
        """Pass counts, p-value and method, short."""
        return fmt.evidence(self.c)

    @cached_property
    def evidence_counts(self) -> str:
        """Pass counts and p-value, without the method."""
        return fmt.evidence(self.c, method=False)

    @cached_property
    def method(self) -> str:
        """Readable name of the decision method."""
        return fmt.method_label(self.c.method)

    @cached_property
    def flaky(self) -> str:
        """Why the pair is flaky ("" when it is not)."""
        return fmt.flaky_note(self.c) if self.c.flaky else ""

    @cached_property
    def reason(self) -> str:
        """Short reason (the current details, else the baseline's), one line."""
        return one_line(self.c.current_details or self.c.baseline_details, REASON_CHARS)

    @cached_property
    def prompt_line(self) -> str:
        """The prompt on one line, for tables."""
        return one_line(self.c.prompt_text, 80) if self.c.prompt_text else self.prompt_id

    @cached_property
    def prompt_short(self) -> str:
        """Prompt id and the start of its text, for narrow terminal tables."""
        if not self.c.prompt_text:
            return self.prompt_id
        return f"{self.prompt_id}: {one_line(self.c.prompt_text, 36)}"

    @cached_property
    def prompt(self) -> str:
        """Prompt excerpt (multi-line)."""
        return excerpt(self.c.prompt_text, max_chars=PROMPT_CHARS, max_lines=15)

    @cached_property
    def baseline_response(self) -> str:
        """Baseline response excerpt ("" when not recorded)."""
        return excerpt(self.c.baseline_response, max_chars=RESPONSE_CHARS, max_lines=RESPONSE_LINES)

    @cached_property
    def current_response(self) -> str:
        """Current response excerpt ("" when not recorded)."""
        return excerpt(self.c.current_response, max_chars=RESPONSE_CHARS, max_lines=RESPONSE_LINES)

    @cached_property
    def baseline_details(self) -> str:
        """Baseline probe details, cleaned."""
        return one_line(self.c.baseline_details, 400)

    @cached_property
    def current_details(self) -> str:
        """Current probe details, cleaned."""
        return one_line(self.c.current_details, 400)

    @cached_property
    def diff(self) -> str:
        """Unified line diff of the two response excerpts ("" when not both text, or equal)."""
        base, cur = self.baseline_response, self.current_response
        if not base or not cur or base == cur:
            return ""
        lines = list(difflib.unified_diff(base.split("\n"), cur.split("\n"), lineterm="", n=1))[
            2:
        ]  # drop the ---/+++ file headers
        if len(lines) > DIFF_LINES:
            lines = [*lines[:DIFF_LINES], f"… ({len(lines) - DIFF_LINES} more diff lines)"]
        return "\n".join(lines)

    @cached_property
    def error(self) -> str:
        """Why the pair is inconclusive, one line (not yet redacted: see build_report_view)."""
        return one_line(self.c.inconclusive_reason or "no usable result", 300)


@dataclass
class ReportView:
    """Everything a drift renderer needs, prepared once."""

    report: DriftReport
    marker: str
    suite: str
    model: str
    verdict: str
    severity: str
    icon: str
    headline: str
    summary: str
    baseline_score: str
    current_score: str
    score_delta: str
    counts: dict[str, int]
    model_changed: str | None
    single_sample_note: str | None
    adaptive_note: str | None
    regressions: list[PairView]
    improvements: list[PairView]
    inconclusive_groups: list[tuple[str, list[PairView]]]
    inconclusive_groups_hidden: int
    flaky: list[PairView]
    usage: list[tuple[str, str, str, str]]
    threshold_items: list[str]
    """Each threshold in words (``regression Δ ≥ 0.05``, …)."""
    accept_hint: str
    """How to accept the change as the new baseline (trusted Markdown)."""
    run_url: str | None
    report_location: str | None
    trend: list[TrendPoint] = field(default_factory=list)
    probe_names: dict[str, tuple[str, str]] = field(default_factory=dict)
    """probe id -> (name, category) for the heat strip."""
    provider_notes: list[str] = field(default_factory=list)
    """How the current run called the model: an unsupported seed, an unknown cost (once each)."""
    who: str | None = None
    """Who changed since the baseline (the suite, the model, both, neither), with evidence."""
    behaviour: list[BehaviourView] = field(default_factory=list)
    """Prompts whose answers changed, most significant first."""
    behaviour_suite: str | None = None
    """The suite-level answer test in one sentence (p-value, level, effect)."""
    notes: list[str] = field(default_factory=list)
    """What the attribution noticed that is no evidence of a model change."""

    @property
    def thresholds(self) -> str:
        """The thresholds on one line."""
        return ", ".join(self.threshold_items)

    @property
    def usage_items(self) -> list[str]:
        """Each usage row, then the provider notes."""
        return [*fmt.usage_items(self.usage), *self.provider_notes]

    @property
    def usage_line(self) -> str:
        """Usage on one line, then the provider notes."""
        return " · ".join(self.usage_items)

    @property
    def inconclusive(self) -> bool:
        """True when the whole verdict is inconclusive."""
        return self.verdict == "inconclusive"

    @property
    def inconclusive_words(self) -> str:
        """The words after "Inconclusive (N) —" in the list of undecided pairs: "too few samples"
        when every such pair was measured on both sides, else "could not be measured"."""
        pairs = [c for c in self.report.comparisons if c.inconclusive]
        if pairs and all(c.measured for c in pairs):
            return fmt.UNDECIDED_WORDS
        return fmt.INCONCLUSIVE_WORDS

    @property
    def inconclusive_note(self) -> str:
        """Why the whole verdict is inconclusive and what to do, in one or two sentences
        (trusted Markdown: the accept hint is): "" when it is not."""
        r = self.report
        if not self.inconclusive:
            return ""
        if r.nothing_compared:
            hint = self.accept_hint or DEFAULT_ACCEPT_HINT
            return f"To record a baseline of the suite as it is now, {hint}."
        if r.undecided:
            return (
                "No pair had enough samples to show a change, so this check says nothing about "
                "the model yet: compare with more samples (see the reason below)."
            )
        return ""

    @property
    def offer_accept(self) -> bool:
        """Whether to say how to accept the change: only when something changed and was measured
        (no such hint after a run with no drift, nor for an unmeasurable one)."""
        r = self.report
        changed = r.has_drift or bool(r.improvements) or r.suite_changed or r.behaviour_changed
        return bool(self.accept_hint) and changed and not self.inconclusive

    @property
    def unwanted_hint(self) -> str:
        """What to do when the model's change is not wanted (Markdown), beside the accept hint;
        "" when the model did not change (a suite edit is undone in canary.yaml)."""
        r = self.report
        if not self.offer_accept or not (r.has_drift or r.behaviour_changed):
            return ""
        return unwanted_hint(r)


def unwanted_hint(report: DriftReport) -> str:
    """Pin the model the baseline was answered by (named when the provider said which one), or
    change the prompt, then check again: the two ways to keep the old behaviour."""
    served = report.attribution.served_models[0] if report.attribution is not None else []
    model = report.provider.model_id
    prefix = model.rsplit("/", 1)[0] + "/" if "/" in model else ""
    # The provider's words in a code span: a backtick in them would end it.
    dated = one_line(prefix + served[0], 120).replace("`", "") if len(served) == 1 else ""
    pin = (
        f"pin the dated model the baseline was answered by (`{dated}`)"
        if dated and dated != model
        else "pin a dated model version"
    )
    return (
        f"{pin} as the suite's model (`provider:` in canary.yaml), or change the prompt until "
        "it passes again, and check again"
    )


def _thresholds(report: DriftReport) -> list[str]:
    parts = [
        f"regression Δ ≥ {report.regression_threshold:g}",
        f"improvement Δ ≥ {report.improvement_threshold:g}",
    ]
    if report.behaviour_suite is not None or report.behaviour_changes:
        parts.append(
            f"α = {report.alpha:g} (probes: Benjamini–Hochberg; answers: Holm beside the "
            "suite-level test)"
        )
    elif not report.single_sample:
        parts.append(f"α = {report.alpha:g} (Benjamini–Hochberg)")
        parts.append(f"min effect {report.min_effect:g}")
    parts.append(f"max error rate {report.max_error_rate:.0%}")
    return parts


def _headline(report: DriftReport) -> tuple[str, str]:
    if report.is_inconclusive:
        if report.nothing_compared:
            # Still says the suite changed: that is what happened, and what to act on.
            changed = ", suite changed" if report.suite_changed else ""
            return fmt.INCONCLUSIVE_ICON, f"Inconclusive: nothing compared{changed}"
        if report.undecided:
            return fmt.INCONCLUSIVE_ICON, "Inconclusive: too few samples to judge any pair"
        return fmt.INCONCLUSIVE_ICON, f"Inconclusive: {fmt.INCONCLUSIVE_WORDS}"
    icon = fmt.SEVERITY_ICONS[report.severity]
    # The first line says when the single-sample threshold rule decided: it cannot tell noise
    # from change, and a gate that fails on it should not look like a tested verdict.
    rule = " (single-sample threshold rule)" if report.single_sample and report.comparisons else ""
    words = "No drift" if not report.has_drift else f"{report.severity.value.upper()} drift"
    words += rule
    if not report.has_drift and report.improvements:
        # Something changed (the accept hint is offered): never a bare "No drift".
        words += f", {fmt.plural(len(report.improvements), 'improvement')}"
    if report.behaviour_changes:
        n = len(report.behaviour_changes)
        words += f", answers changed on {fmt.plural(n, 'prompt')}"
    elif report.suite_answers_changed:
        words += ", answers moved across the suite"
    if report.behaviour_changed and not report.behaviour_stands:
        words += " (not confirmed on fresh answers)"
    if report.suite_changed:
        words += ", suite changed"
    # Every report's first line says which side moved (None only for pre-attribution files).
    if report.attribution is not None:
        words += f" · {who_short(report)}"
    return icon, words


def _single_sample_note(report: DriftReport) -> str | None:
    if not report.comparisons:
        return None
    advice = (
        f"Set `samples: auto` in canary.yaml and record the baseline with "
        f"{report.recommended_baseline_samples} samples per prompt (`baseline_samples`, used by "
        "`run --save-baseline`) for a statistically tested verdict."
    )
    if report.single_sample:
        return (
            "Single-sample verdict: each prompt was measured once on both sides, so the "
            f"threshold rule decided and a change may be noise. {advice}"
        )
    if report.thin_side is None:
        return None
    side = "this run" if report.thin_side == "current" else "the baseline"
    return (
        f"Thin evidence: {side} measured each prompt once ({report.baseline_samples} baseline "
        f"→ {report.current_samples} current samples per prompt). One sample cannot show a "
        "significant change, so a pair that looks different is reported as not enough evidence, "
        f"never as drift. {advice}"
    )


def _adaptive_note(report: DriftReport) -> str | None:
    """How an adaptive check spent its samples, and whether a richer baseline would help."""
    if not report.adaptive:
        return None
    confirmed = [c for c in report.comparisons if c.confirmed]
    text = (
        f"Adaptive check (`samples: auto`): every prompt screened with {report.current_samples} "
        f"samples; {fmt.plural(len(confirmed), 'pair')} looked different and went to "
        f"confirmation, costing {report.confirmation_requests:,} extra requests."
    )
    if report.behaviour_requests:
        text += (
            " The answer test drew fresh answers for the prompts whose screening answers looked "
            f"moved, costing {report.behaviour_requests:,} more."
        )
    if report.thin_baseline is not None:
        now, rich = report.thin_baseline
        text += (
            f" The baseline has {report.baseline_samples} samples per prompt: a prompt falling "
            f"from 90% to 50% is caught {now:.0%} of the time with it, {rich:.0%} with a "
            f"baseline of {report.recommended_baseline_samples} (`baseline_samples`; re-record it with "
            "`promptcanary run --save-baseline`)."
        )
    return text


def _regression_order(c: ProbeComparison) -> tuple[float, float, float, str, str]:
    drop = c.current_pass_rate - c.baseline_pass_rate
    p = c.p_adjusted if c.p_adjusted is not None else (c.p_value or 1.0)
    return (c.score_delta, drop, p, c.probe_id, c.prompt_id)


def build_report_view(
    report: DriftReport,
    *,
    history: Sequence[TrendPoint | BaselineSnapshot] | None = None,
    with_trend: bool = True,
    **shown: Unpack[Placement],
) -> ReportView:
    """Prepare ``report`` for rendering (one pass over its comparisons)."""
    names: dict[str, set[str]] = defaultdict(set)
    probe_names: dict[str, tuple[str, str]] = {}
    regressions, improvements, inconclusive, flaky = [], [], [], []
    for c in report.comparisons:
        names[c.probe_name].add(c.probe_id)
        if c.probe_id not in probe_names:
            probe_names[c.probe_id] = (one_line(c.probe_name, 60), c.category.value)
        if c.inconclusive:
            inconclusive.append(c)
        elif c.regression:
            regressions.append(c)
        elif c.improvement:
            improvements.append(c)
        if c.flaky:
            flaky.append(c)
    ambiguous = {name for name, ids in names.items() if len(ids) > 1}

    def views(items: list[ProbeComparison], kind: str) -> list[PairView]:
        return [
            PairView(c, index=i, kind=kind, show_probe_id=c.probe_name in ambiguous)
            for i, c in enumerate(items, 1)
        ]

    regressions.sort(key=_regression_order)
    improvements.sort(key=lambda c: (-c.score_delta, c.probe_id, c.prompt_id))
    groups: dict[str, list[PairView]] = defaultdict(list)
    for pv in views(inconclusive, "inconclusive"):
        groups[pv.error].append(pv)
    ordered_groups = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    # Provider errors may echo credentials; redaction is costly, so only shown groups pay it.
    shown_groups = [
        (redact(error), pairs) for error, pairs in ordered_groups[:MAX_INCONCLUSIVE_GROUPS]
    ]
    icon, headline = _headline(report)
    changed = report.model_changed
    return ReportView(
        report=report,
        suite=one_line(report.suite_name, 120),
        model=one_line(report.provider.model_id, 120),
        verdict=report.verdict,
        severity=report.severity.value,
        icon=icon,
        headline=headline,
        summary=clean_text(report.summary),
        # Nothing compared: the overall scores average no pair (1.00 by convention), so no
        # number is shown rather than a "1.00 → 1.00" that nothing measured.
        baseline_score="–" if report.nothing_compared else fmt.score(report.overall_baseline_score),
        current_score="–" if report.nothing_compared else fmt.score(report.overall_current_score),
        score_delta="nothing compared"
        if report.nothing_compared
        else fmt.delta(report.overall_score_delta),
        counts={
            "regressions": len(regressions),
            "improvements": len(improvements),
            "stable": len(report.comparisons)
            - len(regressions)
            - len(improvements)
            - len(inconclusive),
            "inconclusive": len(inconclusive),
            "flaky": len(flaky),
            # Stable is two different things: still passing, or still failing (a failure the
            # baseline already had is no news, but it is not "fine" either).
            "stable_passing": sum(
                1 for c in report.comparisons if c.stable and c.baseline_passed and c.current_passed
            ),
            "stable_failing": sum(
                1
                for c in report.comparisons
                if c.stable and not c.baseline_passed and not c.current_passed
            ),
        },
        model_changed=one_line(changed, 400) if changed else None,
        single_sample_note=_single_sample_note(report),
        adaptive_note=_adaptive_note(report),
        regressions=views(regressions, "regression"),
        improvements=views(improvements, "improvement"),
        inconclusive_groups=shown_groups,
        inconclusive_groups_hidden=max(len(ordered_groups) - MAX_INCONCLUSIVE_GROUPS, 0),
        flaky=views(flaky, "flaky"),
        usage=fmt.usage_comparison_rows(report.baseline_usage, report.current_usage),
        threshold_items=_thresholds(report),
        **placed(shown),
        trend=trend_for_report(report, history) if with_trend else [],
        probe_names=probe_names,
        provider_notes=fmt.provider_notes(report.provider, report.current_usage),
        # An unmeasurable run says nothing about who changed.
        who=None if report.is_inconclusive else who_sentence(report),
        behaviour=behaviour_views(report),
        behaviour_suite=None if report.is_inconclusive else suite_verdict(report),
        notes=attribution_notes(report),
    )
