"""Answers as feature vectors: the string kernel behind the answer test.

Each answer becomes one row of non-negative numbers made of four blocks, each L2-normalised and
scaled by the square root of its weight, so the kernel ``k(x, y) = <φ(x), φ(y)>`` is a weighted
sum of four cosine similarities, ``k(x, x) = 1`` and ``0 <= k <= 1``:

* **content** — character 4-grams of the whole answer (lowercased, whitespace collapsed, capped
  at :data:`HEAD_CHARS` + :data:`TAIL_CHARS` characters), counts square-rooted so a repeated
  phrase does not dominate. Paraphrases of one answer share most of their 4-grams; an added
  paragraph brings many new ones.
* **opening** — character 3-grams of the first :data:`EDGE_CHARS` characters. How an answer
  opens is where a chatty preamble ("Sure! Great question.") shows, and it is a small part of
  a long answer's content block.
* **closing** — the same for the last :data:`EDGE_CHARS` characters: follow-up offers ("Let me
  know if…") sit there.
* **shape** — one-hot attributes: length bucket (words, ×1.5 steps), paragraph count, code fence,
  list lines, Markdown headings or bold, JSON (pure / inside prose / none), share of non-ASCII
  letters, ends with a question, indented code. Measured on the whole answer (its length too). Two answers' shape similarity is the share of attributes they
  agree on.

Why a hashed n-gram spectrum and not the Hamming kernel of the Model Equality Testing paper: the
paper compares token sequences of a fixed length from one tokenizer; here answers have any length
and no tokenizer is available without a model download. A position-wise kernel also treats a
one-word preamble as changing every position after it. The weights were chosen on
``benchmarks/behaviour_drift.py`` (power on style shifts at a fixed false-alarm rate), see
``docs/behaviour.md``.

Hashing is vectorised with numpy over all answers at once: the UTF-8 bytes of every answer are
concatenated, each n-gram's polynomial hash is computed with array arithmetic (uint64, wrapping),
and ``np.bincount`` on ``row * buckets + bucket`` fills the count matrix. No Python loop runs per
n-gram, which is what keeps 40,000 answers under a second.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from promptcanary.core.behaviour.properties import json_kind

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

#: Characters of an answer's start and end that are featurised (longer answers are cut in the
#: middle: style changes live at the edges, and the cost must not grow with answer length).
HEAD_CHARS = 1500
TAIL_CHARS = 500
#: Characters at each edge that make the opening and closing blocks.
EDGE_CHARS = 48
#: Hash buckets of the content block, as a power of two. Collisions between a few hundred
#: distinct n-grams in 1,024 buckets only blur similarities a little; they never break the
#: test's validity.
BUCKETS_BITS = 10
#: The same for the opening and closing blocks (at most ~50 n-grams each).
EDGE_BUCKETS_BITS = 8

#: Block weights: (content, opening, closing, shape). Sum to 1 so that k(x, x) = 1.
WEIGHTS = (0.4, 0.25, 0.15, 0.2)

_FENCE = re.compile(r"^\s*(```|~~~)", re.MULTILINE)
_LIST = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)])\s+\S", re.MULTILINE)
_MARKUP = re.compile(r"^\s*#{1,6}\s+\S|\*\*\S", re.MULTILINE)
_PARAGRAPH = re.compile(r"\n\s*\n")
_SENTENCE = re.compile(r"(?<=[.!?:;])\s+|\s*\n\s*")
# _SENTENCE on a reversed text: a whitespace run that holds a line break or that follows .!?:;
_BOUNDARY_BACKWARDS = re.compile(r"\s*\n\s*|\s+(?=[.!?:;])")

_JSON_SLOTS = {"none": 0, "pure": 1, "fenced": 2, "in_prose": 2}
# Shape attributes: each one-hot group gets this many slots. Length buckets grow ×1.5 each, so
# 20 of them tell answers apart up to about 2,200 words (16 stopped at about 440: every longer
# answer looked the same length).
_SHAPE_SLOTS = (20, 6, 2, 2, 2, 3, 4, 2, 3)
_OFFSETS = tuple(sum(_SHAPE_SLOTS[:i]) for i in range(len(_SHAPE_SLOTS)))
_LOG_STEP = math.log(1.5)


def cap(text: str) -> str:
    """The part of an answer that is featurised: its head and tail when it is long."""
    if len(text) <= HEAD_CHARS + TAIL_CHARS:
        return text
    return text[:HEAD_CHARS] + " … " + text[-TAIL_CHARS:]


def normalise(text: str) -> str:
    """Lowercased, whitespace runs joined to one space, stripped."""
    # str.split() and the regex \s agree on what whitespace is; the split is the cheaper.
    return " ".join(text.split()).lower()


def featurise(answers: Sequence[str]) -> list[NDArray[np.float64]]:
    """One matrix per block (content, opening, closing, shape), one unit-length row per answer.

    Each distinct answer is featurised once and its row repeated: answers repeat (at temperature
    0 most samples of a prompt are one text; a recorded answer replayed is always the same), and
    a row depends on its own text only, to the bit (hashing, counts and norms are per row), so
    the matrices are the ones featurising every answer would give."""
    distinct = list(dict.fromkeys(answers))
    if len(distinct) == len(answers):
        return _featurise(answers)
    import numpy as np

    position = {text: i for i, text in enumerate(distinct)}
    rows = np.fromiter((position[a] for a in answers), dtype=np.intp, count=len(answers))
    return [block[rows] for block in _featurise(distinct)]


def _featurise(answers: Sequence[str]) -> list[NDArray[np.float64]]:
    capped = [cap(a) for a in answers]
    edges = [_edge_sentences(a) for a in capped]
    return [
        _ngram_block([normalise(a) for a in capped], n=4, salt=1),
        _ngram_block([first for first, _ in edges], n=3, salt=2, bits=EDGE_BUCKETS_BITS),
        _ngram_block([last for _, last in edges], n=3, salt=3, bits=EDGE_BUCKETS_BITS),
        # The shape is measured on the whole answer: a long answer that gets longer in the
        # middle keeps its edges, not its length (regular expressions over the text are cheap;
        # only the n-gram blocks must not grow with it).
        _shape_block(answers),
    ]


def _edge_sentences(text: str) -> tuple[str, str]:
    """(first sentence, last sentence), normalised and cut to :data:`EDGE_CHARS`.

    Sentences, not a fixed number of characters: a preamble ("Sure!") or a follow-up offer is a
    sentence of its own, so the shifted answers' first (last) sentences are alike *whatever the
    answer was*, while a fixed window would mix the preamble with each answer's own words.
    """
    stripped = text.strip()
    if not stripped:
        return "", ""
    # Only the edges are split: the cost must not grow with the answer's length. The first
    # sentence ends where the first boundary starts. The last starts after the last boundary:
    # every boundary is a whole whitespace run (one holding a line break, or one after
    # .!?:;), so the first one found in the reversed tail is the last one of the tail.
    head = stripped[: 4 * EDGE_CHARS]
    boundary = _SENTENCE.search(head)
    first = head[: boundary.start()] if boundary else head
    backwards = stripped[-4 * EDGE_CHARS :][::-1]
    boundary = _BOUNDARY_BACKWARDS.search(backwards)
    last = backwards[: boundary.start()][::-1] if boundary else backwards[::-1]
    return " ".join(first.split()).lower()[:EDGE_CHARS], " ".join(last.split()).lower()[
        -EDGE_CHARS:
    ]


def grams(blocks: Sequence[NDArray[np.float64]]) -> list[NDArray[np.float64]]:
    """One kernel matrix per block: cosine similarities in [0, 1]."""
    import numpy as np

    # einsum, not ``b @ b.T``: for matrices this small, BLAS's thread pool costs more than the
    # product (measured on a loaded 2-core machine: 3.1 ms of CPU per matrix against 0.4 ms);
    # float32 halves that again, and similarities need no more than 7 digits.
    # Rounded to 6 digits: float32 sums differ in their last bits with the memory layout (a
    # prompt featurised alone or in a batch), and the tests count ties exactly.
    return [np.round(np.einsum("ik,jk->ij", b, b).astype(np.float64), 6) for b in blocks]


def combined(kernels: Sequence[NDArray[np.float64]]) -> NDArray[np.float64]:
    """The weighted kernel (:data:`WEIGHTS`): k(x, x) = 1, values in [0, 1]."""
    total: NDArray[np.float64] = sum(w * k for w, k in zip(WEIGHTS, kernels))  # type: ignore[assignment]
    return total


def _ngram_block(
    texts: Sequence[str], *, n: int, salt: int, bits: int = BUCKETS_BITS
) -> NDArray[np.float64]:
    """Hashed, square-rooted, L2-normalised character n-gram counts, one row per text."""
    import numpy as np

    buckets = 1 << bits
    rows = len(texts)
    # \x02 and \x03 mark each text's start and end: short texts still yield n-grams, and the
    # n-grams at the edges differ from the same letters inside a text.
    encoded = [b"\x02" + t.encode("utf-8", "replace") + b"\x03" for t in texts]
    lengths = np.fromiter((len(e) for e in encoded), dtype=np.int64, count=rows)
    data = np.frombuffer(b"".join(encoded), dtype=np.uint8).astype(np.uint64)
    ends = np.cumsum(lengths)
    windows = len(data) - n + 1
    if windows <= 0:
        return np.zeros((rows, buckets))
    h = np.full(windows, salt, dtype=np.uint64)
    prime = np.uint64(1_099_511_628_211)  # FNV-style multiplier; wraps mod 2**64
    for j in range(n):
        h = h * prime + data[j : j + windows]
    # Multiply-shift: the top bits of h * odd constant are a good bucket index.
    bucket = (h * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - bits)
    row = np.repeat(np.arange(rows), lengths)[:windows]
    valid = np.arange(windows) + n <= ends[row]  # the n-gram stays inside its own text
    index = row[valid] * buckets + bucket[valid].astype(np.int64)
    # Only the cells that hold a count are computed (a short answer fills a few dozen of the
    # 1,024): the square root of each count over its row's norm, in float64, then float32.
    # ||row||² is the sum of its squared roots (summed in another order than a dense row's
    # norm: the float32 result is the same unless a float64 quotient lies within a few
    # 2⁻⁵² of a float32 rounding midpoint, a chance of about 2⁻²⁷ per cell).
    counts = np.bincount(index, minlength=rows * buckets)
    cells = np.flatnonzero(counts)
    roots = np.sqrt(counts[cells].astype(np.float64))
    owner = cells // buckets
    norms = np.sqrt(np.bincount(owner, weights=roots * roots, minlength=rows))
    matrix = np.zeros(rows * buckets, dtype=np.float32)
    matrix[cells] = (roots / norms[owner]).astype(np.float32)
    # float32 rows, as _unit_rows gives: the annotation is the blocks' common type.
    result: NDArray[np.float64] = matrix.reshape(rows, buckets)  # type: ignore[assignment]
    return result


def _shape_block(texts: Sequence[str]) -> NDArray[np.float64]:
    import numpy as np

    rows = [_shape_slots(t) for t in texts]
    width = sum(_SHAPE_SLOTS)
    matrix = np.zeros((len(texts), width))
    if rows:
        matrix[np.arange(len(rows))[:, None], np.array(rows, dtype=np.intp)] = 1.0
    return _unit_rows(matrix)


def _shape_slots(text: str) -> list[int]:
    """Which one-hot slot each shape attribute of ``text`` takes (global column indices)."""
    words = len(text.split())
    # Extra UTF-8 bytes per character: 0 for ASCII, ~0.05 for accented Latin, 1-2 for other
    # scripts. A cheap stand-in for "which script", with no loop over characters.
    non_ascii = (
        0.0
        if text.isascii()
        else (len(text.encode("utf-8", "replace")) - len(text)) / max(len(text), 1)
    )
    stripped = text.strip()
    # Each regular expression runs only when the text holds what it needs to match (a line
    # break, a fence, a "#" or "**"): most answers skip most of them.
    lines = "\n" in stripped
    fence = _has_fence(text)
    values = (
        min(int(math.log(words + 1) / _LOG_STEP), _SHAPE_SLOTS[0] - 1),
        min(
            (len(_PARAGRAPH.split(stripped)) if lines else 1) if stripped else 0,
            _SHAPE_SLOTS[1] - 1,
        ),
        int(fence),
        int("\n" in text and len(_LIST.findall(text)) >= 2),
        int(("#" in text or "**" in text) and _MARKUP.search(text) is not None),
        _json_kind(stripped) if "{" in stripped or "[" in stripped else 0,
        min(int(non_ascii * 4), 3),  # 0, ≥ .25, ≥ .5, ≥ .75 extra bytes per char
        int(stripped.endswith("?")),
        _indentation(text) if fence else 0,
    )
    return [offset + value for offset, value in zip(_OFFSETS, values)]


def _has_fence(text: str) -> bool:
    return ("```" in text or "~~~" in text) and _FENCE.search(text) is not None


def code_lines(text: str) -> list[str]:
    """The lines inside code fences (what whitespace collapsing would destroy)."""
    if "```" not in text and "~~~" not in text:
        return []  # no fence, nothing inside one
    inside, lines = False, []
    for line in text.splitlines():
        if _FENCE.match(line):
            inside = not inside
        elif inside:
            lines.append(line)
    return lines


def code_indentation(text: str) -> int:
    """0 = no code fence, 1 = fenced code without indented lines, 2 = with indented lines.
    Whitespace joined to one space makes every answer look alike to the n-gram blocks; this
    attribute is where code that lost its indentation shows."""
    return _indentation(text) if _has_fence(text) else 0


def _indentation(fenced: str) -> int:
    return 2 if any(line[:1] in (" ", "\t") for line in code_lines(fenced)) else 1


def _json_kind(stripped: str) -> int:
    """0 = no JSON, 1 = the answer is JSON, 2 = JSON inside prose or a fence."""
    return _JSON_SLOTS[json_kind(stripped)]


def _unit_rows(matrix: NDArray[np.float64]) -> NDArray[np.float64]:
    import numpy as np

    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    result: NDArray[np.float64] = (matrix / np.where(norms == 0, 1.0, norms)).astype(np.float32)
    return result
