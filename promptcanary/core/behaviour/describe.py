"""Say what changed between two sets of answers, in words a reviewer reads in five seconds.

:func:`describe_change` returns a :class:`BehaviourDescription`: answer modes that appeared or
vanished (:mod:`.modes`), named properties that moved (length, code fences, JSON in prose,
language, refusals, lists, Markdown), a word-level diff of a typical old and a typical new answer
(:mod:`.diff`), the bullet lines and a one-line summary. Only material changes are reported; the
thresholds are the constants below, each with its reason.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from promptcanary.core.behaviour import properties as props
from promptcanary.core.behaviour.diff import DiffSegment, typical_pair, word_diff
from promptcanary.core.behaviour.modes import Mode, find_modes

#: A share property (code fences, lists, …) is reported when its share moved by at least this
#: (same reasoning as :data:`promptcanary.core.behaviour.modes.MIN_SHARE_CHANGE`).
MIN_SHARE_CHANGE = 0.3
#: Refusals are rarer and matter more: 20 points are reported.
MIN_REFUSAL_CHANGE = 0.2
#: Median length is reported when it grew or shrank by at least this factor …
MIN_LENGTH_RATIO = 1.5
#: … and by at least this many words (3 → 5 words is not "×1.7 longer" to anyone).
MIN_LENGTH_WORDS = 5
#: Characters of an example answer kept in a description.
EXAMPLE_CHARS = 160


@dataclass(frozen=True)
class PropertyChange:
    """A named property whose share (or median) moved materially."""

    name: str
    """``length``, ``code_fence``, ``json_in_prose``, ``pure_json``, ``language``,
    ``refusal``, ``list`` or ``markdown``."""
    baseline: float | str
    """Share of baseline answers with the property (median words for ``length``, the main
    language and its share as text for ``language``)."""
    current: float | str
    """The same for the current answers."""
    line: str
    """The bullet a report prints."""
    short: str
    """A few words for the one-line summary."""


@dataclass(frozen=True)
class BehaviourDescription:
    """What moved between the baseline's and the current answers of one prompt."""

    summary: str
    """One sentence: the most telling changes, or that no named property moved."""
    lines: tuple[str, ...]
    """One bullet per change: modes first, then properties."""
    modes: tuple[Mode, ...]
    """Opening/closing sentences that appeared or vanished."""
    properties: tuple[PropertyChange, ...]
    """Named properties that moved."""
    diff: tuple[DiffSegment, ...]
    """Word diff from :attr:`baseline_example` to :attr:`current_example`."""
    baseline_example: str
    """A typical baseline answer (the medoid under the answer test's kernel)."""
    current_example: str
    """A typical current answer."""

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (modes carry their ``change``)."""
        data = asdict(self)
        data["lines"] = list(self.lines)
        data["modes"] = [{**asdict(m), "change": m.change} for m in self.modes]
        data["properties"] = [asdict(p) for p in self.properties]
        data["diff"] = [{"op": s.op, "text": s.text} for s in self.diff]
        return data


def describe_change(baseline: Sequence[str], current: Sequence[str]) -> BehaviourDescription:
    """Describe how ``current`` answers differ from ``baseline`` answers of one prompt."""
    modes = tuple(find_modes(baseline, current, example_chars=EXAMPLE_CHARS))
    found = tuple(_property_changes(baseline, current)) if baseline and current else ()
    old, new = typical_pair(baseline, current)
    sizes = (len(baseline), len(current))
    lines = tuple([_mode_line(m, sizes) for m in modes] + [p.line for p in found])
    # The summary names what breaks things first (refusal, language, JSON, fences), then the
    # biggest mode, then the remaining properties.
    ranked = _by_priority(found)
    urgent = [p.short for p in ranked if p.name in _URGENT]
    rest = [p.short for p in ranked if p.name not in _URGENT]
    shorts = urgent + [_mode_short(m, sizes) for m in modes[:1]] + rest
    if shorts:
        summary = "Answers changed: " + "; ".join(shorts[:2]) + "."
    else:
        summary = "Answers changed in wording or content; no named property moved."
    return BehaviourDescription(
        summary=summary,
        lines=lines,
        modes=modes,
        properties=found,
        diff=tuple(word_diff(old, new)),
        baseline_example=old,
        current_example=new,
    )


# ── Modes ────────────────────────────────────────────────────────────────────────────────────


def _mode_line(mode: Mode, sizes: tuple[int, int]) -> str:
    verb = "opens" if mode.edge == "opening" else "ends"
    now, was = _of(mode.current_share, sizes[1]), _of(mode.baseline_share, sizes[0])
    phrase = _phrases(mode)
    if mode.change == "appeared":
        return f"now {verb} with {phrase} in {now} answers (was {was}); e.g. “{mode.example}”"
    return f"no longer {verb} with {phrase}: {now} answers (was {was}); e.g. “{mode.example}”"


def _mode_short(mode: Mode, sizes: tuple[int, int]) -> str:
    verb = "opens" if mode.edge == "opening" else "ends"
    if mode.change == "appeared":
        return f"now {verb} with “{mode.phrase}” in {_of(mode.current_share, sizes[1])} answers"
    return f"no longer {verb} with “{mode.phrase}” ({_of(mode.baseline_share, sizes[0])} before)"


def _phrases(mode: Mode) -> str:
    quoted = [f"“{p}”" for p in (mode.phrase, *mode.variants)]
    if not mode.variants:
        return quoted[0]
    return f"{quoted[0]} (or {', '.join(quoted[1:])}, …)"


# ── Properties ───────────────────────────────────────────────────────────────────────────────

_SHARES: tuple[tuple[str, str, Callable[[str], bool]], ...] = (
    ("code_fence", "code fences", props.has_code_fence),
    ("json_in_prose", "JSON wrapped in prose", lambda a: props.json_kind(a) == "in_prose"),
    ("pure_json", "pure JSON", lambda a: props.json_kind(a) == "pure"),
    ("list", "list formatting", props.has_list),
    ("markdown", "Markdown headings/bold/tables", props.has_markdown),
)
# Which changes the one-line summary names first: a refusal or a language switch breaks the
# product; a format change breaks parsers; length and markup are style.
_PRIORITY = (
    "refusal",
    "language",
    "json_in_prose",
    "pure_json",
    "code_fence",
    "length",
    "list",
    "markdown",
)
_URGENT = frozenset(_PRIORITY[:5])


def _property_changes(baseline: Sequence[str], current: Sequence[str]) -> list[PropertyChange]:
    found: list[PropertyChange] = []
    length = _length_change(baseline, current)
    if length:
        found.append(length)
    for name, label, test in _SHARES:
        b, c = _share(baseline, test), _share(current, test)
        if abs(c - b) >= MIN_SHARE_CHANGE:
            now, was = _of(c, len(current)), _of(b, len(baseline))
            line = f"{label} in {now} answers (was {was})"
            found.append(PropertyChange(name, b, c, line, f"{label} {was} → {now}"))
    refusal = _refusal_change(baseline, current)
    if refusal:
        found.append(refusal)
    language = _language_change(baseline, current)
    if language:
        found.append(language)
    return found


def _length_change(baseline: Sequence[str], current: Sequence[str]) -> PropertyChange | None:
    b = statistics.median(props.per_answer(props.words, baseline))
    c = statistics.median(props.per_answer(props.words, current))
    if abs(c - b) < MIN_LENGTH_WORDS:
        return None
    ratio = c / b if b else float("inf")
    if 1 / MIN_LENGTH_RATIO < ratio < MIN_LENGTH_RATIO:
        return None
    factor = _factor(ratio)
    line = f"length {factor}: median {b:g} → {c:g} words"
    return PropertyChange("length", float(b), float(c), line, f"length {factor}")


def _factor(ratio: float) -> str:
    """How many times longer (``×2.2``) or shorter (``÷886``): a shrink printed as a product
    rounds to ``×0.0`` once the answers lose more than 95 % of their words."""
    if ratio == float("inf"):
        return "from empty"
    if ratio == 0:
        return "to empty"  # every answer lost all its words: no factor to print
    if ratio >= 1:
        return f"×{ratio:.1f}" if ratio < 10 else f"×{ratio:.0f}"
    shrink = 1 / ratio
    return f"÷{shrink:.1f}" if shrink < 10 else f"÷{shrink:.0f}"


def _refusal_change(baseline: Sequence[str], current: Sequence[str]) -> PropertyChange | None:
    b_phrases = props.per_answer(props.refusal, baseline)
    c_phrases = props.per_answer(props.refusal, current)
    b = sum(p is not None for p in b_phrases) / len(baseline)
    c = sum(p is not None for p in c_phrases) / len(current)
    if abs(c - b) < MIN_REFUSAL_CHANGE:
        return None
    phrases = [p for p in (c_phrases if c > b else b_phrases) if p]
    phrase = Counter(phrases).most_common(1)[0][0]
    verb = "refuses" if c > b else "stopped refusing"
    now, was = _of(c, len(current)), _of(b, len(baseline))
    line = f"{verb}: refusals in {now} answers (was {was}), e.g. “{phrase}”"
    return PropertyChange("refusal", b, c, line, f"refusals {was} → {now}")


def _language_change(baseline: Sequence[str], current: Sequence[str]) -> PropertyChange | None:
    b_lang, b_share = _main_language(baseline)
    if b_lang == "unknown":
        return None
    c_labels = Counter(props.per_answer(props.language, current))
    c_of_b = c_labels.pop(b_lang, 0) / len(current)
    c_labels.pop("unknown", None)
    if not c_labels:
        return None
    # Another language took at least MIN_SHARE_CHANGE of the answers from the baseline's main one.
    c_lang, count = min(c_labels.items(), key=lambda item: (-item[1], item[0]))
    c_share = count / len(current)
    if b_share - c_of_b < MIN_SHARE_CHANGE or c_share < MIN_SHARE_CHANGE:
        return None
    b_text, c_text = f"{b_lang} {_pct(b_share)}", f"{c_lang} {_pct(c_share)}"
    line = (
        f"language: {c_lang} in {_of(c_share, len(current))} answers "
        f"(was {b_lang} in {_of(b_share, len(baseline))}, now {_of(c_of_b, len(current))})"
    )
    return PropertyChange("language", b_text, c_text, line, f"now answers in {c_lang}")


def _main_language(answers: Sequence[str]) -> tuple[str, float]:
    labels = Counter(props.per_answer(props.language, answers))
    labels.pop("unknown", None)
    if not labels:
        return "unknown", 0.0
    label, count = min(labels.items(), key=lambda item: (-item[1], item[0]))
    return label, count / len(answers)


def _by_priority(found: Sequence[PropertyChange]) -> list[PropertyChange]:
    return sorted(found, key=lambda p: _PRIORITY.index(p.name))


def _share(answers: Sequence[str], test: Callable[[str], bool]) -> float:
    return sum(props.per_answer(test, answers)) / len(answers)


def _pct(share: float) -> str:
    return f"{round(100 * share)} %"


def _of(share: float, n: int) -> str:
    """A share as the count it was measured on: ``7 of 12`` (12 answers carry little precision,
    and a percentage would hide how few they are)."""
    return f"{round(share * n)} of {n}"
