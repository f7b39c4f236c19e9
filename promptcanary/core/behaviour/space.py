"""The answers of one prompt, featurised once, and the statistics of a split of them.

Every test of a prompt (the screening gate, the per-prompt test, its stratum of the pooled test)
compares some of its answers with some others. :class:`AnswerSpace` featurises each distinct text
once; :meth:`AnswerSpace.prepare` takes the answers of one test, groups near-duplicates
(:mod:`.groups`) and keeps one kernel row per group; :meth:`Prepared.statistics` gives, for every
split of those answers into "baseline" and "current", the five views the tests maximise over:

* the MMD² of each kernel block (content, opening, closing, shape: :mod:`.features`);
* **novelty**: the mean over current answers of 1 − the similarity to the nearest baseline answer.
  One new way of answering among three current answers barely moves an MMD² (the within-sample
  terms dominate), while it is a third of the novelty. A variant grouped with a known answer is
  never novel.

A split is a row of an assignment matrix: 1/n at the answers it calls baseline, −1/m at the others.
All splits are one matrix product per view, on the group level (answers of one group share their
kernel row, so only the sums per group matter).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from promptcanary.core.behaviour.groups import TAU, leader_groups

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

#: The views a test maximises over, in the order of :meth:`Prepared.statistics`' rows.
VIEWS = ("content", "opening", "closing", "shape", "novelty")

_PUNCTUATION = re.compile(r"[\W_]+")
# Answers this much longer (and by this many words) are never near-duplicates: a quarter is far
# more than a late-diverging variant adds (a word or two), and the n-gram views cannot see it.
_LONGER = 1.25
_LONGER_WORDS = 5
# Distinct answers featurised in one call by AnswerSpace.many.
_BATCH_TEXTS = 400
# Floats held at once by one array of the split statistics (prompts and splits chunked above).
_CHUNK = 2_000_000


def loose(text: str) -> str:
    """An answer with case, whitespace and punctuation dropped: what near-duplicates share."""
    # Every whitespace character is \W: after the substitution only single spaces are left.
    return _PUNCTUATION.sub(" ", text.lower()).strip()


def code_layout(text: str) -> tuple[int, ...]:
    """The indentation of every line inside the answer's code fences (empty without code)."""
    if "```" not in text and "~~~" not in text:
        return ()  # no code fence (the usual case: skip the import and the line walk)
    from promptcanary.core.behaviour.features import code_lines

    return tuple(len(line) - len(line.lstrip(" \t")) for line in code_lines(text))


#: The spaces of the current :func:`shared_spaces` scope, by their distinct texts in order.
_SHARED: ContextVar[dict[tuple[str, ...], AnswerSpace] | None] = ContextVar(
    "promptcanary_answer_spaces", default=None
)


@contextmanager
def shared_spaces() -> Iterator[None]:
    """Within this scope, answers featurised once serve every later test of the same answers.

    A check tests each prompt's screening answers twice: the gate of ``samples: auto``
    (:func:`.adaptive.screen_many`, 3 answers against the whole baseline) and ``compare``, whose
    pooled test takes the same answers as the prompt's stratum. The pipeline runs a check inside
    one scope, so the second finds the first's space (features, kernels) and grouping, with the
    splits its first permutations already computed. A space is a pure function of its texts:
    reusing one changes no number. Nested scopes share the outer one's spaces.
    """
    if _SHARED.get() is not None:
        yield
        return
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


class AnswerSpace:
    """Every distinct answer of one prompt, featurised once."""

    def __init__(
        self, answers: Iterable[str], *, blocks: Sequence[NDArray[np.float64]] | None = None
    ) -> None:
        from promptcanary.core.behaviour.features import combined, featurise, grams

        self.texts = list(dict.fromkeys(answers))
        self._index = {t: i for i, t in enumerate(self.texts)}
        if blocks is None and self.texts:
            blocks = featurise(self.texts)
        self.kernels = grams(blocks) if blocks is not None and self.texts else []
        self.combined = combined(self.kernels) if self.texts else None
        self.loose = [loose(t) for t in self.texts]
        self.layout = [code_layout(t) for t in self.texts]
        self.words = [len(t.split()) for t in self.texts]
        self._prepared: dict[tuple[tuple[str, ...], tuple[str, ...], float], Prepared | None] = {}

    @classmethod
    def many(cls, answer_sets: Sequence[Iterable[str]]) -> list[AnswerSpace]:
        """One space per set, featurised a batch of sets at a time (the features are vectorised
        over answers; a batch stays small enough that its dense count matrices fit in cache).
        Inside :func:`shared_spaces`, a set of answers already featurised in the same scope
        reuses its space (and the groupings and split statistics kept in it)."""
        from promptcanary.core.behaviour.features import featurise

        distinct = [list(dict.fromkeys(answers)) for answers in answer_sets]
        shared = _SHARED.get()
        found = [shared.get(tuple(texts)) if shared is not None else None for texts in distinct]
        made: list[AnswerSpace] = []
        batch: list[list[str]] = []
        missing = [texts for texts, space in zip(distinct, found) if space is None]
        for texts in [*missing, None]:
            if texts is not None and sum(map(len, batch)) + len(texts) <= _BATCH_TEXTS:
                batch.append(texts)
                continue
            flat = [t for b in batch for t in b]
            blocks = featurise(flat) if flat else None
            start = 0
            for b in batch:
                rows = slice(start, start + len(b))
                made.append(cls(b, blocks=[x[rows] for x in blocks] if blocks else None))
                start += len(b)
            batch = [texts] if texts is not None else []
        fresh = iter(made)
        out = [space if space is not None else next(fresh) for space in found]
        if shared is not None:
            shared.update((tuple(space.texts), space) for space in out)
        return out

    def similarity(self, rows: Sequence[int]) -> NDArray[np.float64]:
        """The similarity the grouping uses between the distinct answers ``rows``: the weighted
        kernel, 1 for answers that differ only in case, spacing and punctuation, 0 for answers
        whose code is laid out differently or whose length differs by a quarter or more."""
        import numpy as np

        assert self.combined is not None
        kernel = self.combined[np.ix_(rows, rows)]
        keys = [self.loose[d] for d in rows]
        if len(set(keys)) < len(keys):
            # "391" and "391." are the same answer, whatever a short text's n-grams say.
            same = np.array([[a == b for b in keys] for a in keys])
            kernel = np.where(same, 1.0, kernel)
        layouts = [self.layout[d] for d in rows]
        if len(set(layouts)) > 1:
            # Code whose lines or indentation changed is never a near-duplicate: whitespace is
            # meaning there, though the kernel's blocks join it.
            differ = np.array([[a != b for b in layouts] for a in layouts])
            kernel = np.where(differ, 0.0, kernel)
        counts = [self.words[d] for d in rows]
        most, least = max(counts), min(counts)
        if most < _LONGER * least or most - least < _LONGER_WORDS:
            return kernel  # the usual case: no answer is much longer than another
        words = np.array(counts, dtype=np.float64)
        longer, shorter = np.maximum.outer(words, words), np.minimum.outer(words, words)
        # Nor is an answer a quarter longer (and 5 words more): a long answer that grows in
        # the middle keeps its edges, which is all the n-gram views read of it.
        grown = (longer >= _LONGER * shorter) & (longer - shorter >= _LONGER_WORDS)
        return np.where(grown, 0.0, kernel)

    def prepare(
        self, baseline: Sequence[str], current: Sequence[str], *, tau: float = TAU
    ) -> Prepared | None:
        """The answers of one test, near-duplicates grouped; None when there is nothing to
        compare (a side empty, or every answer in one group). The same answers give the same
        object again, with the split statistics computed so far (the gate's screening test
        and the pooled test's stratum of that prompt share their first splits)."""
        key = (tuple(baseline), tuple(current), tau)
        if key not in self._prepared:
            self._prepared[key] = self._prepare(baseline, current, tau)
        return self._prepared[key]

    def _prepare(
        self, baseline: Sequence[str], current: Sequence[str], tau: float
    ) -> Prepared | None:
        import numpy as np

        n, m = len(baseline), len(current)
        if n < 1 or m < 1 or self.combined is None:
            return None
        index = [self._index[a] for a in (*baseline, *current)]
        counts = Counter(index)
        distinct = list(counts)
        kernel = self.similarity(distinct)
        group = leader_groups(
            kernel, [counts[d] for d in distinct], [self.texts[d] for d in distinct], tau=tau
        )
        leaders = sorted(set(group))
        if len(leaders) < 2:
            return None
        slot = {leader: g for g, leader in enumerate(leaders)}
        position = {d: p for p, d in enumerate(distinct)}
        answer_group = np.fromiter(
            (slot[group[position[i]]] for i in index), dtype=np.intp, count=len(index)
        )
        rows = [distinct[leader] for leader in leaders]
        picked = np.ix_(rows, rows)
        return Prepared(
            n=n,
            m=m,
            answer_group=answer_group,
            kernels=[k[picked] for k in self.kernels],
            combined=self.combined[picked],
        )


@dataclass(frozen=True, eq=False)
class Prepared:
    """The answers of one test: ``n`` baseline then ``m`` current, each mapped to its group."""

    n: int
    m: int
    answer_group: NDArray[np.intp]
    """Group of each answer (baseline first)."""
    kernels: list[NDArray[np.float64]]
    """Per kernel block, the similarities between the groups' leaders."""
    combined: NDArray[np.float64]
    """The weighted kernel between the groups' leaders."""
    _cache: dict[tuple[int, int], NDArray[np.float64]] = field(default_factory=dict, repr=False)

    def split_statistics(self, permutations: int, seed: int) -> NDArray[np.float64]:
        """:meth:`statistics` of the observed split (column 0) and the first ``permutations``
        splits of ``assignments(n, m, permutations, seed)``; computed block by block and kept,
        so the pooled test and the prompt's own test share the splits they both use."""
        import numpy as np

        parts = []
        for b in range(-(-permutations // BLOCK)):
            key = (seed, b)
            if key not in self._cache:
                self._cache[key] = self.statistics(_mask(self.n, self.m, seed, b))
            parts.append(self._cache[key])
        observed = self._cache.get((seed, -1))
        if observed is None:
            observed = self._cache[(seed, -1)] = self.statistics(self.observed()[None, :])
        return np.hstack([observed, *parts])[:, : permutations + 1]

    @property
    def groups(self) -> int:
        return int(self.combined.shape[0])

    def observed(self) -> NDArray[np.float64]:
        """The assignment row of the observed split."""
        import numpy as np

        return np.concatenate([np.full(self.n, 1.0 / self.n), np.full(self.m, -1.0 / self.m)])

    def statistics(self, rows: NDArray[np.float64] | NDArray[np.bool_]) -> NDArray[np.float64]:
        """One row per view (:data:`VIEWS`), one column per split in ``rows`` (assignment rows,
        or their masks: True for "baseline"); rounded so that splits that differ only by float
        noise tie exactly."""
        stats: NDArray[np.float64] = shared_statistics([self], rows[None, :, :])[0]
        return stats

    def novel_current(self) -> int:
        """Current answers whose group has no baseline answer (observed split)."""
        import numpy as np

        known = set(self.answer_group[: self.n].tolist())
        return int(np.count_nonzero([g not in known for g in self.answer_group[self.n :]]))

    def expected_novel(self) -> float:
        """Current answers expected to be unlike every baseline answer under no change: ``m``
        times the share of baseline answers whose group occurs once among them (Good–Turing)."""
        counts = Counter(self.answer_group[: self.n].tolist())
        singletons = sum(1 for c in counts.values() if c == 1)
        return self.m * singletons / self.n

    def current_mode_known(self) -> bool:
        """Whether the most frequent group of the current answers has a baseline answer (every
        most frequent one, on ties)."""
        counts = Counter(self.answer_group[self.n :].tolist())
        top = max(counts.values())
        known = set(self.answer_group[: self.n].tolist())
        return all(g in known for g, c in counts.items() if c == top)

    def expanded(self) -> NDArray[np.float64]:
        """The weighted kernel with one row per answer."""
        import numpy as np

        return self.combined[np.ix_(self.answer_group, self.answer_group)]


def shared_statistics(
    prepared: Sequence[Prepared], rows: NDArray[np.float64] | NDArray[np.bool_]
) -> NDArray[np.float64]:
    """:meth:`Prepared.statistics` of several prompts of one shape (the same ``n``, ``m`` and
    number of groups) in one pass: ``rows`` is prompts × splits × answers (assignment rows, or
    masks: True for "baseline"), the result prompts × views × splits. A thousand prompts cost a
    few dozen numpy calls instead of a thousand times as many.

    A split's statistics depend only on how many answers of each group it calls "baseline" (the
    answers of a group share their kernel row), so they are computed from those counts, once per
    distinct count vector of a prompt: a prompt of two groups (a temperature-0 answer that
    changed, a replayed answer) has at most ``min(n, m) + 1`` of them among its thousands of
    splits. Every number is a function of the prompt and the counts alone, the same whichever
    splits share the call."""
    import numpy as np

    first = prepared[0]
    n, m, g = first.n, first.m, first.groups
    in_baseline = rows > 0  # a mask as it is; an assignment row's baseline entries are 1/n
    groups = np.stack([p.answer_group for p in prepared])
    sizes = np.stack([np.bincount(a, minlength=g) for a in groups])
    counts = _baseline_counts(in_baseline, groups, sizes)
    distinct = _distinct(counts, sizes)
    stats = _count_statistics(prepared, distinct[0] if distinct else counts, sizes, n, m)
    if distinct is None:
        return stats
    return np.take_along_axis(stats, distinct[1][:, None, :], axis=2)


def _baseline_counts(
    in_baseline: NDArray[np.bool_], groups: NDArray[np.intp], sizes: NDArray[np.intp]
) -> NDArray[np.intp]:
    """Per prompt, split and group: how many of the group's answers the split calls "baseline"
    (the masks times each prompt's one-hot answer-to-group matrix: single-precision products of
    0 and 1 summed exactly, counts being far below 2**24)."""
    import numpy as np

    k, answers = groups.shape
    onehot = np.zeros((k, answers, sizes.shape[1]), dtype=np.float32)
    onehot[np.arange(k)[:, None], np.arange(answers)[None, :], groups] = 1.0
    counts: NDArray[np.intp] = np.matmul(in_baseline.astype(np.float32), onehot).astype(np.intp)
    return counts


def _distinct(
    counts: NDArray[np.intp], sizes: NDArray[np.intp]
) -> tuple[NDArray[np.intp], NDArray[np.intp]] | None:
    """Per prompt, its distinct count vectors (padded with its first split's to the largest
    number among the prompts) and, per split, the index of its own among them; None when that
    would not halve the work (many groups: nearly every split is its own)."""
    import numpy as np

    k, splits, _ = counts.shape
    radix = sizes + 1
    if splits < 4 or float(np.log2(radix.astype(np.float64)).sum(axis=1).max()) >= 62:
        return None  # too few splits to gain, or a key that would not fit in 63 bits
    place = np.cumprod(radix, axis=1) // radix  # mixed radix: a count vector as one integer
    key = (counts * place[:, None, :]).sum(axis=2)
    order = np.argsort(key, axis=1, kind="stable")
    ranked = np.take_along_axis(key, order, axis=1)
    new = np.ones((k, splits), dtype=bool)
    new[:, 1:] = ranked[:, 1:] != ranked[:, :-1]
    rank = np.cumsum(new, axis=1) - 1
    width = int(rank[:, -1].max()) + 1
    if 2 * width > splits:
        return None
    inverse = np.empty((k, splits), dtype=np.intp)
    np.put_along_axis(inverse, order, rank, axis=1)
    first = np.zeros((k, width), dtype=np.intp)  # padding: the prompt's split 0, computed twice
    prompt, position = np.nonzero(new)
    first[prompt, rank[prompt, position]] = order[prompt, position]
    return np.take_along_axis(counts, first[:, :, None], axis=1), inverse


def _count_statistics(
    prepared: Sequence[Prepared],
    counts: NDArray[np.intp],
    sizes: NDArray[np.intp],
    n: int,
    m: int,
) -> NDArray[np.float64]:
    """The statistics (prompts × views × splits) of splits given by their baseline counts."""
    import numpy as np

    first = prepared[0]
    g = first.groups
    k, splits = counts.shape[0], counts.shape[1]
    size = sizes[:, None, :].astype(np.float64)
    in_baseline = counts.astype(np.float64)
    # A split's entry is 1/n at a baseline answer, -1/m at a current one: per group, their sum.
    weights = in_baseline / n - (size - in_baseline) / m
    # Every view's a K for all splits, the kernel blocks side by side, the sum over groups
    # taken one group at a time (the order a one-prompt einsum over groups adds in: the same
    # sums to the last bit, in arrays large enough that numpy's per-call cost disappears).
    kernels = np.stack([np.hstack(p.kernels) for p in prepared])
    views = len(first.kernels)
    stacked = np.zeros((k, splits, views * g))
    # One buffer for every product (``a += b * c`` would allocate one per group): the same
    # products and sums, without a fresh array of this size each time.
    term = np.empty_like(stacked)
    for h in range(g):
        np.multiply(weights[:, :, h, None], kernels[:, None, h, :], out=term)
        stacked += term
    product = term.reshape(k, splits, views, g)
    np.multiply(stacked.reshape(k, splits, views, g), weights[:, :, None, :], out=product)
    mmd = product.sum(axis=3)
    combined = np.stack([p.combined for p in prepared])
    novelty = _novelty(combined, counts > 0, size - in_baseline, m)
    return np.round(np.concatenate([mmd.transpose(0, 2, 1), novelty[:, None, :]], axis=1), 12)


def _novelty(
    combined: NDArray[np.float64],
    seen: NDArray[np.bool_],
    in_current: NDArray[np.float64],
    m: int,
) -> NDArray[np.float64]:
    """Per prompt and split, the mean over current answers of 1 − the similarity to the nearest
    group with a baseline answer (a group's own similarity is 1)."""
    import numpy as np

    k, splits, g = seen.shape
    out = np.empty((k, splits))
    step = max(1, _CHUNK // max(1, k * g))
    for start in range(0, splits, step):
        part = slice(start, start + step)
        # The largest similarity to a seen group, one candidate group at a time (the same
        # maximum as over all at once, in a block that stays in cache). Similarities are >= 0
        # and every group's own is 1, so starting from 0 and leaving the cells of unseen groups
        # as they are (``where=``: no array of zeros to build) changes nothing.
        nearest = np.zeros((k, seen[:, part].shape[1], g))
        for h in range(g):
            np.maximum(nearest, combined[:, None, :, h], out=nearest, where=seen[:, part, h, None])
        out[:, part] = (in_current[:, part] * (1.0 - nearest)).sum(axis=2) / m
    return out


#: Seeds whose random keys :func:`_blocks` turns into splits at once.
_KEY_SEEDS = 8
#: Splits are drawn in blocks of this many rows, each from its own seed: a test that stops
#: early (its first stage is 200 splits) never pays for the splits it did not use.
BLOCK = 200


def assignments(n: int, m: int, permutations: int, seed: int) -> NDArray[np.float64]:
    """``permutations`` × ``n + m`` random splits (rows as in :meth:`Prepared.observed`), seeded:
    the first ``k`` rows are the same whatever ``permutations`` is. Each prompt of a suite gets
    its own seed: the pooled test needs the prompts' permutations independent (with one shared
    set its false-alarm rate rose above the level)."""
    import numpy as np

    blocks = [_blocks(n, m, (seed,), b)[0] for b in range(-(-permutations // BLOCK))]
    rows: NDArray[np.float64] = np.vstack(blocks)[:permutations]
    return rows


def share_splits(strata: Sequence[tuple[Prepared, int]], permutations: int) -> None:
    """Compute what :meth:`Prepared.split_statistics` reads for ``permutations`` splits of every
    (grouped answers, seed) in ``strata`` and keep it in each one's cache: the prompts of one
    shape (answers a side, groups) up to a few hundred at a time (:func:`shared_statistics`), so a
    suite's tests cost a few numpy calls per shape, not per prompt. The numbers are those each
    prompt's own call would give (same seeds, same splits, same arithmetic)."""
    import numpy as np

    shapes: dict[tuple[int, int, int], list[tuple[Prepared, int]]] = {}
    for prepared, seed in strata:
        shapes.setdefault((prepared.n, prepared.m, prepared.groups), []).append((prepared, seed))
    for (n, m, g), members in shapes.items():
        for b in range(-1, -(-permutations // BLOCK)):  # -1: the observed split
            todo = [(p, s) for p, s in members if (s, b) not in p._cache]
            splits = 1 if b < 0 else BLOCK
            # Arrays of splits × (answers + 4 kernel blocks × groups) floats per prompt.
            chunk = max(1, _CHUNK // (splits * (n + m + 4 * g)))
            for start in range(0, len(todo), chunk):
                part = todo[start : start + chunk]
                if b < 0:
                    rows = np.broadcast_to(part[0][0].observed(), (len(part), 1, n + m))
                    stats = shared_statistics([p for p, _ in part], rows)
                else:
                    masks = _masks(n, m, tuple(s for _, s in part), b)
                    stats = shared_statistics([p for p, _ in part], masks)
                for (p, s), each in zip(part, stats):
                    p._cache[(s, b)] = each


@lru_cache(maxsize=512)
def _mask(n: int, m: int, seed: int, block: int) -> NDArray[np.bool_]:
    a: NDArray[np.bool_] = _masks(n, m, (seed,), block)[0]
    a.setflags(write=False)
    return a


def _blocks(n: int, m: int, seeds: Sequence[int], block: int) -> NDArray[np.float64]:
    """Block ``block`` of the splits of each seed as assignment rows: seeds × :data:`BLOCK` ×
    ``n + m``."""
    import numpy as np

    rows: NDArray[np.float64] = np.where(_masks(n, m, seeds, block), 1.0 / n, -1.0 / m)
    return rows


def _masks(n: int, m: int, seeds: Sequence[int], block: int) -> NDArray[np.bool_]:
    """Block ``block`` of the splits of each seed: seeds × :data:`BLOCK` × ``n + m``, True at
    the answers a split calls "baseline"."""
    import numpy as np

    a: NDArray[np.bool_] = np.empty((len(seeds), BLOCK, n + m), dtype=bool)
    # A few seeds at a time: the keys, their partition and the mask of a few hundred prompts
    # would each be megabytes; a handful stays in cache and only the result is written out.
    keys = np.empty((_KEY_SEEDS, BLOCK, n + m))
    for start in range(0, len(seeds), _KEY_SEEDS):
        part = seeds[start : start + _KEY_SEEDS]
        batch = keys[: len(part)]
        for row, s in zip(batch, part):
            np.random.default_rng((s << 10) + block).random(out=row)
        # A uniformly random split: the n answers with the smallest random keys are "baseline".
        cut = np.partition(batch, n - 1, axis=2)[:, :, n - 1 : n]
        np.less_equal(batch, cut, out=a[start : start + len(part)])
    return a
