"""The batched answer test gives, to the last bit, what the one-prompt-at-a-time code gave.

The answer test's CPU (issue 30) was cut by computing the split statistics of many prompts in one
pass, the group sums and kernel products in einsum's own order, and the features with fewer
passes over each text. Nothing of the result was meant to move: every p-value, statistic and
verdict, and so every golden file and statistical benchmark figure, stays as it was. The small
reference implementations below are the code before that change (per prompt, einsum and dense
arrays, one regular-expression split per edge); the tests compare on seeded simulated answers.
Since issue 29 a split's statistics are computed from its per-group baseline counts, once per
distinct count vector of a prompt; the rounded statistics are still those of the reference, which
sums a split's entries answer by answer.
"""

from __future__ import annotations

import math
import random
import re

import numpy as np
import pytest
from numpy.typing import NDArray

from promptcanary.core.behaviour import (
    AnswerTest,
    PromptAnswers,
    SuiteTest,
    gate,
    mmd,
    prompt_seed,
    screen_many,
    shared_spaces,
    suite_test,
)
from promptcanary.core.behaviour.features import (
    EDGE_CHARS,
    _edge_sentences,
    _ngram_block,
    _shape_slots,
    code_indentation,
    featurise,
)
from promptcanary.core.behaviour.mmd import permutations_for, standardised_max
from promptcanary.core.behaviour.space import (
    _KEY_SEEDS,
    BLOCK,
    AnswerSpace,
    Prepared,
    _baseline_counts,
    _blocks,
    _distinct,
    _mask,
    _masks,
    share_splits,
    shared_statistics,
)
from tests.fakes.simulate import PROMPTS, sample_answers


def _reference_statistics(p: Prepared, rows: NDArray[np.float64]) -> NDArray[np.float64]:
    """The statistics of one prompt as computed before the batched path."""
    g = p.groups
    onehot = np.zeros((p.n + p.m, g))
    onehot[np.arange(p.n + p.m), p.answer_group] = 1.0
    weights = np.einsum("pi,ig->pg", rows, onehot)
    stacked = np.einsum("pg,gh->ph", weights, np.hstack(p.kernels))
    mmd = (stacked.reshape(len(rows), len(p.kernels), g) * weights[:, None, :]).sum(axis=2)
    sizes = onehot.sum(axis=0)
    in_baseline = (weights + sizes / p.m) / (1.0 / p.n + 1.0 / p.m)
    seen = in_baseline > 0.5
    nearest = np.where(seen[:, None, :], p.combined[None, :, :], 0.0).max(axis=2)
    novelty = ((sizes - in_baseline) * (1.0 - nearest)).sum(axis=1) / p.m
    return np.round(np.vstack([mmd.T, novelty[None, :]]), 12)


def _reference_block(n: int, m: int, seed: int, block: int) -> NDArray[np.float64]:
    rng = np.random.default_rng((seed << 10) + block)
    keys = rng.random((BLOCK, n + m))
    cut = np.partition(keys, n - 1, axis=1)[:, n - 1 : n]
    a: NDArray[np.float64] = np.where(keys <= cut, 1.0 / n, -1.0 / m)
    return a


def _reference_p(p: Prepared, permutations: int, seed: int) -> float:
    blocks = [_reference_block(p.n, p.m, seed, b) for b in range(-(-permutations // BLOCK))]
    observed = _reference_statistics(p, p.observed()[None, :])
    stats = np.hstack([observed, *(_reference_statistics(p, b) for b in blocks)])
    best = standardised_max(stats[:, : permutations + 1])
    assert best is not None
    return float(np.count_nonzero(best >= best[0]) / best.shape[0])


def _suite(seed: int, share: float, current: int = 12) -> list[tuple[list[str], list[str]]]:
    return [
        (
            sample_answers(pid, 30, seed=seed + i),
            sample_answers(pid, current, seed=seed + 100 + i, share=share if i % 3 == 0 else 0),
        )
        for i, pid in enumerate(PROMPTS)
    ]


def _prepared(seed: int, share: float, current: int = 12) -> list[tuple[Prepared, int]]:
    pairs = _suite(seed, share, current)
    spaces = AnswerSpace.many([[*b, *c] for b, c in pairs])
    out = []
    for (b, c), space, pid in zip(pairs, spaces, PROMPTS):
        prepared = space.prepare(b, c)
        if prepared is not None:
            out.append((prepared, prompt_seed(pid)))
    return out


@pytest.mark.parametrize(("seed", "share"), [(1, 0.0), (2, 0.7), (3, 0.2)])
def test_shared_statistics_are_bitwise_those_of_one_prompt(seed: int, share: float) -> None:
    items = _prepared(seed, share)
    assert len({p.groups for p, _ in items}) > 3  # several shapes, several groups each
    share_splits(items, 2 * BLOCK)  # every prompt of a shape at once
    for prepared, s in items:
        for b in (-1, 0, 1):
            rows = prepared.observed()[None, :] if b < 0 else _reference_block(30, 12, s, b)
            expected = _reference_statistics(prepared, rows)
            assert np.array_equal(prepared._cache[(s, b)], expected)
            assert np.array_equal(shared_statistics([prepared], rows[None]), expected[None])


def test_splits_with_the_same_counts_are_computed_once_and_read_the_same() -> None:
    # Replayed answers, as in the README's try-it: one text 30 times, another 12 times. Of the
    # 400 splits only the number of the first text's answers called "baseline" matters (18-30).
    a, b = "The answer is 7, a happy number.", "No. 7 is not a happy number, it seems."
    space = AnswerSpace([a, b])
    prepared = space.prepare([a] * 30, [b] * 12)
    assert prepared is not None and prepared.groups == 2
    masks = _masks(30, 12, (5, 6), 1)
    counts = _baseline_counts(
        masks, np.stack([prepared.answer_group] * 2), np.array([[30, 12]] * 2)
    )
    distinct = _distinct(counts, np.array([[30, 12]] * 2))
    assert distinct is not None
    assert distinct[0].shape[1] <= 13  # at most min(n, m) + 1 count vectors per prompt
    together = shared_statistics([prepared, prepared], masks)
    for mask, stats in zip(masks, together):
        expected = _reference_statistics(prepared, np.where(mask, 1 / 30, -1 / 12))
        assert np.array_equal(stats, expected)


def test_many_groups_compute_every_split() -> None:
    # Every answer distinct: nearly every split has its own counts, so none are shared.
    texts = [f"answer number {i} says {i * 7919 % 97} things" for i in range(42)]
    prepared = AnswerSpace(texts).prepare(texts[:30], texts[30:], tau=1.01)
    assert prepared is not None and prepared.groups == 42
    masks = _masks(30, 12, (9,), 0)
    sizes = np.ones((1, 42), dtype=np.intp)
    assert _distinct(_baseline_counts(masks, prepared.answer_group[None], sizes), sizes) is None
    expected = _reference_statistics(prepared, np.where(masks[0], 1 / 30, -1 / 12))
    assert np.array_equal(shared_statistics([prepared], masks)[0], expected)


def test_split_blocks_are_the_seeded_stream_of_each_prompt() -> None:
    # More seeds than _blocks draws keys for at once: the chunks join without a seam.
    seeds = (3, 17, 2**31 + 5, *range(100, 100 + 2 * _KEY_SEEDS + 3))
    together = _blocks(30, 12, seeds, 2)
    masks = _masks(30, 12, seeds, 2)
    for s, rows, mask in zip(seeds, together, masks):
        assert np.array_equal(rows, _reference_block(30, 12, s, 2))
        assert np.array_equal(mask, rows > 0)
        assert np.array_equal(_mask(30, 12, s, 2), mask)


def test_every_test_of_a_suite_has_its_one_prompt_p_value() -> None:
    items = _prepared(4, 0.7)
    results = mmd.test_many(items, permutations=3000)
    assert {r.permutations for r in results} >= {200, 3000}  # early stops and full tests
    for (prepared, s), result in zip(items, results):
        assert result.p_value == _reference_p(prepared, result.permutations, s)
        fresh = Prepared(prepared.n, prepared.m, prepared.answer_group, prepared.kernels,
                         prepared.combined)  # fmt: skip
        assert mmd.test_prepared(fresh, permutations=3000, seed=s) == result


def test_a_suite_decides_the_same_batched_or_one_prompt_at_a_time() -> None:
    pairs = _suite(5, 0.7)
    items = [PromptAnswers(pid, b, c, c) for (b, c), pid in zip(pairs, PROMPTS)]
    whole = suite_test(items)
    assert any(whole.decision.flagged)
    permutations = permutations_for(len(items), alpha=0.025)
    for item, test in zip(items, whole.tests):
        assert suite_test([item], permutations=permutations).tests == [test]


# ── Features: the same numbers with fewer passes over each text ─────────────────────────────

_SENTENCE = re.compile(r"(?<=[.!?:;])\s+|\s*\n\s*")
_SPACE = re.compile(r"\s+")


def _reference_edges(text: str) -> tuple[str, str]:
    def normalise(t: str) -> str:
        return _SPACE.sub(" ", t).strip().lower()

    stripped = text.strip()
    if not stripped:
        return "", ""
    first = _SENTENCE.split(stripped[: 4 * EDGE_CHARS], maxsplit=1)[0]
    last = _SENTENCE.split(stripped[-4 * EDGE_CHARS :])[-1]
    return normalise(first)[:EDGE_CHARS], normalise(last)[-EDGE_CHARS:]


def _texts() -> list[str]:
    rng = random.Random(11)
    texts = [a for pid in PROMPTS for a in sample_answers(pid, 12, seed=3, share=0.5)]
    pieces = ["a", "b", " ", ".", "!", "?", ":", "\n", "\n\n", "\t", "```", "~~~", "- ", "1. ",
              "# ", "**", "{", "}", "[", "]", '"', "é", "日", "\u00a0", "\u2028", "_"]  # fmt: skip
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 80))) for _ in range(3000)]
    return [*texts, "", " ", "x" * 3000, "Why?\n\n```py\n  x = 1\n```", '{"a": [1, 2]}']


def test_edge_sentences_are_the_regex_splits() -> None:
    for text in _texts():
        assert _edge_sentences(text) == _reference_edges(text), repr(text)


def test_shape_attributes_skip_only_what_cannot_match() -> None:
    fence = re.compile(r"^\s*(```|~~~)", re.MULTILINE)
    listed = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)])\s+\S", re.MULTILINE)
    markup = re.compile(r"^\s*#{1,6}\s+\S|\*\*\S", re.MULTILINE)
    paragraph = re.compile(r"\n\s*\n")
    for text in _texts():
        slots = _shape_slots(text)
        stripped = text.strip()
        words = len(text.split())
        assert slots[0] == min(int(math.log(words + 1) / math.log(1.5)), 19)
        assert slots[1] - 20 == min(len(paragraph.split(stripped)) if stripped else 0, 5)
        assert slots[2] - 26 == int(bool(fence.search(text)))
        assert slots[3] - 28 == int(len(listed.findall(text)) >= 2)
        assert slots[4] - 30 == int(bool(markup.search(text)))
        assert slots[8] - 41 == code_indentation(text)


def test_ngram_rows_are_the_dense_computation() -> None:
    texts = _texts()[-1500:]  # random texts, then the long and the empty ones
    for n, bits, salt in ((4, 10, 1), (3, 8, 2)):
        rows = _ngram_block(texts, n=n, salt=salt, bits=bits)
        assert np.array_equal(rows, _reference_ngram_block(texts, n, salt, bits))
    assert featurise(texts[:5])[0].dtype == np.float32


def _reference_ngram_block(texts: list[str], n: int, salt: int, bits: int) -> NDArray[np.float32]:
    """The n-gram rows as computed before: dense counts, square roots, numpy's norm per row."""
    buckets, rows = 1 << bits, len(texts)
    encoded = [b"\x02" + t.encode("utf-8", "replace") + b"\x03" for t in texts]
    lengths = np.array([len(e) for e in encoded], dtype=np.int64)
    data = np.frombuffer(b"".join(encoded), dtype=np.uint8).astype(np.uint64)
    windows = len(data) - n + 1
    h = np.full(windows, salt, dtype=np.uint64)
    for j in range(n):
        h = h * np.uint64(1_099_511_628_211) + data[j : j + windows]
    bucket = (h * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - bits)
    row = np.repeat(np.arange(rows), lengths)[:windows]
    valid = np.arange(windows) + n <= np.cumsum(lengths)[row]
    index = row[valid] * buckets + bucket[valid].astype(np.int64)
    counts = np.bincount(index, minlength=rows * buckets).astype(np.float64)
    matrix = np.sqrt(counts.reshape(rows, buckets))
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.where(norms == 0, 1.0, norms)).astype(np.float32)


# ── One check's answers featurised once (the gate's and compare's tests share them) ─────────


def _check_items(seed: int, share: float) -> list[PromptAnswers]:
    return [PromptAnswers(pid, b, c, c) for (b, c), pid in zip(_suite(seed, share), PROMPTS)]


def _gate_then_compare(items: list[PromptAnswers]) -> tuple[list[AnswerTest], SuiteTest]:
    """What a check with ``samples: auto`` computes: the gate on 3 screening answers, then the
    suite test (pooled over the screening answers, the gated prompts tested on all 12)."""
    gated = screen_many([(p.baseline, p.pooled[:3], prompt_seed(p.prompt_id)) for p in items])
    result = suite_test(
        [
            PromptAnswers(p.prompt_id, p.baseline, p.pooled[:3], p.pooled if gate(t) else None)
            for p, t in zip(items, gated)
        ]
    )
    return gated, result


@pytest.mark.parametrize(("seed", "share"), [(6, 0.0), (7, 0.7), (8, 0.2)])
def test_a_shared_scope_changes_no_number_of_a_check(seed: int, share: float) -> None:
    items = _check_items(seed, share)
    alone_gate, alone = _gate_then_compare(items)
    with shared_spaces():
        shared_gate, shared = _gate_then_compare(items)
    assert shared_gate == alone_gate
    assert shared.tests == alone.tests
    assert shared.decision == alone.decision
    assert any(not gate(t) for t in alone_gate)  # prompts whose stratum the gate's space serves
    if share:
        assert any(alone.decision.flagged) or alone.decision.pooled_changed


def test_a_shared_scope_featurises_each_set_of_answers_once() -> None:
    sets = [[*b, *c[:3]] for b, c in _suite(9, 0.0)]
    with shared_spaces():
        first = AnswerSpace.many(sets)
        with shared_spaces():  # a nested scope is the outer one
            again = AnswerSpace.many([*sets[:5], [*sets[5], "a new answer"]])
        assert all(a is b for a, b in zip(again[:5], first))
        assert again[5] is not first[5] and again[5].texts[-1] == "a new answer"
        prepared = first[0].prepare(sets[0][:30], sets[0][30:])
        assert prepared is not None
        assert first[0].prepare(sets[0][:30], sets[0][30:]) is prepared  # its splits kept
    after = AnswerSpace.many(sets[:1])
    assert after[0] is not first[0]  # the scope ended: nothing outlives the check
