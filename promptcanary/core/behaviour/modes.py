"""Answer modes: the opening and closing sentences a share of answers have in common.

A chatty preamble ("Sure! Great question.") or a follow-up offer ("Let me know if…") is a sentence
of its own at an answer's edge. Grouping answers by their first (last) sentence — lowercased,
punctuation dropped, first :data:`KEY_WORDS` words — finds such modes with no clustering
parameters, deterministically. Single-sentence answers have no opening apart from the answer
itself, so they join no mode (their share still counts in the denominator).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from promptcanary.core.behaviour.properties import per_answer
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
#: Characters of a mode's phrase shown.
PHRASE_CHARS = 60
#: An opening of at most this many words followed by another as short is shown with it:
#: "Sure! Great question." rather than "Sure!".
SHORT_PHRASE_WORDS = 3
#: Variant phrases kept on a merged mode.
MAX_VARIANTS = 2

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
    variants: tuple[str, ...] = ()
    """Other phrases merged into this mode (novel openings/closings: "Great question!" next to
    "Sure! Happy to help."), most frequent first, at most :data:`MAX_VARIANTS`."""

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
    if not baseline or not current:
        return []
    modes: list[Mode] = []
    for edge in ("opening", "closing"):
        b_keys = per_answer(functools.partial(_edge_key, edge=edge), baseline)
        c_keys = per_answer(functools.partial(_edge_key, edge=edge), current)
        novel = _novel_mode(edge, b_keys, c_keys, current, example_chars)
        b_all, c_all = Counter(k.key for k in b_keys), Counter(k.key for k in c_keys)
        b_edge = Counter(k.key for k in b_keys if k.edge)
        c_edge = Counter(k.key for k in c_keys if k.edge)
        for key in sorted(set(b_edge) | set(c_edge)):
            if novel and key not in b_all:
                continue  # already part of the novel mode
            # The common side counts only answers where the sentence is an edge of a longer
            # answer; the rare side counts every answer with that sentence anywhere it is one.
            appeared = c_edge[key] / len(current) - b_all[key] / len(baseline)
            vanished = b_edge[key] / len(baseline) - c_all[key] / len(current)
            if appeared >= vanished:
                common, rare = c_edge[key] / len(current), b_all[key] / len(baseline)
                side_keys, side = c_keys, current
                b_share, c_share = rare, common
            else:
                common, rare = b_edge[key] / len(baseline), c_all[key] / len(current)
                side_keys, side = b_keys, baseline
                b_share, c_share = common, rare
            if common - rare < MIN_SHARE_CHANGE or common < MIN_COMMON_SHARE:
                continue
            if rare > MAX_RARE_SHARE:
                continue
            chosen = [(k, a) for k, a in zip(side_keys, side) if k.key == key and k.edge]
            modes.append(
                Mode(
                    edge=edge,
                    phrase=_ranked(k.phrase for k, _ in chosen)[0],
                    baseline_share=b_share,
                    current_share=c_share,
                    example=_example(chosen[0][1], edge, example_chars),
                )
            )
        if novel:
            modes.append(novel)
    modes.sort(key=lambda m: (m.edge != "opening", -abs(m.current_share - m.baseline_share)))
    return modes


def _novel_mode(
    edge: Edge,
    b_keys: Sequence[_EdgeKey],
    c_keys: Sequence[_EdgeKey],
    current: Sequence[str],
    example_chars: int,
) -> Mode | None:
    """Current answers whose opening (closing) no baseline answer has, as one mode — when there
    are materially more of them than a fresh baseline sample would bring.

    Why merge: a model turning chatty rotates its preambles ("Sure! …", "Great question!",
    "Absolutely!"); each alone may stay under the threshold while together they are 70 % of the
    answers. The share expected under no change is the Good–Turing estimate — the share of
    baseline answers whose key occurs once in the baseline — so a prompt whose answers always
    vary (a poem) does not report its variety as a change.
    """
    seen = Counter(k.key for k in b_keys)
    novel = [(k, a) for k, a in zip(c_keys, current) if k.edge and k.key not in seen]
    share = len(novel) / len(current)
    expected = sum(1 for count in seen.values() if count == 1) / len(b_keys)
    if share < MIN_COMMON_SHARE or share - expected < MIN_SHARE_CHANGE:
        return None
    keys = Counter(k.key for k, _ in novel)
    top = sorted(keys, key=lambda key: (-keys[key], key))
    phrases = [_ranked(k.phrase for k, _ in novel if k.key == key)[0] for key in top]
    example = next(a for k, a in novel if k.key == top[0])
    return Mode(
        edge=edge,
        phrase=phrases[0],
        baseline_share=0.0,
        current_share=share,
        example=_example(example, edge, example_chars),
        variants=tuple(phrases[1 : MAX_VARIANTS + 1]),
    )


def _example(answer: str, edge: Edge, chars: int) -> str:
    """An answer of the mode on one line, clipped at the far end from the mode's sentence: a
    closing is only seen in the answer's last words."""
    return clip(answer, chars, flatten=True, from_end=edge == "closing")


def _ranked(phrases: Iterable[str]) -> list[str]:
    """Distinct phrases, most frequent first (ties alphabetically: deterministic)."""
    counts = Counter(phrases)
    return sorted(counts, key=lambda p: (-counts[p], p))


@dataclass(frozen=True)
class _EdgeKey:
    key: str
    """Mode key: the sentence's first :data:`KEY_WORDS` words, lowercased."""
    phrase: str
    """The sentence as shown (a short one with the next short one)."""
    edge: bool
    """True when the answer has more sentences: the sentence is an edge, not the answer."""


def _edge_key(answer: str, edge: str) -> _EdgeKey:
    """The mode key of an answer's first or last sentence.

    A single-sentence answer has a key too (so "Paris." followed by a new "Let me know…" is a new
    closing, not a new opening) but does not make a mode by itself: its opening is the answer.
    """
    parts = sentences(answer)
    if not parts:
        return _EdgeKey("", "", edge=False)
    if edge == "opening":
        sentence = parts[0]
        short = len(parts) > 1 and all(len(p.split()) <= SHORT_PHRASE_WORDS for p in parts[:2])
        phrase = f"{parts[0]} {parts[1]}" if short else parts[0]
    else:
        sentence = parts[-1]
        phrase = parts[-1]
    words = _KEY_WORD.findall(sentence.lower())
    key = " ".join(words[:KEY_WORDS]) or sentence.strip()
    return _EdgeKey(key, clip(phrase, PHRASE_CHARS, flatten=True), edge=len(parts) > 1)
