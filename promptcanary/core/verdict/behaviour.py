"""The behaviour step of compare(): which prompts' answers changed (who changed:
:mod:`promptcanary.core.verdict.attribution`).

For every prompt present on both sides with the same text, not edited, not opted out
(``behaviour: ignore``), with successful answers on both sides, the answer test
(:func:`promptcanary.core.behaviour.suite_test`) asks whether the current answers come from the
baseline's distribution: one pooled test over the whole suite (at ``alpha / 2``) and one test per
prompt, corrected with Holm's step-down (at ``alpha / 2``, or ``alpha`` once the pooled test
rejected; why Holm and not the probes' Benjamini–Hochberg: ``docs/behaviour.md``, "Across
prompts"). A prompt is a behaviour change when the procedure names it and its effect reaches the
engine's floor. Each change is then described in words
(:func:`promptcanary.core.behaviour.describe_change`).

In an adaptive run (``samples: auto``) only the prompts whose screening looked moved were topped
up (``AdaptiveRecord.behaviour_confirmed``; :mod:`promptcanary.core.behaviour.adaptive`): each is
tested on its first ``TOPUP_SAMPLES`` answers (screening and fresh) against the whole baseline,
the others stay in Holm's count with p = 1, and the pooled test uses every prompt's screening
answers.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from promptcanary.core.models import (
    BehaviourChange,
    BehaviourMode,
    BehaviourSuite,
    CanaryRunResult,
    DiffSegment,
    DriftReport,
    LLMResponse,
    PropertyMove,
    Retest,
    SuiteChange,
)
from promptcanary.core.text import clip
from promptcanary.core.verdict.attribution import after_retest

__all__ = [
    "Retest",
    "answers_by_prompt",
    "behaviour_changes",
    "retest_flagged",
    "testable_prompts",
    "topup_prompts",
    "with_retest",
]

_EXAMPLE_CHARS = 300
_PROMPT_CHARS = 300


def answer_text(response: LLMResponse) -> str:
    """What a response said: its text, or its tool calls as JSON when it only called tools."""
    if not response.content and response.tool_calls:
        return json.dumps(response.tool_calls, ensure_ascii=False, sort_keys=True)
    return response.content


def answers_by_prompt(
    responses: Iterable[LLMResponse], *, phase: str | None = None
) -> dict[str, list[str]]:
    """Successful answers per prompt (errored responses measure nothing), optionally one phase."""
    out: dict[str, list[str]] = defaultdict(list)
    for r in responses:
        if r.error is not None or (phase is not None and r.phase != phase):
            continue
        out[r.prompt_id].append(answer_text(r))
    return out


def testable_prompts(
    baseline: CanaryRunResult, current: CanaryRunResult, suite_changes: Sequence[SuiteChange]
) -> list[str]:
    """Prompts whose answers can be compared, in the current suite's order: on both sides with
    the same text and system prompt, not a suite change, not ``behaviour: ignore``."""
    base = baseline.prompt_by_id()
    changed = {c.prompt_id for c in suite_changes if c.what == "prompt"}
    changed |= {c.previous_prompt_id for c in suite_changes if c.previous_prompt_id}
    out = []
    for p in current.prompts:
        b = base.get(p.id)
        if b is None or p.id in changed or p.behaviour == "ignore":
            continue
        if b.text != p.text or b.system_prompt != p.system_prompt:
            # An explicit id keeps a prompt's probe pairs compared through a text edit, but its
            # answers answer another question now: that is the suite's change, not the model's.
            continue
        out.append(p.id)
    return out


def behaviour_changes(
    baseline: CanaryRunResult,
    current: CanaryRunResult,
    suite_changes: Sequence[SuiteChange],
    *,
    alpha: float,
) -> tuple[list[BehaviourChange], int, BehaviourSuite | None]:
    """(the prompts whose answers changed, most significant first; how many prompts were tested
    on their own; the suite-level test, None when no prompt's answers could be compared)."""
    from promptcanary.core.behaviour import (
        TOPUP_SAMPLES,
        PromptAnswers,
        describe_change,
        pooled_test,
        suite_test,
    )

    candidates = testable_prompts(baseline, current, suite_changes)
    base_answers = answers_by_prompt(baseline.llm_responses)
    record = current.adaptive
    if record is None:
        cur_answers = answers_by_prompt(current.llm_responses)
        pooled_answers = cur_answers
        topped_up = set(candidates)
    else:
        # The first TOPUP_SAMPLES answers (screening and fresh), whatever else the probes'
        # confirmation drew: the answers the always-top-up scheme would test.
        cur_answers = answers_by_prompt(
            r for r in current.llm_responses if r.sample < TOPUP_SAMPLES
        )
        pooled_answers = answers_by_prompt(current.llm_responses, phase="screening")
        topped_up = set(record.behaviour_confirmed)
    items = []
    for prompt_id in candidates:
        b = base_answers.get(prompt_id, [])
        screened = pooled_answers.get(prompt_id, [])
        if len(b) < 2 or not screened:
            continue
        own = cur_answers.get(prompt_id, []) if prompt_id in topped_up else None
        items.append(PromptAnswers(prompt_id, b, screened, own))
    if not items:
        return [], 0, None
    result = suite_test(items, alpha=alpha)
    decision = result.decision
    texts = {p.id: p.text for p in current.prompts}
    changes = []
    for item, test, p_adj, changed in zip(items, result.tests, decision.adjusted, decision.flagged):
        if not changed or test is None:
            continue
        # The description compares the answers the test compared: the reader asks "what did
        # it say then, what does it say now", and its shares are of those answers.
        description = describe_change(list(item.baseline), list(item.tested or ()))
        changes.append(_change(item.prompt_id, texts.get(item.prompt_id), test, p_adj, description))
    changes.sort(key=lambda ch: (ch.p_adjusted, -ch.effect, ch.prompt_id))
    n_tested = sum(1 for t in result.tests if t is not None and t.testable)
    pooled = decision.pooled
    suite = None
    if pooled is not None and pooled.testable:
        beyond = decision.pooled_changed
        known = {c.prompt_id for c in changes if c.known_shift}
        if beyond and known:
            # Answers that only shifted among known ones are no evidence of another model; the
            # pooled test counts as such only if it still rejects without those prompts (their
            # selection looked at their own answers only, so the rest stays a valid test).
            rest = [(prep, seed) for pid, prep, seed in result.strata if pid not in known]
            beyond = bool(rest) and pooled_test(rest).p_value <= alpha / 2
        suite = BehaviourSuite(
            p_value=pooled.p_value,
            level=alpha / 2,
            changed=decision.pooled_changed,
            effect=pooled.effect,
            prompts=pooled.prompts,
            answers=pooled.answers,
            novel=pooled.novel,
            expected_novel=round(pooled.expected_novel, 2),
            holm_level=decision.holm_level,
            prompts_tested=n_tested,
            family=len(items),
            permutations=pooled.permutations,
            beyond_known_shifts=beyond,
        )
    return changes, n_tested, suite


def _change(
    prompt_id: str, prompt_text: str | None, result: Any, p_adj: float, description: Any
) -> BehaviourChange:
    return BehaviourChange(
        prompt_id=prompt_id,
        prompt_text=clip(prompt_text, _PROMPT_CHARS) if prompt_text else None,
        p_value=float(result.p_value),
        p_adjusted=float(p_adj),
        effect=float(result.effect),
        baseline_samples=int(result.n_baseline),
        current_samples=int(result.n_current),
        novel=int(result.novel),
        known_shift=bool(result.known_shift),
        summary=str(getattr(description, "summary", "") or ""),
        lines=[str(line) for line in getattr(description, "lines", []) or []],
        modes=[_mode(m) for m in getattr(description, "modes", []) or []],
        properties=[_property(p) for p in getattr(description, "properties", []) or []],
        diff=[_segment(s) for s in getattr(description, "diff", []) or []],
    )


def _field(obj: Any, *names: str, default: Any = None) -> Any:
    # The engine's description types are dataclasses; reading them by name keeps this module
    # the one place that knows both shapes.
    for name in names:
        if isinstance(obj, dict) and name in obj:
            return obj[name]
        if hasattr(obj, name):
            return getattr(obj, name)
    return default


def _mode(mode: Any) -> BehaviourMode:
    example = _field(mode, "example")
    label = _field(mode, "label")
    if label is None:
        verb = "opens" if _field(mode, "edge") == "opening" else "ends"
        label = f"{verb} with “{_field(mode, 'phrase', default='')}”"
    return BehaviourMode(
        change=_field(mode, "change", "kind", default="appeared"),
        label=str(label),
        baseline_share=float(_field(mode, "baseline_share", "before", default=0.0)),
        current_share=float(_field(mode, "current_share", "after", default=0.0)),
        example=clip(str(example), _EXAMPLE_CHARS) if example else None,
    )


def _property(prop: Any) -> PropertyMove:
    def value(v: Any) -> float | str | None:
        return v if v is None or isinstance(v, (float, str)) else float(v)

    return PropertyMove(
        name=str(_field(prop, "name", default="")),
        text=str(_field(prop, "line", "text", "description", default="")),
        baseline=value(_field(prop, "baseline", "before")),
        current=value(_field(prop, "current", "after")),
    )


_OPS = {"equal": "equal", " ": "equal", "=": "equal", "delete": "delete", "-": "delete"}
_OPS.update({"insert": "insert", "+": "insert", "removed": "delete", "added": "insert"})


def _segment(segment: Any) -> DiffSegment:
    if isinstance(segment, (tuple, list)):
        op, text = segment[0], segment[1]
    else:
        op, text = _field(segment, "op", default="equal"), _field(segment, "text", default="")
    return DiffSegment(op=_OPS.get(str(op), "equal"), text=str(text))  # type: ignore[arg-type]


# ── Adaptive top-up ──────────────────────────────────────────────────────────────────────────


def topup_prompts(
    baseline: CanaryRunResult, screening: CanaryRunResult, *, drawn: Collection[str] = ()
) -> list[str]:
    """The prompts an adaptive run tops up for the answer test, in suite order: the testable
    prompts (:func:`testable_prompts`, at least two baseline answers) whose screening answers
    look moved against the whole baseline (:func:`promptcanary.core.behaviour.needs_topup`:
    near-duplicates grouped, p-value at most ``GATE_P`` or an answer unlike every baseline
    answer), and those in ``drawn`` (the probes' confirmation already drew fresh answers for
    them: they are tested on those, whatever their screening). The others stay in the answer
    test's count with p = 1; a prompt whose answers are one group on both sides costs only its
    screening."""
    from promptcanary.core.behaviour import gate, prompt_seed, screen_many
    from promptcanary.core.verdict.suite_changes import split_pairs

    _, suite_changes = split_pairs(baseline, screening)
    base_answers = answers_by_prompt(baseline.llm_responses)
    screened = answers_by_prompt(screening.llm_responses)
    candidates = [
        p
        for p in testable_prompts(baseline, screening, suite_changes)
        if len(base_answers.get(p, [])) >= 2
    ]
    # Every prompt's screening at once (screen_many: the same tests as one at a time).
    to_screen = [p for p in candidates if p not in drawn]
    tests = screen_many([(base_answers[p], screened.get(p, []), prompt_seed(p)) for p in to_screen])
    moved = {p for p, test in zip(to_screen, tests) if gate(test)}
    return [p for p in candidates if p in drawn or p in moved]


# ── Confirming a finding on fresh answers (the scheduled watch) ──────────────────────────────


def retest_flagged(
    baseline: CanaryRunResult,
    fresh: CanaryRunResult,
    report_changes: Sequence[BehaviourChange],
    *,
    suite_finding: bool,
    alpha: float,
    other_findings: bool = False,
) -> Retest:
    """Test a check's behaviour finding again on ``fresh`` answers (drawn after the check).

    The flagged prompts' fresh answers are tested against the whole baseline, Holm-corrected over
    the flagged prompts; the suite-level finding is tested again by the pooled test over every
    prompt's fresh answers. Fresh answers say nothing about how the first check selected, so each
    re-test is exact; requiring both flags bounds the false alarm by the smaller of the two
    levels. A prompt confirmed twice whose answers only shifted among ones the baseline already
    holds, with nothing else moving (``other_findings``: probe regressions, served-model
    evidence), is a baseline suspect rather than a model change: an unlucky baseline flags the
    same prompt check after check.
    """
    from promptcanary.core.behaviour import (
        MIN_EFFECT,
        PromptAnswers,
        holm,
        pooled_test,
        suite_test,
    )

    base = answers_by_prompt(baseline.llm_responses)
    now = answers_by_prompt(fresh.llm_responses)
    flagged = [c for c in report_changes if len(now.get(c.prompt_id, [])) >= 2]
    # Errored requests measure nothing: such a prompt is not re-tested, never "noise".
    unmeasured = [c.prompt_id for c in report_changes if c not in flagged]
    items = [
        PromptAnswers(p, base.get(p, []), now.get(p, []), now.get(p, []))
        for p in sorted(set(base) & set(now))
        if len(base.get(p, [])) >= 2
    ]
    if not items:
        return Retest(unmeasured=unmeasured, suite_confirmed=False if suite_finding else None)
    result = suite_test(items, alpha=alpha)
    tests = dict(zip(result.prompt_ids, result.tests))
    own = [tests.get(c.prompt_id) for c in flagged]
    adjusted = holm(own, level=alpha)
    confirmed, suspects = [], []
    for change, test, p in zip(flagged, own, adjusted):
        if test is None or p > alpha or test.effect < MIN_EFFECT:
            continue
        confirmed.append(change.prompt_id)
        if change.known_shift and test.known_shift and not other_findings:
            suspects.append(change.prompt_id)
    not_confirmed = [c.prompt_id for c in flagged if c.prompt_id not in confirmed]
    pooled = result.decision.pooled
    suite_again = None
    if suite_finding:
        suite_again = pooled is not None and pooled.testable and pooled.p_value <= alpha
        if suite_again and suspects:
            # As in compare(): the suite moved only if it still does without the prompts whose
            # answers shifted among known ones (one such prompt can carry the pooled test).
            rest = [(prep, seed) for pid, prep, seed in result.strata if pid not in suspects]
            suite_again = bool(rest) and pooled_test(rest).p_value <= alpha
    if suspects and suite_again:
        suspects = []  # the suite moved as well: the flags are part of that
    return Retest(
        confirmed=confirmed,
        not_confirmed=not_confirmed,
        baseline_suspects=suspects,
        suite_confirmed=suite_again,
    )


def with_retest(report: DriftReport, retest: Retest) -> DriftReport:
    """``report`` with the re-test of its behaviour finding: recorded (:attr:`DriftReport.retest`,
    so a finding it withdrew no longer counts), its requests added to the current usage, and
    who changed said again from what the fresh answers showed."""
    update: dict[str, Any] = {"retest": retest}
    if retest.usage is not None and report.current_usage is not None:
        update["current_usage"] = report.current_usage.plus(retest.usage)
    if report.attribution is not None:
        update["attribution"] = after_retest(report.attribution, retest, report.provider.model_id)
    return report.model_copy(update=update)
