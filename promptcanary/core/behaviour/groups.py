"""Near-duplicate answers as one: the "leader" grouping every answer test starts with.

A model served at temperature 0 still varies between serving sessions: batch-dependent numerics
give a canonical answer and a few variants identical to it up to a late token, and which variants
appear differs from one session to the next. Tested as distinct answers, a variant the baseline
never saw reads as a new way of answering, and every check against a later session flags. An
effect floor cannot tell those variants from a small real change (a 10 % chatty shift moves the
effect as little); a similarity tolerance can, because the variants are *near* a known answer and
a chatty answer is far from every one.

:func:`leader_groups` walks the distinct answers of one test in decreasing pooled count (ties by
text, so the order never depends on which side an answer came from) and puts each one in the
group of the most similar *leader* seen so far when their kernel similarity reaches
:data:`TAU`; otherwise it leads a new group. Only leaders attract members, so groups do not chain
(single-linkage chaining merged half the prompts of a freely paraphrasing model into one answer).

The grouping is a symmetric function of the pooled answers of a test, so the permutation tests
that follow stay exact: it only decides which answers count as the same. What it hides, by
design: an edit that keeps an answer within ``TAU`` of a known one ("Positive" → "Positive!",
a changed word at the end of a long answer). :data:`TAU` and its window are measured in
``benchmarks/behaviour_drift.py`` (docs/behaviour.md, "Near-duplicate answers").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

#: Kernel similarity (the weighted kernel of :mod:`.features`, in [0, 1]) at which an answer
#: joins a more frequent answer's group. Chosen in benchmarks/behaviour_drift.py --tau-window:
#: late-diverging variants of a temperature-0 answer sit above it, paraphrases that change a
#: whole clause and every style shift the benchmark knows sit below it.
TAU = 0.85


def leader_groups(
    kernel: NDArray[np.float64], counts: Sequence[int], keys: Sequence[str], *, tau: float = TAU
) -> list[int]:
    """The group (the index of its leader) of each distinct answer.

    Args:
        kernel: Similarities between the distinct answers (symmetric, 1 on the diagonal).
        counts: How often each distinct answer occurs in the pooled answers of the test.
        keys:   A tie-break for equal counts that does not depend on the side (the text).
        tau:    Similarity at which an answer joins a leader; above 1, nothing is grouped.
    """
    size = len(counts)
    order = sorted(range(size), key=lambda i: (-counts[i], keys[i]))
    rows = kernel.tolist()
    group = list(range(size))
    leaders: list[int] = []
    for i in order:
        row = rows[i]
        best, best_sim = -1, tau
        for leader in leaders:
            # >= tau joins; between leaders, the most similar (the more frequent on ties).
            sim = row[leader]
            if sim >= best_sim and (best < 0 or sim > row[best]):
                best, best_sim = leader, sim
        if best < 0:
            leaders.append(i)
        else:
            group[i] = best
    return group
