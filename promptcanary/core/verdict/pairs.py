"""A (probe, prompt) pair's side — its results in one run — summarised over the samples.

The input type of the decision rules (:mod:`.rules`); the comparator builds one per side per pair.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from promptcanary.core.models import ProbeResult

__all__ = ["Side"]


@dataclass
class Side:
    """One side of a pair, summarised over its samples when built.

    Errored samples are left out of every summary (``measured``, ``scores``, ``n``, ``passes``,
    ``mean``). The summaries are plain attributes, not properties: a large comparison reads them
    many times.
    """

    results: list[ProbeResult] = field(default_factory=list)
    measured: list[ProbeResult] = field(init=False, repr=False)
    scores: list[float] = field(init=False, repr=False)
    n: int = field(init=False)
    passes: int = field(init=False)
    mean: float = field(init=False)

    def __post_init__(self) -> None:
        self.measured = [r for r in self.results if not r.errored]
        self.scores = [r.score for r in self.measured]
        self.n = len(self.measured)
        self.passes = sum(1 for r in self.measured if r.passed)
        self.mean = sum(self.scores) / self.n if self.n else 0.0

    @property
    def present(self) -> bool:
        return bool(self.results)

    @property
    def passed(self) -> bool:
        # With one sample this is that sample's verdict; with several, the majority's.
        return self.n > 0 and self.passes * 2 >= self.n

    @property
    def details(self) -> str:
        measured = self.measured
        return (measured[0] if measured else self.results[0]).details if self.results else ""
