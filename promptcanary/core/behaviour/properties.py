"""Named, cheap properties of one answer: what a reviewer recognises at a glance.

Each function looks at one answer's text and returns a plain value; :mod:`describe` compares their
shares or medians between the two sides. No model, no network: regular expressions, ``json`` and a
stop-word count.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Literal, TypeVar

JsonKind = Literal["none", "pure", "fenced", "in_prose"]
T = TypeVar("T")

_FENCE_BLOCK = re.compile(r"```[^\n`]*\n(.*?)```", re.DOTALL)
_FENCE = re.compile(r"^\s*(```|~~~)", re.MULTILINE)
_LIST_LINE = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)])\s+\S", re.MULTILINE)
_MARKDOWN = re.compile(r"^\s*#{1,6}\s+\S|\*\*[^*\n]+\*\*|^\s*\|.*\|\s*$", re.MULTILINE)
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")

#: How many opening brackets :func:`json_kind` tries as the start of an embedded JSON value.
_JSON_TRIES = 5


def per_answer(measure: Callable[[str], T], answers: Sequence[str]) -> list[T]:
    """``measure`` of every answer, in order, computed once per distinct answer: answers repeat
    (most samples of a prompt at temperature 0 are one text; a replayed recording always is),
    and every function here reads nothing but the answer's text."""
    once = {text: measure(text) for text in dict.fromkeys(answers)}
    return [once[text] for text in answers]


def words(text: str) -> int:
    """Number of whitespace-separated words."""
    return len(text.split())


def has_code_fence(text: str) -> bool:
    """The answer holds a fenced code block (``` or ~~~ at a line start)."""
    return _FENCE.search(text) is not None


def has_list(text: str) -> bool:
    """At least two bullet or numbered list lines."""
    return len(_LIST_LINE.findall(text)) >= 2


def has_markdown(text: str) -> bool:
    """Markdown headings, bold spans or table rows."""
    return _MARKDOWN.search(text) is not None


def json_kind(text: str) -> JsonKind:
    """Whether the answer is JSON (``pure``), only a fenced JSON block (``fenced``), holds a JSON
    object or array among prose (``in_prose``: the case that breaks a parser), or none."""
    stripped = text.strip()
    if not stripped or ("{" not in stripped and "[" not in stripped):
        return "none"
    if _is_json_container(stripped):
        return "pure"
    block = _FENCE_BLOCK.search(stripped)
    if block and _is_json_container(block.group(1).strip()):
        outside = (stripped[: block.start()] + stripped[block.end() :]).strip()
        return "fenced" if not outside else "in_prose"
    decoder = json.JSONDecoder()
    start = 0
    for _ in range(_JSON_TRIES):
        found = [i for i in (stripped.find("{", start), stripped.find("[", start)) if i >= 0]
        if not found:
            break
        start = min(found)
        try:
            value, _end = decoder.raw_decode(stripped, start)
        except ValueError:
            start += 1
            continue
        # A lone "[1]" citation or "{}" is not the structured output anyone asked for.
        if (isinstance(value, dict) and value) or (isinstance(value, list) and len(value) >= 2):
            return "in_prose"
        start += 1
    return "none"


def _is_json_container(text: str) -> bool:
    if not text or text[0] not in "{[":
        return False
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return isinstance(value, (dict, list))


def refusal(text: str) -> str | None:
    """The refusal phrase in an answer (the ``refusal`` probe's patterns), else None."""
    from promptcanary.core.refusals import find_refusal_text

    return find_refusal_text(text)


# ── Language ─────────────────────────────────────────────────────────────────────────────────
# A script count first (Cyrillic, Greek, Arabic, Hebrew, Devanagari, CJK, Hangul, Thai), then,
# for Latin text, which language's most frequent function words appear most. Enough to notice an
# answer switching from English to Spanish; not a language identifier for short snippets — under
# :data:`_MIN_WORDS` Latin words the answer is "unknown".

_STOP_WORDS = {
    "English": "the and is of to in that it for you with this are on be as not or",
    "French": "le la les et est des une dans que pour pas qui sur du au vous avec",
    "German": "der die das und ist nicht ein eine zu den mit von sie ich es auf",
    "Spanish": "el la los las es que de en un una por para no con se del",
    "Italian": "il la le che di un una per non con sono del della gli",
    "Portuguese": "os as que de em um uma para não com do da",
    "Dutch": "de het een en is van niet dat op te zijn met voor je",
}
_STOP_SETS = {lang: frozenset(ws.split()) for lang, ws in _STOP_WORDS.items()}
_SCRIPTS = (
    ("Russian/Cyrillic", 0x0400, 0x04FF),
    ("Greek", 0x0370, 0x03FF),
    ("Hebrew", 0x0590, 0x05FF),
    ("Arabic", 0x0600, 0x06FF),
    ("Hindi/Devanagari", 0x0900, 0x097F),
    ("Thai", 0x0E00, 0x0E7F),
    ("Japanese", 0x3040, 0x30FF),
    ("Korean", 0xAC00, 0xD7AF),
    ("Chinese", 0x4E00, 0x9FFF),
)
_MIN_WORDS = 4
_SAMPLE_CHARS = 2000


def language(text: str) -> str:
    """A coarse language label ("English", "Spanish", "Chinese", …) or "unknown"."""
    sample = text[:_SAMPLE_CHARS]
    letters = [c for c in sample if c.isalpha()]
    if not letters:
        return "unknown"
    counts: dict[str, int] = {}
    for c in letters:
        code = ord(c)
        if code < 0x0370:
            continue
        for name, low, high in _SCRIPTS:
            if low <= code <= high:
                counts[name] = counts.get(name, 0) + 1
                break
    if counts:
        name, count = max(counts.items(), key=lambda item: item[1])
        # Kana anywhere means Japanese even when kanji (CJK ideographs) are the majority.
        if name == "Chinese" and counts.get("Japanese", 0) >= count * 0.1:
            name = "Japanese"
        if sum(counts.values()) >= len(letters) / 2:
            return name
    # Words of one letter are no evidence: option labels ("(A). A top priority" would read as
    # Portuguese's "a" twice), initials, variables; prose in any language has longer ones.
    tokens = [w.lower() for w in _WORD.findall(sample) if len(w) > 1]
    if len(tokens) < _MIN_WORDS:
        return "unknown"
    scores = {lang: sum(1 for t in tokens if t in stops) for lang, stops in _STOP_SETS.items()}
    best, score = max(scores.items(), key=lambda item: item[1])
    # At least one function word in twelve: prose, not a list of names or code.
    return best if score * 12 >= len(tokens) and score > 0 else "unknown"
