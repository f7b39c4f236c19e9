"""Answer modes: the opening and closing sentences a share of answers have in common.

A chatty preamble ("Sure! Great question.") or a follow-up offer ("Let me know if…") is a sentence
of its own at an answer's edge. Grouping answers by their first (last) sentence — lowercased,
punctuation dropped, first :data:`KEY_WORDS` words — finds such modes with no clustering
parameters, deterministically. Single-sentence answers have no opening apart from the answer
itself, so they join no mode (their share still counts in the denominator).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from promptcanary.core.text import clip

#: Words of a sentence that make its mode key ("Sure! Great question." and "Sure! Happy to
#: help." share the first sentence "Sure!"; "Let me know if you'd like more details!" and "Let
#: me know if you have questions" share "let me know if").
KEY_WORDS = 4
#: A mode is reported when its share moved by at least this much (30 points: with 10 answers a
#: share's standard error is up to 0.16, so smaller moves are often noise) …
MIN_SHARE_CHANGE = 0.3
#: … and the side where it is common has it in at least this share of answers, while the other
#: side has it in at most :data:`MAX_RARE_SHARE`: "appeared" and "vanished" mean what they say.
MIN_COMMON_SHARE = 0.3
MAX_RARE_SHARE = 0.15
#: Characters of a mode's phrase shown; short phrases ("Sure!") take the next sentence too.
PHRASE_CHARS = 60
SHORT_PHRASE = 20

_SENTENCE = re.compile(r"(?<=[.!?:;])\s+|\s*\n\s*")
_KEY_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")

Edge = Literal["opening", "closing"]


@dataclass(frozen=True)
class Mode:
    """An opening or closing sentence that appeared or vanished."""

    edge: Edge
    """Where in the answer: ``opening`` (first sentence) or ``closing`` (last sentence)."""
    phrase: str
    """The sentence as most answers of the mode have it (clipped)."""
    baseline_share: float
    """Share of baseline answers in this mode."""
    current_share: float
    """Share of current answers in this mode."""
    example: str
    """One whole answer of the mode (clipped), from the side where it is common."""

    @property
    def change(self) -> Literal["appeared", "vanished"]:
        """``appeared`` when the current side has it more often, else ``vanished``."""
        return "appeared" if self.current_share > self.baseline_share else "vanished"


def sentences(text: str) -> list[str]:
    """The answer's sentences (split after . ! ? : ; and at line breaks), stripped."""
    return [p.strip() for p in _SENTENCE.split(text.strip()) if p.strip()]


def find_modes(
    baseline: Sequence[str], current: Sequence[str], *, example_chars: int = 160
) -> list[Mode]:
    """Modes whose share moved materially, openings first, largest change first."""
    modes: list[Mode] = []
    for edge in ("opening", "closing"):
        b_keys = [_edge_key(a, edge) for a in baseline]
        c_keys = [_edge_key(a, edge) for a in current]
        b_counts, c_counts = Counter(k for k, _ in b_keys if k), Counter(k for k, _ in c_keys if k)
        for key in sorted(set(b_counts) | set(c_counts)):
            b_share = b_counts[key] / len(baseline) if baseline else 0.0
            c_share = c_counts[key] / len(current) if current else 0.0
            common, rare = max(b_share, c_share), min(b_share, c_share)
            if common - rare < MIN_SHARE_CHANGE or common < MIN_COMMON_SHARE:
                continue
            if rare > MAX_RARE_SHARE:
                continue
            side_keys, side = (c_keys, current) if c_share > b_share else (b_keys, baseline)
            phrases = Counter(p for k, p in side_keys if k == key)
            phrase = min(phrases.items(), key=lambda item: (-item[1], item[0]))[0]
            example = next(a for (k, _), a in zip(side_keys, side) if k == key)
            modes.append(
                Mode(
                    edge=edge,
                    phrase=phrase,
                    baseline_share=b_share,
                    current_share=c_share,
                    example=clip(example, example_chars, flatten=True),
                )
            )
    modes.sort(key=lambda m: (m.edge != "opening", -abs(m.current_share - m.baseline_share)))
    return modes


def _edge_key(answer: str, edge: str) -> tuple[str, str]:
    """(mode key, phrase shown) of an answer's first or last sentence; ("", "") when the answer
    has fewer than two sentences."""
    parts = sentences(answer)
    if len(parts) < 2:
        return "", ""
    if edge == "opening":
        sentence = parts[0]
        phrase = f"{parts[0]} {parts[1]}" if len(parts[0]) < SHORT_PHRASE else parts[0]
    else:
        sentence = parts[-1]
        phrase = parts[-1]
    words = _KEY_WORD.findall(sentence.lower())
    key = " ".join(words[:KEY_WORDS]) or sentence.strip()
    return key, clip(phrase, PHRASE_CHARS, flatten=True)
