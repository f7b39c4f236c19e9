"""Who changed since the baseline — the suite, the model, both or neither — saying only what
the evidence shows (the ``attribution`` of a drift report; ``docs/behaviour.md``, "Who changed").

Apart from the answer test (:mod:`promptcanary.core.verdict.behaviour`), which finds the
prompts whose answers moved: this module weighs that finding with the suite's edits, the request
settings, the served model names and the probes, and words the result; after a re-test on fresh
answers (the scheduled watch), :func:`after_retest` says it again.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from promptcanary.core.models import (
    Attribution,
    BehaviourChange,
    CanaryRunResult,
    Retest,
    SuiteChange,
)
from promptcanary.core.models.behaviour import WhoChanged
from promptcanary.core.text import clip

__all__ = ["IDENTITY_P", "after_retest", "attribute", "served_change", "settings_changes"]

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


def after_retest(a: Attribution, retest: Retest, model: str) -> Attribution:
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
