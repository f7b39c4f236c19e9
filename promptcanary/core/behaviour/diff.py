"""A typical old and a typical new answer, and the word-level diff between them."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

#: Words of each answer the diff looks at (difflib is quadratic in the worst case).
MAX_DIFF_WORDS = 400

Op = Literal["equal", "insert", "delete"]


@dataclass(frozen=True)
class DiffSegment:
    """A run of words that both answers share (``equal``), only the new one has (``insert``) or
    only the old one had (``delete``). Words are joined by single spaces."""

    op: Op
    text: str


def typical_pair(baseline: Sequence[str], current: Sequence[str]) -> tuple[str, str]:
    """(typical baseline answer, typical current answer): each side's medoid under the answer
    test's kernel — the answer most similar, on average, to the others of its side. Ties go to
    the earliest answer, so the choice is deterministic. Empty sides give ""."""
    if not baseline or not current:
        return (baseline[0] if baseline else ""), (current[0] if current else "")
    if len(set(baseline)) == 1 and len(set(current)) == 1:
        return baseline[0], current[0]  # one text a side (a replay, temperature 0): no kernel
    from promptcanary.core.behaviour.features import combined, featurise, grams

    k = combined(grams(featurise([*baseline, *current])))
    n = len(baseline)
    b_best = int(k[:n, :n].sum(axis=1).argmax())
    c_best = int(k[n:, n:].sum(axis=1).argmax())
    return baseline[b_best], current[c_best]


def word_diff(old: str, new: str) -> list[DiffSegment]:
    """Word-level diff of ``old`` → ``new``; a replacement is a ``delete`` then an ``insert``."""
    a, b = old.split()[:MAX_DIFF_WORDS], new.split()[:MAX_DIFF_WORDS]
    segments: list[DiffSegment] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            segments.append(DiffSegment("equal", " ".join(a[i1:i2])))
            continue
        if i2 > i1:
            segments.append(DiffSegment("delete", " ".join(a[i1:i2])))
        if j2 > j1:
            segments.append(DiffSegment("insert", " ".join(b[j1:j2])))
    return segments
