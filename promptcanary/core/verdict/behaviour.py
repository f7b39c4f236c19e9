"""The behaviour step of compare(): which prompts' answers changed, and who changed.

For every prompt present on both sides with the same text, not edited, not opted out
(``behaviour: ignore``), with successful answers on both sides, the answer test
(:func:`promptcanary.core.behaviour.answer_test`) asks whether the current answers come from the
baseline's distribution. The p-values are corrected across the tested prompts with Holm's
step-down (:data:`CORRECTION`; why not the probes' Benjamini–Hochberg: ``docs/behaviour.md``,
"Across prompts"), and a prompt is a behaviour change when its adjusted p-value is at most the
suite's ``alpha`` and its effect reaches the engine's floor
(:func:`promptcanary.core.behaviour.flag`). Each change is then described in words
(:func:`promptcanary.core.behaviour.describe_change`).

In an adaptive run every answer-tested prompt was topped up to the engine's ``TOPUP_SAMPLES``
answers whatever its screening looked like (``AdaptiveRecord.behaviour_confirmed`` lists them;
:mod:`promptcanary.core.behaviour.adaptive`, "top-up"): all its answers, screening and
confirmation, are tested against the whole baseline. Nothing was selected from the data, so the
test is exact.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from promptcanary.core.models import (
    Attribution,
    BehaviourChange,
    BehaviourMode,
    CanaryRunResult,
    DiffSegment,
    LLMResponse,
    PropertyMove,
    SuiteChange,
)
from promptcanary.core.text import clip

__all__ = [
    "answers_by_prompt",
    "attribute",
    "behaviour_changes",
    "testable_prompts",
    "topup_prompts",
]

#: The correction across prompts: Holm bounds the chance of naming *any* unchanged prompt, which
#: "naming only the changed prompts" needs; Benjamini–Hochberg (the probes') bounds only their share.
CORRECTION: Literal["bh", "holm"] = "holm"

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
) -> tuple[list[BehaviourChange], int]:
    """(the prompts whose answers changed, most significant first; how many prompts were tested)."""
    from promptcanary.core.behaviour import (
        adjust,
        answer_test,
        describe_change,
        flag,
        permutations_for,
    )

    candidates = testable_prompts(baseline, current, suite_changes)
    if not candidates:
        return [], 0
    base_answers = answers_by_prompt(baseline.llm_responses)
    record = current.adaptive
    if record is not None:
        # Only the topped-up prompts have answers enough; their screening answers count.
        topped_up = set(record.behaviour_confirmed)
        candidates = [p for p in candidates if p in topped_up]
    cur_answers = answers_by_prompt(current.llm_responses)

    # Enough permutations for one changed prompt among all of them to clear the correction
    # (early stopping keeps the unchanged ones cheap).
    permutations = permutations_for(len(candidates), alpha=alpha)
    tested: list[tuple[str, Any]] = []
    for prompt_id in candidates:
        b, c = base_answers.get(prompt_id, []), cur_answers.get(prompt_id, [])
        if len(b) < 2 or len(c) < 2:
            continue
        result = answer_test(b, c, permutations=permutations, seed=0)
        if result.testable:
            tested.append((prompt_id, result))
    if not tested:
        return [], 0
    tests = [t for _, t in tested]
    adjusted = adjust(tests, alpha=alpha, method=CORRECTION)
    flagged = flag(tests, alpha=alpha, method=CORRECTION)
    texts = {p.id: p.text for p in current.prompts}
    changes = []
    for (prompt_id, result), p_adj, changed in zip(tested, adjusted, flagged):
        if not changed:
            continue
        # The description compares the baseline's own answers with the current ones: the
        # reader asks "what did it say then, what does it say now".
        b, c = base_answers.get(prompt_id, []), cur_answers.get(prompt_id, [])
        changes.append(
            _change(prompt_id, texts.get(prompt_id), result, p_adj, describe_change(b, c))
        )
    changes.sort(key=lambda ch: (ch.p_adjusted, -ch.effect, ch.prompt_id))
    return changes, len(tested)


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
) -> Attribution:
    """Which side moved: the suite (canary.yaml edits), the model behind the same name (its served
    name or fingerprint changed, or answers or probe results moved while the suite did not), both,
    or neither."""
    b_usage, c_usage = baseline.usage, current.usage
    models = (list(b_usage.models), list(c_usage.models))
    prints = (list(b_usage.fingerprints), list(c_usage.fingerprints))
    identity = bool(models[0] and models[1] and models[0] != models[1]) or bool(
        prints[0] and prints[1] and not set(prints[0]) & set(prints[1])
    )
    model_moved = identity or bool(changes) or regressions > 0
    suite_moved = bool(suite_changes)
    who = (
        "both"
        if suite_moved and model_moved
        else "suite"
        if suite_moved
        else "model"
        if model_moved
        else "neither"
    )
    return Attribution(
        who_changed=who,  # type: ignore[arg-type]
        sentence=_sentence(who, current.provider.model_id, identity, models, prints, changes),
        suite_edits=list(edit_words),
        served_models=models,
        fingerprints=prints,
        identity_changed=identity,
        behaviour_changes=len(changes),
        regressions=regressions,
    )


def _sentence(
    who: str,
    model: str,
    identity: bool,
    models: tuple[list[str], list[str]],
    prints: tuple[list[str], list[str]],
    changes: Sequence[BehaviourChange],
) -> str:
    evidence = []
    if models[0] and models[1] and models[0] != models[1]:
        evidence.append(f"served model {', '.join(models[0])} → {', '.join(models[1])}")
    if prints[0] and prints[1] and not set(prints[0]) & set(prints[1]):
        evidence.append(f"system fingerprint {', '.join(prints[0])} → {', '.join(prints[1])}")
    if changes:
        n = len(changes)
        evidence.append(f"answers changed on {n} prompt{'s' if n != 1 else ''}")
    why = f" ({'; '.join(evidence)})" if evidence else ""
    if who == "neither":
        return f"Who changed: neither — the suite and the model behind {model} look the same."
    if who == "suite":
        return "Who changed: the suite — canary.yaml changed since the baseline; the model did not."
    if who == "both":
        return f"Who changed: both — canary.yaml changed, and so did the model behind {model}{why}."
    if identity:
        return f"Who changed: the model — the provider changed the model behind {model}{why}."
    return f"Who changed: the model — the model behind {model} answers differently{why}."


# ── Adaptive top-up ──────────────────────────────────────────────────────────────────────────


def topup_prompts(baseline: CanaryRunResult, screening: CanaryRunResult) -> list[str]:
    """The prompts an adaptive run tops up for the answer test, in suite order: every testable
    prompt (:func:`testable_prompts`) with at least two baseline answers — except one whose
    baseline and screening answers are all the same text (a deterministic answer that stayed):
    its test has nothing to compare, and under no change it stays that way, so a suite of fixed
    answers costs no more than its screening. No other selection."""
    from promptcanary.core.verdict.suite_changes import split_pairs

    _, suite_changes = split_pairs(baseline, screening)
    base_answers = answers_by_prompt(baseline.llm_responses)
    screened = answers_by_prompt(screening.llm_responses)
    out = []
    for prompt_id in testable_prompts(baseline, screening, suite_changes):
        b = base_answers.get(prompt_id, [])
        if len(b) >= 2 and len({*b, *screened.get(prompt_id, [])}) > 1:
            out.append(prompt_id)
    return out
