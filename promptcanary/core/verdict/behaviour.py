"""The behaviour step of compare(): which prompts' answers changed, and who changed.

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
import math
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from promptcanary.core.models import (
    Attribution,
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
from promptcanary.core.models.behaviour import WhoChanged
from promptcanary.core.text import clip

__all__ = [
    "Retest",
    "answers_by_prompt",
    "attribute",
    "behaviour_changes",
    "retest_flagged",
    "testable_prompts",
    "topup_prompts",
    "with_retest",
]

#: A served model name seen on one side only is evidence of a new model when chance alone would
#: put all its samples on that side this rarely (a version served 10 % of the time and missing
#: from 12 answers is not: 0.9 ** 12 = 28 %).
IDENTITY_P = 0.01
#: Extra parameters that say where and how requests are sent, not how the model answers: never
#: compared (secret-looking ones are dropped before, by the run's own serialiser).
_TRANSPORT = frozenset(
    {
        "api_base",
        "base_url",
        "api_version",
        "timeout",
        "request_timeout",
        "num_retries",
        "max_retries",
        "max_attempts",
        "organization",
        "custom_llm_provider",
        "region_name",
        "aws_region_name",
        "vertex_location",
        "vertex_project",
    }
)

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


# ── Who changed ──────────────────────────────────────────────────────────────────────────────


def attribute(
    baseline: CanaryRunResult,
    current: CanaryRunResult,
    *,
    suite_changes: Sequence[SuiteChange],
    changes: Sequence[BehaviourChange],
    regressions: int,
    edit_words: Sequence[str],
    suite_answers_moved: bool = False,
) -> Attribution:
    """Which side moved, saying only what the evidence shows.

    * **The suite**: canary.yaml gained, lost or edited prompts or probes, or the request
      settings differ from the baseline's (:func:`settings_changes`).
    * **The model**: the answers moved (the suite-level test, or a named prompt whose answers
      are not only a shift among ones the baseline holds), a probe regressed, or a served model
      name appeared or vanished with enough samples to rule out chance (:func:`served_change`).
      A new system fingerprint alone is a note ("backend configuration changed"), never the
      headline: providers rotate it with their serving configuration.
    * **Unclear**: the only finding is a prompt whose answers shifted among ones the baseline
      already holds; a baseline that drew them in unlucky proportions shows the same.
    * **Neither**: no change detected — which is not proof that nothing changed.
    """
    models = (_served(baseline, "model"), _served(current, "model"))
    prints = (_served(baseline, "fingerprint"), _served(current, "fingerprint"))
    identity = served_change(models[0], models[1])
    settings = settings_changes(baseline, current)
    novel_moves = [c for c in changes if not c.known_shift]
    model_moved = (
        identity is not None or bool(novel_moves) or regressions > 0 or suite_answers_moved
    )
    suite_moved = bool(suite_changes) or bool(settings)
    notes = []
    if (
        prints[0]
        and prints[1]
        and set(prints[0]) != set(prints[1])
        and not set(prints[0]) & set(prints[1])
    ):
        notes.append(
            f"backend configuration changed (system fingerprint {', '.join(sorted(prints[0]))}"
            f" → {', '.join(sorted(prints[1]))}): not evidence of another model on its own"
        )
    if settings and model_moved and identity is None:
        # Answers that move after a settings edit are what the edit does; nothing says more.
        who = "suite"
    elif suite_moved and model_moved:
        who = "both"
    elif suite_moved:
        who = "suite"
    elif model_moved:
        who = "model"
    elif changes:
        who = "unclear"
    else:
        who = "neither"
    return Attribution(
        who_changed=who,  # type: ignore[arg-type]
        sentence=_sentence(
            who,
            current.provider.model_id,
            identity,
            changes,
            settings,
            regressions=regressions,
            suite_answers_moved=suite_answers_moved,
            suite_edited=bool(suite_changes),
        ),
        suite_edits=[*edit_words, *(f"setting {s}" for s in settings)],
        served_models=(sorted(models[0]), sorted(models[1])),
        fingerprints=(sorted(prints[0]), sorted(prints[1])),
        identity_changed=identity is not None,
        settings_changes=settings,
        notes=notes,
        behaviour_changes=len(changes),
        regressions=regressions,
    )


def _served(run: CanaryRunResult, what: str) -> Counter[str]:
    """How many successful answers reported each served model name (or fingerprint). Runs
    stored without per-answer names fall back on the run's list, once each."""
    attr = "response_model" if what == "model" else "system_fingerprint"
    counts: Counter[str] = Counter(
        getattr(r, attr) for r in run.llm_responses if r.error is None and getattr(r, attr)
    )
    if not counts:
        names = run.usage.models if what == "model" else run.usage.fingerprints
        counts.update(names)
    return counts


def served_change(baseline: Counter[str], current: Counter[str]) -> str | None:
    """``served model A → B`` when a name is on one side only with enough samples that chance
    cannot explain its absence from the other, else None.

    Under "the same mix of names on both sides", the samples of a name are spread over the two
    sides at random; the chance that all ``k`` of them fell on one side of sizes ``n`` and ``m``
    is ``C(n, k) / C(n + m, k)`` — a name seen once in 30 baseline answers and never in 12
    current ones is no news; 30 of 30 swapped for another name is.
    """
    n, m = sum(baseline.values()), sum(current.values())
    if not n or not m:
        return None
    evidence = []
    for name, k in baseline.items():
        if name not in current and math.comb(n, k) / math.comb(n + m, k) <= IDENTITY_P:
            evidence.append(name)
    for name, k in current.items():
        if name not in baseline and math.comb(m, k) / math.comb(n + m, k) <= IDENTITY_P:
            evidence.append(name)
    if not evidence:
        return None
    return f"served model {', '.join(sorted(baseline))} → {', '.join(sorted(current))}"


def settings_changes(baseline: CanaryRunResult, current: CanaryRunResult) -> list[str]:
    """The request settings that differ from the baseline's, in words (``temperature 0 →
    0.7``): temperature, max_tokens, seed, and every extra parameter but where requests go."""
    before, after = baseline.provider, current.provider
    out = []
    for name in ("temperature", "max_tokens", "seed"):
        old, new = getattr(before, name), getattr(after, name)
        if old != new:
            out.append(f"{name} {_setting(old)} → {_setting(new)}")
    # As stored: the serialiser drops secret-looking keys (an API key in memory must never be
    # compared with a baseline file that cannot hold one, let alone printed).
    old_extra = _sampling_params(before)
    new_extra = _sampling_params(after)
    for name in sorted(set(old_extra) | set(new_extra)):
        if old_extra.get(name) != new_extra.get(name):
            out.append(f"{name} {_setting(old_extra.get(name))} → {_setting(new_extra.get(name))}")
    return out


def _sampling_params(config: Any) -> dict[str, Any]:
    stored = config.model_dump(mode="json").get("extra_params", {})
    return {k: v for k, v in stored.items() if k not in _TRANSPORT}


def _setting(value: Any) -> str:
    if value is None:
        return "unset"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    text = json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else str(value)
    return clip(text, 60)


def _sentence(
    who: str,
    model: str,
    identity: str | None,
    changes: Sequence[BehaviourChange],
    settings: Sequence[str],
    *,
    regressions: int,
    suite_answers_moved: bool,
    suite_edited: bool,
) -> str:
    evidence = []
    if identity:
        evidence.append(identity)
    if suite_answers_moved:
        evidence.append("answers across the suite moved")
    novel = [c for c in changes if not c.known_shift]
    if novel:
        n = len(novel)
        evidence.append(f"answers changed on {n} prompt{'s' if n != 1 else ''}")
    if regressions:
        evidence.append(f"{regressions} probe regression{'s' if regressions != 1 else ''}")
    why = f" ({'; '.join(evidence)})" if evidence else ""
    known = len(changes) - len(novel)
    known_words = (
        f"answers to {known} prompt{'s' if known != 1 else ''} shifted among ones the baseline "
        "already holds"
    )
    if who == "neither":
        return (
            f"Who changed: no change detected — neither in the suite nor in the answers of {model}."
        )
    if who == "unclear":
        return (
            f"Who changed: unclear — {known_words}, and nothing else moved: a baseline that "
            "drew those answers in unlucky proportions shows the same. If the same prompt is "
            "flagged again, the baseline may not represent it: record a new one with more "
            "samples (`baseline_samples` in canary.yaml)."
        )
    settings_words = f"the request settings changed ({'; '.join(settings)})" if settings else ""
    if who == "suite":
        what = settings_words or "canary.yaml changed since the baseline"
        if settings and suite_edited:
            what = "canary.yaml changed and " + settings_words
        if evidence and settings:
            return (
                f"Who changed: the suite — {what}; the answers moved too{why}, which the new "
                "settings can explain. Record a baseline with these settings to watch the "
                "model again."
            )
        return f"Who changed: the suite — {what}; no change detected in the model's answers."
    if who == "both":
        what = settings_words or "canary.yaml changed"
        if settings and suite_edited:
            what = "canary.yaml changed and " + settings_words
        return f"Who changed: both — {what}, and so did the model behind {model}{why}."
    if identity:
        return f"Who changed: the model — the provider changed the model behind {model}{why}."
    return f"Who changed: the model — the model behind {model} answers differently{why}."


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
    from promptcanary.core.behaviour import needs_topup, prompt_seed
    from promptcanary.core.verdict.suite_changes import split_pairs

    _, suite_changes = split_pairs(baseline, screening)
    base_answers = answers_by_prompt(baseline.llm_responses)
    screened = answers_by_prompt(screening.llm_responses)
    out = []
    for prompt_id in testable_prompts(baseline, screening, suite_changes):
        b = base_answers.get(prompt_id, [])
        s = screened.get(prompt_id, [])
        if len(b) < 2:
            continue
        if prompt_id in drawn or needs_topup(b, s, seed=prompt_seed(prompt_id)):
            out.append(prompt_id)
    return out


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
        update["attribution"] = _attribution_after(
            report.attribution, retest, report.provider.model_id
        )
    return report.model_copy(update=update)


def _attribution_after(a: Attribution, retest: Retest, model: str) -> Attribution:
    fresh = f"{retest.requests:,} fresh answer{'s' if retest.requests != 1 else ''}"
    if retest.accuses and a.who_changed != "unclear":
        return a.model_copy(update={"sentence": f"{a.sentence} Confirmed on {fresh}."})
    who: WhoChanged
    if retest.accuses:  # was unclear: the fresh answers are new ones, not a known shift
        who, sentence = (
            "model",
            f"the model — the model behind {model} answers differently (confirmed on {fresh}).",
        )
    elif retest.baseline_suspects:
        who, sentence = (
            "unclear",
            f"unclear — the answers to {', '.join(retest.baseline_suspects)} shifted among ones "
            f"the baseline already holds again on {fresh}, and nothing else moved: the baseline "
            "may not represent them. Record a new baseline with more samples "
            "(`baseline_samples` in canary.yaml).",
        )
    elif retest.unmeasured:
        who, sentence = (
            "unclear",
            f"unclear — the re-test got too few fresh answers for {', '.join(retest.unmeasured)} "
            "(the requests failed), so the flag was neither confirmed nor ruled out; a watch "
            "accuses only on a confirmed finding.",
        )
    else:
        who, sentence = (
            "neither",
            "no change detected — the answers this check flagged looked like the baseline's "
            f"again on {fresh} (re-test).",
        )
    return a.model_copy(update={"who_changed": who, "sentence": f"Who changed: {sentence}"})
